"""What one seat may know at one moment of a hand (fastsheng.Game.observation).

An :class:`Observation` holds only public facts and the seat's own cards: its hand, every call
shown, the trump and dealer once fixed, the kitty only if the seat buried it (or is burying it
now), every trick so far and the trick in progress, the defenders' points, the voids revealed
by the play (pair-voids too), the trick in progress's attempted lead and the seats barred from
trumping it, and whose turn it is. It references nothing of the game: worlds are dealt from a
sealed copy of the public state alone (bytes). Two games that differ only in cards the seat
cannot see give it equal observations (tests/test_game.py checks this with hypothesis).
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any

import numpy as np

from fastsheng._state import fill_slots
from fastsheng.cards import points_of

__all__ = ["Observation", "Show", "TrickRecord", "TENSOR_SHAPE"]

# How a world is dealt from a sealed public state: fastsheng.engine.game registers its function
# here when imported (the game imports this module, so this one cannot import the game without
# a cycle). A plain function of the public bytes: nothing of any real game is reachable.
_WORLD_MAKER: list[Any] = []


def register_world_maker(make: Any) -> None:
    """Set the function Observation.sample_world deals its worlds with (the game's)."""
    _WORLD_MAKER[:] = [make]


EFF_NAMES = ("S", "H", "C", "D", "T")  # effective suits: the four side suits and trump


@dataclass(frozen=True, slots=True)
class Show:
    """A call: declare, reinforce or overcall (`after_burial`: a 炒底 overcall)."""

    seat: int
    action: str
    cards: tuple[int, ...]
    after_burial: bool


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """A finished trick. `plays[i]` is the cards of the i-th player from the leader (plays[0]
    what was actually led); `attempted` the cards the leader tried (a failed throw is longer)."""

    leader: int
    attempted: tuple[int, ...]
    failed: bool
    plays: tuple[tuple[int, ...], ...]
    winner: int
    points: int


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything `seat` may know now. Cards are codes (fastsheng.cards); seats 0..3."""

    seat: int
    phase: str  # "declare" | "bury" | "chaodi" | "play" | "done"
    to_act: int  # the seat whose decision it is (-1 when the hand is over)
    decision: str | None  # "declare" | "bury" | "lead" | "follow" | None
    level: int  # the hand's level rank, 0 ("2") .. 12 ("A")
    dealer: int | None  # None while a hand 1's calls decide it
    trump: int | None  # 0..3 (S H C D), 4 no trump; None while calls are open
    standing_call: tuple[int, int] | None  # (seat, trump) of the standing call while calls are open
    hand: tuple[int, ...]  # own cards, sorted
    kitty: tuple[int, ...] | None  # the kitty, when this seat buried it or is burying it
    burier: int | None  # the seat that buried the kitty last
    shows: tuple[Show, ...]
    tricks: tuple[TrickRecord, ...]
    current_trick: tuple[tuple[int, tuple[int, ...]], ...]  # (seat, cards) played so far
    defender_points: int  # the defenders' points from tricks so far
    hand_sizes: tuple[int, int, int, int]
    voids: tuple[int, int, int, int]  # bit e: the seat showed it is void in effective suit e
    eff: tuple[int, ...]  # effective suit of each code 0..53 (0..3 side suits, 4 trump)
    picked: tuple[int, ...]  # cards chosen so far in the card-by-card form (own turn only)
    nopairs: tuple[int, int, int, int] = (0, 0, 0, 0)  # bit e: the seat showed it holds no pair
    # of effective suit e (it answered a pair lead of e without all the pairs asked)
    lead_attempt: tuple[int, ...] = ()  # the trick in progress: the cards its leader tried
    lead_failed: bool = False  # ... and whether that throw failed (lead_attempt is then longer)
    barred: tuple[int, ...] = ()  # seats that cannot win the trick in progress by trumping
    # (the dealer's partner after the dealer side's failed throw, under that rule)
    # private, sealed: the bytes of the public state (the game with every card this seat cannot
    # see laid out canonically and the real deal's traces removed) that worlds are dealt from,
    # the rules and the hand's batch; nothing else of the game is referenced
    _public: bytes | None = field(default=None, compare=False, repr=False)
    _rules: Any = field(default=None, compare=False, repr=False)
    _batch: int = field(default=0, compare=False, repr=False)

    def sample_world(self, rng: Any = None) -> Any:
        """A fastsheng.Game consistent with this observation: this seat's cards and the public
        record as they are, every hidden card redealt (Game.sample_world). `rng`: a
        random.Random, a numpy Generator or RandomState, an int seed or None."""
        if self._public is None:
            raise ValueError("this observation was not made by fastsheng.Game.observation")
        return _WORLD_MAKER[0](self._public, self._rules, self._batch, self.picked, rng)

    def void_suits(self, seat: int) -> frozenset[str]:
        """The effective suits `seat` showed it lacks ("S", "H", "C", "D", "T" = trump)."""
        return frozenset(EFF_NAMES[e] for e in range(5) if self.voids[seat] >> e & 1)

    def to_tensor(self) -> np.ndarray:
        """A fixed-shape float32 array (``TENSOR_SHAPE``) for learning, seats rotated so that row
        blocks start with this seat. Planes over the 54 card codes (copies 0, 1, 2 as 0, .5, 1):
        own hand; cards played by each seat (4); the current trick's cards of each seat (4); the
        known kitty; shown and unplayed cards of each seat (4); trump cards; point cards; the
        picked cards; the trick in progress's attempted lead; the pair-voids (4 x 5 bits at
        5 * seat + suit); one reserved plane. Then one plane of scalars: phase one-hot (5),
        decision one-hot (4), dealer relative seat one-hot (4), level/12, defender points/200,
        tricks done/25, hand sizes/33 (4), voids (4 x 5 bits), the lead failed, the seats
        barred from trumping (4) — zero-padded to 54. Offsets: the constants below
        (docs/game.md)."""
        return _tensor(self)

    def to_bytes(self, *, rules: bool = True) -> bytes:
        """The observation as bytes that :meth:`from_bytes` turns back into an equal one (and
        that deals the same worlds): what this seat may know and nothing else, every public
        field, the sealed public state the worlds are dealt from, the hand's batch number and,
        unless ``rules=False``, the rules (public: a run's process that sends many
        observations sends the rules once). A fixed layout of JSON and raw bytes, no pickle:
        reading them runs no code. How an isolated bot gets its observation
        (fastsheng.engine.isolation)."""
        return _to_bytes(self, rules)

    @classmethod
    def from_bytes(cls, data: bytes, rules: Any = None) -> Observation:
        """The observation :meth:`to_bytes` wrote. `rules`: the Rules, when they were left
        out of the bytes. ValueError for bytes that are not an observation."""
        return _from_bytes(data, rules)


# to_bytes: magic and version, then six sections, each its length (4 bytes) and its bytes: the
# JSON of the small fields (and the batch), of the calls shown, of the finished tricks, of the
# effective suits, of the rules (empty: left out), and the sealed public state (empty: none).
# The calls, tricks, suits and rules change rarely within a hand, so both ends keep their last
# section: a hand's observations mostly reuse it (the encoder keyed by the very tuple, which it
# holds, the decoder by the section's bytes).
_MAGIC = b"FSOB\x02"
_LEN = struct.Struct(">I")
_SCALARS = (
    "seat",
    "phase",
    "to_act",
    "decision",
    "level",
    "dealer",
    "trump",
    "standing_call",
    "hand",
    "kitty",
    "burier",
    "current_trick",
    "defender_points",
    "hand_sizes",
    "voids",
    "picked",
    "nopairs",
    "lead_attempt",
    "lead_failed",
    "barred",
)
_ENCODED: dict[str, tuple[Any, bytes]] = {}
_DECODED: dict[int, tuple[bytes, Any]] = {}


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _encoded(name: str, key: Any, make: Any) -> bytes:
    hit = _ENCODED.get(name)
    if hit is None or hit[0] is not key:
        hit = _ENCODED[name] = (key, _dumps(make()))
    return hit[1]


def _to_bytes(o: Observation, with_rules: bool) -> bytes:
    scalars = [getattr(o, k) for k in _SCALARS]
    scalars.append(o._batch)
    rules = o._rules if with_rules else None
    parts = (
        _dumps(scalars),
        _encoded("shows", o.shows, lambda: _rows(o.shows, _SHOW)),
        _encoded("tricks", o.tricks, lambda: _rows(o.tricks, _TRICK)),
        _encoded("eff", o.eff, lambda: o.eff),
        b"" if rules is None else _encoded("rules", rules, rules.to_dict),
        o._public or b"",
    )
    return _MAGIC + b"".join(_LEN.pack(len(p)) + p for p in parts)


_SHOW = ("seat", "action", "cards", "after_burial")
_TRICK = ("leader", "attempted", "failed", "plays", "winner", "points")


def _rows(records: tuple, names: tuple[str, ...]) -> list[list[Any]]:
    return [[getattr(r, f) for f in names] for r in records]


def _ints(x: Any) -> tuple[int, ...]:
    if not isinstance(x, list) or not all(type(v) is int for v in x):
        raise ValueError(f"not a list of ints: {x!r}"[:200])
    return tuple(x)


def _opt(x: Any, kind: Any) -> Any:
    return None if x is None else kind(x)


def _shows(d: list) -> tuple[Show, ...]:
    return tuple(
        Show(int(seat), str(action), _ints(cards), bool(after)) for seat, action, cards, after in d
    )


def _tricks(d: list) -> tuple[TrickRecord, ...]:
    return tuple(
        TrickRecord(
            int(leader),
            _ints(attempted),
            bool(failed),
            tuple(_ints(p) for p in plays),
            int(winner),
            int(points),
        )
        for leader, attempted, failed, plays, winner, points in d
    )


def _rules_of(d: dict) -> Any:
    from fastsheng.rules import Rules

    return Rules.from_dict(d)


def _section(k: int, raw: bytes, make: Any) -> Any:
    hit = _DECODED.get(k)
    if hit is None or hit[0] != raw:
        hit = _DECODED[k] = (raw, make(json.loads(raw)))
    return hit[1]


def _from_bytes(data: bytes, rules: Any) -> Observation:
    data = bytes(data)
    if not data.startswith(_MAGIC):
        raise ValueError("not an observation's bytes (Observation.to_bytes)")
    at, parts = len(_MAGIC), []
    try:
        for _ in range(6):
            (n,) = _LEN.unpack_from(data, at)
            parts.append(data[at + 4 : at + 4 + n])
            at += 4 + n
        if at != len(data):
            raise ValueError(f"{len(data) - at} bytes past the end")
        d = json.loads(parts[0])
        if not isinstance(d, list) or len(d) != len(_SCALARS) + 1:
            raise ValueError("the fields are not a list of the observation's fields")
        f = dict(zip((*_SCALARS, "batch"), d, strict=True))
        if parts[4]:
            rules = _section(4, parts[4], _rules_of)
        return make_observation(
            int(f["seat"]),
            str(f["phase"]),
            int(f["to_act"]),
            _opt(f["decision"], str),
            int(f["level"]),
            _opt(f["dealer"], int),
            _opt(f["trump"], int),
            _opt(f["standing_call"], _ints),
            _ints(f["hand"]),
            _opt(f["kitty"], _ints),
            _opt(f["burier"], int),
            _section(1, parts[1], _shows),
            _section(2, parts[2], _tricks),
            tuple((int(s), _ints(cards)) for s, cards in f["current_trick"]),
            int(f["defender_points"]),
            _ints(f["hand_sizes"]),
            _ints(f["voids"]),
            _section(3, parts[3], _ints),
            _ints(f["picked"]),
            _ints(f["nopairs"]),
            _ints(f["lead_attempt"]),
            bool(f["lead_failed"]),
            _ints(f["barred"]),
            parts[5] or None,
            rules,
            int(f["batch"]),
        )
    except (struct.error, TypeError, ValueError) as e:
        raise ValueError(f"not an observation's bytes: {type(e).__name__}: {e}"[:300]) from None


# Game.observation makes one at every decision of a Python bot: filling the slots directly gives
# the same object as Observation(*values), several times faster (tests/test_game.py checks it)
_SLOTS = tuple(Observation.__dict__[f.name] for f in fields(Observation))


def make_observation(*values: Any) -> Observation:
    """``Observation(*values)`` (every field, `_world` included, in order), built fast."""
    return fill_slots(Observation, _SLOTS, values)


# the tensor's layout (docs/game.md): planes over the 54 card codes, then the scalars' row
PLANE_HAND = 0
PLANE_PLAYED = 1  # 4 planes, relative seat 0 (this seat) first
PLANE_TRICK = 5  # 4 planes: the trick in progress's cards of each seat
PLANE_KITTY = 9
PLANE_SHOWN = 10  # 4 planes: shown and unplayed cards of each seat
PLANE_TRUMP = 14
PLANE_POINTS = 15
PLANE_PICKED = 16
PLANE_ATTEMPT = 17  # the cards the trick in progress's leader tried (a failed throw: more)
PLANE_NOPAIRS = 18  # not over cards: 5 * relative seat + effective suit, 1 = holds no pair
PLANE_RESERVED = 19
N_PLANES = 20
SC_PHASE = 0  # 5, one-hot
SC_DECISION = 5  # 4, one-hot
SC_DEALER = 9  # 4, the dealer's relative seat one-hot
SC_LEVEL = 13
SC_POINTS = 14
SC_TRICKS = 15
SC_HAND_SIZES = 16  # 4
SC_VOIDS = 20  # 4 x 5 bits
SC_LEAD_FAILED = 40
SC_BARRED = 41  # 4, relative seats barred from winning the trick in progress by trumping
TENSOR_SHAPE = (N_PLANES + 1, 54)
#: (name, first plane, planes): the planes in order; a test checks they tile 0..N_PLANES
PLANE_LAYOUT = (
    ("hand", PLANE_HAND, 1),
    ("played", PLANE_PLAYED, 4),
    ("trick", PLANE_TRICK, 4),
    ("kitty", PLANE_KITTY, 1),
    ("shown", PLANE_SHOWN, 4),
    ("trump", PLANE_TRUMP, 1),
    ("points", PLANE_POINTS, 1),
    ("picked", PLANE_PICKED, 1),
    ("attempt", PLANE_ATTEMPT, 1),
    ("nopairs", PLANE_NOPAIRS, 1),
    ("reserved", PLANE_RESERVED, 1),
)
#: (name, first slot, slots) of the scalar plane (the last one), in order
SCALAR_LAYOUT = (
    ("phase", SC_PHASE, 5),
    ("decision", SC_DECISION, 4),
    ("dealer", SC_DEALER, 4),
    ("level", SC_LEVEL, 1),
    ("points", SC_POINTS, 1),
    ("tricks", SC_TRICKS, 1),
    ("hand_sizes", SC_HAND_SIZES, 4),
    ("voids", SC_VOIDS, 20),
    ("lead_failed", SC_LEAD_FAILED, 1),
    ("barred", SC_BARRED, 4),
)
_PHASES = ("declare", "bury", "chaodi", "play", "done")
_DECISIONS = ("declare", "bury", "lead", "follow")
_POINTS = np.array([points_of(c) / 10 for c in range(54)], np.float32)  # a card's points / 10


@lru_cache(maxsize=16)
def _trump_plane(eff: tuple[int, ...]) -> np.ndarray:
    """1 for the trump codes (one hand's observations share its `eff`)."""
    return (np.array(eff, np.int8) == 4).astype(np.float32)


# the played and shown-unplayed planes of recent records: Game.observation shares its `tricks`
# and `shows` tuples until a trick ends, so most observations reuse them (kept with the tuples
# themselves, so an id cannot be reused while cached)
_PAST: dict[tuple[int, int, int], tuple[tuple, tuple, list[int]]] = {}


def _past_indices(o: Observation, rel: dict[int, int]) -> list[int]:
    """Flat indices of the cards each seat played (planes 1-4) and of its shown cards not yet
    played (planes 10-13)."""
    key = (id(o.tricks), id(o.shows), o.seat)
    hit = _PAST.get(key)
    if hit is not None and hit[0] is o.tricks and hit[1] is o.shows:
        return hit[2]
    idx: list[int] = []
    played: list[list[int]] = [[], [], [], []]
    for t in o.tricks:
        for i, p in enumerate(t.plays):
            played[(t.leader + i) % 4].extend(p)
    shown_left: list[list[int]] = [[], [], [], []]
    for s in o.shows:
        shown_left[s.seat] = list(s.cards) if len(s.cards) >= len(shown_left[s.seat]) else []
    for s, k in rel.items():
        off = (PLANE_PLAYED + k) * 54
        idx.extend([off + c for c in played[s]])
        left = shown_left[s]
        for c in played[s]:
            if c in left:
                left.remove(c)
        off = (PLANE_SHOWN + k) * 54
        idx.extend([off + c for c in left])
    if len(_PAST) >= 32:
        _PAST.clear()
    _PAST[key] = (o.tricks, o.shows, idx)
    return idx


def _tensor(o: Observation) -> np.ndarray:
    # every card copy becomes one flat index plane * 54 + code, counted at once by bincount
    # (a loop of per-card adds costs several times more; the environment calls this every step)
    rel = {(o.seat + k) % 4: k for k in range(4)}
    idx = list(o.hand)
    idx.extend(_past_indices(o, rel))
    for seat, cards in o.current_trick:
        off = (PLANE_TRICK + rel[seat]) * 54
        idx.extend([off + c for c in cards])
    if o.kitty:
        idx.extend([PLANE_KITTY * 54 + c for c in o.kitty])
    idx.extend([PLANE_PICKED * 54 + c for c in o.picked])
    idx.extend([PLANE_ATTEMPT * 54 + c for c in o.lead_attempt])
    x = np.bincount(np.array(idx, np.intp), minlength=TENSOR_SHAPE[0] * 54).astype(np.float32)
    x *= 0.5
    x = x.reshape(TENSOR_SHAPE)
    if o.trump is not None:
        x[PLANE_TRUMP] = _trump_plane(o.eff)
    x[PLANE_POINTS] = _POINTS
    sc = x[N_PLANES]
    sc[SC_PHASE + _PHASES.index(o.phase)] = 1
    if o.decision:
        sc[SC_DECISION + _DECISIONS.index(o.decision)] = 1
    if o.dealer is not None:
        sc[SC_DEALER + (o.dealer - o.seat) % 4] = 1
    sc[SC_LEVEL] = o.level / 12
    sc[SC_POINTS] = o.defender_points / 200
    sc[SC_TRICKS] = len(o.tricks) / 25
    for s, k in rel.items():
        sc[SC_HAND_SIZES + k] = o.hand_sizes[s] / 33
        v = o.voids[s]
        sc[SC_VOIDS + 5 * k : SC_VOIDS + 5 + 5 * k] = [v >> e & 1 for e in range(5)]
        v = o.nopairs[s]
        if v:
            x[PLANE_NOPAIRS, 5 * k : 5 * k + 5] = [v >> e & 1 for e in range(5)]
    sc[SC_LEAD_FAILED] = o.lead_failed
    for s in o.barred:
        sc[SC_BARRED + rel[s]] = 1
    return x
