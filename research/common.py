"""Helpers more than one research script uses: paired strength over seeds, CPU per batch, one
line-up's hands timed, an interval printed.

Moved here from the scripts that first had them (search_strength.py's paired_seeds,
search_cost.py's chunk_seconds, the copies of _hands and _iv in bury_search.py and
call_search.py), unchanged, so that the scripts import one module rather than one another.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from fastsheng.engine.hands import play_batch, simulate_hands
from fastsheng.studies import stats
from fastsheng.studies.ladder import pair_outcome

# the side chunk_seconds times a bot against: it plays tens of thousands of hands a second, so
# the time is the searching side's
OPPONENT = "expert-v3"


def paired_seeds(x: str, y: str, n: int, seeds, rules: str = "standard"):
    """X against Y over N deals of each seed, pooled: each deal played twice (`rules`, random
    levels), X at seats 0/2 then the seats swapped (fastsheng.studies.ladder.pair_outcome). The t
    interval of X's net levels per hand over deals, the share of hands X's team won, and the
    seconds per hand of wall clock and of this process's CPU."""
    t0, c0 = time.perf_counter(), time.process_time()
    nets, wins = [], []
    for seed in seeds:
        a = simulate_hands(rules, (x, y, x, y), seed, n, level="random").to_pandas()
        b = simulate_hands(rules, (y, x, y, x), seed, n, level="random").to_pandas()
        p = pair_outcome(x, y, a, b)
        nets.append(p.net)
        wins.append(p.wins)
    hands = 2 * n * len(seeds)
    seconds = (time.perf_counter() - t0) / hands
    cpu = (time.process_time() - c0) / hands
    won = float(np.concatenate(wins).mean() / 2)
    return stats.mean_t(np.concatenate(nets)), won, seconds, cpu


def chunk_seconds(bots: list[str], n: int, chunks: int, seed: int) -> np.ndarray:
    """CPU seconds of each batch (rows) for each bot (columns) at seats 0/2 against OPPONENT."""
    out = np.zeros((chunks, len(bots)))
    play_batch("standard", OPPONENT, seed, 0, 1)  # the first call's one-time setup, untimed
    for batch in range(chunks):
        for j, bot in enumerate(bots):
            t = time.thread_time()
            play_batch("standard", (bot, OPPONENT, bot, OPPONENT), seed, batch, n, level="random")
            out[batch, j] = time.thread_time() - t
    return out


def timed_hands(rules: str, lineup, seed: int, n: int) -> tuple[pd.DataFrame, float]:
    """The N hands of one line-up (random levels) in hand_id order, and the CPU they took."""
    c0 = time.process_time()
    h = simulate_hands(rules, lineup, seed, n, level="random").to_pandas()
    return h.sort_values("hand_id", kind="stable").reset_index(drop=True), time.process_time() - c0


def iv(e: stats.Estimate, f: str = "+.4f") -> str:
    """An estimate and its interval: +0.0123 [-0.0045, +0.0291]."""
    return f"{e.estimate:{f}} [{e.lo:{f}}, {e.hi:{f}}]"
