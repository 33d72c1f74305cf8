"""The data-valued switches (fastsheng.tables, docs/rules.md §6, §7, §11): level table, kitty
multiplier and throw penalty as data; their normal forms, validation, rules files, and the core
computing from the same data as the reference (hypothesis, random tables)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastsheng
from fastsheng import parse_cards
from fastsheng.apps import cli
from fastsheng.errors import RulesError
from fastsheng.reference import Context as RefContext
from fastsheng.reference import levels as ref
from fastsheng.rules import Rules, get_rules, load_rules
from fastsheng.tables import (
    KITTY_MULTIPLIERS,
    LEVEL_TABLES,
    MAX_BANDS,
    KittyMultiplier,
    LevelTable,
    threshold_table,
)

D, X = "dealer", "defenders"
STANDARD_BANDS = [[0, D, 3], [1, D, 2], [40, D, 1], [80, X, 0], [120, X, 1]]


# --- normal forms -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "form",
    [
        {"threshold": 80, "step": 40},
        {"threshold": 80},
        {"step": 40},
        {},
        {"bands": STANDARD_BANDS, "step": 40},
        LevelTable(tuple(map(tuple, STANDARD_BANDS)), 40),
    ],
)
def test_every_form_of_the_standard_table_is_standard(form):
    r = Rules(level_table=form)
    assert r.level_table == "standard"
    assert r == Rules() and hash(r) == hash(Rules())
    assert r.to_dict() == Rules().to_dict()


def test_named_tables_are_their_data():
    for name, table in LEVEL_TABLES.items():
        assert Rules(level_table=table.to_value()).level_table == name
        assert Rules(level_table=table).level_table == name
    for name, mult in KITTY_MULTIPLIERS.items():
        assert Rules(kitty_multiplier=mult.to_value()).kitty_multiplier == name
    assert Rules(kitty_multiplier={"tractor": [8, 12, 16, 20, 24]}).kitty_multiplier != "linear"
    assert (
        Rules(kitty_multiplier={"tractor": [6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26]}) == Rules()
    )


def test_threshold_form_written_out():
    """docs/rules.md §11: below the line ceil((T - total) / S), 0 one more; from the line the
    defenders take over and gain (total - T) // S."""
    rules = Rules(level_table={"threshold": 70})  # step 40 by default
    assert rules.level_table == LevelTable(
        ((0, D, 3), (1, D, 2), (30, D, 1), (70, X, 0), (110, X, 1)), 40
    )
    expected = [
        (0, D, 3), (5, D, 2), (25, D, 2), (29, D, 2), (30, D, 1), (65, D, 1), (69, D, 1),
        (70, X, 0), (105, X, 0), (110, X, 1), (149, X, 1), (150, X, 2), (230, X, 4),
    ]  # fmt: skip
    wide = Rules(level_table={"threshold": 100, "step": 30})
    expected_wide = [
        (0, D, 5), (5, D, 4), (9, D, 4), (10, D, 3), (40, D, 2), (70, D, 1), (99, D, 1),
        (100, X, 0), (130, X, 1), (160, X, 2),
    ]  # fmt: skip
    for impl in (fastsheng.level_outcome, ref.level_outcome):
        for total, side, n in expected:
            assert impl(rules, total) == (side, n), total
        for total, side, n in expected_wide:
            assert impl(wide, total) == (side, n), total
    assert impl(rules.replace(defender_cap=1), 230) == (X, 1)


def test_threshold_form_edges():
    assert threshold_table(1, 40).bands == ((0, D, 1), (1, X, 0), (41, X, 1))
    assert threshold_table(41, 40).bands == ((0, D, 2), (1, D, 1), (41, X, 0), (81, X, 1))
    assert Rules(level_table={"threshold": 70}).to_dict()["level_table"] == {
        "threshold": 70,
        "step": 40,
    }


def test_kitty_multiplier_data():
    r = Rules(kitty_multiplier={"single": 3, "pair": 5, "tractor": [7, 9]})
    assert r.kitty_multiplier == KittyMultiplier(3, 5, (7,) + (9,) * 10)
    assert r.to_dict()["kitty_multiplier"] == {"single": 3, "pair": 5, "tractor": [7, 9]}
    assert str(r.kitty_multiplier) == "{single = 3, pair = 5, tractor = [7, 9]}"
    core = fastsheng.Context(r, "6", "H")
    ref_ctx = RefContext(r, "6", "H")
    for ctx in (core, ref_ctx):
        got = [ctx.kitty_multiplier(parse_cards(lead)) for lead in LEADS]
        # single, pair, 2-tractor, 3-tractor, 6-tractor, throws (at_least_3: max(3, decisive))
        assert got == [3, 5, 7, 9, 9, 3, 5, 7]


def test_throw_penalty_table_sets_both_fields():
    classic = get_rules("classic")
    assert (classic.throw_penalty, classic.throw_penalty_points) == ("flat", 20)
    assert classic.replace(throw_penalty={"form": "flat", "points": 20}) == classic
    r = get_rules("super").replace(throw_penalty={"points": 5})  # form: per_card by default
    assert (r.throw_penalty, r.throw_penalty_points) == ("per_card", 5)
    assert Rules(throw_penalty={}) == Rules()
    assert Rules.from_dict(r.to_dict()) == r


# --- round trips ------------------------------------------------------------------------------

CUSTOM = [
    {"level_table": {"threshold": 60, "step": 20}},
    {"level_table": {"bands": [[0, D, 2], [50, D, 1], [90, X, 0], [150, X, 2]], "step": 0}},
    {"level_table": {"bands": [[0, D, 1], [80, X, 1]], "step": 25}, "defender_cap": 3},
    {"kitty_multiplier": {"single": 1, "pair": 3, "tractor": [5, 6, 7]}},
    {"throw_penalty": {"form": "flat", "points": 35}},
]


@pytest.mark.parametrize("overrides", CUSTOM)
def test_custom_tables_round_trip_through_json(overrides):
    r = get_rules("twenty").replace(**overrides)
    d = json.loads(json.dumps(r.to_dict()))
    assert d == r.to_dict()  # what run.json holds is what the resume check compares
    back = Rules.from_dict(d)
    assert back == r and hash(back) == hash(r)
    assert back.core_fields() == r.core_fields()


def test_runs_written_before_keep_their_string_values():
    """run.json of earlier versions holds the names; they read back as the same rules."""
    old = get_rules("super").to_dict()
    assert old["level_table"] == "super" and old["kitty_multiplier"] == "linear"
    assert Rules.from_dict(old) == get_rules("super")


# --- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, value, pattern",
    [
        ("level_table", "huge", r"level_table = 'huge' is not valid.*'standard'.*threshold"),
        ("level_table", 80, r"level_table = 80 is not valid"),
        ("level_table", {"threshold": 0}, r"threshold = 0 is not valid.*1\.\."),
        ("level_table", {"threshold": 80.5}, r"threshold = 80\.5"),
        ("level_table", {"step": True}, r"step = True"),
        ("level_table", {"threshold": 80, "bands": []}, r"both threshold and bands"),
        ("level_table", {"line": 70}, r"unknown key 'line'; keys: threshold, step, bands"),
        ("level_table", {"bands": []}, r"bands = \[\] is not valid"),
        ("level_table", {"bands": [[5, D, 2], [80, X, 0]]}, r"first band starts at 5"),
        ("level_table", {"bands": [[0, D, 2], [0, X, 0]]}, r"lowest totals must increase"),
        ("level_table", {"bands": [[0, "us", 2]]}, r"band \[0, 'us', 2\] is not valid"),
        ("level_table", {"bands": [[0, X, 0], [80, D, 1]]}, r"dealer band above a defenders"),
        ("level_table", {"bands": [[0, D, 1]], "step": 40}, r"needs a defenders band last"),
        ("level_table", {"bands": [[0, D, 1], [80, X, 0]], "step": -1}, r"step = -1"),
        ("level_table", {"bands": [[i, X, 0] for i in range(30)]}, rf"at most {MAX_BANDS}"),
        ("level_table", {"threshold": 200, "step": 5}, r"makes 43 bands; at most 24"),
        ("kitty_multiplier", "squared", r"kitty_multiplier = 'squared'.*'plus_two'"),
        ("kitty_multiplier", {"single": -1}, r"single = -1 is not valid"),
        ("kitty_multiplier", {"tractor": []}, r"tractor = \[\] is not valid"),
        ("kitty_multiplier", {"tractor": 8}, r"tractor = 8 is not valid"),
        ("kitty_multiplier", {"triple": 8}, r"unknown key 'triple'"),
        ("throw_penalty", "always", r"throw_penalty = 'always' is not valid.*form"),
        ("throw_penalty", {"form": "double"}, r"form = 'double' is not valid"),
        ("throw_penalty", {"points": 500}, r"points = 500 is not valid; expected an integer 0"),
    ],
)
def test_validation_is_one_line_naming_the_value(field, value, pattern):
    for make in (
        lambda: Rules(**{field: value}),
        lambda: get_rules("super").replace(**{field: value}),
    ):
        with pytest.raises(RulesError, match=pattern) as e:
            make()
        assert "\n" not in str(e.value)


def _write(tmp_path, text):
    p = tmp_path / "house.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_rules_file_tables(tmp_path):
    r = load_rules(
        _write(
            tmp_path,
            'preset = "super"\n'
            "level_table = { threshold = 70, step = 40 }\n"
            'throw_penalty = { form = "flat", points = 15 }\n'
            "[kitty_multiplier]\n"
            "single = 2\n"
            "pair = 6\n",
        )
    )
    assert r.level_table == threshold_table(70, 40)
    assert (r.throw_penalty, r.throw_penalty_points) == ("flat", 15)
    assert r.kitty_multiplier == KittyMultiplier(2, 6, KITTY_MULTIPLIERS["plus_two"].tractor)
    assert r.overcall_ladder == "strict"  # the rest is the preset's
    bands = load_rules(
        _write(
            tmp_path,
            'level_table = { bands = [[0, "dealer", 3], [1, "dealer", 2], [40, "dealer", 1],'
            ' [80, "defenders", 0], [120, "defenders", 1]], step = 40 }\n',
        )
    )
    assert bands.level_table == "standard"


@pytest.mark.parametrize(
    "text, pattern",
    [
        ('preset = "twenty"\n\nlevel_table = { threshold = -5 }\n', r"house\.toml:3: level_table"),
        ("[level_table]\nbands = [[5, \"dealer\", 1]]\n", r"house\.toml:1: level_table's first"),
        ("kitty_multiplier = { pair = \"4\" }\n", r"house\.toml:1: kitty_multiplier pair"),
        ("x = 1\nthrow_penalty = { points = 5 }\nthrow_penalty_points = 5\n",
         r"house\.toml:1: unknown field 'x'"),
        ("throw_penalty = { points = 5 }\nthrow_penalty_points = 5\n",
         r"house\.toml:2: throw_penalty_points is set twice"),
        ("must_play = { a = 1 }\n", r"house\.toml:1: tables are not supported"),
    ],
)  # fmt: skip
def test_rules_file_errors_name_the_line(tmp_path, text, pattern):
    with pytest.raises(RulesError, match=pattern) as e:
        load_rules(_write(tmp_path, text))
    assert "\n" not in str(e.value)


def test_cli_rules_show_and_one_line_error(tmp_path, capsys):
    path = _write(tmp_path, "level_table = { threshold = 70 }\n")
    assert cli.main(["rules", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "{threshold = 70, step = 40}" in out and "(set by the user; standard" in out
    bad = _write(tmp_path, "level_table = { threshold = 70, steps = 10 }\n")
    assert cli.main(["rules", "show", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and f"{bad}:1" in err[0]
    assert "unknown key 'steps'" in err[0]


# --- the core computes from the same data as the reference ------------------------------------


@st.composite
def level_tables(draw):
    n_dealer = draw(st.integers(1, 8))
    n_def = draw(st.integers(0, MAX_BANDS - n_dealer))
    lows = sorted(draw(st.sets(st.integers(1, 400), min_size=n_dealer + n_def - 1,
                               max_size=n_dealer + n_def - 1)))  # fmt: skip
    lows = [0, *lows]
    levels = draw(st.lists(st.integers(0, 12), min_size=len(lows), max_size=len(lows)))
    sides = [D] * n_dealer + [X] * n_def
    step = draw(st.integers(1, 80)) if n_def and draw(st.booleans()) else 0
    bands = [[lo, s, n] for lo, s, n in zip(lows, sides, levels, strict=True)]
    return {"bands": bands, "step": step}


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        level_tables(),
        st.builds(
            lambda t, s: {"threshold": t, "step": s}, st.integers(1, 200), st.integers(10, 100)
        ),  # fmt: skip
        st.sampled_from(sorted(LEVEL_TABLES)),
    ),
    st.one_of(st.none(), st.integers(1, 12)),
    st.lists(st.integers(0, 600), min_size=1, max_size=20),
)
def test_core_level_outcome_matches_reference(table, cap, totals):
    rules = Rules(level_table=table, defender_cap=cap)
    for total in totals:
        assert fastsheng.level_outcome(rules, total) == ref.level_outcome(rules, total), total


# level 6, hearts trump: 5S 5S 7S 7S is a tractor (6 is out of the chain)
LEADS = (
    "5S", "5S 5S", "5S 5S 7S 7S", "5S 5S 7S 7S 8S 8S", "2S 2S 3S 3S 4S 4S 5S 5S 7S 7S 8S 8S",
    "AS KS", "AS KS KS", "AS 3S 3S 4S 4S",
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 50),
    st.integers(0, 50),
    st.lists(st.integers(0, 9000), min_size=1, max_size=11),
    st.sampled_from(["at_least_3", "largest", "pair_4"]),
)
def test_core_kitty_multiplier_matches_reference(single, pair, tractor, throw_kitty):
    rules = Rules(
        kitty_multiplier={"single": single, "pair": pair, "tractor": tractor},
        throw_kitty=throw_kitty,
    )
    core, ref_ctx = fastsheng.Context(rules, "6", "H"), RefContext(rules, "6", "H")
    for lead in LEADS:
        cards = parse_cards(lead)
        assert core.kitty_multiplier(cards) == ref_ctx.kitty_multiplier(cards), lead


# --- the game loop and expert-v4 read the data ------------------------------------------------


def test_the_game_scores_with_a_tuned_table():
    """The hands' kitty multipliers and level outcomes come from the tuned data (~1 s)."""
    rules = Rules(
        kitty_multiplier={"single": 3, "pair": 5, "tractor": [7]},
        level_table={"threshold": 60, "step": 30},
    )
    t = fastsheng.simulate_hands(rules, "expert", seed=11, n=300).to_pydict()
    assert set(t["kitty_mult"]) <= {3, 5, 7}
    assert {3, 5} <= set(t["kitty_mult"])
    for total, winner, levels, bonus in zip(
        t["defenders_total"], t["winner"], t["levels"], t["bonus_levels"], strict=True
    ):
        side, n = ref.level_outcome(rules, total)
        assert (winner, levels - bonus) == (side, n), total


def test_expert_v4_reads_the_tuned_level_table():
    """v4 contests points that cross a line of the table in force (stakes_v4): lines every 5
    points change its play in some hands (44 of 2,000 with this seed), while v3, which never
    reads the table, plays the same (~2 s)."""
    tuned = get_rules("standard").replace(level_table={"threshold": 80, "step": 5})

    def points(rules, bot):
        return fastsheng.simulate_hands(rules, bot, seed=5, n=2000)["trick_points"].to_pylist()

    assert points(get_rules("standard"), "expert-v3") == points(tuned, "expert-v3")
    v4_std, v4_tuned = points(get_rules("standard"), "expert-v4"), points(tuned, "expert-v4")
    assert sum(a != b for a, b in zip(v4_std, v4_tuned, strict=True)) >= 10
