"""The cost of isolated Python bots (docs/game.md, "Isolated bots"), as a ratio measured in one run.

A simple Python bot (``py-random``, fastsheng.engine.agents.RandomBot) plays seats 0 and 2
against ``expert``, in process and isolated (each Python seat in a process of its own: the
observation's bytes and the offer go there, its answer comes back, at every decision). Rates are
hands per second of wall time (the isolated bot's work happens in its own processes, which the
parent waits for), each side timed alternately so a burst of load on the shared machine hits
both, the best of each used. The isolated figure is a batch's steady state: the one-off start of
a bot process (a fresh interpreter importing fastsheng and the bot, once per seat and batch) is
timed apart and printed. No gate but sanity: the figures go to extra_info and docs/game.md.
"""

from __future__ import annotations

import time

from fastsheng.engine.hands import simulate_hands
from fastsheng.engine.isolation import BotLimits, IsolatedBot
from fastsheng.rules import get_rules

LINEUP = ["py-random", "expert"]  # the Python bot at seats 0 and 2


def _play(isolate: bool):
    def run(n: int) -> None:
        simulate_hands("standard", LINEUP, seed=1, n=n, batch_size=n, isolate=isolate)

    return run


def _start() -> float:
    """Seconds to start one bot process and make the bot there."""
    t = time.perf_counter()
    with IsolatedBot("py-random", 0, get_rules("standard"), 0, BotLimits()) as bot:
        bot.start()
    return time.perf_counter() - t


def _wall(fn, n: int) -> float:
    t = time.perf_counter()
    fn(n)
    return time.perf_counter() - t


def test_isolated_python_bot_hands_per_second(benchmark):
    in_process, isolated = _play(False), _play(True)
    in_process(20)
    isolated(2)  # warm both (imports, caches)
    n_in, n_iso, rounds = 300, 40, 2
    best_in = best_iso = 0.0
    start = min(_start() for _ in range(2))
    for _ in range(rounds):
        best_in = max(best_in, n_in / _wall(in_process, n_in))
        # two bot processes start per batch: their start is the batch's, not the hands'
        best_iso = max(best_iso, n_iso / max(_wall(isolated, n_iso) - 2 * start, 1e-9))
    benchmark.pedantic(isolated, args=(5,), rounds=1, iterations=1)
    ratio = best_in / best_iso
    benchmark.extra_info.update(
        {
            "in_process_hands_per_s": round(best_in),
            "isolated_hands_per_s": round(best_iso, 1),
            "ratio": round(ratio, 1),
            "start_s": round(start, 3),
        }
    )
    print(
        f"\npy-random at seats 0/2 vs expert: in process {best_in:,.0f} hands/s, isolated "
        f"{best_iso:,.1f} hands/s (x{ratio:.1f} slower); a bot process starts in {start:.2f} s"
    )
    assert best_in > 0 and best_iso > 0
