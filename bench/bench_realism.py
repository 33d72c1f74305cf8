"""The realism panel of every available bot (docs/bots.md "Realism"): printed, never gated.

Each line-up is the bot at all four seats, `standard` rules, random levels, N hands (5,000 by
default, 200,000 with FASTSHENG_BENCH_FULL=1; `search` a hundredth) with the same seed, so the
line-ups play the same deals. The figures are what they are: the test checks only that every
figure is there, finite and inside its interval.

    pytest bench/bench_realism.py -s            # prints the table
"""

from __future__ import annotations

import os

import numpy as np

from fastsheng.studies import realism

FULL = bool(os.environ.get("FASTSHENG_BENCH_FULL"))
N = 200_000 if FULL else 5_000
SEED = 2026
SLOW = 100  # a search (any version) plays N / 100 hands (the first ones: the same deals)


def hands_for(name: str) -> int:
    return max(1, N // SLOW) if name.startswith("search") else N


def lineups() -> list[str]:
    """Every frozen version (basic-v1, expert-v1, expert-v2, ...), then every other public bot,
    once per bot that plays differently (`expert` is one of the versions: skipped)."""
    from fastsheng.bots.names import ALIASES, BOTS, resolve_bot

    # not a frozen search setting (search-v4, about 0.5 hands/s: 100 s here for a search's share)
    public = [b for b in BOTS if not ALIASES.get(b, "").startswith("search")]
    versions = [b for b in public if "-v" in b]
    out, seen = [], set()
    for name in (*versions, *public):
        resolved = resolve_bot(name)
        if resolved not in seen:
            seen.add(resolved)
            out.append(name)
    return out


def test_realism_panel(benchmark):
    names = lineups()

    def panels():
        return {
            b: realism.lineup_panel(b, n=hands_for(b), seed=SEED, level="random") for b in names
        }

    result = benchmark.pedantic(panels, rounds=1, iterations=1)
    table = realism.panel_table(result)
    sizes = ", ".join(f"{b} {hands_for(b):,}" for b in names)
    print(f"\nrealism panel: standard, random levels, seed {SEED}; hands: {sizes}")
    print(table.to_string(index=False))
    for name, panel in result.items():
        assert list(panel["key"]) == list(realism.METRICS), name
        # a rate of something that never happens (failures of a bot that never throws, or
        # against the failures expected by a bot that risks no throw) is n/a
        some = panel["n"].to_numpy() > 0
        assert some.sum() >= len(panel) - 2, name
        est, lo, hi = (panel.loc[some, c].to_numpy(float) for c in ("estimate", "lo", "hi"))
        assert np.isfinite(est).all() and np.isfinite(lo).all() and np.isfinite(hi).all(), name
        assert (lo <= est + 1e-12).all() and (est <= hi + 1e-12).all(), name
        benchmark.extra_info[name] = dict(zip(panel["key"][some], np.round(est, 4), strict=True))


def test_realism_panel_without_throw_penalty(benchmark):
    """The throw rows where the rules set no penalty (`renda`): expert-v4 risks throws there
    (docs/bots.md), so its failures and the failures it expected can be set side by side."""
    names = ["expert-v3", "expert-v4"]

    def panels():
        return {
            b: realism.lineup_panel(b, rules="renda", n=N, seed=SEED, level="random") for b in names
        }

    result = benchmark.pedantic(panels, rounds=1, iterations=1)
    table = realism.panel_table(result)
    throw_rows = table[table["metric"].str.contains("throw")]
    print(f"\nthrows without a penalty: renda, random levels, seed {SEED}, {N:,} hands each")
    print(throw_rows.to_string(index=False))
    v4 = result["expert-v4"].set_index("key")
    assert v4.loc["failed_vs_expected", "n"] > 0
    est, lo, hi = (float(v4.loc["failed_vs_expected", c]) for c in ("estimate", "lo", "hi"))
    assert lo <= est <= hi and np.isfinite([lo, hi]).all()
