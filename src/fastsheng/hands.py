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
from fastsheng.bots import BOTS, bot_spec, is_python_bot, resolve_bots, split_bots
from fastsheng.cards import RANKS, SUITS, format_cards, parse_level
from fastsheng.rules import Rules, get_rules

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


# how the bots' random stream is seeded: per hand (0.2 on) or per batch (runs made before)
BOT_STREAMS = ("hand", "batch")
TRUMP_NAMES = ("S", "H", "C", "D", "NT")
TRUMP_SET_NAMES = ("declared", "overcall", "kitty", "none")
KIND_NAMES = ("single", "pair", "tractor", "throw")
SIDE_NAMES = ("dealer", "defenders")
MATCH_WINNER_NAMES = ("team0", "team1", "draw")
ACTION_NAMES = {1: "declare", 2: "reinforce", 3: "overcall"}
_EV = _game.EVENTS

# numpy mirrors of the C rows of fastsheng/_game.pxd (natural alignment, same field order)
_HAND_FIELDS = [
    ("hand_id", "u8"),
    ("match_id", "u8"),
    ("trick_points", "i2"),
    ("kitty_bonus", "i2"),
    ("penalty", "i2"),
    ("defenders_total", "i2"),
    ("stake", "u2"),
    ("hand_no", "u2"),
    ("level", "u1"),
    ("dealer", "u1"),
    ("first_seat", "u1"),
    ("declarer", "u1"),
    ("trump", "u1"),
    ("trump_set", "u1"),
    ("n_shows", "u1"),
    ("n_overcalls", "u1"),
    ("n_chaodi", "u1"),
    ("n_redeals", "u1"),
    ("kitty_points_dealt", "u1"),
    ("kitty_points_buried", "u1"),
    ("last_winner", "u1"),
    ("last_lead_kind", "u1"),
    ("kitty_captured", "u1"),
    ("kitty_mult", "u1"),
    ("n_tricks", "u1"),
    ("throws", "u1"),
    ("failed_throws", "u1"),
    ("failed_throws_dealer", "u1"),
    ("penalty_stakes", "u1"),
    ("winner", "u1"),
    ("levels", "u1"),
    ("bonus_levels", "u1"),
    ("next_dealer", "u1"),
    ("level_team0", "u1"),
    ("level_team1", "u1"),
    ("burier", "u1"),
    ("final_caller", "u1"),
    ("levels_climbed", "u1"),
    ("trumps", "u1", (4,)),
    ("pairs", "u1", (4,)),
    ("tractors", "u1", (4,)),
    ("jokers", "u1", (4,)),
    ("points", "u1", (4,)),
    ("level_cards", "u1", (4,)),
    ("throw_risk", "f4"),
]
HAND_DTYPE = np.dtype(_HAND_FIELDS, align=True)
MATCH_DTYPE = np.dtype(
    [
        ("match_id", "u8"),
        ("first_hand_id", "u8"),
        ("hands", "u2"),
        ("winner", "u1"),
        ("level_team0", "u1"),
        ("level_team1", "u1"),
        ("first_dealer", "u1"),
        ("capped", "u1"),
    ],
    align=True,
)
TRICK_DTYPE = np.dtype(
    [
        ("hand_id", "u8"),
        ("codes_at", "u4"),
        ("trick_no", "u1"),
        ("leader", "u1"),
        ("ncards", "u1"),
        ("attempted", "u1"),
        ("winner", "u1"),
        ("points", "u1"),
        ("lead_kind", "u1"),
        ("failed", "u1"),
    ],
    align=True,
)
_sizes = _game._struct_sizes()
assert HAND_DTYPE.itemsize == _sizes["hand"], (HAND_DTYPE.itemsize, _sizes)
assert MATCH_DTYPE.itemsize == _sizes["match"], (MATCH_DTYPE.itemsize, _sizes)
assert TRICK_DTYPE.itemsize == _sizes["trick"], (TRICK_DTYPE.itemsize, _sizes)

SEAT_FEATURES = ("trumps", "pairs", "tractors", "jokers", "points", "level_cards")

# name -> meaning (fastsheng sim documents these)
HAND_COLUMNS: dict[str, str] = {
    "hand_id": "uint64: batch*size + i (hands mode); match_id*65536 + hand_no (matches mode)",
    "batch": "uint32: batch number",
    "rules": "dictionary string: rules name",
    "bots": "dictionary string: the four bots, seats 0..3, comma-separated",
    "match_id": "uint64: match (matches mode only)",
    "hand_no": "uint16: hand number in its match, from 1 (matches mode only)",
    "level_team0": "dictionary string: level of seats 0/2 before the hand (matches mode only)",
    "level_team1": "dictionary string: level of seats 1/3 before the hand (matches mode only)",
    "level": "dictionary string: the hand's level rank 2..A",
    "dealer": "uint8: dealer seat 0..3",
    "first_seat": "uint8: seat that received the first card",
    "declarer": "uint8, null when nobody called: seat of the standing call when calls closed "
    "(before any 炒底)",
    "final_caller": "uint8, null when trump was not called: seat whose call set the final trump "
    "(the last 炒底 overcaller, else the declarer)",
    "burier": "uint8: seat that buried the final kitty (the dealer, or the last 炒底 overcaller)",
    "trump": "dictionary string: S, H, C, D or NT",
    "trump_set": "dictionary string: declared, overcall, kitty (fallback from the kitty), none "
    "(no call and the no_trump fallback)",
    "n_shows": "uint8: declarations + reinforcements + overcalls (炒底 included)",
    "n_overcalls": "uint8: overcalls (炒底 included)",
    "n_chaodi": "uint8: overcalls after burial (炒底)",
    "n_redeals": "uint8: redeals because nobody called in a hand 1",
    "stake": "uint16: stake multiplier (2^overcalls with overcall_bonus = stake, else 1)",
    "kitty_points_dealt": "uint8: points in the kitty as dealt",
    "kitty_points_buried": "uint8: points in the final kitty (buried by `burier`)",
    "trick_points": "int16: the defenders' points from tricks",
    "n_tricks": "uint8: tricks played",
    "last_winner": "uint8: seat that won the last trick",
    "last_lead_kind": "dictionary string: single, pair, tractor or throw (last trick's lead)",
    "kitty_captured": "bool: the defenders won the last trick",
    "kitty_mult": "uint8: kitty multiplier of the last lead (applied only when captured)",
    "kitty_bonus": "int16: kitty points x multiplier added to the defenders",
    "throws": "uint8: throws attempted (failed ones included)",
    "failed_throws": "uint8: failed throws",
    "failed_throws_dealer": "uint8: failed throws by the dealer side",
    "throw_risk": "float32: failed throws the leading bots expected (their own estimates,"
    " summed; 0 for bots that keep none: random, basic, expert-v1..v3)",
    "penalty": "int16: net effect of throw penalties on the defenders' total",
    "penalty_stakes": "uint8: half-stake penalties recorded (throw_penalty = half_stake)",
    "defenders_total": "int16: trick points + kitty bonus + penalty, at least 0",
    "winner": "dictionary string: dealer (the dealer side advances) or defenders (take over)",
    "levels": "uint8: the level table's value for the winner (overcall bonus included), before "
    "the end rank and must-play ranks stop a climb",
    "levels_climbed": "uint8: levels the winner actually climbs: matches mode, the match's "
    "real climb; hands mode, climbing from the hand's level (counted as played), stopped by the "
    "end rank and later must-play ranks",
    "bonus_levels": "uint8: of which from overcalls (overcall_bonus = level)",
    "next_dealer": "uint8: dealer of the next hand",
    **{
        f"{f}_{s}": f"uint8: seat {s}'s 25 dealt cards: "
        + {
            "trumps": "trumps under the final trump",
            "pairs": "pairs",
            "tractors": "tractors (greedy split)",
            "jokers": "jokers",
            "points": "points",
            "level_cards": "level-rank cards",
        }[f]
        for f in SEAT_FEATURES
        for s in range(4)
    },
}
MATCH_COLUMNS: dict[str, str] = {
    "match_id": "uint64: batch*size + i",
    "hand_id": "uint64: hand_id of the match's first hand",
    "batch": "uint32",
    "rules": "dictionary string",
    "bots": "dictionary string",
    "winner": "dictionary string: team0 (seats 0/2), team1 (seats 1/3) or draw",
    "hands": "uint16: hands played",
    "level_team0": "dictionary string: final level of seats 0/2",
    "level_team1": "dictionary string: final level of seats 1/3",
    "first_dealer": "uint8: dealer of hand 1",
    "capped": "bool: ended by the hand cap",
}
TRICK_COLUMNS: dict[str, str] = {
    "hand_id": "uint64",
    "batch": "uint32",
    "rules": "dictionary string",
    "bots": "dictionary string",
    "trick": "uint8: trick number from 0",
    "leader": "uint8: seat that led",
    "winner": "uint8: seat that won",
    "points": "uint8: points in the trick",
    "lead_kind": "dictionary string: single, pair, tractor, throw (the cards actually led)",
    "failed": "bool: the leader's throw failed (only the forced unit was led)",
    "attempted": "uint8: cards the leader tried to lead",
    "ncards": "uint8: cards played by each seat",
    **{f"cards_{s}": f"list<uint8>: card codes seat {s} played, sorted" for s in range(4)},
}


# ---------------------------------------------------------------------------------------------
# Validation


def _rules(rules: Rules | str) -> Rules:
    if isinstance(rules, str):
        return get_rules(rules)
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a fastsheng.Rules or a preset name, not {rules!r}")
    return rules


def _bots(bots: str | Sequence[str]) -> tuple[str, ...]:
    return resolve_bots(bots)


def _level(level: str | int) -> int:
    """The C core's level: a rank index 0..12, or -1 for "random"."""
    text = parse_level(str(level))
    return -1 if text == "random" else RANKS.index(text)


def _state(seed: int, batch: int) -> np.ndarray:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, not {seed!r}")
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 0:
        raise ValueError(f"batch must be a non-negative int, not {batch!r}")
    ss = np.random.SeedSequence(int(seed), spawn_key=(int(batch),))
    return ss.generate_state(4, np.uint64)


def _positive(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, not {value!r}")
    return int(value)


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
    state = [int(x) for x in _state(seed, batch)]
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
    """A batch with Python bots at some seats (fastsheng.pyplay); with a traced item, the
    batch is played up to it (a Python bot's state may depend on the hands before)."""
    from fastsheng.pyplay import run_python_batch

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


def _dict_col(values: np.ndarray, names: Sequence[str]) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(
        pa.array(values.astype(np.int8), pa.int8()), pa.array(list(names), pa.string())
    )


def _const_dict(value: str, n: int) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(
        pa.array(np.zeros(n, np.int8), pa.int8()), pa.array([value], pa.string())
    )


def _run_columns(n: int, batch: int, rules: Rules, names) -> dict[str, pa.Array]:
    """The columns every table carries, so runs concatenate and group: batch, rules, bots."""
    return {
        "batch": pa.array(np.full(n, batch, np.uint32)),
        "rules": _const_dict(rules.name, n),
        "bots": _const_dict(",".join(names), n),
    }


def _hands_table(rows: np.ndarray, batch: int, rules: Rules, names, matches_mode: bool) -> pa.Table:
    n = len(rows)
    cols: dict[str, pa.Array] = {
        "hand_id": pa.array(rows["hand_id"]),
        **_run_columns(n, batch, rules, names),
    }
    if matches_mode:
        cols["match_id"] = pa.array(rows["match_id"])
        cols["hand_no"] = pa.array(rows["hand_no"])
        cols["level_team0"] = _dict_col(rows["level_team0"], RANKS)
        cols["level_team1"] = _dict_col(rows["level_team1"], RANKS)
    declarer = rows["declarer"]
    cols.update(
        {
            "level": _dict_col(rows["level"], RANKS),
            "dealer": pa.array(rows["dealer"]),
            "first_seat": pa.array(rows["first_seat"]),
            "declarer": pa.array(declarer, pa.uint8(), mask=declarer == 255),
            "final_caller": pa.array(
                rows["final_caller"], pa.uint8(), mask=rows["final_caller"] == 255
            ),
            "burier": pa.array(rows["burier"]),
            "trump": _dict_col(rows["trump"], TRUMP_NAMES),
            "trump_set": _dict_col(rows["trump_set"], TRUMP_SET_NAMES),
            "n_shows": pa.array(rows["n_shows"]),
            "n_overcalls": pa.array(rows["n_overcalls"]),
            "n_chaodi": pa.array(rows["n_chaodi"]),
            "n_redeals": pa.array(rows["n_redeals"]),
            "stake": pa.array(rows["stake"]),
            "kitty_points_dealt": pa.array(rows["kitty_points_dealt"]),
            "kitty_points_buried": pa.array(rows["kitty_points_buried"]),
            "trick_points": pa.array(rows["trick_points"]),
            "n_tricks": pa.array(rows["n_tricks"]),
            "last_winner": pa.array(rows["last_winner"]),
            "last_lead_kind": _dict_col(rows["last_lead_kind"], KIND_NAMES),
            "kitty_captured": pa.array(rows["kitty_captured"].astype(bool)),
            "kitty_mult": pa.array(rows["kitty_mult"]),
            "kitty_bonus": pa.array(rows["kitty_bonus"]),
            "throws": pa.array(rows["throws"]),
            "failed_throws": pa.array(rows["failed_throws"]),
            "failed_throws_dealer": pa.array(rows["failed_throws_dealer"]),
            "throw_risk": pa.array(rows["throw_risk"]),
            "penalty": pa.array(rows["penalty"]),
            "penalty_stakes": pa.array(rows["penalty_stakes"]),
            "defenders_total": pa.array(rows["defenders_total"]),
            "winner": _dict_col(rows["winner"], SIDE_NAMES),
            "levels": pa.array(rows["levels"]),
            "levels_climbed": pa.array(rows["levels_climbed"]),
            "bonus_levels": pa.array(rows["bonus_levels"]),
            "next_dealer": pa.array(rows["next_dealer"]),
        }
    )
    for f in SEAT_FEATURES:
        block = rows[f]
        for s in range(4):
            cols[f"{f}_{s}"] = pa.array(np.ascontiguousarray(block[:, s]))
    return pa.table(cols)


def _matches_table(rows: np.ndarray, batch: int, rules: Rules, names) -> pa.Table:
    n = len(rows)
    return pa.table(
        {
            "match_id": pa.array(rows["match_id"]),
            "hand_id": pa.array(rows["first_hand_id"]),
            **_run_columns(n, batch, rules, names),
            "winner": _dict_col(rows["winner"], MATCH_WINNER_NAMES),
            "hands": pa.array(rows["hands"]),
            "level_team0": _dict_col(rows["level_team0"], RANKS),
            "level_team1": _dict_col(rows["level_team1"], RANKS),
            "first_dealer": pa.array(rows["first_dealer"]),
            "capped": pa.array(rows["capped"].astype(bool)),
        }
    )


def _tricks_table(rows: np.ndarray, codes: np.ndarray, batch: int, rules: Rules, names) -> pa.Table:
    n = len(rows)
    ncards = rows["ncards"].astype(np.int64)
    at = rows["codes_at"].astype(np.int64)
    cols: dict[str, pa.Array] = {
        "hand_id": pa.array(rows["hand_id"]),
        **_run_columns(n, batch, rules, names),
        "trick": pa.array(rows["trick_no"]),
        "leader": pa.array(rows["leader"]),
        "winner": pa.array(rows["winner"]),
        "points": pa.array(rows["points"]),
        "lead_kind": _dict_col(rows["lead_kind"], KIND_NAMES),
        "failed": pa.array(rows["failed"].astype(bool)),
        "attempted": pa.array(rows["attempted"]),
        "ncards": pa.array(rows["ncards"]),
    }
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(ncards, out=offsets[1:])
    for s in range(4):
        # codes of seat s for trick j: codes[at_j + s*n_j : at_j + (s+1)*n_j]
        idx = np.repeat(at + s * ncards - offsets[:-1], ncards) + np.arange(offsets[-1])
        values = pa.array(codes[idx], pa.uint8())
        cols[f"cards_{s}"] = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values)
    return pa.table(cols)


def profile_batch(
    rules: Rules | str, bots: str | Sequence[str], seed: int, size: int, level: str = "2"
) -> dict[str, float]:
    """Play one batch of hands (not turned into tables) and time it: hands per second of CPU
    time of the playing thread (one core; a busy machine slows the wall clock, not this) and
    the share of each phase ("deal" = shuffle, deal and calls; "kitty" = burial and 炒底;
    "tricks" = the play and the score)."""
    import time

    rules = _rules(rules)
    names = _bots(bots)
    t = time.thread_time()
    out = _run(
        rules, names, 0, _level(level), False, seed, 0, _positive("size", size), 0, profile=True
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
    size = _positive("size", size)
    full = size if batch_size is None else _positive("batch_size", batch_size)
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
    n = _positive("n", n)
    batch_size = _positive("batch_size", batch_size)
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
    rules = _rules(rules)
    names = _bots(bots)
    m = 0 if mode == "hands" else 1
    lv = _level(level)
    _state(seed, batch)
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
    result = {"hands": _hands_table(hands, batch, rules, names, m == 1)}
    if m == 1:
        result["matches"] = _matches_table(matches, batch, rules, names)
    if tricks:
        result["tricks"] = _tricks_table(trick_rows, codes, batch, rules, names)
    if trace:
        n = len(hands)
        offsets = np.zeros(n + 1, np.int32)
        np.cumsum([len(t) for t in traces], out=offsets[1:])
        flat = np.concatenate(traces) if n else np.zeros(0, np.int16)
        result["traces"] = pa.table(
            {
                "hand_id": pa.array(hands["hand_id"]),
                **_run_columns(n, batch, rules, names),
                "level": _dict_col(hands["level"], RANKS),
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
    batch plays a fresh instance, or a deep copy of the object: fastsheng.bots.BotRef)."""
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
    rules = _rules(rules)
    names = _bots(bots)
    batch_size = _positive("batch_size", batch_size)
    if not 0 <= index < batch_size:
        raise ValueError(f"index must be in 0..{batch_size - 1}, not {index!r}")
    m = 0 if mode == "hands" else 1
    out, hands, _, _, _, trace = _run(
        rules,
        names,
        m,
        _level(level),
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
        "events": _decode(trace),
    }
    return result


def decode_traces(table: pa.Table) -> list[dict[str, Any]]:
    """The "traces" table of `play_batch(..., trace=True)` as trace dicts (see `trace_hand`)."""
    out = []
    cols = table.to_pydict()
    for k in range(table.num_rows):
        out.append(
            {
                "rules": cols["rules"][k],
                "bots": split_bots(cols["bots"][k]),
                "batch": cols["batch"][k],
                "hand_id": cols["hand_id"][k],
                "level": cols["level"][k],
                "first_hand": cols["first_hand"][k],
                "events": _decode(cols["events"][k]),
            }
        )
    return out


def _decode(trace) -> list[dict[str, Any]]:
    t = [int(x) for x in trace]
    i = 0
    events: list[dict[str, Any]] = []

    def cards() -> list[int]:
        nonlocal i
        n = t[i]
        out = t[i + 1 : i + 1 + n]
        i += 1 + n
        return out

    while i < len(t):
        ev = t[i]
        i += 1
        if ev == _EV["end"]:
            break
        if ev == _EV["deal"]:
            first = t[i]
            deck = t[i + 1 : i + 109]
            i += 109
            events.append({"type": "deal", "first_seat": first, "deck": deck})
        elif ev in (_EV["show"], _EV["chaodi"]):
            seat, dealt, action = t[i], t[i + 1], t[i + 2]
            i += 3
            events.append(
                {
                    "type": "show" if ev == _EV["show"] else "chaodi",
                    "seat": seat,
                    "dealt": dealt,
                    "action": ACTION_NAMES.get(action, str(action)),
                    "cards": cards(),
                }
            )
        elif ev == _EV["redeal"]:
            events.append({"type": "redeal"})
        elif ev == _EV["trump"]:
            dealer, trump, how, declarer = t[i : i + 4]
            i += 4
            events.append(
                {
                    "type": "trump",
                    "dealer": dealer,
                    "trump": None if trump == 4 else SUITS[trump],
                    "set": TRUMP_SET_NAMES[how],
                    "declarer": None if declarer < 0 else declarer,
                }
            )
        elif ev == _EV["bury"]:
            seat = t[i]
            i += 1
            events.append({"type": "bury", "seat": seat, "cards": cards()})
        elif ev == _EV["trick"]:
            leader = t[i]
            i += 1
            attempted = cards()
            failed = bool(t[i])
            i += 1
            plays = [cards() for _ in range(4)]
            winner, points = t[i], t[i + 1]
            i += 2
            events.append(
                {
                    "type": "trick",
                    "leader": leader,
                    "attempted": attempted,
                    "failed": failed,
                    "plays": plays,
                    "winner": winner,
                    "points": points,
                }
            )
        elif ev == _EV["result"]:
            keys = (
                "trick_points",
                "kitty_mult",
                "kitty_bonus",
                "penalty",
                "defenders_total",
                "winner",
                "levels",
                "next_dealer",
            )
            vals = t[i : i + 8]
            i += 8
            d = dict(zip(keys, vals, strict=True))
            d["winner"] = SIDE_NAMES[d["winner"]]
            events.append({"type": "result", **d})
        else:  # pragma: no cover
            raise ValueError(f"corrupt trace: event {ev} at {i - 1}")
    return events


def format_trace(trace: dict[str, Any]) -> str:
    """The hand move by move in card notation."""
    lines = [
        f"hand {trace['hand_id']}  rules {trace['rules']}  level {trace['level']}  "
        f"bots {','.join(trace['bots'])}"
    ]
    for ev in trace["events"]:
        kind = ev["type"]
        if kind == "deal":
            deck = ev["deck"]
            first = ev["first_seat"]
            lines.append(f"deal from seat {first}")
            for s in range(4):
                cards = sorted(deck[j] for j in range(100) if (first + j) % 4 == s)
                lines.append(f"  seat {s}: {format_cards(cards)}")
            lines.append(f"  kitty: {format_cards(deck[100:])}")
        elif kind in ("show", "chaodi"):
            when = "after burial" if kind == "chaodi" else f"after card {ev['dealt']}"
            cards = format_cards(ev["cards"])
            lines.append(f"  seat {ev['seat']} {ev['action']}s {cards} ({when})")
        elif kind == "redeal":
            lines.append("nobody called: redeal")
        elif kind == "trump":
            trump = ev["trump"] or "no trump"
            lines.append(f"dealer seat {ev['dealer']}, trump {trump} ({ev['set']})")
        elif kind == "bury":
            lines.append(f"seat {ev['seat']} takes the kitty, buries {format_cards(ev['cards'])}")
        elif kind == "trick":
            leader = ev["leader"]
            head = f"trick: seat {leader} leads {format_cards(ev['plays'][0])}"
            if ev["failed"]:
                head += f" (throw {format_cards(ev['attempted'])} failed)"
            lines.append(head)
            for k in range(1, 4):
                lines.append(f"    seat {(leader + k) % 4}: {format_cards(ev['plays'][k])}")
            lines.append(f"    -> seat {ev['winner']} wins {ev['points']} points")
        elif kind == "result":
            lines.append(
                f"defenders {ev['trick_points']} from tricks, kitty bonus {ev['kitty_bonus']} "
                f"(x{ev['kitty_mult']}), penalty {ev['penalty']}: total {ev['defenders_total']}; "
                f"{ev['winner']} +{ev['levels']}; next dealer seat {ev['next_dealer']}"
            )
    return "\n".join(lines)
