"""Control variates from the deal: covariates fixed before any play, whose means under a
uniform shuffle are known exactly, used to take the deal's luck out of an estimate.

The covariates of a hand (hands mode, from the hands table's dealt columns ``*_s`` and the
dealer) and their exact means (two 54-card decks, 25 cards to each seat, 8 to the kitty; the
dealer seat is drawn independently of the shuffle):

* points dealt to the dealer side (dealer and partner): 200 points x 50/108 cards;
* points dealt to the kitty: 200 x 8/108;
* jokers dealt to the dealer side: 4 x 50/108; level-rank cards: 8 x 50/108;
* pairs dealt to the dealer side and to the defenders (both copies of one of the 54 cards in one
  seat's 25): 2 seats x 54 x (25 x 24) / (108 x 107) each.

Estimator (regression adjustment, "CUPED" with known means): the mean of ``y`` is the intercept
of the least-squares fit of ``y`` on the covariates centred at their exact means,
``mean(y) - b'(mean(x) - mu)``; its standard error comes from the residuals, with a Student t
quantile on ``n - p - 1`` degrees of freedom. Unbiased up to O(1/n) for any ``y`` (the
covariates' means are known, not estimated), never worse than the plain mean asymptotically,
and better by the share of ``y``'s variance the deal explains. For a paired difference ``y`` is
the per-hand difference of the two runs (the covariates are common to both: the same deal).

Only hands mode: a match's hand 1 may be redealt when nobody calls (the covariates of the
deal that is played are then not uniform) and its later hands are dealt by the outcome.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fastsheng.studies import stats

__all__ = [
    "COVARIATES",
    "EXACT_MEANS",
    "CONTROLS_NAME",
    "SINGLE_DEFAULT",
    "PAIRED_DEFAULT",
    "controlled",
    "covariates",
    "has_covariates",
    "MeanCI",
    "mean_ci",
    "rate_bound",
    "MIN_AWAY",
    "adjusted_values",
    "centred",
    "deal_x",
    "x_for",
]

CONTROLS_NAME = "deal control variates (regression adjustment on 6 dealt covariates, exact means)"

# On by default (hands mode) only where they pay and hold: at least 2% less variance on both
# `standard` and `super` with expert bots (analysis/control_variates.py prints the figures) and
# 0.95 +- 0.01 coverage at n = 300, 3,000 and 30,000 (tests/test_sweep.py, slow).
SINGLE_DEFAULT = (
    "dealer_won",
    "defenders_total",
    "signed_change",
    "signed_climbed",
    "kitty_captured",
)
PAIRED_DEFAULT = ("signed_change", "signed_climbed")

_CARDS, _HAND, _KITTY = 108, 25, 8
_SIDE = 2 * _HAND
_PAIR_IN_HAND = 54 * (_HAND * (_HAND - 1)) / (_CARDS * (_CARDS - 1))

#: covariate -> its exact mean under a uniform shuffle (derivation: module docstring)
EXACT_MEANS: dict[str, float] = {
    "dealer_side_points": 200 * _SIDE / _CARDS,
    "kitty_points_dealt": 200 * _KITTY / _CARDS,
    "dealer_side_jokers": 4 * _SIDE / _CARDS,
    "dealer_side_level_cards": 8 * _SIDE / _CARDS,
    "dealer_side_pairs": 2 * _PAIR_IN_HAND,
    "defender_pairs": 2 * _PAIR_IN_HAND,
}
COVARIATES = tuple(EXACT_MEANS)
_SEAT_FEATURES = ("points", "jokers", "level_cards", "pairs")


def has_covariates(raw: pd.DataFrame) -> bool:
    need = {"dealer", "kitty_points_dealt"} | {f"{f}_{s}" for f in _SEAT_FEATURES for s in range(4)}
    return need <= set(raw.columns)


def covariates(raw: pd.DataFrame) -> pd.DataFrame:
    """The covariates of every hand of a raw hands table (its row order)."""
    dealer = raw["dealer"].to_numpy().astype(int)
    rows = np.arange(len(raw))

    def side(feature: str, offset: int) -> np.ndarray:
        m = np.stack([raw[f"{feature}_{s}"].to_numpy().astype(float) for s in range(4)], axis=1)
        return m[rows, (dealer + offset) % 4] + m[rows, (dealer + offset + 2) % 4]

    return pd.DataFrame(
        {
            "dealer_side_points": side("points", 0),
            "kitty_points_dealt": raw["kitty_points_dealt"].to_numpy().astype(float),
            "dealer_side_jokers": side("jokers", 0),
            "dealer_side_level_cards": side("level_cards", 0),
            "dealer_side_pairs": side("pairs", 0),
            "defender_pairs": side("pairs", 1),
        }
    )


@dataclass(frozen=True)
class MeanCI:
    """A mean with its interval at ``conf``; ``se`` its standard error, ``sd`` the residual
    standard deviation per hand (the plain sd without controls), ``var_ratio`` the residual
    variance over the plain variance (1 without controls); ``p_value`` the two-sided p-value of
    a mean of 0 by the same method as the interval (0 lies outside the interval at ``conf``
    exactly when ``p_value < 1 - conf``)."""

    estimate: float
    lo: float
    hi: float
    se: float
    sd: float
    n: int
    df: int
    method: str
    warning: str = ""
    var_ratio: float = 1.0
    p_value: float = float("nan")

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2


#: Fewer values than this away from the most common one: the mean is bounded by their rate
#: (:func:`rate_bound`), not given a t interval (the threshold of ``stats.skew_check``).
MIN_AWAY = stats.MIN_AWAY


def mean_ci(
    y,
    x: np.ndarray | None = None,
    conf: float = 0.95,
    *,
    support: tuple[float, float] | None = None,
    step: float | None = None,
) -> MeanCI:
    """The mean of ``y`` with a t interval at ``conf``; with ``x`` (n x p covariates already
    centred at their exact means) the regression-adjusted mean. When fewer than
    :data:`MIN_AWAY` values differ from the most common one (a rare effect: 0 to 9 hands that
    differ), the t interval does not hold (0 of 9 gives [v, v]): the mean is bounded by the rate
    of those values instead (:func:`rate_bound`, with ``support`` the range a value can take and
    ``step`` the smallest nonzero distance between two values). For a share (every value the
    centre or one ``step`` from it) the rate bound is exact, and is used whenever the sample
    is skewed (``stats.skew_check``) too."""
    y = np.asarray(y, dtype=float)
    n = int(y.size)
    nan = float("nan")
    if n < 2:
        v = float(y.mean()) if n else nan
        return MeanCI(v, nan, nan, nan, nan, n, 0, "t", "fewer than 2 hands")
    values, counts = np.unique(y, return_counts=True)
    centre = float(values[np.argmax(counts)])
    if n - int(counts.max()) < MIN_AWAY:
        return rate_bound(y, centre, support, step, conf)
    sd0 = float(y.std(ddof=1))
    warn = stats.skew_check(y)
    if warn and _two_sided_step(centre, support, step):
        # a share (or its paired difference): values one step either side of the centre, where
        # the rate bound is exact and the t interval of a skewed sample is not
        return rate_bound(y, centre, support, step, conf)
    if x is None or x.shape[1] == 0:
        se = sd0 / math.sqrt(n)
        t = stats.t_value(conf, n - 1)
        m = float(y.mean())
        return MeanCI(m, m - t * se, m + t * se, se, sd0, n, n - 1, "t", warn,
                      p_value=_t_p(m, se, n - 1))  # fmt: skip
    keep = x.std(axis=0) > 0
    x = x[:, keep]
    design = np.column_stack([np.ones(n), x])
    df = n - design.shape[1]
    if df < 2:
        return mean_ci(y, None, conf, support=support, step=step)
    # normal equations: the covariates are centred and few, so X'X is well conditioned
    xtx_inv = np.linalg.pinv(design.T @ design)
    coef = xtx_inv @ (design.T @ y)
    resid = y - design @ coef
    s2 = float(resid @ resid) / df
    # the intercept's standard error (the covariates are centred at known means, not at x-bar)
    se = math.sqrt(max(s2 * xtx_inv[0, 0], 0.0))
    t = stats.t_value(conf, df)
    m = float(coef[0])
    return MeanCI(
        m,
        m - t * se,
        m + t * se,
        se,
        math.sqrt(s2),
        n,
        df,
        "t, control variates",
        warn,
        var_ratio=s2 / sd0**2,
        p_value=_t_p(m, se, df),
    )


def _two_sided_step(centre: float, support, step) -> bool:
    """Every value is the centre or one ``step`` above or below it (a 0/1 share, or the
    difference of two): the rate bound is then exact, not a bound."""
    if support is None or not step:
        return False
    return support[1] - centre <= step and centre - support[0] <= step


def _t_p(m: float, se: float, df: int) -> float:
    """Two-sided p-value of the t statistic ``m / se`` on ``df`` degrees of freedom."""
    if not se > 0:
        return 1.0 if m == 0 else 0.0
    from scipy.stats import t

    return float(2.0 * t.sf(abs(m) / se, df))


def rate_bound(
    y,
    centre: float,
    support: tuple[float, float] | None,
    step: float | None,
    conf: float = 0.95,
) -> MeanCI:
    """The mean of ``y`` when few values differ from ``centre`` (a rare effect), bounded by the
    rates of the values above and below it: :func:`fastsheng.studies.stats.rate_bound` (the
    method, its formula and why it holds at every n), as a :class:`MeanCI` with its p-value."""
    e, p = stats.rate_bound(y, centre, support, step, conf)
    sd = float(np.std(np.asarray(y, dtype=float), ddof=1)) if e.n > 1 else float("nan")
    if not np.isfinite(e.lo):
        sd = 0.0
    nan = float("nan")
    return MeanCI(e.estimate, e.lo, e.hi, nan, sd, e.n, e.n - 1, e.method, e.warning, p_value=p)


def adjusted_values(y, x: np.ndarray | None) -> np.ndarray:
    """``y - x b`` with ``b`` the least-squares slopes on the centred covariates ``x``: per-hand
    values whose mean is the regression-adjusted mean and whose variance is the residual one."""
    y = np.asarray(y, dtype=float)
    if x is None or y.size < x.shape[1] + 3:
        return y
    x = x[:, x.std(axis=0) > 0]
    design = np.column_stack([np.ones(y.size), x])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    return y - x @ coef[1:]


def centred(cov: pd.DataFrame) -> np.ndarray:
    """The covariates minus their exact means (the ``x`` of :func:`mean_ci`)."""
    return cov[list(COVARIATES)].to_numpy(float) - np.array([EXACT_MEANS[c] for c in COVARIATES])


def controlled(key: str, controls: bool | None, paired: bool) -> bool:
    """Whether metric ``key`` is adjusted: ``controls`` True (every metric), False (none) or
    None (the defaults above, for a paired difference or for one run's mean)."""
    if controls is None:
        return key in (PAIRED_DEFAULT if paired else SINGLE_DEFAULT)
    return bool(controls)


def deal_x(raw: pd.DataFrame, on: bool | None) -> np.ndarray | None:
    """The centred covariates of the deals, unless control variates are off or impossible."""
    return centred(covariates(raw)) if on is not False and has_covariates(raw) else None


def x_for(x, key: str, controls: bool | None, paired: bool):
    """``x`` for metric ``key`` when it is adjusted (:func:`controlled`), else None."""
    return x if x is not None and controlled(key, controls, paired) else None
