"""`search-v3`'s calls search (fastsheng.bots._call_search): its names (published names unchanged),
legal and reproducible calls, the same through the simulator and the step API, deciding from
what the seat may know, call=0 calling as the base, and (slow suite) that on expert play the
searched calls do not lose to the base bot's own."""

from __future__ import annotations

import hashlib
import json

import pytest

from fastsheng.apps import cli
from fastsheng.bots import _call_search
from fastsheng.bots import names as B
from fastsheng.bots.lineup import make_lineup
from fastsheng.engine.game import Game
from fastsheng.engine.hands import decode_traces, play_batch, simulate_hands
from fastsheng.studies import stats
from fastsheng.studies.ladder import pair_outcome

SMALL = "search-v3:k=4,cands=6,call=1"
RACE = ",close=20,late=10,early=5,top=3"  # search-v3's race parameters at their defaults


def test_names_resolve_and_published_names_do_not_change():
    # call came after search-v3's names were published: spelled out only when 1
    assert B.resolve_bot("search-v3") == f"search-v3:k=64,cands=8,base=expert-v3{RACE},bury=0"
    assert B.resolve_bot("search-v3:call=0") == B.resolve_bot("search-v3")
    assert B.resolve_bot(" Search-V3:call=1, k=8 ") == (
        f"search-v3:k=8,cands=8,base=expert-v3{RACE},bury=0,call=1"
    )
    # a resolved name resolves to itself (run.json's names replay and resume)
    for name in ("search-v3:call=1", "search-v3:bury=1,call=1", "search-v3"):
        assert B.resolve_bot(B.resolve_bot(name)) == B.resolve_bot(name)
    # call=1 gives the C seat the searched calls; every other setting is call=0's
    on = make_lineup([B.bot_spec("search-v3:k=5,cands=3,top=7,call=1")] * 4).seat(0)
    off = make_lineup([B.bot_spec("search-v3:k=5,cands=3,top=7")] * 4).seat(0)
    assert on["call"] and not off["call"] and on["play"] and off["play"]
    assert {**on["search"], "call": 0} == off["search"]


@pytest.mark.parametrize(
    "name, words",
    [
        ("search-v3:call=2", "call must be an integer in 0..1"),
        ("search-v3:call=yes", "call must be an integer in 0..1"),
        ("search-v2:call=1", "parameters are k=, cands=, base="),
        ("search:call=1", "parameters are k=, cands=, base="),
    ],
)
def test_bad_parameters_are_a_one_line_value_error(name, words):
    with pytest.raises(ValueError, match=words) as e:
        B.resolve_bot(name)
    assert "\n" not in str(e.value)


def test_run_json_records_the_name(tmp_path, capsys):
    lineup = "search-v3:k=2,cands=2,call=1,expert"
    assert cli.main(["sim", "-n", "2", "--out", str(tmp_path), "--bots", lineup]) == 0
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["bots"][0] == f"search-v3:k=2,cands=2,base=expert-v3{RACE},bury=0,call=1"
    capsys.readouterr()
    bad = ["sim", "-n", "1", "--out", str(tmp_path / "x"), "--bots", "search-v3:call=3"]
    assert cli.main(bad) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "call must be an integer in 0..1" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def call_events(preset: str, lineup, seed: int, n: int) -> list[tuple]:
    out = play_batch(preset, lineup, seed, 0, n, trace=True, check=True, level="random")
    return [
        (hand["hand_id"], e["type"], e.get("seat"), e.get("cards"))
        for hand in decode_traces(out["traces"])
        for e in hand["events"]
        if e["type"] in ("show", "chaodi")
    ]


# 炒底 needs `super` (overcalls after the burial); random bases call and overcall often
CASES = {
    "standard": ((SMALL, "expert", SMALL, "basic"), 5),
    "tournament": ((SMALL, "expert", SMALL, "basic"), 5),
    "super": (("search-v3:k=4,cands=6,base=random,call=1", "random") * 2, 8),
}


@pytest.mark.parametrize("preset", sorted(CASES))
def test_every_call_legal_and_reproducible(preset):
    """check=True raises on an illegal show; the same seed plays the same hands; the searching
    seats call in some hands."""
    lineup, seed = CASES[preset]
    a = play_batch(preset, lineup, seed, 0, 12, tricks=True, check=True, level="random")
    b = play_batch(preset, lineup, seed, 0, 12, tricks=True, check=True, level="random")
    assert a["hands"].equals(b["hands"]) and a["tricks"].equals(b["tricks"])
    assert B.split_bots(a["hands"].column("bots")[0].as_py())[0] == B.resolve_bot(lineup[0])
    shows = call_events(preset, lineup, seed, 12)
    assert any(seat % 2 == 0 for _, _, seat, _ in shows)


def test_it_searches_and_call0_calls_as_the_base():
    base = call_events("standard", "expert-v3", 3, 60)
    # play=0: the calls alone differ (the research setting)
    searched = call_events("standard", ("search-v3:k=16,call=1,play=0", "expert-v3") * 2, 3, 60)
    counts = _call_search._call_counts(reset=True)
    plain = call_events("standard", ("search-v3:k=16,call=0", "expert-v3") * 2, 3, 60)
    assert searched != base and plain == base
    assert counts["searched"] > 0 and counts["changed"] > 0


@pytest.mark.parametrize(
    "preset, lineup, seed, n",
    [
        ("standard", (SMALL, "expert", SMALL, "expert"), 43, 5),
        ("super", CASES["super"][0], 8, 8),
    ],
)
def test_step_api_calls_as_the_simulator(preset, lineup, seed, n):
    """Every decision through fs.Game + bot_action gives the simulator's hands."""
    rows = simulate_hands(preset, lineup, seed, n, level="random").to_pylist()
    asked = 0
    for k, row in enumerate(rows):
        g = Game(preset, seed=seed, hand_id=k, level="random")
        while g.phase != "done":
            asked += g.phase == "declare" and g.to_act % 2 == 0
            g.apply(g.bot_action(lineup[g.to_act]))
        got = {c: v for c, v in g.result().items() if c != "bots"}
        assert got == {c: v for c, v in row.items() if c != "bots"}, k
    assert asked >= 2


def test_it_calls_from_what_its_seat_may_know():
    """A world that differs from the game only in cards the seat cannot see (the others' cards
    so far and the undealt deck), with the same bot stream, gets the same answer: at every
    question of a searching seat in the first hands."""
    lineup = ("search-v3:k=8,call=1", "expert") * 2
    checked = 0
    for hand_id in range(4):
        g = Game("standard", seed=17, hand_id=hand_id, level="random")
        while g.phase == "declare":
            seat = g.to_act
            # (a question once the others hold a few cards, so the world's differ)
            if seat % 2 == 0 and len(g.hand(seat)) >= 4:
                world = g.sample_world(seat, rng=hand_id + 100 * checked)
                assert any(world.hand(s) != g.hand(s) for s in range(4) if s != seat)
                world._core.set_bot_stream(g._core.bot_stream())
                assert world.bot_action(lineup[seat]) == g.bot_action(lineup[seat])
                checked += 1
            g.apply(g.bot_action(lineup[seat]))
    assert checked >= 4


def test_bury_and_calls_search_together():
    lineup = ("search-v3:k=4,cands=6,bury=1,call=1", "expert") * 2
    a = play_batch("standard", lineup, 9, 0, 6, check=True, level="random")
    assert a["hands"].num_rows == 6


@pytest.mark.slow
def test_searched_calls_win_on_expert_play():
    """On expert play (the play search off) the searched calls beat the base bot's own: the
    interval above zero (docs/bots.md, *search-v3: the calls*; about N s)."""
    # the first 6,000 deals of the confirming run (analysis/call_search.py expert-v3 20000 2075 64)
    x, y, n, seed = B.resolve_bot("search-v3:call=1,play=0"), "expert-v3", 6000, 2075
    a = simulate_hands("standard", (x, y, x, y), seed, n, level="random").to_pandas()
    b = simulate_hands("standard", (y, x, y, x), seed, n, level="random").to_pandas()
    net = stats.mean_t(pair_outcome(x, y, a, b).net)
    assert net.lo > 0, net


def call_digest(preset: str, lineup, seed: int) -> str:
    """SHA-256 of the show and 炒底 events of 12 hands (random levels): they come before the
    first lead, so this freezes the calls' search whatever the play of its version becomes."""
    events = call_events(preset, lineup, seed, 12)
    return hashlib.sha256(json.dumps(events).encode()).hexdigest()


# computed when search-v3's calls search was published (on these deals some searched answers
# differ from the base bot's, so the digests see the search); never update them, add a version
CALL_DIGESTS = {
    "standard": (
        (SMALL, "expert", SMALL, "basic"),
        20261201,
        "656642642e128d3830c524782cb7be87b1d23e2f473324db41255e9b0d452868",
    ),
    "super": (
        CASES["super"][0],
        8,
        "c6375d2b12c1b383328ce8da2f97593663746ed33cb686dc4a2fe9e645ff2757",
    ),
}


@pytest.mark.parametrize("preset", sorted(CALL_DIGESTS))
def test_calls_search_calls_as_frozen(preset):
    lineup, seed, want = CALL_DIGESTS[preset]
    base = tuple(name.replace(",call=1", "") for name in lineup)
    assert call_events(preset, lineup, seed, 12) != call_events(preset, base, seed, 12)
    assert call_digest(preset, lineup, seed) == want
