"""Reading the play (fastsheng._infer): the replay that counts a world's misfits, and
search-v3's `infer`, whose race draws its worlds from a chain weighted by them.

The replay must be the game's own: in a hand every seat plays with expert-v3, the real deal
explains every play (0 misfits from every seat's side, at every decision), and every world
`Game.sample_world` deals (consistent with the whole public record) replays without a
contradiction."""

from __future__ import annotations

import random

import pytest

from fastsheng.engine.game import Game
from fastsheng.engine.hands import simulate_hands
from fastsheng.engine.registry import BOT_INDEX, bot_spec, resolve_bot

EXPERT3 = BOT_INDEX["expert-v3"]


def play_decisions(preset: str, seed: int, hand_id: int, bot: str = "expert-v3"):
    """Every lead/follow position of one hand played by `bot` at all four seats."""
    g = Game(preset, seed=seed, hand_id=hand_id, level="random")
    while g.phase != "done":
        if g.phase == "play":
            yield g
        g.apply(g.bot_action(bot))


@pytest.mark.parametrize("preset", ["standard", "super", "tournament"])
def test_the_real_deal_explains_every_play_of_its_own_bot(preset):
    seen = 0
    for hand_id in range(3):
        for g in play_decisions(preset, 41, hand_id):
            for seat in range(4):
                assert g._core.misfits(seat, EXPERT3) == 0
            seen += 1
    assert seen > 100


def test_another_bot_misfits_and_worlds_replay_without_contradiction():
    rng = random.Random(5)
    worlds = misfit = 0
    for hand_id in range(3):
        for i, g in enumerate(play_decisions("standard", 43, hand_id)):
            # expert-v1 would have played some of expert-v3's plays otherwise
            misfit += g._core.misfits(0, BOT_INDEX["expert-v1"]) > 0
            if i % 7 == 3:
                seat = g.to_act
                w = g.sample_world(seat, rng)
                assert w._core.misfits(seat, EXPERT3) >= 0
                worlds += 1
    assert worlds > 20 and misfit > 10


def test_infer_names():
    assert resolve_bot("search-v3") == resolve_bot("search-v3:infer=0")
    assert "infer" not in resolve_bot("search-v3")
    name = resolve_bot("search-v3:infer=35")
    assert name.endswith(",infer=35")
    _, k, _ = bot_spec(name)
    assert k & 0xFFFF == 64 and k >> 16 == 35
    for bad in ("search-v3:infer=128", "search-v3:infer=-1", "search-v3:infer=x"):
        with pytest.raises(ValueError, match="infer"):
            resolve_bot(bad)


def test_infer_plays_legal_reproducible_and_otherwise():
    bots = ("search-v3:k=16,infer=35", "expert-v3")
    a = simulate_hands("standard", bots, 3, 4, level="random").to_pandas()
    b = simulate_hands("standard", bots, 3, 4, level="random").to_pandas()
    off = simulate_hands("standard", ("search-v3:k=16", "expert-v3"), 3, 4, level="random")
    # simulate_hands raises on an illegal play; the chain's worlds change some decisions
    assert a.equals(b)
    assert not a.equals(off.to_pandas())
