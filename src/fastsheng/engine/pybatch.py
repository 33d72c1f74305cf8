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
from fastsheng.cards import as_codes, format_cards
from fastsheng.engine.agents import bot as make_bot
from fastsheng.engine.agents import describe_failure
from fastsheng.engine.game import Action, Game
from fastsheng.engine.registry import BOT_INDEX, bot_spec, is_python_bot
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
    rules: Rules,
    names,
    seed: int,
    batch: int,
    mode: int,
    level: int,
    first_hand: bool,
    size: int,
    id_base: int,
    hands: np.ndarray,
    matches: np.ndarray,
    trick_rows: np.ndarray,
    codes: np.ndarray,
    state: list[int],
    want_traces: bool,
) -> tuple[dict[str, Any], list[np.ndarray]]:
    """Play one batch into the given arrays; returns the counts (like _game._run) and, when
    `want_traces`, each hand's trace."""
    external = 0
    c_bots = []
    seats: dict[int, _Seat] = {}
    for s, name in enumerate(names):
        if is_python_bot(name):
            external |= 1 << s
            c_bots.append(BOT_INDEX["expert-v1"])  # never asked: the seat is external
            seats[s] = _Seat(name, s, _bot_rng(seed, batch, s))
        else:
            c_bots.append(bot_spec(name)[0])
    core = _state.BatchCore()
    core.begin_batch(
        rules.core_fields(),
        c_bots,
        external,
        state,
        mode,
        level,
        id_base,
        int(first_hand),
        hands.view(np.uint8),
        matches.view(np.uint8),
        trick_rows.view(np.uint8),
        codes,
    )
    for s, name in enumerate(names):
        _, k, cands = (0, 0, 0) if is_python_bot(name) else bot_spec(name)
        if k:
            from fastsheng import _search  # noqa: F401  (registers the search bot)

            core.set_search(s, k, cands)

    def view(c):
        return Game._view(c, rules, batch)

    traces: list[np.ndarray] = []
    for i in range(size):
        if mode == 0:
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
