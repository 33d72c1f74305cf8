"""Adjusting for the number of variants: Bonferroni simultaneous intervals and Holm p-values.

Each metric is one family: its k variant-minus-baseline effects. Every interval is made at
level ``1 - 0.05 / k`` (Bonferroni), so that all k cover their true effects together with
probability at least 95% whatever the dependence between them (they share the baseline).
Holm's step-down adjusted p-values decide which effects are established at family-wise 5%;
Holm is never less powerful than Bonferroni but has no matching intervals, so the intervals
are Bonferroni's.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FAMILY_CONF", "simultaneous_conf", "holm", "ADJUSTMENT_TEXT"]

FAMILY_CONF = 0.95

ADJUSTMENT_TEXT = (
    "Intervals: Bonferroni simultaneous 95% intervals over the {k} variants of each metric "
    "(each at {each:.4%}), so that all {k} cover their true effects together at least 95% of the "
    "time; p_holm: Holm's step-down adjusted p-value (an effect is established at family-wise 5% "
    "when p_holm < 0.05), from p_value, the interval's own test (t on its degrees of freedom). "
    "An effect on fewer than 10 differing hands is bounded by the rate of those hands at the "
    "same level instead of a t interval (its warning says so)."
)


def simultaneous_conf(k: int, family: float = FAMILY_CONF) -> float:
    """The level of each of ``k`` Bonferroni simultaneous intervals."""
    return 1.0 - (1.0 - family) / max(k, 1)


def holm(p) -> np.ndarray:
    """Holm's adjusted p-values (same order as ``p``; NaN stays NaN)."""
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if not ok.size:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    k = order.size
    adj = np.minimum(1.0, np.maximum.accumulate((k - np.arange(k)) * p[order]))
    out[order] = adj
    return out
