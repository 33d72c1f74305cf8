"""The step API's fast paths (bench/bench_game.py) build exactly what the plain ones would:
observations from one core call, dataclasses filled slot by slot, shared card Actions, plays
built card by card committed without a second legality check."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from fastsheng import _state
from fastsheng.engine import observation as obs_mod
from fastsheng.engine.agents import RandomBot
from fastsheng.engine.game import Action, Game
from fastsheng.engine.observation import Observation, make_observation


def plain_fields(g: Game, seat: int) -> dict:
    """The observation's core-derived fields read one accessor at a time (the plain path)."""
    core = g._core
    decision, to_act = core.pending
    trump = core.trump
    leader, plays = core.trick()
    standing = None
    if trump < 0 and 0 <= core.standing_seat < 4:
        standing = (core.standing_seat, core.standing_trump)
    return {
        "phase": core.phase,
        "decision": decision,
        "to_act": to_act,
        "level": core.level,
        "trump": None if trump < 0 else trump,
        "standing_call": standing,
        "hand": tuple(core.hand(seat)),
        "kitty": tuple(core.kitty()) if core.kitty_known(seat) else None,
        "current_trick": tuple(((leader + i) % 4, tuple(p)) for i, p in enumerate(plays)),
        "defender_points": core.defender_points,
        "hand_sizes": tuple(core.hand_size(s) for s in range(4)),
        "voids": tuple(core.void_mask(s) for s in range(4)),
    }


def random_walk(preset: str, hand_id: int, every=None):
    """Play a hand with RandomBot at four seats (card by card where offered), calling
    `every(g)` at each decision."""
    g = Game(preset, seed=5, hand_id=hand_id, level="random", first_hand=hand_id % 2 == 1)
    bots = [RandomBot() for _ in range(4)]
    for s, b in enumerate(bots):
        b.reset(s, g.rules, random.Random(hand_id * 4 + s))
    while g.phase != "done":
        if every is not None:
            every(g)
        s = g.to_act
        g.apply(bots[s].act(g.observation(s), g.legal_actions()))
    return g


def _add(plane: np.ndarray, cards) -> None:
    for c in cards:
        plane[c] += 0.5


def plain_tensor(o: Observation) -> np.ndarray:
    """Observation.to_tensor as first written, a card at a time (the reference)."""
    x = np.zeros(obs_mod.TENSOR_SHAPE, np.float32)
    rel = [(o.seat + k) % 4 for k in range(4)]
    _add(x[0], o.hand)
    played = [[] for _ in range(4)]
    for t in o.tricks:
        for i, p in enumerate(t.plays):
            played[(t.leader + i) % 4].extend(p)
    shown_left = [[] for _ in range(4)]
    for s in o.shows:
        shown_left[s.seat] = list(s.cards) if len(s.cards) >= len(shown_left[s.seat]) else []
    for k, s in enumerate(rel):
        _add(x[1 + k], played[s])
    for seat, cards in o.current_trick:
        _add(x[5 + rel.index(seat)], cards)
    if o.kitty:
        _add(x[9], o.kitty)
    for k, s in enumerate(rel):
        left = list(shown_left[s])
        for c in played[s]:
            if c in left:
                left.remove(c)
        _add(x[10 + k], left)
    x[14] = np.array([e == 4 for e in o.eff], np.float32) if o.trump is not None else 0
    x[15] = obs_mod._POINTS
    _add(x[16], o.picked)
    sc = x[obs_mod.N_PLANES]
    sc[obs_mod._PHASES.index(o.phase)] = 1
    if o.decision:
        sc[5 + obs_mod._DECISIONS.index(o.decision)] = 1
    if o.dealer is not None:
        sc[9 + (o.dealer - o.seat) % 4] = 1
    sc[13] = o.level / 12
    sc[14] = o.defender_points / 200
    sc[15] = len(o.tricks) / 25
    for k, s in enumerate(rel):
        sc[16 + k] = o.hand_sizes[s] / 33
        for e in range(5):
            sc[20 + 5 * k + e] = o.voids[s] >> e & 1
            x[18, 5 * k + e] = o.nopairs[s] >> e & 1  # pair-voids
    _add(x[17], o.lead_attempt)  # the trick in progress's attempted lead
    sc[40] = o.lead_failed
    for s in o.barred:
        sc[41 + rel.index(s)] = 1
    return x


@pytest.mark.parametrize("preset", ["standard", "super", "classic"])
def test_observation_fields_equal_the_core_accessors(preset):
    def check(g: Game) -> None:
        for seat in range(4):
            o = g.observation(seat)
            for name, value in plain_fields(g, seat).items():
                assert getattr(o, name) == value, (name, g.phase)
            # filled slot by slot, it is the object the dataclass constructor makes
            values = {f.name: getattr(o, f.name) for f in dataclasses.fields(o)}
            plain = Observation(**values)
            assert o == plain and repr(o) == repr(plain) and hash(o) == hash(plain)
            assert np.array_equal(o.to_tensor(), plain_tensor(o))  # the vectorized tensor

    for k in range(6):
        random_walk(preset, k, check)


def test_fill_slots_checks_its_arguments():
    slots = tuple(Observation.__dict__[f.name] for f in dataclasses.fields(Observation))
    with pytest.raises(ValueError, match="values for"):
        _state.fill_slots(Observation, slots, (1, 2))
    with pytest.raises(TypeError, match="not a slot descriptor"):
        _state.fill_slots(Observation, (1,) * len(slots), tuple(range(len(slots))))
    o = make_observation(*range(len(slots)))
    assert o.seat == 0 and o.hand == 8 and o._batch == len(slots) - 1


def test_card_actions_are_shared_and_equal_to_fresh_ones():
    g = Game("standard", seed=3, hand_id=0)
    while g.decision != "bury":
        g.apply(g.bot_action("expert"))
    first = g.legal_actions()
    assert all(a.kind == "card" for a in first)
    assert first == tuple(Action("card", (c,), i) for i, c in enumerate(g.legal_cards()))
    assert all(a is b for a, b in zip(first, g.legal_actions(), strict=True))  # made once
    # an equal Action that was not offered goes through the checked path and is applied too
    g.apply(Action("card", first[0].cards, first[0].id))
    assert g.picked == first[0].cards
    again = g.legal_actions()
    g.apply(again[0])  # the shared object, offered again in this state
    assert g.picked == tuple(sorted(first[0].cards + again[0].cards))


@pytest.mark.parametrize("preset", ["standard", "super", "tournament"])
def test_plays_built_card_by_card_are_legal(preset):
    """Plays completed from offered cards skip the second check in Python: the C loop, which
    checks every decision it is given (and counts the bad ones), must find none."""
    card_by_card = 0

    def count(g: Game) -> None:
        nonlocal card_by_card
        card_by_card += g.decision != "declare" and g.legal_actions()[0].kind == "card"

    for k in range(8):
        g = random_walk(preset, k, count)
        assert g.phase == "done" and g._core.errors == 0
        for t in g.observation(0).tricks:
            assert len({len(p) for p in t.plays}) == 1  # every follow as long as the lead
    assert card_by_card > 50


def test_the_named_tensor_offsets_tile_the_shape():
    """The tensor's named planes and scalar slots follow each other without gap or overlap and
    fill the shape (the offsets are names, not bare numbers)."""
    for layout, end in ((obs_mod.PLANE_LAYOUT, obs_mod.N_PLANES), (obs_mod.SCALAR_LAYOUT, None)):
        at = 0
        for name, first, width in layout:
            assert first == at, (name, first, at)
            at += width
        if end is not None:
            assert at == end
        assert at <= obs_mod.TENSOR_SHAPE[1]
    assert obs_mod.TENSOR_SHAPE == (obs_mod.N_PLANES + 1, 54)
    g = Game("standard", seed=3)
    assert g.observation(0).to_tensor().shape == obs_mod.TENSOR_SHAPE
