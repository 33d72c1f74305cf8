"""Paired strength of the search bot (or any two bots): net levels per hand with a 95% interval.

Question: how much does `search` gain over the bot it plays out with, and at what cost in speed?

Method: each deal is played twice under the same rules (a deal's cards do not depend on the
bots): X at seats 0/2 against Y at 1/3, then the seats swapped. Per deal, X's net levels =
(levels X's team gains - levels Y's team gains) averaged over the two seatings
(fastsheng.studies.ladder.pair_outcome), which cancels the luck of the cards and any seat effect.
The interval is the t interval over deals (fastsheng.studies.stats.mean_t). Also printed: the
seconds per hand, so the price of K is visible. These are the figures of docs/bots.md (section
*search*).

Run: python analysis/search_strength.py [X] [Y] [N] [RULES] [SEED]
     (default: search:k=32,cands=8 expert-v1 400 standard 2024)
"""

from __future__ import annotations

import sys
import time

from fastsheng.engine.hands import simulate_hands
from fastsheng.engine.registry import resolve_bot, split_bots
from fastsheng.studies import stats
from fastsheng.studies.ladder import pair_outcome


def paired(x: str, y: str, n: int, seed: int = 2024, rules: str = "standard"):
    """(net levels estimate, share of hands won, seconds per hand) of X against Y."""
    t0 = time.perf_counter()
    a = simulate_hands(rules, (x, y, x, y), seed, n, level="random").to_pandas()
    b = simulate_hands(rules, (y, x, y, x), seed, n, level="random").to_pandas()
    seconds = (time.perf_counter() - t0) / (2 * n)
    p = pair_outcome(x, y, a, b)
    return stats.mean_t(p.net), float(p.wins.mean() / 2), seconds


def main(argv: list[str]) -> None:
    x = argv[0] if len(argv) > 0 else "search:k=32,cands=8"
    y = argv[1] if len(argv) > 1 else "expert-v1"
    n = int(float(argv[2])) if len(argv) > 2 else 400
    rules = argv[3] if len(argv) > 3 else "standard"
    seed = int(argv[4]) if len(argv) > 4 else 2024
    (x,) = split_bots(x)
    net, won, seconds = paired(x, y, n, seed, rules)
    print(
        f"{rules}: {resolve_bot(x)} vs {resolve_bot(y)} over {n:,} paired deals (seed {seed}, "
        f"random levels): {net.estimate:+.3f} net levels/hand [{net.lo:+.3f}, {net.hi:+.3f}], "
        f"hands won {100 * won:.1f}%, {seconds * 1000:.0f} ms/hand"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
