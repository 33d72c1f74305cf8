"""A PettingZoo AEC environment: one hand of 双升 per episode, four agents, masked actions.

Needs the optional extra ``pip install fastsheng[env]`` (pettingzoo, gymnasium). Built on the
core of :class:`fastsheng.vec.VecEnv` (one env, every seat controlled), so its observations,
masks, moves and rewards are the vectorized environment's own; docs/game.md, "A PettingZoo
environment", describes the spaces and the rewards.

Actions are one fixed ``Discrete(68)`` space for every decision:

* ``0..53`` a card code: plays and burials are built card by card (``Game.legal_cards`` /
  ``Game.apply_card``); a follow completes itself at the lead's size, a burial at 8 cards;
* ``54`` ("done") closes a lead built card by card;
* ``55`` ("pass") declines a call;
* ``56 + k`` makes the call of show code ``k`` (0..11: ``kind * 6 + denom``, kind 0 a single,
  1 a pair; denom 0..3 the level card of S, H, C, D, 4 the small joker, 5 the big joker).

Rewards are in levels, zero-sum per team, given once when the hand ends: the winning side's
level gain (the ``levels`` column of ``simulate_hands``) to its two agents, its negative to the
two others. A defenders' take-over that gains 0 levels scores 0 for everyone; the hand's full
row (``winner`` included) is in every agent's ``infos[agent]["result"]`` at the end.

The environment holds the real game (``env.unwrapped.game``, all four hands) in your process,
so an agent running in that process can reach it, and every hidden card with it: an agent is
trusted code, and the observation is sealed against accidents only. Agents you do not trust
play as isolated bots instead (``fastsheng.simulate_hands(..., isolate=True)``: each in a
process of its own, docs/game.md "Isolated bots").
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as e:  # the optional extra is missing: say how to get it
    raise ImportError(
        f"fastsheng.apps.env needs PettingZoo and Gymnasium: pip install 'fastsheng[env]' ({e})"
    ) from e

from fastsheng.cards import RANKS, format_cards
from fastsheng.engine.game import Action, Game, check_seed
from fastsheng.engine.observation import TENSOR_SHAPE
from fastsheng.engine.schema import hands_table
from fastsheng.errors import IllegalPlay
from fastsheng.rules import Rules
from fastsheng.vec import (
    DECISIONS,
    DONE,
    N_ACTIONS,
    N_CARDS,
    PASS,
    SHOW,
    VecEnv,
    action_name,
    show_code,
)

__all__ = ["env", "raw_env", "N_ACTIONS", "DONE", "PASS", "SHOW", "action_name", "show_code"]

AGENTS = tuple(f"player_{s}" for s in range(4))  # player_s sits at seat s; teams 0/2 and 1/3
BATCH_SIZE = 10_000  # reset() deals the hands of simulate_hands(rules, ..., seed) in order


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's usual checks (actions in range, reset before step,
    ...): ``env(rules="standard", seed=0, level="2", render_mode=None)``."""
    e = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's naming convention)
    """One hand per episode. ``reset(seed=s)`` deals hand 0 of ``simulate_hands(rules, ...,
    seed=s, level=level)``; each later ``reset()`` without a seed deals the next hand of that
    run (1, 2, ...), so a sequence of episodes is a pure function of the seed. The environment
    is `seed` (default 0) until a reset gives one; the seed is never taken from the clock.
    The hand is played by a :class:`fastsheng.vec.VecEnv` of one env (``self.vec``);
    ``self.game`` is a fastsheng.Game of the same hand kept in step with it (all four hands:
    for analysis, not for agents)."""

    metadata = {
        "name": "fastsheng_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | str = "standard",
        seed: int = 0,
        level: str = "2",
        render_mode: str | None = None,
    ):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        self._seed = check_seed(seed)
        self._level = level
        self._next_hand = 0
        # one env, every seat an agent, no next hand after the last move (checks rules and level)
        self.vec = VecEnv(1, rules, seed=self._seed, level=level, dtype=np.float32, autoreset=False)
        self._rules = self.vec.rules
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self._game: Game | None = None
        self._dealt = False
        self._moves: list[int] = []  # this hand's action ids (what self.game replays)
        self._replayed = 0
        obs = spaces.Box(0.0, 1.0, TENSOR_SHAPE, np.float32)
        mask = spaces.Box(0, 1, (N_ACTIONS,), np.int8)
        self._obs_space = spaces.Dict({"observation": obs, "action_mask": mask})
        self._act_space = spaces.Discrete(N_ACTIONS)

    def observation_space(self, agent: str) -> spaces.Space:
        # one space object for every agent and call (so seeding a space works)
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    # --- episode --------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seed = check_seed(seed)  # as env(seed=...): 1.5 or "7" is refused, not cast
            self._next_hand = 0
        self.hand_id = self._next_hand
        self._next_hand += 1
        self.vec.seed = self._seed
        self.vec.deal(0, self.hand_id, batch_size=BATCH_SIZE)
        self._game = None
        self._dealt = True
        self._moves = []
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[int(self.vec.last.seat[0])]

    @property
    def game(self) -> Game | None:
        """The hand as a fastsheng.Game: the same deal with this hand's moves applied (made
        when first read, then kept up to date)."""
        if self._game is None and not self._dealt:
            return None  # before the first reset
        if self._game is None:
            self._game = _HandView(
                self._rules, seed=self._seed, hand_id=self.hand_id, level=self._level
            )
            self._game._vec = self.vec
            self._replayed = 0
        for a in self._moves[self._replayed :]:
            _apply(self._game, a)
        self._replayed = len(self._moves)
        return self._game

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in self.agents}
        ended = self._play(action)
        if ended:
            self._finish()
        else:
            self.agent_selection = AGENTS[int(self.vec.last.seat[0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _play(self, action: Any) -> bool:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"an action is an int action id, not {action!r}")
        action = int(action)
        if not 0 <= action < N_ACTIONS:  # raw_env has no bounds wrapper; -1 must not wrap around
            raise ValueError(f"action {action} is not in 0..{N_ACTIONS - 1}")
        if not self.vec.last.mask[0, action]:
            seat = int(self.vec.last.seat[0])
            decision = DECISIONS[int(self.vec.last.info["decision"][0])]
            raise IllegalPlay(
                f"{action_name(action)} (action {action}) is not legal for seat {seat} now "
                f"({decision}); pick an action whose action_mask entry is 1"
            )
        ended = self.vec.act(0, action)
        self._moves.append(action)
        return ended

    def _finish(self) -> None:
        last = self.vec.last
        rows = last.info["row"][:1].copy()
        batch = self.hand_id // BATCH_SIZE
        row = hands_table(rows, batch, self._rules, ["user"] * 4, False).to_pylist()[0]
        reward = last.reward[0]
        for s, a in enumerate(AGENTS):
            self.rewards[a] = int(reward[s])
            self.terminations[a] = True
            self.infos[a] = {"result": row}

    # --- what an agent sees ---------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        if int(self.vec.last.seat[0]) == seat:
            mask = self.vec.last.mask[0].astype(np.int8)
        else:
            mask = np.zeros(N_ACTIONS, np.int8)
        return {"observation": self.vec.observation(0, seat), "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode is None or self.game is None:
            return None
        text = _describe(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class _HandView(Game):
    """The environment's hand as a fastsheng.Game. Asking it a built-in bot's action asks the
    environment's core too, so both draw the bot stream alike and the core counts that bot's
    own lead estimate (throw_risk) when the lead is played through the environment."""

    _vec: VecEnv

    def bot_action(self, name: Any = "expert") -> Any:
        action = super().bot_action(name)
        if isinstance(name, str):
            self._vec.bot_action(0, name)
        return action


def _apply(g: Game, action: int) -> None:
    """An action id applied to a fastsheng.Game (as the environment applies it to its hand)."""
    if action < N_CARDS:
        g.apply_card(action)
    else:  # done, pass or a show: the Action offered for it
        g.apply(next(a for a in g.legal_actions() if _id(a) == action))


def _id(a: Action) -> int:
    """The action id of an offered Action."""
    if a.kind == "card":
        return a.cards[0]
    if a.kind == "done":
        return DONE
    if a.kind == "pass":
        return PASS
    if a.kind == "show":
        return SHOW + show_code(a.cards)
    raise ValueError(f"{a.kind} actions are not offered by the environment")


def _describe(g: Game) -> str:
    """A short text of the table: the hand's state, the trick in progress, the seat to act."""
    o = g.observation(max(g.to_act, 0))
    lines = [
        f"{g.rules.name} level {RANKS[o.level]} phase {g.phase}; "
        f"defenders' points {o.defender_points}"
    ]
    for seat, cards in o.current_trick:
        lines.append(f"  seat {seat} played {format_cards(list(cards))}")
    if g.phase == "done":
        row = g.result()
        lines.append(f"  done: {row['winner']} +{row['levels']} levels")
    else:
        picked = f"; picked {format_cards(list(g.picked))}" if g.picked else ""
        lines.append(f"  seat {g.to_act} to {g.decision}: {format_cards(list(o.hand))}{picked}")
    return "\n".join(lines)
