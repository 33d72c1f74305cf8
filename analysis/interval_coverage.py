"""Interval coverage on simulator data: which 95% interval can ``fastsheng compare`` trust at
small n?

Question: for paired differences of per-hand metrics (A = standard, B = super, the same deals),
how often does each interval cover the true mean difference when a study has only n hands?

Method: one big paired comparison (40,000 deals, expert bots, seed 5) plays the population; its
full-sample mean difference is the truth. From it, 1,000 samples of n hands are drawn with
replacement; for each, the percentile bootstrap (2,000 replicates, what compare used before) and
compare's interval (what it uses now, fastsheng.studies.stats.paired_diff with the range a value
can take under the two presets' rules: the paired Student t interval, or the exact rate bound
when fewer than 10 pairs of the sample differ) are computed, and the share of samples whose
interval covers the truth is printed, with the share of samples that the skew check flags
(fastsheng.studies.stats.skew_check) and the share where the rate bound was used. Rare outcomes
("decided by the kitty": about 2% of pairs differ) are where the bootstrap undercovers.

Run: python analysis/interval_coverage.py     (about 20 s)
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pyarrow as pa

from fastsheng.rules import get_rules
from fastsheng.studies import stats
from fastsheng.studies.report import canonical_hands
from fastsheng.studies.report.metrics import METRICS, Metric, support

DEALS, SEED, SAMPLES = 40_000, 5, 1000
RULES = (get_rules("standard"), get_rules("super"))
KEYS = ("kitty_decides", "kitty_bonus", "dealer_gain", "defenders_total")


def population(name: str) -> pd.DataFrame:
    from fastsheng.engine.hands import play_batch

    rules = get_rules(name)
    parts = [
        play_batch(rules, ("expert",) * 4, SEED, b, 10_000)["hands"] for b in range(DEALS // 10_000)
    ]
    return canonical_hands(pa.concat_tables(parts).to_pandas(), rules)


def coverage(m: Metric, xa: np.ndarray, xb: np.ndarray, n: int, seed: int) -> dict:
    """Coverage of the bootstrap and of compare's interval (the paired t, or the rate bound
    when fewer than 10 pairs differ, within the range a value can take under the rules of both
    presets, as ``fastsheng.studies.report.metrics.paired_row`` computes it) over samples of n
    pairs."""
    d = xa - xb
    truth = float(d.mean())
    rng = np.random.default_rng(seed)
    hits_boot = hits_t = flagged = rare = 0
    for i in range(SAMPLES):
        idx = rng.integers(0, d.size, n)
        a, b = xa[idx], xb[idx]
        hits_boot += stats.mean_bootstrap(a - b, seed=i).covers(truth)
        span = support(m, [a, b], RULES)
        ci = stats.paired_diff(a, b, support=span, step=m.step).ci
        hits_t += ci.covers(truth)
        flagged += bool(stats.skew_check(a - b))
        rare += ci.method.startswith("rate bound")
    return {
        "percentile bootstrap": hits_boot / SAMPLES,
        "compare's interval": hits_t / SAMPLES,
        "flagged by the skew check": flagged / SAMPLES,
        "rate bound used": rare / SAMPLES,
    }


def main(argv: list[str] | None = None) -> pd.DataFrame:
    argv = sys.argv[1:] if argv is None else argv
    a, b = population("standard"), population("super")
    rows = []
    for j, key in enumerate(KEYS):
        m = METRICS[key]
        xa, xb = np.asarray(m.value(a), float), np.asarray(m.value(b), float)
        for n in (300, 1000):
            row = {"metric": key, "n": n, "pairs differing": f"{np.mean(xa != xb):.1%}"}
            rows.append(row | coverage(m, xa, xb, n, seed=100 * j + n))
    table = pd.DataFrame(rows)
    print(f"standard vs super, {DEALS:,} deals (seed {SEED}), {SAMPLES:,} samples of n hands")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return table


if __name__ == "__main__":
    main()
