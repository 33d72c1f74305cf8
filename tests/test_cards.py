"""Card codes, notation and bitboards (fastsheng.cards)."""

import numpy as np
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


# --- one reading of a level or rank: cards.level_index, used by the core and the
# reference alike


LEVEL_FORMS = [("10", 8), ("t", 8), ("T", 8), ("a", 12), (8, 8), (np.int8(8), 8), (np.int64(3), 3)]


@pytest.mark.parametrize(("level", "index"), LEVEL_FORMS)
def test_every_level_form_reads_the_same_in_the_core_and_the_reference(level, index):
    from fastsheng import Context, can_declare, get_rules, reference
    from fastsheng.cards import RANKS, level_index

    rules = get_rules("standard")
    assert level_index(level) == index
    assert Context(rules, level=level).level == reference.Context(rules, level=level).level
    assert Context(rules, level=level).level == RANKS[index]
    # a numpy integer is a rank index, never the rank its digits spell ("3" is index 1)
    show = [index]  # the level card of spades
    assert can_declare(rules, level, [], 0, show)
    assert reference.can_declare(rules, level, [], 0, show)


@pytest.mark.parametrize("bad", ["Z", "1", 13, -1, True, 2.0, None])
def test_a_bad_level_gets_one_message_everywhere(bad):
    from fastsheng import Context, can_declare, get_rules, reference
    from fastsheng.cards import level_index

    rules = get_rules("standard")
    expected = f"unknown level {bad!r}; expected 0..12 or one of 2, 3, 4, 5, 6, 7, 8, 9, 10, J"
    calls = [
        lambda: level_index(bad),
        lambda: Context(rules, level=bad),
        lambda: reference.Context(rules, level=bad),
        lambda: can_declare(rules, bad, [], 0, [0]),
        lambda: reference.can_declare(rules, bad, [], 0, [0]),
    ]
    for call in calls:
        with pytest.raises(ValueError) as err:
            call()
        assert str(err.value).startswith(expected)


def test_card_points_are_one_table():
    from fastsheng import Context, get_rules
    from fastsheng.cards import BB_POINTS, points_of
    from fastsheng.engine.observation import _POINTS

    ctx = Context(get_rules("standard"), level="2", trump="S")
    for code in range(54):
        assert ctx.trick_points([[code]]) == points_of(code)  # the C count
        assert _POINTS[code] == points_of(code) / 10
        assert bool(BB_POINTS >> code & 1) == (points_of(code) > 0)
