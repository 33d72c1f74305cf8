"""fastsheng sweep against compare: 8 variants and the baseline (9 runs) on the same deals, as
a ratio to compare of one pair (2 runs) with the same bots, n and workers, writing included
(Parquet parts, run.json, the page with its plots, the CSVs).

The gate is a ratio measured in one run (the machine is shared): a sweep costs at most 1.5x
compare's time per run, i.e. sweep / compare <= 1.5 x 9 / 2 = 6.75. `pytest -m bench_full
bench/bench_sweep.py` checks the issue's absolute target on a quiet machine: 8 variants x
100,000 hands with `expert` at four seats in at most 3 minutes on 2 cores.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import pytest

import fastsheng as fs
from fastsheng.studies.report import compare_command

VARIANTS = [
    "kitty_multiplier=linear",
    "kitty_multiplier=powers",
    "kitty_multiplier=cards",
    "throw_penalty=none",
    "level_table.threshold=70",
    "level_table.threshold=90",
    "throw_kitty=largest",
    "overcall_after_burial=yes",
]
PER_RUN_SLACK = 1.5


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure(n: int, workers: int = 2) -> dict[str, float]:
    """Seconds for the sweep (9 runs) and for compare (2 runs), each from empty folders."""
    where = Path(tempfile.mkdtemp(prefix="bench-sweep-"))
    try:
        sweep_s = _timed(
            lambda: fs.sweep(
                "standard", set=VARIANTS, n=n, seed=1, out=where / "sweep", workers=workers
            )
        )
        compare_s = _timed(
            lambda: compare_command(
                rules=["standard", "super"],
                n=n,
                seed=1,
                out=where / "compare",
                workers=workers,
                quiet=True,
            )
        )
    finally:
        shutil.rmtree(where, ignore_errors=True)
    return {"sweep_s": sweep_s, "compare_s": compare_s, "ratio": sweep_s / compare_s}


def test_sweep_costs_per_run_what_compare_costs(benchmark):
    """5,000 hands per run, in this process (no worker start-up in either): about 8 s of CPU."""
    r = benchmark.pedantic(measure, args=(5_000, 0), rounds=1, iterations=1)
    benchmark.extra_info.update({k: round(v, 2) for k, v in r.items()})
    print(
        f"\nsweep of 9 runs {r['sweep_s']:.1f} s, compare of 2 runs {r['compare_s']:.1f} s, "
        f"ratio {r['ratio']:.2f} (per run {r['ratio'] * 2 / 9:.2f}x)"
    )
    assert r["ratio"] <= PER_RUN_SLACK * 9 / 2


@pytest.mark.bench_full  # 900,000 expert hands: a quiet 2-core machine, about 1-2 minutes
def test_sweep_of_8_variants_by_100000_hands_in_3_minutes(benchmark):
    r = benchmark.pedantic(measure, args=(100_000,), rounds=1, iterations=1)
    benchmark.extra_info.update({k: round(v, 2) for k, v in r.items()})
    print(f"\nsweep 8 x 100,000: {r['sweep_s']:.1f} s (compare of one pair {r['compare_s']:.1f} s)")
    assert r["sweep_s"] <= 180
