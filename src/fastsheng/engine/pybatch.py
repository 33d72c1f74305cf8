"""Batches with Python bots at some seats (fastsheng.engine.agents): the simulator's own loop in C,
stopping at every decision of a Python seat.

The C bots keep playing inside C; at a Python seat the loop returns, the bot gets the seat's
observation and legal actions (fastsheng.Game's), and its action is applied. The rows, tricks
and traces are written into the same arrays as an all-C batch, so the tables are identical in
shape, and a run is reproducible: each Python bot gets a ``random.Random`` per batch, seeded
from ``SeedSequence(seed, spawn_key=(batch, 1 + seat))``.
"""

from __future__ import annotations

import os
import random
from typing import Any

import numpy as np

from fastsheng import _state
from fastsheng.bots.names import is_python_bot
from fastsheng.cards import as_codes, format_cards
from fastsheng.engine.agents import bot as make_bot
from fastsheng.engine.agents import describe_failure
from fastsheng.engine.game import Action, Game
from fastsheng.engine.plan import BatchPlan, Mode, Trace
from fastsheng.errors import BotError, IllegalPlay
from fastsheng.rules import Rules

__all__ = ["run_python_batch"]


def _bot_rng(seed: int, batch: int, seat: int) -> random.Random:
    ss = np.random.SeedSequence(int(seed), spawn_key=(int(batch), 1 + seat))
    return random.Random(int.from_bytes(ss.generate_state(4, np.uint32).tobytes(), "little"))


def describe_action(action: object) -> str:
    """An action as a bot error shows it: card names ("lead AS AS", "[AS, 3D]"), else its repr
    (a value that is no card is shown as it came)."""
    if isinstance(action, Action):
        try:
            return repr(f"{action.kind} {format_cards(action.cards)}".strip())
        except (TypeError, ValueError):
            return repr(action)
    try:
        return "[" + ", ".join(format_cards([c]) for c in as_codes(action)) + "]"
    except ValueError:
        return repr(action)


# a bot's own failure, however it fails (sys.exit included): Ctrl-C stays the user's
_BOT_FAILURES = (Exception, SystemExit)


class _Seat:
    """A Python bot at one seat of a batch. Every way it can fail (its constructor, reset, act,
    an illegal action, sys.exit) is a BotError naming it, its seat and the hand."""

    def __init__(self, name: str, seat: int, rng: random.Random):
        self.name = name
        self.seat = seat
        self.rng = rng
        try:
            self.bot = make_bot(name)
        except BotError:
            raise
        except _BOT_FAILURES as e:  # e.g. a module that imports in the parent, not here
            raise BotError(
                f"bot {name} (seat {seat}) could not be made in this process "
                f"(pid {os.getpid()}): {describe_failure(e)}"
            ) from e

    def reset(self, rules: Rules, hand_id: int) -> None:
        reset = getattr(self.bot, "reset", None)
        if reset is None:
            return
        try:
            reset(self.seat, rules, self.rng)
        except _BOT_FAILURES as e:
            raise BotError(
                f"bot {self.name} (seat {self.seat}) raised {describe_failure(e)} in reset() "
                f"before hand {hand_id}"
            ) from e

    def act(self, game: Game, hand_id: int) -> None:
        obs = game.observation(self.seat)
        legal = game.legal_actions()
        try:
            action = self.bot.act(obs, legal)
        except _BOT_FAILURES as e:  # a user bot's bug: one line naming it
            raise BotError(
                f"bot {self.name} (seat {self.seat}) raised {describe_failure(e)} "
                f"in hand {hand_id} at its {game.decision} decision"
            ) from e
        decision = game.decision
        errors = game._core.errors
        try:
            game.apply(action)
        except (IllegalPlay, ValueError, TypeError, IndexError, AttributeError) as e:
            raise BotError(
                f"bot {self.name} (seat {self.seat}) made an illegal action "
                f"{describe_action(action)} in hand {hand_id} ({decision}): {e}"
            ) from e
        if game._core.errors != errors:  # the C loop refused it: never let it play on
            raise BotError(
                f"bot {self.name} (seat {self.seat}) made an illegal action "
                f"{describe_action(action)} in hand {hand_id} ({decision}) that the step API "
                "let through (please report this fastsheng bug)"
            )


def _play_one(core, game_view, seats, rules: Rules) -> None:
    """Play the hand the core has just begun: C seats inside C, Python seats here."""
    game = game_view(core)
    for s in seats.values():
        s.reset(rules, core.hand_id)
    while game.phase != "done":
        seat = seats.get(game.to_act)
        if seat is None:  # cannot happen: C seats never stop the loop
            raise RuntimeError("the game stopped at a C seat")
        seat.act(game, core.hand_id)


def run_python_batch(
    plan: BatchPlan,
    lineup: Any,
    hands: np.ndarray,
    matches: np.ndarray,
    trick_rows: np.ndarray,
    codes: np.ndarray,
) -> tuple[dict[str, Any], list[np.ndarray]]:
    """Play the plan's batch (up to its traced item) into the given arrays; returns the counts
    (like _game._run) and, when the plan keeps traces, each hand's trace. `lineup`: the
    fastsheng.bots.Lineup of the plan's specs (its C seats)."""
    seats = {
        s: _Seat(name, s, _bot_rng(plan.seed, plan.batch, s))
        for s, name in enumerate(plan.bots)
        if is_python_bot(name)
    }
    core = _state.BatchCore()
    core.begin_batch(
        plan.core_fields(),
        lineup,
        plan.python_seats,
        hands.view(np.uint8),
        matches.view(np.uint8),
        trick_rows.view(np.uint8),
        codes,
    )
    rules = plan.rules

    def view(c):
        return Game._view(c, rules, plan.batch)

    want_traces = plan.trace is not Trace.NONE
    traces: list[np.ndarray] = []
    for i in range(plan.played):
        if plan.mode is Mode.HANDS:
            core.begin_hand(i)
            core.run()
            _play_one(core, view, seats, rules)
            core.end_hand()
            if want_traces:
                traces.append(core.trace_array())
        else:
            core.begin_match(i)
            while True:
                if not core.begin_match_hand():
                    return core.counts(), traces
                core.run()
                _play_one(core, view, seats, rules)
                if want_traces:
                    traces.append(core.trace_array())
                if core.end_match_hand():
                    break
        if core.counts()["overflow"]:
            break
    return core.counts(), traces
