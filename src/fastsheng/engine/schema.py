"""The tables a batch of hands returns: the C rows' numpy dtypes (checked against the core's
struct sizes), the names of coded values, every column's meaning (``fastsheng sim`` documents
them), and the C rows turned into Arrow tables."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from fastsheng import _game
from fastsheng.cards import RANKS
from fastsheng.rules import Rules

__all__ = [
    "HAND_COLUMNS",
    "HAND_DTYPE",
    "MATCH_COLUMNS",
    "MATCH_DTYPE",
    "TRICK_COLUMNS",
    "TRICK_DTYPE",
    "BOT_STREAMS",
    "dict_col",
    "hands_table",
    "run_columns",
    "matches_table",
    "tricks_table",
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
    "forfeit": "uint8, null when the hand was played out (isolated runs only): the seat whose "
    "isolated bot failed (too slow, out of memory, crashed, an illegal answer); its team "
    "forfeits the hand, scored as a defenders' total of 0 (it defended) or 200 (it dealt)",
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


def dict_col(values: np.ndarray, names: Sequence[str]) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(
        pa.array(values.astype(np.int8), pa.int8()), pa.array(list(names), pa.string())
    )


def _const_dict(value: str, n: int) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(
        pa.array(np.zeros(n, np.int8), pa.int8()), pa.array([value], pa.string())
    )


def run_columns(n: int, batch: int, rules: Rules, names) -> dict[str, pa.Array]:
    """The columns every table carries, so runs concatenate and group: batch, rules, bots."""
    return {
        "batch": pa.array(np.full(n, batch, np.uint32)),
        "rules": _const_dict(rules.name, n),
        "bots": _const_dict(",".join(names), n),
    }


def hands_table(rows: np.ndarray, batch: int, rules: Rules, names, matches_mode: bool) -> pa.Table:
    n = len(rows)
    cols: dict[str, pa.Array] = {
        "hand_id": pa.array(rows["hand_id"]),
        **run_columns(n, batch, rules, names),
    }
    if matches_mode:
        cols["match_id"] = pa.array(rows["match_id"])
        cols["hand_no"] = pa.array(rows["hand_no"])
        cols["level_team0"] = dict_col(rows["level_team0"], RANKS)
        cols["level_team1"] = dict_col(rows["level_team1"], RANKS)
    declarer = rows["declarer"]
    cols.update(
        {
            "level": dict_col(rows["level"], RANKS),
            "dealer": pa.array(rows["dealer"]),
            "first_seat": pa.array(rows["first_seat"]),
            "declarer": pa.array(declarer, pa.uint8(), mask=declarer == 255),
            "final_caller": pa.array(
                rows["final_caller"], pa.uint8(), mask=rows["final_caller"] == 255
            ),
            "burier": pa.array(rows["burier"]),
            "trump": dict_col(rows["trump"], TRUMP_NAMES),
            "trump_set": dict_col(rows["trump_set"], TRUMP_SET_NAMES),
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
            "last_lead_kind": dict_col(rows["last_lead_kind"], KIND_NAMES),
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
            "winner": dict_col(rows["winner"], SIDE_NAMES),
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


def matches_table(rows: np.ndarray, batch: int, rules: Rules, names) -> pa.Table:
    n = len(rows)
    return pa.table(
        {
            "match_id": pa.array(rows["match_id"]),
            "hand_id": pa.array(rows["first_hand_id"]),
            **run_columns(n, batch, rules, names),
            "winner": dict_col(rows["winner"], MATCH_WINNER_NAMES),
            "hands": pa.array(rows["hands"]),
            "level_team0": dict_col(rows["level_team0"], RANKS),
            "level_team1": dict_col(rows["level_team1"], RANKS),
            "first_dealer": pa.array(rows["first_dealer"]),
            "capped": pa.array(rows["capped"].astype(bool)),
        }
    )


def tricks_table(rows: np.ndarray, codes: np.ndarray, batch: int, rules: Rules, names) -> pa.Table:
    n = len(rows)
    ncards = rows["ncards"].astype(np.int64)
    at = rows["codes_at"].astype(np.int64)
    cols: dict[str, pa.Array] = {
        "hand_id": pa.array(rows["hand_id"]),
        **run_columns(n, batch, rules, names),
        "trick": pa.array(rows["trick_no"]),
        "leader": pa.array(rows["leader"]),
        "winner": pa.array(rows["winner"]),
        "points": pa.array(rows["points"]),
        "lead_kind": dict_col(rows["lead_kind"], KIND_NAMES),
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
