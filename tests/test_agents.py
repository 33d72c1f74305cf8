"""Python bots at any seat: the Bot protocol, in simulate_hands / simulate_matches and
`fastsheng sim`, reproducible, and a bot's failure reported in one line naming it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import fastsheng as fs
from fastsheng.bots.names import resolve_bot
from fastsheng.engine.agents import Bot, RandomBot, bot, load_bot
from fastsheng.engine.hands import play_batch, simulate_hands, simulate_matches
from fastsheng.errors import BotError

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def test_a_python_seat_playing_as_expert_reproduces_the_c_rows():
    """The observation is enough to play exactly as the C expert, and the Python-seat loop is
    the simulator's: same rows, tricks and matches."""
    py = ["expert", "userbots.simple:AsExpert", "expert", "expert"]
    a = simulate_hands("super", py, seed=5, n=60, level="random", tricks=True)
    b = simulate_hands("super", "expert", seed=5, n=60, level="random", tricks=True)
    for k in ("hands", "tricks"):
        assert a[k].drop_columns(["bots"]).equals(b[k].drop_columns(["bots"]))
    m1 = simulate_matches("standard", py, seed=2, n=3, hands=True)
    m2 = simulate_matches("standard", "expert", seed=2, n=3, hands=True)
    assert m1["hands"].drop_columns(["bots"]).equals(m2["hands"].drop_columns(["bots"]))
    expert = resolve_bot("expert")  # the version that played is recorded
    assert a["hands"].column("bots")[0].as_py() == f"{expert},userbots.simple:AsExpert," + (
        f"{expert},{expert}"
    )


def test_python_bots_are_reproducible_and_seeded_by_the_run():
    lineup = ["userbots.simple:LowCards", "expert", "py-random", "random"]
    a = simulate_hands("standard", lineup, seed=9, n=30, tricks=True)
    b = simulate_hands("standard", lineup, seed=9, n=30, tricks=True)
    c = simulate_hands("standard", lineup, seed=10, n=30, tricks=True)
    assert a["hands"].equals(b["hands"]) and a["tricks"].equals(b["tricks"])
    assert not a["tricks"].equals(c["tricks"])


def test_a_bots_exception_names_the_bot_seat_hand_and_decision():
    with pytest.raises(BotError) as e:
        play_batch("standard", ["expert", "userbots.simple:Crashes", "expert", "expert"], 1, 0, 5)
    msg = str(e.value)
    assert "userbots.simple:Crashes" in msg and "seat 1" in msg and "hand 0" in msg
    assert "RuntimeError: oops" in msg and "follow" in msg


def test_an_illegal_action_names_the_action_and_the_rule():
    card = r"(10|[2-9JQKA])[SHCD]"  # card names, not codes
    pattern = rf"seat 2.*illegal action \[{card}, {card}\].*one effective"
    with pytest.raises(BotError, match=pattern):
        simulate_hands("standard", ["expert", "expert", "userbots.simple:Cheats", "expert"], 3, 40)


def test_loading_bots_by_path():
    assert isinstance(bot("py-random"), RandomBot)
    assert isinstance(load_bot("userbots.simple:LowCards"), Bot)
    with pytest.raises(ValueError, match="cannot import"):
        load_bot("nosuchpkg.mod:Bot")
    with pytest.raises(ValueError, match="has no 'Nope'"):
        load_bot("userbots.simple:Nope")
    with pytest.raises(ValueError, match="unknown bot"):
        resolve_bot("nosuch")


def test_builtin_bot_as_python_bot_plays_legally():
    t = simulate_hands("standard", ["userbots.simple:LowCards", "expert"] * 2, seed=4, n=20)
    assert t.num_rows == 20


def _cli(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "fastsheng.apps.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


def test_cli_sim_with_a_python_bot_and_its_failure(tmp_path):
    out = tmp_path / "run"
    r = _cli(
        "sim",
        "-n",
        "40",
        "--batch-size",
        "20",
        "--workers",
        "2",
        "--seed",
        "3",
        "--bots",
        "userbots.simple:LowCards,expert,py-random,expert",
        "--out",
        str(out),
        "--quiet",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    import pandas as pd

    h = pd.read_parquet(out / "hands")
    assert len(h) == 40 and h["bots"].iloc[0].startswith("userbots.simple:LowCards")
    bad = tmp_path / "bad"
    r = _cli(
        "sim",
        "-n",
        "40",
        "--batch-size",
        "20",
        "--workers",
        "1",
        "--seed",
        "3",
        "--bots",
        "expert,userbots.simple:Crashes,expert,expert",
        "--out",
        str(bad),
        "--quiet",
        cwd=tmp_path,
    )
    assert r.returncode != 0
    lines = [x for x in r.stderr.strip().splitlines() if x.startswith("error")]
    assert lines and "userbots.simple:Crashes" in lines[0] and "seat 1" in lines[0]
    assert "Traceback" not in r.stderr
    r = _cli("sim", "-n", "10", "--bots", "nosuchmod:Bot", "--quiet", cwd=tmp_path)
    assert r.returncode == 2 and "cannot import" in r.stderr and "Traceback" not in r.stderr


def test_cli_compare_a_python_bot_against_expert(tmp_path):
    r = _cli(
        "compare",
        "--bots",
        "userbots.simple:LowCards,expert",
        "--bots",
        "expert",
        "-n",
        "60",
        "--seed",
        "2",
        "--out",
        str(tmp_path / "cmp"),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert "LowCards" in r.stdout + r.stderr


def test_run_json_records_the_bot_stream_and_old_runs_resume_with_theirs(tmp_path):
    """Random bots draw per hand now; a run.json without `bot_stream` (made before) resumes
    and replays with the per-batch stream it was made with."""
    import json

    from fastsheng.sim.runner import RunSpec

    spec = RunSpec(
        rules=fs.get_rules("standard"), bots=("random",) * 4, seed=1, n=10, batch_size=10
    )
    assert spec.config()["bot_stream"] == "hand"
    old = {k: v for k, v in spec.config().items() if k != "bot_stream"}
    assert RunSpec.from_manifest(old).bot_stream == "batch"
    assert spec.disagreements(old) == ["bot_stream hand (run.json: batch)"]
    assert json.dumps(spec.config())


def test_the_flat_api_gives_bots_in_the_protocols_form():
    """fs.bot("expert") is the built-in bot as a Python bot: it plays a hand legally from the
    observations alone, and a user's bot can call it (e.g. as a rollout policy)."""
    import random

    g = fs.Game("standard", seed=6, hand_id=2)
    players = [fs.bot("expert"), fs.bot("py-random"), fs.bot("expert-v1"), fs.bot("py-random")]
    for seat, p in enumerate(players):
        assert isinstance(p, fs.Bot)
        p.reset(seat, g.rules, random.Random(seat))
    while g.phase != "done":
        g.apply(players[g.to_act].act(g.observation(g.to_act), g.legal_actions()))
    assert g.result()["n_tricks"] > 0
