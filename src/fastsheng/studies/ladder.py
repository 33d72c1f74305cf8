"""``fastsheng ladder``: every pair of bots on paired deals, and a Bradley–Terry rating.

Method. For each pair (X, Y) of the listed bots, the same ``n`` deals (same seed, batch size and
level: the cards' random stream does not depend on the bots) are played twice: X at seats 0/2
against Y at 1/3, then with the seats swapped. Each seating is an ordinary run folder written by
:func:`fastsheng.sim.runner.run` (every core, Ctrl-C keeps finished batches, re-running the same
command finishes an interrupted ladder) under ``OUT/runs/``. Per deal:

* X's net levels = (levels X's team gains − levels Y's team gains), averaged over the two
  seatings: the luck of the cards and the seat (dealer or defender) cancel, so a bot against
  itself scores exactly 0 on every deal;
* X's hands won (0, 1 or 2): hands in which X's team goes up (as the dealer side) or takes the
  deal (as defenders).

The mean net levels over deals gets a 95% Student t interval
(:func:`fastsheng.studies.stats.mean_t`; the deal is the independent unit, the two hands of a deal
are not independent), the share of hands won the Wilson interval at the deals' effective size
(:func:`fastsheng.studies.stats.wilson_clustered`: it stays inside [0, 1]); fewer than 2 deals give
no interval (n/a). Every pair plays the same deals, so the Bradley–Terry rating (``choix``,
maximum likelihood on hands won, centred on 0, in log-odds) gets its interval from a bootstrap
that resamples deals jointly for all pairs. ``elo`` is the same rating on the Elo scale
(400 / ln 10 per log-odds unit). The rating is a summary: :func:`bt_fit` tests it against the
pair shares (a chi-square of measured against fitted shares, each in units of its standard
error over deals), and the pair table stays the measurement. A bot that never lost (or never
won) a hand has no finite rating: the ratings are then n/a, and the text says why.

Bots are kept as given (``mymod:MyBot`` is a module path, not lowercased; bot objects pass
through to the runner); names that resolve to one bot (``expert`` and ``expert-v4``) are rated
once, under the first name, and the output says so.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fastsheng.errors import FastshengError
from fastsheng.studies import stats

__all__ = [
    "LadderError",
    "LadderSpec",
    "PairOutcome",
    "Ladder",
    "resolve_bot_name",
    "seating_outcome",
    "pair_outcome",
    "pair_row",
    "bradley_terry",
    "bt_ratings",
    "bt_fit",
    "bot_label",
    "play_ladder",
    "write_ladder",
    "ladder_text",
    "ladder_markdown",
]

CONF = 0.95
N_BOOT = 1000  # bootstrap replicates of the Bradley–Terry rating
ELO_PER_LOGIT = 400.0 / math.log(10.0)
# columns that depend on the deal only: both seatings of a deal must agree on them
_DEAL_COLUMNS = ("dealer", "kitty_points_dealt", *(f"points_{s}" for s in range(4)))
_OUTCOME_COLUMNS = ("hand_id", "winner", "levels", *_DEAL_COLUMNS)


class LadderError(FastshengError):
    """A ladder that cannot be played or read back as asked."""


def resolve_bot_name(name: str) -> str:
    """The name a bot plays as (``"expert"`` -> its current version); ValueError if unknown."""
    from fastsheng.engine.registry import resolve_bot

    return resolve_bot(name)


def bot_label(bot: Any) -> str:
    """The name a bot is shown and filed under: a name as given; a bot class or object by its
    ``module:Class`` (or its ``name`` attribute, when it has one)."""
    if isinstance(bot, str):  # a name, or a BotRef whose text is its module:Class
        return str(bot).strip()
    name = getattr(bot, "name", None)
    if isinstance(name, str) and name:
        return name
    cls = bot if isinstance(bot, type) else type(bot)
    return f"{cls.__module__}:{cls.__qualname__}"


def _resolved_label(bot: Any) -> str:
    resolved = resolve_bot_name(bot)
    return resolved if isinstance(resolved, str) else bot_label(resolved)


def _names(key: str, bot: str) -> bool:
    """Whether a --max-deals key names a listed bot: the same name, or its base name (a
    built-in's name in any case; a module path exactly)."""
    from fastsheng.engine.registry import is_python_bot

    if key == bot or key == bot.partition(":")[0]:
        return True
    if is_python_bot(bot):
        return False
    return key.lower() in (bot.lower(), bot.partition(":")[0].lower())


@dataclass(frozen=True)
class LadderSpec:
    """Everything a ladder's figures depend on (with the bots' code)."""

    bots: tuple[str, ...]
    n: int
    seed: int
    rules: Any  # fastsheng.rules.Rules
    level: str = "2"
    batch_size: int = 10_000
    # (bot, deals): the pairs of a slow bot play only the first `deals` of the n deals; the bot
    # is named as listed, or by its base name before ":" (`search` caps `search:k=8` too)
    max_deals: tuple[tuple[str, int], ...] = ()

    # (name, the listed name it was merged into): names that resolve to one bot, rated once
    merged: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        # plain names trimmed; a bot object, class or BotRef (a str carrying one) as given
        bots = tuple(b.strip() if type(b) is str else b for b in self.bots)
        labels = [bot_label(b) for b in bots]
        dup = sorted({b for b in labels if labels.count(b) > 1})
        if dup:
            raise LadderError(f"bot {dup[0]!r} is listed twice")
        kept: list[Any] = []
        merged = list(self.merged)
        first: dict[str, str] = {}  # resolved bot -> the first name it was listed under
        for b, label in zip(bots, labels, strict=True):
            resolved = _resolved_label(b)  # raises ValueError naming the known bots
            if resolved in first:
                merged.append((label, first[resolved]))
                continue
            first[resolved] = label
            kept.append(b)
        if len(kept) < 2:
            what = f"{len(kept)}" + (" (the names given are one bot)" if merged else "")
            raise LadderError(f"a ladder needs at least two bots, not {what}")
        into = dict(merged)
        listed = [bot_label(b) for b in kept]
        caps = []
        for b, k in self.max_deals:
            b, k = b.strip(), int(k)
            b = into.get(b, b)
            if not any(_names(b, x) for x in listed):
                raise LadderError(f"--max-deals names {b!r}, which is not in --bots")
            if k < 1:
                raise LadderError(f"--max-deals {b}={k}: need at least 1 deal")
            caps.append((b, k))
        object.__setattr__(self, "bots", tuple(kept))
        object.__setattr__(self, "max_deals", tuple(caps))
        object.__setattr__(self, "merged", tuple(merged))

    @property
    def labels(self) -> tuple[str, ...]:
        """The bots' names as shown (in the order listed)."""
        return tuple(bot_label(b) for b in self.bots)

    def deals(self, x: Any, y: Any) -> int:
        """Deals the pair (x, y) plays: n, or fewer for a bot with a cap (the first ones)."""
        x, y = bot_label(x), bot_label(y)
        return min([self.n, *(k for b, k in self.max_deals if _names(b, x) or _names(b, y))])

    @property
    def pairs(self) -> list[tuple[Any, Any]]:
        """Every unordered pair of bots (as given), in the order the bots are listed."""
        return list(itertools.combinations(self.bots, 2))

    def run_spec(self, team0: Any, team1: Any):
        """The run with ``team0`` at seats 0/2 and ``team1`` at seats 1/3."""
        from fastsheng.sim.runner import RunSpec

        return RunSpec(
            rules=self.rules,
            bots=(team0, team1, team0, team1),
            seed=self.seed,
            n=self.deals(team0, team1),
            batch_size=self.batch_size,
            level=self.level,
        )

    def config(self) -> dict[str, Any]:
        return {
            "bots": list(self.labels),
            "resolved": [_resolved_label(b) for b in self.bots],
            "merged": {name: into for name, into in self.merged},
            "n": self.n,
            "seed": self.seed,
            "rules_name": self.rules.name,
            "rules": self.rules.to_dict(),
            "level": self.level,
            "batch_size": self.batch_size,
            "max_deals": dict(self.max_deals),
        }


# --------------------------------------------------------------------------------------------
# Outcomes


def seating_outcome(hands: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per hand (rows in hand order): levels team 0 (seats 0/2) gains minus levels team 1 gains,
    and whether team 0 won the hand (went up as the dealer side, or took the deal)."""
    dealer_won = hands["winner"].astype(str).to_numpy() == "dealer"
    team0_deals = hands["dealer"].to_numpy(np.int64) % 2 == 0
    won0 = dealer_won == team0_deals
    levels = hands["levels"].to_numpy(np.int64)
    return np.where(won0, levels, -levels), won0


@dataclass
class PairOutcome:
    """Per deal, from X's side: net levels per hand (both seatings averaged), hands won (0..2)."""

    x: str
    y: str
    net: np.ndarray
    wins: np.ndarray

    @property
    def deals(self) -> int:
        return int(self.net.size)

    def swapped(self) -> PairOutcome:
        """The same deals seen from Y's side."""
        return PairOutcome(self.y, self.x, -self.net, (2 - self.wins).astype(np.int8))


def pair_outcome(x: str, y: str, x_first: pd.DataFrame, y_first: pd.DataFrame) -> PairOutcome:
    """``x_first``: the hands with X at seats 0/2; ``y_first``: the same deals with the seats
    swapped. Raises LadderError if the two seatings were not dealt the same cards."""
    a = x_first.sort_values("hand_id", kind="stable").reset_index(drop=True)
    b = y_first.sort_values("hand_id", kind="stable").reset_index(drop=True)
    if len(a) != len(b) or not np.array_equal(a["hand_id"].to_numpy(), b["hand_id"].to_numpy()):
        raise LadderError(f"{x} vs {y}: the two seatings did not play the same hands")
    for col in _DEAL_COLUMNS:
        if col in a and col in b and not np.array_equal(a[col].to_numpy(), b[col].to_numpy()):
            raise LadderError(f"{x} vs {y}: the two seatings were dealt different cards ({col})")
    net_a, won_a = seating_outcome(a)  # X is team 0
    net_b, won_b = seating_outcome(b)  # X is team 1
    net = (net_a - net_b) / 2.0
    wins = won_a.astype(np.int8) + (~won_b).astype(np.int8)
    return PairOutcome(x, y, net, wins)


def _mean(x: np.ndarray, same_bot: bool) -> stats.Estimate:
    """Mean over deals with the Student t interval. A bot against itself has its value exactly
    (0 on every deal); for two bots a sample without variation (or of fewer than 2 deals) gives
    no interval: n/a, not a zero-width "95%"."""
    nan = float("nan")
    if x.size and np.all(x == x[0]):
        v = float(x[0])
        if same_bot:
            return stats.Estimate(v, v, v, int(x.size), CONF, "t", "")
        why = "fewer than 2 deals" if x.size < 2 else "no variation over the deals"
        return stats.Estimate(v, nan, nan, int(x.size), CONF, "t", f"{why}: no interval")
    return stats.mean_t(x, CONF)


def _share(wins: np.ndarray, same_bot: bool) -> stats.Estimate:
    """The share of hands won over deals: the Wilson interval at the deals' effective size
    (inside [0, 1]); exactly 0.5 for a bot against itself."""
    if same_bot and wins.size:
        v = float(wins.mean() / 2.0)
        return stats.Estimate(v, v, v, int(wins.size), CONF, "wilson (clustered)", "")
    e = stats.wilson_clustered(wins / 2.0, CONF)
    if wins.size < 2:
        return stats.Estimate(e.estimate, e.lo, e.hi, e.n, CONF, e.method, "fewer than 2 deals")
    return e


def pair_row(p: PairOutcome) -> dict[str, Any]:
    """X's net levels per hand (95% t interval over deals) and share of hands won (Wilson at
    the deals' effective size): the deal is the unit, its two hands are not independent."""
    same = p.x == p.y
    net = _mean(p.net, same)
    won = _share(p.wins, same)
    warnings = [f"{what}: {e.warning}" for what, e in (("net", net), ("won", won)) if e.warning]
    return {
        "x": p.x,
        "y": p.y,
        "deals": p.deals,
        "net": net.estimate,
        "net_lo": net.lo,
        "net_hi": net.hi,
        "won": won.estimate,
        "won_lo": won.lo,
        "won_hi": won.hi,
        "warning": "; ".join(warnings),
    }


# --------------------------------------------------------------------------------------------
# Bradley–Terry


def bradley_terry(wins: np.ndarray) -> tuple[np.ndarray, bool]:
    """Maximum-likelihood Bradley–Terry ratings (log-odds, mean 0) of a square matrix
    ``wins[i, j]`` = times i beat j, and whether a small prior had to be added (a bot that never
    beat anyone, or was never beaten, has an infinite MLE)."""
    import choix

    w = np.asarray(wins, dtype=np.float64)
    theta = None
    if finite_mle(w):
        try:
            theta = choix.ilsr_pairwise_dense(w)
        except (ValueError, RuntimeError):  # no stationary distribution, or no convergence
            theta = None
    regularized = theta is None or not np.all(np.isfinite(theta))
    if regularized:
        for alpha in (0.01, 0.1, 1.0):
            try:
                theta = choix.ilsr_pairwise_dense(w, alpha=alpha)
                break
            except (ValueError, RuntimeError):
                continue
        else:
            theta = np.zeros(w.shape[0])
    return theta - theta.mean(), regularized


def finite_mle(wins: np.ndarray) -> bool:
    """Whether Bradley–Terry has a finite maximum likelihood: every bot beat, through some chain
    of wins, every other (the win graph is strongly connected; Zermelo's condition)."""
    from scipy.sparse.csgraph import connected_components

    w = np.asarray(wins, dtype=np.float64)
    k, _ = connected_components(w > 0, directed=True, connection="strong")
    return k == 1


def _why_no_rating(bots: Sequence[str], w: np.ndarray) -> str:
    unbeaten = [b for i, b in enumerate(bots) if w[:, i].sum() == 0]
    winless = [b for i, b in enumerate(bots) if w[i, :].sum() == 0]
    parts = [f"{', '.join(unbeaten)} never lost a hand"] if unbeaten else []
    parts += [f"{', '.join(winless)} never won a hand"] if winless else []
    what = "; ".join(parts) or "the bots split into groups one of which never beat the other"
    return (
        f"no Bradley–Terry rating: {what} (such a bot has no finite rating); "
        "the pair table is the measurement"
    )


def _win_matrix(k: int, ij: list[tuple[int, int]], sums: np.ndarray) -> np.ndarray:
    """wins[i, j] of the pairs ``ij`` from (X's wins of each pair | deals the pair played)."""
    w = np.zeros((k, k))
    for p, (i, j) in enumerate(ij):
        a, played = sums[p], sums[len(ij) + p]
        w[i, j] += a
        w[j, i] += 2.0 * played - a
    return w


def bt_ratings(
    bots: Sequence[str], outcomes: Sequence[PairOutcome], *, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """One row per bot: the Bradley–Terry rating on hands won with its 95% percentile-bootstrap
    interval. Every pair plays the same deals (a pair with a capped bot: the first ones), so the
    bootstrap resamples deals jointly for every pair; a capped pair counts the resampled deals
    that fall in its prefix. No finite rating (a bot never lost, or never won): NaN, and
    ``ratings.attrs["note"]`` says why; with fewer than 2 deals in a pair the interval is NaN.
    ``attrs["prior_share"]``: the share of bootstrap replicates that needed a small prior."""
    index = {b: i for i, b in enumerate(bots)}
    k = len(bots)
    n = max(o.deals for o in outcomes)
    # deals x (X's wins of each pair | whether the pair played the deal), zero past a prefix
    data = np.zeros((n, 2 * len(outcomes)), np.float32)
    for p, o in enumerate(outcomes):
        data[: o.deals, p] = o.wins
        data[: o.deals, len(outcomes) + p] = 1.0
    ij = [(index[o.x], index[o.y]) for o in outcomes]
    w = _win_matrix(k, ij, data.sum(axis=0))
    nan = np.full(k, np.nan)
    note, prior_share = "", 0.0
    if not finite_mle(w):
        theta, lo, hi = nan, nan, nan
        note = _why_no_rating(bots, w)
    else:
        theta, _ = bradley_terry(w)
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0,)))
        reps = np.empty((n_boot, k))
        priors = 0
        chunk = max(1, min(n_boot, int(2e7 // max(n, 1))))
        for start in range(0, n_boot, chunk):
            stop = min(n_boot, start + chunk)
            counts = np.stack(
                [np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(start, stop)]
            ).astype(np.float32)
            for r, sums in enumerate(counts @ data):
                reps[start + r], regularized = bradley_terry(_win_matrix(k, ij, sums))
                priors += regularized
        lo, hi = np.quantile(reps, [(1 - CONF) / 2, (1 + CONF) / 2], axis=0)
        prior_share = priors / n_boot
        if min(o.deals for o in outcomes) < 2:  # resampling one deal says nothing of the next
            lo, hi = nan, nan
            note = "fewer than 2 deals in a pair: no interval"
        elif prior_share > 0.01:
            note = (
                f"{100 * prior_share:.0f}% of the bootstrap replicates had a bot that never "
                "lost or never won (a small prior was added): the interval is rough"
            )
    out = pd.DataFrame(
        {
            "bot": list(bots),
            "rating": theta,
            "rating_lo": lo,
            "rating_hi": hi,
            "elo": theta * ELO_PER_LOGIT,
            "elo_lo": lo * ELO_PER_LOGIT,
            "elo_hi": hi * ELO_PER_LOGIT,
        }
    )
    out = out.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    out.attrs.update(note=note, prior_share=prior_share)
    return out


@dataclass(frozen=True)
class BTFit:
    """How well the ratings reproduce the pair shares: per pair z = (measured share - the
    model's share) / its standard error over deals; ``chi2`` = sum of z^2 on ``df`` = pairs -
    (bots - 1) degrees of freedom and its p-value (NaN when df is 0: two bots, where the rating
    is the pair's share). ``fits``: p >= 0.05. The pairs share deals, so the z are not quite
    independent; the seat swap takes out most of what they share (the cards)."""

    chi2: float
    df: int
    p_value: float
    max_abs_z: float
    worst: tuple[str, str] | None
    fits: bool | None  # None: nothing to test

    def text(self) -> str:
        from fastsheng.studies.numfmt import fmt_p

        if self.fits is None:
            if self.df == 0 and np.isfinite(self.chi2):
                return "two bots: the rating difference is the pair's share, nothing to test"
            return "fit of the model: n/a"
        worst = f" ({self.worst[0]} vs {self.worst[1]})" if self.worst else ""
        head = (
            f"fit to the pair shares: chi-square {self.chi2:,.1f} on {self.df} df, "
            f"p {fmt_p(self.p_value) if self.p_value < 1e-15 else '= ' + fmt_p(self.p_value)}, "
            f"largest |z| {self.max_abs_z:.1f}{worst}"
        )
        if self.fits:
            return head + ": no misfit detected at this number of deals"
        return (
            head + ": the model does not fit these pairs; the pair table is the measurement, "
            "the ratings only a summary"
        )


def bt_fit(ratings: pd.DataFrame, outcomes: Sequence[PairOutcome]) -> tuple[BTFit, list[dict]]:
    """The fit of the ratings to the pair shares (:class:`BTFit`) and per pair the model's share
    (``bt_won``) and z (``bt_z``; NaN where the pair's share has no standard error)."""
    from scipy.stats import chi2 as chi2_dist

    theta = dict(zip(ratings["bot"], ratings["rating"], strict=True))
    rows, zs = [], []
    worst, worst_z = None, 0.0
    for o in outcomes:
        d = theta[o.x] - theta[o.y]
        model = 1.0 / (1.0 + math.exp(-d)) if np.isfinite(d) else float("nan")
        y = o.wins / 2.0
        se = float(y.std(ddof=1)) / math.sqrt(y.size) if y.size > 1 else 0.0
        z = (float(y.mean()) - model) / se if se > 0 and np.isfinite(model) else float("nan")
        rows.append({"bt_won": model, "bt_z": z})
        if np.isfinite(z):
            zs.append(z)
            if abs(z) >= worst_z:
                worst, worst_z = (o.x, o.y), abs(z)
    df = len(zs) - (len(ratings) - 1)
    nan = float("nan")
    if not zs or not np.all(np.isfinite(ratings["rating"])):
        return BTFit(nan, max(df, 0), nan, nan, None, None), rows
    stat = float(np.sum(np.square(zs)))
    if df <= 0:
        return BTFit(stat, 0, nan, worst_z, worst, None), rows
    p = float(chi2_dist.sf(stat, df))
    return BTFit(stat, df, p, worst_z, worst, p >= 0.05), rows


# --------------------------------------------------------------------------------------------
# Playing


@dataclass
class Ladder:
    """A played ladder: its spec, the pair table, the ratings, and where its runs are."""

    spec: LadderSpec
    pairs: pd.DataFrame
    ratings: pd.DataFrame
    out: Path
    outcomes: list[PairOutcome] = field(default_factory=list, repr=False)
    elapsed: float = 0.0
    fit: BTFit | None = None


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def run_path(out: Path, team0: Any, team1: Any) -> Path:
    """The run folder of one seating: ``OUT/runs/<team0>_vs_<team1>`` (team0 at seats 0/2)."""
    return Path(out) / "runs" / f"{_safe(bot_label(team0))}_vs_{_safe(bot_label(team1))}"


def _read_outcome_columns(path: Path) -> pd.DataFrame:
    """The outcome columns of a finished pair run: only the parts run.json records, each
    verified against its checksum (a corrupt part stops the ladder in one line)."""
    from fastsheng.sim.dataset import read_run

    hands = read_run(path, tables=("hands",)).tables["hands"]
    return hands.select(list(_OUTCOME_COLUMNS)).to_pandas()


class _OneBar:
    """The runner reports run by run; this shows one progress over all the ladder's runs."""

    def __init__(self, reporter: Any, total: int):
        self.reporter = reporter
        self.total = total
        self.started = False

    def __call__(self, kind: str, info: Mapping[str, Any]) -> None:
        r = self.reporter
        if kind == "start":
            if not self.started:
                r.unit, r.total, r.done = "hands", self.total, 0
                r.t0 = r.last = time.perf_counter()
                r.begin()
                self.started = True
            # hands finished by an earlier, interrupted ladder count as done, not as speed
            r.done += info["done_rows"]
            r.done_at_start += info["done_rows"]
            if hasattr(r, "progress"):
                r.progress.update(r.task, completed=r.done)
        elif kind in ("batch", "worker_died", "note"):
            r(kind, info)


def play_ladder(
    spec: LadderSpec,
    out: str | Path,
    *,
    workers: int | None = None,
    reporter: Any = None,
    batch_fn: Callable | None = None,
    n_boot: int = N_BOOT,
) -> Ladder:
    """Play (or finish) every pair of ``spec`` into ``out`` and compute the tables."""
    from fastsheng.sim import runner

    out = Path(out)
    t0 = time.perf_counter()
    total = sum(2 * spec.deals(x, y) for x, y in spec.pairs)
    on_event = _OneBar(reporter, total) if reporter is not None else None
    outcomes = []
    for x, y in spec.pairs:
        paths = []
        for team0, team1 in ((x, y), (y, x)):
            p = run_path(out, team0, team1)
            runner.run(
                spec.run_spec(team0, team1),
                str(p),
                workers=workers,
                resume=(p / "run.json").is_file(),
                on_event=on_event,
                batch_fn=batch_fn,
            )
            paths.append(p)
        labels = bot_label(x), bot_label(y)
        outcomes.append(pair_outcome(*labels, *map(_read_outcome_columns, paths)))
    ratings = bt_ratings(spec.labels, outcomes, n_boot=n_boot, seed=spec.seed)
    rank = {b: i for i, b in enumerate(ratings["bot"])}
    # the table reads best with the higher-rated bot as X, strongest pairs first
    outcomes = sorted(
        (o if rank[o.x] < rank[o.y] else o.swapped() for o in outcomes),
        key=lambda o: (rank[o.x], rank[o.y]),
    )
    fit, model = bt_fit(ratings, outcomes)
    pairs = pd.DataFrame([{**pair_row(o), **m} for o, m in zip(outcomes, model, strict=True)])
    return Ladder(spec, pairs, ratings, out, outcomes, time.perf_counter() - t0, fit)


# --------------------------------------------------------------------------------------------
# Output


def _interval(v: float, lo: float, hi: float, fmt: str, pct: bool = False) -> str:
    """``v [lo, hi]``; ``v [n/a]`` without an interval, ``n/a`` without an estimate."""
    scale, unit = (100.0, "%") if pct else (1.0, "")
    if not np.isfinite(v):
        return "n/a"
    head = f"{scale * v:{fmt}}{unit}"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{head} [n/a]"
    return f"{head} [{scale * lo:{fmt}}{unit}, {scale * hi:{fmt}}{unit}]"


def _pair_display(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pair table as shown; a ``warning`` column when some interval may not hold."""
    out = pd.DataFrame(
        {
            "X vs Y": [f"{x} vs {y}" for x, y in zip(pairs["x"], pairs["y"], strict=True)],
            "deals": [f"{d:,}" for d in pairs["deals"]],
            "X net levels / hand [95%]": [
                _interval(*r, "+.3f")
                for r in zip(pairs["net"], pairs["net_lo"], pairs["net_hi"], strict=True)
            ],
            "hands X's team wins [95%]": [
                _interval(*r, ".1f", pct=True)
                for r in zip(pairs["won"], pairs["won_lo"], pairs["won_hi"], strict=True)
            ],
        }
    )
    if pairs["warning"].fillna("").astype(bool).any():
        out["warning"] = pairs["warning"].fillna("").tolist()
    return out


def _rating_display(ratings: pd.DataFrame, resolved: Mapping[str, str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "bot": [
                b if resolved.get(b, b) == b else f"{b} (= {resolved[b]})" for b in ratings["bot"]
            ],
            "rating, log-odds [95%]": [
                _interval(*r, "+.3f")
                for r in zip(
                    ratings["rating"], ratings["rating_lo"], ratings["rating_hi"], strict=True
                )
            ],
            "Elo scale [95%]": [
                _interval(*r, "+.0f")
                for r in zip(ratings["elo"], ratings["elo_lo"], ratings["elo_hi"], strict=True)
            ],
        }
    )


def _setup_line(lad: Ladder) -> str:
    s = lad.spec
    caps = "".join(f", {b}'s pairs the first {k:,}" for b, k in s.max_deals)
    return (
        f"{s.n:,} deals per pair{caps}, each played twice with the seats swapped; rules "
        f"{s.rules.name}, level {s.level}, seed {s.seed}, batch size {s.batch_size:,}"
    )


def _notes(lad: Ladder) -> list[str]:
    """What the reader must know beside the ratings: names rated once, why there is no rating
    or interval, and the model's fit to the pair shares."""
    out = [f"{a} is the same bot as {b}: rated once, as {b}" for a, b in lad.spec.merged]
    if lad.ratings.attrs.get("note"):
        out.append(lad.ratings.attrs["note"])
    if lad.fit is not None and np.all(np.isfinite(lad.ratings["rating"])):
        out.append(lad.fit.text())
    return out


def _resolved(lad: Ladder) -> dict[str, str]:
    return dict(zip(lad.spec.labels, lad.spec.config()["resolved"], strict=True))


def ladder_text(lad: Ladder) -> str:
    """The printed tables: the pair table (the measurement) first, then the ratings."""
    return "\n".join(
        [
            f"ladder: {_setup_line(lad)}",
            "",
            _text(_pair_display(lad.pairs)),
            "",
            "Bradley–Terry rating on hands won, mean 0, bootstrap over deals:",
            _text(_rating_display(lad.ratings, _resolved(lad))),
            *(f"note: {n}" for n in _notes(lad)),
        ]
    )


def _text(df: pd.DataFrame) -> str:
    """A plain table, text left-aligned (pandas right-aligns strings)."""
    cols = [df[c].astype(str).tolist() for c in df.columns]
    widths = [max(len(c), *(len(v) for v in vs)) for c, vs in zip(df.columns, cols, strict=True)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(df.columns, widths, strict=True))]
    for row in zip(*cols, strict=True):
        lines.append("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))
    return "\n".join(line.rstrip() for line in lines)


def _markdown(df: pd.DataFrame) -> str:
    head = "| " + " | ".join(df.columns) + " |"
    rule = "|" + "---|" * len(df.columns)
    rows = ["| " + " | ".join(str(v) for v in r) + " |" for r in df.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def ladder_markdown(lad: Ladder, command: str = "") -> str:
    """The two tables in Markdown, for the README and docs/bots.md."""
    notes = "".join(f"; {n}" for n in _notes(lad))
    text = [
        _markdown(_pair_display(lad.pairs)),
        "",
        _markdown(_rating_display(lad.ratings, _resolved(lad))),
        "",
        f"({_setup_line(lad)}{'; `' + command + '`' if command else ''}{notes})",
    ]
    return "\n".join(text)


def _json_number(v: Any) -> Any:
    """NaN and infinities as null: JSON has no such numbers."""
    return None if isinstance(v, float) and not math.isfinite(v) else v


def write_ladder(lad: Ladder, command: str = "") -> list[Path]:
    """``OUT/pairs.csv``, ``OUT/ratings.csv``, ``OUT/ladder.md`` and ``OUT/ladder.json``."""
    out = lad.out
    out.mkdir(parents=True, exist_ok=True)
    files = [out / "pairs.csv", out / "ratings.csv", out / "ladder.md", out / "ladder.json"]
    lad.pairs.to_csv(files[0], index=False)
    lad.ratings.to_csv(files[1], index=False)
    files[2].write_text(ladder_markdown(lad, command) + "\n")
    fit = {} if lad.fit is None else dataclasses.asdict(lad.fit)
    meta = {
        **lad.spec.config(),
        "command": command,
        "elapsed_seconds": round(lad.elapsed, 3),
        "fit": {k: _json_number(v) for k, v in fit.items()},
        "notes": _notes(lad),
    }
    files[3].write_text(json.dumps(meta, indent=1) + "\n")
    return files


# --------------------------------------------------------------------------------------------
# The command


def _parse_max_deals(text: str) -> tuple[tuple[str, int], ...]:
    """``"search=2000,expert=5e4"`` -> ``(("search", 2000), ("expert", 50000))``."""
    from fastsheng.sim.counts import parse_count

    out = []
    for item in text.split(","):
        bot, sep, count = item.rpartition("=")
        if not sep or not bot.strip():
            raise LadderError(f"--max-deals takes BOT=N[,BOT=N...], not {text!r}")
        out.append((bot.strip(), parse_count(count, f"--max-deals {bot.strip()}")))
    return tuple(out)


def ladder_command(
    bots: str,
    n: int,
    *,
    seed: int | None = None,
    rules: str | None = None,
    level: str = "2",
    batch_size: int | None = None,
    max_deals: str | None = None,
    workers: int | None = None,
    out: str | None = None,
    markdown: bool = False,
    quiet: bool = False,
) -> int:
    """``fastsheng ladder``: play, print the tables, write them to ``out``; the exit code."""
    import secrets
    import sys

    from fastsheng.cards import parse_level
    from fastsheng.engine.registry import split_bots
    from fastsheng.rules import get_rules, rules_from_spec
    from fastsheng.sim import progress, runner

    names = [b.strip() for b in split_bots(bots)]  # as given: module paths keep their case
    if not all(names):
        raise LadderError(f"--bots takes a comma-separated list of bot names, not {bots!r}")
    try:
        level = parse_level(level, "--level")
    except ValueError as exc:
        raise LadderError(str(exc)) from None
    drawn = seed is None
    seed = secrets.randbelow(2**32) if seed is None else seed
    the_rules = rules_from_spec(rules) if rules else get_rules("standard")
    caps = _parse_max_deals(max_deals) if max_deals else ()
    if batch_size is None:  # sim's choice: smaller batches when a seat is a (slow) Python bot
        batch_size = _default_batch_size(names)
    spec = LadderSpec(tuple(names), n, seed, the_rules, level, batch_size, caps)
    where = Path(out) if out else Path("runs") / f"ladder-{_safe(the_rules.name)}-{n}-s{seed}"
    command = (
        f"fastsheng ladder --bots {','.join(spec.labels)} -n {n} --seed {seed} "
        f"--rules {rules or 'standard'} --level {level}"
        + (f" --batch-size {batch_size}" if batch_size != _default_batch_size(names) else "")
        + (f" --max-deals {max_deals}" if max_deals else "")
    )
    reporter = progress.make_reporter(quiet=quiet)
    if not quiet:
        reporter.write(
            f"ladder: {len(spec.bots)} bots, {len(spec.pairs)} pairs, {n:,} deals each played "
            f"twice, seed {seed}{' (drawn at random)' if drawn else ''} -> {where}"
        )
    try:
        lad = play_ladder(spec, where, workers=workers, reporter=reporter)
    except runner.RunInterrupted:
        reporter.close()
        print(
            f"interrupted; run the same command to finish: {command} --out {where}", file=sys.stderr
        )
        return 130
    finally:
        reporter.close()
    files = write_ladder(lad, command)
    print(ladder_markdown(lad, command) if markdown else ladder_text(lad))
    if not quiet:
        print(f"wrote {', '.join(str(f) for f in files)}")
    return 0


def _default_batch_size(names: Any) -> int:
    """The batch size ``fastsheng sim`` gives a line-up holding any of these bots."""
    from fastsheng.engine.registry import is_python_bot, resolve_bot
    from fastsheng.sim.runner import DEFAULT_BATCH_SIZE, PYTHON_BATCH_SIZE

    python = any(is_python_bot(resolve_bot(b)) for b in names)
    return (PYTHON_BATCH_SIZE if python else DEFAULT_BATCH_SIZE)["hands"]
