"""Screen the knobs of `search-v3`'s play head to head against `search:k=32` (issue 14 item 3).

Question: which guided-search setting is as strong as `search:k=32` at a fraction of its CPU?

Method: for each idea (a set of knobs of fastsheng._guided_search._tune; the published
search-v3 plays with the defaults, the first row), N paired deals with the seats swapped
(`standard`, random levels, SEED): search-v3 (with K worlds) at seats 0/2 against `search:k=32`
at 1/3, then swapped; per deal the net levels of search-v3 (the t interval over deals). The CPU
ratio is measured on the same hands in one process (analysis/search_cost.py's chunk_seconds:
each bot at seats 0/2 against `expert-v3`, CHUNKS batches of 10 hands), with the delta-method
interval over batches. Also printed: the share of decisions with a choice that were raced and
the playouts per decision.

Run: python analysis/search_v3_ideas.py N SEED CHUNKS IDEA [IDEA...]   (IDEA: a name below)
"""

from __future__ import annotations

import sys

from search_cost import chunk_seconds
from search_strength import paired_seeds

from fastsheng import _guided_search
from fastsheng.engine.registry import resolve_bot
from fastsheng.studies import stats

REFERENCE = "search:k=32"

# idea -> (bot name, knobs of _guided_search._tune)
IDEAS: dict[str, tuple[str, dict]] = {
    "published": ("search-v3", {}),
    "base4": ("search-v3:base=expert-v4", {}),
    "k64": ("search-v3:k=64", {}),
    "k128": ("search-v3:k=128", {}),
    "close0": ("search-v3", {"close": 0.0}),
    "close10": ("search-v3", {"close": 0.10}),
    "close20": ("search-v3", {"close": 0.20}),
    "top1": ("search-v3", {"topm": 1}),
    "top7": ("search-v3", {"topm": 7}),
    "k0_8": ("search-v3", {"k0": 8}),
    "late12": ("search-v3", {"late": 12}),
    "k64_close10": ("search-v3:k=64", {"close": 0.10}),
    "k128_close10": ("search-v3:k=128", {"close": 0.10}),
    "k64_top7": ("search-v3:k=64", {"topm": 7}),
    "k64_k0_8": ("search-v3:k=64", {"k0": 8}),
}
DEFAULTS = _guided_search._tune()


def main(argv: list[str]) -> None:
    n, seed, chunks, ideas = int(argv[0]), int(argv[1]), int(argv[2]), argv[3:]
    for idea in ideas:
        bot, knobs = IDEAS[idea]
        _guided_search._tune(**knobs)
        try:
            _guided_search._counts(reset=True)
            net, won, _, cpu = paired_seeds(bot, REFERENCE, n, (seed,))
            c = _guided_search._counts()
            sec = chunk_seconds([REFERENCE, bot], 10, chunks, seed) if chunks else None
        finally:
            _guided_search._tune(**DEFAULTS)
        raced = c["races"] / max(c["decisions"], 1)
        per = c["playouts"] / max(c["decisions"], 1)
        cost = ""
        if sec is not None:
            r = stats.ratio_cluster(sec[:, 0], sec[:, 1])
            cost = f"; CPU k=32 / it {r.estimate:.1f}x [{r.lo:.1f}, {r.hi:.1f}]"
        print(
            f"{idea} ({resolve_bot(bot)} {knobs}): {net.estimate:+.3f} [{net.lo:+.3f}, "
            f"{net.hi:+.3f}] vs {REFERENCE} over {n} deals (seed {seed}); raced {raced:.0%} of "
            f"decisions, {per:.1f} playouts each{cost}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
