"""The rules configuration (fastsheng.rules): presets, validation, TOML files, core fields."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import fastsheng
from fastsheng.errors import RulesError
from fastsheng.rules import (
    CHOICES,
    CORE_FIELDS,
    FIELD_DOCS,
    FIELDS,
    PRESET_SOURCES,
    TABLE_FIELDS,
    Rules,
    describe_rules,
    get_rules,
    list_presets,
    load_rules,
    rules_from_spec,
)

PRESETS = [
    "standard", "super", "classic", "twenty", "renda", "tournament", "jokerbid", "huayun",
    "yingchun", "jifen", "duiju",
]  # fmt: skip
SWITCHES = [f for f in FIELDS if f != "name"]


def test_presets_listed_in_order():
    assert list_presets() == PRESETS


@pytest.mark.parametrize("name", PRESETS)
def test_preset_loads_and_is_documented(name):
    rules = get_rules(name)
    assert isinstance(rules, Rules)
    assert rules.name == name
    assert set(PRESET_SOURCES[name]) == set(SWITCHES)
    assert all(PRESET_SOURCES[name][f].strip() for f in SWITCHES)
    rows = describe_rules(rules)
    assert [r[0] for r in rows] == SWITCHES
    assert all(value == getattr(rules, field) for field, value, _src in rows)
    assert all(not src.startswith("(set by the user") for _f, _v, src in rows)


def test_defaults_are_standard():
    assert Rules() == get_rules("standard")


def test_every_field_documented():
    assert set(FIELD_DOCS) == set(FIELDS)


def test_choice_lists_follow_docs_order():
    # docs/rules.md §7: the first value is index 0 and the order never changes
    assert CHOICES["overcall_ladder"] == (
        "pair_over_single", "strict", "ordered", "first_pair", "jokers_over_pairs",
    )  # fmt: skip
    assert CHOICES["no_declaration"] == (
        "kitty1", "kitty3", "kitty3_skip_jokers", "no_trump", "flip_level", "random_kitty",
    )  # fmt: skip
    assert CHOICES["throw_penalty"] == ("per_card", "none", "flat", "half_stake")
    # the data switches' preset names (fastsheng.tables), in the docs' order
    assert TABLE_FIELDS["kitty_multiplier"] == ("plus_two", "linear", "powers", "cards")
    assert TABLE_FIELDS["level_table"] == ("standard", "super", "twenty")


# Distinctive switches of each preset (docs/rules.md §8 and the seeds).
SPOT = {
    "standard": dict(
        overcall_ladder="pair_over_single", hand1_pairs_over_pairs=True, suit_order="SHCD",
        reinforce="final", hand1_joker_pairs=False, no_declaration="kitty1",
        kitty_multiplier="plus_two", throw_kitty="at_least_3", level_table="standard",
        throw_penalty="per_card", throw_penalty_points=10, must_play=("2", "J", "A"),
        partner_no_trump_after_failed_throw=True, self_overcall="never",
    ),
    "super": dict(
        overcall_ladder="strict", suit_order="SHCD", reinforce="raises",
        self_overcall="after_other", overcall_after_burial="yes", overcall_bonus="stake",
        no_declaration="kitty3", kitty_multiplier="linear", level_table="super",
        throw_follow="suit", throw_penalty="half_stake", must_play=(),
    ),
    "classic": dict(
        overcall_ladder="jokers_over_pairs", reinforce="jokers_only", hand1_dealer="first",
        no_declaration="no_trump", kitty_multiplier="linear", throw_penalty="flat",
        throw_penalty_points=20, throw_follow="suit",
    ),
    "twenty": dict(
        overcall_ladder="strict", suit_order="SHDC", overcall_after_burial="if_declared",
        no_declaration="kitty1", kitty_multiplier="powers", level_table="twenty",
        start_rank="2", end_rank="10", must_play=("10",), cap_tie="dealer",
    ),
    "renda": dict(
        overcall_ladder="first_pair", joker_pairs="never", tractor_chain="limited",
        no_declaration="kitty3_skip_jokers", kitty_multiplier="powers", throw_kitty="pair_4",
        defender_cap=5, throw_penalty="none",
    ),
    "tournament": dict(
        overcall_ladder="pair_over_single", joker_pairs="after_pair", hand1_dealer="first",
        reinforce="final", no_declaration="no_trump", kitty_multiplier="cards",
        start_rank="9", end_rank="K",
    ),
    "jokerbid": dict(
        declare_needs_joker=True, overcall_ladder="ordered", suit_order="SHCD",
        no_declaration="random_kitty",
    ),
    "huayun": dict(
        overcall_ladder="jokers_over_pairs", hand1_dealer="random", no_declaration="flip_level",
        kitty_multiplier="powers", throw_penalty="per_card", throw_penalty_points=5,
        must_play=("10",),
    ),
    "yingchun": dict(
        overcall_ladder="pair_over_single", joker_pairs="after_pair", hand1_single_joker=True,
        no_declaration="kitty1", kitty_multiplier="powers", throw_penalty_points=10,
        cap_tie="dealer", kitty_trump_final=True,
    ),
    "jifen": dict(
        overcall_ladder="pair_over_single", joker_pairs="after_pair", bj_over_sj="hand1",
        kitty_multiplier="plus_two", cap_tie="draw", reinforce="final",
        kitty_trump_final=True, nt_level_tractor=True,
    ),
    "duiju": dict(
        overcall_ladder="strict", hand1_overcalls=False, declaring_closes="deal",
        overcall_bonus="level", no_declaration="kitty3", void_fill="trump_first",
        must_play=("A",), cap_tie="draw", kitty_trump_final=True,
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", PRESETS)
def test_distinctive_switches(name):
    rules = get_rules(name)
    for field, value in SPOT[name].items():
        assert getattr(rules, field) == value, f"{name}.{field}"


def test_presets_differ():
    values = [tuple(getattr(get_rules(n), f) for f in SWITCHES) for n in PRESETS]
    assert len(set(values)) == len(PRESETS)


def test_unknown_preset_lists_presets():
    with pytest.raises(RulesError, match="unknown preset 'nope'.*standard.*duiju"):
        get_rules("nope")
    assert get_rules(" Super ") is get_rules("super")


# --- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, value, pattern",
    [
        ("overcall_ladder", "loose", r"overcall_ladder = 'loose'.*'pair_over_single'"),
        ("kitty_multiplier", 2, r"kitty_multiplier = 2.*'plus_two'"),
        ("hand1_overcalls", 1, r"hand1_overcalls = 1.*true or false"),
        ("suit_order", "SHC", r"suit_order = 'SHC'.*permutation"),
        ("suit_order", "SHCC", r"suit_order"),
        ("start_rank", "1O", r"start_rank = '1O' is not a rank"),
        ("start_rank", 2, r"start_rank = 2 is not a rank"),
        ("end_rank", "B", r"end_rank"),
        ("must_play", "JA", r"must_play = 'JA'"),
        ("must_play", ["J", "Z"], r"must_play = 'Z'"),
        ("defender_cap", 0, r"defender_cap = 0.*1\.\.12 or None"),
        ("hand_cap", -3, r"hand_cap = -3"),
        ("throw_penalty_points", -1, r"throw_penalty_points = -1.*0\.\.200"),
        ("throw_penalty_points", True, r"throw_penalty_points = True"),
        ("name", "", r"name"),
    ],
)
def test_validation_names_field(field, value, pattern):
    with pytest.raises(RulesError, match=pattern):
        Rules(**{field: value})
    with pytest.raises(RulesError, match=pattern):
        get_rules("super").replace(**{field: value})


def test_start_above_end():
    with pytest.raises(RulesError, match="start_rank = 'K' is above end_rank = 'Q'"):
        Rules(start_rank="K", end_rank="Q")


def test_normalisation():
    r = Rules(must_play=["a", "J", "J"], suit_order="shdc", start_rank="t", hand_cap="none")
    assert r.must_play == ("J", "A")
    assert r.suit_order == "SHDC"
    assert r.start_rank == "10"
    assert r.hand_cap is None
    assert hash(r) == hash(Rules(must_play=("J", "A"), suit_order="SHDC", start_rank="10"))


def test_replace_and_unknown_field():
    r = get_rules("super").replace(defender_cap=3)
    assert r.defender_cap == 3 and r.overcall_ladder == "strict"
    with pytest.raises(RulesError, match="unknown field 'bogus'"):
        get_rules("super").replace(bogus=1)
    rows = dict((f, s) for f, _v, s in describe_rules(r))
    assert rows["defender_cap"].startswith("(set by the user")


@pytest.mark.parametrize("name", PRESETS)
def test_dict_round_trip(name):
    rules = get_rules(name)
    d = rules.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert Rules.from_dict(d) == rules
    with pytest.raises(RulesError, match="unknown field 'x'"):
        Rules.from_dict({**d, "x": 1})


# --- core fields --------------------------------------------------------------------------------


def _pxd_rules_t_fields() -> list[str]:
    text = (Path(fastsheng.__file__).parent / "_core.pxd").read_text(encoding="utf-8")
    body = re.search(r"cdef struct rules_t:\n((?:[ \t]+.*\n|\n)+?)\n\S", text + "\nX")
    assert body, "rules_t not found in _core.pxd"
    return re.findall(r"^\s+int\s+(\w+)", body.group(1), flags=re.M)


ARRAY_FIELDS = {"km_tractor": 13, "lt_low": 24, "lt_side": 24, "lt_levels": 24}


def test_core_fields_match_rules_t():
    assert list(CORE_FIELDS) == _pxd_rules_t_fields()


@pytest.mark.parametrize("name", PRESETS)
def test_core_fields_values(name):
    rules = get_rules(name)
    core = rules.core_fields()
    assert list(core) == list(CORE_FIELDS)
    for field, value in core.items():
        items = value if field in ARRAY_FIELDS else [value]
        assert len(items) == ARRAY_FIELDS.get(field, 1), field
        assert all(isinstance(v, int) and not isinstance(v, bool) for v in items), field
    for field, values in CHOICES.items():
        assert core[field] == values.index(getattr(rules, field))
    core["throw_kitty"] = 99  # a fresh dict each time: the cache is not touched
    core["lt_low"][1] = 99
    assert rules.core_fields()["throw_kitty"] != 99
    assert rules.core_fields()["lt_low"][1] != 99


def test_core_fields_packing():
    r = Rules(suit_order="SHDC", must_play=("2", "10", "A"), start_rank="9", end_rank="K")
    core = r.core_fields()
    # bits 2s..2s+1 = strength of suit s (S=0, H=1, C=2, D=3), 3 = strongest
    strength = {s: (core["suit_strength"] >> (2 * i)) & 3 for i, s in enumerate("SHCD")}
    assert strength == {"S": 3, "H": 2, "D": 1, "C": 0}
    assert core["must_play_mask"] == (1 << 0) | (1 << 8) | (1 << 12)
    assert (core["start_rank"], core["end_rank"]) == (7, 11)
    assert core["defender_cap"] == 0 and core["hand_cap"] == 0
    capped = r.replace(defender_cap=5, hand_cap=40).core_fields()
    assert (capped["defender_cap"], capped["hand_cap"]) == (5, 40)


@pytest.mark.parametrize("name", PRESETS)
def test_core_accepts_core_fields(name):
    _core = pytest.importorskip("fastsheng._core")
    ctx = _core.Context(get_rules(name), level="2", trump="H")
    assert ctx.level == "2"


# --- rules files ------------------------------------------------------------------------------


def _write(tmp_path: Path, text: str, name: str = "r.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_load_rules(tmp_path):
    p = _write(
        tmp_path,
        'preset = "super"\n# a comment\n'
        'must_play = ["j", "A"]\ndefender_cap = "none"\nhand_cap = 60\n'
        "kitty_trump_final = true\n",
        "mine.toml",
    )
    r = load_rules(p)
    assert r.name == "mine.toml"
    assert r.overcall_ladder == "strict"  # from the preset
    assert r.must_play == ("J", "A")
    assert r.defender_cap is None and r.hand_cap == 60 and r.kitty_trump_final is True
    assert load_rules(_write(tmp_path, "")) == get_rules("standard").replace(name="r.toml")
    named = load_rules(_write(tmp_path, 'name = "house"\nthrow_penalty = "none"\n'))
    assert named.name == "house" and named.throw_penalty == "none"


def test_load_rules_unknown_field_line(tmp_path):
    p = _write(tmp_path, 'preset = "super"\n\n# x\nbogus_field = 3\n')
    with pytest.raises(RulesError, match=r"r\.toml:4: unknown field 'bogus_field'"):
        load_rules(p)


def test_load_rules_bad_value_line(tmp_path):
    p = _write(tmp_path, 'preset = "twenty"\nvoid_fill = "any"\n  kitty_multiplier = "lots"\n')
    with pytest.raises(RulesError, match=r"r\.toml:3: kitty_multiplier = 'lots'.*'plus_two'"):
        load_rules(p)
    p = _write(tmp_path, 'must_play = ["J", 11]\n')
    with pytest.raises(RulesError, match=r"r\.toml:1: must_play = 11 is not a rank"):
        load_rules(p)


def test_load_rules_cross_field_line(tmp_path):
    p = _write(tmp_path, 'preset = "tournament"\n\nstart_rank = "A"\n')
    with pytest.raises(RulesError, match=r"r\.toml:3: start_rank = 'A' is above end_rank"):
        load_rules(p)


def test_load_rules_syntax_error(tmp_path):
    p = _write(tmp_path, 'preset = "super"\nkitty_multiplier = \n')
    with pytest.raises(RulesError, match=r"r\.toml: TOML syntax error.*line 2, column"):
        load_rules(p)


def test_load_rules_unknown_preset(tmp_path):
    p = _write(tmp_path, '# rules\npreset = "turbo"\n')
    with pytest.raises(RulesError, match=r"r\.toml:2: unknown preset 'turbo'; presets: standard"):
        load_rules(p)


def test_load_rules_rejects_tables(tmp_path):
    p = _write(tmp_path, 'preset = "super"\n[rules]\nvoid_fill = "any"\n')
    with pytest.raises(RulesError, match=r"r\.toml:2: tables are not supported"):
        load_rules(p)


def test_load_rules_missing_file(tmp_path):
    with pytest.raises(RulesError, match="cannot read rules file"):
        load_rules(tmp_path / "none.toml")


def test_rules_from_spec(tmp_path):
    assert rules_from_spec("jifen") is get_rules("jifen")
    p = _write(tmp_path, 'preset = "renda"\ndefender_cap = 4\n')
    assert rules_from_spec(str(p)).defender_cap == 4
    assert rules_from_spec(p).overcall_ladder == "first_pair"
    with pytest.raises(RulesError, match="unknown preset 'fancy'.*standard.*toml"):
        rules_from_spec("fancy")
    with pytest.raises(RulesError, match="no such rules file"):
        rules_from_spec(str(tmp_path / "missing.toml"))
