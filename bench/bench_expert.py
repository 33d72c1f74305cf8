"""The newest expert's speed against expert-v1, as a ratio measured in one run (docs/bots.md,
"Speed"). Hands per CPU second of `expert` and `expert-v1`, interleaved, best of 3 batches each;
the gate is the ratio (>= 0.5), since the machine is shared. Its realism figures are
printed by bench/bench_realism.py (every public bot, `expert` included).
"""

from __future__ import annotations

import pytest

from fastsheng.bots.names import resolve_bot
from fastsheng.engine.hands import profile_batch

N = 10_000


# renda: no throw penalty, where expert-v4 weighs risky throws (its extra work)
@pytest.mark.parametrize("rules", ["standard", "renda"])
def test_expert_speed_ratio(benchmark, rules):
    profile_batch(rules, "expert", 1, 500)  # warm up
    best = {"expert": 0.0, "expert-v1": 0.0}
    for rnd in range(3):
        for bot in best:
            r = profile_batch(rules, bot, 1 + rnd, N)
            best[bot] = max(best[bot], r["hands_per_s"])
    benchmark.pedantic(profile_batch, args=(rules, "expert", 9, N), rounds=1, iterations=1)
    ratio = best["expert"] / best["expert-v1"]
    benchmark.extra_info.update({k: round(v) for k, v in best.items()} | {"ratio": ratio})
    print(
        f"\n{rules}: {resolve_bot('expert')}: {best['expert']:,.0f} hands/s, expert-v1: "
        f"{best['expert-v1']:,.0f} hands/s (ratio {ratio:.2f})"
    )
    assert ratio >= 0.5, best
