"""Why a play is refused: the text of the IllegalPlay a Game raises, naming the rule (docs/rules.md)
that the cards break. Asked only once a play is known to be illegal, or to check one given as
cards; the legal plays themselves come from the C core."""

from __future__ import annotations

from typing import Any

from fastsheng.cards import format_cards

__all__ = ["card_refusal", "play_refusal", "show_refusal"]

_EFF_WORDS = ("spades", "hearts", "clubs", "diamonds", "trumps")


def show_refusal(seat: int, cards: list[int], opts: list[list[int]]) -> str:
    """A call that is not one of the calls the rules allow the seat now."""
    allowed = ", ".join(format_cards(o) for o in opts) or "none"
    return (
        f"seat {seat} cannot show {format_cards(cards)} now: not one of the "
        f"calls the rules allow it ({allowed})"
    )


def play_refusal(core: Any, kind: str, seat: int, cards: list[int]) -> str | None:
    """Why a whole play (a burial, lead or follow) is illegal (None: it is legal)."""
    held = core.bury_pool() if kind == "bury" else core.hand(seat)
    rest = list(held)
    for c in cards:
        if c not in rest:
            name = format_cards([c])
            have = list(held).count(c)
            if not have:
                return f"seat {seat} does not hold {name}"
            return (
                f"seat {seat} holds only {'one' if have == 1 else 'two'} {name}; the play "
                f"has {cards.count(c)}"
            )
        rest.remove(c)
    if kind == "bury":
        if len(cards) != 8:
            return f"the kitty is 8 cards; {len(cards)} given (docs/rules.md §10)"
        return None
    if kind == "lead":
        if not cards:
            return "a lead needs at least one card"
        if core.lead_kind(cards) < 0:
            return (
                "a lead must be of one effective suit (all trumps, or all of one side "
                "suit); a throw is several units of one suit (docs/rules.md §4)"
            )
        return None
    need = core.follow_need()
    if len(cards) != need:
        return f"a follow has as many cards as the lead: {need}, not {len(cards)}"
    if core.follow_ok(cards):
        return None
    return _follow_refusal(core, seat, cards)


def _follow_refusal(core: Any, seat: int, cards: list[int]) -> str:
    led = core.trick()[1][0]
    e = core.eff_of(led[0])
    held = [c for c in core.hand(seat) if core.eff_of(c) == e]
    given = [c for c in cards if core.eff_of(c) == e]
    need = min(len(held), core.follow_need())
    if len(given) < need:
        return (
            f"must follow suit: seat {seat} holds {len(held)} {_EFF_WORDS[e]} and must play "
            f"{need} of them, not {len(given)} (docs/rules.md §5)"
        )
    return (
        f"must follow the lead's pairs and tractors with its own of {_EFF_WORDS[e]} as far "
        f"as it can (docs/rules.md §5); e.g. {format_cards(core.follows([], 1)[0])}"
        if core.follows([], 1)
        else "illegal follow (docs/rules.md §5)"
    )


def card_refusal(core: Any, code: int, picked: tuple[int, ...]) -> str:
    """Why a card cannot extend the play being built (card by card) with ``picked``."""
    decision, seat = core.pending
    if code not in core.hand(seat) and (decision != "bury" or code not in core.bury_pool()):
        return f"seat {seat} does not hold {format_cards([code])}"
    if decision == "lead":
        return "a lead must be of one effective suit: this card is of another"
    if decision == "follow":
        return (
            f"{format_cards([code])} cannot be part of a legal follow with "
            f"{format_cards(picked) or 'nothing'} picked (docs/rules.md §5: follow "
            "suit, then pairs and tractors)"
        )
    return f"{format_cards([code])} is not available"
