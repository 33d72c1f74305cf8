"""Screen settings of `search-v3` head to head against `search:k=32`.

Question: which guided-search setting is as strong as `search:k=32` (within +-0.03 net levels a
hand) at a tenth of its CPU, or stronger than it (by +0.05) at about its CPU?

Method: for each setting (a search-v3 name: its parameters are the race's knobs, docs/bots.md),
N paired deals with the seats swapped (`standard`, random levels, SEED): the setting at seats
0/2 against `search:k=32` at 1/3, then swapped; per deal its net levels (the t interval over
deals). The CPU ratio is measured on the same hands in one process (research/common.py's
chunk_seconds, as research/search_cost.py measures: each bot at seats 0/2 against `expert-v3`,
CHUNKS batches of 10 hands), with the delta-method interval over batches. Also printed: the share
of decisions with a choice that were raced and the playouts per decision. These are the screens
of docs/bots.md ("search-v3").

Run: python research/search_v3_ideas.py N SEED CHUNKS NAME [NAME...]
     e.g. python research/search_v3_ideas.py 300 2034 4 search-v3 search-v3:k=32,close=10
"""

from __future__ import annotations

if not __package__:  # run as `python research/NAME.py`: the repo root on the path
    import _root  # noqa: F401

import sys

from fastsheng.bots import _guided_search
from fastsheng.bots.names import resolve_bot
from fastsheng.studies import stats
from research.common import chunk_seconds, paired_seeds

REFERENCE = "search:k=32"


def main(argv: list[str]) -> None:
    n, seed, chunks, names = int(argv[0]), int(argv[1]), int(argv[2]), argv[3:]
    for name in names:
        _guided_search._counts(reset=True)
        net, _, _, _ = paired_seeds(name, REFERENCE, n, (seed,))
        c = _guided_search._counts()
        raced = c["races"] / max(c["decisions"], 1)
        per = c["playouts"] / max(c["decisions"], 1)
        cost = ""
        if chunks:
            sec = chunk_seconds([REFERENCE, name], 10, chunks, seed)
            r = stats.ratio_cluster(sec[:, 0], sec[:, 1])
            cost = f"; CPU k=32 / it {r.estimate:.1f}x [{r.lo:.1f}, {r.hi:.1f}]"
        print(
            f"{resolve_bot(name)}: {net.estimate:+.3f} [{net.lo:+.3f}, {net.hi:+.3f}] vs "
            f"{REFERENCE} over {n} deals (seed {seed}); raced {raced:.0%} of decisions, "
            f"{per:.1f} playouts each{cost}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
