"""Whole hands and matches played by bots, as Arrow tables (docs/bots.md).

The hands are played in C (``fastsheng._game``): one call without the GIL per batch, results in
preallocated numpy arrays, turned into Arrow tables here. A run is a sequence of batches; batch
``b`` of seed ``s`` draws its random numbers from
``numpy.random.SeedSequence(s, spawn_key=(b,))``, so its content does not depend on which other
batches ran, and a truncated batch holds the first hands of the full one.

* ``play_batch(rules, bots, seed, batch, size, mode="hands"|"matches", ...)`` -> dict of tables
* ``simulate_hands(rules, bots, seed, n, ...)`` / ``simulate_matches(...)`` -> one table
* ``trace_hand(...)`` -> every event of one hand; ``format_trace(trace)`` prints it
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from fastsheng import _game
from fastsheng.cards import RANKS
from fastsheng.engine.registry import BOTS, bot_spec, is_python_bot
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

from fastsheng.engine.checks import as_bots, as_rules, core_level, positive, seed_state
from fastsheng.engine.schema import (
    BOT_STREAMS,
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

# ---------------------------------------------------------------------------------------------
# Running a batch


def _run(
    rules: Rules,
    names,
    mode: int,
    level: int,
    first_hand: bool,
    seed: int,
    batch: int,
    size: int,
    id_base: int,
    *,
    tricks: bool = False,
    trace_item: int = -1,
    trace_hand_no: int = 0,
    check: bool = False,
    profile: bool = False,
    bot_stream: str = "hand",
):
    fields = rules.core_fields()
    python = any(is_python_bot(n) for n in names)
    if python and bot_stream != "hand":
        raise ValueError("Python bots play with per-hand bot streams (bot_stream='hand')")
    specs = [(0, 0, 0) if is_python_bot(n) else bot_spec(n) for n in names]
    bot_ids = [s[0] for s in specs]
    search = [(s[1], s[2]) for s in specs]
    if any(k for k, _ in search):
        from fastsheng import _search  # noqa: F401  (registers the search bot with the game loop)
    state = [int(x) for x in seed_state(seed, batch)]
    if mode == 0:
        hand_cap = size
    else:
        hand_cap = max(64, size * 48)
    grow = 1
    while True:
        hands = np.zeros(hand_cap, dtype=HAND_DTYPE)
        matches = np.zeros(size if mode == 1 else 0, dtype=MATCH_DTYPE)
        if tricks:
            trick_rows = np.zeros(hand_cap * 25, dtype=TRICK_DTYPE)
            codes = np.zeros(hand_cap * 100, dtype=np.uint8)
        else:
            trick_rows = np.zeros(0, dtype=TRICK_DTYPE)
            codes = np.zeros(0, dtype=np.uint8)
        if trace_item == -2:
            trace = np.zeros(hand_cap * 1024, dtype=np.int16)
        else:
            trace = np.zeros(_game.MAX_TRACE_ * 4 * grow if trace_item >= 0 else 0, dtype=np.int16)
        trace_at = np.zeros(hand_cap if trace_item == -2 else 0, dtype=np.uint32)
        if python:
            out, py_traces = _python_batch(
                rules,
                names,
                seed,
                batch,
                mode,
                level,
                first_hand,
                size,
                id_base,
                hands,
                matches,
                trick_rows,
                codes,
                state,
                trace_item,
            )
            if not out["overflow"]:
                break
            hand_cap *= 2
            continue
        out = _game._run(
            fields,
            bot_ids,
            mode,
            level,
            int(first_hand),
            id_base,
            size,
            hands.view(np.uint8),
            matches.view(np.uint8),
            trick_rows.view(np.uint8),
            codes,
            trace_item,
            trace_hand_no,
            trace.view(np.uint8),
            trace_at.view(np.uint8),
            state,
            int(check),
            int(profile),
            int(bot_stream == "batch"),
            search=search,
        )
        if not out["overflow"]:
            break
        hand_cap *= 2
        grow *= 2
    if out["errors"]:
        raise RuntimeError(f"the bots made {out['errors']} illegal plays (a fastsheng bug)")
    if python:
        trace = _pick_trace(
            py_traces, hands[: out["nhands"]], mode, id_base, trace_item, trace_hand_no
        )
    elif trace_item == -2:
        nh = out["nhands"]
        bounds = np.append(trace_at[:nh], out["trace_len"]).astype(np.int64)
        trace = [trace[bounds[k] : bounds[k + 1]] for k in range(nh)]
    else:
        trace = trace[: out["trace_len"]]
    return (
        out,
        hands[: out["nhands"]],
        matches,
        trick_rows[: out["ntricks"]],
        codes[: out["ncodes"]],
        trace,
    )


def _python_batch(
    rules,
    names,
    seed,
    batch,
    mode,
    level,
    first_hand,
    size,
    id_base,
    hands,
    matches,
    trick_rows,
    codes,
    state,
    trace_item,
):
    """A batch with Python bots at some seats (fastsheng.engine.pybatch); with a traced item, the
    batch is played up to it (a Python bot's state may depend on the hands before)."""
    from fastsheng.engine.pybatch import run_python_batch

    upto = size if trace_item < 0 else min(size, trace_item + 1)
    return run_python_batch(
        rules,
        names,
        seed,
        batch,
        mode,
        level,
        first_hand,
        upto,
        id_base,
        hands,
        matches,
        trick_rows,
        codes,
        state,
        trace_item != -1,
    )


def _pick_trace(traces, rows, mode, id_base, trace_item, trace_hand_no):
    if trace_item == -2:
        return traces
    if trace_item < 0:
        return np.zeros(0, np.int16)
    if mode == 0:
        return traces[trace_item]
    want = (rows["match_id"] == id_base + trace_item) & (rows["hand_no"] == trace_hand_no)
    return traces[int(np.flatnonzero(want)[0])]


def profile_batch(
    rules: Rules | str, bots: str | Sequence[str], seed: int, size: int, level: str = "2"
) -> dict[str, float]:
    """Play one batch of hands (not turned into tables) and time it: hands per second of CPU
    time of the playing thread (one core; a busy machine slows the wall clock, not this) and
    the share of each phase ("deal" = shuffle, deal and calls; "kitty" = burial and 炒底;
    "tricks" = the play and the score)."""
    import time

    rules = as_rules(rules)
    names = as_bots(bots)
    t = time.thread_time()
    out = _run(
        rules, names, 0, core_level(level), False, seed, 0, positive("size", size), 0, profile=True
    )[0]
    wall = time.thread_time() - t
    phases = out["t_deal"] + out["t_kitty"] + out["t_tricks"]
    return {
        "hands_per_s": size / wall,
        "deal": out["t_deal"] / phases,
        "kitty": out["t_kitty"] / phases,
        "tricks": out["t_tricks"] / phases,
    }


def play_batch(
    rules: Rules | str,
    bots: str | Sequence[str],
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
    """
    if bot_stream not in BOT_STREAMS:
        raise ValueError(f"bot_stream must be one of {BOT_STREAMS}, not {bot_stream!r}")
    size = positive("size", size)
    full = size if batch_size is None else positive("batch_size", batch_size)
    if size > full:
        raise ValueError(f"size {size} exceeds batch_size {full}")
    if mode not in ("hands", "matches"):
        raise ValueError(f"mode must be 'hands' or 'matches', not {mode!r}")
    return _play_sized(
        rules,
        bots,
        seed,
        batch,
        full,
        size,
        mode,
        level,
        tricks,
        first_hand,
        check,
        trace,
        bot_stream,
    )


def _simulate(mode, rules, bots, seed, n, level, batch_size, tricks, first_hand=False):
    n = positive("n", n)
    batch_size = positive("batch_size", batch_size)
    parts: dict[str, list[pa.Table]] = {}
    done = 0
    b = 0
    while done < n:
        size = min(batch_size, n - done)
        # a truncated batch keeps the full batch's ids and first hands
        out = _play_sized(rules, bots, seed, b, batch_size, size, mode, level, tricks, first_hand)
        for k, t in out.items():
            parts.setdefault(k, []).append(t)
        done += size
        b += 1
    return {k: pa.concat_tables(v) for k, v in parts.items()}


def _play_sized(
    rules,
    bots,
    seed,
    batch,
    batch_size,
    size,
    mode,
    level,
    tricks,
    first_hand,
    check=False,
    trace=False,
    bot_stream="hand",
):
    """Batch `batch` of a run of `batch_size` batches, cut to its first `size` items."""
    rules = as_rules(rules)
    names = as_bots(bots)
    m = 0 if mode == "hands" else 1
    lv = core_level(level)
    seed_state(seed, batch)
    out, hands, matches, trick_rows, codes, traces = _run(
        rules,
        names,
        m,
        lv,
        first_hand,
        seed,
        batch,
        size,
        int(batch) * batch_size,
        tricks=tricks,
        check=check,
        trace_item=-2 if trace else -1,
        bot_stream=bot_stream,
    )
    result = {"hands": hands_table(hands, batch, rules, names, m == 1)}
    if m == 1:
        result["matches"] = matches_table(matches, batch, rules, names)
    if tricks:
        result["tricks"] = tricks_table(trick_rows, codes, batch, rules, names)
    if trace:
        n = len(hands)
        offsets = np.zeros(n + 1, np.int32)
        np.cumsum([len(t) for t in traces], out=offsets[1:])
        flat = np.concatenate(traces) if n else np.zeros(0, np.int16)
        result["traces"] = pa.table(
            {
                "hand_id": pa.array(hands["hand_id"]),
                **run_columns(n, batch, rules, names),
                "level": dict_col(hands["level"], RANKS),
                "first_hand": pa.array(
                    (hands["hand_no"] == 1) if m == 1 else np.full(n, bool(first_hand))
                ),
                "events": pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat, pa.int16())),
            }
        )
    return result


def simulate_hands(
    rules: Rules | str,
    bots: str | Sequence[str],
    seed: int,
    n: int,
    level: str = "2",
    batch_size: int = 10_000,
    tricks: bool = False,
    first_hand: bool = False,
) -> pa.Table:
    """`n` hands, one row each (``HAND_COLUMNS``); with `tricks`, a dict of the "hands" and
    "tricks" tables instead. `bots`: one bot for every seat, two (the teams: seats 0/2, 1/3)
    or four (seat 0 first); each a name, or a Python bot object or class (each seat of each
    batch plays a fresh instance, or a deep copy of the object:
    fastsheng.engine.registry.BotRef)."""
    out = _simulate("hands", rules, bots, seed, n, level, batch_size, tricks, first_hand)
    return out if tricks else out["hands"]


def simulate_matches(
    rules: Rules | str,
    bots: str | Sequence[str],
    seed: int,
    n: int,
    batch_size: int = 1_000,
    hands: bool = False,
) -> pa.Table:
    """`n` matches, one row each (``MATCH_COLUMNS``); with `hands`, a dict of the "matches"
    and "hands" tables."""
    out = _simulate("matches", rules, bots, seed, n, "2", batch_size, False)
    return out if hands else out["matches"]


# ---------------------------------------------------------------------------------------------
# Traces


def trace_hand(
    rules: Rules | str,
    bots: str | Sequence[str],
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
) -> dict[str, Any]:
    """Every event of hand `index` of batch `batch` (in matches mode: hand `hand_no` of match
    `index`), replaying the batch's RNG stream up to it. Returns a dict with the hand's
    settings and ``events`` (a list of dicts); `format_trace` prints it."""
    rules = as_rules(rules)
    names = as_bots(bots)
    batch_size = positive("batch_size", batch_size)
    if not 0 <= index < batch_size:
        raise ValueError(f"index must be in 0..{batch_size - 1}, not {index!r}")
    m = 0 if mode == "hands" else 1
    out, hands, _, _, _, trace = _run(
        rules,
        names,
        m,
        core_level(level),
        first_hand,
        seed,
        batch,
        index + 1,
        int(batch) * batch_size,
        trace_item=index,
        trace_hand_no=hand_no if m else 0,
        bot_stream=bot_stream,
    )
    if len(trace) == 0:
        raise ValueError(f"match {index} has no hand {hand_no}")
    if m:
        row = hands[
            (hands["match_id"] == int(batch) * batch_size + index) & (hands["hand_no"] == hand_no)
        ][0]
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
        "first_hand": bool(first_hand or (m == 1 and hand_no == 1)),
        "events": decode_trace(trace),
    }
    return result
