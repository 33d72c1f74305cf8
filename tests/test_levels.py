"""Levels and the match (docs/rules.md §11): the reference (fastsheng.reference.levels) against
the tables written out by hand here, and the core-backed ``fastsheng.level_outcome`` against the
reference at every threshold and on a grid of totals for every preset."""

from __future__ import annotations

import pytest

import fastsheng
from fastsheng.reference import levels as ref
from fastsheng.rules import get_rules, list_presets


def _core_level_outcome():
    fn = getattr(fastsheng, "level_outcome", None)
    if fn is None:  # until fastsheng/__init__.py exports it
        try:
            from fastsheng import _core
        except ImportError:
            return None
        fn = getattr(_core, "level_outcome", None)
    return fn


IMPLS = {"reference": ref.level_outcome}
if _core_level_outcome() is not None:
    IMPLS["core"] = _core_level_outcome()


@pytest.fixture(params=list(IMPLS))
def level_outcome(request):
    return IMPLS[request.param]


D, X = "dealer", "defenders"
# docs/rules.md §11, written out: (total, side, levels), totals at and around every row bound.
TABLES = {
    "standard": [
        (0, D, 3), (1, D, 2), (4, D, 2), (5, D, 2), (35, D, 2), (39, D, 2), (40, D, 1),
        (75, D, 1), (79, D, 1), (80, X, 0), (115, X, 0), (119, X, 0), (120, X, 1), (155, X, 1),
        (159, X, 1), (160, X, 2), (199, X, 2), (200, X, 3), (240, X, 4), (400, X, 8),
    ],
    "super": [
        (0, D, 6), (1, D, 5), (5, D, 5), (10, D, 5), (14, D, 5), (15, D, 4), (20, D, 4),
        (25, D, 3), (30, D, 3), (34, D, 3), (35, D, 2), (39, D, 2), (40, D, 1), (75, D, 1),
        (80, X, 0), (115, X, 0), (120, X, 1), (124, X, 1), (125, X, 2), (160, X, 2),
        (164, X, 2), (165, X, 3), (200, X, 3), (205, X, 4), (240, X, 4), (245, X, 5),
        (280, X, 5), (285, X, 6), (320, X, 6), (400, X, 6),
    ],
    "twenty": [
        (0, D, 4), (1, D, 3), (5, D, 3), (25, D, 3), (29, D, 3), (30, D, 2), (50, D, 2),
        (54, D, 2), (55, D, 1), (75, D, 1), (80, X, 0), (95, X, 0), (99, X, 0), (100, X, 1),
        (115, X, 1), (120, X, 2), (135, X, 2), (140, X, 3), (155, X, 3), (160, X, 4),
        (200, X, 6),
    ],
}  # fmt: skip
TABLE_PRESET = {"standard": "standard", "super": "super", "twenty": "twenty"}


@pytest.mark.parametrize("table", list(TABLES))
def test_tables(level_outcome, table):
    rules = get_rules(TABLE_PRESET[table])
    assert rules.level_table == table
    for total, side, n in TABLES[table]:
        assert level_outcome(rules, total) == (side, n), f"{table} total={total}"


@pytest.mark.parametrize("preset", list_presets())
def test_every_threshold(level_outcome, preset):
    rules = get_rules(preset)
    for t in ref.LEVEL_THRESHOLDS[rules.level_table]:
        for total in (t - 1, t, t + 1, t + 4, t + 5):
            if total >= 0:
                assert level_outcome(rules, total) == ref.level_outcome(rules, total), (
                    f"{preset} total={total}"
                )


@pytest.mark.parametrize("preset", list_presets())
def test_grid(level_outcome, preset):
    rules = get_rules(preset)
    for total in range(0, 401, 5):
        assert level_outcome(rules, total) == ref.level_outcome(rules, total), (
            f"{preset} total={total}"
        )


def test_defender_cap(level_outcome):
    renda = get_rules("renda")
    assert renda.defender_cap == 5
    assert level_outcome(renda, 320) == (X, 5)  # 人大: 最高只能升五级
    assert level_outcome(renda, 200) == (X, 3)
    assert level_outcome(renda, 0) == (D, 3)  # the dealer side is not capped
    capped = get_rules("super").replace(defender_cap=2)
    assert level_outcome(capped, 300) == (X, 2)
    assert level_outcome(capped, 0) == (D, 6)


def test_negative_total(level_outcome):
    with pytest.raises(ValueError):
        level_outcome(get_rules("standard"), -5)


def test_reference_rejects_non_int():
    with pytest.raises(ValueError):
        ref.level_outcome(get_rules("standard"), 5.0)
    with pytest.raises(ValueError):
        ref.level_outcome(get_rules("standard"), True)


def test_hand_levels_overcall_bonus():
    duiju = get_rules("duiju")
    assert ref.hand_levels(duiju, 50, overcalls=2) == (D, 3)  # 每反一次升一级
    assert ref.hand_levels(duiju, 90, overcalls=1) == (X, 1)
    assert ref.hand_levels(get_rules("standard"), 50, overcalls=2) == (D, 1)
    capped = get_rules("renda").replace(overcall_bonus="level")
    assert ref.hand_levels(capped, 300, overcalls=3) == (X, 5)
    with pytest.raises(ValueError):
        ref.hand_levels(duiju, 50, overcalls=-1)


R = {name: i for i, name in enumerate(("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q",
                                       "K", "A"))}  # fmt: skip


def test_advance_must_play_standard():
    std = get_rules("standard")  # must-play 2, J, A (001 第十五条)
    assert std.must_play == ("2", "J", "A")
    # defenders at 2 who take over with +1 stay on 2: they have not won it as dealer
    assert ref.advance(R["2"], 1, std) == (R["2"], 0)
    # the dealer side winning at 2 has won it and moves on
    assert ref.advance(R["2"], 2, std, dealer=True) == (R["4"], 1 << R["2"])
    # passing J stops on J
    assert ref.advance(R["9"], 3, std, won=1) == (R["J"], 1)
    assert ref.advance(R["10"], 1, std) == (R["J"], 0)
    # winning at J as dealer moves past it
    rank, won = ref.advance(R["J"], 2, std, won=1, dealer=True)
    assert (rank, won) == (R["K"], 1 | 1 << R["J"])
    # defenders sitting on J (not won) cannot leave it
    assert ref.advance(R["J"], 3, std, won=1) == (R["J"], 1)
    # never past end_rank
    assert ref.advance(R["Q"], 6, std, won=1 | 1 << R["J"]) == (R["A"], 1 | 1 << R["J"])
    assert ref.advance(R["A"], 2, std, won=1 | 1 << R["J"], dealer=True)[0] == R["A"]
    assert ref.advance(R["5"], 0, std, won=1) == (R["5"], 1)
    with pytest.raises(ValueError):
        ref.advance(R["5"], -1, std)


def test_advance_other_presets():
    twenty = get_rules("twenty")  # 2 -> 10, must-play 10
    assert ref.advance(R["8"], 3, twenty) == (R["10"], 0)
    assert ref.advance(R["2"], 4, twenty) == (R["6"], 0)  # 不用“逢2必打”
    tour = get_rules("tournament")  # 9 -> K
    assert ref.advance(R["Q"], 3, tour) == (R["K"], 0)
    sup = get_rules("super")  # no must-play
    assert ref.advance(R["9"], 6, sup) == (R["A"], 0)
    huayun = get_rules("huayun")
    assert ref.advance(R["8"], 4, huayun) == (R["10"], 0)
    assert ref.advance(R["10"], 4, huayun, dealer=True) == (R["A"], 1 << R["10"])
    assert ref.advance("9", 1, huayun) == (R["10"], 0)


def test_match_won_and_next_dealer():
    std = get_rules("standard")
    assert ref.match_won(std, R["A"], D)
    assert not ref.match_won(std, R["A"], X)
    assert not ref.match_won(std, R["K"], D)
    assert ref.match_won(get_rules("twenty"), R["10"], D)
    assert ref.match_won(get_rules("tournament"), R["K"], D)
    assert ref.next_dealer(0, D) == 2
    assert ref.next_dealer(3, D) == 1
    assert ref.next_dealer(3, X) == 0
    assert ref.next_dealer(1, X) == 2


def test_cap_winner():
    assert ref.cap_winner(get_rules("twenty"), (R["5"], R["3"]), 1) == 0
    assert ref.cap_winner(get_rules("twenty"), (R["5"], R["7"]), 0) == 1
    assert ref.cap_winner(get_rules("yingchun"), (R["5"], R["5"]), 1) == 1  # 台上一方获胜
    assert ref.cap_winner(get_rules("jifen"), (R["5"], R["5"]), 1) is None  # 打平
    assert ref.cap_winner(get_rules("duiju"), (R["5"], R["5"]), 0) is None
