"""The PettingZoo environment (fastsheng.apps.env): PettingZoo's own API and seed tests, actions
that encode every legal decision (the built-in bots driven through it replay simulate_hands), masks
equal to the step API's legal actions, zero-sum rewards in levels, reproducible episodes."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from fastsheng import IllegalPlay
from fastsheng.apps.env import (
    AGENTS,
    DONE,
    N_ACTIONS,
    PASS,
    SHOW,
    action_name,
    env,
    raw_env,
    show_code,
)
from fastsheng.engine.game import Game
from fastsheng.engine.hands import simulate_hands
from fastsheng.engine.observation import TENSOR_SHAPE
from fastsheng.rules import list_presets

# PettingZoo's api_test warns about any dict observation, its own card games' included
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably"),
]


@pytest.mark.parametrize("preset", ["standard", "super", "classic"])
def test_pettingzoo_api_test(preset):
    api_test(env(rules=preset, seed=3, level="random"), num_cycles=1000)


def test_pettingzoo_api_test_without_wrappers():
    api_test(raw_env(rules="super", seed=4, level="random"), num_cycles=1000)


def test_observations_stay_in_their_space_on_every_preset():
    """The tensor's values stay in [0, 1] and masks are 0/1 under every rule set."""
    rng = np.random.default_rng(0)
    for preset in list_presets():
        e = env(rules=preset, seed=1, level="random")
        e.reset(seed=1)
        space = e.observation_space("player_0")

        def policy(e, obs, space=space, preset=preset):
            assert space.contains(obs), preset
            return [int(rng.choice(np.flatnonzero(obs["action_mask"])))]

        play_episode(e, policy)


def test_pettingzoo_seed_test():
    seed_test(lambda: env(rules="super", seed=1), num_cycles=400)


def bot_actions(game: Game, name: str = "expert") -> list[int]:
    """The built-in bot's decision for the seat to act, as environment action ids."""
    a = game.bot_action(name)
    if a.kind == "pass":
        return [PASS]
    if a.kind == "show":
        return [SHOW + show_code(a.cards)]
    return list(a.cards) + ([DONE] if a.kind == "lead" else [])


def play_episode(e, policy) -> dict:
    """Play one episode; returns each agent's total reward and the final infos."""
    totals = dict.fromkeys(AGENTS, 0)
    infos = {}
    queue: list[int] = []
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        totals[agent] += reward
        if term or trunc:
            infos[agent] = info
            e.step(None)
            continue
        if not queue:
            queue = policy(e, obs)
        action = queue.pop(0)
        assert obs["action_mask"][action] == 1, action_name(action)
        e.step(action)
    return {"totals": totals, "infos": infos}


@pytest.mark.parametrize("preset", ["standard", "super", "tournament"])
def test_builtin_bots_through_the_environment_are_the_simulator(preset):
    """Every decision of the expert bot encoded as environment actions (card by card, done,
    pass, show codes) replays simulate_hands exactly: the action encoding loses nothing."""
    rows = simulate_hands(preset, "expert", seed=11, n=40, level="random").to_pylist()
    e = env(rules=preset, seed=11, level="random")
    e.reset(seed=11)
    for k, row in enumerate(rows):
        if k:
            e.reset()  # the next hand of the same run
        out = play_episode(e, lambda e, obs: bot_actions(e.unwrapped.game))
        result = e.unwrapped.game.result()
        assert {k: v for k, v in result.items() if k != "bots"} == {
            k: v for k, v in row.items() if k != "bots"
        }
        assert out["infos"]["player_0"]["result"] == result


def test_action_mask_is_the_step_api_legal_set():
    e = env(rules="super", seed=5, level="random")
    e.reset(seed=5)
    rng = np.random.default_rng(0)
    seen = set()
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        g = e.unwrapped.game
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (N_ACTIONS,)
        assert obs["observation"].shape == TENSOR_SHAPE
        assert agent == AGENTS[g.to_act]
        seen.add(g.decision)
        if g.decision == "declare":
            legal = g.legal_actions()
            want = {PASS} | {SHOW + show_code(a.cards) for a in legal if a.kind == "show"}
            assert len(want) == len(legal)  # show codes tell the offered calls apart
            # the codes are the core's own show codes
            codes = {SHOW + c for c, _, _ in g._core.show_options()}
            assert want == {PASS} | codes
        else:
            want = set(g.legal_cards())
            if g.decision == "lead" and g.picked:
                want.add(DONE)
        assert set(np.flatnonzero(mask)) == want
        for other in AGENTS:  # only the agent to act has legal actions
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        e.step(int(rng.choice(np.flatnonzero(mask))))
    assert seen == {"declare", "bury", "lead", "follow"}


def test_rewards_are_zero_sum_levels_per_team():
    e = env(rules="standard", seed=2)
    e.reset(seed=2)
    rng = np.random.default_rng(1)
    takeovers = 0
    for k in range(30):
        if k:
            e.reset()
        out = play_episode(e, lambda e, obs: [int(rng.choice(np.flatnonzero(obs["action_mask"])))])
        row = e.unwrapped.game.result()
        r = [out["totals"][a] for a in AGENTS]
        dealer_team = row["dealer"] % 2
        win_team = dealer_team if row["winner"] == "dealer" else 1 - dealer_team
        assert r[win_team] == r[win_team + 2] == row["levels"]
        assert r[1 - win_team] == r[3 - win_team] == -row["levels"]
        if row["winner"] == "defenders" and row["levels"] == 0:
            takeovers += 1
            assert r == [0, 0, 0, 0]
    assert takeovers > 0  # the 0-level take-over case was exercised


def test_reset_is_reproducible_and_walks_the_run():
    a, b = env(seed=9), env(seed=123)
    a.reset(seed=4)
    b.reset(seed=4)
    first = a.observe("player_1")["observation"]
    assert np.array_equal(first, b.observe("player_1")["observation"])
    hand0 = Game("standard", seed=4, hand_id=0).hand(1)
    assert a.unwrapped.game.hand(1) == hand0
    a.reset()  # no seed: the next hand of the same run
    assert a.unwrapped.game.hand(1) == Game("standard", seed=4, hand_id=1).hand(1)
    a.reset(seed=4)  # a seed starts the run again
    assert np.array_equal(a.observe("player_1")["observation"], first)


def test_illegal_action_is_refused_with_its_name():
    e = env(seed=0)
    e.reset(seed=0)
    mask = e.last()[0]["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalPlay, match="not legal"):
        e.step(bad)
    raw = raw_env(seed=0)  # without PettingZoo's wrappers: the range is still checked
    raw.reset()
    for out_of_range in (-1, N_ACTIONS):
        with pytest.raises(ValueError, match="not in 0"):
            raw.step(out_of_range)


def test_action_names_and_show_codes():
    assert action_name(0) == "2S"
    assert action_name(DONE) == "done" and action_name(PASS) == "pass"
    assert action_name(SHOW + 6 + 1) == "show pair H"
    assert action_name(SHOW + 5) == "show single BJ"
    assert show_code([52, 52]) == 6 + 4  # a pair of small jokers
    assert show_code([13 + 4, 53]) == 1  # a level card of hearts with its joker: single H
    with pytest.raises(ValueError):
        action_name(N_ACTIONS)


def test_render_ansi():
    e = env(seed=0, render_mode="ansi")
    e.reset()
    text = e.render()
    assert "phase declare" in text and "to declare" in text
    with pytest.raises(ValueError):
        env(render_mode="video")
