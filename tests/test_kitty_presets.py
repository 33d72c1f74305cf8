"""Every preset's kitty multipliers (docs/rules.md §6), on the core and the reference."""

import pytest

from fastsheng import parse_cards
from fastsheng.rules import get_rules, list_presets

# preset -> multiplier of (single, pair, 2-tractor, 3-tractor, throw of singles, throw with a pair)
EXPECTED = {
    "standard": (2, 4, 6, 8, 3, 4),  # 001: 二连对 6 倍, 每多连 1 对加 2; 甩牌 3 倍 or its largest
    "super": (2, 4, 8, 12, 2, 4),  # 000/002: ×4×连对对数; throw = its largest unit
    "classic": (2, 4, 8, 12, 2, 4),
    "twenty": (2, 4, 8, 16, 2, 4),  # 002 比赛规则: 拖拉机扣 N=8, 以此类推
    "renda": (2, 4, 8, 16, 2, 4),  # 人大: 拖拉机乘8倍, 三拖乘16倍; throw 4 with a pair else 2
    "tournament": (1, 2, 4, 6, 1, 2),  # 004 规程: by the card count of the largest unit
    "jokerbid": (2, 4, 8, 12, 2, 4),
    "huayun": (2, 4, 8, 16, 2, 4),
    "yingchun": (2, 4, 8, 16, 2, 4),
    "jifen": (2, 4, 6, 8, 2, 4),  # 积分编排制: 二连对乘6, 每多加一对加2倍
    "duiju": (2, 4, 8, 12, 2, 4),
}
LEADS = ("5S", "5S 5S", "5S 5S 7S 7S", "5S 5S 7S 7S 8S 8S", "AS KS", "AS KS KS")


def test_every_preset_has_a_row():
    assert sorted(EXPECTED) == sorted(list_presets())


@pytest.mark.parametrize("preset", sorted(EXPECTED))
def test_kitty_multipliers(impl, preset):
    ctx = impl(get_rules(preset), "6", "H")  # level 6: 5S 5S 7S 7S is a tractor
    got = tuple(ctx.kitty_multiplier(parse_cards(lead)) for lead in LEADS)
    assert got == EXPECTED[preset]
