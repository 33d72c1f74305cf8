"""CPU per hand of each search setting, on the same hands in one process.

Question: which k of `search-v2` costs what `search:k=32` costs (a search stronger than
`search:k=32` at about its CPU: the largest k at that cost)?

Method: each bot plays seats 0/2 against `expert-v3` (its base, which plays tens of thousands
of hands a second, so the time is the searching side's) on the same N hands (`standard`,
random levels; the deals do not depend on the bots), in CHUNKS batches of N hands (batches
0.. of SEED), each batch timed with the playing thread's CPU clock (a busy machine slows the
wall clock, not this). A search's cost varies a lot from hand to hand, so the bots compared
play the same hands, and the ratio of each bot's CPU to the first one's has the delta-method
interval over batches (fastsheng.studies.stats.ratio_cluster). These are the CPU figures of
docs/bots.md (section *search-v2*).

Run: python research/search_cost.py N CHUNKS SEED BOT [BOT...]
     e.g. python research/search_cost.py 10 30 2028 search:k=32 search-v2:k=256
"""

from __future__ import annotations

if not __package__:  # run as `python research/NAME.py`: the repo root on the path
    import _root  # noqa: F401

import sys

from fastsheng.bots.names import resolve_bot
from fastsheng.studies import stats
from research.common import OPPONENT, chunk_seconds


def main(argv: list[str]) -> None:
    if len(argv) < 4:
        raise SystemExit("usage: python research/search_cost.py N CHUNKS SEED BOT [BOT...]")
    n, chunks, seed, bots = int(argv[0]), int(argv[1]), int(argv[2]), argv[3:]
    sec = chunk_seconds(bots, n, chunks, seed)
    hands = n * chunks
    for j, bot in enumerate(bots):
        r = stats.ratio_cluster(sec[:, j], sec[:, 0])
        print(
            f"{resolve_bot(bot)}: {1000 * sec[:, j].sum() / hands:.0f} ms of CPU per hand at "
            f"seats 0/2 against {OPPONENT}, {r.estimate:.2f}x [{r.lo:.2f}, {r.hi:.2f}] the "
            f"first ({hands} hands: {chunks} batches of {n}, seed {seed})",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
