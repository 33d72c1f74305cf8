"""One description of a batch: what to play, checked once where a batch is asked for
(play_batch, simulate_*, profile_batch, trace_hand) and passed whole down to the C loop.

The C side gets :meth:`BatchPlan.core_fields`: plain values (a dict Cython turns into its
``batch_plan_t``), never a sentinel chosen by a caller; ``_game.batch_fill`` copies them, and the
line-up of the plan's bot specifications (:meth:`BatchPlan.specs`, made into a
fastsheng.bots.Lineup by the caller), into the batch the simulator and the step API's batches
play. Both are pure: nothing here imports a bot's code or loads a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from fastsheng import _game
from fastsheng.bots.names import is_python_bot
from fastsheng.bots.spec import BotSpec, HeuristicSpec, bot_spec
from fastsheng.cards import parse_level
from fastsheng.engine.checks import as_bots, as_rules, core_level, positive, seed_state
from fastsheng.engine.isolation import BotLimits, isolation_problem, mixed_authors
from fastsheng.engine.schema import BOT_STREAMS
from fastsheng.rules import Rules

__all__ = ["BatchPlan", "Mode", "Trace", "check_isolable"]


class Mode(Enum):
    """What one item of a batch is."""

    HANDS = "hands"  # one hand
    MATCHES = "matches"  # one match (hands until a side passes A)

    @property
    def code(self) -> int:
        """The C loop's batch_t.mode."""
        return _game.MODE_HANDS_ if self is Mode.HANDS else _game.MODE_MATCHES_


class Trace(Enum):
    """Which events of a batch are kept."""

    NONE = "none"
    ALL = "all"  # every hand's
    ONE = "one"  # one item's (hand ``trace_item``, or hand ``trace_hand_no`` of that match); the
    # batch is played up to it, since its RNG stream (and a Python bot's state) runs through the
    # items before


# the C loop's trace_item for NONE and ALL (a traced item is its index, >= 0)
_TRACE_CODE = {Trace.NONE: _game.TRACE_NONE_, Trace.ALL: _game.TRACE_ALL_}
# a Python seat's entry in the C bots: never asked, the seat is external
_PYTHON_SEAT = HeuristicSpec("expert-v1")


def check_isolable(bots: Any) -> None:
    """ValueError in one line naming a Python bot that cannot play in a process of its own."""
    for b in bots:
        if not is_python_bot(b):
            continue
        problem = isolation_problem(b)
        if problem:
            raise ValueError(
                f"bot {b} cannot play isolated (in a process of its own): {problem}; put its "
                "class in a module and name it module:Class, or play it in this process "
                "(isolate=False, --no-isolate: it could then read every hidden card)"
            )


def _whole(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be a whole number >= {low}, not {value!r}")
    return int(value)


@dataclass(frozen=True)
class BatchPlan:
    """Batch ``batch`` of a run of seed ``seed`` cut into batches of ``batch_size`` items: its
    first ``size`` items (a truncated last batch keeps the full batch's ids and first items).
    ``rules`` (a Rules or a preset name), ``bots`` (1, 2 or 4 names or bot objects), ``mode``
    and ``trace`` (a :class:`Mode` / :class:`Trace` or its value) and ``level`` (a rank "2".."A"
    or "random") are normalised here."""

    rules: Rules
    bots: tuple[Any, ...]
    seed: int
    batch: int
    size: int
    batch_size: int | None = None  # None: size
    mode: Mode = Mode.HANDS
    level: str = "2"
    first_hand: bool = False  # hands mode: every hand is a match's hand 1
    tricks: bool = False  # keep one row per trick
    trace: Trace = Trace.NONE
    trace_item: int = 0  # Trace.ONE: the item whose events are kept
    trace_hand_no: int = 1  # Trace.ONE in matches mode: the hand of that match
    check: bool = False  # verify every follow with the core while playing
    profile: bool = False  # time the phases
    bot_stream: str = "hand"  # "hand" (each item its own) or "batch" (runs before 0.2)
    # each Python seat in a process of its own (fastsheng.engine.isolation); None: when the
    # Python bots come from two or more authors. False whenever no seat is a Python bot
    isolate: bool | None = None
    bot_limits: BotLimits | None = None  # an isolated bot's limits (None: the defaults)

    def __post_init__(self):
        put = object.__setattr__
        if self.bot_stream not in BOT_STREAMS:
            raise ValueError(f"bot_stream must be one of {BOT_STREAMS}, not {self.bot_stream!r}")
        put(self, "size", positive("size", self.size))
        full = self.size if self.batch_size is None else positive("batch_size", self.batch_size)
        if self.size > full:
            raise ValueError(f"size {self.size} exceeds batch_size {full}")
        put(self, "batch_size", full)
        try:
            put(self, "mode", Mode(self.mode))
        except ValueError:
            raise ValueError(f"mode must be 'hands' or 'matches', not {self.mode!r}") from None
        put(self, "trace", Trace(self.trace))
        put(self, "rules", as_rules(self.rules))
        put(self, "bots", as_bots(self.bots))
        put(self, "level", parse_level(str(self.level)))
        seed_state(self.seed, self.batch)  # the seed and batch number's own checks
        if self.trace is Trace.ONE:
            if not 0 <= _whole("trace_item", self.trace_item, 0) < self.size:
                raise ValueError(f"trace_item must be in 0..{self.size - 1}, not {self.trace_item}")
            _whole("trace_hand_no", self.trace_hand_no, 1)
        if self.python and self.bot_stream != "hand":
            raise ValueError("Python bots play with per-hand bot streams (bot_stream='hand')")
        isolate = mixed_authors(self.bots) if self.isolate is None else bool(self.isolate)
        put(self, "isolate", isolate and self.python)
        limits = self.bot_limits
        if limits is not None and not isinstance(limits, BotLimits):
            raise ValueError(f"bot_limits must be a BotLimits, not {limits!r}")
        put(self, "bot_limits", limits or BotLimits())
        if self.isolate:
            self.bot_limits.error_mode(self.mode.value)  # a forfeit in matches mode: refused
            check_isolable(self.bots)

    @property
    def id_base(self) -> int:
        """The id of item 0 (hand_id in hands mode, match_id in matches mode)."""
        return int(self.batch) * self.batch_size

    @property
    def python(self) -> bool:
        """Some seat is a Python bot: the batch is driven from Python (fastsheng.engine.pybatch)."""
        return any(is_python_bot(n) for n in self.bots)

    @property
    def python_seats(self) -> int:
        """The Python bots' seats as a bit mask (the C loop stops there)."""
        return sum(1 << s for s, n in enumerate(self.bots) if is_python_bot(n))

    @property
    def searches(self) -> bool:
        """Some seat is a C search bot."""
        return any(s.searches for s in self.specs())

    @property
    def played(self) -> int:
        """Items played: all ``size``, or up to the traced one."""
        return self.trace_item + 1 if self.trace is Trace.ONE else self.size

    def specs(self) -> tuple[BotSpec, ...]:
        """Each seat's typed bot specification (a Python bot's seat: a C row never asked)."""
        return tuple(_PYTHON_SEAT if is_python_bot(n) else bot_spec(n) for n in self.bots)

    def core_fields(self) -> dict[str, Any]:
        """The plan as the C loop's ``batch_plan_t`` (fastsheng/_game.pxd)."""
        matches = self.mode is Mode.MATCHES
        one = self.trace is Trace.ONE
        return {
            "r": self.rules.core_fields(),
            "state": [int(x) for x in seed_state(self.seed, self.batch)],
            "mode": self.mode.code,
            "level": core_level(self.level),
            "first_hand": int(self.first_hand),
            "id_base": self.id_base,
            "size": self.size,
            "trace_item": self.trace_item if one else _TRACE_CODE[self.trace],
            "trace_hand_no": self.trace_hand_no if one and matches else 0,
            "check": int(self.check),
            "profile": int(self.profile),
            "legacy_bot_stream": int(self.bot_stream == "batch"),
        }
