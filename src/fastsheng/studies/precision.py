"""Choosing n for a target precision: a pilot run estimates the variance, then one run of a
fixed n is made and its interval computed once (a pilot-planned fixed n). The interval is never
recomputed as hands come in, so it keeps its level.

n is planned from an upper confidence bound of the per-hand variance (not the pilot's point
estimate), so that the final interval, made with the final run's own standard deviation, is as
narrow as asked on at least 95% of repeated runs:

    n = ceil((t * sigma_upper / halfwidth)^2),

``sigma_upper^2 = s^2 (1 + z_0.99 sqrt((kurtosis - 1) / n0))``: the 99% upper bound of the
variance from its large-sample distribution (Var s^2 ~ (mu4 - sigma^4) / n0, which holds for any
distribution with four moments, unlike the chi-square bound of normal data), and ``t`` the
quantile of the interval that will be reported (a simultaneous one in a sweep).

This is not Stein's two-stage procedure: Stein's interval uses the pilot's standard deviation
(t on n0 - 1 degrees of freedom), which fixes its width in advance; here the pilot only sets n
and the interval is the ordinary one of the final sample, whose width is a random variable
that the variance bound keeps within the target on at least 95% of runs. The pilot has 5% of
``-n``'s cap, at least :data:`MIN_PILOT` (2,000) and at most :data:`MAX_PILOT` (50,000) hands.
"""

from __future__ import annotations

import math

import numpy as np

from fastsheng.studies import stats

__all__ = [
    "PRECISION_TEXT",
    "PILOT_SHARE",
    "MIN_PILOT",
    "MAX_PILOT",
    "pilot_size",
    "planned_n",
    "variance_upper",
]

UPPER = 0.99  # level of the pilot's variance bound
MIN_PILOT = 2_000
PILOT_SHARE = 0.05  # of -n's cap, at most (and at least MIN_PILOT)
MAX_PILOT = 50_000

PRECISION_TEXT = (
    "Precision {target} asked for {metric}: a pilot run of {pilot:,} hands estimated the per-hand "
    "variance of its differences; n = {n:,} was fixed from the pilot's 99% upper variance bound "
    "(a pilot-planned fixed n: the interval uses the final runs' own standard deviation, not "
    "the pilot's as Stein's two-stage interval would), the runs then made once at that n and "
    "every interval computed once (never recomputed until narrow). The pilot has 5% of -n's cap "
    "(at least 2,000, at most 50,000 hands); its deals are the first {pilot:,} of the runs' "
    "(same seed), and when n is the pilot's size the pilot's runs are the runs. Achieved "
    "half-width: {achieved}."
)


def pilot_size(cap: int) -> int:
    """The pilot's hands for a cap ``cap`` (-n): 5% of it, within 2,000..50,000 and <= cap."""
    return int(min(cap, max(MIN_PILOT, min(MAX_PILOT, math.ceil(PILOT_SHARE * cap)))))


def variance_upper(y) -> float:
    """The 99% upper confidence bound of the variance of ``y`` (large-sample, kurtosis-aware)."""
    y = np.asarray(y, dtype=float)
    n = y.size
    if n < 2:
        return float("nan")
    s2 = float(y.var(ddof=1))
    if s2 == 0:
        return 0.0
    c = y - y.mean()
    kurt = float(np.mean(c**4) / np.mean(c**2) ** 2)
    return s2 * (1.0 + stats.z_value(2 * UPPER - 1) * math.sqrt(max(kurt - 1.0, 0.0) / n))


def planned_n(pilot, halfwidth: float, conf: float = 0.95) -> int:
    """Hands needed for an interval at ``conf`` of half-width at most ``halfwidth``, from the
    pilot's per-hand values (with control variates: the adjusted values of
    :func:`fastsheng.studies.controls.adjusted_values`). At least the pilot's size."""
    if not halfwidth > 0:
        raise ValueError(f"the precision must be a positive half-width, not {halfwidth}")
    pilot = np.asarray(pilot, dtype=float)
    v = variance_upper(pilot)
    if not v > 0:
        return int(pilot.size)
    z = stats.z_value(conf)
    n = math.ceil((z * math.sqrt(v) / halfwidth) ** 2)
    # the t quantile at that n (barely above z for the n that matter), once more
    n = math.ceil((stats.t_value(conf, max(n - 1, 1)) * math.sqrt(v) / halfwidth) ** 2)
    return int(max(n, pilot.size))
