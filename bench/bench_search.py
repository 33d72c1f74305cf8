"""Hands per second of the search bot (docs/bots.md "search") for K = 8, 32 and 128 worlds, and
of search-v2 and search-v3 against search in the same run, and of search-v3 reading the play
(infer) against search-v3, and of the strongest name against search:k=128 and against its
one-chain self.

The bot plays all four seats (cands=8, base `expert`), `standard` rules, on one core; the
figures are printed and go to the benchmark's extra_info. A search costs K x candidates
playouts, so the gates are ratios measured in this one run, never absolute speeds: the cost
grows about linearly with K (a 4x larger K is 1.5x to 10x slower: wide, a few hands are noisy),
and searching is far slower than the base bot it plays out with.

    pytest bench/bench_search.py -s
"""

from __future__ import annotations

from fastsheng.engine.hands import profile_batch

HANDS = {8: 16, 32: 4, 128: 2}  # hands per measurement: about the same work for every K
# search-v2 against search:k=32: about 2.5-3x measured; the aim, as strong as search:k=32 at a
# tenth of its cost, asks 10x (not met)
V2_RATIO = 2
# search-v3 against search:k=32 (that aim asks 10x; docs/bots.md "search-v3"):
# gated well below what it measures, the machine being shared
V3_RATIO = 5


def hands_per_s(k: int) -> float:
    return profile_batch("standard", f"search:k={k},cands=8", 1, HANDS[k], level="random")[
        "hands_per_s"
    ]


def test_search_hands_per_second(benchmark):
    base = profile_batch("standard", "expert", 1, 2_000, level="random")["hands_per_s"]
    speed = {k: hands_per_s(k) for k in (8, 32)}
    speed[128] = benchmark.pedantic(hands_per_s, args=(128,), rounds=1, iterations=1)
    benchmark.extra_info.update({f"k{k}_hands_per_s": round(v, 3) for k, v in speed.items()})
    for k, v in speed.items():
        print(
            f"\nsearch k={k}, cands=8, four seats: {v:.2f} hands/s "
            f"({base / v:,.0f}x slower than expert)"
        )
    assert 1.5 <= speed[8] / speed[32] <= 10, speed
    assert 1.5 <= speed[32] / speed[128] <= 10, speed
    assert base / speed[8] > 10, (base, speed)


def hands_per_s_in_one_run(benchmark, old: str, new: str, hands: int) -> tuple[float, float]:
    """Hands/s of `old` then `new` at all four seats on the same hands in this run (the new
    one timed by the benchmark); printed and kept in its extra_info."""
    was = profile_batch("standard", old, 1, hands, level="random")["hands_per_s"]
    now = benchmark.pedantic(
        lambda: profile_batch("standard", new, 1, hands, level="random")["hands_per_s"],
        rounds=1,
        iterations=1,
    )
    benchmark.extra_info.update(old_hands_per_s=round(was, 3), new_hands_per_s=round(now, 3))
    print(f"\n{old}: {was:.2f} hands/s, {new}: {now:.2f} hands/s ({now / was:.2f}x)")
    return was, now


def test_search_v2_hands_per_second_against_search(benchmark):
    """search-v2 (docs/bots.md "search-v2") against today's search at the same k=32, cands=8,
    four seats, the same six hands in this one run: gated at V2_RATIO (docs/bots.md)."""
    old, new = hands_per_s_in_one_run(benchmark, "search:k=32,cands=8", "search-v2:k=32,cands=8", 6)
    assert new / old >= V2_RATIO, (new, old)


def test_search_v3_hands_per_second_against_search(benchmark):
    """search-v3 (docs/bots.md "search-v3", its defaults) against today's search:k=32, four
    seats, the same twelve hands in this one run: gated at V3_RATIO."""
    old, new = hands_per_s_in_one_run(benchmark, "search:k=32,cands=8", "search-v3", 12)
    assert new / old >= V3_RATIO, (new, old)


def test_search_v3_infer_hands_per_second(benchmark):
    """search-v3:infer=46 (docs/bots.md "search-v3: reading the play") against search-v3 itself,
    four seats, the same twelve hands in this one run: the chain's replays cost 6x-10x
    (gated between 1.5x and 30x: a few hands on a shared machine)."""
    plain, infer = hands_per_s_in_one_run(benchmark, "search-v3", "search-v3:infer=46", 12)
    assert 1.5 <= plain / infer <= 30, (plain, infer)


# the first race built to be +0.05 over search:k=128 (docs/bots.md "A per-card belief") and
# the strongest, the same race with its worlds from four chains (docs/bots.md "Four chains")
ONE_CHAIN = "search-v3:k=1024,close=31,early=0,top=7,infer=10,kitty=5,belief=1,cards=1"
STRONGEST = ONE_CHAIN + ",chains=4"


def test_strongest_search_hands_per_second_against_search_k128(benchmark):
    """The strongest name against search:k=128, four seats, the same four hands in this one
    run: its cost is reported (about 1.3 s of CPU a hand head to head, both sides), gated only
    loosely (0.1x-10x: a few hands of a search vary widely in cost)."""
    old, new = hands_per_s_in_one_run(benchmark, "search:k=128", STRONGEST, 4)
    assert 0.1 <= new / old <= 10, (new, old)


def test_four_chains_hands_per_second_against_one(benchmark):
    """Four chains against one on the same four hands, four seats: four burn-ins a race instead
    of one (about 0.75x the hands/s measured head to head over 2,400 deals)."""
    one, four = hands_per_s_in_one_run(benchmark, ONE_CHAIN, STRONGEST, 4)
    assert 0.2 <= four / one <= 2, (four, one)
