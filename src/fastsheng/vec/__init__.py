"""N hands of 双升 stepped in one call, in C, without the GIL: the engine for learning.

:class:`VecEnv` holds ``n`` independent envs (games of one rules set and one line-up). Each
``step(actions)`` takes one action id per env, applies them, runs every env to its next decision
of a controlled seat (the bot seats, and the decisions handed to a bot, play in C meanwhile),
and returns numpy arrays: the acting seat's observation (the layout of
``Observation.to_tensor()``), the legal-action mask over the PettingZoo environment's
``Discrete(68)`` action space, the acting seat, the rewards of the hands that ended and their
rows. A finished hand is followed at once by the env's next hand. docs/learning.md has the
whole contract; fastsheng.apps.env (PettingZoo) and fastsheng.apps.vec_env (Gymnasium) are
built on the same core (fastsheng._vec).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from fastsheng import _vec, _vec_obs
from fastsheng.bots.lineup import lineup_for, make_lineup
from fastsheng.bots.names import is_python_bot, resolve_bot
from fastsheng.bots.spec import HeuristicSpec, bot_spec
from fastsheng.cards import BIG_JOKER, SMALL_JOKER, format_card, parse_level
from fastsheng.engine.checks import as_rules, positive, seed_state
from fastsheng.engine.observation import TENSOR_SHAPE
from fastsheng.engine.plan import BatchPlan, Trace
from fastsheng.engine.schema import HAND_DTYPE
from fastsheng.errors import IllegalPlay
from fastsheng.rules import Rules

__all__ = [
    "DONE",
    "N_ACTIONS",
    "OBS_SHAPE",
    "PASS",
    "SHOW",
    "Step",
    "VEC_BATCH_SIZE",
    "VecEnv",
    "action_name",
    "obs_to_float",
    "show_code",
]

# --- the action space: one Discrete(68) for every decision (the PettingZoo env's) -------------

N_CARDS = 54
DONE = _vec.CONSTANTS["DONE"]  # closes a lead built card by card
PASS = _vec.CONSTANTS["PASS"]  # declines a call
SHOW = _vec.CONSTANTS["SHOW"]  # SHOW + show code: a call
N_SHOW_CODES = 12
N_ACTIONS = _vec.CONSTANTS["N_ACTIONS"]
assert (DONE, PASS, SHOW, N_ACTIONS) == (54, 55, 56, SHOW + N_SHOW_CODES)
DECISIONS = ("declare", "bury", "lead", "follow")  # info["decision"] codes 0..3
PHASES = ("declare", "bury", "chaodi", "play", "done")  # info["phase"] codes 0..4
_DENOMS = ("S", "H", "C", "D", "SJ", "BJ")


def show_code(cards: tuple[int, ...] | list[int]) -> int:
    """The show code (0..11) of a call's cards: a level card, or a joker when no level card is
    shown (a joker that only accompanies a level card, under declare_needs_joker, is not its
    denomination); a pair when that card is shown twice."""
    level_cards = [c for c in cards if c < SMALL_JOKER]
    main = level_cards[0] if level_cards else cards[0]
    denom = main // 13 if main < SMALL_JOKER else 4 + (main == BIG_JOKER)
    kind = 1 if list(cards).count(main) == 2 else 0
    return kind * 6 + denom


def action_name(action: int) -> str:
    """A readable name for an action id: a card ("10H"), "done", "pass", "show pair H"."""
    if 0 <= action < N_CARDS:
        return format_card(action)
    if action == DONE:
        return "done"
    if action == PASS:
        return "pass"
    if SHOW <= action < N_ACTIONS:
        k = action - SHOW
        return f"show {'pair' if k // 6 else 'single'} {_DENOMS[k % 6]}"
    raise ValueError(f"action {action} is not in 0..{N_ACTIONS - 1}")


# --- observations -------------------------------------------------------------------------------

OBS_SHAPE = TENSOR_SHAPE  # (21, 54): Observation.to_tensor()'s layout
_CLASS, _LUT, _DIVISOR = _vec_obs.obs_tables()
_CLASS = _CLASS.reshape(OBS_SHAPE)
#: what a uint8 observation entry counts: the float32 value is the count / OBS_DIVISOR (card
#: copies and a card's points in fives / 2, level / 12, points / 200, tricks / 25, hand sizes /
#: 33, one-hots and bits / 1; inf for the reserved plane and the scalar row's padding, always 0)
OBS_DIVISOR = np.where(_DIVISOR[_CLASS] > 0, _DIVISOR[_CLASS], np.inf)


def obs_to_float(obs: np.ndarray) -> np.ndarray:
    """uint8 observations (any leading shape, then 21 x 54) as the float32 values of
    ``Observation.to_tensor()``, exactly (count / divisor in float64, rounded once to float32,
    as the Python tensor computes them)."""
    obs = np.asarray(obs)
    if obs.dtype != np.uint8 or obs.shape[-2:] != OBS_SHAPE:
        raise ValueError(f"obs_to_float takes uint8 arrays of shape (..., 21, 54), not {obs.dtype}")
    return _LUT[_CLASS, obs]


# --- seeds --------------------------------------------------------------------------------------

#: env j plays batch first_batch + j of a run cut into batches of this many hands: its hand i is
#: hand (first_batch + j) * VEC_BATCH_SIZE + i, dealt from SeedSequence(seed, spawn_key=(first_batch
#: + j,)) as the simulator deals a batch's hands (``fs.Game(rules, seed, hand_id,
#: batch_size=VEC_BATCH_SIZE, level=...)`` deals the same cards)
VEC_BATCH_SIZE = 1 << 32
# random_actions' stream of env j: SeedSequence(seed, spawn_key=(batch, RANDOM_KEY)), beside the
# Python bots' streams of the simulator's batches (spawn keys (batch, 1 + seat))
RANDOM_KEY = 5


class Step(NamedTuple):
    """What reset and step return. The arrays are the env's own buffers, written again by the
    next call: copy what you keep."""

    obs: np.ndarray  # (n, 21, 54) uint8 (or float32): what the acting seat may know
    mask: np.ndarray  # (n, 68) bool: its legal action ids
    seat: np.ndarray  # (n,) int8: the acting seat 0..3
    reward: np.ndarray  # (n, 4) float32: each seat's reward for the hand that ended, in levels
    terminated: np.ndarray  # (n,) bool: a hand ended during this step (rewards, info rows)
    info: dict[str, np.ndarray]


def _seat_names(bots: Any) -> tuple[str | None, ...]:
    """bots: None (every seat controlled), or 1, 2 (teams 0/2 and 1/3) or 4 entries, each
    None (controlled) or a bot name."""
    if bots is None:
        return (None,) * 4
    if isinstance(bots, str):
        bots = [bots]
    names = tuple(bots)
    if len(names) == 2:
        names = (names[0], names[1], names[0], names[1])
    elif len(names) == 1:
        names *= 4
    if len(names) != 4:
        raise ValueError(
            "bots: one entry per seat (4), or two (team 0 at seats 0/2, team 1 at 1/3), each "
            f"None for a seat you control or a bot name; got {len(names)}"
        )
    return tuple(None if n is None else _c_bot(n, "bots") for n in names)


def _c_bot(name: Any, what: str) -> str:
    """A built-in (C) bot's resolved name; a Python bot cannot play inside the C loop."""
    if not isinstance(name, str):
        raise ValueError(f"{what}: a bot name, not {name!r}")
    resolved = resolve_bot(name)
    if is_python_bot(resolved):
        raise ValueError(
            f"{what}: {name!r} is a Python bot; a VecEnv's bots play in C. Control that seat "
            "(None) and choose its actions yourself"
        )
    return resolved


def _check_first_batch(first_batch: Any, n: int) -> int:
    if (
        isinstance(first_batch, bool)
        or not isinstance(first_batch, (int, np.integer))
        or not 0 <= first_batch <= (1 << 32) - n
    ):
        raise ValueError(f"first_batch must be a whole number in 0..2**32 - n, not {first_batch!r}")
    return int(first_batch)


class VecEnv:
    """``n`` hands of 双升 stepped together (docs/learning.md).

    ``bots``: who sits at each seat, seat 0 first: ``None`` for a seat whose decisions you give
    to ``step`` (a *controlled* seat), or the name of a built-in bot (``"expert"``,
    ``"learned-v1"``, ``"search-v3:k=64"``, ...) that plays it in C. One entry for all four seats,
    two for the teams (0/2, then 1/3) or four; ``None`` (the default) controls every seat
    (self-play). ``auto_calls``, ``auto_chaodi``, ``auto_burial``: a bot that takes the
    controlled seats' calls (declaring, reinforcing, overcalling while dealing), 炒底 (overcalls
    after the burial) and burials, so a learner may start with card play alone.

    ``rules`` a preset name, a rules file's Rules or a fs.Rules; ``level`` "2".."A" or
    "random"; ``first_hand`` plays every hand as a match's first (a hand nobody calls is dealt
    again); ``dtype`` of the observations: ``np.uint8`` (counts, see OBS_DIVISOR) or
    ``np.float32`` (the values of ``Observation.to_tensor()``); ``threads``: the threads
    a step spreads the envs over; ``first_batch``: env j plays the hands of batch
    first_batch + j (VEC_BATCH_SIZE), so several VecEnvs of one seed play disjoint deals."""

    def __init__(
        self,
        n: int,
        rules: Rules | str = "standard",
        bots: Any = None,
        *,
        seed: int = 0,
        level: str = "2",
        first_hand: bool = False,
        auto_calls: str | None = None,
        auto_chaodi: str | None = None,
        auto_burial: str | None = None,
        dtype: Any = np.uint8,
        threads: int = 1,
        first_batch: int = 0,
        autoreset: bool = True,
    ):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0:
            raise ValueError(f"n must be a positive number of envs, not {n!r}")
        self.n = int(n)
        self.rules = as_rules(rules)
        self.level = parse_level(str(level))
        self.first_hand = bool(first_hand)
        self.seat_bots = _seat_names(bots)
        self.controlled = tuple(s for s in range(4) if self.seat_bots[s] is None)
        if not self.controlled:
            raise ValueError("bots: every seat is a bot; give None for the seats you control")
        self.auto = {
            k: None if v is None else _c_bot(v, k)
            for k, v in (
                ("auto_calls", auto_calls),
                ("auto_chaodi", auto_chaodi),
                ("auto_burial", auto_burial),
            )
        }
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.uint8, np.float32):
            raise ValueError(f"dtype must be np.uint8 or np.float32, not {self.dtype}")
        self.threads = positive("threads", threads)
        self.first_batch = _check_first_batch(first_batch, self.n)
        self.seed = _check_seed(seed)
        self._core = self._make_core(autoreset)
        self._bind_arrays()

    def _make_core(self, autoreset: bool):
        """The C core: the batch plan (rules, level, seed), the seats' line-up and the bots the
        controlled seats hand their calls, 炒底 (chaodi) and burial to."""
        specs = [HeuristicSpec("expert-v1") if b is None else bot_spec(b) for b in self.seat_bots]
        plan = BatchPlan(
            self.rules,
            "expert-v1",
            self.seed,
            0,
            1,
            level=self.level,
            first_hand=self.first_hand,
            trace=Trace.ALL,
        ).core_fields()
        self._lineup = make_lineup(specs)
        auto = tuple(
            None if self.auto[k] is None else lineup_for(self.auto[k])
            for k in ("auto_calls", "auto_chaodi", "auto_burial")
        )
        mask = sum(1 << s for s in self.controlled)
        return _vec.VecCore(
            self.n, plan, self._lineup, mask, auto, int(bool(autoreset)), self.threads
        )

    def _bind_arrays(self) -> None:
        """The arrays a step writes in place (the core holds views of them)."""
        n = self.n
        self._obs = np.zeros((n, *OBS_SHAPE), self.dtype)
        self._final = np.zeros((n, *OBS_SHAPE), self.dtype)
        self._mask = np.zeros((n, N_ACTIONS), np.bool_)
        self._seat = np.full(n, -1, np.int8)
        self._decision = np.full(n, -1, np.int8)
        self._phase = np.zeros(n, np.int8)
        self._reward = np.zeros((n, 4), np.float32)
        self._term = np.zeros(n, np.bool_)
        self._rows = np.zeros(n, HAND_DTYPE)
        self._hand_id = np.zeros(n, np.uint64)
        if _vec.VecCore.sizes()["hand_row"] != HAND_DTYPE.itemsize:
            raise RuntimeError("fastsheng._vec's hand row does not match HAND_DTYPE (rebuild)")
        u8 = self.dtype == np.uint8
        self._core.bind(
            obs=self._obs if u8 else None,
            obsf=None if u8 else self._obs,
            mask=self._mask,
            seat=self._seat,
            decision=self._decision,
            phase=self._phase,
            reward=self._reward,
            term=self._term,
            rows=self._rows,
            hand_id=self._hand_id,
            final_obs=self._final if u8 else None,
            final_obsf=None if u8 else self._final,
        )
        self._info = {
            "decision": self._decision,
            "phase": self._phase,
            "hand_id": self._hand_id,
            "row": self._rows,
            "defenders_total": self._rows["defenders_total"],
            "winner": self._rows["winner"],
            "levels": self._rows["levels"],
            "final_obs": self._final,
        }
        self._actions = np.zeros(n, np.int64)
        self._started = False

    # --- episodes -------------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> Step:
        """Every env starts afresh: env j deals hand 0 of batch first_batch + j of the run of
        `seed` (the seed given when made, if None) and runs to its first controlled decision."""
        if seed is not None:
            self.seed = _check_seed(seed)
        for j in range(self.n):
            self.deal(j, (self.first_batch + j) * VEC_BATCH_SIZE)
        self._reward[:] = 0
        self._term[:] = False
        return self._result()

    def deal(self, j: int, hand_id: int, batch_size: int = VEC_BATCH_SIZE) -> None:
        """Env j deals hand `hand_id` of the run of this env's seed cut into batches of
        `batch_size` (the cards of ``fs.Game(rules, seed, hand_id, batch_size=batch_size,
        level=level)``) and runs to its first controlled decision, its outputs written; its next
        hands are the following ones of that batch's stream. ``reset`` deals hand
        (first_batch + j) * VEC_BATCH_SIZE to env j."""
        j = self._env(j)
        if isinstance(hand_id, bool) or not isinstance(hand_id, (int, np.integer)) or hand_id < 0:
            raise ValueError(f"hand_id must be a non-negative int, not {hand_id!r}")
        batch, index = divmod(int(hand_id), positive("batch_size", batch_size))
        act = np.random.SeedSequence(self.seed, spawn_key=(batch, RANDOM_KEY))
        self._core.reset_env(
            j,
            _stream(self.seed, batch),
            index,
            batch * int(batch_size),
            [int(x) for x in act.generate_state(4, np.uint64)],
        )
        self._started = True

    def step(self, actions: Any) -> Step:
        """Apply one action id per env (shape (n,), integers; each must be legal: its mask
        entry True) and run each env to its next controlled decision. A ValueError names the
        first env whose action is not legal, and nothing is applied."""
        if not self._started:
            raise ValueError("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.n,):
            raise ValueError(f"actions must have shape ({self.n},), not {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers (action ids), not {a.dtype}")
        # an unsigned id of 2**63 or more becomes negative here, and is refused like any other
        np.copyto(self._actions, a, casting="unsafe")
        bad = self._core.step(self._actions)
        if bad >= 0:
            raise IllegalPlay(self._refusal(bad, int(a[bad])))
        return self._result()

    def act(self, j: int, action: int) -> bool:
        """Env j alone takes action id `action` (the other envs wait); True when its hand ended.
        Row j of the arrays ``step`` returns is written again (the rewards and row of a hand it
        ended included). An action that is not legal raises IllegalPlay (a ValueError) naming
        it, and nothing is applied."""
        j = self._env(j)
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"env {j}: an action is an int action id, not {action!r}")
        if not 0 <= action < N_ACTIONS:
            raise ValueError(f"env {j}: action {action} is not in 0..{N_ACTIONS - 1}")
        if not self._started:
            raise ValueError("call reset() before act()")
        if not self._core.step_one(j, int(action)):
            raise IllegalPlay(self._refusal(j, int(action)))
        return bool(self._term[j])

    def bot_action(self, j: int, name: str = "expert") -> list[int]:
        """The action ids the built-in bot `name` takes for env j's pending decision (a call or
        pass; a play's cards, then done for a lead), drawn from env j's own bot stream exactly
        as ``fs.Game.bot_action`` draws it (ask once per decision). Nothing is applied: give
        them to ``step`` or ``act``; a lead applied as the bot chose it counts the bot's own
        failure estimate in the row's throw_risk, as in the simulator."""
        j = self._env(j)
        if self._seat[j] < 0:
            raise IllegalPlay(f"env {j}: the hand is over")
        return self._core.bot_ids(j, lineup_for(_c_bot(name, "bot_action")))

    def _env(self, j: Any) -> int:
        if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j < self.n:
            raise ValueError(f"env {j!r} is not in 0..{self.n - 1}")
        return int(j)

    def _refusal(self, j: int, action: int) -> str:
        phase, decision, seat, picked = self._core.pending(j)
        try:
            name = f"{action_name(action)} (action {action})"
        except ValueError:
            name = f"action {action} (not in 0..{N_ACTIONS - 1})"
        if decision < 0:
            return f"env {j}: {name} is not legal: the hand is over"
        mask = np.zeros(N_ACTIONS, np.uint8)
        self._core.mask_of(j, mask)
        legal = ", ".join(action_name(int(i)) for i in np.flatnonzero(mask))
        return (
            f"env {j}: {name} is not legal for seat {seat} now ({DECISIONS[decision]}, phase "
            f"{PHASES[phase]}); legal: {legal}; pick an action whose mask entry is True "
            "(nothing was applied)"
        )

    def _result(self) -> Step:
        return Step(self._obs, self._mask, self._seat, self._reward, self._term, self._info)

    @property
    def last(self) -> Step:
        """The arrays of the latest reset, step or act (the buffers they returned)."""
        return self._result()

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action id per env (int64), drawn in C from each env's own
        stream (SeedSequence(seed, spawn_key=(batch, 5))): a baseline, and the benchmark's
        policy."""
        out = np.empty(self.n, np.int64)
        self._core.random_actions(out)
        return out

    # --- views ----------------------------------------------------------------------------

    def observe(self, seats: Any) -> np.ndarray:
        """What seats[j] may know in env j now, for every j (a new array of shape (n, 21, 54),
        the env's dtype): e.g. the other seats' views, or a terminal view."""
        s = np.asarray(seats)
        if s.ndim == 0:
            s = np.full(self.n, s)
        if s.shape != (self.n,) or s.dtype.kind not in "iu" or ((s < 0) | (s > 3)).any():
            raise ValueError(f"seats must be {self.n} seats 0..3")
        out = np.zeros((self.n, *OBS_SHAPE), self.dtype)
        flat = out.reshape(self.n, -1)
        if self.dtype == np.uint8:
            self._core.observe(s.astype(np.int8), out=flat)
        else:
            self._core.observe(s.astype(np.int8), outf=flat)
        return out

    def observation(self, j: int, seat: int) -> np.ndarray:
        """What `seat` may know in env j now (a new (21, 54) array of the env's dtype)."""
        j = self._env(j)
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < 4:
            raise ValueError(f"seat must be 0..3, not {seat!r}")
        out = np.zeros(OBS_SHAPE, self.dtype)
        if self.dtype == np.uint8:
            self._core.obs_of(j, int(seat), out=out.reshape(-1))
        else:
            self._core.obs_of(j, int(seat), outf=out.reshape(-1))
        return out

    def hands(self, j: int) -> list[list[int]]:
        """The four hands of env j (analysis and tests; a policy reads its observation)."""
        return self._core.hands(self._env(j))

    def trace(self, j: int) -> list[dict[str, Any]]:
        """Env j's hand in play so far as events (``fs.Game.trace()``'s format)."""
        from fastsheng.engine.traces import decode_trace

        return decode_trace(self._core.trace(self._env(j)))

    def set_world(self, j: int, observation: Any, rng: Any = None) -> None:
        """Env j plays on from a world consistent with `observation` (a ``fs.Observation`` of
        this env's rules): every card its seat cannot see redealt as ``Game.sample_world``
        deals it (`rng` as there). The outputs of env j are written again; its next hand is
        the one it would have dealt."""
        from fastsheng.engine.game import rng_words

        public = getattr(observation, "_public", None)
        if public is None:
            raise ValueError("set_world takes an Observation made by fastsheng.Game.observation")
        if observation._rules != self.rules:
            raise ValueError("the observation's rules are not this VecEnv's")
        self._core.set_world(self._env(j), public, rng_words(rng), list(observation.picked))

    def __repr__(self) -> str:
        seats = ",".join("you" if b is None else b for b in self.seat_bots)
        return f"<VecEnv n={self.n} {self.rules.name} level {self.level} seats {seats}>"


def _stream(seed: int, batch: int) -> list[int]:
    """Batch `batch`'s stream state, as simulate_hands seeds it."""
    return [int(x) for x in seed_state(seed, batch)]


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, not {seed!r}")
    return int(seed)
