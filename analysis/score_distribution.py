"""Score distribution: the defenders' total per hand.

Question: what does the defenders' total look like (mean, spread, quantiles), how often do the
defenders reach 80 (they take over the deal) or 120 (they go up), and does no-trump change that?

Method: one row per hand from RUN/hands/*.parquet (pandas). Mean: Student t 95% (stats.mean_t);
quantiles: distribution-free order-statistic 95% intervals (fastsheng.studies.stats.quantile_ci);
threshold probabilities: Wilson 95%. Writes a histogram PNG next to the run.

Run: python analysis/score_distribution.py RUN   (or without RUN: simulates 20,000 hands)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from fastsheng.studies import ranges, stats
from fastsheng.studies.report import canonical_hands


def summarize(x: np.ndarray, rules=None) -> dict:
    m = stats.mean_t(x, support=(0.0, ranges.defenders_total_max(rules)))
    med = stats.quantile_ci(x, 0.5)
    p80 = stats.wilson(int((x >= 80).sum()), x.size)
    p120 = stats.wilson(int((x >= 120).sum()), x.size)
    return {
        "hands": x.size,
        "mean": m.fmt(1),
        "sd": f"{x.std(ddof=1):.1f}",
        "median": med.fmt(0),
        "q10": np.quantile(x, 0.1, method="inverted_cdf"),
        "q90": np.quantile(x, 0.9, method="inverted_cdf"),
        "P(total >= 80)": p80.fmt(3),
        "P(total >= 120)": p120.fmt(3),
    }


def main(argv: list[str] | None = None) -> pd.DataFrame:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        run = Path(argv[0])
    else:
        from fastsheng.studies.report import simulate_run

        run = simulate_run(
            Path("runs/analysis-scores"), rules="standard", bots=None, n=20_000, seed=1
        )
    h = canonical_hands(pd.read_parquet(run / "hands"))
    rules = ranges.run_rules(run)
    rows = [{"hands in": "all", **summarize(h["defenders_total"].to_numpy(float), rules)}]
    for kind, g in h.groupby("trump_kind"):
        rows.append({"hands in": kind, **summarize(g["defenders_total"].to_numpy(float), rules)})
    table = pd.DataFrame(rows)
    print(f"Run: {run}\n")
    print(table.to_string(index=False))

    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 3.5), layout="constrained")
    ax = fig.add_subplot()
    bins = np.arange(-2.5, h["defenders_total"].max() + 7.5, 5)
    for kind, g in h.groupby("trump_kind"):
        ax.hist(
            g["defenders_total"],
            bins=bins,
            density=True,
            histtype="step",
            label=f"{kind} (n={len(g):,})",
        )
    ax.axvline(80, color="grey", linestyle="--")
    ax.set_xlabel("defenders' total")
    ax.set_ylabel("density")
    ax.legend()
    out = run / "analysis-score-distribution.png"
    fig.savefig(out)
    print(f"\nHistogram: {out}")
    print("Result: compare the rows through their intervals, not their point estimates.")
    return table


if __name__ == "__main__":
    main()
