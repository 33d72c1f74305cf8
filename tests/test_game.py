"""The step API (fastsheng.Game): it is the simulator's own loop, its legal actions are the
reference's legal plays, an observation leaks nothing, and sampled worlds are consistent and
uniform where the constraints allow."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastsheng as fs
from fastsheng import reference
from fastsheng.bots.names import resolve_bot
from fastsheng.cards import RANKS, SUITS
from fastsheng.engine.game import Action, Game
from fastsheng.engine.hands import simulate_hands, trace_hand
from fastsheng.rules import list_presets


def play_out(g: Game, bot: str = "expert") -> Game:
    while g.phase != "done":
        g.apply(g.bot_action(bot))
    return g


def strip(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "bots"}


def equivalence(preset: str, n: int, bot: str, **kw) -> None:
    rows = simulate_hands(preset, bot, seed=41, n=n, **kw).to_pylist()
    for k, row in enumerate(rows):
        g = play_out(Game(preset, seed=41, hand_id=k, **kw), bot)
        assert strip(g.result()) == strip(row), (preset, k)
        assert g.result()["bots"] == ",".join([resolve_bot(bot)] * 4)


@pytest.mark.parametrize("preset", list_presets())
def test_step_api_with_builtin_bots_is_the_simulator(preset):
    """1,000 hands per preset at random levels: the same rows, field for field."""
    equivalence(preset, 1000, "expert", level="random")


@pytest.mark.parametrize("preset", ["standard", "super", "tournament"])
def test_step_api_reproduces_random_bots_and_hand_one(preset):
    """Random bots draw from the bots' stream: the step API draws exactly as the simulator;
    hand-1 rules (dealer by the calls, redeals) too."""
    equivalence(preset, 200, "random", level="random", first_hand=True)
    equivalence(preset, 200, "basic", level="random", batch_size=64)


@pytest.mark.parametrize("preset", ["super", "standard"])
def test_trace_is_the_simulators_trace(preset):
    """Game.trace(): the same events as trace_hand for that hand (first hand and redeals too)."""
    for k, first in ((0, False), (3, True), (7, False)):
        g = Game(preset, seed=13, hand_id=k, level="random", first_hand=first)
        partial = len(g.trace())
        play_out(g)
        want = trace_hand(preset, "expert", 13, 0, k, 10_000, level="random", first_hand=first)
        assert g.trace() == want["events"]
        assert 0 < partial < len(want["events"])  # the trace grows as the hand is played
        assert g.trace()[-1]["type"] == "result"


@pytest.mark.slow
@pytest.mark.parametrize("preset", list_presets())
def test_step_api_is_the_simulator_10k(preset):
    equivalence(preset, 10_000, "expert", level="random")


# ---------------------------------------------------------------------------------------------
# Legal actions against the reference


def advance_to(g: Game, steps: int, kinds=("follow",)) -> bool:
    """Play `steps` bot decisions, then on to the next decision of one of `kinds`."""
    for _ in range(steps):
        if g.phase == "done":
            return False
        g.apply(g.bot_action("expert"))
    while g.phase != "done" and g.decision not in kinds:
        g.apply(g.bot_action("expert"))
    return g.phase != "done"


def ref_context(g: Game) -> reference.Context:
    o = g.observation(g.to_act)
    trump = None if o.trump == 4 else SUITS[o.trump]
    return reference.Context(g.rules, level=RANKS[o.level], trump=trump)


def contained(small: list[int], big: list[int]) -> bool:
    return not Counter(small) - Counter(big)


def test_legal_follows_match_the_reference_on_random_positions():
    rng = random.Random(20261201)
    checked_whole = checked_cards = 0
    for i in range(400):
        preset = rng.choice(list_presets())
        g = Game(preset, seed=rng.randrange(1000), hand_id=rng.randrange(100), level="random")
        if not advance_to(g, rng.randrange(40, 130)):
            continue
        seat = g.to_act
        hand = g.hand(seat)
        lead = g.observation(seat).current_trick[0][1]
        if math.comb(len(hand), len(lead)) > 3000:
            continue
        ref = {tuple(sorted(f)) for f in ref_context(g).legal_follows(hand, list(lead))}
        acts = g.legal_actions()
        if acts[0].kind == "follow":
            assert {a.cards for a in acts} == ref, i
            checked_whole += 1
        else:
            assert len(ref) > Game.MAX_ACTIONS
        # card by card: each offered card extends the picked ones to some legal follow
        picked: list[int] = []
        while g.decision == "follow" and g.to_act == seat:
            cards = g.legal_cards()
            want = {c for c in set(hand) if any(contained(picked + [c], list(f)) for f in ref)}
            assert set(cards) == want, (i, picked)
            c = rng.choice(cards)
            picked.append(c)
            g.apply_card(c)
            checked_cards += 1
    assert checked_whole > 100 and checked_cards > 100


def test_leads_are_every_set_of_one_suit():
    g = Game.from_position(
        "standard",
        "2",
        "S",
        0,
        [
            fs.parse_cards("AH AH KH 3C 4C"),
            fs.parse_cards("5H 6H 7H 8C 9C"),
            fs.parse_cards("5D 6D 7D 8D 9D"),
            fs.parse_cards("10D JD QD KD AD"),
        ],
        fs.parse_cards("2S 3S 4S 5S 6S 7S 8S 9S"),
    )
    assert g.decision == "lead" and g.to_act == 0
    acts = g.legal_actions()
    assert all(a.kind == "lead" for a in acts)
    # hearts AH AH KH: 3*2 - 1 = 5 sets; clubs 3C 4C: 3 sets
    assert len(acts) == 8
    assert tuple(fs.parse_cards("AH AH")) in {a.cards for a in acts}


def test_card_by_card_lead_and_done():
    g = Game("standard", seed=1, hand_id=3)
    advance_to(g, 0, kinds=("lead",))
    Game.MAX_ACTIONS = 0
    try:
        acts = g.legal_actions()
    finally:
        Game.MAX_ACTIONS = 64
    assert {a.kind for a in acts} == {"card"}
    seat = g.to_act
    first = acts[0].cards[0]
    g.apply(acts[0])
    same = g.legal_actions()
    assert same[-1].kind == "done" and same[-1].cards == (first,)
    eff = g._core.eff_of(first)
    assert all(g._core.eff_of(a.cards[0]) == eff for a in same[:-1])
    g.apply(same[-1])
    assert g.to_act != seat or g.decision != "lead"


def test_burial_card_by_card_completes_at_eight():
    g = Game("standard", seed=2, hand_id=0)
    advance_to(g, 0, kinds=("bury",))
    assert g.phase == "bury"
    seat = g.to_act
    pool = g._core.bury_pool()
    assert len(pool) == 33
    for _ in range(8):
        assert g.to_act == seat and g.decision == "bury"
        g.apply(g.legal_actions()[0])
    assert g.decision != "bury" or g.to_act != seat


# ---------------------------------------------------------------------------------------------
# Illegal plays name the rule


def test_illegal_follow_names_the_rule():
    g = Game.from_position(
        "standard",
        "2",
        "S",
        0,
        [
            fs.parse_cards("AH KH QH 3C 4C"),
            fs.parse_cards("5H 6H 7C 8C 9C"),
            fs.parse_cards("5D 6D 7D 8D 9D"),
            fs.parse_cards("10D JD QD KD AD"),
        ],
        fs.parse_cards("3S 3S 4S 5S 6S 7S 8S 9S"),
    )
    g.apply(fs.parse_cards("AH"))
    with pytest.raises(fs.IllegalPlay, match="must follow suit"):
        g.apply(fs.parse_cards("7C"))
    with pytest.raises(fs.IllegalPlay, match="does not hold"):
        g.apply(fs.parse_cards("AS"))
    with pytest.raises(fs.IllegalPlay, match="as many cards as the lead"):
        g.apply(fs.parse_cards("5H 6H"))
    with pytest.raises(fs.IllegalPlay, match="cannot be part of a legal follow"):
        g.apply_card(fs.parse_cards("7C")[0])
    g.apply(fs.parse_cards("5H"))
    assert g.to_act == 2


def test_illegal_lead_and_show():
    g = Game.from_position(
        "standard",
        "2",
        "S",
        0,
        [
            fs.parse_cards("AH KH QH 3C 4C"),
            fs.parse_cards("5D 6D 7D 8D 9D"),
            fs.parse_cards("5D 6D 7D 8D 9D"),
            fs.parse_cards("10D JD QD KD AD"),
        ],
        fs.parse_cards("3S 3S 4S 5S 6S 7S 8S 9S"),
    )
    with pytest.raises(fs.IllegalPlay, match="one effective suit"):
        g.apply(fs.parse_cards("AH 3C"))
    g2 = Game("standard", seed=4, hand_id=2)
    assert g2.decision == "declare"
    with pytest.raises(fs.IllegalPlay, match="cannot show"):
        g2.apply(fs.parse_cards("BJ BJ"))


# ---------------------------------------------------------------------------------------------
# Observations leak nothing; worlds are consistent


def random_state(seed: int, steps: int) -> Game:
    rng = random.Random(seed)
    g = Game(rng.choice(list_presets()), seed=seed, hand_id=rng.randrange(50), level="random")
    for _ in range(steps):
        if g.phase == "done":
            break
        g.apply(g.bot_action("expert"))
    return g


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 160), st.integers(0, 3), st.integers(0, 2**32))
def test_no_leak_and_worlds_are_consistent(seed, steps, seat, wseed):
    """A sampled world differs from the game only in cards `seat` cannot see: the seat's
    observation is equal in both. And the world keeps every public fact."""
    g = random_state(seed, steps)
    w = g.sample_world(seat, np.random.default_rng(wseed))
    o, ow = g.observation(seat), w.observation(seat)
    assert o == ow
    assert np.array_equal(o.to_tensor(), ow.to_tensor())
    if g.phase == "done":
        return
    total = Counter()
    for s in range(4):
        total.update(w.hand(s))
    total.update(w._core.kitty())
    for t in o.tricks:
        for p in t.plays:
            total.update(p)
    for _, p in o.current_trick:
        total.update(p)
    if g.phase == "declare":
        total = None  # undealt cards sit in the deck
    else:
        assert total == Counter({c: 2 for c in range(54)})
    for s in range(4):
        if s == seat:
            continue
        held = w.hand(s)
        # voids are respected
        for c in held:
            assert not (o.voids[s] >> o.eff[c]) & 1 if o.eff else True
        # shown and unplayed cards stay with their seat (or the kitty it buried)
        shown = Counter()
        for sh in o.shows:
            if sh.seat == s:
                shown = shown | Counter(sh.cards)
        gone = Counter()
        for t in o.tricks:
            for i, p in enumerate(t.plays):
                if (t.leader + i) % 4 == s:
                    gone.update(p)
        for who, p in o.current_trick:
            if who == s:
                gone.update(p)
        need = shown - gone
        where = Counter(held)
        if o.burier == s and o.kitty is None:
            where.update(w._core.kitty())
        assert not need - where, (s, need, held)


def test_worlds_are_uniform_where_unconstrained():
    """At the first lead (no voids, no shows), each hidden card lands in a place with
    probability proportional to its size."""
    hands = [
        fs.parse_cards("AS AS KS KS QS QS JS JS 10S 10S 9S 9S 8S"),
        fs.parse_cards("AH AH KH KH QH QH JH JH 10H 10H 9H 9H 8H"),
        fs.parse_cards("AC AC KC KC QC QC JC JC 10C 10C 9C 9C 8C"),
        fs.parse_cards("AD AD KD KD QD QD JD JD 10D 10D 9D 9D 8D"),
    ]
    kitty = fs.parse_cards("7S 7S 7H 7H 7C 7C 7D 7D")
    g = Game.from_position("standard", "2", "S", 0, hands, kitty)
    # seat 1 looks: hidden = seats 0, 2, 3 (13 each; seat 0 buried, so the kitty is hidden too)
    rng = np.random.default_rng(5)
    n = 3000
    counts = np.zeros((4, 54))
    for _ in range(n):
        w = g.sample_world(1, rng)
        for s in (0, 2, 3):
            for c in w.hand(s):
                counts[s, c] += 1
        for c in w._core.kitty():
            counts[1, c] += 1  # row 1: the kitty
    assert (counts[:, fs.parse_cards("AH")[0]] == 0).all()  # seat 1's own cards stay put
    code = fs.parse_cards("AS")[0]
    expect = np.array([13, 8, 13, 13]) / 47 * 2 * n
    sd = np.sqrt(expect * (1 - np.array([13, 8, 13, 13]) / 47))
    assert (np.abs(counts[:, code] - expect) < 5 * sd).all(), counts[:, code]


def test_worlds_are_uniform_among_consistent_deals_with_a_void():
    """A small endgame where seat 2 showed a void in hearts: the sampled deals are exactly the
    consistent ones, each as often as the others (enumerated)."""
    hands = [
        fs.parse_cards("3H AS 6H"),
        fs.parse_cards("4H KS 8H"),
        fs.parse_cards("3S 4D 9D"),
        fs.parse_cards("5H QS 9H"),
    ]
    kitty = fs.parse_cards("7S 7S 7H 7H 7C 7C 7D 7D")
    g = Game.from_position("standard", "2", "C", 0, hands, kitty)
    for play in ("3H", "4H", "3S", "5H"):
        g.apply(fs.parse_cards(play))
    assert g.to_act == 3 and g.observation(0).void_suits(2) == {"H"}
    hidden = g.hand(1) + g.hand(2) + g.hand(3)
    hearts = set(fs.parse_cards("8H 9H"))
    consistent = set()
    for perm in itertools.permutations(hidden):
        deal = tuple(tuple(sorted(perm[2 * k : 2 * k + 2])) for k in range(3))
        if not hearts & set(deal[1]):
            consistent.add(deal)
    assert len(consistent) == 36
    rng = np.random.default_rng(9)
    n = 7200
    seen = Counter()
    for _ in range(n):
        w = g.sample_world(0, rng)
        assert w.sample_exact
        seen[tuple(tuple(sorted(w.hand(s))) for s in (1, 2, 3))] += 1
    assert set(seen) == consistent
    mean = n / 36
    assert all(abs(k - mean) < 5 * math.sqrt(mean) for k in seen.values()), seen


def test_clone_is_independent():
    g = Game("super", seed=3, hand_id=5)
    advance_to(g, 30, kinds=("follow", "lead"))
    c = g.clone()
    before = g.observation(0)
    play_out(c)
    assert g.observation(0) == before and c.phase == "done"
    play_out(g)
    assert strip(g.result()) == strip(c.result())


def test_result_before_the_end_and_bad_arguments():
    g = Game("standard", seed=1)
    with pytest.raises(fs.IllegalPlay, match="not over"):
        g.result()
    with pytest.raises(ValueError, match="hand_id"):
        Game("standard", hand_id=-1)
    with pytest.raises(ValueError, match="seat"):
        g.observation(4)
    with pytest.raises(ValueError, match="unknown bot"):
        g.bot_action("genius")


def test_observation_tensor_shape_and_content():
    g = Game("standard", seed=8, hand_id=1)
    advance_to(g, 50, kinds=("follow",))
    o = g.observation(g.to_act)
    x = o.to_tensor()
    from fastsheng.engine.observation import TENSOR_SHAPE

    assert x.shape == TENSOR_SHAPE and x.dtype == np.float32
    assert x[0].sum() * 2 == len(o.hand)
    assert isinstance(Action("card", (1,), 0), Action)
