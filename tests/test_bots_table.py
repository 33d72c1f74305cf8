"""The C bots are a table (fastsheng/bots/_heuristic.pyx): one row per bot index of
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


def test_a_row_outside_the_table_is_refused():
    """A line-up's seat names a row of the table of bots; one past the table (or negative) is
    refused when the line-up is made, before the C loop could read past the table's end."""
    import pytest
    from fastsheng.bots._lineup import Lineup

    from fastsheng.bots.spec import HeuristicSpec

    fields = HeuristicSpec("basic-v1").core_fields()
    for stray in (len(BOT_INDEX), 1 << 20, -1):
        with pytest.raises(ValueError, match=f"no row {stray}"):
            Lineup([(stray, fields)] + [(BOT_INDEX["basic-v1"], fields)] * 3)


def test_the_learned_row_gets_its_model_only_in_a_line_up_that_plays_it():
    """The heuristic table never changes: learned-v1's row there is expert-v4's decisions; a
    line-up that plays learned-v1 gives its own copy of the row the learned decisions."""
    from fastsheng.bots.lineup import make_lineup
    from fastsheng.bots.spec import bot_spec

    before = _heuristic.table_rows()
    make_lineup([bot_spec("learned-v1")] * 4)
    after = _heuristic.table_rows()
    assert before == after
    learned, expert = after[BOT_INDEX["learned-v1"]], after[BOT_INDEX["expert-v4"]]
    assert all(learned[d] == expert[d] for d in DECISIONS)
