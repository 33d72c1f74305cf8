"""The step API's actions (docs/game.md): one legal action of a decision, whole or card by card,
and the kinds of action that fit each decision."""

from __future__ import annotations

from dataclasses import dataclass

from fastsheng import _state
from fastsheng.cards import format_cards

__all__ = ["Action", "DECISION_KINDS", "card_action", "make_action"]


@dataclass(frozen=True, slots=True)
class Action:
    """One legal action: `kind` is "pass", "show", "bury", "lead", "follow", "card" (one card of
    the card-by-card form) or "done" (close a lead picked card by card); `cards` the card codes,
    sorted; `id` its index in ``legal_actions()`` (stable for one state). Only the very
    objects of the current offer are trusted as legal; any other Action (a kept one, an
    equal one made anew) is checked like a play given as cards."""

    kind: str
    cards: tuple[int, ...]
    id: int

    def __str__(self) -> str:
        return f"{self.kind} {format_cards(list(self.cards))}".strip()


# the Action kinds that fit each decision (an Action of another kind is refused, not coerced)
DECISION_KINDS = {
    "declare": ("pass", "show"),
    "bury": ("card", "bury"),
    "lead": ("lead", "card", "done"),
    "follow": ("follow", "card"),
}

_ACTION_SLOTS = (Action.kind, Action.cards, Action.id)
_CARD_ACTIONS: dict[int, Action] = {}


def make_action(kind: str, cards: tuple[int, ...], id: int) -> Action:
    """``Action(kind, cards, id)``, built fast (legal_actions makes many at every decision)."""
    return _state.fill_slots(Action, _ACTION_SLOTS, (kind, cards, id))


def card_action(code: int, id: int) -> Action:
    """The card-by-card Action for `code` at `id`, made once: Actions are immutable, and one
    equal to an offered Action is as legal as it."""
    key = id * 54 + code
    a = _CARD_ACTIONS.get(key)
    if a is None:
        a = _CARD_ACTIONS[key] = Action("card", (code,), id)
    return a
