"""Batches with Python bots at some seats (fastsheng.engine.agents): the simulator's own loop in C,
stopping at every decision of a Python seat.

The C bots keep playing inside C; at a Python seat the loop returns, the bot gets the seat's
observation and legal actions (fastsheng.Game's), and its action is applied. The rows, tricks
and traces are written into the same arrays as an all-C batch, so the tables are identical in
shape, and a run is reproducible: each Python bot gets a ``random.Random`` per batch, seeded
from ``SeedSequence(seed, spawn_key=(batch, 1 + seat))``.

In process a Python bot is trusted code: it runs beside the real game and could read it. A plan
with ``isolate`` plays each Python seat in a process of its own (fastsheng.engine.isolation):
the bot gets the observation as bytes, its random stream is seeded from the batch and seat
alone, and a bot that fails (too slow, out of memory, crashed, an illegal answer) forfeits the
hand for its team or stops the run (``BotLimits.on_error``). A forfeited hand is played to its
end with the stand-in C bot (``STAND_IN``) at the Python seats, then scored as a loss of the
forfeiting team (:func:`forfeit_row`); the ``forfeit`` column names the seat.
"""

from __future__ import annotations

import os
import random
import sys
from typing import Any

import numpy as np

from fastsheng import _state
from fastsheng.bots.names import is_python_bot
from fastsheng.cards import RANKS, as_codes, format_cards
from fastsheng.engine.agents import bot as make_bot
from fastsheng.engine.agents import describe_failure
from fastsheng.engine.game import Action, Game
from fastsheng.engine.isolation import NO_FORFEIT, BotFailure, IsolatedBot
from fastsheng.engine.plan import BatchPlan, Mode, Trace
from fastsheng.errors import BotError, IllegalPlay
from fastsheng.rules import Rules

__all__ = ["FORFEIT_TOTALS", "NO_FORFEIT", "STAND_IN", "forfeit_row", "run_python_batch"]

#: The C bot that finishes a forfeited hand at the Python seats (the hand's result is the
#: forfeit's, whatever it plays)
STAND_IN = "expert-v1"
#: The defenders' total a forfeit is scored at: as if the forfeiting side took no point as the
#: defenders, or gave away all 200 points of the two decks as the dealer side
FORFEIT_TOTALS = {"defenders": 0, "dealer": 200}


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
        _apply(game, action, f"bot {self.name} (seat {self.seat})", hand_id, BotError)


def _apply(game: Game, action: Any, who: str, hand_id: int, error: type[BotError]) -> None:
    """Apply a bot's action; `error` (naming `who`) when it is no legal action."""
    decision = game.decision
    errors = game._core.errors
    try:
        game.apply(action)
    except (IllegalPlay, ValueError, TypeError, IndexError, AttributeError) as e:
        raise error(
            f"{who} made an illegal action {describe_action(action)} in hand {hand_id} "
            f"({decision}): {e}"
        ) from e
    if game._core.errors != errors:  # the C loop refused it: never let it play on
        raise error(
            f"{who} made an illegal action {describe_action(action)} in hand {hand_id} "
            f"({decision}) that the step API let through (please report this fastsheng bug)"
        )


class _Failed(BotError):
    """An isolated bot failed a decision: the hand is forfeited, or the run stops."""


class _IsolatedSeat:
    """A Python bot at one seat of a batch, in a process of its own (IsolatedBot): only the
    observation's bytes and the offer go there, only its answer comes back. Every failure is
    a _Failed naming the bot, its seat and the decision (a BotError when it could not even
    start)."""

    def __init__(self, name: str, seat: int, plan: BatchPlan):
        self.name = name
        self.seat = seat
        self.proc = IsolatedBot(name, seat, plan.rules, plan.batch, plan.bot_limits)
        self.who = f"bot {name} (seat {seat})"

    def reset(self, rules: Rules, hand_id: int) -> None:
        self.proc.new_hand()

    def act(self, game: Game, hand_id: int) -> None:
        decision = game.decision
        legal = game.legal_actions()
        try:
            answer = self.proc.decide(game.observation(self.seat), legal)
        except BotFailure as f:
            if f.fatal:
                raise BotError(f"{self.who} {f.text}") from None
            where = (
                f"in reset() before hand {hand_id}"
                if f.in_reset
                else f"in hand {hand_id} at its {decision} decision"
            )
            raise _Failed(f"{self.who} {f.text} {where}") from None
        _apply(game, self._action(answer, legal, hand_id, decision), self.who, hand_id, _Failed)

    def _action(self, answer: dict, legal: tuple, hand_id: int, decision: str) -> Any:
        """The action a child's answer stands for (checked by _apply like any bot's)."""
        if "i" in answer:
            i = answer["i"]
            if type(i) is int and 0 <= i < len(legal):
                return legal[i]
        elif "a" in answer:
            a = answer["a"]
            if isinstance(a, list) and len(a) == 3 and isinstance(a[1], list):
                return Action(a[0], tuple(a[1]), a[2])
        elif "v" in answer:
            return answer["v"]
        elif "r" in answer:
            raise _Failed(
                f"{self.who} made an illegal action {answer['r']} in hand {hand_id} "
                f"({decision}): not cards or an action"
            )
        raise _Failed(f"{self.who} answered with something that is not an answer in hand "
                      f"{hand_id} at its {decision} decision")  # fmt: skip

    def forfeited(self) -> None:
        """After a failure: the next hand gets a fresh process."""
        self.proc.restart_next_hand()

    def close(self) -> None:
        self.proc.close()


def _play_one(core, game_view, seats, rules: Rules, on_error: str) -> int:
    """Play the hand the core has just begun: C seats inside C, Python seats here. Returns the
    seat whose bot forfeited the hand (NO_FORFEIT: none): an isolated bot's failure under
    ``on_error="forfeit"``; the C stand-in then plays every Python seat to the hand's end."""
    game = game_view(core)
    for s in seats.values():
        s.reset(rules, core.hand_id)
    lost = NO_FORFEIT
    while game.phase != "done":
        seat = seats.get(game.to_act)
        if seat is None:  # cannot happen: C seats never stop the loop
            raise RuntimeError("the game stopped at a C seat")
        if lost != NO_FORFEIT:
            game.apply(game.bot_action(STAND_IN))
            continue
        try:
            seat.act(game, core.hand_id)
        except _Failed as f:
            if on_error != "forfeit":
                raise BotError(str(f)) from None
            lost = seat.seat
            seat.forfeited()
            print(f"warning: {f}; its team forfeits the hand", file=sys.stderr, flush=True)
    return lost


def forfeit_row(row: np.ndarray, rules: Rules, seat: int) -> None:
    """Score a hand row (a HAND_DTYPE record, changed in place) as forfeited by `seat`'s team:
    the other side wins as if the forfeiting side took no point as the defenders (a total of
    0) or gave away all 200 as the dealer side (FORFEIT_TOTALS): ``defenders_total``,
    ``winner``, ``levels`` (the level table's, no overcall bonus), ``bonus_levels`` 0,
    ``levels_climbed`` (hands mode: from the hand's level) and ``next_dealer``. The play
    columns keep the hand as it was played."""
    from fastsheng._core import level_outcome

    dealer = int(row["dealer"])
    loser = "dealer" if seat % 2 == dealer % 2 else "defenders"
    total = FORFEIT_TOTALS[loser]
    side, levels = level_outcome(rules, total)
    if side == loser:  # a table where that total still wins for them: the least win instead
        side, levels = ("defenders", 0) if loser == "dealer" else ("dealer", 1)
    row["defenders_total"] = total
    row["winner"] = 0 if side == "dealer" else 1
    row["levels"] = levels
    row["bonus_levels"] = 0
    row["levels_climbed"] = _climb(rules, int(row["level"]), levels) - int(row["level"])
    row["next_dealer"] = (dealer + 2) % 4 if side == "dealer" else (dealer + 1) % 4


def _climb(rules: Rules, rank: int, n: int) -> int:
    """`rank` moved up n levels, stopped by the end rank and by a must-play rank other than the
    hand's own (which counts as played): the C loop's climb in hands mode."""
    end = RANKS.index(rules.end_rank)
    must = {RANKS.index(r) for r in rules.must_play} - {rank}
    for _ in range(n):
        if rank >= end or rank in must:
            break
        rank += 1
    return rank


def run_python_batch(
    plan: BatchPlan,
    lineup: Any,
    hands: np.ndarray,
    matches: np.ndarray,
    trick_rows: np.ndarray,
    codes: np.ndarray,
) -> tuple[dict[str, Any], list[np.ndarray], np.ndarray]:
    """Play the plan's batch (up to its traced item) into the given arrays; returns the counts
    (like _game._run), when the plan keeps traces each hand's trace, and each hand row's
    forfeiting seat (NO_FORFEIT: none). `lineup`: the fastsheng.bots.Lineup of the plan's specs
    (its C seats). An isolated plan's bot processes are killed when it ends, however it ends."""
    seats: dict[int, Any] = {}
    try:
        for s, name in enumerate(plan.bots):
            if not is_python_bot(name):
                continue
            if plan.isolate:
                seats[s] = _IsolatedSeat(name, s, plan)
            else:
                seats[s] = _Seat(name, s, _bot_rng(plan.seed, plan.batch, s))
        return _run_batch(plan, lineup, seats, hands, matches, trick_rows, codes)
    finally:
        for seat in seats.values():
            if isinstance(seat, _IsolatedSeat):
                seat.close()


def _run_batch(plan, lineup, seats, hands, matches, trick_rows, codes):
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
    on_error = plan.bot_limits.error_mode(plan.mode.value) if plan.isolate else "stop"

    def view(c):
        return Game._view(c, rules, plan.batch)

    want_traces = plan.trace is not Trace.NONE
    traces: list[np.ndarray] = []
    forfeits = np.full(len(hands), NO_FORFEIT, np.uint8)
    for i in range(plan.played):
        if plan.mode is Mode.HANDS:
            core.begin_hand(i)
            core.run()
            lost = _play_one(core, view, seats, rules, on_error)
            core.end_hand()
            if lost != NO_FORFEIT:
                k = core.counts()["nhands"] - 1
                forfeit_row(hands[k], rules, lost)
                forfeits[k] = lost
            if want_traces:
                traces.append(core.trace_array())
        else:
            core.begin_match(i)
            while True:
                if not core.begin_match_hand():
                    return core.counts(), traces, forfeits
                core.run()
                _play_one(core, view, seats, rules, on_error)  # "stop": no forfeit in a match
                if want_traces:
                    traces.append(core.trace_array())
                if core.end_match_hand():
                    break
        if core.counts()["overflow"]:
            break
    return core.counts(), traces, forfeits
