"""Every per-hand metric of ``report`` and ``compare``, declared once: what it is called, its unit,
its kind (which decides its interval), the columns it needs and how to compute it from the
canonical hands table (:mod:`fastsheng.studies.report.columns`).

Kinds and intervals (all 95%):

* ``proportion``: a share of hands (``value`` is 0/1 per hand): Wilson score interval.
* ``mean``: a mean per hand: Student t interval with :func:`fastsheng.studies.stats.skew_check` (the
  ``warning`` column says when the sample is too skewed or has too few events for it to hold;
  a mean without variation, e.g. all 0, gets the exact binomial bound instead of [0, 0]: at most
  ``1 - 0.025^(1/n)`` (about 3.689 / n) of hands differ, each by at most the metric's ``bounds``,
  the range one hand's value can take from the game and the run's rules
  (:mod:`fastsheng.studies.ranges`: a kitty bonus up to 80 kitty points times the largest
  multiplier, a penalty up to 300 cards taken back times the points per card, ...); no bound,
  n/a, where the rules are not known).
* ``ratio``: a ratio of sums over hands (``value`` / ``den``): cluster-robust delta-method interval
  with the hand as the cluster (Wilson bound when no event varies).
* ``calibration``: events seen over the events a model expected (``value`` / ``den``, e.g. failed
  throws over the bots' own failure estimates): the exact Poisson interval
  (:func:`fastsheng.studies.realism.calibration`), which holds with a handful of rare events.

In matches mode the hands of a match are dependent: every interval is then the cluster-robust one
with the match as the cluster (:func:`clustered`), whatever the kind.

``among`` restricts a metric to some hands (e.g. per capture); its n counts those hands.
``compare`` pairs every metric without ``among`` hand by hand (:func:`paired`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from fastsheng.studies import ranges, stats

__all__ = [
    "CONF",
    "Metric",
    "METRICS",
    "metric",
    "estimate_row",
    "paired_row",
    "available",
    "interval",
    "clustered",
    "clustered_paired",
    "support",
    "diff_support",
]

CONF = 0.95

Values = Callable[[pd.DataFrame], Any]


@dataclass(frozen=True)
class Metric:
    key: str  # stable name (CSV column ``key``)
    label: str  # what the number is, as shown
    unit: str  # share, points, levels, throws, x (multiplier)
    kind: str  # proportion, mean or ratio
    needs: tuple[str, ...]  # canonical columns it is computed from
    value: Values  # per-hand value (0/1 for a proportion; the numerator of a ratio)
    den: Values | None = None  # per-hand denominator of a ratio
    among: Values | None = None  # the hands it is defined on (a mask); None: all hands
    note: str = ""
    # the smallest nonzero distance between two values (None: not known): a value that differs
    # from the most common one differs by at least this (the rate bound's inner side, and its
    # exactness for a share); the range a value can take is ``bounds``, not ``step``
    step: float | None = 1.0
    # the range (lo, hi) one hand's value can take under the rules (None: not known); bounds a
    # mean without variation (stats.mean_t); a mean metric without it has no such bound
    bounds: Callable[[Any], tuple[float, float]] | None = None

    def value_range(self, rules: Any) -> tuple[float, float] | None:
        """The range one hand's value can take under ``rules``: [0, 1] for a share."""
        if self.kind == "proportion":
            return (0.0, 1.0)
        return self.bounds(rules) if self.bounds is not None else None

    def available(self, h: pd.DataFrame) -> bool:
        return all(c in h for c in self.needs)

    @property
    def pairable(self) -> bool:
        """Defined on every hand, so two runs can be compared hand by hand."""
        return self.among is None


def _col(name: str) -> Values:
    return lambda h: h[name]


def _pos(name: str) -> Values:
    return lambda h: h[name] > 0


def _captured(h: pd.DataFrame):
    return h["kitty_captured"].to_numpy(bool)


def _decided(h: pd.DataFrame):
    return h["kitty_decides"].to_numpy(bool)


def _upto(top: Callable[[Any], float] | float) -> Callable[[Any], tuple[float, float]]:
    """Bounds [0, top] (``top`` a number or a function of the rules)."""
    return lambda rules: (0.0, float(top(rules) if callable(top) else top))


def _signed_levels(rules: Any) -> tuple[float, float]:
    dealer, defenders = ranges.level_max(rules)
    return -defenders, dealer


def _penalty(rules: Any) -> tuple[float, float]:
    p = ranges.penalty_max(rules)
    return (-p if p else 0.0), p


_CLIMB = float(ranges.CLIMB)

_M = Metric
_DECLARED: tuple[Metric, ...] = (
    _M("defenders_total", "defenders' total points (mean)", "points", "mean",
       ("defenders_total",), _col("defenders_total"),
       note="trick points + kitty bonus + throw penalties, at least 0", step=5.0,
       bounds=_upto(ranges.defenders_total_max)),
    _M("trick_points", "defenders' trick points (mean)", "points", "mean",
       ("trick_points",), _col("trick_points"), step=5.0, bounds=_upto(ranges.CARD_POINTS)),
    _M("dealer_won", "dealer side wins the hand", "share", "proportion",
       ("dealer_won",), _col("dealer_won")),
    _M("signed_change", "level change, level-table value (+ dealer side / - defenders)",
       "levels", "mean", ("signed_change",), _col("signed_change"),
       note="the raw level-table value (column levels), before end rank and must-play caps",
       bounds=_signed_levels),
    _M("dealer_gain", "dealer side's levels, level-table value", "levels", "mean",
       ("signed_change",), lambda h: np.maximum(h["signed_change"], 0),
       bounds=_upto(lambda r: ranges.level_max(r)[0])),
    _M("defender_gain", "defenders' levels, level-table value", "levels", "mean",
       ("signed_change",), lambda h: np.maximum(-h["signed_change"], 0),
       bounds=_upto(lambda r: ranges.level_max(r)[1])),
    _M("signed_climbed", "levels climbed (+ dealer side / - defenders)", "levels", "mean",
       ("signed_climbed",), _col("signed_climbed"),
       note="column levels_climbed: the levels the winning side actually climbs",
       bounds=lambda rules: (-_CLIMB, _CLIMB)),
    _M("dealer_climbed", "dealer side's levels climbed", "levels", "mean",
       ("signed_climbed",), lambda h: np.maximum(h["signed_climbed"], 0), bounds=_upto(_CLIMB)),
    _M("defender_climbed", "defenders' levels climbed", "levels", "mean",
       ("signed_climbed",), lambda h: np.maximum(-h["signed_climbed"], 0), bounds=_upto(_CLIMB)),
    _M("kitty_points", "points in the kitty as dealt", "points", "mean",
       ("kitty_points",), _col("kitty_points"), step=5.0, bounds=_upto(ranges.KITTY_POINTS)),
    _M("kitty_buried", "points in the final kitty (buried by the burier)", "points", "mean",
       ("kitty_buried",), _col("kitty_buried"),
       note="the burier is the dealer, or the last chaodi 炒底 overcaller", step=5.0,
       bounds=_upto(ranges.KITTY_POINTS)),
    _M("kitty_captured", "defenders capture the kitty", "share", "proportion",
       ("kitty_captured",), _col("kitty_captured")),
    _M("kitty_bonus", "kitty bonus per hand (all hands)", "points", "mean",
       ("kitty_bonus",), _col("kitty_bonus"), step=5.0, bounds=_upto(ranges.kitty_bonus_max)),
    _M("bonus_per_capture", "kitty bonus per capture", "points", "mean",
       ("kitty_bonus", "kitty_captured"), _col("kitty_bonus"), among=_captured, step=5.0,
       bounds=_upto(ranges.kitty_bonus_max)),
    _M("mult_per_capture", "multiplier per capture", "x", "mean",
       ("kitty_multiplier", "kitty_captured"), _col("kitty_multiplier"), among=_captured,
       bounds=_upto(ranges.kitty_multiplier_max)),
    _M("kitty_decides", "hands decided by the kitty (level outcome differs without the bonus)",
       "share", "proportion", ("kitty_decides",), _col("kitty_decides")),
    _M("kitty_flips", "  ... of which the winning side flips (share of the kitty-decided hands)",
       "share", "proportion", ("kitty_decides", "kitty_flips_side"), _col("kitty_flips_side"),
       among=_decided),
    _M("decides_per_capture", "decided by the kitty, among captures", "share", "proportion",
       ("kitty_decides", "kitty_captured"), _col("kitty_decides"), among=_captured),
    _M("no_trump", "no-trump hands", "share", "proportion",
       ("trump_kind",), lambda h: h["trump_kind"] == "no trump"),
    _M("overcall", "hands with an overcall", "share", "proportion",
       ("overcalls",), _pos("overcalls")),
    _M("chaodi", "hands with chaodi 炒底 (an overcall after burial)", "share", "proportion",
       ("chaodi",), _pos("chaodi")),
    _M("declarations", "shows per hand", "shows", "mean",
       ("declarations",), _col("declarations"), bounds=_upto(ranges.RECORDED_COUNT)),
    _M("overcalls", "overcalls per hand", "overcalls", "mean",
       ("overcalls",), _col("overcalls"), bounds=_upto(ranges.RECORDED_COUNT)),
    _M("throws", "throws per hand", "throws", "mean", ("throws",), _col("throws"),
       bounds=_upto(ranges.TRICKS)),
    _M("throw_hand", "hands with a throw", "share", "proportion", ("throws",), _pos("throws")),
    _M("failed_throws", "failed throws per hand", "throws", "mean",
       ("failed_throws",), _col("failed_throws"), bounds=_upto(ranges.TRICKS)),
    _M("failed_hand", "hands with a failed throw", "share", "proportion",
       ("failed_throws",), _pos("failed_throws")),
    _M("failure_rate", "failure rate per throw", "share", "ratio",
       ("failed_throws", "throws"), _col("failed_throws"), den=_col("throws"),
       note="n = throws; hands are the clusters"),
    _M("penalty", "penalty points per hand (effect on the defenders' total)", "points", "mean",
       ("penalty",), _col("penalty"), step=None, bounds=_penalty),
    _M("kitty_flips_all", "the kitty bonus flips the side that goes up", "share", "proportion",
       ("kitty_flips_side",), _col("kitty_flips_side"), note="a share of all hands"),
    _M("defender_early_trump", "a defender leads trump in tricks 1-5", "share", "proportion",
       ("defender_early_trump",), _col("defender_early_trump"),
       note="needs the tricks table (sim --tricks)"),
    _M("failed_vs_expected", "failed throws / the failures the leaders expected",
       "ratio (1 = as estimated)", "calibration", ("failed_throws", "throw_risk"),
       _col("failed_throws"), den=_col("throw_risk"),
       note="throw_risk: the leading bots' own failure estimates, summed per hand"),
)  # fmt: skip

METRICS: dict[str, Metric] = {m.key: m for m in _DECLARED}


def metric(key: str) -> Metric:
    return METRICS[key]


def available(keys: Sequence[str], h: pd.DataFrame) -> list[Metric]:
    """The metrics among ``keys`` whose columns ``h`` has."""
    return [METRICS[k] for k in keys if METRICS[k].available(h)]


def support(
    m: Metric, arrays: Sequence[np.ndarray], rules: Sequence[Any]
) -> tuple[float, float] | None:
    """The range a value of ``m`` can take in runs made under ``rules`` (one entry per run, None
    for a run whose rules are not known), for the rate bound of a rare effect
    (:func:`fastsheng.studies.stats.rate_bound`): the union of every run's
    :meth:`Metric.value_range` (a rare value can be far larger than any observed: a kitty bonus
    0 in every hand can still be worth hundreds of points in one) and, as a safety net, of the
    values in ``arrays``. [0, 1] for a share. None when the range of a run is not known (a mean
    without ``bounds``); an end that depends on rules not known is infinite. Either gives no
    bound (NaN), never a narrower one."""
    if m.kind == "proportion":
        return (0.0, 1.0)
    spans = [m.value_range(r) for r in rules] or [m.value_range(None)]
    if any(s is None for s in spans):
        return None
    lo, hi = min(float(s[0]) for s in spans), max(float(s[1]) for s in spans)
    return ranges.widened(lo, hi, *arrays)


def diff_support(s: tuple[float, float] | None, times: int = 1) -> tuple[float, float] | None:
    """The range of a difference of two values in ``s`` (``[lo - hi, hi - lo]``), or of
    ``times`` such differences added or subtracted; None (unknown) stays None, and an infinite
    end gives an infinite range."""
    if s is None:
        return None
    d = times * (float(s[1]) - float(s[0]))
    return (-d, d)


MIN_CLUSTERS = 30  # below this many matches a cluster-robust interval is flagged


def clustered(x, den, clusters) -> stats.Estimate:
    """sum(x) / sum(den) over units grouped in independent ``clusters`` (matches): the
    cluster-robust (delta-method) interval of :func:`fastsheng.studies.stats.ratio_cluster` on the
    per-cluster sums. With ``den`` = 1 per hand this is a mean or a share of hands whose hands are
    dependent within a match. ``n`` is the number of hands."""
    x = np.asarray(x, dtype=float)
    den = np.ones_like(x) if den is None else np.asarray(den, dtype=float)
    ok = np.isfinite(x) & np.isfinite(den)
    _, codes = np.unique(np.asarray(clusters)[ok], return_inverse=True)
    num = np.bincount(codes, weights=x[ok])
    d = np.bincount(codes, weights=den[ok])
    e = stats.ratio_cluster(num, d, CONF)
    k = num.size
    warn = f"only {k} matches for a cluster-robust interval" if k < MIN_CLUSTERS else ""
    method = "cluster-robust, matches as clusters"
    return stats.Estimate(e.estimate, e.lo, e.hi, int(ok.sum()), CONF, method, warn)


def interval(kind: str, x, den=None, clusters=None, support=None) -> stats.Estimate:
    """The estimate and interval of a metric's kind for per-hand values ``x`` (``den``: a
    ratio's denominators; ``support``: the range one hand's value of a mean can take, which
    bounds a mean without variation, see :meth:`Metric.value_range`); with ``clusters``
    (matches mode: the match of each hand) always the cluster-robust interval."""
    x = np.asarray(x, dtype=float)
    if kind == "calibration" and not np.nansum(np.asarray(den, dtype=float)) > 0:
        nan = float("nan")  # a bot that risks no throw expects no failure: n/a
        return stats.Estimate(nan, nan, nan, 0, CONF, "exact Poisson", "no events expected")
    if clusters is not None:
        return clustered(x, den, clusters)
    if kind == "proportion":
        return stats.wilson(int(np.nansum(x)), int(np.isfinite(x).sum()), CONF)
    if kind == "ratio":
        return stats.ratio_cluster(x, np.asarray(den, dtype=float), CONF)
    if kind == "calibration":
        from fastsheng.studies.realism import calibration

        return calibration(x, np.asarray(den, dtype=float), CONF)
    return stats.mean_t(x, CONF, support=support)


def _estimate(m: Metric, h: pd.DataFrame, cluster: str | None, rules: Any) -> stats.Estimate:
    if m.among is not None:
        h = h[np.asarray(m.among(h), dtype=bool)]
    den = m.den(h) if m.den is not None else None
    clusters = h[cluster].to_numpy() if cluster else None
    return interval(m.kind, m.value(h), den, clusters, m.value_range(rules))


def estimate_row(
    m: Metric, h: pd.DataFrame, cluster: str | None = None, *, rules: Any = None, **label: Any
) -> dict[str, Any]:
    """One table row: the metric's estimate, interval, n, interval method and warning;
    ``cluster``: the column of independent clusters (matches mode: ``match_id``); ``rules``:
    the run's rules, which bound a mean without variation (None: not known, no bound where
    the range depends on them)."""
    e = _estimate(m, h, cluster, rules)
    return {
        **label,
        "key": m.key,
        "metric": m.label,
        "unit": m.unit,
        "kind": m.kind,
        "estimate": e.estimate,
        "estimate_lo": e.lo,
        "estimate_hi": e.hi,
        "n": e.n,
        "interval": e.method,
        "warning": e.warning,
    }


def clustered_paired(xa, xb, clusters, support=None, step=None) -> stats.PairedDiff:
    """:func:`fastsheng.studies.stats.paired_diff` with the cluster-robust interval of the mean
    difference (matches mode: the hands of a match are dependent); p-value and MDE from its
    standard error. When fewer than 10 pairs differ paired_diff's rate bound (``support``,
    ``step``: the range and step of a value) is kept: a cluster-robust interval from a handful
    of differing hands holds no better than the t interval."""
    d = stats.paired_diff(xa, xb, CONF, support=support, step=step)
    if not d.ci.method.startswith("paired t"):  # a rare effect: paired_diff's bound
        note = "matches mode: the bound takes the hands of a match as independent"
        return replace(d, ci=replace(d.ci, warning="; ".join(filter(None, [d.ci.warning, note]))))
    e = clustered(np.asarray(xa, float) - np.asarray(xb, float), None, clusters)
    se = (e.hi - e.estimate) / stats.z_value(CONF)
    p = stats.normal_p_value(e.estimate / se) if se > 0 else (1.0 if e.estimate == 0 else 0.0)
    mde = (stats.z_value(CONF) + stats.z_value(0.6)) * se if se > 0 else float("nan")
    return replace(d, ci=e, p_value=p, mde=mde)


def paired_row(
    m: Metric,
    ha: pd.DataFrame,
    hb: pd.DataFrame,
    cluster: str | None = None,
    *,
    rules: Sequence[Any],
) -> dict[str, Any]:
    """The paired difference A - B of a pairable metric, hand i of A with hand i of B;
    ``cluster``: the column of independent clusters of hands (matches mode: ``match_id``);
    ``rules``: the rules of the two runs (None for one not known). A rare effect is bounded by
    the range a value can take under both runs' rules (:func:`support`) and ``step``."""
    xa = np.asarray(m.value(ha), dtype=float)
    xb = np.asarray(m.value(hb), dtype=float)
    span = support(m, [xa, xb], rules)
    if cluster:
        d = clustered_paired(xa, xb, ha[cluster].to_numpy(), span, m.step)
    else:
        d = stats.paired_diff(xa, xb, CONF, support=span, step=m.step)
    s = d.std_diff
    return {
        "key": m.key,
        "metric": m.label,
        "unit": m.unit,
        "n": d.n,
        "mean_a": d.mean_a,
        "mean_b": d.mean_b,
        "diff": d.diff,
        "diff_lo": d.ci.lo,
        "diff_hi": d.ci.hi,
        "p_value": d.p_value,
        "mde": d.mde,
        "std_diff": s.estimate,
        "std_diff_lo": s.lo,
        "std_diff_hi": s.hi,
        "sd_diff": d.sd_diff,
        "pairs_differing": d.n_differ,
        "excludes_0": bool(d.significant),
        "interval": d.ci.method,
        "warning": d.ci.warning,
    }
