"""Control variates from the deal: how much of each headline metric's variance do the dealt
covariates remove, on `standard` and on `super`?

Question: the cards each side is dealt (points, jokers, level cards, pairs, the kitty's points)
are fixed before any play and their means under a uniform shuffle are known exactly
(fastsheng.studies.controls). Regressing a per-hand metric on them, centred at those means,
estimates the same mean with less variance. How much less, for one run's mean and for the
paired difference standard - super over the same deals?

Method: one sweep (baseline standard, variant super, expert bots, 60,000 hands, seed 7, every
metric adjusted) gives the paired reduction (the sweep's variance_reduction column); each
run's own reduction is 1 - residual variance / variance of the metric (controls.mean_ci).
fastsheng sweep turns the adjustment on by default where it removes at least 2% on both presets
(controls.SINGLE_DEFAULT, controls.PAIRED_DEFAULT); tests/test_sweep.py checks its coverage.

Run: python analysis/control_variates.py [N] [OUT]   (default 60,000 hands; about 15 s)
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

import fastsheng as fs
from fastsheng.studies import controls
from fastsheng.studies.effects import DEFAULT_METRICS, values
from fastsheng.studies.report.columns import canonical_hands
from fastsheng.studies.report.metrics import METRICS
from fastsheng.studies.report.runs import load_run


def main(argv: list[str] | None = None, workers=None) -> pd.DataFrame:
    argv = sys.argv[1:] if argv is None else argv
    n = int(float(argv[0])) if argv else 60_000
    out = Path(argv[1]) if len(argv) > 1 else Path("runs/analysis-control-variates")
    rep = fs.sweep(
        "standard",
        variants=["super"],
        metrics=DEFAULT_METRICS,
        n=n,
        seed=7,
        controls=True,
        out=out,
        workers=workers,
        figures=False,
    )
    runs = {
        name: load_run(out / "runs" / folder)
        for name, folder in (("standard", "baseline=standard"), ("super", "super"))
    }
    x = controls.centred(controls.covariates(runs["standard"].hands))
    rows = []
    for key in DEFAULT_METRICS:
        row = {"metric": key}
        for name, r in runs.items():
            y = values(METRICS[key], canonical_hands(r.hands, r.rules))
            row[name] = 1.0 - controls.mean_ci(y, x).var_ratio
        paired = rep.table(f"metric_{key}").df.iloc[0]
        row["super - standard"] = paired["variance_reduction"]
        row["default"] = (
            ", ".join(
                w
                for w, on in (
                    ("each run", key in controls.SINGLE_DEFAULT),
                    ("paired", key in controls.PAIRED_DEFAULT),
                )
                if on
            )
            or "off"
        )
        rows.append(row)
    table = pd.DataFrame(rows)
    print(f"{n:,} hands per preset (expert bots, seed 7): share of the variance removed")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return table


if __name__ == "__main__":
    main()
