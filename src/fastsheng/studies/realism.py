"""The realism panel: the figures a strong player checks first to see whether bot play looks real.

For one bot line-up (the hands of one run, and its tricks table for the trump leads), with 95%
intervals from :mod:`fastsheng.studies.stats`, as in ``fastsheng report`` (Wilson for shares of
hands, the Student t interval with its skewness warning for means, and for an all-zero mean the
exact binomial bound scaled by the largest value one hand can take; the cluster-robust ratio for
failures per throw: the throws of one hand are not independent; a Wilson bound when none failed;
the exact Poisson interval for failures against the failures expected, a handful of rare events):

* points buried in the final kitty (by the dealer, or the last 炒底 overcaller), and for scale
  the points the kitty was dealt;
* the defenders' kitty capture rate, and the share of hands the kitty decides: the side that goes
  up flips because of the kitty bonus;
* throws per hand, hands with a throw, failed throws per throw and hands with a failed throw;
  and failed throws against the failures the leading bots expected (``throw_risk``: their own
  estimates, summed; n/a for bots that risk no throw, and for runs made before the column);
* hands in which a defender leads trump in tricks 1-5 (needs the tricks table: ``--tricks``);
* the dealer side's win rate.

:func:`realism_panel` computes the panel of given tables; :func:`lineup_panel` plays a line-up
and computes it; :func:`panel_table` puts several line-ups side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from fastsheng.cards import RANKS, SUITS
from fastsheng.studies import ranges, stats

__all__ = [
    "METRICS",
    "realism_panel",
    "kitty_flips_side",
    "early_trump_lead_by_defenders",
    "lead_is_trump",
    "lineup_panel",
    "panel_table",
    "calibration",
]

CONF = 0.95
EARLY_TRICKS = 5  # "tricks 1-5"

# the range one hand's value of each mean can take (an all-zero mean's bound scales with its top):
# at most 80 points in the 8 kitty cards, at most one throw per trick (fastsheng.studies.ranges)
BOUNDS = {
    "kitty_points_dealt": (0.0, float(ranges.KITTY_POINTS)),
    "kitty_points_buried": (0.0, float(ranges.KITTY_POINTS)),
    "throws_per_hand": (0.0, float(ranges.TRICKS)),
}

# key -> (label, unit) in the panel's order
METRICS: dict[str, tuple[str, str]] = {
    "kitty_points_dealt": ("points in the kitty as dealt", "points (mean)"),
    "kitty_points_buried": ("points buried in the final kitty", "points (mean)"),
    "kitty_captured": ("defenders capture the kitty", "share of hands"),
    "kitty_decides": ("the kitty bonus flips the side that goes up", "share of hands"),
    "throws_per_hand": ("throws attempted", "per hand (mean)"),
    "hands_with_throw": ("hands with a throw", "share of hands"),
    "failed_per_throw": ("failed throws", "share of throws"),
    "hands_with_failed_throw": ("hands with a failed throw", "share of hands"),
    "failed_vs_expected": (
        "failed throws / the failures the leaders expected",
        "ratio (1 = as estimated)",
    ),
    "defender_early_trump": (
        f"a defender leads trump in tricks 1-{EARLY_TRICKS}",
        "share of hands",
    ),
    "dealer_side_wins": ("the dealer side wins the hand", "share of hands"),
}


def _frame(table: pa.Table | pd.DataFrame) -> pd.DataFrame:
    return table.to_pandas() if isinstance(table, pa.Table) else table


def _codes(values: pd.Series, names: Sequence[str]) -> np.ndarray:
    """A dictionary-string column ("S", "NT", "10", ...) -> index in ``names`` (NT -> 4)."""
    index = {name: i for i, name in enumerate(names)}
    return np.array([index.get(str(v), len(names)) for v in values], dtype=np.int64)


def kitty_flips_side(hands: pd.DataFrame, rules: Any) -> np.ndarray:
    """Per hand: whether the side that goes up would be the other one without the kitty bonus
    (the defenders' total without it is their trick points plus penalties, at least 0)."""
    from fastsheng._core import level_outcome

    total = hands["defenders_total"].to_numpy(np.int64)
    without = np.maximum(
        0, hands["trick_points"].to_numpy(np.int64) + hands["penalty"].to_numpy(np.int64)
    )
    side: dict[int, str] = {}

    def side_of(t: int) -> str:
        if t not in side:
            side[t] = level_outcome(rules, int(t))[0]
        return side[t]

    return np.array([side_of(a) != side_of(b) for a, b in zip(total, without, strict=True)], bool)


def lead_is_trump(card: np.ndarray, trump: np.ndarray, level: np.ndarray) -> np.ndarray:
    """Whether a card code is a trump: a joker, a card of the level rank, or a card of the trump
    suit (``trump`` 0..3 = S H C D, 4 = no trump; ``level`` 0..12 = 2..A)."""
    card = np.asarray(card, dtype=np.int64)
    joker = card >= 52
    suited = ~joker
    return joker | (suited & (card % 13 == level)) | (suited & (card // 13 == trump))


def early_trump_lead_by_defenders(
    hands: pd.DataFrame, tricks: pa.Table | pd.DataFrame, first: int = EARLY_TRICKS
) -> np.ndarray:
    """Per hand (in the order of ``hands``): whether a defender led trump in one of the first
    ``first`` tricks. The lead's trump-ness is read from the first card the leader played (a
    lead is of one suit, or all trumps), given the hand's trump and level."""
    if isinstance(tricks, pd.DataFrame):
        tricks = pa.Table.from_pandas(tricks, preserve_index=False)
    early = tricks.filter(pc.less(tricks["trick"], first))
    leader = early["leader"].to_numpy().astype(np.int64)
    led = np.zeros(early.num_rows, np.int64)
    for s in range(4):
        first_card = pc.list_element(early[f"cards_{s}"], 0).to_numpy(zero_copy_only=False)
        led = np.where(leader == s, first_card, led)
    ids = hands["hand_id"].to_numpy()
    order = np.argsort(ids, kind="stable")
    where = order[np.searchsorted(ids, early["hand_id"].to_numpy(), sorter=order)]
    if not np.array_equal(ids[where], early["hand_id"].to_numpy()):
        raise ValueError("the tricks table has hands that are not in the hands table")
    dealer = hands["dealer"].to_numpy(np.int64)[where]
    trump = _codes(hands["trump"], SUITS)[where]
    level = _codes(hands["level"], RANKS)[where]
    hit = ((leader - dealer) % 2 == 1) & lead_is_trump(led, trump, level)
    out = np.zeros(len(hands), bool)
    out[where[hit]] = True
    return out


def _row(key: str, e: stats.Estimate) -> dict[str, Any]:
    label, unit = METRICS[key]
    return {
        "key": key,
        "metric": label,
        "unit": unit,
        "estimate": e.estimate,
        "lo": e.lo,
        "hi": e.hi,
        "n": e.n,
        "method": e.method,
        "warning": e.warning,
    }


def calibration(failed, risk, conf: float = CONF) -> stats.Estimate:
    """Failed throws against the failures the leading bots expected (``throw_risk``, their own
    estimates summed per hand): the exact Poisson interval of the failures over the expectation
    (:func:`fastsheng.studies.stats.poisson_ratio`). A few rare events: a normal interval covers
    0.80 at 5,000 hands and shows [0, 0] when none failed; this one covers at least 0.95 (tested on
    the bots' own estimates) and bounds 0 failures where 0.95 were expected by [0, 3.88]."""
    failed = np.asarray(failed, np.float64)
    e = stats.poisson_ratio(failed, np.asarray(risk, np.float64), conf)
    k = int(failed.sum())
    if k < 10 and np.isfinite(e.estimate):  # exact, but wide: say how few events it rests on
        why = f"only {k} failure{'' if k == 1 else 's'}: exact but wide"
        return stats.Estimate(e.estimate, e.lo, e.hi, e.n, e.conf, e.method, why)
    return e


def realism_panel(
    hands: pa.Table | pd.DataFrame,
    rules: Any,
    tricks: pa.Table | pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per metric of :data:`METRICS` (the trump-lead row only with ``tricks``, the
    calibration row only when the hands have ``throw_risk``):
    key, metric, unit, estimate, lo, hi (95%), n, method, warning (why an interval may not
    hold; empty when no problem is known)."""
    h = _frame(hands)
    n = len(h)

    def share(key: str, flags: np.ndarray) -> dict[str, Any]:
        return _row(key, stats.wilson(int(np.count_nonzero(flags)), n, CONF))

    def mean(key: str, x: np.ndarray) -> dict[str, Any]:
        e = stats.mean_t(x, CONF, support=BOUNDS[key])
        if e.method.startswith("exact"):  # all 0: the bound is exact, "no variation" is no flaw
            e = stats.Estimate(e.estimate, e.lo, e.hi, e.n, e.conf, e.method, "")
        return _row(key, e)

    throws = h["throws"].to_numpy(np.float64)
    failed = h["failed_throws"].to_numpy(np.float64)
    rows = [
        mean("kitty_points_dealt", h["kitty_points_dealt"].to_numpy(np.float64)),
        mean("kitty_points_buried", h["kitty_points_buried"].to_numpy(np.float64)),
        share("kitty_captured", h["kitty_captured"].to_numpy(bool)),
        share("kitty_decides", kitty_flips_side(h, rules)),
        mean("throws_per_hand", throws),
        share("hands_with_throw", throws > 0),
        _row("failed_per_throw", stats.ratio_cluster(failed, throws, CONF)),
        share("hands_with_failed_throw", failed > 0),
    ]
    if "throw_risk" in h.columns:  # the bots' own estimates (0.3 on)
        risk = h["throw_risk"].to_numpy(np.float64)
        rows.append(_row("failed_vs_expected", calibration(failed, risk)))
    if tricks is not None:
        rows.append(share("defender_early_trump", early_trump_lead_by_defenders(h, tricks)))
    rows.append(share("dealer_side_wins", h["winner"].astype(str).to_numpy() == "dealer"))
    return pd.DataFrame(rows)


def lineup_panel(
    bots: str | Sequence[str],
    *,
    rules: Any = "standard",
    n: int = 20_000,
    seed: int = 0,
    level: str = "2",
) -> pd.DataFrame:
    """Play ``n`` hands of the line-up ``bots`` (with the tricks table) and compute the panel."""
    from fastsheng.engine.hands import simulate_hands
    from fastsheng.rules import get_rules

    r = get_rules(rules) if isinstance(rules, str) else rules
    out = simulate_hands(r, bots, seed, n, level=level, tricks=True)
    return realism_panel(out["hands"], r, out["tricks"])


def _cell(row: pd.Series) -> str:
    """``estimate [lo, hi]`` in as many decimals as keep the interval visible (shares in %)."""
    from fastsheng.studies.numfmt import fmt_interval

    if row["n"] == 0 or not np.isfinite(row["estimate"]):
        return "n/a"
    pct = row["unit"].startswith("share")
    return fmt_interval(row["estimate"], row["lo"], row["hi"], pct=pct)


def panel_table(panels: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Line-ups side by side: one row per metric, one column "estimate [95%]" per line-up, and a
    ``warning`` column naming the line-ups whose interval may not hold, and why."""
    first = next(iter(panels.values()))
    out = pd.DataFrame({"metric": first["metric"], "unit": first["unit"]})
    warnings: dict[str, list[str]] = {k: [] for k in first["key"]}
    for name, panel in panels.items():
        cells = dict(zip(panel["key"], [_cell(r) for _, r in panel.iterrows()], strict=True))
        out[name] = [cells.get(k, "n/a") for k in first["key"]]
        for key, warning in zip(panel["key"], panel["warning"], strict=True):
            if warning and key in warnings and cells[key] != "n/a":
                warnings[key].append(f"{name}: {warning}")
    out["warning"] = ["; ".join(warnings[k]) for k in first["key"]]
    return out
