"""Card codes, text notation and bitboard masks.

A card is a small integer (uint8) naming one of the 54 distinct cards; the two copies of a card in
the double deck share a code. ``code = suit * 13 + rank`` for the 52 suited cards, with suits
S=0, H=1, C=2, D=3 and ranks 0..12 for 2, 3, ..., 10, J, Q, K, A; the small joker is 52 and the
big joker 53.

A hand is a multiset of codes (each at most twice). The core stores it as a bitboard: a pair of
uint64 masks ``(one, two)``: bit ``c`` of ``one`` is set when the hand holds at least one copy of
card ``c``, bit ``c`` of ``two`` when it holds both. ``two`` is always a subset of ``one``. Union,
removal, card counts (``popcount(one) + popcount(two)``) and pair counts (``popcount(two)``) are
then a handful of machine instructions.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Iterable, Sequence
from numbers import Integral

__all__ = [
    "SUITS",
    "RANKS",
    "LEVELS",
    "parse_level",
    "level_index",
    "SMALL_JOKER",
    "BIG_JOKER",
    "NUM_CODES",
    "BB_ALL",
    "BB_JOKERS",
    "BB_SUITS",
    "BB_RANKS",
    "BB_POINTS",
    "card",
    "suit_of",
    "rank_of",
    "is_joker",
    "points_of",
    "parse_card",
    "parse_cards",
    "as_code",
    "as_codes",
    "format_card",
    "format_cards",
    "full_deck",
    "to_bitboard",
    "from_bitboard",
    "popcount",
    "lsb",
    "rank_index",
    "suit_index",
]

SUITS = "SHCD"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SMALL_JOKER = 52
BIG_JOKER = 53
NUM_CODES = 54

_GLYPHS = {"♠": "S", "♥": "H", "♣": "C", "♦": "D", "♤": "S", "♡": "H", "♧": "C", "♢": "D"}
_RANK_ALIASES = {"T": "10"}  # the common shorthand for 10

BB_ALL = (1 << NUM_CODES) - 1
BB_JOKERS = (1 << SMALL_JOKER) | (1 << BIG_JOKER)
BB_SUITS = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
BB_RANKS = tuple(sum(1 << (13 * s + r) for s in range(4)) for r in range(13))
BB_POINTS = BB_RANKS[3] | BB_RANKS[8] | BB_RANKS[11]  # every 5, 10 and K


def card(rank: str | int, suit: str | int) -> int:
    """Code of the card of ``rank`` ("2".."A" or 0..12) and ``suit`` ("S" or 0..3)."""
    r = rank_index(rank) if isinstance(rank, str) else int(rank)
    s = suit_index(suit) if isinstance(suit, str) else int(suit)
    if not (0 <= r < 13 and 0 <= s < 4):
        raise ValueError(f"no card of rank {rank!r} and suit {suit!r}")
    return s * 13 + r


def _rank_or_none(rank: str) -> int | None:
    text = _RANK_ALIASES.get(rank.upper(), rank.upper())
    return RANKS.index(text) if text in RANKS else None


def rank_index(rank: str) -> int:
    """0..12 for "2".."A" (also accepts "T" for 10)."""
    index = _rank_or_none(rank)
    if index is None:
        raise ValueError(f"unknown rank {rank!r}; expected one of {', '.join(RANKS)}")
    return index


def level_index(level: str | int, what: str = "level") -> int:
    """0..12 for a rank name ("2".."A", "T" for 10) or a rank index 0..12 (numpy ints too): the
    one reading of a level or rank wherever the API takes either; ValueError naming ``what``."""
    if isinstance(level, str):
        index = _rank_or_none(level)
        if index is not None:
            return index
    elif not isinstance(level, bool) and hasattr(level, "__index__"):
        index = operator.index(level)
        if 0 <= index < 13:
            return index
    raise ValueError(f"unknown {what} {level!r}; expected 0..12 or one of {', '.join(RANKS)}")


#: What a level may be: a rank, or "random" (each hand its own, uniform).
LEVELS = (*RANKS, "random")


def parse_level(level: str, what: str = "level") -> str:
    """The one parser of a level as text (the CLI, RunSpec, the ladder, the hand API):
    ``"j"`` -> ``"J"``, ``"t"`` -> ``"10"``, ``"Random"`` -> ``"random"``; ValueError naming
    ``what`` (e.g. ``--level``) for anything else."""
    text = str(level).strip()
    if text.lower() == "random":
        return "random"
    try:
        return RANKS[rank_index(text)]
    except ValueError:
        raise ValueError(f"unknown {what} {level!r}; levels: 2..10, J, Q, K, A or random") from None


def suit_index(suit: str) -> int:
    """0..3 for "S", "H", "C", "D" (or their glyphs)."""
    text = _GLYPHS.get(suit, suit.upper())
    if len(text) != 1 or text not in SUITS:
        raise ValueError(f"unknown suit {suit!r}; expected one of S, H, C, D")
    return SUITS.index(text)


def suit_of(code: int) -> int:
    """0..3 for suited cards, 4 for jokers (their own pseudo-suit)."""
    return code // 13 if code < SMALL_JOKER else 4


def rank_of(code: int) -> int:
    """0..12 for suited cards, 13 for SJ, 14 for BJ."""
    return code % 13 if code < SMALL_JOKER else 13 + (code - SMALL_JOKER)


def is_joker(code: int) -> bool:
    return code >= SMALL_JOKER


def points_of(code: int) -> int:
    """5 for a 5, 10 for a 10 or a K, else 0."""
    if code >= SMALL_JOKER:
        return 0
    return {3: 5, 8: 10, 11: 10}.get(code % 13, 0)


def parse_card(token: str) -> int:
    """One card from text: ``10H``, ``AS``, ``♠A``/``A♠``, ``SJ``, ``BJ``."""
    raw = token.strip()
    text = "".join(_GLYPHS.get(ch, ch) for ch in raw).upper()
    if text in ("SJ", "BJ"):  # (never "JS": that is the jack of spades)
        return SMALL_JOKER if text == "SJ" else BIG_JOKER
    if len(text) >= 2:
        # rank then suit ("10H"), or suit then rank ("H10", as glyph-first notation reads)
        for rank_part, suit_part in ((text[:-1], text[-1]), (text[1:], text[0])):
            rank_part = _RANK_ALIASES.get(rank_part, rank_part)
            if rank_part in RANKS and suit_part in SUITS:
                return SUITS.index(suit_part) * 13 + RANKS.index(rank_part)
    raise ValueError(f"unknown card {token!r}")


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Cards from text separated by spaces or commas: ``"10H AS 2C SJ BJ"`` -> codes.

    Raises ``ValueError`` naming the first token that is not a card.
    """
    if isinstance(text, str):
        tokens = text.replace(",", " ").split()
    else:
        tokens = [str(t) for t in text]
    return [parse_card(tok) for tok in tokens]


_NOTATION = "card codes 0..53 or names like AS 10H SJ"


def as_code(card: object) -> int:
    """One card as the API takes it: a code 0..53 (an int, numpy ints too) or a name ("AS",
    "10h", "SJ"). Anything else (a float, a bool, a code out of range) is a ValueError: a
    float is never rounded into a card."""
    if isinstance(card, str):
        return parse_card(card)
    if isinstance(card, bool) or not isinstance(card, Integral):
        raise ValueError(f"not a card: {card!r} ({_NOTATION})")
    code = int(card)
    if not 0 <= code < NUM_CODES:
        raise ValueError(f"not a card code: {code} ({_NOTATION})")
    return code


def as_codes(cards: object) -> list[int]:
    """Cards as the API takes them wherever cards go in: a string in the notation of
    ``parse_cards`` ("AS AS 10H"), or a sequence (list, tuple, 1-d array) of codes or names.
    A dict, a set, a number or a float code is a ValueError naming it."""
    if isinstance(cards, str):
        return parse_cards(cards)
    if (isinstance(cards, Sequence) and not isinstance(cards, (bytes, bytearray))) or (
        type(cards).__name__ == "ndarray" and getattr(cards, "ndim", 0) == 1
    ):
        return [as_code(c) for c in cards]
    raise ValueError(
        f"expected cards ({_NOTATION}, as a list or a string), not {type(cards).__name__} {cards!r}"
    )


def format_card(code: int) -> str:
    if code == SMALL_JOKER:
        return "SJ"
    if code == BIG_JOKER:
        return "BJ"
    if not 0 <= code < SMALL_JOKER:
        raise ValueError(f"not a card code: {code!r}")
    return RANKS[code % 13] + SUITS[code // 13]


def format_cards(cards: Iterable[int]) -> str:
    """Space-separated notation, in the order given."""
    return " ".join(format_card(int(c)) for c in cards)


def full_deck() -> list[int]:
    """The 108 cards of the double deck, each code twice, in code order."""
    return [c for c in range(NUM_CODES) for _ in range(2)]


def to_bitboard(cards: Iterable[int]) -> tuple[int, int]:
    """``(one, two)`` masks of a multiset of codes; more than two copies is an error."""
    one = two = 0
    for c, n in Counter(int(x) for x in cards).items():
        if not 0 <= c < NUM_CODES:
            raise ValueError(f"not a card code: {c!r}")
        if n > 2:
            raise ValueError(f"{format_card(c)} appears {n} times; the double deck has two")
        one |= 1 << c
        if n == 2:
            two |= 1 << c
    return one, two


def from_bitboard(one: int, two: int) -> list[int]:
    """Sorted codes of a bitboard."""
    out: list[int] = []
    while one:
        c = lsb(one)
        out.append(c)
        if two >> c & 1:
            out.append(c)
        one &= one - 1
    return out


def popcount(mask: int) -> int:
    return mask.bit_count()


def lsb(mask: int) -> int:
    """Index of the lowest set bit (mask must be non-zero)."""
    return (mask & -mask).bit_length() - 1
