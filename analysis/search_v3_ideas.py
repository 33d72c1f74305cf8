"""Screen settings of `search-v3` head to head against `search:k=32` (issue 14 item 3).

Question: which guided-search setting is as strong as `search:k=32` at a tenth of its CPU (target
(a)), or stronger at its CPU (target (b))?

Method: for each setting (a search-v3 name: its parameters are the race's knobs, docs/bots.md),
N paired deals with the seats swapped (`standard`, random levels, SEED): the setting at seats
0/2 against `search:k=32` at 1/3, then swapped; per deal its net levels (the t interval over
deals). The CPU ratio is measured on the same hands in one process (analysis/search_cost.py's
chunk_seconds: each bot at seats 0/2 against `expert-v3`, CHUNKS batches of 10 hands), with the
delta-method interval over batches. Also printed: the share of decisions with a choice that were
raced and the playouts per decision. These are the screens of docs/bots.md ("search-v3").

Run: python analysis/search_v3_ideas.py N SEED CHUNKS NAME [NAME...]
     e.g. python analysis/search_v3_ideas.py 300 2034 4 search-v3 search-v3:k=32,close=10
"""

from __future__ import annotations

import sys

from search_cost import chunk_seconds
from search_strength import paired_seeds

from fastsheng.bots import _guided_search
from fastsheng.bots.names import resolve_bot
from fastsheng.studies import stats

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
