"""A Gymnasium vector environment over :class:`fastsheng.vec.VecEnv` (optional extra [env]).

Which API fits a four-player, turn-based, two-team game played in many copies at once?

* PettingZoo's AEC API (fastsheng.apps.env) is the exact model of one turn-based game: one agent
  acts at a time, several times in a row while it builds a play card by card. But it is one
  game per object and one Python call per move.
* PettingZoo's Parallel API assumes every agent acts at every step: here only one seat may.
* Gymnasium's VectorEnv is made for N copies stepped in one call, with batched arrays in and
  out, and is what most training code takes. It is single-agent: one action per copy per step.
  That fits exactly when the learner plays one team against built-in bots (the default here:
  seats 0/2 yours, ``expert`` at 1/3), since the bots' moves happen inside the step. With more
  seats controlled (self-play) it still works: each step's action is for the acting seat of
  each copy, given in ``infos["seat"]`` (its own observation and mask are what you get), and
  ``infos["rewards"]`` has every seat's reward; the scalar reward is the team ``team``'s.

So this is a ``gymnasium.vector.VectorEnv`` with the acting seat in the infos. It autoresets in
the same step (``metadata["autoreset_mode"]`` is SAME_STEP): on the step a hand ends, the
observation is already the next hand's first decision, ``terminations`` is True, the reward is
the ended hand's, and ``infos["final_obs"]`` holds what the seat that ended it may know at the
end (``infos["final_info"]["row"]`` its row). There is no truncation: a hand always ends.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector import VectorEnv as _GymVectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError as e:  # the optional extra is missing: say how to get it
    raise ImportError(
        f"fastsheng.apps.vec_env needs Gymnasium: pip install 'fastsheng[env]' ({e})"
    ) from None

from fastsheng.vec import N_ACTIONS, OBS_SHAPE, VecEnv

__all__ = ["ShengjiVectorEnv"]


class ShengjiVectorEnv(_GymVectorEnv):
    """``num_envs`` hands of 双升 as a Gymnasium vector environment. The arguments are
    :class:`fastsheng.vec.VecEnv`'s (``bots`` defaults to ``(None, "expert")``: you play seats
    0/2); ``team`` is the team whose reward is the scalar reward (0: seats 0/2, 1: seats 1/3).
    Observations are dicts of ``"observation"`` (float32 (num_envs, 21, 54), the values of
    ``Observation.to_tensor()``; ``dtype=np.uint8`` for the counts) and ``"action_mask"`` (int8
    (num_envs, 68)), as the PettingZoo environment's."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int,
        rules: Any = "standard",
        bots: Any = (None, "expert"),
        *,
        team: int = 0,
        seed: int = 0,
        dtype: Any = np.float32,
        **kwargs: Any,
    ):
        if team not in (0, 1):
            raise ValueError(f"team must be 0 (seats 0/2) or 1 (seats 1/3), not {team!r}")
        self.vec = VecEnv(num_envs, rules, bots, seed=seed, dtype=dtype, **kwargs)
        self.team = team
        self.num_envs = self.vec.n
        high = 1.0 if self.vec.dtype == np.float32 else 255
        obs = spaces.Box(0, high, OBS_SHAPE, self.vec.dtype)
        self.single_observation_space = spaces.Dict(
            {"observation": obs, "action_mask": spaces.MultiBinary(N_ACTIONS)}
        )
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def _obs(self, step) -> dict[str, np.ndarray]:
        return {"observation": step.obs, "action_mask": step.mask.view(np.int8)}

    def _infos(self, step) -> dict[str, Any]:
        info = step.info
        return {
            "seat": step.seat,
            "decision": info["decision"],
            "rewards": step.reward,
            "hand_id": info["hand_id"],
            "final_obs": info["final_obs"],
            "final_info": {"row": info["row"]},
            "_final_obs": step.terminated,
            "_final_info": step.terminated,
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        step = self.vec.reset(seed=seed)
        return self._obs(step), self._infos(step)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        step = self.vec.step(actions)
        reward = step.reward[:, self.team]  # seats team and team + 2 get the same
        truncated = np.zeros(self.num_envs, np.bool_)
        return self._obs(step), reward, step.terminated, truncated, self._infos(step)

    def close_extras(self, **kwargs: Any) -> None:
        pass
