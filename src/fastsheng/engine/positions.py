"""``Game.from_position``'s input checked and dealt (docs/game.md): a mid-hand position must be a
physical deal (four hands of one size, a kitty of 8, at most two copies of a card), its level a
rank, its trump a suit or none, and every play of its tricks legal by the rules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fastsheng import _state
from fastsheng.bots.names import BOT_INDEX
from fastsheng.cards import as_codes, format_cards
from fastsheng.engine.checks import core_level
from fastsheng.rules import Rules

__all__ = ["SUIT_TRUMP", "play_tricks", "position_stream", "start_position"]

SUIT_TRUMP = ("S", "H", "C", "D", None)


def position_stream(seed: int) -> list[int]:
    """The stream state of a position's game: its own spawn key, apart from every batch's."""
    ss = np.random.SeedSequence(int(seed), spawn_key=(2**32 - 1,))
    return [int(x) for x in ss.generate_state(4, np.uint64)]


def start_position(
    rules: Rules,
    level: str,
    trump: str | None,
    dealer: int,
    hands: Sequence[Sequence[int | str] | str],
    kitty: Sequence[int | str] | str,
    seed: int,
) -> Any:
    """A GameCore started at the position, the kitty buried by the dealer (ValueError naming
    what is not a position)."""
    if isinstance(level, str) and level.lower() == "random":
        raise ValueError("level: a position has one level, a rank 2..A (not 'random')")
    lv = core_level(level)
    if trump is not None and trump not in SUIT_TRUMP:
        raise ValueError(f"trump must be S, H, C, D or None, not {trump!r}")
    if isinstance(dealer, bool) or not (isinstance(dealer, (int, np.integer)) and 0 <= dealer < 4):
        raise ValueError(f"dealer must be a seat 0..3, not {dealer!r}")
    if isinstance(hands, str) or not isinstance(hands, Sequence) or len(hands) != 4:
        raise ValueError("hands: four hands, seat 0 first")
    held = [_position_cards(f"hands[{s}]", h) for s, h in enumerate(hands)]
    pile = _position_cards("kitty", kitty)
    _check_deal(held, pile)
    core = _state.GameCore()
    core.start_position(
        rules.core_fields(),
        [BOT_INDEX["expert-v1"]] * 4,
        0xF,
        position_stream(seed),
        lv,
        SUIT_TRUMP.index(trump),
        int(dealer),
        held,
        pile,
        0,
    )
    return core


def _position_cards(what: str, cards: object) -> list[int]:
    try:
        return as_codes(cards)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None


def _check_deal(hands: list[list[int]], kitty: list[int]) -> None:
    """A position's cards are a physical deal: four hands of one size (1..25), a kitty of 8,
    at most two copies of a card among them all. (Unequal hands would reach a follower with
    fewer cards than the lead, which no rule covers.)"""
    sizes = [len(h) for h in hands]
    if len(set(sizes)) != 1 or not 1 <= sizes[0] <= 25:
        raise ValueError(
            "hands: four hands of the same size, 1..25 cards (each seat has played as many "
            f"tricks), not {'/'.join(map(str, sizes))}"
        )
    if len(kitty) != 8:
        raise ValueError(f"kitty: 8 cards, got {len(kitty)}")
    places = [*(f"seat {s}" for s in range(4)), "the kitty"]
    counts: dict[int, list[int]] = {}
    for p, cards in enumerate([*hands, kitty]):
        for c in cards:
            counts.setdefault(c, [0] * 5)[p] += 1
    for c, where in sorted(counts.items()):
        if sum(where) > 2:
            found = ", ".join(f"{n} in {places[p]}" for p, n in enumerate(where) if n)
            raise ValueError(
                f"{format_cards([c])} appears {sum(where)} times ({found}); the double deck "
                "has two of each card"
            )


def play_tricks(game: Any, tricks: Any) -> None:
    """from_position's `tricks` played on ``game``: every trick but the last has one play per
    seat (the last may stop early, mid-trick); each play is checked by the rules."""
    if isinstance(tricks, str) or not isinstance(tricks, Sequence):
        raise ValueError("tricks: a list of tricks, each a list of plays from its leader")
    for k, trick in enumerate(tricks):
        if isinstance(trick, str) or not isinstance(trick, Sequence):
            raise ValueError(f"tricks[{k}]: a list of plays (one per seat), not {trick!r}")
        last = k == len(tricks) - 1
        if not (len(trick) == 4 or (last and 1 <= len(trick) < 4)):
            raise ValueError(
                f"tricks[{k}] has {len(trick)} plays; a trick is 4 plays (one per seat, "
                "from its leader; only the last trick may stop early)"
            )
        if game.decision != "lead":
            raise ValueError(f"tricks[{k}]: the hand is over after {k} tricks")
        for i, play in enumerate(trick):
            seat = game.to_act
            try:
                game.apply(as_codes(play))
            except ValueError as e:  # IllegalPlay too
                raise type(e)(f"tricks[{k}][{i}] (seat {seat}): {e}") from None
