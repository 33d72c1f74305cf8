"""Isolated Python bots (fastsheng.engine.isolation, docs/game.md "Isolated bots").

A Python bot in the process that holds the game can read every hidden card. The hostile bots of
tests/userbots/snoop.py try each known route (the caller's frame, inspect, ctypes, three
gc.get_referrers starts, the offer the game keeps, gc.get_objects, the run's seed); in process
each finds the other seats' cards, isolated none does. Then: isolated bots play exactly as in
process, fail in one line (a forfeited hand or a stopped run), are killed however a batch ends,
never run their module in the game's process, and draw numbers that do not depend on the seed.
Each isolated run starts a fresh interpreter per Python seat (about a second here)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import fastsheng as fs
from fastsheng.apps import cli
from fastsheng.engine.hands import simulate_hands, simulate_matches
from fastsheng.engine.isolation import BotLimits, isolated_bot_seed, mixed_authors
from fastsheng.engine.observation import Observation
from fastsheng.errors import BotError
from fastsheng.sim import runner

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from userbots import snoop  # noqa: E402
from userbots.simple import LowCards  # noqa: E402

SEED = 424_242  # the run seed the seed route looks for
ROUTES = [cls.route for cls in snoop.ROUTES] + [snoop.RunSeed.route]
LINEUPS = (
    [f"userbots.snoop:{c.__name__}" for c in snoop.ROUTES[:4]],
    [f"userbots.snoop:{c.__name__}" for c in snoop.ROUTES[4:]],
    ["expert", "userbots.snoop:RunSeed"],
)


@pytest.fixture
def reports_dir(tmp_path, monkeypatch):
    where = tmp_path / "reports"
    where.mkdir()
    monkeypatch.setenv(snoop.REPORT_DIR, str(where))
    return where


def _snoop(where: Path, isolate: bool) -> dict[str, list[dict]]:
    """Every route played for one hand; each route's reports (one per seat it sat at)."""
    for lineup in LINEUPS:
        simulate_hands("standard", lineup, seed=SEED, n=1, isolate=isolate)
    out: dict[str, list[dict]] = {r: [] for r in ROUTES}
    for f in where.glob("*.json"):
        record = json.loads(f.read_text())
        out[record["route"]].append(record)
        f.unlink()
    return out


def _found(record: dict) -> bool:
    """What the route got: another seat's cards (at least one card of this very game), or
    the run's seed."""
    if record["route"] == "seed":
        return SEED in record["seeds"]
    return sum(len(cards) for cards in record["cards"].values()) > 0


@pytest.fixture(scope="module")
def snooped(tmp_path_factory):
    where = tmp_path_factory.mktemp("snoop")
    old = os.environ.get(snoop.REPORT_DIR)
    os.environ[snoop.REPORT_DIR] = str(where)
    try:
        return {"in process": _snoop(where, False), "isolated": _snoop(where, True)}
    finally:
        if old is None:
            del os.environ[snoop.REPORT_DIR]
        else:
            os.environ[snoop.REPORT_DIR] = old


@pytest.mark.parametrize("route", ROUTES)
def test_in_process_every_route_reads_what_the_seat_may_not_see(snooped, route):
    """The routes are real: the very assertion of the isolated test fails in process."""
    records = snooped["in process"][route]
    assert records and all(r["pid"] == os.getpid() for r in records)
    assert all(_found(r) for r in records), records
    for r in records:
        if route != "seed":  # the three other hands, whole (a snoop acts while dealt)
            assert len(r["cards"]) == 3


@pytest.mark.parametrize("route", ROUTES)
def test_isolated_no_route_finds_a_hidden_card_or_the_seed(snooped, route):
    records = snooped["isolated"][route]
    assert records, "the isolated snoop did not play"
    assert all(r["pid"] != os.getpid() for r in records)  # it ran in a process of its own
    assert not any(_found(r) for r in records), records


# ---------------------------------------------------------------------------------------------
# The observation as bytes


def test_an_observation_travels_as_bytes_and_deals_the_same_worlds():
    g = fs.Game("super", seed=3, hand_id=4, level="random")
    seen = 0
    while g.phase != "done":
        o = g.observation(g.to_act)
        for data, rules in ((o.to_bytes(), None), (o.to_bytes(rules=False), g.rules)):
            back = Observation.from_bytes(data, rules)
            assert back == o and back._rules == o._rules and back._batch == o._batch
            assert back._public == o._public  # the sealed state the worlds come from
        if seen % 40 == 0:
            a, b = o.sample_world(7), back.sample_world(7)
            assert [a.hand(s) for s in range(4)] == [b.hand(s) for s in range(4)]
        seen += 1
        g.apply(g.bot_action("expert"))
    assert seen > 50


def test_observation_bytes_are_no_pickle_and_garbage_is_refused():
    import pickle

    o = fs.Game("standard", seed=1).observation(0)
    data = o.to_bytes()
    assert not data.startswith(b"\x80")  # reading them runs no code
    for junk in (pickle.dumps(o), b"", data[:20], data + b"x", b"FSOB\x02" + b"\xff" * 8):
        with pytest.raises(ValueError, match="not an observation"):
            Observation.from_bytes(junk)


# ---------------------------------------------------------------------------------------------
# Isolated bots play as in process


def test_isolated_bots_play_exactly_as_in_process():
    """LowCards decides from its observation, AsExpert from worlds dealt from it: the bytes
    carry all a bot reads. The isolated table adds the forfeit column, all null."""
    lineup = ["userbots.simple:LowCards", "expert", "userbots.simple:AsExpert", "expert"]
    a = simulate_hands("standard", lineup, seed=5, n=12, level="random", tricks=True, isolate=True)
    b = simulate_hands("standard", lineup, seed=5, n=12, level="random", tricks=True)
    assert a["hands"].column("forfeit").null_count == 12
    assert a["hands"].drop_columns(["forfeit"]).equals(b["hands"])
    assert a["tricks"].equals(b["tricks"])
    # a bot object travels pickled and plays as its module:Class name
    c = simulate_hands("standard", [LowCards, "expert"], seed=5, n=3, isolate=True)
    d = simulate_hands("standard", ["userbots.simple:LowCards", "expert"], seed=5, n=3)
    assert c.drop_columns(["forfeit"]).equals(d)


def test_an_isolated_matches_run_plays_as_in_process():
    py = ["expert", "userbots.simple:AsExpert", "expert", "expert"]
    a = simulate_matches("standard", py, seed=2, n=1, hands=True, isolate=True)
    b = simulate_matches("standard", py, seed=2, n=1, hands=True)
    assert a["matches"].equals(b["matches"])
    assert a["hands"].drop_columns(["forfeit"]).equals(b["hands"])


# ---------------------------------------------------------------------------------------------
# A failure: the hand forfeited, in one line


@pytest.mark.parametrize(
    "bot, limits, words",
    [
        ("overrun:Sleeps", dict(timeout=0.5), r"took longer than 0\.5 s"),
        ("overrun:Spins", dict(timeout=0.5), r"took longer than 0\.5 s"),
        ("overrun:EatsMemory", dict(memory_mb=1024), r"raised MemoryError \(its memory limit"),
        ("overrun:Segfaults", {}, r"died \(killed by SIGSEGV"),
        ("overrun:KillsItself", {}, r"died \(exited with code 7\)"),
        ("simple:Crashes", {}, r"raised RuntimeError: oops"),
        ("hostile:Exits", {}, r"raised SystemExit \(sys\.exit\(3\)\)"),
    ],
)
def test_a_failing_isolated_bot_forfeits_the_hand_in_one_line(capfd, bot, limits, words):
    t = simulate_hands(
        "standard",
        ["expert", f"userbots.{bot}", "expert", "expert"],
        seed=3,
        n=1,
        isolate=True,
        bot_limits=BotLimits(**limits),
    )
    lines = [x for x in capfd.readouterr().err.splitlines() if x.startswith("warning:")]
    assert len(lines) == 1, lines
    import re

    pattern = (
        rf"warning: bot userbots\.{bot} \(seat 1\) {words}.* in hand 0 at its follow "
        r"decision; its team forfeits the hand$"
    )
    assert re.match(pattern, lines[0]), lines[0]
    assert t.column("forfeit").to_pylist() == [1]


def test_an_illegal_answer_forfeits_too_and_names_the_action(capfd):
    lineup = ["expert", "userbots.simple:Cheats", "expert", "userbots.overrun:AnswersJunk"]
    t = simulate_hands("standard", lineup, seed=3, n=3, isolate=True)
    err = [x for x in capfd.readouterr().err.splitlines() if x.startswith("warning:")]
    assert len(err) == t.column("forfeit").drop_null().__len__() == 3
    assert any(
        "Cheats (seat 1) made an illegal action [" in x and "one effective" in x for x in err
    )
    assert any("AnswersJunk (seat 3) made an illegal action <object object" in x for x in err)


def test_prints_never_reach_the_answers():
    t = simulate_hands("standard", ["userbots.overrun:Prints", "expert"], seed=3, n=2, isolate=True)
    assert t.column("forfeit").null_count == 2


def test_a_forfeit_is_scored_as_the_forfeiting_teams_loss():
    """Dealer side forfeits: the defenders win as with all 200 points; defenders forfeit: the
    dealer side wins as if they took none. The play columns stay as played."""
    rules = fs.get_rules("standard")
    t = simulate_hands("standard", ["expert", "userbots.simple:Crashes"], seed=3, n=6,
                       isolate=True).to_pandas()  # fmt: skip
    assert t["forfeit"].notna().all()
    for _, row in t.iterrows():
        dealt = row["forfeit"] % 2 == row["dealer"] % 2
        total = 200 if dealt else 0
        side, levels = fs.level_outcome(rules, total)
        assert (row["defenders_total"], row["winner"], row["levels"]) == (total, side, levels)
        assert row["winner"] == ("defenders" if dealt else "dealer")
        assert row["bonus_levels"] == 0 and row["levels_climbed"] == levels  # level 2: no cap
        assert row["next_dealer"] == (row["dealer"] + (2 if side == "dealer" else 1)) % 4


@pytest.mark.parametrize("preset", ["standard", "super", "renda", "jifen"])
def test_the_forfeit_climbs_as_the_c_loop_climbs(preset):
    """forfeit_row's levels_climbed is the C loop's rule (end rank, must-play ranks)."""
    from fastsheng.cards import RANKS
    from fastsheng.engine.pybatch import _climb

    rules = fs.get_rules(preset)
    t = simulate_hands(rules, "expert", seed=1, n=400, level="random").to_pandas()
    ranks = list(RANKS)
    for _, row in t.iterrows():
        level = ranks.index(row["level"])
        assert _climb(rules, level, int(row["levels"])) - level == row["levels_climbed"]


def test_on_error_stop_ends_the_run_in_one_line_and_matches_cannot_forfeit():
    lineup = ["expert", "userbots.simple:Crashes", "expert", "expert"]
    with pytest.raises(BotError) as e:
        simulate_hands(
            "standard", lineup, 3, 2, isolate=True, bot_limits=BotLimits(on_error="stop")
        )
    assert str(e.value) == (
        "bot userbots.simple:Crashes (seat 1) raised RuntimeError: oops in hand 0 at its follow "
        "decision"
    )
    with pytest.raises(BotError, match=r"Crashes \(seat 1\) raised RuntimeError: oops in hand"):
        simulate_matches("standard", lineup, 3, 1, isolate=True)
    with pytest.raises(ValueError, match="forfeit a hand in hands mode only"):
        simulate_matches("standard", lineup, 3, 1, isolate=True,
                         bot_limits=BotLimits(on_error="forfeit"))  # fmt: skip


def test_a_bot_that_cannot_start_stops_the_run_naming_it():
    lineup = ["expert", "nosuchmod:Bot", "expert", "expert"]
    with pytest.raises(BotError, match=r"bot nosuchmod:Bot \(seat 1\) could not be made"):
        simulate_hands("standard", lineup, seed=1, n=1, isolate=True)
    with pytest.raises(ValueError, match="cannot import 'nosuchmod'"):  # the run's own check
        runner.RunSpec(fs.get_rules("standard"), ("expert", "nosuchmod:Bot"), 1, 1, 1, isolate=True)


def test_a_bot_object_must_pickle_and_import_by_its_module():
    class Local(LowCards):
        pass

    with pytest.raises(ValueError, match=r"cannot play isolated .*it does not pickle") as e:
        simulate_hands("standard", [Local(), "expert"], seed=1, n=1, isolate=True)
    assert "\n" not in str(e.value) and "module:Class" in str(e.value)
    with pytest.raises(ValueError, match=r"cannot play isolated .*running script \(__main__\)"):
        simulate_hands("standard", ["__main__:Mine", "expert"], seed=1, n=1, isolate=True)


# ---------------------------------------------------------------------------------------------
# The processes


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"  # a zombie has ended (whoever reaps it)


def _pids(where: Path, prefix: str) -> list[int]:
    return [int(f.read_text()) for f in where.glob(f"{prefix}-*")]


pytestmark_linux = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc; PR_SET_PDEATHSIG is Linux's"
)


@pytestmark_linux
def test_bot_processes_end_with_their_batch_and_never_run_in_the_game_process(reports_dir):
    """Two authors: isolated by default. The bot's module is imported only where it plays."""
    spec = runner.RunSpec(
        fs.get_rules("standard"),
        ("userbots.marks_import:Bot", "rivalbots:HighCards"),
        seed=1,
        n=4,
        batch_size=2,
    )
    assert spec.isolate and spec.config()["isolate"] is True
    runner.run(spec, reports_dir / "run", workers=0)
    played = _pids(reports_dir, "plays")
    assert len(set(played)) == 4  # two seats, two batches: a process each
    assert os.getpid() not in _pids(reports_dir, "imported") + played
    assert "userbots.marks_import" not in sys.modules
    assert not any(_alive(p) for p in played)
    hands = pq.read_table(reports_dir / "run" / "hands")
    assert hands.column("forfeit").null_count == 4


@pytestmark_linux
def test_ctrl_c_kills_the_bot_processes(reports_dir):
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 2.5)
        with pytest.raises(KeyboardInterrupt):
            simulate_hands("standard", ["expert", "userbots.marks_import:SleepsThenPlays"], 1, 1,
                           isolate=True, bot_limits=BotLimits(timeout=60))  # fmt: skip
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    played = _pids(reports_dir, "plays")
    assert played and not any(_alive(p) for p in played)


@pytestmark_linux
def test_a_killed_parent_takes_its_bot_processes_along(reports_dir):
    code = textwrap.dedent(
        """
        from fastsheng.engine.hands import simulate_hands
        from fastsheng.engine.isolation import BotLimits
        simulate_hands("standard", ["expert", "userbots.marks_import:SleepsThenPlays"], 1, 1,
                       isolate=True, bot_limits=BotLimits(timeout=60))
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), *sys.path])}
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    try:
        deadline = time.monotonic() + 60
        while not _pids(reports_dir, "plays") and time.monotonic() < deadline:
            time.sleep(0.1)
        played = _pids(reports_dir, "plays")
        assert played
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in played) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in played)


# ---------------------------------------------------------------------------------------------
# Seeds, defaults, the command line


def test_an_isolated_bots_numbers_do_not_depend_on_the_seed(reports_dir):
    """They come from the batch and seat alone: a bot that read its numbers learns nothing of
    the seed (which deals every hand), however many seeds it tries."""
    draws = {}
    for seed in (1, 2):
        simulate_hands("standard", ["expert", "userbots.marks_import:Draws"], seed, 2,
                       isolate=True)  # fmt: skip
        draws[seed] = sorted(f.read_text() for f in reports_dir.glob("draw-*"))
        for f in reports_dir.glob("draw-*"):
            f.unlink()
    assert draws[1] == draws[2] and len(draws[1]) == 2
    import random

    first = random.Random(isolated_bot_seed(0, 1)).random()
    assert any(text.splitlines()[0] == repr(first) for text in draws[1])


def test_isolation_is_the_default_where_authors_mix():
    assert not mixed_authors(["userbots.simple:LowCards", "expert", "py-random"])
    assert not mixed_authors(["userbots.simple:LowCards", "userbots.hostile:Exits"])  # one root
    assert mixed_authors(["userbots.simple:LowCards", "expert", "rivalbots:HighCards"])
    assert mixed_authors([LowCards, "rivalbots:HighCards"])  # an object counts by its module
    rules = fs.get_rules("standard")
    mine = ("userbots.simple:LowCards", "expert")
    assert not runner.RunSpec(rules, mine, 1, 1, 1).isolate
    assert runner.RunSpec(rules, mine, 1, 1, 1, bot_limits=BotLimits(timeout=2)).isolate
    assert not runner.RunSpec(rules, ("expert",), 1, 1, 1, isolate=True).isolate  # no Python
    with pytest.raises(ValueError, match="hold for isolated bots only"):
        runner.RunSpec(rules, mine, 1, 1, 1, isolate=False, bot_limits=BotLimits())
    from fastsheng.studies.ladder import LadderSpec

    lad = LadderSpec(("userbots.simple:LowCards", "rivalbots:HighCards", "expert"), 2, 1, rules)
    assert lad.isolate and lad.run_spec("expert", "rivalbots:HighCards").isolate
    assert not LadderSpec(("userbots.simple:LowCards", "expert"), 2, 1, rules).isolate


def test_old_runs_resume_in_process():
    rules = fs.get_rules("standard")
    spec = runner.RunSpec(rules, ("userbots.simple:LowCards", "expert"), 1, 4, 2)
    old = {k: v for k, v in spec.config().items() if k != "isolate"}
    assert runner.RunSpec.from_manifest(old).isolate is False
    assert spec.disagreements(old) == []


def _cli(capsys, *args):
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_sim_isolated_forfeits_and_says_so(capfd, tmp_path):
    """On a worker process (its bot processes are its children), about 4 s."""
    out = tmp_path / "run"
    code = cli.main(
        [
            *("sim", "-n", "3", "--seed", "3", "--workers", "1", "--out", str(out)),
            *("--bots", "userbots.simple:Crashes,expert", "--isolate", "--bot-timeout", "2"),
        ]
    )
    captured = capfd.readouterr()
    assert code == 0, captured.err
    warnings = [x for x in captured.err.splitlines() if x.startswith("warning: bot")]
    assert len(warnings) == 3 and "forfeits     3 hands" in captured.out
    assert pq.read_table(out / "hands").column("forfeit").null_count == 0
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["isolate"] is True and manifest["bot_limits"]["timeout"] == 2.0


def test_sim_on_bot_error_stop_is_one_line(capsys, tmp_path):
    code, _, err = _cli(
        capsys,
        *("sim", "-n", "3", "--seed", "3", "--workers", "0", "--out", str(tmp_path / "r")),
        *("--bots", "expert,userbots.simple:Crashes,expert,expert", "--on-bot-error", "stop"),
        "--quiet",
    )
    assert code == 2  # as a failing bot in process (--workers 0)
    assert err == (
        "error: bot userbots.simple:Crashes (seat 1) raised RuntimeError: oops in hand 0 at its "
        "follow decision\n"
    )


@pytest.mark.parametrize(
    "args, words",
    [
        (("--bot-timeout", "soon"), "--bot-timeout takes seconds"),
        (("--bot-memory", "1"), "--bot-memory"),
        (("--on-bot-error", "ignore"), "forfeit or stop"),
        (("--no-isolate", "--bot-timeout", "3"), "hold for isolated bots only"),
        (("--mode", "matches", "--on-bot-error", "forfeit"), "hands mode only"),
    ],
)
def test_isolation_options_are_checked_in_one_line(capsys, tmp_path, args, words):
    code, _, err = _cli(
        capsys,
        *("sim", "-n", "2", "--bots", "userbots.simple:LowCards,expert", "--out", str(tmp_path)),
        *args,
    )
    assert code == 2 and err.count("\n") == 1 and words in err, err


def test_the_ladder_and_compare_isolate_two_authors(capsys, tmp_path):
    bots = "userbots.simple:LowCards,rivalbots:HighCards"
    code, stdout, err = _cli(
        capsys, "ladder", "--bots", bots, "-n", "2", "--seed", "1", "-w", "0", "-q",
        "-o", str(tmp_path / "lad"),
    )  # fmt: skip
    assert code == 0, err
    assert json.loads((tmp_path / "lad" / "ladder.json").read_text())["isolate"] is True
    for run in (tmp_path / "lad" / "runs").iterdir():
        assert json.loads((run / "run.json").read_text())["isolate"] is True
    code, _, err = _cli(
        capsys, "compare", "--bots", "userbots.simple:LowCards,expert", "--bots",
        "rivalbots:HighCards,expert", "-n", "2", "--seed", "1", "-w", "0",
        "-o", str(tmp_path / "cmp"),
    )  # fmt: skip
    assert code == 0, err
    for run in (tmp_path / "cmp" / "runs").iterdir():
        assert json.loads((run / "run.json").read_text())["isolate"] is True


def test_sweep_and_evaluate_take_the_isolation(tmp_path):
    rep = fs.sweep(
        "standard",
        set=["kitty_multiplier=linear"],
        bots="userbots.simple:LowCards,expert",
        n=2,
        workers=0,
        out=tmp_path / "sw",
        isolate=True,
        figures=False,
    )
    assert rep is not None
    for run in (tmp_path / "sw" / "runs").iterdir():
        assert json.loads((run / "run.json").read_text())["isolate"] is True
    r = fs.evaluate(LowCards, n=2, isolate=True)
    assert r["deals"] == 2
