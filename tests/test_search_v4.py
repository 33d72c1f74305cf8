"""search-v4: a frozen short name for the strongest search setting. It resolves to that
setting's full search-v3 name (what run.json and the `bots` column record), goes wherever a bot
name goes, takes parameters as search-v3 does, and the long names keep resolving as before."""

from __future__ import annotations

import pytest

from fastsheng.bots import names as B
from fastsheng.engine.hands import simulate_hands
from fastsheng.sim.spec import check_bots

# what search-v4 plays, every parameter spelled out: pinned, a frozen name never moves
FULL = (
    "search-v3:k=1024,cands=8,base=expert-v3,close=31,late=10,early=0,top=7,bury=0,infer=10,"
    "kitty=5,belief=1,cards=1,chains=4"
)
# the frontier's names for it and for its one-chain sibling (docs/frontier.json)
LONG = "search-v3:k=1024,close=31,early=0,top=7,infer=10,kitty=5,belief=1,cards=1,chains=4"
ONE_CHAIN = "search-v3:k=1024,close=31,early=0,top=7,infer=10,kitty=5,belief=1,cards=1"


def test_search_v4_resolves_to_the_full_name_of_its_setting():
    assert B.ALIASES["search-v4"] == LONG
    assert B.resolve_bot("search-v4") == FULL
    assert B.resolve_bot(" Search-V4 ") == FULL


def test_the_long_names_keep_resolving_as_before():
    assert B.resolve_bot(LONG) == FULL
    assert B.resolve_bot(FULL) == FULL
    assert B.resolve_bot(ONE_CHAIN) == FULL.removesuffix(",chains=4")
    assert B.resolve_bot("search-v3") == (
        "search-v3:k=64,cands=8,base=expert-v3,close=20,late=10,early=5,top=3,bury=0"
    )


def test_search_v4_is_a_public_name_listed_last():
    assert "search-v4" in B.BOTS and B.BOTS[-1] == "search-v4"
    assert B.is_builtin(B.resolve_bot("search-v4"))
    with pytest.raises(ValueError, match="search-v3, search-v4"):
        B.resolve_bot("search-v5")


def test_line_ups_with_search_v4():
    assert B.split_bots("search-v4,expert") == ["search-v4", "expert"]
    assert B.resolve_bots("search-v4,expert") == (FULL, "expert-v4", FULL, "expert-v4")
    assert check_bots("search-v4") == (FULL,) * 4
    # a key=value piece after search-v4:... is its parameter, as after any search name
    assert B.split_bots("search-v4:k=8,cands=4,expert") == ["search-v4:k=8,cands=4", "expert"]


def test_search_v4_takes_parameters_over_its_own():
    assert B.resolve_bot("search-v4:gate=5") == B.resolve_bot(LONG + ",gate=5")
    assert B.resolve_bot("search-v4:k=8,cands=4") == FULL.replace("k=1024,cands=8", "k=8,cands=4")
    assert B.resolve_bot("search-v4:") == FULL
    with pytest.raises(ValueError, match="'search-v4:k=0': k must be"):
        B.resolve_bot("search-v4:k=0")
    with pytest.raises(ValueError, match="'search-v4:nope=1': parameters are"):
        B.resolve_bot("search-v4:nope=1")


def test_the_bots_column_records_the_full_name():
    # one hand (about 1.5 s of CPU): search-v4 plays, and the record names its setting
    t = simulate_hands("standard", ("search-v4", "random"), 1, 1)
    assert t.column("bots")[0].as_py() == ",".join([FULL, "random"] * 2)
