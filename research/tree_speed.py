"""Whole-process time of two source trees playing the same hands, run by run in turn.

Question: is a tree (NEW_SRC, e.g. after a refactor) slower than another (OLD_SRC)?

Method: for each bot, one process per run plays N hands (`standard`, random levels, seed 1,
one bot at every seat) with PYTHONPATH set to a tree's source folder (both trees built in place:
python setup.py build_ext --inplace); the runs go old, new, old, new ... (one warm-up pair
first, not counted) and each pair's new/old ratio of wall seconds (time.perf_counter around the
whole process, start-up included) is kept, and the ratio of CPU seconds (user + system, the
operating system's count for the finished child), so a drift in the machine's speed moves both
runs of a pair. Prints per bot the median ratios and the min-max of the pairs: the timing columns
of docs/research/refactor-speed.md.

Run: python research/tree_speed.py OLD_SRC NEW_SRC [RUNS]
     e.g. python research/tree_speed.py ../old/src ../new/src 7  (git worktrees, built)
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time

STRONG = "search-v3:k=1024,close=31,early=0,top=7,infer=10,kitty=5,belief=1,cards=1,chains=4"
BOTS = {"expert": 350_000, "learned-v1": 25_000, "search-v3": 600, STRONG: 3}  # about 6 s a run
PLAY = "import sys; from fastsheng.engine.hands import simulate_hands as s; " + (
    "s('standard', sys.argv[1], 1, int(sys.argv[2]), level='random')"
)


def seconds(src: str, bot: str, n: int) -> tuple[float, float]:
    """Wall and CPU (user + system, the operating system's count) seconds of one run."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    r0, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([sys.executable, "-c", PLAY, bot, str(n)], env=env, check=True)
    wall, r1 = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime


def main(argv: list[str]) -> None:
    if len(argv) not in (2, 3):
        raise SystemExit("usage: python research/tree_speed.py OLD_SRC NEW_SRC [RUNS]")
    old, new, runs = argv[0], argv[1], int(argv[2]) if len(argv) == 3 else 7
    print("| bot | hands a run | wall new/old: median (min-max) | CPU new/old: median (min-max) |")
    print("|---|---|---|---|")
    for bot, n in BOTS.items():
        pairs = []
        for i in range(runs + 1):  # the first pair warms the caches and is not counted
            a, b = seconds(old, bot, n), seconds(new, bot, n)
            if i:
                pairs.append((b[0] / a[0], b[1] / a[1]))
        cells = [
            f"{statistics.median(r):.3f} ({min(r):.3f}-{max(r):.3f})"
            for r in zip(*pairs, strict=True)
        ]
        print(f"| `{bot}` | {n} | {cells[0]} | {cells[1]} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
