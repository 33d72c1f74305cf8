"""Intervals and tests for simulation output, numpy only.

Every function returns plain floats (or numpy arrays when given arrays) so that the report and the
example studies in ``analysis/`` can put them in tables directly.

* Proportions: :func:`wilson` (Wilson score interval; good coverage even for p near 0 or 1 and
  small n, unlike the Wald interval), :func:`newcombe_diff` for two independent proportions.
* Means: :func:`mean_t` (Student t interval with a skew check: the report's interval for every
  mean; a sample without variation, e.g. all 0, gets the exact binomial bound scaled by the
  largest value one unit can take, never the zero-width [0, 0]), :func:`mean_normal` (z
  interval) and :func:`mean_bootstrap` (percentile bootstrap, kept for studies). The percentile
  bootstrap undercovers for rare or heavy-tailed outcomes at small n (measured on simulator data
  by ``analysis/interval_coverage.py``: 0.85 for the paired "decided by the kitty" difference at
  n = 300, where the t interval covers 0.94), so the report does not use it. :func:`skew_check`
  flags samples where no normal-theory interval can be trusted: fewer than 28 + 25 g1^2
  observations (Cochran's rule, g1 the sample skewness) or fewer than 10 values away from the
  most common one. Simulation output is discrete, so the bootstrap resamples *counts of
  distinct values* with one multinomial draw per replicate (exactly the nonparametric bootstrap).
* Paired comparisons (common random numbers): :func:`paired_diff` gives the t interval of the
  per-unit differences ``a - b`` with the skew check, a p-value and the MDE; when fewer than
  10 pairs differ (none, for two identical runs) the exact :func:`rate_bound` instead, which
  never has zero width.
* Planning: :func:`mde` is the minimum detectable effect at a given n, :func:`n_for_mde` the n
  needed for a given effect.
* Quantiles: :func:`quantile_ci`, a distribution-free interval from binomial order statistics.
* Rare events against an expectation: :func:`poisson_ratio`, observed events over the events a
  model expected, with the exact (Garwood) Poisson interval, which holds with a handful of
  events where a normal interval does not.
* Shares of clustered trials: :func:`wilson_clustered`, the Wilson interval at the effective
  number of trials, so a share estimated from a few clusters stays inside [0, 1].
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np

__all__ = [
    "Estimate",
    "z_value",
    "wilson",
    "wald",
    "newcombe_diff",
    "mean_normal",
    "mean_t",
    "skew_check",
    "t_value",
    "mean_bootstrap",
    "bootstrap_mean_distribution",
    "paired_diff",
    "rate_bound",
    "MIN_AWAY",
    "mde",
    "n_for_mde",
    "quantile_ci",
    "ratio_cluster",
    "poisson_ratio",
    "wilson_clustered",
    "normal_p_value",
]

_STD_NORMAL = NormalDist()


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its interval: ``estimate`` in ``[lo, hi]`` at level ``conf`` from
    ``n`` observations; ``method`` names how the interval was made."""

    estimate: float
    lo: float
    hi: float
    n: int
    conf: float = 0.95
    method: str = ""
    warning: str = ""  # why the interval may not hold (empty: no known problem)

    def covers(self, value: float) -> bool:
        return self.lo <= value <= self.hi

    def as_dict(self) -> dict:
        return asdict(self)

    def fmt(self, digits: int | None = None, scale: float = 1.0) -> str:
        """``estimate [lo, hi]``; ``digits=None`` picks as many decimals as keep the interval
        visible (see :func:`fastsheng.studies.numfmt.fmt_interval`)."""
        from fastsheng.studies.numfmt import fmt_interval

        if self.n == 0 or not np.isfinite(self.estimate):
            return "n/a"
        return fmt_interval(self.estimate * scale, self.lo * scale, self.hi * scale, digits)


def z_value(conf: float = 0.95) -> float:
    """The two-sided standard normal quantile: 1.95996... for ``conf = 0.95``."""
    if not 0.0 < conf < 1.0:
        raise ValueError(f"conf must be in (0, 1), got {conf}")
    return _STD_NORMAL.inv_cdf(0.5 + conf / 2.0)


def t_value(conf: float, df: int) -> float:
    """The two-sided Student t quantile with ``df`` degrees of freedom."""
    from scipy.stats import t

    return float(t.ppf(0.5 + conf / 2.0, df))


def normal_p_value(z: float) -> float:
    """Two-sided p-value of a standard normal statistic; ``erfc`` keeps tiny p-values (down to
    about 1e-300) instead of rounding ``1 - cdf`` to 0 below 1e-16."""
    if not np.isfinite(z):
        return 0.0 if z != 0 else 1.0
    return math.erfc(abs(z) / math.sqrt(2.0))


# --------------------------------------------------------------------------------------------
# Proportions
# --------------------------------------------------------------------------------------------


def wilson(k, n, conf: float = 0.95):
    """Wilson score interval for ``k`` successes in ``n`` trials.

    Scalars give an :class:`Estimate` (``n = 0`` gives NaN estimate and the interval [0, 1]);
    arrays give a tuple ``(p, lo, hi)`` of arrays, for vectorised use (coverage studies)."""
    z = z_value(conf)
    if np.ndim(k) == 0 and np.ndim(n) == 0:
        k, n = int(k), int(n)
        if k < 0 or k > n:
            raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
        if n == 0:
            return Estimate(float("nan"), 0.0, 1.0, 0, conf, "wilson")
        p, lo, hi = _wilson_arrays(np.float64(k), np.float64(n), z)
        return Estimate(float(p), float(lo), float(hi), n, conf, "wilson")
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _wilson_arrays(k, n, z)


def _wilson_arrays(k, n, z):
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    lo = np.clip(centre - half, 0.0, 1.0)
    hi = np.clip(centre + half, 0.0, 1.0)
    # exact endpoints at the boundaries (rounding can leave 1e-17 otherwise)
    lo = np.where(k == 0, 0.0, lo)
    hi = np.where(k == n, 1.0, hi)
    return p, lo, hi


def wald(k, n, conf: float = 0.95):
    """The textbook Wald interval ``p +- z sqrt(p(1-p)/n)`` (arrays in, ``(p, lo, hi)`` out).
    Only here to show in coverage studies why the report uses Wilson instead."""
    z = z_value(conf)
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    p = k / n
    half = z * np.sqrt(p * (1.0 - p) / n)
    return p, np.clip(p - half, 0, 1), np.clip(p + half, 0, 1)


def newcombe_diff(k1: int, n1: int, k2: int, n2: int, conf: float = 0.95) -> Estimate:
    """Difference ``p1 - p2`` of two *independent* proportions with Newcombe's hybrid score
    interval (method 10 of Newcombe 1998), built from the two Wilson intervals."""
    if n1 == 0 or n2 == 0:
        return Estimate(float("nan"), -1.0, 1.0, min(n1, n2), conf, "newcombe")
    a, b = wilson(k1, n1, conf), wilson(k2, n2, conf)
    d = a.estimate - b.estimate
    lo = d - math.sqrt((a.estimate - a.lo) ** 2 + (b.hi - b.estimate) ** 2)
    hi = d + math.sqrt((a.hi - a.estimate) ** 2 + (b.estimate - b.lo) ** 2)
    return Estimate(d, max(lo, -1.0), min(hi, 1.0), min(n1, n2), conf, "newcombe")


# --------------------------------------------------------------------------------------------
# Means
# --------------------------------------------------------------------------------------------


def _clean(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64).ravel()
    return x[np.isfinite(x)]


def mean_normal(x, conf: float = 0.95) -> Estimate:
    """Mean with the normal interval ``mean +- z s / sqrt(n)`` (NaNs dropped)."""
    x = _clean(x)
    n = x.size
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0, conf, "normal")
    m = float(x.mean())
    if n == 1:
        return Estimate(m, float("-inf"), float("inf"), 1, conf, "normal")
    se = float(x.std(ddof=1)) / math.sqrt(n)
    h = z_value(conf) * se
    return Estimate(m, m - h, m + h, n, conf, "normal")


def _zero_rate_upper(n: int, conf: float) -> float:
    """The exact (Clopper-Pearson) upper bound of a rate seen 0 times in ``n`` trials, one-sided
    at ``(1 - conf) / 2`` as in a two-sided interval: ``1 - ((1 - conf) / 2)^(1/n)``, a little
    below the Poisson ``-ln((1 - conf) / 2) / n`` (3.689 / n at 95%)."""
    return 1.0 - ((1.0 - conf) / 2.0) ** (1.0 / n)


def skew_check(x) -> str:
    """Why a normal-theory interval of the mean of ``x`` may not hold, or "" when none is known:
    fewer than ``28 + 25 g1^2`` observations (Cochran's rule, ``g1`` the sample skewness), or fewer
    than 10 observations away from the most common value (rare events: the sample says little
    about the tail). Thresholds checked on simulator data by ``analysis/interval_coverage.py``."""
    x = _clean(x)
    n = x.size
    if n < 2:
        return "fewer than 2 observations"
    values, counts = np.unique(x, return_counts=True)
    if values.size == 1:
        return "no variation in the sample"
    away = n - int(counts.max())
    if away < 10:
        return f"only {away} observations differ from the most common value"
    c = x - x.mean()
    m2 = float(np.mean(c * c))
    g1 = float(np.mean(c**3)) / m2**1.5
    need = 28 + 25 * g1 * g1
    if n < need:
        return f"skewed sample (g1 = {g1:.1f}): n = {n} < 28 + 25 g1^2 = {need:.0f}"
    return ""


def mean_t(x, conf: float = 0.95, support: tuple[float, float] | None = None) -> Estimate:
    """Mean with the Student t interval ``mean +- t s / sqrt(n)`` (NaNs dropped) and the
    :func:`skew_check` warning.

    A sample in which every value is the same ``c`` (all 0: no failed throw, no kitty bonus in
    n hands) gets the exact binomial bound instead of the zero-width ``[c, c]``, which claims a
    certainty n values cannot give. With ``support = (lo, hi)`` the range one value can take,
    at most a share ``q = 1 - ((1 - conf) / 2)^(1/n)`` (about 3.689 / n at 95%) of the values
    differ from ``c`` (Clopper-Pearson, 0 seen in n), each by at most ``hi - c`` upwards and
    ``c - lo`` downwards, so the mean lies in ``[c - (c - lo) q, c + (hi - c) q]``: for a
    non-negative metric all 0, ``[0, hi q]``. ``hi`` must be the *largest* value one unit can
    take, not the smallest nonzero one: a kitty bonus that is 0 in 300 hands may still be
    worth 400 points in 1 hand of 200, and only ``400 q`` bounds that mean. An end of
    ``support`` that is infinite (not known) gives no bound on that side (NaN), and ``support``
    None none on either side, with a warning saying why; never a bound that could undercover.

    With ``support``, a sample in which fewer than :data:`MIN_AWAY` (10) values differ from the
    most common one (a rare event: 3 kitty captures in 300 hands, worth 5 to hundreds of points)
    is bounded by their rate instead (:func:`rate_bound`, exact at every n): the t interval
    does not hold there (it covers a bonus of 5 or 100 points in 1 hand of 300 in under 90% of
    the samples of 300 hands, ``tests/test_stats.py``). Without ``support`` such a sample keeps
    the t interval and :func:`skew_check`'s warning; with many values away ``support`` plays no
    part."""
    x = _clean(x)
    n = x.size
    nan = float("nan")
    if n == 0:
        return Estimate(nan, nan, nan, 0, conf, "t", "no observations")
    m = float(x.mean())
    warn = skew_check(x)
    if n == 1:
        return Estimate(m, float("-inf"), float("inf"), 1, conf, "t", warn)
    sd = float(x.std(ddof=1))
    if sd == 0:
        return _constant_bound(m, n, conf, support)
    if support is not None:
        values, counts = np.unique(x, return_counts=True)
        if n - int(counts.max()) < MIN_AWAY:  # a rare event: the t interval does not hold
            centre = float(values[np.argmax(counts)])
            return rate_bound(x, centre, support, None, conf)[0]
    h = t_value(conf, n - 1) * sd / math.sqrt(n)
    return Estimate(m, m - h, m + h, n, conf, "t", warn)


def _constant_bound(c: float, n: int, conf: float, support) -> Estimate:
    """:func:`mean_t` of ``n`` values all equal to ``c``."""
    nan = float("nan")
    method = f"exact binomial bound (all {c:g})"
    if support is None:
        why = f"every value is {c:g} and the range of a value is unknown: no bound"
        return Estimate(c, nan, nan, n, conf, f"no bound (all {c:g})", why)
    lo, hi = float(support[0]), float(support[1])
    if not lo <= c <= hi:
        why = f"every value is {c:g}, outside the range [{lo:g}, {hi:g}] given: no bound"
        return Estimate(c, nan, nan, n, conf, f"no bound (all {c:g})", why)
    q = _zero_rate_upper(n, conf)
    # c at an end of the range: that end is exact (lo == c: no value below c)
    b_lo = c if lo == c else c - (c - lo) * q
    b_hi = c if hi == c else c + (hi - c) * q
    unknown = [w for w, b in (("smallest", b_lo), ("largest", b_hi)) if not math.isfinite(b)]
    if unknown:
        b_lo, b_hi = (b if math.isfinite(b) else nan for b in (b_lo, b_hi))
        why = (
            f"every value is {c:g} and the {' and '.join(unknown)} value one unit can take "
            "is unknown: no bound"
        )
        return Estimate(c, b_lo, b_hi, n, conf, f"no bound (all {c:g})", why)
    return Estimate(c, b_lo, b_hi, n, conf, method, "")


#: Fewer values than this away from the most common one: a mean (or a paired difference) is
#: bounded by their rate (:func:`rate_bound`), not given a t interval (``skew_check``'s threshold).
MIN_AWAY = 10


def _rate_limits(k: int, n: int, tail: float) -> tuple[float, float]:
    """Clopper-Pearson limits of a rate seen ``k`` times in ``n``, each one-sided at ``tail``
    (k = 0: the exact upper bound 1 - tail^(1/n), about -ln(tail) / n)."""
    from scipy.special import betaincinv

    lo = 0.0 if k == 0 else float(betaincinv(k, n - k + 1, tail))
    hi = 1.0 if k == n else float(betaincinv(k + 1, n - k, 1.0 - tail))
    return lo, hi


def _bound_at(k_up, k_down, n, up, down, step, alpha) -> tuple[float, float]:
    """The rate bound's (lo, hi) around the centre at level ``1 - alpha``."""
    pl_up, pu_up = _rate_limits(k_up, n, alpha / 4)
    pl_down, pu_down = _rate_limits(k_down, n, alpha / 4)
    return step * pl_up - down * pu_down, up * pu_up - step * pl_down


def _bound_p(k_up, k_down, n, up, down, step, centre) -> float:
    """The smallest alpha at which the rate bound excludes 0 (1 when it never does): the
    p-value that agrees with the bound at every level."""

    def excludes(alpha: float) -> bool:
        lo, hi = _bound_at(k_up, k_down, n, up, down, step, alpha)
        return centre + lo > 0 or centre + hi < 0

    if not excludes(1.0 - 1e-12):
        return 1.0
    lo_e, hi_e = -300.0, 0.0  # log10 alpha: excludes at hi_e, not (or barely) at lo_e
    if excludes(10.0**lo_e):
        return 0.0
    for _ in range(30):  # log10 alpha to 3e-7
        mid = (lo_e + hi_e) / 2
        if excludes(10.0**mid):
            hi_e = mid
        else:
            lo_e = mid
    return float(10.0**hi_e)


def rate_bound(
    y,
    centre: float,
    support: tuple[float, float] | None,
    step: float | None,
    conf: float = 0.95,
) -> tuple[Estimate, float]:
    """The mean of ``y`` when few values differ from ``centre`` (a rare effect), bounded by the
    rates of the values above and below it, and the two-sided p-value of a mean of 0 by the same
    bound. With ``p_up``, ``p_down`` those rates, every value at most ``up`` above (``down``
    below) the centre and at least ``step`` away from it:

        centre + step p_up - down p_down  <=  mean  <=  centre + up p_up - step p_down.

    Each rate gets its exact (Clopper-Pearson) two-sided interval at ``1 - alpha/2``, so that
    both hold together with probability at least ``conf = 1 - alpha``; with no value above the
    centre, ``p_up`` <= 1 - (alpha/4)^(1/n) ~ 4.4 / n at 95%, the exact binomial bound of
    :func:`mean_t`'s all-0 case at the level this split needs. ``up`` and ``down`` come from
    ``support`` (the range a value can take, not the range seen); ``step`` None: no lower rate
    counts (0). Holds at every n, never zero width; ``support`` None: no bound (NaN), said so.
    Used by :func:`paired_diff` and the sweep (:func:`fastsheng.studies.controls.rate_bound`)."""
    y = np.asarray(y, dtype=float)
    n = int(y.size)
    nan = float("nan")
    dev = y - centre
    k_up, k_down = int(np.count_nonzero(dev > 0)), int(np.count_nonzero(dev < 0))
    away = k_up + k_down
    est = float(y.mean())
    seen = f"{away} of {n:,} hands differ from {centre:g}"
    if support is None or not all(np.isfinite(support)):
        why = f"only {seen} and the range of a value is unknown: no bound"
        return Estimate(est, nan, nan, n, conf, "no bound (rare values)", why), nan
    a, b = float(support[0]), float(support[1])
    up = max(b - centre, float(dev.max(initial=0.0)))
    down = max(centre - a, float(-dev.min(initial=0.0)))
    nonzero = np.abs(dev[dev != 0])
    s = 0.0 if step is None else float(step)
    if nonzero.size:
        s = min(s, float(nonzero.min()))
    alpha = 1.0 - conf
    lo, hi = _bound_at(k_up, k_down, n, up, down, s, alpha)
    lo, hi = max(centre + lo, a), min(centre + hi, b)
    p = _bound_p(k_up, k_down, n, up, down, s, centre)
    method = f"rate bound ({away} of {n:,} differ)"
    warning = f"only {seen}: bounded by their rate, each within [{a:g}, {b:g}]"
    return Estimate(est, lo, hi, n, conf, method, warning), p


# Above this many distinct values the bootstrap resamples indices instead of value counts.
_MAX_CATEGORIES = 4096


def bootstrap_mean_distribution(x, n_boot: int = 2000, seed: int = 0) -> np.ndarray:
    """``n_boot`` bootstrap replicates of the mean of ``x`` (nonparametric bootstrap).

    With few distinct values (the usual case here) each replicate is one multinomial draw of
    the value counts, which has exactly the distribution of the mean of n draws with
    replacement; otherwise indices are resampled in chunks."""
    x = _clean(x)
    n = x.size
    if n == 0:
        return np.full(n_boot, np.nan)
    rng = np.random.default_rng(seed)
    values, counts = np.unique(x, return_counts=True)
    if values.size == 1:
        return np.full(n_boot, values[0])
    if values.size <= _MAX_CATEGORIES:
        draws = rng.multinomial(n, counts / n, size=n_boot)
        return draws @ values / n
    out = np.empty(n_boot)
    chunk = max(1, int(2e7 // n))
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = x[idx].mean(axis=1)
    return out


def mean_bootstrap(x, conf: float = 0.95, n_boot: int = 2000, seed: int = 0) -> Estimate:
    """Mean with the percentile bootstrap interval (``n_boot`` replicates, reproducible by
    ``seed``)."""
    x = _clean(x)
    if x.size == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0, conf, "bootstrap")
    reps = bootstrap_mean_distribution(x, n_boot, seed)
    a = (1.0 - conf) / 2.0
    lo, hi = np.quantile(reps, [a, 1.0 - a])
    return Estimate(float(x.mean()), float(lo), float(hi), int(x.size), conf, "bootstrap")


@dataclass(frozen=True)
class PairedDiff:
    """Mean paired difference ``mean(a - b)`` with its interval (``ci``: the t interval of the
    differences, or the rate bound when fewer than 10 pairs differ; its ``warning`` says when it
    may not hold and ``method`` which it is), the two-sided p-value of ``mean = 0``, the
    standard deviations of the differences and of each sample, and the minimum detectable effect
    at this n (two-sided ``alpha = 1 - conf``, power 0.8; NaN when the differences do not vary)."""

    mean_a: float
    mean_b: float
    ci: Estimate
    p_value: float
    sd_diff: float
    sd_a: float
    sd_b: float
    mde: float
    n: int
    n_differ: int

    @property
    def diff(self) -> float:
        return self.ci.estimate

    @property
    def significant(self) -> bool:
        """The interval excludes 0 (NaN bounds, no bound at all: not significant)."""
        return bool(self.ci.lo > 0 or self.ci.hi < 0)

    @property
    def std_diff(self) -> Estimate:
        """The difference and its interval in units of the pooled per-unit standard deviation
        ``sqrt((sd_a^2 + sd_b^2) / 2)`` (a standardized mean difference; NaN when neither sample
        varies), so that metrics in different units share one axis."""
        s = math.sqrt((self.sd_a**2 + self.sd_b**2) / 2.0) if self.n > 1 else float("nan")
        if not s > 0:
            nan = float("nan")
            return Estimate(nan, nan, nan, self.n, self.ci.conf, "standardized", "no variation")
        c = self.ci
        return Estimate(
            c.estimate / s, c.lo / s, c.hi / s, self.n, c.conf, "standardized", c.warning
        )


def paired_diff(
    a,
    b,
    conf: float = 0.95,
    power: float = 0.8,
    *,
    support: tuple[float, float] | None = None,
    step: float | None = None,
) -> PairedDiff:
    """Paired comparison of two equally long samples (unit i of ``a`` paired with unit i of
    ``b``, e.g. the same deal played under two rule variants). Pairs with a NaN are dropped.

    ``support``: the range ``(lo, hi)`` one value of ``a`` or ``b`` can take by the rules (not
    the range seen; ``(0, 1)`` for a share), so a difference lies in ``[lo - hi, hi - lo]``;
    ``step``: the smallest nonzero distance between two values (1 for shares, counts and levels,
    5 for card points; None: unknown). Only the rare cases below need them.

    The interval of the mean difference:

    * at least :data:`MIN_AWAY` (10) differences away from the most common difference: the
      paired Student t interval, with :func:`skew_check`'s warning;
    * fewer (a rare effect, down to none at all, e.g. the same rules or bots twice): the t
      interval does not hold (0 differing pairs give the zero-width ``[0, 0]``, which claims a
      certainty n pairs cannot give: an effect on 1 pair in 200 goes unseen at n = 200 with
      probability 0.37). The mean is then bounded by the rate of the pairs that differ
      (:func:`rate_bound`, the sweep's method: exact Clopper-Pearson limits of the rates of
      differences above and below the most common one, each worth at most the range of a
      difference), which holds at every n and never has zero width. When both samples sit at
      one end of ``support`` throughout (no event in either, e.g. no failed throw in both runs),
      each mean lies within its exact binomial bound ``(hi - lo) (1 - (alpha/2)^(1/n))`` of that
      end, and the difference within +- that, a little tighter than the rate bound;
    * without ``support`` a rare effect has no bound: NaN bounds and a warning saying so, not
      an interval that looks narrower than the data allow. Callers that know the metric (the
      report's :mod:`~fastsheng.studies.report.metrics`) pass its range.

    The p-value is the rate bound's in the rare case (NaN without a bound), the normal one
    otherwise; ``significant`` needs a finite interval that excludes 0."""
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired samples must have the same length, got {a.size} and {b.size}")
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    d = a - b
    n = int(d.size)
    nan = float("nan")
    if n == 0:
        e = Estimate(nan, nan, nan, 0, conf, "paired t", "no pairs")
        return PairedDiff(nan, nan, e, nan, nan, nan, nan, nan, 0, 0)
    sd = float(d.std(ddof=1)) if n > 1 else nan
    values, counts = np.unique(d, return_counts=True)
    centre = float(values[np.argmax(counts)])
    if n > 1 and n - int(counts.max()) < MIN_AWAY:
        ci, p = _rare_paired(a, b, d, centre, conf, support, step)
    else:
        t = mean_t(d, conf)
        ci = Estimate(t.estimate, t.lo, t.hi, n, conf, "paired t", t.warning)
        p = normal_p_value(ci.estimate / (sd / math.sqrt(n))) if n > 1 and sd > 0 else nan
    return PairedDiff(
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        ci=ci,
        p_value=float(p),
        sd_diff=sd,
        sd_a=float(a.std(ddof=1)) if n > 1 else nan,
        sd_b=float(b.std(ddof=1)) if n > 1 else nan,
        mde=mde(sd, n, 1.0 - conf, power) if n > 1 and sd > 0 else nan,
        n=n,
        n_differ=int(np.count_nonzero(d)),
    )


def _rare_paired(a, b, d, centre, conf, support, step) -> tuple[Estimate, float]:
    """:func:`paired_diff`'s interval and p-value when fewer than MIN_AWAY pairs differ from the
    most common difference ``centre``."""
    n = int(d.size)
    if support is not None and all(np.isfinite(support)):
        lo, hi = float(support[0]), float(support[1])
        width = hi - lo
        for end in (lo, hi):
            if width > 0 and (a == end).all() and (b == end).all():
                # no event in either sample: each mean within its exact one-sided binomial
                # bound at alpha/2 of that end, so the difference within +- that, at conf
                h = width * (1.0 - ((1.0 - conf) / 2.0) ** (1.0 / n))
                why = f"no pair differs, every value {end:g}: bounded by {n:,} eventless pairs"
                return Estimate(0.0, -h, h, n, conf, "exact binomial bounds (no events)", why), 1.0
        span = (-width, width)
    else:
        span = None
    e, p = rate_bound(d, centre, span, step, conf)
    return e, p


def ratio_cluster(num, den, conf: float = 0.95) -> Estimate:
    """Ratio of sums ``sum(num) / sum(den)`` (e.g. failed throws per throw, pooled over hands)
    with the cluster-robust delta-method interval: the units (hands) are independent, the events
    inside one unit need not be. When ``num`` counts events among ``den`` trials (whole, 0 <=
    num <= den) and that interval leaves [0, 1] (a few events), the Wilson interval at the
    effective number of trials instead. ``n`` of the result is ``sum(den)``."""
    num = np.asarray(num, dtype=np.float64).ravel()
    den = np.asarray(den, dtype=np.float64).ravel()
    k = num.size
    total = float(den.sum())
    if k == 0 or total <= 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0, conf, "ratio (cluster)")
    r = float(num.sum()) / total
    whole = np.all(num == np.round(num)) and np.all(den == np.round(den))
    whole = whole and np.all(num >= 0) and np.all(num <= den)
    if whole and num.sum() in (0, total):
        # no variation to estimate a cluster variance from (0 failures, or all failed): the
        # Wilson bound of k events in ``total`` trials instead of a zero-width interval
        w = wilson(int(num.sum()), int(total), conf)
        return Estimate(r, w.lo, w.hi, int(total), conf, "Wilson (no events to cluster)")
    if k == 1:
        return Estimate(r, float("-inf"), float("inf"), int(total), conf, "ratio (cluster)")
    resid = num - r * den
    se = math.sqrt(float(resid @ resid) / (k - 1) / k) / (total / k)
    h = z_value(conf) * se
    if whole and se > 0 and (r - h < 0 or r + h > 1):
        # a share of trials (failed throws of the throws) whose normal interval leaves [0, 1]
        # (it went below 0 with 2 failures in 8,000 throws): the Wilson interval at the
        # effective number of trials r (1 - r) / se^2 keeps the cluster variance, inside [0, 1]
        n_eff = r * (1.0 - r) / (se * se)
        _, lo, hi = _wilson_arrays(np.float64(r * n_eff), np.float64(n_eff), z_value(conf))
        return Estimate(r, float(lo), float(hi), int(round(total)), conf, "ratio (cluster, wilson)")
    return Estimate(r, r - h, r + h, int(round(total)), conf, "ratio (cluster)")


def poisson_ratio(events, expected, conf: float = 0.95) -> Estimate:
    """``sum(events) / sum(expected)``: events seen against the events a model expected (e.g.
    failed throws against the bots' own failure estimates; 1 = as estimated), with the exact
    Garwood interval of a Poisson count divided by the expectation, which is held fixed. With
    k = 0 events and 0.95 expected: [0, 3.689 / 0.95] = [0, 3.88]. Exact for Poisson counts and
    conservative for sums of Bernoulli trials (less variable than Poisson). ``n`` is the number
    of units (hands) the sums are over; NaN, and ``n`` 0, when nothing was expected."""
    from scipy.stats import chi2

    k = float(np.sum(events))
    e = float(np.sum(expected))
    if not e > 0:
        nan = float("nan")
        return Estimate(nan, nan, nan, 0, conf, "exact Poisson", "no events expected")
    if k < 0 or k != round(k):
        raise ValueError(f"events must be whole and non-negative, got a total of {k}")
    a = (1.0 - conf) / 2.0
    lo = float(chi2.ppf(a, 2 * k)) / 2.0 if k > 0 else 0.0
    hi = float(chi2.ppf(1.0 - a, 2 * k + 2)) / 2.0
    return Estimate(k / e, lo / e, hi / e, int(np.size(events)), conf, "exact Poisson (Garwood)")


def wilson_clustered(y, conf: float = 0.95) -> Estimate:
    """The share ``mean(y)`` of per-cluster shares ``y`` in [0, 1] (clusters of equal size, e.g.
    the share of a deal's two hands a bot won) with the Wilson interval at the effective number
    of trials ``n p (1 - p) / s^2`` (``s^2``: the variance of ``y``), so the interval has the
    variance of the cluster means and still lies in [0, 1]. When the clusters do not vary the
    effective number is the number of clusters (the dependence inside one is unknown). NaN with
    fewer than 2 clusters: one cluster says nothing about the next."""
    y = _clean(y)
    n = int(y.size)
    nan = float("nan")
    if n < 2:
        p = float(y.mean()) if n else nan
        return Estimate(p, nan, nan, n, conf, "wilson (clustered)", "fewer than 2 observations")
    if np.any((y < 0) | (y > 1)):
        raise ValueError("shares must lie in [0, 1]")
    p = float(y.mean())
    var = float(y.var(ddof=1))
    n_eff = n * p * (1.0 - p) / var if var > 0 else float(n)
    z = z_value(conf)
    _, lo, hi = _wilson_arrays(np.float64(p * n_eff), np.float64(n_eff), z)
    lo = 0.0 if p == 0 else float(lo)
    hi = 1.0 if p == 1 else float(hi)
    return Estimate(p, lo, hi, n, conf, "wilson (clustered)", skew_check(y))


# --------------------------------------------------------------------------------------------
# Planning
# --------------------------------------------------------------------------------------------


def mde(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """Minimum detectable effect of a mean (or mean paired difference) with standard deviation
    ``sd`` per unit at sample size ``n``: the true effect a two-sided level-``alpha`` z-test
    detects with probability ``power``: ``(z_{1-alpha/2} + z_{power}) sd / sqrt(n)``."""
    if n <= 0:
        return float("inf")
    return (z_value(1.0 - alpha) + _STD_NORMAL.inv_cdf(power)) * sd / math.sqrt(n)


def n_for_mde(effect: float, sd: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Sample size at which :func:`mde` falls to ``effect``."""
    if effect <= 0:
        raise ValueError("effect must be positive")
    k = z_value(1.0 - alpha) + _STD_NORMAL.inv_cdf(power)
    return int(math.ceil((k * sd / effect) ** 2))


# --------------------------------------------------------------------------------------------
# Quantiles
# --------------------------------------------------------------------------------------------


def quantile_ci(x, q: float, conf: float = 0.95) -> Estimate:
    """The ``q`` quantile (lower empirical quantile: the ceil(q n)-th smallest value) with a
    distribution-free interval between two order statistics, whose ranks come from the normal
    approximation of Binomial(n, q). Conservative for discrete data (ties)."""
    x = np.sort(_clean(x))
    n = x.size
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0, conf, "order statistics")
    z = z_value(conf)
    k = max(1, math.ceil(q * n))
    half = z * math.sqrt(n * q * (1.0 - q))
    lo_rank = max(1, math.floor(n * q - half))
    hi_rank = min(n, math.ceil(n * q + half) + 1)
    return Estimate(
        float(x[k - 1]), float(x[lo_rank - 1]), float(x[hi_rank - 1]), n, conf, "order statistics"
    )
