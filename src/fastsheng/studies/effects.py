"""The numbers of a sweep: for every metric and every variant, the paired effect variant minus
baseline over the same deals, with Bonferroni simultaneous intervals over the variants, Holm
p-values, the standardised effect, optional control variates and, with a check line-up, the
same effect under it and its verdict (:mod:`fastsheng.studies.robustness`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fastsheng.studies.controls import MeanCI, mean_ci
from fastsheng.studies.multiplicity import holm, simultaneous_conf
from fastsheng.studies.report.metrics import METRICS, Metric, diff_support, support
from fastsheng.studies.report.sections import HEADLINE
from fastsheng.studies.robustness import CHECK_COLUMNS, verdict
from fastsheng.studies.variants import SweepError

__all__ = [
    "DEFAULT_METRICS",
    "PRIMARY",
    "pick_metrics",
    "check_available",
    "Check",
    "effect_table",
    "values",
    "support",
    "paired_intervals",
]

#: the report's headline metrics that are defined on every hand (the sweep pairs them)
DEFAULT_METRICS = tuple(k for k in HEADLINE if METRICS[k].pairable)
PRIMARY = "dealer_won"  # the balance question; the first --metric otherwise


def pick_metrics(keys: Sequence[str] = ()) -> list[Metric]:
    """The metrics of ``keys`` (default: the headline's, the dealer side's win rate first);
    an unknown key or one defined on a subset of hands is a SweepError."""
    if not keys:
        keys = (PRIMARY, *(k for k in DEFAULT_METRICS if k != PRIMARY))
    out = []
    for k in keys:
        if k not in METRICS:
            raise SweepError(f"unknown metric {k!r}; metrics: {', '.join(_pairable())}")
        m = METRICS[k]
        if not _paired(m):
            raise SweepError(
                f"metric {k!r} is not one number of every hand; a sweep pairs: "
                f"{', '.join(_pairable())}"
            )
        if m not in out:
            out.append(m)
    return out


def _paired(m: Metric) -> bool:
    """Defined on every hand as one number per hand (not a ratio of sums)."""
    return m.pairable and m.den is None


def _pairable() -> list[str]:
    return [k for k, m in METRICS.items() if _paired(m)]


def check_available(ms: Sequence[Metric], h: pd.DataFrame) -> None:
    """SweepError naming a metric whose columns the runs do not have."""
    for m in ms:
        if not m.available(h):
            missing = [c for c in m.needs if c not in h]
            raise SweepError(
                f"metric {m.key!r} needs {', '.join(missing)}, which these runs do not record"
                + (" (sim --tricks)" if m.key == "defender_early_trump" else "")
            )


def values(m: Metric, h: pd.DataFrame) -> np.ndarray:
    return np.asarray(m.value(h), dtype=float)


@dataclass
class Check:
    """The check line-up's runs: its baseline and variants (canonical hands, the first ``n``
    deals of the sweep's seed) and its centred covariates (or None)."""

    lineup: str
    base: pd.DataFrame
    variants: list[pd.DataFrame]
    x: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.base)


def paired_intervals(
    m: Metric,
    xb: np.ndarray,
    xvs: Sequence[np.ndarray],
    conf: float,
    x: np.ndarray | None = None,
    *,
    rules: Sequence[Any],
) -> list[MeanCI]:
    """Each variant's paired effect ``xv - xb`` (per-hand values of metric ``m``) at ``conf``:
    the t interval (regression-adjusted with ``x``), or the rate bound of a rare effect, each
    differing hand worth at most the range of a difference under the baseline's rules and the
    variant's own (``rules``: the baseline's, then each variant's;
    :func:`~fastsheng.studies.report.metrics.support`). What :func:`effect_table` reports,
    without the table."""
    base_rules, *own = rules
    if len(own) != len(xvs):
        raise ValueError(f"need the rules of the baseline and of {len(xvs)} variants")
    return [
        mean_ci(xv - xb, x, conf, support=diff_support(support(m, [xb, xv], [base_rules, r])),
                step=m.step)
        for xv, r in zip(xvs, own, strict=True)
    ]  # fmt: skip


def effect_table(
    m: Metric,
    base: pd.DataFrame,
    variants: Sequence[tuple[Any, pd.DataFrame]],
    x: np.ndarray | None = None,
    check: Check | None = None,
    single_x: np.ndarray | None = None,
    conf: float | None = None,
    *,
    base_rules: Any,
) -> pd.DataFrame:
    """One row per variant: the paired effect of metric ``m`` (variant - baseline) with its
    Bonferroni simultaneous interval over the variants (a rare effect, fewer than 10 hands
    that differ: the rate bound of :func:`fastsheng.studies.controls.rate_bound` at that level)
    and the p-value of the same method; ``x``: the centred covariates of the deals for the
    paired effect (control variates) or None; ``single_x``: the same for each run's own mean
    (the baseline's and the variant's alike, each with its 95% interval). ``variants``:
    ``(Variant, canonical hands)`` pairs, each variant's rules its ``rules``; ``base_rules``: the
    baseline's rules (None: not known). A rare effect is bounded by the range a value can take
    under the rules of the runs, each run's own mean by its own rules' range. ``conf``: the
    level of each interval instead (not adjusted)."""
    k = len(variants)
    adjusted = conf is None
    conf = simultaneous_conf(k) if adjusted else conf
    xb = values(m, base)
    xvs = [values(m, h) for _, h in variants]
    rules = [base_rules, *(v.rules for v, _ in variants)]
    base_own = mean_ci(xb, single_x, 0.95, support=support(m, [xb], [base_rules]), step=m.step)
    effects = paired_intervals(m, xb, xvs, conf, x, rules=rules)
    rows = []
    for (v, _), xv, e in zip(variants, xvs, effects, strict=True):
        d = xv - xb
        span = support(m, [xv], [v.rules])
        own = mean_ci(xv, single_x, 0.95, support=span, step=m.step)
        pooled = math.sqrt((xb.var(ddof=1) + xv.var(ddof=1)) / 2) if d.size > 1 else math.nan
        s = pooled if pooled > 0 else math.nan
        row = {
            "variant": v.label,
            "key": m.key,
            "metric": m.label,
            "unit": m.unit,
            "n": e.n,
            "mean_baseline": base_own.estimate,
            "mean_baseline_lo": base_own.lo,
            "mean_baseline_hi": base_own.hi,
            "mean_variant": own.estimate,
            "mean_variant_lo": own.lo,
            "mean_variant_hi": own.hi,
            "mean_interval": own.method,
            "diff": e.estimate,
            "diff_lo": e.lo,
            "diff_hi": e.hi,
            "se": e.se,
            "half_width": e.half_width,
            "p_value": e.p_value,
            "std_diff": e.estimate / s,
            "std_diff_lo": e.lo / s,
            "std_diff_hi": e.hi / s,
            "sd_diff": float(d.std(ddof=1)) if d.size > 1 else math.nan,
            "sd_baseline": float(xb.std(ddof=1)) if d.size > 1 else math.nan,
            "sd_variant": float(xv.std(ddof=1)) if d.size > 1 else math.nan,
            "variance_reduction": 1.0 - e.var_ratio,
            "pairs_differing": int(np.count_nonzero(d)),
            "interval": f"{e.method}, Bonferroni over {k} ({conf:.4%} each)"
            if adjusted
            else f"{e.method}, {conf:.0%} each (not adjusted)",
            "warning": e.warning,
        }
        rows.append(row)
    df = pd.DataFrame(rows)
    df["p_holm"] = holm(df["p_value"].to_numpy())
    df["established"] = df["p_holm"] < 0.05
    if check is not None:
        _add_check(df, m, base, variants, x, check, conf, rules)
    return df


def _add_check(df, m, base, variants, x, check: Check, conf: float, rules) -> None:
    """The check line-up's effects and verdicts added to ``df``; the check replays every run
    under its own rules (``rules``: the baseline's, then the variants'), so the baseline's and
    the variant's bound a rare effect there too."""
    k = check.n
    xb_main = values(m, base)[:k]
    xb_chk = values(m, check.base)
    xk = None if x is None else x[:k]
    xcs = [values(m, hc) for hc in check.variants]
    cols: dict[str, list] = {c: [] for c in CHECK_COLUMNS}
    for i, ((_, h), xc) in enumerate(zip(variants, xcs, strict=True)):
        xv_main = values(m, h)[:k]
        d_main = xv_main - xb_main
        d_chk = xc - xb_chk
        pair = [rules[0], rules[i + 1]]  # the baseline's rules and this variant's
        span = support(m, [xb_chk, xc], pair)
        both = support(m, [xb_main, xv_main, xb_chk, xc], pair)
        ec = mean_ci(d_chk, xk, conf, support=diff_support(span), step=m.step)
        ed = mean_ci(d_chk - d_main, xk, conf, support=diff_support(both, 2), step=m.step)
        main = (df["diff"].iloc[i], df["diff_lo"].iloc[i], df["diff_hi"].iloc[i])
        for c, val in (
            ("check_diff", ec.estimate),
            ("check_diff_lo", ec.lo),
            ("check_diff_hi", ec.hi),
            ("change", ed.estimate),
            ("change_lo", ed.lo),
            ("change_hi", ed.hi),
        ):
            cols[c].append(val)
        cols["robustness"].append(
            verdict(main, (ec.estimate, ec.lo, ec.hi), (ed.estimate, ed.lo, ed.hi))
        )
    for c, vals in cols.items():
        df[c] = vals
