"""BatchPlan, the one description of a batch: checked and normalised once, its mode and trace
as enums, turned into the C loop's plain values in one place."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from fastsheng.bots.names import resolve_bot
from fastsheng.engine.hands import trace_hand
from fastsheng.engine.plan import BatchPlan, Mode, Trace
from fastsheng.rules import Rules

sys.path.insert(0, str(Path(__file__).resolve().parent))


def test_a_plan_is_normalised_once_and_frozen():
    plan = BatchPlan("standard", "expert", 7, 3, 40, 100, mode="matches", level="random")
    assert isinstance(plan.rules, Rules) and plan.rules.name == "standard"
    assert plan.bots == (resolve_bot("expert"),) * 4
    assert plan.mode is Mode.MATCHES and plan.trace is Trace.NONE
    assert plan.level == "random" and plan.id_base == 300 and plan.played == 40
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.size = 1  # type: ignore[misc]
    assert BatchPlan("standard", "expert", 7, 0, 5).batch_size == 5  # None: the batch is whole


def test_the_c_loop_gets_plain_values_not_the_callers_sentinels():
    base = dict(rules="standard", bots="basic", seed=1, batch=2, size=10, batch_size=50)
    none = BatchPlan(**base).core_fields()
    every = BatchPlan(**base, trace=Trace.ALL).core_fields()
    one = BatchPlan(**base, trace="one", trace_item=4).core_fields()
    match = BatchPlan(**base, mode=Mode.MATCHES, trace=Trace.ONE, trace_item=4, trace_hand_no=3)
    assert (none["trace_item"], every["trace_item"], one["trace_item"]) == (-1, -2, 4)
    assert one["trace_hand_no"] == 0 and match.core_fields()["trace_hand_no"] == 3
    assert none["mode"] == 0 and match.core_fields()["mode"] == 1
    assert none["id_base"] == 100 and none["level"] == 0 and len(none["state"]) == 4
    assert BatchPlan(**base, level="A").core_fields()["level"] == 12
    assert BatchPlan(**base, level="random").core_fields()["level"] == -1
    assert BatchPlan(**base, trace=Trace.ONE, trace_item=4).played == 5


@pytest.mark.parametrize(
    "change, message",
    [
        ({"mode": "rounds"}, "mode must be 'hands' or 'matches'"),
        ({"bot_stream": "seat"}, "bot_stream must be one of"),
        ({"size": 0}, "size must be a positive int"),
        ({"size": 60}, "size 60 exceeds batch_size 50"),
        ({"trace": "one", "trace_item": 10}, r"trace_item must be in 0\.\.9"),
        ({"trace": "one", "trace_hand_no": 0}, "trace_hand_no must be a whole number >= 1"),
        ({"trace": "some"}, "not a valid Trace"),
        ({"level": "1"}, "level"),
        ({"seed": -1}, "seed must be a non-negative int"),
        ({"bots": "py-random", "bot_stream": "batch"}, "per-hand bot streams"),
    ],
)
def test_a_bad_plan_is_refused_where_it_is_made(change, message):
    base = dict(rules="standard", bots="basic", seed=1, batch=0, size=10, batch_size=50)
    with pytest.raises(ValueError, match=message):
        BatchPlan(**{**base, **change})


def test_one_hand_of_a_match_is_traced_alike_through_both_doors_of_batch_fill():
    """The simulator (_game._run) and a batch with a Python seat (_state.BatchCore) are filled
    by the same batch_fill: the traced hand of match 1, batch 1 is the same event for event."""
    py = ["expert", "userbots.simple:AsExpert", "expert", "expert"]
    kw = dict(mode="matches", hand_no=2)
    a = trace_hand("standard", py, 4, 1, 1, 3, **kw)
    b = trace_hand("standard", "expert", 4, 1, 1, 3, **kw)
    assert a["hand_id"] == b["hand_id"] and a["events"] == b["events"]
    assert [e["type"] for e in a["events"]][-1] == "result"
