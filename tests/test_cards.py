"""Card codes, notation and bitboards (fastsheng.cards)."""

import pytest

from fastsheng import format_cards, parse_cards
from fastsheng.cards import (
    BB_POINTS,
    BIG_JOKER,
    SMALL_JOKER,
    card,
    from_bitboard,
    full_deck,
    lsb,
    points_of,
    popcount,
    to_bitboard,
)


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("2S", [0]),
        ("AS", [12]),
        ("10H", [13 + 8]),
        ("2C JC", [26, 26 + 9]),
        ("KD", [39 + 11]),
        ("SJ BJ", [SMALL_JOKER, BIG_JOKER]),
        ("JS", [9]),  # the jack of spades, not a joker
        ("♠A ♥10 ♣2 ♦K", [12, 21, 26, 50]),
        ("A♠ 10♥", [12, 21]),
        ("10h, as", [21, 12]),
    ],
)
def test_parse(text, codes):
    assert parse_cards(text) == codes


@pytest.mark.parametrize("bad", ["1H", "11S", "ZZ", "AX", "10", "J", "SJJ"])
def test_unknown_token_names_it(bad):
    with pytest.raises(ValueError, match=repr(bad)):
        parse_cards(f"AS {bad} KS")


def test_format_round_trip():
    deck = full_deck()
    assert len(deck) == 108
    assert parse_cards(format_cards(deck)) == deck
    assert format_cards([21, 12, 52, 53]) == "10H AS SJ BJ"
    assert card("10", "H") == 21


def test_points_total_200():
    assert sum(points_of(c) for c in full_deck()) == 200
    assert popcount(BB_POINTS) == 12


def test_bitboards():
    cards = parse_cards("AS AS KS 2H BJ BJ")
    one, two = to_bitboard(cards)
    assert popcount(one) + popcount(two) == len(cards)
    assert from_bitboard(one, two) == sorted(cards)
    assert lsb(one) == min(cards)
    with pytest.raises(ValueError, match="appears 3 times"):
        to_bitboard(parse_cards("AS AS AS"))
