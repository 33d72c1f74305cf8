"""The bots' typed specifications (fastsheng.bots.spec) and the seats the C loop gets from them
(fastsheng.bots.lineup): every setting declared once with its bounds, a name that parses into a
spec and formats back, and no state outside a seat that decides how it plays: a research
setting played in a process leaves every published name playing its frozen hands, and two seats
of one line-up with different settings each play as they do alone."""

from __future__ import annotations

import dataclasses

import pytest
import test_bot_versions
import test_infer
import test_search_v2
import test_search_v3

from fastsheng.bots import (
    GuidedSearchSpec,
    HeuristicSpec,
    LearnedSpec,
    SearchSpec,
    SearchV2Spec,
    bot_spec,
    resolve_bot,
)
from fastsheng.bots.lineup import make_lineup
from fastsheng.engine.game import Game
from fastsheng.engine.hands import simulate_hands

FAMILIES = (HeuristicSpec, LearnedSpec, SearchSpec, SearchV2Spec, GuidedSearchSpec)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_setting_is_declared_once_with_a_doc_and_bounds(family):
    settings = family.settings()
    assert [s.name for s in settings] == [f.name for f in dataclasses.fields(family)]
    for s in settings:
        assert s.doc and s.type in (int, float, str), s
        assert s.shown in ("always", "changed"), s
        if s.type is not str:
            assert s.lo <= s.default <= s.hi, s
        # research settings and later parameters are spelled only when changed: published
        # names keep their exact spelling
        assert not s.research or s.shown == "changed", s


@pytest.mark.parametrize("family", FAMILIES)
def test_the_default_spec_formats_a_name_that_parses_back(family):
    spec = family()
    assert bot_spec(spec.name) == spec
    assert resolve_bot(spec.name) == spec.name


@pytest.mark.parametrize(
    "name",
    [
        "search-v3:k=8,z=0.5,maker=0,steps=7,soft=0.25,model=expert-v4,kinds=1",
        "search-v3:k=8,bury=1,call=1,play=0,bury_kmul=2,call_every=1,call_z=1.5",
        "search-v2:k=8,k0=2,halve=0,zdrop=0.5",
        "search:k=4,z=1.5",
    ],
)
def test_research_settings_are_spelled_and_parse_back(name):
    resolved = resolve_bot(name)
    assert resolve_bot(resolved) == resolved
    spec = bot_spec(resolved)
    for item in name.split(":", 1)[1].split(","):
        field, value = item.split("=")
        assert str(getattr(spec, field)) == str(type(getattr(spec, field))(value)), field


@pytest.mark.parametrize(
    "name, words",
    [
        ("search-v3:z=11", "z must be a number in 0..10"),
        ("search-v3:z=x", "z must be a number in 0..10"),
        ("search-v3:steps=0", "steps must be an integer in 1..100000"),
        ("search-v3:model=search", "base must be a built-in bot other than search"),
        ("search-v3:lam=0.5", "lam weighs a per-card model: set cards or cards_path"),
        ("search-v2:bury=1", "parameters are k=, cands=, base="),
    ],
)
def test_a_bad_setting_is_one_line_naming_the_field_and_its_bounds(name, words):
    with pytest.raises(ValueError, match=words) as e:
        bot_spec(name)
    assert "\n" not in str(e.value)


def test_the_spec_fills_every_field_of_the_c_seat():
    """core_fields() is what the C seat gets (fastsheng/bots/_seat.pxd search_t): every field,
    read back from the seat a line-up made."""
    spec = bot_spec("search-v3:k=96,infer=10,kitty=5,belief=1,cards=1,gate=5,chains=4,bury=1")
    seat = make_lineup([spec] * 4).seat(0)
    fields = spec.core_fields()
    assert set(seat["search"]) == set(fields)
    for f, v in fields.items():
        assert seat["search"][f] == pytest.approx(v), f
    assert seat["play"] and seat["bury"] and not seat["call"]
    # a seat that does not search plays its row
    plain = make_lineup([bot_spec("expert")] * 4).seat(1)
    assert plain["search"]["family"] == 0 and not (plain["play"] or plain["bury"] or plain["call"])


def _digest_tables():
    """Every frozen digest of the test files: (line-up, preset) -> (digest function, want)."""
    out = {}
    v = test_bot_versions
    for lineup, by_preset in v.FROZEN.items():
        skip = v.ADDED_AFTER if lineup.split(",")[0] in v.BEFORE_V4 else frozenset()
        for preset, want in by_preset.items():
            out[lineup, preset] = (
                lambda p, b, skip=skip: v.digest(p, b, skip),
                v.LINEUPS[lineup],
                want,
            )
    for module in (test_search_v2, test_search_v3):
        for name, by_preset in module.DIGESTS.items():
            for preset, want in by_preset.items():
                lineup = (name, "expert", name, "basic")
                out[name, preset] = (module.digest, lineup, want)
    for (name, preset), want in test_infer.INFER_DIGESTS.items():
        out[name, preset] = (test_infer.digest, (name, "expert", name, "basic"), want)
    return out


def test_a_research_run_leaves_every_published_name_as_frozen():
    """A run with research settings at every seat (the race, the reading, the burial and the
    calls all away from their published values), then every frozen digest in the same process:
    nothing the research run set outlives its seats."""
    research = (
        "search-v3:k=8,cands=4,infer=10,kitty=5,belief=1,cards=1,z=0.5,zdrop=2,k0=2,steps=3,"
        "burn=10,soft=0.5,kinds=1,lam=1.5,chains=2,bury=1,call=1,bury_kmul=1,call_every=1",
        "search-v2:k=4,cands=4,k0=2,halve=0,z=2",
        "search:k=3,cands=4,z=0.5",
        "search-v3:k=8,cands=4,play=0,bury=1,oracle=1,maker=0",
    )
    assert simulate_hands("standard", research, 9, 2, level="random").num_rows == 2
    tables = _digest_tables()
    assert len(tables) > 100
    for (lineup, preset), (digest, bots, want) in tables.items():
        if preset == "standard" or isinstance(bots, tuple) and "search" in bots[0]:
            assert digest(preset, bots) == want, (lineup, preset)


def test_two_seats_with_different_settings_each_play_as_alone():
    """Seats 0/2 and 1/3 search with different families and settings in one line-up: hand by
    hand, the simulator plays what each seat's own bot decides at its turn in the step API
    (Game.bot_action with that seat's name alone), so no setting of one seat reaches the
    other."""
    a = "search-v3:k=8,cands=4,infer=10,gate=5,bury=1"
    b = "search-v2:k=4,cands=4,k0=2,zdrop=0.5"
    lineup = (a, b, a, b)
    rows = simulate_hands("standard", lineup, 23, 2, level="random").to_pylist()
    for k, row in enumerate(rows):
        g = Game("standard", seed=23, hand_id=k, level="random")
        while g.phase != "done":
            g.apply(g.bot_action(lineup[g.to_act]))
        got = {c: v for c, v in g.result().items() if c != "bots"}
        assert got == {c: v for c, v in row.items() if c != "bots"}, k


@pytest.mark.parametrize("name", ["search-v3:k=8,k=16", "search:k=8,k=16", "search-v3:K=8,k=16"])
def test_a_setting_given_twice_is_refused(name):
    with pytest.raises(ValueError, match="k is given twice"):
        bot_spec(name)


def test_a_short_name_s_settings_give_way_to_the_names_own():
    assert bot_spec("search-v4:k=8").k == 8
    with pytest.raises(ValueError, match="k is given twice"):
        bot_spec("search-v4:k=8,k=9")


def test_a_base_that_is_not_a_built_in_bot_is_one_line():
    with pytest.raises(ValueError, match="unknown bot 'hb:x'; a base is one of basic, expert,"):
        bot_spec("search-v3:base=hb:X")
    with pytest.raises(ValueError) as e:
        bot_spec("search-v3:base=nope")
    assert "search-v4" not in str(e.value)


def test_a_damaged_model_is_refused_in_the_parent_before_any_batch(tmp_path, monkeypatch):
    """sim's line-up check loads the models its C bots read: a damaged file is one error
    naming it and what to do, before any worker starts."""
    from fastsheng.bots import lineup
    from fastsheng.bots.catalog import LEARNED_MODELS
    from fastsheng.sim.spec import check_bots

    shipped = lineup._package_file(LEARNED_MODELS["learned-v1"].file)
    bad = tmp_path / LEARNED_MODELS["learned-v1"].file
    bad.write_bytes(open(shipped, "rb").read()[:-1])
    monkeypatch.setattr(lineup, "_package_file", lambda name: str(tmp_path / name))
    lineup._shipped.cache_clear()
    try:
        with pytest.raises(ValueError, match="damaged; reinstall fastsheng") as e:
            check_bots(("learned-v1", "expert"))
        assert "\n" not in str(e.value)
        (tmp_path / LEARNED_MODELS["learned-v1"].file).unlink()
        with pytest.raises(ValueError, match="cannot be read .*reinstall fastsheng"):
            check_bots("search-v3")
    finally:
        lineup._shipped.cache_clear()
