"""What every public bot promises, checked for each name of fastsheng.bots.names.BOTS (the
unversioned ones resolved, the searches at their default settings) and for the small search
settings the bots' own test files play:

(a) the step API plays as the simulator: ``Game.bot_action(name)`` draws from the game's bot
    stream exactly as ``simulate_hands`` does, hand by hand the same rows;
(b) its name round-trips: the resolved name resolves to itself;
(c) a seat decides only from what it may know: a world that differs from the game only in cards
    the seat cannot see, with the same bot stream, gets the same lead or follow;
(d) its play is frozen: a digest of it is pinned in tests/test_bot_versions.py (the versioned
    bots) or in the search's own test file (each search family).

Every check is a few hands: the searches at their default settings cost under half a second of
CPU a hand here, so no cheaper setting stands in for them."""

from __future__ import annotations

import pytest
import test_bot_versions
import test_search_v2
import test_search_v3
from botcheck import same_decisions_in_worlds

from fastsheng.bots import names as B
from fastsheng.engine.game import Game
from fastsheng.engine.hands import simulate_hands

# the small settings the searches' test files play (test_search.py, test_search_v2.py,
# test_search_v3.py), with the hands each of their step-API checks played
SMALL_SEARCHES = {
    "search:k=3,cands=4": 4,
    "search-v2:k=4,cands=4": 3,
    "search-v3:k=8,cands=4": 3,
}
PUBLIC = list(B.BOTS)
# search-v4 races most decisions over up to 1,024 worlds (about 6 s a hand here): one hand
HANDS = {name: 3 for name in PUBLIC} | {"search-v4": 1} | SMALL_SEARCHES

# the frozen digests, by line-up: the versioned bots' (150 hands per preset) and the searches'
# (12 hands of two presets, in the searches' own test files)
FROZEN_DIGESTS = [test_bot_versions.FROZEN, test_search_v2.DIGESTS, test_search_v3.DIGESTS]
# public names no digest freezes, each with the reason
NOT_FROZEN = {
    "random": "uniform over the legal plays: it has no strategy to freeze (no digest pins it)",
}


def _family(name: str) -> str:
    """A resolved name's bot: the versioned name, or the search family before its ':'."""
    return B.resolve_bot(name).split(":")[0]


@pytest.mark.parametrize("name", list(HANDS))
def test_the_step_api_plays_as_the_simulator(name):
    """Game.bot_action(name) draws from the game's bot stream exactly as the simulator: hand by
    hand the same rows (the bot at seats 0 and 2, expert at 1 and 3, random levels)."""
    lineup = (name, "expert", name, "expert")
    rows = simulate_hands("standard", lineup, 41, HANDS[name], level="random").to_pylist()
    assert len(rows) == HANDS[name]
    for k, row in enumerate(rows):
        g = Game("standard", seed=41, hand_id=k, level="random")
        while g.phase != "done":
            g.apply(g.bot_action(lineup[g.to_act]))
        got = {c: v for c, v in g.result().items() if c != "bots"}
        assert got == {c: v for c, v in row.items() if c != "bots"}, k


@pytest.mark.parametrize("name", [*HANDS, B.PY_RANDOM, "search-v3:k=8,call=1", " Search-V2:k=8 "])
def test_the_name_round_trips(name):
    resolved = B.resolve_bot(name)
    assert B.resolve_bot(resolved) == resolved
    assert B.resolve_bots(resolved) == (resolved,) * 4


@pytest.mark.parametrize("name", PUBLIC)
def test_a_seat_decides_from_what_it_may_know(name):
    """One hand with the bot at every seat (seed 11, hand 0): at every lead and follow the
    world dealt for the deciding seat gets the same decision, and most worlds really differ."""
    assert same_decisions_in_worlds(name, 11, 0) > 10


@pytest.mark.parametrize("name", sorted(set(PUBLIC) - set(NOT_FROZEN)))
def test_the_play_is_frozen(name):
    """Each public name plays a bot whose play a digest pins: the versioned bot alone at the
    table, or some setting of its search family."""
    pinned = {_family(lineup.split(",")[0]) for table in FROZEN_DIGESTS for lineup in table}
    assert _family(name) in pinned, f"no frozen digest pins {B.resolve_bot(name)}"


def test_the_versioned_bots_are_pinned_alone():
    """The digest of a versioned bot is of that bot at all four seats, on every preset."""
    versioned = {B.resolve_bot(n) for n in PUBLIC if ":" not in B.resolve_bot(n)}
    for name in versioned - set(NOT_FROZEN):
        assert test_bot_versions.LINEUPS.get(name) == name, name
        assert name in test_bot_versions.FROZEN, name


def test_the_exceptions_are_public_names():
    assert set(NOT_FROZEN) <= set(PUBLIC)
