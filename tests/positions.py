"""Random positions for the differential tests: deals, mid-hand hands, leads of every kind.

A position is a pure function of (base seed, index): numpy's SeedSequence with the index as
spawn key, so a failure names the two numbers that rebuild it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fastsheng.cards import format_cards
from fastsheng.rules import get_rules, list_presets

# Play switches worth flipping on top of a preset (docs/rules.md §7).
PLAY_SWITCHES = {
    "tractor_chain": ("full", "limited"),
    "nt_level_tractor": (True, False),
    "throw_follow": ("shape", "suit"),
    "void_fill": ("any", "trump_first"),
    "overtrump_throw": ("decisive", "every"),
    "kitty_multiplier": ("plus_two", "linear", "powers", "cards"),
    "throw_kitty": ("at_least_3", "largest", "pair_4"),
}
LEVELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
TRUMPS = ("S", "H", "C", "D", None)


@dataclass
class Position:
    seed: int
    index: int
    rules: object
    level: str
    trump: str | None
    hands: list[list[int]]  # four hands, seat 0 leads
    lead: list[int]  # cards seat 0 tries to lead (may be illegal or a failing throw)
    extra: list[list[int]] = field(default_factory=list)  # random card sets for units()

    def describe(self) -> str:
        hands = " | ".join(format_cards(sorted(h)) for h in self.hands)
        return (
            f"position seed={self.seed} index={self.index}: rules={self.rules.name} "
            f"level={self.level} trump={self.trump} lead=[{format_cards(sorted(self.lead))}] "
            f"hands: {hands}"
        )


def _pick(rng: np.random.Generator, seq):
    return seq[int(rng.integers(len(seq)))]


def random_position(seed: int, index: int, ctx_factory) -> Position:
    """A random position; ctx_factory(rules, level, trump) gives a context used to choose leads
    by effective suit (the reference's, so leads do not depend on the code under test)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))
    rules = get_rules(_pick(rng, list_presets()))
    overrides = {k: _pick(rng, v) for k, v in PLAY_SWITCHES.items() if rng.random() < 0.3}
    if overrides:
        rules = rules.replace(**overrides)
    level = _pick(rng, LEVELS)
    trump = _pick(rng, TRUMPS)
    ctx = ctx_factory(rules, level, trump)

    deck = np.repeat(np.arange(54), 2)
    rng.shuffle(deck)
    # mid-hand: everyone holds the same number of cards, 1..25
    size = int(rng.integers(1, 26)) if rng.random() < 0.7 else 25
    hands = [sorted(int(c) for c in deck[25 * s : 25 * s + size]) for s in range(4)]

    lead = _random_lead(rng, ctx, hands[0])
    extra = [sorted(int(c) for c in rng.choice(deck, size=int(rng.integers(1, 14)), replace=False))]
    return Position(seed, index, rules, level, trump, hands, lead, extra)


def _random_lead(rng: np.random.Generator, ctx, hand: list[int]) -> list[int]:
    by_suit: dict[int, list[int]] = {}
    for c in hand:
        by_suit.setdefault(ctx.effective_suit(c), []).append(c)
    roll = rng.random()
    if roll < 0.05 and len(by_suit) > 1:
        # illegal: two effective suits
        a, b = list(by_suit)[:2]
        return [by_suit[a][0], by_suit[b][0]]
    cards = by_suit[_pick(rng, sorted(by_suit))]
    units = ctx.units(cards)
    structured = [u for kind, u in units if kind != "single"]
    if roll < 0.35:
        return [_pick(rng, cards)]
    if roll < 0.6 and structured:
        unit = _pick(rng, structured)
        if len(unit) > 4 and rng.random() < 0.5:
            # a sub-tractor of a longer run
            k = 2 * int(rng.integers(2, len(unit) // 2 + 1))
            start = 2 * int(rng.integers(0, len(unit) // 2 - k // 2 + 1))
            unit = unit[start : start + k]
        return list(unit)
    # a throw: a random sub-multiset of the suit
    n = int(rng.integers(1, min(len(cards), 8) + 1))
    idx = rng.choice(len(cards), size=n, replace=False)
    return sorted(cards[i] for i in idx)


def random_subplay(rng: np.random.Generator, hand: list[int], n: int) -> list[int]:
    idx = rng.choice(len(hand), size=n, replace=False)
    return sorted(hand[i] for i in idx)


def multiset_choose_count(hand: list[int], n: int) -> int:
    """How many distinct n-card sub-multisets the hand has (to bound enumerations)."""
    counts = np.bincount(np.asarray(hand, dtype=np.int64), minlength=54)
    poly = np.zeros(n + 1, dtype=object)
    poly[0] = 1
    for c in counts[counts > 0]:
        new = poly.copy()
        for k in range(1, int(c) + 1):
            new[k:] += poly[: n + 1 - k]
        poly = new
    return int(poly[n])
