"""fastsheng.vec: N hands stepped in C play the very game of fs.Game and the simulator.

The same actions fed to a VecEnv and to fs.Game give the same acting seats, masks (the step
API's legal actions in the PettingZoo env's ids), observations (Observation.to_tensor() bit for
bit), traces and hand rows, on every preset; bot seats and the decisions handed to a bot play
exactly as simulate_hands plays them; an observation is a function of what its seat may know
(two worlds dealt from one observation by Game.sample_world's dealer give it the same tensor);
a run is a pure function of (seed, n, actions), however many threads step it; bad input is a
ValueError naming the env and the action, with nothing applied."""

from __future__ import annotations

import time

import numpy as np
import pytest

import fastsheng as fs
from fastsheng import _vec
from fastsheng.engine import observation as obsmod
from fastsheng.engine.hands import simulate_hands
from fastsheng.engine.schema import hands_table
from fastsheng.rules import list_presets
from fastsheng.vec import (
    DONE,
    N_ACTIONS,
    OBS_DIVISOR,
    OBS_SHAPE,
    PASS,
    SHOW,
    VEC_BATCH_SIZE,
    VecEnv,
    obs_to_float,
    show_code,
)

# -- fs.Game driven by action ids (as fastsheng.apps.env applies them) -----------------------


def game_mask(g: fs.Game) -> np.ndarray:
    """The step API's legal actions now, as the 68 action ids."""
    m = np.zeros(N_ACTIONS, bool)
    if g.decision == "declare":
        for a in g.legal_actions():
            m[PASS if a.kind == "pass" else SHOW + show_code(a.cards)] = True
    elif g.decision is not None:
        m[g.legal_cards()] = True
        if g.decision == "lead" and g.picked:
            m[DONE] = True
    return m


def game_apply(g: fs.Game, a: int) -> None:
    if a < 54:
        g.apply_card(a)
    elif a == DONE:
        g.apply(list(g.picked))
    elif a == PASS:
        g.apply([])
    else:
        (show,) = [
            x for x in g.legal_actions() if x.kind == "show" and SHOW + show_code(x.cards) == a
        ]
        g.apply(show)


def vec_row(env: VecEnv, row: np.ndarray, hand_id: int) -> dict:
    """A VecEnv hand row as Game.result() gives it (the bots column left out)."""
    out = hands_table(row[None].copy(), hand_id // VEC_BATCH_SIZE, env.rules, ["user"] * 4, False)
    return _no_bots(out.to_pylist()[0])


def _no_bots(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "bots"}


def _game(env: VecEnv, j: int, i: int, **kw) -> fs.Game:
    """Hand i of env j as fs.Game deals it."""
    return fs.Game(
        env.rules,
        seed=env.seed,
        hand_id=(env.first_batch + j) * VEC_BATCH_SIZE + i,
        level=env.level,
        batch_size=VEC_BATCH_SIZE,
        **kw,
    )


def _same_game(preset: str, hands: int, n: int = 4, seed: int = 3, first_hand: bool = False):
    """n envs with every seat controlled and random legal actions, each decision checked against
    fs.Game fed the same actions; returns the hands played."""
    env = VecEnv(n, preset, seed=seed, level="random", first_hand=first_hand)
    envf = VecEnv(n, preset, seed=seed, level="random", first_hand=first_hand, dtype=np.float32)
    step, stepf = env.reset(), envf.reset()
    games = [_game(env, j, 0, first_hand=first_hand) for j in range(n)]
    played = [0] * n
    decisions: set[str] = set()
    k = 0
    while sum(played) < hands:
        for j, g in enumerate(games):
            assert g.to_act == step.seat[j] == stepf.seat[j]
            assert g.decision == ("declare", "bury", "lead", "follow")[step.info["decision"][j]]
            decisions.add(g.decision if g.phase != "chaodi" else "chaodi")
            assert (game_mask(g) == step.mask[j]).all(), (j, g.decision, g.picked)
            want = g.observation(g.to_act).to_tensor()
            assert np.array_equal(obs_to_float(step.obs[j]), want)
            assert np.array_equal(stepf.obs[j], want)
            if k % 17 == j:  # now and then: the trace so far, and another seat's view
                assert env.trace(j) == g.trace()
                other = (g.to_act + 1 + k) % 4
                assert np.array_equal(envf.observation(j, other), g.observation(other).to_tensor())
        if k % 29 == 3:  # every env's partner view at once
            partners = (step.seat + 2) % 4
            views = env.observe(partners)
            for j, g in enumerate(games):
                want = g.observation(int(partners[j])).to_tensor()
                assert np.array_equal(obs_to_float(views[j]), want)
        actions = env.random_actions()
        actors = step.seat.copy()
        step, stepf = env.step(actions), envf.step(actions)
        k += 1
        for j, g in enumerate(games):
            game_apply(g, int(actions[j]))
            assert step.terminated[j] == stepf.terminated[j] == (g.phase == "done")
            if not step.terminated[j]:
                assert not step.reward[j].any()
                continue
            row = g.result()
            assert vec_row(env, step.info["row"][j], row["hand_id"]) == _no_bots(row)
            want = g.observation(int(actors[j])).to_tensor()
            assert np.array_equal(stepf.info["final_obs"][j], want)
            assert np.array_equal(obs_to_float(step.info["final_obs"][j]), want)
            played[j] += 1
            games[j] = _game(env, j, played[j], first_hand=first_hand)
    return decisions


@pytest.mark.parametrize("preset", list_presets())
def test_the_same_actions_play_the_same_game_as_fs_game(preset):
    decisions = _same_game(preset, hands=8)
    assert {"declare", "bury", "lead", "follow"} <= decisions


def test_hand_one_with_redeals_plays_the_same_game():
    _same_game("super", hands=8, first_hand=True, seed=5)


@pytest.mark.slow
def test_the_same_actions_play_the_same_game_many_hands():
    """400 hands per preset and 400 hand 1s (4,800 hands, ~950,000 decisions each checked)."""
    t = time.perf_counter()
    seen = set()
    for preset in list_presets():
        seen |= _same_game(preset, hands=400, n=8, seed=17)
    _same_game("standard", hands=400, n=8, seed=18, first_hand=True)
    assert "chaodi" in seen
    print(f"\n{time.perf_counter() - t:.0f} s")


# -- bot seats and handed-over decisions: the simulator --------------------------------------


def _bot_run(preset, seats, auto, controlled_bot, n_hands, first_hand=False, seed=21):
    """Env 0 with `seats` (None: controlled) and every controlled decision answered by
    `controlled_bot` through VecEnv.bot_action; its hand rows."""
    env = VecEnv(
        2,
        preset,
        seats,
        seed=seed,
        level="random",
        first_hand=first_hand,
        auto_calls=auto,
        auto_chaodi=auto,
        auto_burial=auto,
    )
    env.reset()
    queues: list[list[int]] = [[], []]
    rows = []
    while len(rows) < n_hands:
        actions = np.zeros(2, np.int64)
        for j in range(2):
            if not queues[j]:
                queues[j] = env.bot_action(j, controlled_bot)
            actions[j] = queues[j].pop(0)
        step = env.step(actions)
        if auto is not None:
            assert (step.info["decision"] >= 2).all()  # only plays reach the caller
        if step.terminated[0]:
            rows.append(vec_row(env, step.info["row"][0], int(step.info["row"]["hand_id"][0])))
    return env, rows


@pytest.mark.parametrize(
    "preset, seats, auto",
    [
        ("standard", (None, "basic"), None),
        ("super", (None, "expert", "expert", "expert"), "expert"),
        ("classic", "random,basic,None,expert", "expert"),
    ],
)
def test_bot_seats_and_handed_over_decisions_play_as_the_simulator(preset, seats, auto):
    """Bot seats play inside the step; controlled seats answered by the expert bot (their calls
    and burials handed to it, or not) make the line-up's hands of simulate_hands exactly."""
    if isinstance(seats, str):
        seats = [None if s == "None" else s for s in seats.split(",")]
    env, rows = _bot_run(preset, seats, auto, "expert", 12)
    lineup = ["expert" if s is None else s for s in env.seat_bots]
    want = simulate_hands(
        preset, lineup, seed=21, n=12, level="random", batch_size=VEC_BATCH_SIZE
    ).to_pylist()
    assert rows == [_no_bots(r) for r in want]


def test_first_hands_with_bots_play_as_the_simulator():
    env, rows = _bot_run("standard", (None, "expert"), "basic", "basic", 8, first_hand=True)
    want = simulate_hands(
        "standard",
        ["basic", "expert"],
        seed=21,
        n=8,
        level="random",
        batch_size=VEC_BATCH_SIZE,
        first_hand=True,
    ).to_pylist()
    assert rows == [_no_bots(r) for r in want]


@pytest.mark.slow
def test_a_learned_bot_seat_plays_as_the_simulator():
    env, rows = _bot_run("standard", (None, "learned-v1"), "expert", "expert", 40)
    want = simulate_hands(
        "standard",
        ["expert", "learned-v1"],
        seed=21,
        n=40,
        level="random",
        batch_size=VEC_BATCH_SIZE,
    ).to_pylist()
    assert rows == [_no_bots(r) for r in want]


# -- what a seat may know --------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["standard", "renda", "super"])
def test_an_observation_is_a_function_of_what_its_seat_may_know(preset):
    """Two worlds dealt from one observation (Game.sample_world's dealer, redealing every card
    the seat cannot see) give that seat the very same tensor, the real game's; the other seats'
    views differ between the worlds (their hands were redealt)."""
    rng = np.random.default_rng(7)
    env = VecEnv(2, preset, seed=1, level="random", dtype=np.float32)
    env.reset()
    checked = differ = 0
    for hand in range(6):
        g = fs.Game(preset, seed=9, hand_id=hand, level="random")
        k = 0
        while g.phase != "done":
            if k % 11 == 5:
                seat = int(rng.integers(4)) if k % 2 else g.to_act
                o = g.observation(seat)
                env.set_world(0, o, rng=int(rng.integers(1 << 30)))
                env.set_world(1, o, rng=int(rng.integers(1 << 30)))
                want = o.to_tensor()
                assert np.array_equal(env.observation(0, seat), want)
                assert np.array_equal(env.observation(1, seat), want)
                assert env.hands(0)[seat] == env.hands(1)[seat] == g.hand(seat)
                if seat == g.to_act:
                    assert (env._mask[0] == game_mask(g)).all()
                others = [s for s in range(4) if s != seat]
                if any(env.hands(0)[s] != env.hands(1)[s] for s in others):
                    differ += 1
                    assert any(
                        not np.array_equal(env.observation(0, s), env.observation(1, s))
                        for s in others
                    )
                checked += 1
            legal = np.flatnonzero(game_mask(g))
            game_apply(g, int(rng.choice(legal)))
            k += 1
    assert checked > 50 and differ > checked // 2


def test_a_world_plays_on_to_the_end():
    """A world set into an env is a playable game: random play finishes it, then the env deals
    the next hand of its own stream."""
    g = fs.Game("standard", seed=2, hand_id=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        game_apply(g, int(rng.choice(np.flatnonzero(game_mask(g)))))
    env = VecEnv(1, "standard", seed=4)
    env.reset()
    env.set_world(0, g.observation(g.to_act), rng=3)
    while True:
        step = env.step(env.random_actions())
        if step.terminated[0]:
            break
    assert int(step.info["hand_id"][0]) == 1  # the next hand of env 0's batch


# -- a run is a pure function of (seed, n, actions) ------------------------------------------


def _run(env: VecEnv, steps: int) -> list:
    out = []
    step = env.reset()
    for _ in range(steps):
        step = env.step(env.random_actions())
        out.append(np.concatenate([step.obs.reshape(env.n, -1), step.mask, step.reward], 1))
        if step.terminated.any():  # the rows' fields (a copy's padding bytes are noise)
            out.append(str(step.info["row"][step.terminated].tolist()))
    return out


def test_a_run_is_a_function_of_seed_n_and_actions_however_many_threads():
    a = _run(VecEnv(37, "super", seed=3), 300)
    b = _run(VecEnv(37, "super", seed=3, threads=3), 300)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    c = _run(VecEnv(37, "super", seed=4), 300)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=False))
    assert sum(isinstance(x, str) for x in a) > 10  # hands ended and were compared


def test_env_j_deals_batch_first_batch_plus_j():
    a = VecEnv(5, "standard", seed=8)
    b = VecEnv(2, "standard", seed=8, first_batch=3)
    sa, sb = a.reset(), b.reset()
    assert np.array_equal(sa.obs[3:], sb.obs)
    assert a.hands(4) == b.hands(1) == [_game(a, 4, 0).hand(s) for s in range(4)]
    assert list(sa.info["hand_id"]) == [j * VEC_BATCH_SIZE for j in range(5)]
    a.deal(2, 77)  # any hand of the run, as fs.Game(seed, hand_id=77) deals it
    assert a.hands(2) == [fs.Game("standard", seed=8, hand_id=77).hand(s) for s in range(4)]


# -- rewards ---------------------------------------------------------------------------------


def test_rewards_are_levels_zero_sum_per_team_at_the_hand_end():
    env = VecEnv(16, "standard", seed=2)
    env.reset()
    ended = takeovers = 0
    while ended < 60:
        step = env.step(env.random_actions())
        for j in np.flatnonzero(step.terminated):
            row = step.info["row"][j]
            r = step.reward[j]
            win = row["dealer"] % 2 if row["winner"] == 0 else 1 - row["dealer"] % 2
            assert r[win] == r[win + 2] == row["levels"] == step.info["levels"][j]
            assert r[1 - win] == r[3 - win] == -int(row["levels"])
            takeovers += row["winner"] == 1 and row["levels"] == 0
            ended += 1
        assert not step.reward[~step.terminated].any()
    assert takeovers > 0


# -- the observation's layout ----------------------------------------------------------------


def test_the_core_uses_the_documented_layout():
    for name, value in _vec.CONSTANTS.items():
        if hasattr(obsmod, name):
            assert getattr(obsmod, name) == value, name
    assert OBS_SHAPE == obsmod.TENSOR_SHAPE == (_vec.CONSTANTS["ROWS"], 54)
    u = np.arange(256, dtype=np.uint8)[:, None, None] * np.ones(OBS_SHAPE, np.uint8)
    f = obs_to_float(u)
    assert np.array_equal(f, (u / OBS_DIVISOR).astype(np.float32))  # inf: the entries kept 0
    level = obsmod.SC_LEVEL
    assert f[7, -1, level] == np.float32(7 / 12)  # Python's rounding, not 7 * float32(1/12)


# -- bad input -------------------------------------------------------------------------------


def test_bad_input_is_refused_naming_the_env_and_the_action_with_nothing_applied():
    env = VecEnv(3, "standard", seed=1)
    with pytest.raises(ValueError, match="reset"):
        env.step(np.zeros(3, np.int64))
    step = env.reset()
    before = step.obs.copy(), step.mask.copy()
    good = env.random_actions()
    for bad, match in (
        (good[:2], r"shape \(3,\)"),
        (good.astype(np.float64), "integers"),
        (good.astype(bool), "integers"),
        ([[1, 2, 3]], "shape"),
    ):
        with pytest.raises(ValueError, match=match):
            env.step(bad)
    illegal = good.copy()
    illegal[2] = int(np.flatnonzero(~step.mask[2])[0])
    with pytest.raises(fs.IllegalPlay, match=r"env 2: .*\(action \d+\) is not legal for seat"):
        env.step(illegal)
    for value, match in ((-1, "not in 0..67"), (68, "not in 0..67"), (2**64 - 1, "not in")):
        wild = good.astype(np.uint64) if value > 2**62 else good.copy()
        wild[1] = value
        with pytest.raises(ValueError, match=rf"env 1: .*{match}"):
            env.step(wild)
    assert np.array_equal(env._obs, before[0]) and np.array_equal(env._mask, before[1])
    env.step(good)  # the env is as it was: the legal actions still play
    with pytest.raises(ValueError, match="not in 0..67"):
        env.act(0, 99)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n": 0}, "positive"),
        ({"n": -3}, "positive"),
        ({"n": 2.0}, "positive"),
        ({"n": 2, "bots": "expert"}, "every seat is a bot"),
        ({"n": 2, "bots": (None, "nobot")}, "unknown bot"),
        ({"n": 2, "bots": (None, "py-random")}, "Python bot"),
        ({"n": 2, "bots": (None, None, None)}, "one entry per seat"),
        ({"n": 2, "auto_calls": "nobot"}, "unknown bot"),
        ({"n": 2, "dtype": np.float64}, "dtype"),
        ({"n": 2, "threads": 0}, "threads"),
        ({"n": 2, "seed": -1}, "seed"),
        ({"n": 2, "first_batch": 1.5}, "first_batch"),
        ({"n": 2, "first_batch": -1}, "first_batch"),
        ({"n": 2, "level": "Z"}, "level"),
        ({"n": 2, "rules": "nope"}, "nope"),
    ],
)
def test_bad_construction_is_a_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        VecEnv(**kwargs)


# -- the Gymnasium adapter -------------------------------------------------------------------


def test_the_gymnasium_vector_env():
    pytest.importorskip("gymnasium")
    from fastsheng.apps.vec_env import ShengjiVectorEnv

    g = ShengjiVectorEnv(6, "standard", seed=3)
    obs, infos = g.reset()
    assert g.observation_space.contains(obs)
    assert set(infos["seat"]) <= {0, 2}  # expert plays 1/3 inside the step
    ended = 0
    while ended < 10:
        mask = obs["action_mask"].astype(bool)
        actions = np.array([np.flatnonzero(m)[0] for m in mask])
        obs, reward, term, trunc, infos = g.step(actions)
        assert g.observation_space.contains(obs) and not trunc.any()
        assert np.array_equal(reward, infos["rewards"][:, 0])
        assert not reward[~term].any()
        ended += int(term.sum())
        assert np.array_equal(infos["_final_obs"], term)
