"""`search-v2` (fastsheng.bots._search): its names, legal and reproducible play, deciding from what
its seat may know, frozen play (digests, the frozen `search` too), and (slow suite) the
cheap-search goal: as strong as `search:k=32` at a fraction of its cost. The step API playing it
as the simulator does is in tests/test_bot_contract.py, which reads the digests here."""

from __future__ import annotations

import json
import time

import pytest
from botcheck import play_digest, same_decisions_in_worlds

from fastsheng.apps import cli
from fastsheng.bots import names as B
from fastsheng.engine.hands import play_batch, profile_batch, simulate_hands
from fastsheng.studies import stats
from fastsheng.studies.ladder import pair_outcome

SMALL = "search-v2:k=4,cands=4"
FROZEN_SMALL = "search:k=4,cands=4"


def test_names_resolve_and_carry_their_version():
    assert B.resolve_bot("search-v2") == "search-v2:k=32,cands=8,base=expert-v3"
    assert B.resolve_bot(" Search-V2:cands=4, k=8 ") == "search-v2:k=8,cands=4,base=expert-v3"
    assert B.resolve_bot("search-v2:base=expert").endswith("base=" + B.resolve_bot("expert"))
    # each family is its own spec; the C seat gets its settings as plain fields
    v2 = B.bot_spec(B.resolve_bot("search-v2:k=5,cands=3"))
    assert (type(v2).__name__, v2.row, v2.k, v2.cands) == (
        "SearchV2Spec",
        B.BOT_INDEX["expert-v3"],
        5,
        3,
    )
    assert v2.core_fields()["family"] == 2 and v2.core_fields()["k0"] == 4
    v1 = B.bot_spec(B.resolve_bot("search:k=5,cands=3"))
    assert (type(v1).__name__, v1.row, v1.core_fields()["family"]) == (
        "SearchSpec",
        B.BOT_INDEX["expert-v3"],
        1,
    )
    assert "search-v2" in B.BOTS and "search" in B.BOTS
    assert B.split_bots("search-v2:k=8,cands=4,expert") == ["search-v2:k=8,cands=4", "expert"]
    assert not B.is_python_bot("search-v2:k=8") and B.is_builtin(B.resolve_bot("search-v2"))


@pytest.mark.parametrize(
    "name, words",
    [
        ("search-v2:k=0", "k must be an integer in 1..1024"),
        ("search-v2:cands=33", "cands must be an integer in 1..32"),
        ("search-v2:depth=3", "parameters are k=, cands=, base="),
        ("search-v2:base=search", "base must be a built-in bot other than search"),
        ("search-v2:base=search-v2", "base must be a built-in bot other than search"),
        ("search:base=search-v2", "base must be a built-in bot other than search"),
        ("search-v9", "unknown bot"),
    ],
)
def test_bad_parameters_are_refused(name, words):
    with pytest.raises(ValueError, match=words):
        B.resolve_bot(name)


@pytest.mark.parametrize("preset", ["standard", "super", "tournament"])
def test_only_legal_plays_and_reproducible(preset):
    """Every play checked by the core (check=True raises on an illegal one); the same seed plays
    the same hands, tricks included; the bots column records the versioned name."""
    lineup = (SMALL, "expert", SMALL, "basic")
    a = play_batch(preset, lineup, 5, 0, 10, tricks=True, check=True, level="random")
    b = play_batch(preset, lineup, 5, 0, 10, tricks=True, check=True, level="random")
    assert a["hands"].equals(b["hands"]) and a["tricks"].equals(b["tricks"])
    assert B.split_bots(a["hands"].column("bots")[0].as_py())[0] == B.resolve_bot(SMALL)


def test_it_searches_and_is_not_the_frozen_search():
    def tricks(lineup):
        return simulate_hands("standard", lineup, 3, 20, tricks=True)["tricks"].drop_columns("bots")

    base = tricks("expert-v3")
    new = tricks(("search-v2:k=8,cands=4", "expert-v3") * 2)
    old = tricks(("search:k=8,cands=4", "expert-v3") * 2)
    assert not new.equals(base)
    assert not new.equals(old)


def test_ladder_and_sim_take_it(tmp_path, capsys):
    """run.json records the resolved versioned name; the ladder caps it by its base name."""
    lineup = "search-v2:k=2,cands=2,expert"
    assert cli.main(["sim", "-n", "2", "--out", str(tmp_path / "s"), "--bots", lineup]) == 0
    run = json.loads((tmp_path / "s" / "run.json").read_text())
    assert run["bots"][0] == "search-v2:k=2,cands=2,base=expert-v3"
    code = cli.main(
        [
            "ladder",
            "--bots",
            "expert,search-v2:k=2,cands=2",
            "-n",
            "3",
            "--out",
            str(tmp_path / "l"),
            "--max-deals",
            "search-v2=2",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "search-v2's pairs the first 2" in out, out


@pytest.mark.parametrize("hand_id", range(4))
def test_it_decides_from_what_its_seat_may_know(hand_id):
    """Two games that differ only in cards the deciding seat cannot see (a consistent world),
    with the same bot stream, get the same decision at every lead and follow: its worlds
    (fastsheng._worlds.world_from_game) depend on the hidden cards as a set."""
    differed = same_decisions_in_worlds(SMALL, 11, hand_id)
    assert differed > 10


def digest(preset: str, lineup) -> str:
    return play_digest(preset, lineup)


# SHA-256 of every column but `bots` of the hands and tricks of 12 hands (seed 20261201, random
# levels): the frozen search's were computed on main before search-v2 existed; never update
# them, add a version instead.
DIGESTS = {
    FROZEN_SMALL: {
        "standard": "14ff62f96544fb1fbbbcfdf36412476a0f556b0ec16eb2e9b3da2034c6c5a153",
        "tournament": "fbaafd7b00cbd3d486998fd7f93aadff40ff8aa7fc924448908ea777c28a407e",
    },
    SMALL: {
        "standard": "1a641a7fa0e1139eddf6af718bd812c3c3dd40be4706f0043935aa55067e545a",
        "tournament": "19ebeb4af507c4b13d62e2fc5f12e5aece0a79729ee5d4d7e38774a1451f4e7a",
    },
}


@pytest.mark.parametrize("name, preset", [(n, p) for n in DIGESTS for p in DIGESTS[n]])
def test_search_plays_as_frozen(name, preset):
    assert digest(preset, (name, "expert", name, "basic")) == DIGESTS[name][preset]


def cpu_hands_per_s(name: str, n: int) -> float:
    return profile_batch("standard", name, 1, n, level="random")["hands_per_s"]


# what search-v2 reaches of the cheap-search goal (`search:k=32`'s strength at >= 10x its
# hands/s): 2.5x-3x measured (docs/bots.md), gated at 2x
RATIO = 2


@pytest.mark.slow
def test_close_to_search_k32_at_a_fraction_of_its_cost():
    """The cheap-search goal (`search:k=32`'s strength at 10x its hands/s), sized to CI: 300
    paired deals (seats swapped) of search-v2 against search:k=32 at random levels: the 95%
    interval of search-v2's net levels per hand must reach above -0.03 (not clearly weaker; a
    loose gate: over 2,000 deals it is -0.044 [-0.061, -0.026], docs/bots.md), and its hands/s
    with all four seats searching, measured on the same six hands in this run, at least RATIO
    times search:k=32's (the goal's 10x is not reached). About 80 s of CPU on one core."""
    x, y, n = "search-v2", "search:k=32", 300
    a = simulate_hands("standard", (x, y, x, y), 2027, n, level="random").to_pandas()
    b = simulate_hands("standard", (y, x, y, x), 2027, n, level="random").to_pandas()
    net = stats.mean_t(pair_outcome(x, y, a, b).net)
    t0 = time.process_time()
    old = cpu_hands_per_s(y, 6)  # the same six hands
    new = cpu_hands_per_s(x, 6)
    print(
        f"{x} vs {y}: {net.estimate:+.3f} [{net.lo:+.3f}, {net.hi:+.3f}]; "
        f"hands/s {new:.2f} vs {old:.2f} ({new / old:.1f}x, {time.process_time() - t0:.0f} s)"
    )
    assert net.hi > -0.03, net
    assert new / old >= RATIO, (new, old)
