"""Bring your own bot: a bot object or class wherever a name goes, two-team
line-ups, and a bot that cannot reach a worker process refused in one line."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import fastsheng as fs
from fastsheng.bots.names import BotRef, resolve_bots
from fastsheng.engine.hands import simulate_hands, simulate_matches
from fastsheng.sim import runner

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from userbots.simple import LowCards  # noqa: E402

NAME = "userbots.simple:LowCards"


def test_a_bot_object_or_class_plays_as_its_module_class_name():
    by_name = simulate_hands("standard", [NAME, "expert", NAME, "expert"], 3, 12, tricks=True)
    for given in ([LowCards(), "expert", LowCards(), "expert"], [LowCards, "expert"]):
        t = simulate_hands("standard", given, 3, 12, tricks=True)
        assert t["hands"].equals(by_name["hands"]) and t["tricks"].equals(by_name["tricks"])
    m = simulate_matches("standard", [LowCards, "expert"], 2, 1, hands=True)
    assert m["hands"].equals(
        simulate_matches("standard", [NAME, "expert"], 2, 1, hands=True)["hands"]
    )


def test_the_signatures_say_bot_objects_and_classes_go_in():
    """simulate_hands takes a bot object or class where a name goes: its signature says so
    (it said ``str | Sequence[str]``), and so do its siblings'."""
    import typing

    from fastsheng.engine import hands

    def flat(hint):
        args = typing.get_args(hint)
        return set().union(*(flat(a) for a in args)) | {hint} if args else {hint}

    for fn in (fs.simulate_hands, fs.simulate_matches, fs.trace_hand, hands.play_batch):
        said = flat(typing.get_type_hints(fn)["bots"])
        assert {str, fs.Bot, type[fs.Bot]} <= said, (fn.__name__, said)
    assert "Python bot object or class" in fs.simulate_hands.__doc__


def test_a_bare_bot_object_means_all_four_seats():
    a = simulate_hands("standard", LowCards(), 1, 5)
    assert a.equals(simulate_hands("standard", NAME, 1, 5))
    assert a.column("bots")[0].as_py() == ",".join([NAME] * 4)


def test_the_object_given_never_plays_each_seat_gets_a_copy():
    """One object at four seats: each seat of each batch plays a deep copy (reset gives each
    its own seat), and the object itself is left as it was given."""

    class Counting(LowCards):
        def __init__(self):
            self.decisions = 0

        def reset(self, seat, rules, rng):
            super().reset(seat, rules, rng)
            self.seat = seat

        def act(self, observation, legal_actions):
            assert observation.seat == self.seat  # its own seat, not the last reset's
            self.decisions += 1
            return super().act(observation, legal_actions)

    mine = Counting()
    t = simulate_hands("standard", mine, 4, 6, batch_size=3)
    assert t.num_rows == 6 and mine.decisions == 0


def test_two_bots_are_the_teams_everywhere():
    assert resolve_bots(["expert", "basic"]) == ("expert-v4", "basic-v1") * 2
    assert resolve_bots("expert,basic") == ("expert-v4", "basic-v1") * 2
    a = simulate_hands("standard", "expert,basic", 2, 8)
    assert a.equals(simulate_hands("standard", ["expert", "basic", "expert", "basic"], 2, 8))
    with pytest.raises(ValueError, match="two .team 0 at seats 0/2"):
        resolve_bots(["expert"] * 3)


def test_sim_cli_takes_two_teams(tmp_path):
    from fastsheng.apps.cli import main

    out = tmp_path / "r"
    code = main(
        [
            "sim",
            "-n",
            "20",
            "--bots",
            "expert,basic",
            "--seed",
            "1",
            "--workers",
            "0",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    bots = pq.read_table(out / "hands").column("bots")[0].as_py()
    assert bots == "expert-v4,basic-v1,expert-v4,basic-v1"


def test_a_bot_object_reaches_worker_processes_when_it_pickles(tmp_path):
    """About 3 s (one spawned worker): the class pickles by reference, the data equal the
    in-process run's."""
    spec = runner.RunSpec(
        rules=fs.get_rules("standard"), bots=(LowCards, "expert"), seed=5, n=8, batch_size=4
    )
    runner.run(spec, tmp_path / "w1", workers=1)
    runner.run(spec, tmp_path / "w0", workers=0)
    a, b = (pq.read_table(tmp_path / k / "hands") for k in ("w1", "w0"))
    assert a.equals(b) and a.column("bots")[0].as_py().startswith(NAME)


def test_a_bot_object_that_cannot_reach_a_worker_is_refused_in_one_line(tmp_path):
    class Local(LowCards):  # a local class: pickle cannot find it by name
        pass

    spec = runner.RunSpec(rules=fs.get_rules("standard"), bots=Local, seed=5, n=4, batch_size=4)
    with pytest.raises(ValueError, match="cannot be sent to worker processes.*workers=0") as e:
        runner.run(spec, tmp_path / "r", workers=2)
    assert "\n" not in str(e.value)
    assert not (tmp_path / "r").exists()  # refused before anything is written
    runner.run(spec, tmp_path / "r", workers=0)  # in process it plays


def test_botref_is_a_string_that_keeps_its_name_through_pickling():
    import pickle

    ref = BotRef(LowCards())
    assert ref == NAME and isinstance(ref, str)
    back = pickle.loads(pickle.dumps(ref))
    assert back == NAME and isinstance(back.make(), LowCards)
    assert BotRef(LowCards, "__main__:LowCards") == "__main__:LowCards"


def test_compare_takes_bot_objects_and_gives_their_team_view(tmp_path):
    from fastsheng.studies.report import compare_command

    rep = compare_command(
        bots=[[LowCards(), "expert"], "expert"],
        n=30,
        seed=2,
        workers=0,
        out=tmp_path / "c",
        quiet=True,
    )
    teams = rep.table("teams").df
    assert list(teams["X vs Y"]) == [f"{NAME} vs expert-v4"] and teams["net"].iloc[0] < 0


def test_the_ladder_passes_a_bot_object_through_the_resolver(tmp_path):
    from fastsheng.studies.ladder import LadderSpec, play_ladder

    spec = LadderSpec((LowCards, "expert"), 12, 1, fs.get_rules("standard"))
    lad = play_ladder(spec, tmp_path / "lad", workers=0, n_boot=10)
    row = lad.pairs.iloc[0]
    assert {row["x"], row["y"]} == {"expert", NAME} and row["deals"] == 12


def test_bot_action_asks_a_python_bot_object_too():
    """A bot object is accepted where bot_action takes a name (in process): its act gets the
    seat's observation and the current offer; a class or a non-bot is one line."""
    g = fs.Game("standard", seed=1)
    for given in (LowCards, [1]):
        with pytest.raises(ValueError, match=r"bot name or a bot object with an act method"):
            g.bot_action(given)
    mine = LowCards()
    mine.reset(g.to_act, g.rules, random.Random(0))
    twin = g.clone()
    expected = mine.act(twin.observation(twin.to_act), twin.legal_actions())
    mine.reset(g.to_act, g.rules, random.Random(0))
    answer = g.bot_action(mine)
    assert answer == expected
    g.apply(answer)
    while g.phase != "done":  # the whole hand, every decision the object's
        seat = g.to_act
        mine.reset(seat, g.rules, random.Random(seat))
        g.apply(g.bot_action(mine))
    assert g.result()["defenders_total"] >= 0


def test_play_takes_two_teams_too():
    from fastsheng.apps.terminal import _bot_names

    assert _bot_names("expert,basic", 0) == ["expert-v4", "basic-v1"] * 2
