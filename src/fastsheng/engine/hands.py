"""Whole hands and matches played by bots, as Arrow tables (docs/bots.md).

The hands are played in C (``fastsheng._game``): one call without the GIL per batch, results in
preallocated numpy arrays, turned into Arrow tables here. A run is a sequence of batches; batch
``b`` of seed ``s`` draws its random numbers from
``numpy.random.SeedSequence(s, spawn_key=(b,))``, so its content does not depend on which other
batches ran, and a truncated batch holds the first hands of the full one. Each entry point
below describes its batch once, as a :class:`fastsheng.engine.plan.BatchPlan`, and passes it
whole to the C loop (or to fastsheng.engine.pybatch when a seat is a Python bot).

* ``play_batch(rules, bots, seed, batch, size, mode="hands"|"matches", ...)`` -> dict of tables
* ``simulate_hands(rules, bots, seed, n, ...)`` / ``simulate_matches(...)`` -> one table
* ``trace_hand(...)`` -> every event of one hand; ``format_trace(trace)`` prints it
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from fastsheng import _game
from fastsheng.bots.lineup import make_lineup
from fastsheng.bots.names import BOTS
from fastsheng.cards import RANKS
from fastsheng.engine.agents import Bot
from fastsheng.engine.isolation import NO_FORFEIT, BotLimits
from fastsheng.engine.plan import BatchPlan, Mode, Trace
from fastsheng.rules import Rules

__all__ = [
    "BOTS",
    "HAND_COLUMNS",
    "MATCH_COLUMNS",
    "TRICK_COLUMNS",
    "play_batch",
    "simulate_hands",
    "simulate_matches",
    "trace_hand",
    "format_trace",
    "decode_traces",
]

from fastsheng.engine.checks import positive
from fastsheng.engine.schema import (
    HAND_COLUMNS,
    HAND_DTYPE,
    MATCH_COLUMNS,
    MATCH_DTYPE,
    TRICK_COLUMNS,
    TRICK_DTYPE,
    dict_col,
    hands_table,
    matches_table,
    run_columns,
    tricks_table,
)
from fastsheng.engine.traces import decode_trace, decode_traces, format_trace

#: one seat's bot: a name ("expert", "mymodule:MyBot", "search:k=32"), or a Python bot object or
#: class (anything with ``act(observation, legal_actions)``: :class:`fastsheng.Bot`)
BotLike = str | Bot | type[Bot]

# ---------------------------------------------------------------------------------------------
# Running a batch


@dataclass
class _Buffers:
    """The arrays a batch writes its rows into (a capacity of `hand_cap` hand rows)."""

    hands: np.ndarray
    matches: np.ndarray
    trick_rows: np.ndarray
    codes: np.ndarray
    trace: np.ndarray
    trace_at: np.ndarray

    @classmethod
    def allocate(cls, plan: BatchPlan, hand_cap: int, grow: int) -> _Buffers:
        trick_cap = hand_cap if plan.tricks else 0
        if plan.python:  # each hand's trace comes from the step API's own buffer
            trace_len = 0
        elif plan.trace is Trace.ALL:
            trace_len = hand_cap * 1024
        elif plan.trace is Trace.ONE:
            trace_len = _game.MAX_TRACE_ * 4 * grow
        else:
            trace_len = 0
        return cls(
            hands=np.zeros(hand_cap, dtype=HAND_DTYPE),
            matches=np.zeros(plan.size if plan.mode is Mode.MATCHES else 0, dtype=MATCH_DTYPE),
            trick_rows=np.zeros(trick_cap * 25, dtype=TRICK_DTYPE),
            codes=np.zeros(trick_cap * 100, dtype=np.uint8),
            trace=np.zeros(trace_len, dtype=np.int16),
            trace_at=np.zeros(hand_cap if trace_len and plan.trace is Trace.ALL else 0, np.uint32),
        )

    def views(self) -> tuple[np.ndarray, ...]:
        """Raw bytes views, in the order of ``_game._run``'s buffers."""
        arrays = (self.hands, self.matches, self.trick_rows, self.codes, self.trace, self.trace_at)
        return tuple(a.view(np.uint8) for a in arrays)


@dataclass
class _Played:
    """What a batch wrote: the C loop's counts and the rows, cut to their length."""

    counts: dict[str, Any]
    hands: np.ndarray
    matches: np.ndarray
    trick_rows: np.ndarray
    codes: np.ndarray
    traces: Any  # Trace.ALL: one array per hand row; else the traced item's array (maybe empty)
    forfeits: np.ndarray | None = None  # an isolated batch: each row's forfeiting seat, or 255


def _run(plan: BatchPlan) -> _Played:
    """Play the batch, growing the buffers until its rows fit."""
    lineup = make_lineup(plan.specs())
    hand_cap = plan.size if plan.mode is Mode.HANDS else max(64, plan.size * 48)
    grow = 1
    while True:
        buf = _Buffers.allocate(plan, hand_cap, grow)
        if plan.python:
            from fastsheng.engine.pybatch import run_python_batch

            out, traces, forfeits = run_python_batch(
                plan, lineup, buf.hands, buf.matches, buf.trick_rows, buf.codes
            )
        else:
            out = _game._run(plan.core_fields(), lineup, *buf.views())
        if not out["overflow"]:
            break
        hand_cap *= 2
        grow *= 2
    if out["errors"]:
        raise RuntimeError(f"the bots made {out['errors']} illegal plays (a fastsheng bug)")
    rows = buf.hands[: out["nhands"]]
    if plan.python:
        traces = _pick_trace(plan, traces, rows)
        forfeits = forfeits[: out["nhands"]]
    elif plan.trace is Trace.ALL:
        bounds = np.append(buf.trace_at[: len(rows)], out["trace_len"]).astype(np.int64)
        traces = [buf.trace[bounds[k] : bounds[k + 1]] for k in range(len(rows))]
    else:
        traces = buf.trace[: out["trace_len"]]
    return _Played(
        out,
        rows,
        buf.matches,
        buf.trick_rows[: out["ntricks"]],
        buf.codes[: out["ncodes"]],
        traces,
        forfeits if plan.isolate else None,
    )


def _pick_trace(plan: BatchPlan, traces: list[np.ndarray], rows: np.ndarray):
    """A Python batch's traces (one per hand played) as the C loop gives them for the plan."""
    if plan.trace is Trace.ALL:
        return traces
    if plan.trace is Trace.NONE:
        return np.zeros(0, np.int16)
    if plan.mode is Mode.HANDS:
        return traces[plan.trace_item]
    want = (rows["match_id"] == plan.id_base + plan.trace_item) & (
        rows["hand_no"] == plan.trace_hand_no
    )
    return traces[int(np.flatnonzero(want)[0])]


def profile_batch(
    rules: Rules | str, bots: BotLike | Sequence[BotLike], seed: int, size: int, level: str = "2"
) -> dict[str, float]:
    """Play one batch of hands (not turned into tables) and time it: hands per second of CPU
    time of the playing thread (one core; a busy machine slows the wall clock, not this) and
    the share of each phase ("deal" = shuffle, deal and calls; "kitty" = burial and 炒底;
    "tricks" = the play and the score)."""
    import time

    plan = BatchPlan(rules, bots, seed, 0, size, level=level, profile=True)
    t = time.thread_time()
    out = _run(plan).counts
    wall = time.thread_time() - t
    phases = out["t_deal"] + out["t_kitty"] + out["t_tricks"]
    return {
        "hands_per_s": plan.size / wall,
        "deal": out["t_deal"] / phases,
        "kitty": out["t_kitty"] / phases,
        "tricks": out["t_tricks"] / phases,
    }


def play_batch(
    rules: Rules | str,
    bots: BotLike | Sequence[BotLike],
    seed: int,
    batch: int,
    size: int,
    *,
    mode: str = "hands",
    level: str = "2",
    tricks: bool = False,
    trace: bool = False,
    first_hand: bool = False,
    check: bool = False,
    batch_size: int | None = None,
    bot_stream: str = "hand",
    isolate: bool | None = None,
    bot_limits: BotLimits | None = None,
) -> dict[str, pa.Table]:
    """Play batch `batch` of a run: `size` hands (or matches with ``mode="matches"``).

    Returns ``{"hands": table}``, plus ``"matches"`` in matches mode and ``"tricks"`` (one row
    per trick) when `tricks`. `level`: a rank "2".."A" or "random" (uniform per hand; hands
    mode). `first_hand`: play every hand as a match's hand 1 (dealer by the calls, redeal when
    nobody calls). `check`: verify every follow with the core while playing. `trace`: add a
    "traces" table (hand_id, ..., events: the raw event codes of every hand; `decode_traces`
    turns it into the dicts of `trace_hand`). `batch_size`: the run's batch size when this is
    its truncated last batch (`size` < `batch_size`): rows are numbered as in the full batch,
    whose first `size` hands (matches) they are. `bot_stream`: "hand" (each hand, or match, has
    its own bot stream: the jump of its deal stream) or "batch" (one bot stream per batch, as
    runs made before fastsheng 0.2 drew it; only random bots draw, so only they differ).
    `isolate`: play each Python bot in a process of its own, which never holds the game
    (fastsheng.engine.isolation; None: when the Python bots come from two or more authors,
    i.e. top-level modules); the hands table then has a ``forfeit`` column. `bot_limits`: an
    isolated bot's time and memory, and what its failure costs (``BotLimits``).
    """
    plan = BatchPlan(
        rules,
        bots,
        seed,
        batch,
        size,
        batch_size,
        mode=mode,
        level=level,
        first_hand=first_hand,
        tricks=tricks,
        trace=Trace.ALL if trace else Trace.NONE,
        check=check,
        bot_stream=bot_stream,
        isolate=isolate,
        bot_limits=bot_limits,
    )
    return _tables(plan, _run(plan))


def _simulate(mode, rules, bots, seed, n, level, batch_size, tricks, first_hand=False, **isolation):
    n = positive("n", n)
    batch_size = positive("batch_size", batch_size)
    parts: dict[str, list[pa.Table]] = {}
    done = 0
    b = 0
    while done < n:
        size = min(batch_size, n - done)
        # a truncated batch keeps the full batch's ids and first hands
        plan = BatchPlan(
            rules, bots, seed, b, size, batch_size, mode=mode, level=level, tricks=tricks,
            first_hand=first_hand, **isolation,
        )  # fmt: skip
        for k, t in _tables(plan, _run(plan)).items():
            parts.setdefault(k, []).append(t)
        done += size
        b += 1
    return {k: pa.concat_tables(v) for k, v in parts.items()}


def _tables(plan: BatchPlan, played: _Played) -> dict[str, pa.Table]:
    """A played batch as Arrow tables: hands, and matches, tricks, traces as the plan asks."""
    rules, names, batch = plan.rules, plan.bots, plan.batch
    matches = plan.mode is Mode.MATCHES
    result = {"hands": hands_table(played.hands, batch, rules, names, matches)}
    if played.forfeits is not None:  # an isolated batch: which hands a bot's failure forfeited
        f = played.forfeits
        column = pa.array(f, pa.uint8(), mask=f == NO_FORFEIT)
        result["hands"] = result["hands"].append_column("forfeit", column)
    if matches:
        result["matches"] = matches_table(played.matches, batch, rules, names)
    if plan.tricks:
        result["tricks"] = tricks_table(played.trick_rows, played.codes, batch, rules, names)
    if plan.trace is Trace.ALL:
        result["traces"] = _traces_table(plan, played.hands, played.traces)
    return result


def _traces_table(plan: BatchPlan, hands: np.ndarray, traces: list[np.ndarray]) -> pa.Table:
    n = len(hands)
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum([len(t) for t in traces], out=offsets[1:])
    flat = np.concatenate(traces) if n else np.zeros(0, np.int16)
    if plan.mode is Mode.MATCHES:
        first = hands["hand_no"] == 1
    else:
        first = np.full(n, bool(plan.first_hand))
    return pa.table(
        {
            "hand_id": pa.array(hands["hand_id"]),
            **run_columns(n, plan.batch, plan.rules, plan.bots),
            "level": dict_col(hands["level"], RANKS),
            "first_hand": pa.array(first),
            "events": pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat, pa.int16())),
        }
    )


def simulate_hands(
    rules: Rules | str,
    bots: BotLike | Sequence[BotLike],
    seed: int,
    n: int,
    level: str = "2",
    batch_size: int = 10_000,
    tricks: bool = False,
    first_hand: bool = False,
    *,
    isolate: bool | None = None,
    bot_limits: BotLimits | None = None,
) -> pa.Table:
    """`n` hands, one row each (``HAND_COLUMNS``); with `tricks`, a dict of the "hands" and
    "tricks" tables instead. `bots`: one bot for every seat, two (the teams: seats 0/2, 1/3)
    or four (seat 0 first); each a name, or a Python bot object or class (each seat of each
    batch plays a fresh instance, or a deep copy of the object:
    fastsheng.bots.names.BotRef). `isolate`, `bot_limits`: as :func:`play_batch`'s (a Python
    bot in this process is trusted code: it could read every hidden card)."""
    out = _simulate("hands", rules, bots, seed, n, level, batch_size, tricks, first_hand,
                    isolate=isolate, bot_limits=bot_limits)  # fmt: skip
    return out if tricks else out["hands"]


def simulate_matches(
    rules: Rules | str,
    bots: BotLike | Sequence[BotLike],
    seed: int,
    n: int,
    batch_size: int = 1_000,
    hands: bool = False,
    *,
    isolate: bool | None = None,
    bot_limits: BotLimits | None = None,
) -> pa.Table:
    """`n` matches, one row each (``MATCH_COLUMNS``); with `hands`, a dict of the "matches"
    and "hands" tables. `isolate`, `bot_limits`: as :func:`play_batch`'s (a bot's failure
    stops an isolated match run: a match goes on from each hand's result)."""
    out = _simulate("matches", rules, bots, seed, n, "2", batch_size, False,
                    isolate=isolate, bot_limits=bot_limits)  # fmt: skip
    return out if hands else out["matches"]


# ---------------------------------------------------------------------------------------------
# Traces


def trace_hand(
    rules: Rules | str,
    bots: BotLike | Sequence[BotLike],
    seed: int,
    batch: int,
    index: int,
    batch_size: int,
    level: str = "2",
    *,
    mode: str = "hands",
    hand_no: int = 1,
    first_hand: bool = False,
    bot_stream: str = "hand",
    isolate: bool | None = None,
    bot_limits: BotLimits | None = None,
) -> dict[str, Any]:
    """Every event of hand `index` of batch `batch` (in matches mode: hand `hand_no` of match
    `index`), replaying the batch's RNG stream up to it. Returns a dict with the hand's
    settings and ``events`` (a list of dicts); `format_trace` prints it. `isolate`,
    `bot_limits`: as :func:`play_batch`'s (an isolated run's hand replays isolated)."""
    batch_size = positive("batch_size", batch_size)
    if not 0 <= index < batch_size:
        raise ValueError(f"index must be in 0..{batch_size - 1}, not {index!r}")
    plan = BatchPlan(
        rules,
        bots,
        seed,
        batch,
        index + 1,
        batch_size,
        mode=mode,
        level=level,
        first_hand=first_hand,
        trace=Trace.ONE,
        trace_item=index,
        trace_hand_no=hand_no,
        bot_stream=bot_stream,
        isolate=isolate,
        bot_limits=bot_limits,
    )
    played = _run(plan)
    trace, hands = played.traces, played.hands
    if len(trace) == 0:
        raise ValueError(f"match {index} has no hand {hand_no}")
    rules, names, m = plan.rules, plan.bots, plan.mode is Mode.MATCHES
    if m:
        row = hands[(hands["match_id"] == plan.id_base + index) & (hands["hand_no"] == hand_no)][0]
    else:
        row = hands[index]
    result = {
        "rules": rules.name,
        "bots": list(names),
        "seed": seed,
        "batch": batch,
        "index": index,
        "hand_id": int(row["hand_id"]),
        "level": RANKS[int(row["level"])],
        "first_hand": bool(first_hand or (m and hand_no == 1)),
        "events": decode_trace(trace),
    }
    return result
