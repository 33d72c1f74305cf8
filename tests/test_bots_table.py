"""The C bots are a table (fastsheng/_bots.pyx): one row per bot index of
fastsheng.bots.names, four decision functions and the plan they read. A row left unset would
crash the game loop (a call through a null pointer), and two names with the same row would be one
bot under two names."""

from __future__ import annotations

from fastsheng.bots import _heuristic
from fastsheng.bots.names import BOT_INDEX

DECISIONS = ("lead", "follow", "bury", "declare")
EXPERTS = ("expert-v1", "expert-v2", "expert-v3", "expert-v4")


def test_every_bot_index_has_a_full_row():
    rows = _heuristic.table_rows()
    assert sorted(BOT_INDEX.values()) == list(range(len(rows)))
    for name, i in BOT_INDEX.items():
        assert all(rows[i][d] for d in DECISIONS), (name, rows[i])


def test_no_two_names_play_the_same_row():
    rows = _heuristic.table_rows()
    seen = {tuple(sorted(rows[i].items())): name for name, i in BOT_INDEX.items()}
    assert len(seen) == len(BOT_INDEX)


def test_the_expert_versions_share_their_decisions_and_differ_by_plan():
    rows = [_heuristic.table_rows()[BOT_INDEX[n]] for n in EXPERTS]
    for d in DECISIONS:
        assert len({r[d] for r in rows}) == 1, d
    plans = {(r["flags"], r["call_share"], r["keep_trump_pairs"], r["endgame"]) for r in rows}
    assert len(plans) == len(EXPERTS)


def test_an_id_outside_the_table_plays_basic():
    """A bot id past the table (or negative) plays basic-v1, as the if-chains the table replaced
    did, instead of reading past the table's end."""
    from fastsheng.engine.game import Game

    basic = BOT_INDEX["basic-v1"]
    g = Game("standard", seed=5, hand_id=1, level="random")
    decisions = 0
    while g.phase != "done":
        for stray in (len(BOT_INDEX), 1 << 20, -1):
            ours, theirs = g._core.copy(), g._core.copy()
            assert ours.bot_decision(stray) == theirs.bot_decision(basic), (g.phase, stray)
        g.apply(g.bot_action("basic-v1"))
        decisions += 1
    assert decisions > 100
