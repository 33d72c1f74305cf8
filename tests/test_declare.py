"""Declaring and overcalling (docs/rules.md §9): table-driven per preset, against both the plain
Python reference (fastsheng.reference.declare) and the Cython core (fastsheng._declare), plus a
seeded randomized differential test of the two."""

from __future__ import annotations

import os
import random

import pytest

from fastsheng import _declare as core
from fastsheng.cards import BIG_JOKER, SMALL_JOKER, format_cards, parse_cards
from fastsheng.reference import declare as ref
from fastsheng.rules import CHOICES, get_rules, list_presets

IMPLS = {"reference": ref, "core": core}


@pytest.fixture(params=list(IMPLS))
def impl(request):
    return IMPLS[request.param]


# (preset, first_hand, history, seat, cards, expected). Level 2 throughout; seats 0..3.
LATER, HAND1 = False, True
CASES = [
    # --- standard (001): pair over single, once; hand 1 pairs over pairs S>H>C>D ---
    ("standard", LATER, [], 0, "2H", True),
    ("standard", LATER, [], 0, "2H 2H", True),  # a pair declares (stands reinforced)
    ("standard", LATER, [], 0, "SJ SJ", False),  # 常主不可报主
    ("standard", LATER, [], 0, "SJ", False),
    ("standard", LATER, [(0, "2H")], 0, "2H 2H", True),  # 防反
    ("standard", LATER, [(0, "2H")], 1, "2S 2S", True),  # 反已亮单张级牌
    ("standard", LATER, [(0, "2H")], 1, "2D 2D", True),
    ("standard", LATER, [(0, "2H")], 1, "2H 2H", True),
    ("standard", LATER, [(0, "2H")], 1, "2S", False),  # a single never overcalls
    ("standard", LATER, [(0, "2H")], 1, "BJ BJ", True),  # 包括两个颜色相同的王
    ("standard", LATER, [(0, "2H")], 0, "2S 2S", False),  # 不能自己反自己
    ("standard", LATER, [(0, "2H"), (0, "2H 2H")], 1, "2S 2S", False),  # reinforced: final
    ("standard", LATER, [(0, "2H"), (0, "2H 2H")], 1, "BJ BJ", False),
    ("standard", LATER, [(0, "2H 2H")], 1, "2S 2S", False),
    ("standard", LATER, [(0, "2H"), (1, "2S 2S")], 2, "BJ BJ", False),  # once
    ("standard", LATER, [(0, "2H"), (1, "2D 2D")], 2, "2S 2S", False),
    ("standard", LATER, [(0, "2H"), (1, "SJ SJ")], 2, "BJ BJ", False),
    ("standard", LATER, [(0, "2H"), (1, "2S 2S")], 0, "2H 2H", False),
    ("standard", LATER, [(0, "2H")], 1, "3S 3S", False),  # not the level rank
    ("standard", LATER, [(0, "2H")], 1, "2S 2H", False),  # mixed suits
    ("standard", LATER, [], 0, "2H BJ", False),  # no joker in this system
    ("standard", HAND1, [(0, "2H")], 1, "BJ BJ", False),  # hand 1: level pairs only
    ("standard", HAND1, [(0, "2H"), (1, "2D 2D")], 2, "2S 2S", True),  # 黑红梅方
    ("standard", HAND1, [(0, "2H"), (1, "2S 2S")], 2, "2D 2D", False),
    ("standard", HAND1, [(0, "2H"), (1, "2H 2H")], 2, "2C 2C", False),
    ("standard", HAND1, [(0, "2H"), (1, "2H 2H")], 2, "2S 2S", True),
    ("standard", HAND1, [(0, "2H"), (1, "2D 2D"), (2, "2C 2C")], 1, "2S 2S", True),
    ("standard", HAND1, [(0, "2H"), (1, "2D 2D")], 1, "2S 2S", False),  # self
    ("standard", HAND1, [(0, "2H"), (0, "2H 2H")], 1, "2S 2S", False),  # reinforced: final
    # --- super (000/002): strict BJ>SJ>S>H>C>D, reinforcing raises, self after another ---
    ("super", LATER, [(0, "2H")], 1, "2D 2D", True),  # any pair beats an unreinforced single
    ("super", LATER, [(0, "2H"), (0, "2H 2H")], 1, "2D 2D", False),  # 上保险
    ("super", LATER, [(0, "2H"), (0, "2H 2H")], 1, "2C 2C", False),
    ("super", LATER, [(0, "2H"), (0, "2H 2H")], 1, "2S 2S", True),  # 只能再反黑桃或常主
    ("super", LATER, [(0, "2H"), (0, "2H 2H")], 1, "SJ SJ", True),
    ("super", LATER, [(0, "2H"), (1, "2C 2C")], 2, "2H 2H", True),
    ("super", LATER, [(0, "2H"), (1, "2H 2H")], 2, "2C 2C", False),  # 只能反黑桃和常主
    ("super", LATER, [(0, "2H"), (1, "2H 2H")], 2, "2S 2S", True),
    ("super", LATER, [(0, "2H"), (1, "SJ SJ")], 2, "BJ BJ", True),
    ("super", LATER, [(0, "2H"), (1, "BJ BJ")], 2, "SJ SJ", False),
    ("super", LATER, [(0, "2H")], 0, "2S 2S", False),  # 报主玩家…必须在有其他玩家先进行反主
    ("super", LATER, [(0, "2H"), (1, "2C 2C")], 0, "2S 2S", True),
    ("super", LATER, [(0, "2H"), (1, "2C 2C"), (0, "2S 2S")], 0, "SJ SJ", True),
    ("super", LATER, [(0, "2H"), (1, "2C 2C"), (0, "2S 2S")], 1, "2S 2S", False),
    ("super", HAND1, [(0, "2H")], 1, "SJ SJ", True),
    # --- classic (003): jokers over pairs; after reinforcing only joker pairs ---
    ("classic", LATER, [(0, "2H")], 1, "2D 2D", True),
    ("classic", LATER, [(0, "2H"), (1, "2D 2D")], 2, "2S 2S", False),  # suits unordered
    ("classic", LATER, [(0, "2H"), (1, "2D 2D")], 2, "SJ SJ", True),
    ("classic", LATER, [(0, "2H"), (1, "SJ SJ")], 2, "BJ BJ", True),
    ("classic", LATER, [(0, "2H"), (1, "BJ BJ")], 2, "SJ SJ", False),
    ("classic", LATER, [(0, "2H"), (0, "2H 2H")], 1, "2S 2S", False),  # 定主後只能反無主
    ("classic", LATER, [(0, "2H"), (0, "2H 2H")], 1, "SJ SJ", True),
    ("classic", LATER, [(0, "2H")], 1, "BJ BJ", True),
    ("classic", LATER, [(0, "2H")], 0, "SJ SJ", False),  # self before another overcall
    ("classic", LATER, [(0, "2H"), (1, "2D 2D"), (0, "SJ SJ")], 0, "BJ BJ", True),
    # --- twenty (002 比赛规则): strict 大王、小王、黑、红、方、梅 ---
    ("twenty", LATER, [(0, "2H"), (1, "2C 2C")], 2, "2D 2D", True),
    ("twenty", LATER, [(0, "2H"), (1, "2D 2D")], 2, "2C 2C", False),
    ("twenty", LATER, [(0, "2H"), (1, "2D 2D")], 2, "2H 2H", True),
    ("twenty", LATER, [(0, "2H"), (1, "2S 2S")], 2, "SJ SJ", True),
    # --- renda (人大): the first pair stands, no joker pairs ---
    ("renda", LATER, [(0, "2H")], 1, "2D 2D", True),
    ("renda", LATER, [(0, "2H"), (1, "2D 2D")], 2, "2S 2S", False),  # 先者为庄
    ("renda", LATER, [(0, "2H")], 1, "SJ SJ", False),  # 不能反无主
    ("renda", LATER, [(0, "2H"), (1, "2D 2D")], 2, "BJ BJ", False),
    ("renda", LATER, [(0, "2H"), (0, "2H 2H")], 1, "2S 2S", False),
    ("renda", HAND1, [(0, "2H")], 1, "2S 2S", True),
    # --- tournament (规程): joker pair only over a pair overcall; final; never self ---
    ("tournament", LATER, [(0, "2H")], 1, "SJ SJ", False),
    ("tournament", LATER, [(0, "2H"), (1, "2D 2D")], 2, "SJ SJ", True),  # 再反成无主
    ("tournament", LATER, [(0, "2H"), (1, "2D 2D")], 0, "SJ SJ", True),  # 0 no longer stands
    ("tournament", LATER, [(0, "2H"), (1, "2D 2D")], 1, "SJ SJ", False),  # 不可以自己反自己
    ("tournament", LATER, [(0, "2H"), (1, "2D 2D"), (2, "SJ SJ")], 3, "BJ BJ", False),
    ("tournament", LATER, [(0, "2H"), (0, "2H 2H")], 1, "2D 2D", False),  # 双张定主
    ("tournament", LATER, [(0, "2H"), (0, "2H 2H")], 1, "BJ BJ", False),
    ("tournament", HAND1, [(0, "2H"), (1, "2D 2D")], 2, "2S 2S", False),
    # --- jokerbid: a joker of the suit's colour; ordered D<C<H<S<SJ pair<BJ pair ---
    ("jokerbid", LATER, [], 0, "2H", False),
    ("jokerbid", LATER, [], 0, "2H BJ", True),  # 大王只能报红色主牌
    ("jokerbid", LATER, [], 0, "2H SJ", False),
    ("jokerbid", LATER, [], 0, "2S SJ", True),  # 小王只能报黑色主牌
    ("jokerbid", LATER, [], 0, "2C SJ", True),
    ("jokerbid", LATER, [], 0, "2D BJ", True),
    ("jokerbid", LATER, [], 0, "2D SJ", False),
    ("jokerbid", LATER, [], 0, "2D BJ SJ", False),
    ("jokerbid", LATER, [(0, "2H BJ")], 1, "2S 2S SJ", True),
    ("jokerbid", LATER, [(0, "2S SJ")], 1, "2H 2H BJ", False),  # 不可逆序反主
    ("jokerbid", LATER, [(0, "2H BJ")], 1, "2H 2H BJ", False),
    ("jokerbid", LATER, [(0, "2H BJ")], 1, "2S 2S", False),  # the joker is missing
    ("jokerbid", LATER, [(0, "2H BJ")], 0, "2H 2H BJ", True),  # reinforcing
    ("jokerbid", LATER, [(0, "2H BJ"), (1, "2S 2S SJ")], 2, "SJ SJ", True),
    ("jokerbid", LATER, [(0, "2H BJ"), (1, "SJ SJ")], 2, "BJ BJ", True),
    ("jokerbid", LATER, [(0, "2H BJ"), (1, "BJ BJ")], 2, "SJ SJ", False),
    (
        "jokerbid",
        LATER,
        [(0, "2D BJ"), (1, "2C 2C SJ"), (2, "2H 2H BJ"), (3, "2S 2S SJ")],
        0,
        "SJ SJ",
        True,
    ),  # 一反到底
    ("jokerbid", LATER, [(0, "2H BJ")], 1, "2S SJ", False),
    ("jokerbid", HAND1, [(0, "2C SJ")], 1, "2H 2H BJ", True),
    # --- huayun (华云杯): 对王>对级牌>单色牌 ---
    ("huayun", LATER, [(0, "2H")], 1, "2S 2S", True),
    ("huayun", LATER, [(0, "2H"), (1, "2S 2S")], 2, "2H 2H", False),
    ("huayun", LATER, [(0, "2H"), (1, "2S 2S")], 2, "BJ BJ", True),
    ("huayun", LATER, [(0, "2H"), (1, "SJ SJ")], 2, "BJ BJ", False),  # 对王 is one step
    ("huayun", LATER, [(0, "2H"), (0, "2H 2H")], 1, "SJ SJ", True),
    ("huayun", LATER, [(0, "2H"), (0, "2H 2H")], 1, "2S 2S", False),
    ("huayun", LATER, [(0, "2H")], 1, "SJ SJ", True),
    # --- yingchun (迎春喜): 主牌同色对反单张、双王反同色对; single joker NT in hand 1 ---
    ("yingchun", HAND1, [], 0, "SJ", True),  # 抢庄可亮无主（单张大、小王）
    ("yingchun", LATER, [], 0, "SJ", False),
    ("yingchun", HAND1, [(0, "2H")], 1, "SJ", False),  # 单张王不能反2
    ("yingchun", HAND1, [(0, "SJ")], 1, "BJ", False),
    ("yingchun", HAND1, [(0, "SJ")], 1, "2H 2H", True),  # 同色对反单张
    ("yingchun", HAND1, [(0, "SJ")], 1, "BJ BJ", False),  # 双王 only over a pair
    ("yingchun", HAND1, [(0, "SJ")], 0, "SJ SJ", True),  # reinforcing a single joker
    ("yingchun", HAND1, [(0, "BJ")], 1, "2H", False),
    ("yingchun", LATER, [(0, "2H")], 1, "2S 2S", True),
    ("yingchun", LATER, [(0, "2H"), (1, "2S 2S")], 2, "BJ BJ", True),  # 双王反同色对
    ("yingchun", LATER, [(0, "2H")], 1, "BJ BJ", False),
    ("yingchun", LATER, [(0, "2H"), (0, "2H 2H")], 1, "BJ BJ", True),
    ("yingchun", LATER, [(0, "2H"), (0, "2H 2H")], 1, "2S 2S", False),
    ("yingchun", LATER, [(0, "2H"), (1, "2S 2S"), (2, "SJ SJ")], 3, "BJ BJ", False),
    # --- jifen (积分编排制): joker pair after a pair overcall; BJ over SJ in hand 1 only ---
    ("jifen", LATER, [(0, "2H"), (1, "2D 2D"), (2, "SJ SJ")], 3, "BJ BJ", False),
    ("jifen", HAND1, [(0, "2H"), (1, "2D 2D"), (2, "SJ SJ")], 3, "BJ BJ", True),  # 大王反小王
    ("jifen", LATER, [(0, "2H")], 1, "SJ SJ", False),
    ("jifen", LATER, [(0, "2H 2H")], 1, "2S 2S", False),  # 双张级牌定主后面不能再反主
    ("jifen", LATER, [(0, "2H"), (1, "2D 2D")], 2, "SJ SJ", True),  # 有成对的大小王可以再反
    ("jifen", LATER, [(0, "2H"), (1, "2D 2D")], 2, "2S 2S", False),  # 不分花色大小
    ("jifen", HAND1, [(0, "2H"), (1, "2D 2D")], 2, "2S 2S", False),
    # --- duiju (对局): strict; no overcalls in hand 1 ---
    ("duiju", HAND1, [(0, "2H")], 1, "2S 2S", False),  # 除第一盘牌外
    ("duiju", LATER, [(0, "2H")], 1, "2S 2S", True),
    ("duiju", HAND1, [], 0, "2H", True),
    ("duiju", HAND1, [(0, "2H")], 0, "2H 2H", True),  # reinforcing is no overcall
    ("duiju", LATER, [(0, "2H"), (1, "2S 2S")], 2, "2C 2C", False),  # 低级别花色不能反高级别
    ("duiju", LATER, [(0, "2H"), (1, "2C 2C")], 0, "2S 2S", True),
    ("duiju", LATER, [(0, "2H"), (1, "2C 2C")], 1, "2S 2S", False),  # 自己叫牌不能反自己
]


def _case_id(case):
    preset, first, history, seat, cards, expected = case
    hist = ",".join(f"{s}:{c}" for s, c in history) or "-"
    return f"{preset}-{'h1' if first else 'later'}-[{hist}]-{seat}:{cards}-{expected}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_ladder(impl, case):
    preset, first, history, seat, cards, expected = case
    rules = get_rules(preset)
    assert impl.can_declare(rules, "2", history, seat, cards, first) is expected


def test_every_preset_has_cases():
    assert {c[0] for c in CASES} == set(list_presets())


def test_level_rank_other_than_2(impl):
    rules = get_rules("standard")
    assert impl.can_declare(rules, "J", [], 0, "JH")
    assert not impl.can_declare(rules, "J", [], 0, "2H")
    assert impl.can_declare(rules, 9, [(0, "JH")], 1, "JS JS")
    assert impl.can_declare(rules, "J", [(0, [parse_cards("JH")[0]])], 1, parse_cards("JS JS"))


@pytest.mark.parametrize(
    "cards",
    ["2H 2H 2H", "2H 3H", "SJ BJ", "SJ SJ SJ", "2H SJ", "3H", "2H 2S", [54], [-1], [], [True]],
)
def test_invalid_cards_are_false(impl, cards):
    assert impl.can_declare(get_rules("super"), "2", [], 0, cards) is False


def test_bad_input_raises(impl):
    rules = get_rules("standard")
    with pytest.raises(ValueError):
        impl.can_declare(rules, "2", [], 4, "2H")
    with pytest.raises(ValueError):
        impl.can_declare(rules, "2", [], 0, "XX")
    with pytest.raises(ValueError):
        impl.can_declare(rules, "Z", [], 0, "2H")
    with pytest.raises(ValueError, match=r"history\[1\]"):
        impl.can_declare(rules, "2", [(0, "2H"), (1, "3S 3S")], 2, "2D 2D")
    with pytest.raises(ValueError):  # a legal-looking show that was not allowed then
        impl.can_declare(rules, "2", [(0, "2H"), (0, "2S 2S")], 2, "2D 2D")
    with pytest.raises(ValueError):
        impl.can_declare(rules, "2", [], 0, "2H", kitty_trump="X")


def test_kitty_trump(impl):
    # 炒底 over trump set from the kitty: it stands as an unreinforced single of no seat
    sup = get_rules("super")
    assert impl.can_declare(sup, "2", [], 1, "2D 2D", kitty_trump="H")
    assert impl.can_declare(sup, "2", [], 1, "2S 2S", kitty_trump=1)
    assert not impl.can_declare(sup, "2", [], 1, "2S", kitty_trump="H")
    assert impl.can_declare(sup, "2", [], 1, "2D 2D", kitty_trump="NT")
    assert impl.can_declare(sup, "2", [(1, "2C 2C")], 2, "2H 2H", kitty_trump="H")
    assert not impl.can_declare(sup, "2", [(1, "2C 2C")], 2, "2D 2D", kitty_trump="H")
    # kitty_trump_final: nothing over it
    assert not impl.can_declare(get_rules("jifen"), "2", [], 1, "2D 2D", kitty_trump="H")
    # ordered ladder: no trump from the kitty ranks below every suit
    jb = get_rules("jokerbid")
    assert impl.can_declare(jb, "2", [], 1, "2D 2D BJ", kitty_trump=4)
    assert not impl.can_declare(jb, "2", [], 1, "2D 2D BJ", kitty_trump="C")


STANDING = [
    ("standard", LATER, [], None),
    ("standard", LATER, [(0, "2H"), (0, "2H 2H")], (0, 1, "pair", True, 0, 0)),
    ("standard", LATER, [(3, "2H 2H")], (3, 1, "pair", True, 0, 3)),
    ("standard", HAND1, [(0, "2H"), (1, "2D 2D")], (1, 3, "pair", False, 1, 0)),
    ("super", LATER, [(0, "2H"), (1, "2C 2C"), (2, "BJ BJ")], (2, None, "bj_pair", False, 2, 0)),
    ("super", LATER, [(0, "2H"), (1, "SJ SJ")], (1, None, "sj_pair", False, 1, 0)),
    ("yingchun", HAND1, [(0, "SJ")], (0, None, "sj", False, 0, 0)),
    ("yingchun", HAND1, [(0, "BJ"), (0, "BJ BJ")], (0, None, "bj_pair", True, 0, 0)),
    ("jokerbid", LATER, [(2, "2C SJ")], (2, 2, "single", False, 0, 2)),
]


@pytest.mark.parametrize("preset, first, history, expected", STANDING)
def test_standing_call(impl, preset, first, history, expected):
    call = impl.standing_call(get_rules(preset), "2", history, first)
    assert (None if call is None else tuple(call)) == expected


def test_standing_call_kitty(impl):
    call = impl.standing_call(get_rules("super"), "2", [], kitty_trump="C")
    assert tuple(call) == (None, 2, "kitty", False, 0, None)
    call = impl.standing_call(get_rules("super"), "2", [(1, "SJ SJ")], kitty_trump="NT")
    assert tuple(call) == (1, None, "sj_pair", False, 1, None)


def test_describe_call():
    call = ref.standing_call(get_rules("standard"), "2", [(0, "2H"), (0, "2H 2H")])
    assert ref.describe_call(call) == "seat 0: pair, trump H (reinforced); 0 overcalls"
    assert ref.describe_call(None) == "nothing stands"


def test_available_shows(impl):
    jb, std, yc = get_rules("jokerbid"), get_rules("standard"), get_rules("yingchun")
    hand = parse_cards("2H 2H BJ SJ SJ 2S 5C")
    assert impl.available_shows(jb, "2", hand) == [
        parse_cards("2S SJ"),
        parse_cards("2H BJ"),
        parse_cards("2H 2H BJ"),
        parse_cards("SJ SJ"),
    ]
    assert impl.available_shows(std, "2", hand) == [
        parse_cards("2S"),
        parse_cards("2H"),
        parse_cards("2H 2H"),
        parse_cards("SJ SJ"),
    ]
    assert impl.available_shows(yc, "2", parse_cards("SJ BJ 3D"), True) == [
        [SMALL_JOKER],
        [BIG_JOKER],
    ]
    assert impl.available_shows(yc, "2", parse_cards("SJ BJ 3D"), False) == []


def test_core_choice_indices_match_rules():
    for field, index in core.CHOICE_INDEX.items():
        assert {v: CHOICES[field].index(v) for v in CHOICES[field]} == index


# ---------------------------------------------------------------------------------------------
# Randomized differential test: core against reference

DECLARE_SWITCHES = {
    "overcall_ladder": CHOICES["overcall_ladder"],
    "suit_order": ("SHCD", "SHDC", "DCHS", "HSDC"),
    "hand1_pairs_over_pairs": (False, True),
    "joker_pairs": CHOICES["joker_pairs"],
    "hand1_joker_pairs": (False, True),
    "bj_over_sj": CHOICES["bj_over_sj"],
    "reinforce": CHOICES["reinforce"],
    "self_overcall": CHOICES["self_overcall"],
    "hand1_overcalls": (False, True),
    "declare_needs_joker": (False, True),
    "hand1_single_joker": (False, True),
    "kitty_trump_final": (False, True),
}
SEED = int(os.environ.get("FASTSHENG_DECLARE_SEED", "20261129"))
N_SEQUENCES = int(os.environ.get("FASTSHENG_DECLARE_N", "600"))


def _random_cards(rng: random.Random, rules, level: int, first: bool) -> list[int]:
    """Mostly a show the rules know, sometimes near-misses and garbage."""
    r = rng.random()
    if r < 0.75:
        suit = rng.randrange(6)
        kind = rng.randrange(2)
        if suit >= 4:
            return [SMALL_JOKER + suit - 4] * (kind + 1)
        cards = [suit * 13 + level] * (kind + 1)
        if rules.declare_needs_joker or rng.random() < 0.1:
            cards.append(SMALL_JOKER if suit in (0, 2) else BIG_JOKER)
        return cards
    if r < 0.9:  # wrong joker, wrong rank, mixed suits
        suit = rng.randrange(4)
        choice = rng.randrange(3)
        if choice == 0:
            return [suit * 13 + level, rng.choice((SMALL_JOKER, BIG_JOKER))]
        if choice == 1:
            return [suit * 13 + (level + 1) % 13] * rng.randint(1, 2)
        return [suit * 13 + level, (suit + 1) % 4 * 13 + level]
    return [rng.randrange(54) for _ in range(rng.randint(0, 3))]


def _all_shows(rules, level: int) -> list[list[int]]:
    """The cards of every show code (a hand holding everything)."""
    return ref.available_shows(rules, level, list(range(54)) * 2, True)


def _random_rules(rng: random.Random):
    rules = get_rules(rng.choice(list_presets()))
    overrides = {k: rng.choice(v) for k, v in DECLARE_SWITCHES.items() if rng.random() < 0.35}
    return rules.replace(**overrides) if overrides else rules


def test_random_histories_core_matches_reference():
    rng = random.Random(SEED)
    compared = 0
    for i in range(N_SEQUENCES):
        rules = _random_rules(rng)
        level = rng.randrange(13)
        first = rng.random() < 0.5
        kitty = rng.choice((None,) * 6 + (0, 1, 2, 3, 4, "NT"))
        history: list[tuple[int, list[int]]] = []
        for _step in range(rng.randint(1, 14)):
            seat = rng.randrange(4)
            cards = _random_cards(rng, rules, level, first)
            if rng.random() < 0.4:  # steer towards deeper histories: pick an allowed show
                allowed = [
                    c
                    for c in _all_shows(rules, level)
                    if ref.can_declare(rules, level, history, seat, c, first, kitty_trump=kitty)
                ]
                if allowed:
                    cards = rng.choice(allowed)
            a = ref.can_declare(rules, level, history, seat, cards, first, kitty_trump=kitty)
            b = core.can_declare(rules, level, history, seat, cards, first, kitty_trump=kitty)
            assert a == b, (
                f"seed={SEED} sequence={i}: can_declare differs (reference={a}, core={b}) "
                f"rules={rules.to_dict()} level={level} first_hand={first} kitty={kitty} "
                f"history={[(s, format_cards(c)) for s, c in history]} "
                f"seat={seat} cards={format_cards(c for c in cards if 0 <= c < 54)} ({cards})"
            )
            compared += 1
            if a and rng.random() < 0.8:
                history.append((seat, cards))
                ca = ref.standing_call(rules, level, history, first, kitty_trump=kitty)
                cb = core.standing_call(rules, level, history, first, kitty_trump=kitty)
                assert tuple(ca) == cb, (
                    f"seed={SEED} sequence={i}: standing_call differs: {ca} vs {cb}; "
                    f"history={[(s, format_cards(c)) for s, c in history]}"
                )
        hand = [rng.randrange(54) for _ in range(rng.randint(0, 25))]
        hand = [c for j, c in enumerate(hand) if hand[:j].count(c) < 2]
        assert ref.available_shows(rules, level, hand, first) == core.available_shows(
            rules, level, hand, first
        ), f"seed={SEED} sequence={i}: available_shows differs for {format_cards(sorted(hand))}"
    assert compared > 2000


def test_available_shows_are_shows_the_hand_can_make():
    """Every listed show parses as a show of the cards it lists and is held by the hand."""
    rng = random.Random(SEED + 1)
    for _ in range(300):
        rules = _random_rules(rng)
        level = rng.randrange(13)
        first = rng.random() < 0.5
        deck = [c for c in range(54) for _ in range(2)]
        rng.shuffle(deck)
        hand = deck[:25]
        for cards in ref.available_shows(rules, level, hand, first):
            assert all(hand.count(c) >= cards.count(c) for c in cards)
            assert ref.parse_show(rules, level, cards, first) is not None
