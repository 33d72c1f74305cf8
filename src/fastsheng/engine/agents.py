"""Bring your own bot: the protocol a Python bot follows, the built-in bots in that form, and
finding a bot by name ("expert", "mypkg.mybot:MyBot").

A bot is any object with ``act(observation, legal_actions) -> action`` (an Action of the list,
or a list of card codes), and optionally ``reset(seat, rules, rng)``, called before every hand
with its seat, the rules and a ``random.Random`` seeded from the run's seed (so a run with
Python bots is reproducible). Python bots sit at any seat beside the C bots in
``simulate_hands``, ``simulate_matches``, ``fastsheng sim --bots`` and ``fastsheng compare``.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from fastsheng.bots.names import (
    PY_RANDOM,
    BotRef,
    is_bot_object,
    is_builtin,
    is_python_bot,
    resolve_bot,
)
from fastsheng.engine.game import Action
from fastsheng.engine.observation import Observation
from fastsheng.errors import BotError
from fastsheng.rules import Rules

__all__ = ["Bot", "BuiltinBot", "RandomBot", "bot", "load_bot", "is_python_bot"]


@runtime_checkable
class Bot(Protocol):
    """What a seat's player provides. `act` gets only what its seat may know."""

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action | list[int]:
        """Choose one of `legal_actions` (a tuple: the current offer; or give a whole play as
        card codes)."""
        ...


class RandomBot:
    """Uniform over the legal actions offered (whole plays, or card by card)."""

    name = "py-random"

    def reset(self, seat: int, rules: Rules, rng: random.Random) -> None:
        self.rng = rng

    def act(self, observation: Observation, legal_actions: list[Action]) -> Action:
        return legal_actions[self.rng.randrange(len(legal_actions))]


class BuiltinBot:
    """A built-in C bot as a Python bot, acting from the observation alone: it rebuilds a game
    that holds the observer's own cards and the public record (the hidden cards dealt at
    random, consistently) and asks the C bot, which reads only what its seat may know. Useful
    as a rollout policy or a baseline inside a user's bot."""

    def __init__(self, name: str = "expert"):
        self.name = resolve_bot(name)
        if not is_builtin(self.name):
            raise ValueError(f"{name!r} is not a built-in bot")
        self.rng = random.Random(0)

    def reset(self, seat: int, rules: Rules, rng: random.Random) -> None:
        self.rng = rng

    def act(self, observation: Observation, legal_actions: list[Action]) -> Action:
        world = observation.sample_world(self.rng.getrandbits(64))
        return _match(world.bot_action(self.name), legal_actions, observation)


def _match(choice: Action, legal: list[Action], observation: Observation) -> Action:
    """The offered action that plays `choice` (in the card-by-card form: its next card)."""
    for a in legal:
        if a.kind == choice.kind and a.cards == choice.cards:
            return a
        if choice.kind == "pass" and a.kind == "pass":
            return a
    picked = list(observation.picked)
    want = list(choice.cards)
    for c in picked:
        if c in want:
            want.remove(c)
    for a in legal:
        if a.kind == "card" and want and a.cards[0] in want:
            return a
        if a.kind == "done" and not want:
            return a
    return legal[0]


def bot(name: Any) -> Any:
    """A bot by name: a built-in one ("expert", "basic-v1", ...) as a Python bot, or
    "module.path:Class" (instantiated with no arguments), or "py-random"; a bot class is
    instantiated and a bot object deep-copied (fastsheng.bots.names.BotRef)."""
    if is_bot_object(name):
        return (name if isinstance(name, BotRef) else BotRef(name)).make()
    if name == PY_RANDOM:
        return RandomBot()
    if is_python_bot(name):
        return load_bot(name)
    return BuiltinBot(name)


def load_bot(spec: str) -> Any:
    """Import "module.path:Class" (or ":factory") and instantiate it. Raises ValueError naming
    the problem (no module, no attribute, no act method)."""
    mod_name, _, attr = spec.partition(":")
    if not mod_name or not attr:
        raise ValueError(f"bot {spec!r}: expected module.path:ClassName")
    try:
        module = importlib.import_module(mod_name)
    except ImportError as e:
        raise ValueError(f"bot {spec!r}: cannot import {mod_name!r} ({e})") from None
    except (Exception, SystemExit) as e:  # the module's own code failed: one line naming it
        raise BotError(f"bot {spec!r}: importing {mod_name!r} raised {describe_failure(e)}") from e
    try:
        factory = getattr(module, attr)
    except AttributeError:
        raise ValueError(f"bot {spec!r}: module {mod_name!r} has no {attr!r}") from None
    try:
        obj = factory()
    except (Exception, SystemExit) as e:  # the user's constructor: one line naming the bot
        raise BotError(f"bot {spec!r}: {attr}() raised {describe_failure(e)}") from e
    if not callable(getattr(obj, "act", None)):
        raise ValueError(f"bot {spec!r}: {attr} has no act(observation, legal_actions) method")
    return obj


def describe_failure(e: BaseException) -> str:
    """A bot's exception (or sys.exit) in a few words, for the one line that names the bot."""
    if isinstance(e, SystemExit):
        return f"SystemExit (sys.exit({e.code!r}))"
    return f"{type(e).__name__}: {e}"


def validate_names(names: Sequence[str]) -> None:
    """Check Python bot names import (run before any work)."""
    for n in names:
        if is_python_bot(n):
            bot(n)
