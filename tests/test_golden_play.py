"""Golden tests of the play rules (docs/rules.md §2–§6), table-driven.

Every table runs against both implementations through the ``impl`` fixture (tests/conftest.py):
the plain-Python reference and the Cython core must give these exact answers. Cards are written in
notation; expected plays are compared as sorted code lists. Rows name their rules changes against
the ``standard`` preset.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from fastsheng.cards import parse_cards
from fastsheng.errors import IllegalPlay


@dataclasses.dataclass(frozen=True)
class _StandardStandIn:
    """The play switches of the standard preset, used only while fastsheng.rules is missing."""

    name: str = "standard (stand-in)"
    tractor_chain: str = "full"
    nt_level_tractor: bool = True
    throw_follow: str = "shape"
    void_fill: str = "any"
    overtrump_throw: str = "decisive"
    kitty_multiplier: str = "plus_two"
    throw_kitty: str = "at_least_3"
    partner_no_trump_after_failed_throw: bool = True


def rules(**changes):
    """The standard preset with some play switches changed."""
    try:
        from fastsheng.rules import get_rules
    except ImportError:
        return dataclasses.replace(_StandardStandIn(), **changes)
    base = get_rules("standard")
    if not changes:
        return base
    if hasattr(base, "replace"):
        return base.replace(**changes)
    return dataclasses.replace(base, **changes)


def C(text: str) -> list[int]:
    """Sorted codes of cards in notation."""
    return sorted(parse_cards(text))


LIMITED = {"tractor_chain": "limited"}
NT_NO_LEVEL = {"nt_level_tractor": False}


# ---------------------------------------------------------------------------------------------
# §2 keys: order, equality, adjacency


def test_keys_order_equality_adjacency(impl):
    ctx = impl(rules(), "6", "C")
    k = {name: ctx.key(parse_cards(name)[0]) for name in "AC 6H 6D 6S 6C SJ BJ 5C 7C 5H 7H".split()}
    assert k["6H"] == k["6D"] == k["6S"]
    assert k["5C"] + 1 == k["7C"] and k["5H"] + 1 == k["7H"]  # L removed from the chain
    assert k["AC"] + 1 == k["6H"]
    assert k["6H"] + 1 == k["6C"]
    assert k["6C"] + 1 == k["SJ"]
    assert k["SJ"] + 1 == k["BJ"]
    for code in parse_cards("6H 6D AC SJ BJ 2C"):
        assert ctx.is_trump(code) and ctx.effective_suit(code) == 4
    for code, suit in zip(parse_cards("AS AH AD"), (0, 1, 3), strict=True):
        assert not ctx.is_trump(code) and ctx.effective_suit(code) == suit


def test_keys_limited_chain(impl):
    ctx = impl(rules(**LIMITED), "6", "C")
    k = {name: ctx.key(parse_cards(name)[0]) for name in "KC AC 6H 6C SJ BJ".split()}
    assert k["KC"] + 1 == k["AC"]
    assert k["AC"] < k["6H"] < k["6C"] < k["SJ"] < k["BJ"]
    assert k["AC"] + 1 != k["6H"] and k["6H"] + 1 != k["6C"]
    assert k["6C"] + 1 == k["SJ"] and k["SJ"] + 1 == k["BJ"]


@pytest.mark.parametrize("adjacent", [True, False])
def test_keys_no_trump(impl, adjacent):
    ctx = impl(rules(nt_level_tractor=adjacent), "6", None)
    k = {name: ctx.key(parse_cards(name)[0]) for name in "6S 6H 6C 6D SJ BJ".split()}
    assert k["6S"] == k["6H"] == k["6C"] == k["6D"] < k["SJ"] < k["BJ"]
    assert (k["6S"] + 1 == k["SJ"]) is adjacent
    assert k["SJ"] + 1 == k["BJ"]
    assert ctx.effective_suit(parse_cards("AC")[0]) == 2
    assert ctx.is_trump(parse_cards("6C")[0])


# ---------------------------------------------------------------------------------------------
# §3/§4 lead kinds

LEAD_KINDS = [
    # (rules changes, level, trump, cards, kind)
    ({}, "6", "C", "5C 5C 7C 7C", "tractor"),
    ({}, "6", "H", "5C 5C 7C 7C", "tractor"),
    ({}, "6", None, "5C 5C 7C 7C", "tractor"),
    ({}, "6", "C", "AC AC 6H 6H", "tractor"),  # trump A + 副级 pair
    ({}, "6", "C", "6H 6H 6C 6C", "tractor"),  # 副级 + 主级
    ({}, "6", "C", "6C 6C SJ SJ", "tractor"),
    ({}, "6", "C", "SJ SJ BJ BJ", "tractor"),
    ({}, "6", "C", "AC AC 6H 6H 6C 6C SJ SJ BJ BJ", "tractor"),
    ({}, "6", "C", "6H 6H 6S 6S", "throw"),  # two 副级 pairs are equal, not adjacent
    ({}, "6", "C", "KC KC 6H 6H", "throw"),
    ({}, "6", "C", "6H 6S", "throw"),  # 副级 of two suits are not a pair
    ({}, "6", "C", "SJ BJ", "throw"),  # SJ + BJ is not a pair
    ({}, "6", "C", "6H 6H", "pair"),
    ({}, "6", "C", "5C", "single"),
    ({}, "6", "C", "6D", "single"),
    ({}, "6", "C", "AC 6H", "throw"),
    ({}, "A", "C", "KC KC AH AH", "tractor"),  # L = A: trump K is the top of the suit
    ({}, "A", "C", "QC QC KC KC", "tractor"),
    ({}, "A", "C", "KC KC AC AC", "throw"),
    ({}, "6", None, "6H 6H SJ SJ", "tractor"),
    ({}, "6", None, "6H 6H SJ SJ BJ BJ", "tractor"),
    ({}, "6", None, "6H 6H 6S 6S", "throw"),
    ({}, "6", None, "SJ SJ BJ BJ", "tractor"),
    (NT_NO_LEVEL, "6", None, "6H 6H SJ SJ", "throw"),
    (NT_NO_LEVEL, "6", None, "SJ SJ BJ BJ", "tractor"),
    (LIMITED, "6", "C", "AC AC 6H 6H", "throw"),
    (LIMITED, "6", "C", "6H 6H 6C 6C", "throw"),
    (LIMITED, "6", "C", "AC AC 6C 6C", "throw"),
    (LIMITED, "6", "C", "6C 6C SJ SJ", "tractor"),
    (LIMITED, "6", "C", "6C 6C SJ SJ BJ BJ", "tractor"),
    (LIMITED, "6", "C", "KC KC AC AC", "tractor"),
    (LIMITED, "6", "C", "5H 5H 7H 7H", "tractor"),
    (LIMITED, "6", None, "6H 6H SJ SJ", "tractor"),  # reading: tractor_chain is not about NT
]


@pytest.mark.parametrize(("changes", "level", "trump", "cards", "kind"), LEAD_KINDS)
def test_lead_kind(impl, changes, level, trump, cards, kind):
    assert impl(rules(**changes), level, trump).lead_kind(parse_cards(cards)) == kind


@pytest.mark.parametrize(
    ("level", "trump", "cards"),
    [("6", "C", "AH 6H"), ("6", "C", "5H 5S"), ("6", "C", ""), ("6", None, "5C 6C")],
)
def test_lead_kind_illegal(impl, level, trump, cards):
    with pytest.raises(IllegalPlay):
        impl(rules(), level, trump).lead_kind(parse_cards(cards))


def test_bad_cards_raise_value_error(impl):
    ctx = impl(rules(), "2", "H")
    with pytest.raises(ValueError):
        ctx.units([5, 5, 5])
    with pytest.raises(ValueError):
        ctx.units([54])
    with pytest.raises(ValueError):
        ctx.lead_kind([-1])
    with pytest.raises(ValueError):
        ctx.legal_follows([7, 7, 7], [7])


# ---------------------------------------------------------------------------------------------
# §3 units

UNITS = [
    # (rules changes, level, trump, cards, [(kind, cards), ...] in listing order)
    (
        {},
        "2",
        "H",
        "AS KS KS QS QS 9S 9S 5S",
        [("tractor", "QS QS KS KS"), ("pair", "9S 9S"), ("single", "AS"), ("single", "5S")],
    ),
    (
        {},
        "2",
        "H",
        "3H 3H 4H 4H 5S 5S 6S 6S 7S 7S BJ 2D",
        [
            ("tractor", "5S 5S 6S 6S 7S 7S"),
            ("tractor", "3H 3H 4H 4H"),
            ("single", "BJ"),
            ("single", "2D"),
        ],
    ),
    (
        {},
        "6",
        "C",
        "AC AC 6S 6S 6H 6H 6C 6C",
        [("tractor", "6S 6S 6C 6C AC AC"), ("pair", "6H 6H")],
    ),
    ({}, "6", "C", "6S 6S 6H 6H 6C 6C", [("tractor", "6S 6S 6C 6C"), ("pair", "6H 6H")]),
    (
        {},
        "6",
        "C",
        "5C 5C AC AC 6S 6S 6H 6H",
        [("tractor", "6S 6S AC AC"), ("pair", "6H 6H"), ("pair", "5C 5C")],
    ),
    ({}, "6", None, "6S 6S 6H 6H SJ SJ", [("tractor", "6S 6S SJ SJ"), ("pair", "6H 6H")]),
    (NT_NO_LEVEL, "6", None, "6S 6S SJ SJ BJ BJ", [("tractor", "SJ SJ BJ BJ"), ("pair", "6S 6S")]),
    (
        {},
        "2",
        "H",
        "AD AD KC QS QS 3H 3H SJ",
        [
            ("pair", "3H 3H"),
            ("pair", "QS QS"),
            ("pair", "AD AD"),
            ("single", "SJ"),
            ("single", "KC"),
        ],
    ),
    (
        {},
        "2",
        "H",
        "3S 3S 4S 4S 9S 9S 10S 10S 5D 5D 6D 6D",
        [("tractor", "9S 9S 10S 10S"), ("tractor", "3S 3S 4S 4S"), ("tractor", "5D 5D 6D 6D")],
    ),
    (
        {},
        "2",
        "H",
        "3D 3D 4D 4D 5D 5D AS AS KS KS",
        [("tractor", "3D 3D 4D 4D 5D 5D"), ("tractor", "KS KS AS AS")],
    ),
    (
        {},
        "2",
        "H",
        "3S 3S 4S 4S 5S 5S 6S 6S 8S 8S 9S 9S",
        [("tractor", "3S 3S 4S 4S 5S 5S 6S 6S"), ("tractor", "8S 8S 9S 9S")],
    ),
    ({}, "6", "C", "6D 6H 6S", [("single", "6S"), ("single", "6H"), ("single", "6D")]),
    (
        LIMITED,
        "6",
        "C",
        "AC AC 6H 6H 6C 6C SJ SJ",
        [("tractor", "6C 6C SJ SJ"), ("pair", "6H 6H"), ("pair", "AC AC")],
    ),
]


@pytest.mark.parametrize(("changes", "level", "trump", "cards", "expected"), UNITS)
def test_units(impl, changes, level, trump, cards, expected):
    got = impl(rules(**changes), level, trump).units(parse_cards(cards))
    assert [(kind, list(u)) for kind, u in got] == [(kind, C(u)) for kind, u in expected]


# ---------------------------------------------------------------------------------------------
# §4 throw check

THROWS = [
    # (rules changes, level, trump, lead, the other three hands, cards actually led)
    # the example of docs/rules.md: both units beaten, the single has fewer cards
    ({}, "2", "H", "KS 9S 9S", ["AS 3D", "4C 4C", "10S 10S 5H"], "KS"),
    ({}, "2", "H", "KS 9S 9S", ["QS 3D", "4C 4C", "10S 10S"], "9S 9S"),  # only the pair
    ({}, "2", "H", "KS 9S 9S", ["QS", "8S 8S", "AH AH"], "KS 9S 9S"),  # trumps do not count
    ({}, "2", "H", "KS 9S 9S", ["", "10S 10S", ""], "9S 9S"),  # partner counts too
    ({}, "2", "H", "AS 7S 7S 6S 6S", ["8S 8S 9S 9S", "", ""], "6S 6S 7S 7S"),
    ({}, "2", "H", "AS 7S 7S 6S 6S", ["5S 5S 8S 8S", "KS", "QS QS"], "AS 7S 7S 6S 6S"),
    ({}, "2", "H", "KS QS 3S", ["AS", "", ""], "3S"),  # lowest key
    ({}, "6", "C", "6S 6H", ["6C", "", ""], "6S"),  # equal keys: lowest code
    ({}, "6", "C", "6S 6S 6D", ["6H 6H", "", ""], "6S 6S 6D"),  # equal keys never beat
    ({}, "6", "C", "AC KC KC", ["6D", "", ""], "AC"),  # 副级 beats trump A
    ({}, "6", "C", "AC KC KC", ["", "BJ", ""], "AC"),
    ({}, "6", "C", "BJ KC KC", ["6H 6H", "", ""], "KC KC"),  # level pair beats KK
    ({}, "6", "C", "BJ KC KC", ["", "", "SJ SJ"], "KC KC"),
    ({}, "6", "C", "BJ KC KC", ["QC", "AC", "6H 6D"], "BJ KC KC"),
    ({}, "6", "C", "AC AC KC KC BJ", ["6H 6H 6C 6C", "", ""], "KC KC AC AC"),
    ({}, "6", "C", "AC AC KC KC BJ", ["6H 6H 6D 6D", "", ""], "AC AC KC KC BJ"),
    ({}, "6", "C", "AC AC KC KC 3C", ["6C 6C SJ SJ", "", ""], "3C"),  # fewest cards
    (LIMITED, "6", "C", "AC AC KC KC BJ", ["6H 6H 6C 6C", "", ""], "AC AC KC KC BJ"),
    (LIMITED, "6", "C", "AC AC KC KC BJ", ["6C 6C SJ SJ", "", ""], "KC KC AC AC"),
    ({}, "6", None, "6S SJ SJ", ["6H", "6D 6D", ""], "6S SJ SJ"),
    ({}, "6", None, "6S SJ SJ", ["BJ BJ", "", ""], "6S"),
    ({}, "2", "H", "9S 9S", ["KS KS", "AS AS", ""], "9S 9S"),  # one unit: always led
    ({}, "2", "H", "9S 9S 10S 10S", ["KS KS AS AS", "", ""], "9S 9S 10S 10S"),
]


@pytest.mark.parametrize(("changes", "level", "trump", "lead", "others", "led"), THROWS)
def test_check_throw(impl, changes, level, trump, lead, others, led):
    ctx = impl(rules(**changes), level, trump)
    got = ctx.check_throw(parse_cards(lead), [parse_cards(h) for h in others])
    assert list(got) == C(led)


# ---------------------------------------------------------------------------------------------
# §5 following

FOLLOWS = [
    # (rules changes, level, trump, hand, lead, every legal play)
    ({}, "2", "H", "KS 5S 4D", "9S", ["5S", "KS"]),
    ({}, "2", "H", "KS KS 5S 3S 4D", "9S 9S", ["KS KS"]),
    ({}, "2", "H", "KS 5S 3S 4D", "9S 9S", ["3S 5S", "3S KS", "5S KS"]),
    ({}, "2", "H", "KS 4D 4D 5C", "9S 9S", ["KS 5C", "KS 4D"]),  # short: any fill
    ({}, "2", "H", "KS 4D 4D 3H", "9S 9S", ["KS 3H", "KS 4D"]),
    ({"void_fill": "trump_first"}, "2", "H", "KS 4D 4D 3H", "9S 9S", ["KS 3H"]),
    (
        {"void_fill": "trump_first"},
        "2",
        "H",
        "3H 4D 5D 6C 7C",
        "9S 9S 10S 10S",
        ["3H 5D 6C 7C", "3H 4D 6C 7C", "3H 4D 5D 7C", "3H 4D 5D 6C"],
    ),
    ({"void_fill": "trump_first"}, "2", "H", "4H 5D 6D", "3H 3H", ["4H 5D", "4H 6D"]),
    (
        {},
        "2",
        "H",
        "2S 2D 7H BJ 9C",
        "5H 5H",  # 2S + 2D is not a pair: any two trumps
        ["2S 2D", "2S 7H", "2S BJ", "2D 7H", "2D BJ", "7H BJ"],
    ),
    (
        {},
        "6",
        "C",
        "6H 6S 6D 3C 9H",
        "7C 7C",
        ["6S 6H", "6S 3C", "6S 6D", "6H 3C", "6H 6D", "3C 6D"],
    ),
    # tractor led: a tractor if held, else pairs, else singles
    ({}, "2", "H", "3S 3S 4S 4S 7S 7S 8S 5D", "9S 9S 10S 10S", ["3S 3S 4S 4S"]),
    ({}, "2", "H", "3S 3S 5S 5S 7S 8S", "9S 9S 10S 10S", ["3S 3S 5S 5S"]),
    (
        {},
        "2",
        "H",
        "3S 3S 5S 7S 8S",
        "9S 9S 10S 10S",
        ["3S 3S 5S 7S", "3S 3S 5S 8S", "3S 3S 7S 8S"],
    ),
    (
        {},
        "2",
        "H",
        "3S 5S 7S 8S JS 4H",
        "9S 9S 10S 10S",
        ["3S 5S 7S 8S", "3S 5S 7S JS", "3S 5S 8S JS", "3S 7S 8S JS", "5S 7S 8S JS"],
    ),
    ({}, "2", "H", "3S 3S 4S 4S 7S 7S KS", "9S 9S 10S 10S JS JS", ["3S 3S 4S 4S 7S 7S"]),
    (
        {},
        "2",
        "H",
        "3S 3S 4S 4S 5S 5S 6S 6S",
        "9S 9S 10S 10S JS JS",
        ["3S 3S 4S 4S 5S 5S", "4S 4S 5S 5S 6S 6S"],
    ),
    ({}, "6", "C", "AC AC 6H 6H 3C 3C 4D", "6C 6C SJ SJ", ["6H 6H AC AC"]),
    (
        LIMITED,
        "6",
        "C",
        "AC AC 6H 6H 3C 3C 4D",
        "6C 6C SJ SJ",
        ["6H 6H 3C 3C", "3C 3C AC AC", "6H 6H AC AC"],
    ),
    # throws: tractors for the lead's tractors, then pairs up to its pair count
    ({}, "2", "H", "JS JS 9S 5S 3S", "AS QS QS", ["3S JS JS", "5S JS JS", "9S JS JS"]),
    (
        {"throw_follow": "suit"},
        "2",
        "H",
        "JS JS 9S 5S 3S",
        "AS QS QS",
        ["3S 5S 9S", "3S 5S JS", "3S 9S JS", "3S JS JS", "5S 9S JS", "5S JS JS", "9S JS JS"],
    ),
    ({}, "2", "H", "QS QS JS JS 7S 7S 5S 3S", "AS AS KS KS 9S 9S", ["QS QS JS JS 7S 7S"]),
    (
        {},
        "2",
        "H",
        "QS QS 10S 10S 7S 5S 3S",
        "AS AS KS KS 9S 9S",
        ["3S 5S 10S 10S QS QS", "3S 7S 10S 10S QS QS", "5S 7S 10S 10S QS QS"],
    ),
    ({}, "2", "H", "3S 3S 4S 4S 5S 5S 8S", "AS AS KS KS 9S 9S", ["3S 3S 4S 4S 5S 5S"]),
    (
        {},
        "2",
        "H",
        "5S 5S 6S 6S 9S 9S JS",  # the tractor is owed even though two pairs would do
        "KS KS AS AS 3S",
        ["5S 5S 6S 6S 9S", "5S 5S 6S 6S JS"],
    ),
    (
        {"throw_follow": "suit"},
        "2",
        "H",
        "3S 3S 4S 4S",  # a one-unit lead is no throw: shape still owed under "suit"
        "9S 9S 10S 10S",
        ["3S 3S 4S 4S"],
    ),
]


@pytest.mark.parametrize(("changes", "level", "trump", "hand", "lead", "expected"), FOLLOWS)
def test_legal_follows(impl, changes, level, trump, hand, lead, expected):
    ctx = impl(rules(**changes), level, trump)
    got = ctx.legal_follows(parse_cards(hand), parse_cards(lead))
    assert [list(p) for p in got] == sorted(C(p) for p in expected)
    for play in expected:
        assert ctx.is_legal_follow(parse_cards(hand), parse_cards(lead), parse_cards(play))


def test_is_legal_follow_rejects(impl):
    ctx = impl(rules(), "2", "H")
    hand, lead = C("KS KS 5S 3S 4D"), C("9S 9S")
    assert ctx.is_legal_follow(hand, lead, C("KS KS"))
    assert not ctx.is_legal_follow(hand, lead, C("5S 3S"))  # a pair is owed
    assert not ctx.is_legal_follow(hand, lead, C("KS"))  # wrong count
    assert not ctx.is_legal_follow(hand, lead, C("KS KS 5S"))
    assert not ctx.is_legal_follow(hand, lead, C("AS AS"))  # not in the hand
    assert not ctx.is_legal_follow(hand, lead, C("KS KS KS"))
    assert not ctx.is_legal_follow(hand, lead, [99, 99])
    with pytest.raises(IllegalPlay):
        ctx.is_legal_follow(hand, C("9S 9H"), C("KS KS"))


# invariants: legal_follows against is_legal_follow on every candidate of small positions
POSITIONS = [
    ({}, "2", "H", "3S 3S 4S 4S 5S 7S 7S 9D 3H 3H SJ", "9S 9S 10S 10S"),
    ({}, "2", "H", "3S 3S 4S 4S 5S 7S 7S 9D 3H 3H SJ", "AS QS QS JS JS"),
    ({}, "2", "H", "3S 3S 4S 4S 5S 5S 6S 6S 8S 8S 7S QS 2D", "9S 9S 10S 10S JS JS KS KS AS AS"),
    ({"void_fill": "trump_first"}, "2", "H", "4D 4D 5C 3H 3H BJ 2S 7D 9S", "KS QS QS"),
    ({}, "6", "C", "6H 6H 6S 6C 3C 3C 4C 4C SJ 9D AD", "KC KC AC AC"),
    ({"throw_follow": "suit"}, "2", "H", "3S 3S 4S 5S 6S 6S KD", "AS QS QS"),
    (LIMITED, "6", "C", "AC AC 6H 6H 6C 6C SJ 3C 3C 9D", "5C 5C 7C 7C"),
    (NT_NO_LEVEL, "6", None, "6H 6H 6S 6S SJ SJ BJ 5D", "6D 6D 6C 6C"),
    ({}, "6", None, "6H 6H 6S 6S SJ SJ BJ 5D", "6D 6D BJ"),
]


@pytest.mark.parametrize(("changes", "level", "trump", "hand", "lead"), POSITIONS)
def test_legal_follows_agree_with_is_legal_follow(impl, changes, level, trump, hand, lead):
    ctx = impl(rules(**changes), level, trump)
    hand_cards, lead_cards = C(hand), C(lead)
    legal = [list(p) for p in ctx.legal_follows(hand_cards, lead_cards)]
    assert legal, "a hand with enough cards always has a legal play"
    assert legal == sorted(legal)
    assert len({tuple(p) for p in legal}) == len(legal)
    for play in legal:
        assert len(play) == len(lead_cards) and play == sorted(play)
    candidates = {tuple(p) for p in itertools.combinations(hand_cards, len(lead_cards))}
    for cand in sorted(candidates):
        assert ctx.is_legal_follow(hand_cards, lead_cards, list(cand)) == (list(cand) in legal)


# ---------------------------------------------------------------------------------------------
# §6 winning a trick

WINNERS = [
    # (rules changes, level, trump, plays in order, barred, index of the winner)
    ({}, "6", "C", ["6S", "6H"], (), 0),  # equal 副级 singles: first played wins
    ({}, "6", "C", ["5S", "6H", "6D"], (), 1),
    ({}, "2", "H", ["KD", "KD"], (), 0),  # two copies of the same card
    ({}, "2", "H", ["3S", "KS", "KS", "4S"], (), 1),
    ({}, "2", "H", ["3S", "5S", "KS", "4S"], (), 2),
    ({}, "2", "H", ["3S", "AD", "2C", "SJ"], (), 3),  # discard never wins; trump, over-trump
    ({}, "2", "H", ["3S", "AD", "2C", "AH"], (), 2),  # 副级 above trump A
    ({}, "2", "H", ["9S 9S", "3H 4H", "QS JS", "AD AD"], (), 0),  # trump singles vs a pair
    ({}, "2", "H", ["9S 9S", "3H 3H", "QS QS", "2C 2C"], (), 3),  # trump pair; over-trump
    ({}, "2", "H", ["9S 9S", "5H 5H", "4H 4H", "QS QS"], (), 1),
    ({}, "2", "H", ["9S 9S", "3H AD", "SJ BJ", "10S 10S"], (), 3),  # mixed / SJ+BJ no pair
    ({}, "2", "H", ["9S 9S", "QS JS"], (), 0),
    ({}, "6", "C", ["9S 9S", "6H 6H", "6D 6D"], (), 1),  # equal trump pairs
    ({}, "2", "H", ["9S 9S 10S 10S", "JS JS QS QS"], (), 1),
    ({}, "2", "H", ["9S 9S 10S 10S", "AS AS QS QS"], (), 0),
    ({}, "2", "H", ["9S 9S 10S 10S", "3H 3H 5H 5H"], (), 0),  # pairs against a tractor
    ({}, "2", "H", ["9S 9S 10S 10S", "3H 3H 5H 5H", "6H 6H 7H 7H"], (), 2),
    ({}, "2", "H", ["3H 3H 4H 4H", "AH AH 2D 2D", "2S 2S 2H 2H"], (), 2),
    ({}, "6", "C", ["AS AS KS KS", "AC AC 6H 6H", "6D 6D 6C 6C", "SJ SJ BJ BJ"], (), 3),
    ({}, "6", "C", ["AS AS KS KS", "AC AC 6H 6H", "6D 6D 6C 6C"], (), 2),
    ({}, "6", "C", ["AS AS KS KS", "6H 6H 6S 6S"], (), 0),
    (LIMITED, "6", "C", ["AS AS KS KS", "AC AC 6H 6H"], (), 0),
    (LIMITED, "6", "C", ["AS AS KS KS", "AC AC 6H 6H", "6C 6C SJ SJ"], (), 2),
    ({}, "6", None, ["6S", "6H"], (), 0),
    ({}, "6", None, ["5S", "6H"], (), 1),
    ({}, "6", None, ["5S", "AS", "6H", "SJ"], (), 3),
    ({}, "6", None, ["6S 6S", "SJ SJ"], (), 1),
    # throws: the decisive unit decides ...
    ({}, "2", "H", ["AS KS KS", "3H 3H 5H"], (), 1),
    ({}, "2", "H", ["AS KS KS", "3H 4H 5H"], (), 0),
    ({}, "2", "H", ["AS KS KS", "3H 3H AH", "4H 4H 5H"], (), 2),
    ({}, "2", "H", ["QS 9S 9S", "3S JS JS"], (), 1),
    ({}, "2", "H", ["AS QS QS JS JS", "3H 3H 4H 4H 6H"], (), 1),
    ({}, "2", "H", ["AS QS QS JS JS", "3H 3H 5H 5H 6H"], (), 0),
    ({}, "2", "H", ["AS QS QS JS JS", "3H 3H 4H 4H 6H", "7H 7H 8H 8H 4D"], (), 1),
    ({}, "2", "H", ["AS QS QS JS JS", "3H 3H 4H 4H 6H", "7H 7H 8H 8H 5H"], (), 2),
    # ... or, with overtrump_throw = every, every unit must be higher
    ({"overtrump_throw": "every"}, "2", "H", ["AS KS KS", "3H 3H 5H"], (), 1),
    ({"overtrump_throw": "every"}, "2", "H", ["AS KS KS", "3H 3H AH", "4H 4H 5H"], (), 1),
    ({"overtrump_throw": "every"}, "2", "H", ["AS KS KS", "3H 3H 5H", "4H 4H 6H"], (), 2),
    ({"overtrump_throw": "every"}, "2", "H", ["QS 9S 9S", "3S JS JS"], (), 0),
    ({"overtrump_throw": "every"}, "2", "H", ["QS 9S 9S", "KS JS JS"], (), 1),
    (
        {"overtrump_throw": "every"},
        "2",
        "H",
        ["AS QS QS JS JS", "3H 3H 4H 4H 6H", "7H 7H 8H 8H 5H"],
        (),
        1,
    ),
    (
        {"overtrump_throw": "every"},
        "2",
        "H",
        ["AS QS QS JS JS", "3H 3H 4H 4H 6H", "7H 7H 8H 8H 9H"],
        (),
        2,
    ),
    ({"overtrump_throw": "every"}, "2", "H", ["9S 9S", "3H 3H", "4H 4H"], (), 2),  # no throw
    # plays barred from winning by trumping (a failed throw by the dealer side)
    ({}, "2", "H", ["9S", "3H", "4S"], (1,), 0),
    ({}, "2", "H", ["9S", "3H", "4S"], (), 1),
    ({}, "2", "H", ["9S", "3H", "4H"], (1,), 2),
    ({}, "2", "H", ["9S", "KS", "3H"], (2,), 1),
    ({}, "2", "H", ["3H", "5H"], (1,), 1),  # following a trump lead is not trumping
]


@pytest.mark.parametrize(("changes", "level", "trump", "plays", "barred", "winner"), WINNERS)
def test_trick_winner(impl, changes, level, trump, plays, barred, winner):
    ctx = impl(rules(**changes), level, trump)
    assert ctx.trick_winner([parse_cards(p) for p in plays], barred=barred) == winner


def test_trick_winner_illegal_lead(impl):
    ctx = impl(rules(), "2", "H")
    with pytest.raises(IllegalPlay):
        ctx.trick_winner([C("9S 9D"), C("3S 4S")])


# ---------------------------------------------------------------------------------------------
# §6 points and kitty multipliers

POINTS = [
    ([], 0),
    (["5S", "10H", "KD", "3C"], 25),
    (["5S 5S", "10H KD", "SJ BJ", "AS 2C"], 30),
    (["5S 5H 5C 5D 10S 10H 10C 10D KS KH KC KD"], 100),
]


@pytest.mark.parametrize(("plays", "points"), POINTS)
def test_trick_points(impl, plays, points):
    assert impl(rules(), "2", "H").trick_points([parse_cards(p) for p in plays]) == points


KITTY_LEADS = {
    "single": "3S",
    "pair": "3S 3S",
    "tractor2": "3S 3S 4S 4S",
    "tractor3": "3S 3S 4S 4S 5S 5S",
}
# single, pair, tractor of 2, tractor of 3 (docs/rules.md §6 table)
KITTY_UNITS = {
    "linear": (2, 4, 8, 12),
    "plus_two": (2, 4, 6, 8),
    "powers": (2, 4, 8, 16),
    "cards": (1, 2, 4, 6),
}
KITTY_THROWS = {
    # throws whose decisive unit is a single, a pair, a tractor of 2, a tractor of 3
    "leads": ("AS 3S", "AS 3S 3S", "AS 3S 3S 4S 4S", "AS 3S 3S 4S 4S 5S 5S"),
    ("linear", "largest"): (2, 4, 8, 12),
    ("linear", "at_least_3"): (3, 4, 8, 12),
    ("linear", "pair_4"): (2, 4, 4, 4),
    ("plus_two", "largest"): (2, 4, 6, 8),
    ("plus_two", "at_least_3"): (3, 4, 6, 8),
    ("plus_two", "pair_4"): (2, 4, 4, 4),
    ("powers", "largest"): (2, 4, 8, 16),
    ("powers", "at_least_3"): (3, 4, 8, 16),
    ("powers", "pair_4"): (2, 4, 4, 4),
    ("cards", "largest"): (1, 2, 4, 6),
    ("cards", "at_least_3"): (3, 3, 4, 6),
    ("cards", "pair_4"): (2, 4, 4, 4),
}


@pytest.mark.parametrize("scheme", sorted(KITTY_UNITS))
@pytest.mark.parametrize("throw_kitty", ["largest", "at_least_3", "pair_4"])
def test_kitty_multiplier(impl, scheme, throw_kitty):
    ctx = impl(rules(kitty_multiplier=scheme, throw_kitty=throw_kitty), "10", "H")
    # one-unit leads ignore throw_kitty
    for lead, expected in zip(KITTY_LEADS.values(), KITTY_UNITS[scheme], strict=True):
        assert ctx.kitty_multiplier(parse_cards(lead)) == expected, lead
    for lead, expected in zip(
        KITTY_THROWS["leads"], KITTY_THROWS[scheme, throw_kitty], strict=True
    ):
        assert ctx.kitty_multiplier(parse_cards(lead)) == expected, lead


def test_kitty_multiplier_trump_and_pairs_only(impl):
    ctx = impl(rules(kitty_multiplier="powers", throw_kitty="largest"), "6", "C")
    assert ctx.kitty_multiplier(C("AC AC 6H 6H 6C 6C SJ SJ BJ BJ")) == 64  # tractor of 5
    assert ctx.kitty_multiplier(C("6H 6H 6S 6S")) == 4  # two pairs: a throw, decisive pair
    ctx = impl(rules(kitty_multiplier="cards", throw_kitty="pair_4"), "6", "C")
    assert ctx.kitty_multiplier(C("6H 6H 6S 6S")) == 4
    assert ctx.kitty_multiplier(C("6H 6S BJ")) == 2
