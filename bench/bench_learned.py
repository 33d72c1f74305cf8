"""Hands per second of learned-v1 (docs/bots.md "learned-v1") against expert in the same run.

All four seats, `standard`, random levels, one core; both figures are printed and go to the
benchmark's extra_info. The aim is >= 2,000 hands/s, which at expert's 50,000-80,000 is a
ratio of 25-40: the gate is the ratio, RATIO, measured in this one run (about 14x measured: the
search's candidates, their features and the MLP at every free lead and follow).

    pytest bench/bench_learned.py -s
"""

from __future__ import annotations

from fastsheng.engine.hands import profile_batch

RATIO = 25


def hands_per_s(bot: str, n: int) -> float:
    return profile_batch("standard", bot, 1, n, level="random")["hands_per_s"]


def test_learned_hands_per_second_against_expert(benchmark):
    hands_per_s("learned-v1", 10)  # load the model outside the measurement
    expert = hands_per_s("expert", 4_000)
    learned = benchmark.pedantic(hands_per_s, args=("learned-v1", 1_000), rounds=1, iterations=1)
    benchmark.extra_info.update(
        expert_hands_per_s=round(expert), learned_hands_per_s=round(learned)
    )
    print(
        f"\nfour seats, one core: expert {expert:,.0f} hands/s, learned-v1 {learned:,.0f} hands/s"
        f" ({expert / learned:.1f}x slower)"
    )
    assert expert / learned <= RATIO, (expert, learned)
