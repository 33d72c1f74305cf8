"""Paired strength of the search bot (or any two bots): net levels per hand with a 95% interval.

Question: how much does `search` gain over the bot it plays out with, and at what cost in speed?

Method: each deal is played twice under the same rules (a deal's cards do not depend on the
bots): X at seats 0/2 against Y at 1/3, then the seats swapped. Per deal, X's net levels =
(levels X's team gains - levels Y's team gains) averaged over the two seatings
(fastsheng.studies.ladder.pair_outcome), which cancels the luck of the cards and any seat effect.
The interval is the t interval over deals (fastsheng.studies.stats.mean_t). Also printed: the
seconds per hand (wall clock, and CPU of this process: a shared machine slows the first, not the
second), so the price of K is visible. SEED may list seeds ("2028,2029"): N deals from each,
pooled into one interval. These are the figures of docs/bots.md (sections *search* and
*search-v2*); research/search_cost.py prints the CPU of each side alone.

Run: python research/search_strength.py [X] [Y] [N] [RULES] [SEED[,SEED...]]
     (default: search:k=32,cands=8 expert-v1 400 standard 2024)
"""

from __future__ import annotations

if not __package__:  # run as `python research/NAME.py`: the repo root on the path
    import _root  # noqa: F401

import sys

from fastsheng.bots.names import resolve_bot, split_bots
from research.common import paired_seeds


def paired(x: str, y: str, n: int, seed: int = 2024, rules: str = "standard"):
    """(net levels estimate, share of hands won, seconds per hand) of X against Y."""
    net, won, seconds, _ = paired_seeds(x, y, n, (seed,), rules)
    return net, won, seconds


def main(argv: list[str]) -> None:
    x = argv[0] if len(argv) > 0 else "search:k=32,cands=8"
    y = argv[1] if len(argv) > 1 else "expert-v1"
    n = int(float(argv[2])) if len(argv) > 2 else 400
    rules = argv[3] if len(argv) > 3 else "standard"
    seeds = [int(s) for s in argv[4].split(",")] if len(argv) > 4 else [2024]
    (x,) = split_bots(x)
    net, won, seconds, cpu = paired_seeds(x, y, n, seeds, rules)
    print(
        f"{rules}: {resolve_bot(x)} vs {resolve_bot(y)} over {n * len(seeds):,} paired deals "
        f"(seed {', '.join(map(str, seeds))}, random levels): {net.estimate:+.3f} net levels/hand "
        f"[{net.lo:+.3f}, {net.hi:+.3f}], hands won {100 * won:.1f}%, "
        f"{seconds * 1000:.0f} ms/hand ({cpu * 1000:.0f} ms of CPU)"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
