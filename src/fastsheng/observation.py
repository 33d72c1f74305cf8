"""What one seat may know at one moment of a hand (fastsheng.Game.observation).

An :class:`Observation` holds only public facts and the seat's own cards: its hand, every call
shown, the trump and dealer once fixed, the kitty only if the seat buried it (or is burying it
now), every trick so far and the trick in progress, the defenders' points, the voids revealed
by the play, and whose turn it is. Two games that differ only in cards the seat cannot see give
it equal observations (tests/test_game.py checks this with hypothesis).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any

import numpy as np

from fastsheng._state import fill_slots

__all__ = ["Observation", "Show", "TrickRecord", "TENSOR_SHAPE"]

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
    # private: draws a world consistent with this observation (fastsheng.agents.BuiltinBot);
    # not part of what is compared or shown
    _world: Callable[[Any], Any] | None = field(default=None, compare=False, repr=False)

    def sample_world(self, rng: Any = None) -> Any:
        """A fastsheng.Game consistent with this observation: this seat's cards and the public
        record as they are, every hidden card redealt (Game.sample_world)."""
        if self._world is None:
            raise ValueError("this observation was not made by fastsheng.Game.observation")
        return self._world(rng)

    def void_suits(self, seat: int) -> frozenset[str]:
        """The effective suits `seat` showed it lacks ("S", "H", "C", "D", "T" = trump)."""
        return frozenset(EFF_NAMES[e] for e in range(5) if self.voids[seat] >> e & 1)

    def to_tensor(self) -> np.ndarray:
        """A fixed-shape float32 array (``TENSOR_SHAPE``) for learning, seats rotated so that row
        blocks start with this seat. Planes over the 54 card codes (copies 0, 1, 2 as 0, .5, 1):
        own hand; cards played by each seat (4); the current trick's cards of each seat (4); the
        known kitty; shown and unplayed cards of each seat (4); trump cards; point cards; the
        picked cards. Then one plane of scalars: phase one-hot (5), decision one-hot (4), dealer
        relative seat one-hot (4), level/12, defender points/200, tricks done/25, hand sizes/33
        (4), voids (4 x 5 bits) — zero-padded to 54."""
        return _tensor(self)


# Game.observation makes one at every decision of a Python bot: filling the slots directly gives
# the same object as Observation(*values), several times faster (tests/test_game.py checks it)
_SLOTS = tuple(Observation.__dict__[f.name] for f in fields(Observation))


def make_observation(*values: Any) -> Observation:
    """``Observation(*values)`` (every field, `_world` included, in order), built fast."""
    return fill_slots(Observation, _SLOTS, values)


N_PLANES = 20
TENSOR_SHAPE = (N_PLANES + 1, 54)
_PHASES = ("declare", "bury", "chaodi", "play", "done")
_DECISIONS = ("declare", "bury", "lead", "follow")
_POINTS = np.zeros(54, np.float32)
for _c in range(52):
    _POINTS[_c] = {3: 0.5, 8: 1.0, 11: 1.0}.get(_c % 13, 0.0)


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
        off = (1 + k) * 54
        idx.extend([off + c for c in played[s]])
        left = shown_left[s]
        for c in played[s]:
            if c in left:
                left.remove(c)
        off = (10 + k) * 54
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
        off = (5 + rel[seat]) * 54
        idx.extend([off + c for c in cards])
    if o.kitty:
        idx.extend([9 * 54 + c for c in o.kitty])
    idx.extend([16 * 54 + c for c in o.picked])
    x = np.bincount(np.array(idx, np.intp), minlength=TENSOR_SHAPE[0] * 54).astype(np.float32)
    x *= 0.5
    x = x.reshape(TENSOR_SHAPE)
    if o.trump is not None:
        x[14] = _trump_plane(o.eff)
    x[15] = _POINTS
    sc = x[N_PLANES]
    sc[_PHASES.index(o.phase)] = 1
    if o.decision:
        sc[5 + _DECISIONS.index(o.decision)] = 1
    if o.dealer is not None:
        sc[9 + (o.dealer - o.seat) % 4] = 1
    sc[13] = o.level / 12
    sc[14] = o.defender_points / 200
    sc[15] = len(o.tricks) / 25
    for s, k in rel.items():
        sc[16 + k] = o.hand_sizes[s] / 33
        v = o.voids[s]
        sc[20 + 5 * k : 25 + 5 * k] = [v & 1, v >> 1 & 1, v >> 2 & 1, v >> 3 & 1, v >> 4 & 1]
    return x
