"""The sweep's page: the report (``OUT/index.html`` and one CSV per table) built from the effect
tables: one table per metric (every variant against the baseline, with the console's columns),
the runs, the precision table, the conventions, and the figures (a forest plot per metric, the
metrics against each ordered switch)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from fastsheng.studies import figures as figs
from fastsheng.studies.controls import CONTROLS_NAME, PAIRED_DEFAULT, SINGLE_DEFAULT
from fastsheng.studies.folders import variant_folder
from fastsheng.studies.multiplicity import ADJUSTMENT_TEXT
from fastsheng.studies.precision import PRECISION_TEXT
from fastsheng.studies.report.model import Figure, Report, Table, lineup_text
from fastsheng.studies.report.plots import png
from fastsheng.studies.report.single import mode_conventions
from fastsheng.studies.robustness import CHECK_COLUMNS, ROBUSTNESS_TEXT
from fastsheng.studies.variants import Variant, table_data

__all__ = ["CONSOLE", "build_report", "interval_labels", "ordered_keys"]


_SHOW = (
    "variant",
    "n",
    "mean_baseline",
    "mean_baseline_lo",
    "mean_baseline_hi",
    "mean_variant",
    "mean_variant_lo",
    "mean_variant_hi",
    "diff",
    "diff_lo",
    "diff_hi",
    "p_holm",
    "std_diff",
    "std_diff_lo",
    "std_diff_hi",
    "pairs_differing",
    "variance_reduction",
    "warning",
)
#: the console's columns (and docs/analysis.md's): the warning is shown whenever a row has one
CONSOLE = (
    "variant",
    "mean_baseline",
    "mean_variant",
    "diff",
    "diff_lo",
    "diff_hi",
    "p_holm",
    "warning",
)


def build_report(
    where,
    base,
    vs,
    runs,
    tables,
    primary,
    conf,
    controls,
    check,
    precision_row,
    deal_share,
    figures,
) -> Report:
    k = len(vs)
    m0 = runs[0].manifest
    adjust = (
        ADJUSTMENT_TEXT.format(k=k, each=conf)
        if conf > 0.95 or k == 1
        else "Intervals: 95% each, not adjusted for the number of variants (adjust=False)."
    )
    share = min(deal_share) if deal_share else float("nan")
    rep = Report(
        title=f"fastsheng sweep: {k} variants against {base.label}",
        subtitle=f"{len(runs[0].hands):,} paired hands per run; seed {m0.get('seed')}, batch "
        f"size {m0.get('batch_size')}; {_bots_text(base, vs, m0)}; same deals: "
        f"{share:.2%} of hands (least over the runs)",
        headline=f"metric_{primary}",
        meta={
            "baseline": base.label,
            "variants": [v.label for v in vs],
            "primary": primary,
            "simultaneous_conf": conf,
            "controls": controls,
            "same_deals": deal_share,
            "precision": precision_row,
            "check_bots": None if check is None else {"lineup": check.lineup, "n": check.n},
        },
        conventions=_conventions(adjust, controls, m0, precision_row, check),
    )
    rep.tables += _metric_tables(tables, adjust, check, conf)
    rep.tables.append(_variants_table(base, vs, runs, deal_share, where))
    if precision_row is not None:
        rep.tables.append(
            Table(
                "precision",
                "Precision: pilot and chosen n",
                pd.DataFrame([precision_row]),
                PRECISION_TEXT.format(
                    achieved=f"{precision_row['achieved']:.4g}",
                    **{k_: precision_row[k_] for k_ in ("target", "pilot", "n")},
                    metric=precision_row["metric"],
                ),
            )
        )
    if figures:
        rep.figures += _figures(base, vs, tables)
    return rep


def _bots_text(base, vs, m0) -> str:
    """Who played, as the other pages say it: "bots: expert-v4 at all four seats" (a sweep of
    line-ups: each variant's, in the runs table)."""
    if base.bots is not None and any(v.bots != base.bots for v in vs):
        return "bots: each variant's line-up (the runs table)"
    return f"bots: {lineup_text(m0.get('bots'))}"


def _conventions(adjust: str, controls, m0, precision_row, check) -> list[str]:
    """The page's conventions: the design, the intervals' adjustment, precision and check."""
    conventions = [
        "Sweep: the baseline and every variant played on the same deals (one seed, n and batch "
        "size: common random numbers); every effect is variant - baseline, paired hand by hand.",
        adjust,
        _controls_text(controls),
        *mode_conventions(m0),
    ]
    if precision_row is not None:
        conventions.insert(
            2,
            PRECISION_TEXT.format(
                target=precision_row["target"],
                metric=precision_row["metric"],
                pilot=precision_row["pilot"],
                n=precision_row["n"],
                achieved=f"{precision_row['achieved']:.4g} (largest over the variants)",
            ),
        )
    if check is not None:
        conventions.insert(2, ROBUSTNESS_TEXT.format(lineup=check.lineup, n=check.n))
    return conventions


def interval_labels(conf: float, k: int) -> dict[str, str]:
    """The header of the effect columns: simultaneous intervals say so."""
    if conf > 0.95 and k > 1:
        level = "simultaneous 95%"
    elif conf > 0.95 or k == 1:
        level = "95% CI"
    else:
        level = f"{conf:.0%} each"
    return {c: level for c in ("diff", "std_diff", "check_diff", "change")}


def _metric_tables(tables, adjust: str, check, conf: float) -> list[Table]:
    """One table per metric: every variant's effect against the baseline."""
    show = _SHOW + (CHECK_COLUMNS if check is not None else ())
    out = []
    for key, df in tables.items():
        labels = interval_labels(conf, len(df))
        title = f"{df['metric'].iloc[0]}: variant - baseline"
        note = f"Unit: {df['unit'].iloc[0]}. {adjust}"
        out.append(
            Table(
                f"metric_{key}",
                title,
                df,
                note,
                show=show,
                console=CONSOLE,
                ci_labels=labels,
                percent=("variance_reduction",)
                + (("mean_baseline", "mean_variant") if df["unit"].iloc[0] == "share" else ()),
            )
        )
    return out


def _controls_text(controls: bool | None) -> str:
    if controls is False:
        return "Control variates off: plain t intervals."
    what = (
        "every metric's paired effects and each run's mean"
        if controls
        else f"the paired effects of {', '.join(PAIRED_DEFAULT)} and each run's mean of "
        f"{', '.join(SINGLE_DEFAULT)} (where they measurably shrink the variance on standard "
        "and super; plain t intervals elsewhere)"
    )
    return (
        f"Control variates on {what}: {CONTROLS_NAME}. variance_reduction is the share of the "
        "per-hand variance of the differences they remove; interval / mean_interval say which "
        "estimate each number is."
    )


def _variants_table(base, vs, runs, deal_share, where: Path) -> Table:
    rows = []
    for i, (v, r) in enumerate(zip([base, *vs], runs, strict=True)):
        rows.append(
            {
                "variant": v.label,
                "role": "baseline" if i == 0 else "variant",
                "rules": r.manifest.get("rules_name"),
                "bots": lineup_text(r.manifest.get("bots")),
                "n": len(r.hands),
                "folder": os.path.relpath(r.path, where),
                "same_deals": 1.0 if i == 0 else deal_share[i - 1],
            }
        )
    return Table(
        "variants",
        "The runs",
        pd.DataFrame(rows),
        "same_deals: share of hands dealt the same cards from the same dealer as the "
        "baseline's (every deal-only column equal).",
        percent=("same_deals",),
    )


def _numeric(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _base_value(rules, key: str) -> Any:
    head, _, rest = key.partition(".")
    value = getattr(rules, head, None)
    if rest:  # a key of a data-valued switch: a named table's data (standard: threshold 80)
        value = table_data(head, value)
    for part in rest.split(".") if rest else ():
        value = value.get(part) if isinstance(value, dict) else None
    return value


def ordered_keys(vs: Sequence[Variant]) -> list[str]:
    """The switches (or data keys) that every variant setting them sets to a number."""
    keys: dict[str, bool] = {}
    for v in vs:
        for key, value in v.settings.items():
            keys[key] = keys.get(key, True) and _numeric(value)
    return [k for k, ok in keys.items() if ok]


def _figures(base, vs, tables) -> list[Figure]:
    out = []
    limits = figs.common_limits(list(tables.values()))
    for key, df in tables.items():
        note = "common standardised axis for every metric of this sweep"
        fig = figs.forest(df, f"{df['metric'].iloc[0]}: variant - baseline", limits, note)
        out.append(
            Figure(
                f"forest_{key}",
                f"Effects on {key}, standardised",
                png(fig),
                note=note,
                section=f"metric_{key}",
            )
        )
    first = next(iter(tables))
    for sk in ordered_keys(vs):  # one figure per ordered switch, a panel per metric
        panels = [
            (df["metric"].iloc[0], df["unit"].iloc[0], _points(base, vs, df, sk))
            for df in tables.values()
        ]
        fig = figs.against_value(panels, sk)
        out.append(
            Figure(
                f"by_{variant_folder(sk)}",
                f"The metrics against {sk}",
                png(fig),
                section=f"metric_{first}",
            )
        )
    return out


def _points(base, vs, df, key) -> pd.DataFrame:
    rows = []
    mb = float(df["mean_baseline"].iloc[0])
    for v, (_, r) in zip(vs, df.iterrows(), strict=True):
        if key not in v.settings:
            continue
        rest = ";".join(f"{k}={val}" for k, val in v.settings.items() if k != key)
        rows.append(
            {
                "value": v.settings[key],
                "estimate": mb + r["diff"],
                "lo": mb + r["diff_lo"],
                "hi": mb + r["diff_hi"],
                "group": rest,
                "baseline": False,
            }
        )
    bv = _base_value(base.rules, key)
    if _numeric(bv):
        rows.append(
            {"value": bv, "estimate": mb, "lo": mb, "hi": mb, "group": "", "baseline": True}
        )
    return pd.DataFrame(rows)
