"""The `fastsheng` command line: sim, rules, replay, --version; one-line errors; Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.dataset as pds
import pytest
from test_runner import fake_batch

import fastsheng
import fastsheng.rules
from fastsheng.apps import cli
from fastsheng.bots.names import resolve_bot
from fastsheng.sim import runner

TESTS = Path(__file__).resolve().parent
PACKAGE_ROOT = Path(fastsheng.__file__).resolve().parents[1]


@pytest.fixture
def fake_engine(monkeypatch):
    """The driver on the deterministic stand-in engine of test_runner."""
    monkeypatch.setattr(runner, "default_batch_fn", lambda: fake_batch)
    monkeypatch.setattr(runner, "known_bots", lambda: ("random", "basic", "expert"))
    for name in (
        *("FAKE_SLEEP", "FAKE_KILL", "FAKE_KILL_ALWAYS", "FAKE_FAIL", "FAKE_NOSPACE"),
        "FAKE_NOMEMORY",
    ):
        monkeypatch.delenv(name, raising=False)


def run_cli(capsys, *args):
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code, err, *words):
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for word in words:
        assert word in lines[0], lines[0]


# --------------------------------------------------------------------------------------------
# -n


@pytest.mark.parametrize(
    "text, value",
    [
        ("1e6", 10**6),
        ("1_000_000", 10**6),
        ("1000000", 10**6),
        ("2.5e3", 2500),
        ("1E3", 1000),
        ("7", 7),
        ("+12", 12),
    ],
)
def test_parse_count_accepts(text, value):
    assert cli.parse_count(text) == value


@pytest.mark.parametrize(
    "text", ["abc", "0", "-5", "1.5", "1e-3", "", "1__0", "_1", "1e6.5", "0x10"]
)
def test_parse_count_rejects(text):
    with pytest.raises(cli.UserError, match="-n must"):
        cli.parse_count(text)


def test_parse_count_refuses_huge_numbers_without_building_them():
    t0 = time.process_time()
    with pytest.raises(cli.UserError, match="-n must be at most 1e12, not 1e999999999"):
        cli.parse_count("1e999999999", maximum=10**12)
    assert time.process_time() - t0 < 0.5  # 10**999999999 would take minutes and 400 MB
    assert cli.parse_count("1_000_000_000_000", maximum=10**12) == 10**12
    assert cli.parse_count("0.000e3", minimum=0) == 0


def test_batch_counts_are_integer_arithmetic():
    from fastsheng.sim.limits import n_batches

    # a float ceil(1e17 / 3) is 33333333333333332: two batches short
    assert n_batches(10**17, 3) == 33_333_333_333_333_334
    assert n_batches(10**12, 10**6) == 10**6 and n_batches(10**12 + 1, 10**6) == 10**6 + 1


def test_short_count_and_default_folder():
    assert cli.short_count(1_000_000) == "1e6"
    assert cli.short_count(2_500_000) == "2.5e6"
    assert cli.short_count(1234) == "1234"
    assert cli.short_count(1_000_001) == "1000001"
    spec = runner.RunSpec(
        rules=fastsheng.rules.get_rules("standard"),
        bots=("expert",) * 4,
        seed=5,
        n=10**6,
        batch_size=10_000,
    )
    expert = resolve_bot("expert")  # the folder names the version that played
    assert str(cli.default_out(spec)) == os.path.join("runs", f"standard-{expert}-1e6-s5")


# --------------------------------------------------------------------------------------------
# sim


def test_sim_writes_a_dataset_and_prints_a_summary(tmp_path, capsys, fake_engine):
    out = tmp_path / "r"
    code, stdout, stderr = run_cli(
        capsys,
        "sim",
        "-n",
        "300",
        "--batch-size",
        "64",
        "--seed",
        "7",
        "--workers",
        "2",
        "--out",
        str(out),
        "--bots",
        "random,basic,random,basic",
        "--tricks",
    )
    assert code == 0, stderr
    assert f"wrote 300 hands to {out}" in stdout
    for word in ("hands/s", "dealer side", "points on average", "kitty", "levels"):
        assert word in stdout
    assert "sim: 300 hands of standard" in stderr  # plain progress: stderr is not a terminal
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["bots"] == ["random", "basic-v1", "random", "basic-v1"]  # resolved names
    assert manifest["seed"] == 7 and manifest["n"] == 300 and manifest["complete"]
    assert manifest["rules"]["kitty_multiplier"] == "plus_two"  # every switch is recorded
    assert pds.dataset(out / "hands").count_rows() == 300
    assert pds.dataset(out / "tricks").count_rows() == 900


def test_a_run_of_one_batch_says_batch_and_part_and_the_size_it_plays(
    tmp_path, capsys, fake_engine
):
    """-n 5 plays one batch of 5 hands (the default batch size only numbers them): no "1
    batches of 10,000", no "1 parts"."""
    out = tmp_path / "r"
    code, stdout, stderr = run_cli(capsys, "sim", "-n", "5", "--seed", "7", "--out", str(out))
    assert code == 0, stderr
    assert ", 1 batch of 5, 1 worker -> " in stderr and "10,000" not in stderr
    assert f"wrote 5 hands to {out} (complete, 1 part)" in stdout
    code, stdout, stderr = run_cli(
        capsys, "sim", "-n", "250", "--batch-size", "100", "-w", "2", "--out", str(tmp_path / "s")
    )
    assert code == 0, stderr
    assert ", 3 batches of 100, 2 workers -> " in stderr and "(complete, 3 parts)" in stdout


def test_sim_defaults_draw_and_record_a_seed_and_name_the_folder(
    tmp_path, capsys, fake_engine, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = run_cli(capsys, "sim", "-n", "1e2", "--workers", "0")
    assert code == 0, stderr
    seed = int(stderr.split("seed ", 1)[1].split()[0])
    assert f"seed {seed} (drawn at random" in stderr
    expert = resolve_bot("expert")
    folder = tmp_path / "runs" / f"standard-{expert}-100-s{seed}"
    assert json.loads((folder / "run.json").read_text())["seed"] == seed
    assert f"runs/standard-{expert}-100-s{seed}" in stdout
    assert json.loads((folder / "run.json").read_text())["batch_size"] == 10_000


def test_sim_quiet_prints_only_the_folder(tmp_path, capsys, fake_engine):
    code, stdout, stderr = run_cli(
        capsys,
        "sim",
        "-n",
        "100",
        "--seed",
        "1",
        "-q",
        "--workers",
        "0",
        "--out",
        str(tmp_path / "q"),
    )
    assert code == 0 and stdout.strip() == str(tmp_path / "q") and stderr == ""


def test_sim_resume_takes_the_options_from_run_json(tmp_path, capsys, fake_engine):
    out = tmp_path / "r"
    args = ["sim", "-n", "300", "--batch-size", "64", "--seed", "3", "--workers", "0"]
    assert run_cli(capsys, *args, "--out", str(out))[0] == 0
    manifest = json.loads((out / "run.json").read_text())
    del manifest["batches"]["2"]
    manifest["complete"] = False
    (out / "run.json").write_text(json.dumps(manifest))
    code, stdout, stderr = run_cli(capsys, "sim", "--out", str(out), "--resume", "--workers", "0")
    assert code == 0, stderr
    assert "resuming: 4 of 5 batches already finished" in stderr
    assert f"wrote 300 hands to {out}" in stdout
    assert json.loads((out / "run.json").read_text())["complete"]
    code, stdout, stderr = run_cli(capsys, "sim", "--out", str(out), "--resume")
    assert code == 0 and f"nothing to do: 300 hands in {out} (complete, 5 parts)" in stdout
    # options that disagree with run.json are refused
    code, _, stderr = run_cli(capsys, "sim", "--out", str(out), "--resume", "--seed", "4")
    assert_one_line_error(code, stderr, "disagrees with the options", "seed 4 (run.json: 3)")
    code, _, stderr = run_cli(capsys, "sim", "--out", str(out), "--resume", "--rules", "super")
    assert_one_line_error(code, stderr, "rules_name super (run.json: standard)")


def test_sim_matches_mode_writes_a_matches_table(tmp_path, capsys, fake_engine):
    out = tmp_path / "m"
    code, stdout, stderr = run_cli(
        capsys,
        "sim",
        "-n",
        "50",
        "--mode",
        "matches",
        "--seed",
        "2",
        "--workers",
        "0",
        "--out",
        str(out),
    )
    assert code == 0, stderr
    assert "wrote 50 matches" in stdout
    assert pds.dataset(out / "matches").count_rows() == 50


# --------------------------------------------------------------------------------------------
# One-line errors


@pytest.mark.parametrize(
    "args, words",
    [
        (["-n", "0"], ["-n must be at least 1"]),
        (["-n", "-5"], ["-n must be at least 1"]),
        (["-n", "abc"], ["-n must be a whole number", "'abc'"]),
        (["-n", "1.5"], ["-n must be a whole number"]),
        ([], ["missing -n"]),
        (["-n", "10", "--rules", "nosuch"], ["unknown preset 'nosuch'"]),
        (["-n", "10", "--rules", "missing.toml"], ["no such rules file"]),
        (["-n", "10", "--bots", "genius"], ["unknown bot 'genius'", "random, basic, expert"]),
        (["-n", "10", "--bots", "random,basic,expert"], ["one bot name, two (team 0"]),
        (["-n", "10", "--mode", "games"], ["unknown --mode 'games'"]),
        (["-n", "10", "--level", "1"], ["unknown --level '1'"]),
        (["-n", "10", "--mode", "matches", "--level", "5"], ["--level applies to --mode hands"]),
        (["-n", "10", "--workers", "-1"], ["--workers must be 0 to 1024"]),
        (["-n", "10", "--workers", "100000"], ["--workers must be 0 to 1024"]),
        (["-n", "1e400"], ["-n must be at most 1e12", "1e400"]),
        (["-n", "1e13"], ["-n must be at most 1e12"]),
        (["-n", "10", "--batch-size", "1e400"], ["--batch-size must be at most 1e6"]),
        (["-n", "1e12", "--batch-size", "1e12"], ["--batch-size must be at most 1e6"]),
        (
            ["-n", "1e5", "--batch-size", "1e5", "--mode", "matches"],
            ["--batch-size 100_000 is more than the maximum 20_000 (matches)"],
        ),
        (["-n", "1e12", "--batch-size", "3"], ["batches, more than the maximum 1e6", "larger"]),
        (["-n", "10", "--seed", "1e40"], ["--seed must be at most"]),
        (["-n", "10", "--workers", "two"], ["--workers"]),
        (["-n", "10", "--batch-size", "0"], ["--batch-size must be at least 1"]),
        (["-n", "10", "--seed", "x"], ["--seed must be a whole number"]),
        (["-n", "10", "--bogus"], ["No such option: --bogus"]),
        (["-n", "10", "--scheduler", "foo"], ["bad Dask scheduler address 'foo'"]),
    ],
)
def test_user_mistakes_are_one_line_errors(args, words, capsys, fake_engine, tmp_path):
    code, _, stderr = run_cli(capsys, "sim", "--out", str(tmp_path / "x"), *args)
    assert_one_line_error(code, stderr, *words)
    assert not (tmp_path / "x").exists()


def test_an_output_folder_that_cannot_be_made_is_named(capsys, fake_engine, tmp_path):
    """A path under a regular file: the error names the path and the reason in one line, not
    Python's "[Errno 20] ..."."""
    (tmp_path / "afile").write_text("")
    code, _, stderr = run_cli(capsys, "sim", "-n", "10", "--out", str(tmp_path / "afile" / "x"))
    assert_one_line_error(code, stderr, "cannot use", str(tmp_path / "afile"), "Not a directory")
    assert "Errno" not in stderr


def test_resume_needs_a_folder(capsys, fake_engine):
    code, _, stderr = run_cli(capsys, "sim", "-n", "10", "--resume")
    assert_one_line_error(code, stderr, "--resume needs --out")


def test_malformed_rules_file_error_names_the_line(tmp_path, capsys, fake_engine):
    path = tmp_path / "house.toml"
    path.write_text('preset = "standard"\nkitty_multiplier = "squared"\n')
    code, _, stderr = run_cli(
        capsys, "sim", "-n", "10", "--rules", str(path), "--out", str(tmp_path / "x")
    )
    assert_one_line_error(code, stderr, f"{path}:2", "kitty_multiplier")


def test_a_binary_rules_file_is_an_error_naming_it(tmp_path, capsys, fake_engine):
    png = tmp_path / "house.toml"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    nul = tmp_path / "nul.toml"
    nul.write_bytes(b'preset = "standard"\n\x00\x00')
    for path in (png, nul):
        for args in (
            ["sim", "-n", "10", "--out", str(tmp_path / "x"), "--rules", str(path)],
            ["rules", "show", str(path)],
        ):
            code, _, stderr = run_cli(capsys, *args)
            assert_one_line_error(code, stderr, f"{path}: not a text file", "UTF-8 TOML")


def test_a_rules_file_with_a_byte_order_mark_is_accepted(tmp_path, capsys, fake_engine):
    path = tmp_path / "house.toml"
    path.write_bytes(b"\xef\xbb\xbf" + b'preset = "super"\nkitty_multiplier = "plus_two"\n')
    code, stdout, stderr = run_cli(capsys, "rules", "show", str(path))
    assert code == 0, stderr
    assert fastsheng.rules.load_rules(path).replace(name="x") == fastsheng.rules.get_rules(
        "super"
    ).replace(name="x", kitty_multiplier="plus_two")


def test_non_ascii_rules_file_names_get_their_own_default_folders(tmp_path, fake_engine):
    folders = set()
    for name in ("规则.toml", "方案.toml", "règles.toml", "♠♥.toml", "♦♣.toml"):
        (tmp_path / name).write_text('preset = "standard"\n', encoding="utf-8")
        rules = fastsheng.rules.load_rules(tmp_path / name)
        spec = runner.RunSpec(rules=rules, bots=("random",) * 4, seed=1, n=10, batch_size=10)
        folders.add(cli.default_out(spec))
    assert len(folders) == 5
    assert os.path.join("runs", "规则-random-10-s1") in {str(f) for f in folders}


def test_an_out_in_memory_is_refused(tmp_path, capsys, fake_engine):
    code, _, stderr = run_cli(capsys, "sim", "-n", "10", "--out", "memory://run")
    assert_one_line_error(code, stderr, "--out memory://run", "lost when it ends")


def test_existing_folder_without_resume(tmp_path, capsys, fake_engine):
    out = tmp_path / "r"
    args = ["sim", "-n", "100", "--seed", "1", "--workers", "0", "--out", str(out)]
    assert run_cli(capsys, *args)[0] == 0
    code, _, stderr = run_cli(capsys, *args)
    assert_one_line_error(code, stderr, "already exists; add --resume")


def test_corrupt_part_on_resume(tmp_path, capsys, fake_engine):
    out = tmp_path / "r"
    assert (
        run_cli(
            capsys,
            "sim",
            "-n",
            "100",
            "--batch-size",
            "40",
            "--seed",
            "1",
            "--workers",
            "0",
            "--out",
            str(out),
        )[0]
        == 0
    )
    (out / "hands" / "part-00001.parquet").write_bytes(b"PAR1 garbage PAR1")
    code, _, stderr = run_cli(capsys, "sim", "--out", str(out), "--resume")
    assert_one_line_error(code, stderr, "corrupt part", "part-00001.parquet", "delete it")


def test_resume_of_a_folder_that_is_not_a_run(tmp_path, capsys, fake_engine):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "notes.txt").write_text("hi")
    code, _, stderr = run_cli(capsys, "sim", "--out", str(tmp_path / "r"), "--resume")
    assert_one_line_error(code, stderr, "no manifest")


def test_unreachable_scheduler(tmp_path, capsys, fake_engine, monkeypatch):
    pytest.importorskip("dask.distributed")
    real_run = runner.run
    monkeypatch.setattr(runner, "run", lambda *a, **k: real_run(*a, **{**k, "connect_timeout": 1}))
    code, _, stderr = run_cli(
        capsys, "sim", "-n", "10", "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path / "x")
    )
    assert_one_line_error(code, stderr, "cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert not (tmp_path / "x").exists()


def test_an_http_scheduler_address_is_refused_before_connecting(tmp_path, capsys, monkeypatch):
    distributed = pytest.importorskip("dask.distributed")

    def never(*args, **kwargs):
        raise AssertionError("must not try to connect")

    monkeypatch.setattr(distributed.Client, "__init__", never)
    code, _, stderr = run_cli(
        capsys, "sim", "-n", "10", "--scheduler", "http://127.0.0.1:8787", "--out", str(tmp_path)
    )
    assert_one_line_error(code, stderr, "http:// is not a scheduler protocol", "tcp://HOST:8786")


@pytest.mark.parametrize("lost", [False, True])
def test_the_resume_hint_keeps_the_scheduler(tmp_path, capsys, fake_engine, monkeypatch, lost):
    out = str(tmp_path / "my run")

    def stopped(spec, target, **kwargs):
        if lost:
            exc = runner.SchedulerLost("tcp://10.0.0.5:8786", "connection lost")
            exc.done, exc.total, exc.out = 3, 9, target
            raise exc
        raise runner.RunInterrupted(3, 9, target)

    monkeypatch.setattr(runner, "run", stopped)
    code, _, stderr = run_cli(
        capsys, "sim", "-n", "10", "--out", out, "--scheduler", "tcp://10.0.0.5:8786"
    )
    hint = f"finish with: fastsheng sim --out '{out}' --resume --scheduler tcp://10.0.0.5:8786"
    assert stderr.strip().endswith(hint) and "3 of 9 batches kept" in stderr
    if lost:
        assert_one_line_error(code, stderr, "lost the Dask scheduler at tcp://10.0.0.5:8786")
    else:
        assert code == 130


@pytest.mark.parametrize("how", ["", "arrow"])
def test_memory_running_out_in_a_worker_is_one_line_with_what_to_do(
    tmp_path, capsys, fake_engine, monkeypatch, how
):
    monkeypatch.setenv("FAKE_NOMEMORY", f"4:{how}")
    out = tmp_path / "r"
    args = ["sim", "-n", "500", "--batch-size", "50", "--seed", "1", "--out", str(out), "-q"]
    code, _, stderr = run_cli(capsys, *args, "--workers", "2")
    assert_one_line_error(
        code,
        stderr,
        "out of memory in batch 4 (",
        f"batches kept in {out}",
        f"finish with fewer workers: fastsheng sim --out {out} --resume --workers 1",
        "a smaller --batch-size needs a new run",
    )
    kept = json.loads((out / "run.json").read_text())["batches"]
    assert kept and "4" not in kept
    monkeypatch.delenv("FAKE_NOMEMORY")
    code, _, stderr = run_cli(capsys, "sim", "--out", str(out), "--resume", "--workers", "1")
    assert code == 0, stderr
    assert json.loads((out / "run.json").read_text())["complete"]


def test_memory_running_out_outside_a_run_is_one_line_not_an_installation_problem():
    """Under a tight `ulimit -v` a library fails to load with an ImportError: that is memory,
    not a missing build; a module that is really not there keeps the installation hint."""
    from fastsheng.apps.failures import explain

    no_memory = ImportError(
        "/venv/lib/python3.11/site-packages/pydantic_core/_pydantic_core.so: failed to map "
        "segment from shared object"
    )
    code, text = explain(no_memory)
    assert code == 2 and text.startswith("error: out of memory (cannot load _pydantic_core.so)")
    assert "installed and built" not in text and "\n" not in text
    code, text = explain(MemoryError())
    assert code == 2 and text.startswith("error: out of memory (MemoryError)")
    code, text = explain(ModuleNotFoundError("No module named 'fastsheng._core'"))
    assert code == 1 and "is fastsheng installed and built?" in text


def test_a_full_disk_is_one_line_with_the_resume_command(
    tmp_path, capsys, fake_engine, monkeypatch
):
    monkeypatch.setenv("FAKE_NOSPACE", "2")
    out = tmp_path / "r"
    code, _, stderr = run_cli(
        capsys,
        "sim",
        "-n",
        "500",
        "--batch-size",
        "50",
        "--seed",
        "1",
        "--workers",
        "1",
        "--out",
        str(out),
        "-q",
    )
    assert_one_line_error(
        code,
        stderr,
        "no space left on the device of",
        "batches kept",
        f"free some space, then: fastsheng sim --out {out} --resume",
    )


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A 256 KiB tmpfs (needs root and mount; skipped elsewhere: the injected tests above
    cover the same path)."""
    where = tmp_path / "tiny"
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(where)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    yield where
    subprocess.run(["umount", str(where)], check=True)


def test_a_really_full_disk(tiny_tmpfs):
    out = tiny_tmpfs / "r"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            FAKE_CLI,
            "sim",
            "-n",
            "200000",
            "--batch-size",
            "2000",
            "--seed",
            "1",
            "--workers",
            "1",
            "--out",
            str(out),
            "--tricks",
            "-q",
        ],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert_one_line_error(done.returncode, done.stderr, "no space left on the device of")
    manifest = json.loads((out / "run.json").read_text())
    assert not manifest["complete"] and not (out / ".lock").exists()


def test_a_failing_batch_exits_1_with_the_engine_traceback(
    tmp_path, capsys, fake_engine, monkeypatch
):
    monkeypatch.setenv("FAKE_FAIL", "1")
    code, _, stderr = run_cli(
        capsys,
        "sim",
        "-n",
        "100",
        "--batch-size",
        "40",
        "--seed",
        "1",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "r"),
    )
    assert code == 1
    assert "Traceback" in stderr  # an engine bug is not a user mistake: show where it was
    assert stderr.strip().splitlines()[-1].startswith("error: batch 1 failed: ValueError")


# --------------------------------------------------------------------------------------------
# rules, --version


def test_version(capsys):
    code, stdout, _ = run_cli(capsys, "--version")
    assert code == 0 and stdout.splitlines()[0] == f"fastsheng {fastsheng.__version__}"


def test_rules_list_and_show(capsys, tmp_path):
    code, stdout, _ = run_cli(capsys, "rules", "list")
    assert code == 0
    names = [line.split()[0] for line in stdout.splitlines()]
    assert names == fastsheng.rules.list_presets()
    code, stdout, _ = run_cli(capsys, "rules", "show", "standard")
    assert code == 0
    fields = {line.split()[0] for line in stdout.splitlines()[1:]}
    assert {"kitty_multiplier", "level_table", "must_play"} <= fields
    assert "001" in stdout  # the seed passages
    path = tmp_path / "house.toml"
    path.write_text('preset = "super"\nkitty_multiplier = "powers"\n')
    code, stdout, _ = run_cli(capsys, "rules", "show", str(path))
    assert code == 0 and "powers" in stdout
    code, _, stderr = run_cli(capsys, "rules", "show", "nosuch")
    assert_one_line_error(code, stderr, "unknown preset 'nosuch'")


# --------------------------------------------------------------------------------------------
# Ctrl-C on a real process tree


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PACKAGE_ROOT), str(TESTS), *filter(None, [env.get("PYTHONPATH")])]
    )
    env.update(extra)
    return env


FAKE_CLI = (
    "import sys, test_runner\n"
    "from fastsheng.apps import cli\n"
    "from fastsheng.sim import runner\n"
    "runner.default_batch_fn = lambda: test_runner.fake_batch\n"
    "runner.known_bots = lambda: ('random', 'basic', 'expert')\n"
    "sys.exit(cli.main(sys.argv[1:]))\n"
)


def _wait_for_batches(out: Path, count: int, proc, timeout=30.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            done = len(json.loads((out / "run.json").read_text())["batches"])
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            done = 0
        if done >= count:
            return done
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"fewer than {count} batches after {timeout} s")


def test_ctrl_c_keeps_finished_batches_and_names_the_resume_command(tmp_path):
    out = tmp_path / "r"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            FAKE_CLI,
            "sim",
            "-n",
            "4000",
            "--batch-size",
            "50",
            "--seed",
            "9",
            "--workers",
            "2",
            "--out",
            str(out),
            "--bots",
            "random",
        ],
        env=_env(FAKE_SLEEP="0.1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for_batches(out, 4, proc)
    # Ctrl-C in a terminal signals the whole foreground process group; the parent must cope
    # either way, so signal only it (its workers ignore SIGINT regardless)
    t0 = time.time()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=20)
    assert time.time() - t0 < 3, "Ctrl-C must stop the run within a second or two"
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("interrupted: ") and f"fastsheng sim --out {out} --resume" in last
    manifest = json.loads((out / "run.json").read_text())
    kept = len(manifest["batches"])
    assert kept >= 4 and not manifest["complete"]
    assert {f"part-{int(b):05d}.parquet" for b in manifest["batches"]} <= set(
        os.listdir(out / "hands")
    )
    assert not [n for n in os.listdir(out / "hands") if n.endswith(".tmp")]
    assert not (out / ".lock").exists()
    done = subprocess.run(
        [sys.executable, "-c", FAKE_CLI, "sim", "--out", str(out), "--resume", "--workers", "2"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "run.json").read_text())["complete"]
    assert pds.dataset(out / "hands").count_rows() == 4000


def test_ctrl_c_in_compare_exits_130_and_says_how_to_finish(tmp_path):
    out = tmp_path / "cmp"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            FAKE_CLI,
            "compare",
            "--rules",
            "standard",
            "--rules",
            "super",
            "-n",
            "20000",
            "--batch-size",
            "50",
            "--workers",
            "1",
            "--out",
            str(out),
        ],
        env=_env(FAKE_SLEEP="0.1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for_batches(out / "runs" / "standard", 2, proc)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("interrupted: ") and "the same compare command finishes" in last
    assert not (out / "runs" / "standard" / ".lock").exists()


def test_a_second_sim_on_the_same_folder_is_refused_until_the_first_is_gone(tmp_path):
    out = tmp_path / "r"
    sim = [sys.executable, "-c", FAKE_CLI, "sim", "--out", str(out)]
    fresh = [*sim, "-n", "8000", "--batch-size", "50", "--seed", "9", "--workers", "1"]
    first = subprocess.Popen(
        fresh, env=_env(FAKE_SLEEP="0.1"), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        _wait_for_batches(out, 1, first)
        seconds = [  # a fresh sim and a --resume, at the same time
            subprocess.Popen(args, env=_env(), stderr=subprocess.PIPE, text=True)
            for args in (fresh, [*sim, "--resume"])
        ]
        for second in seconds:
            _, stderr = second.communicate(timeout=60)
            assert_one_line_error(
                second.returncode, stderr, f"in use by fastsheng sim (pid {first.pid} on "
            )
        assert first.poll() is None
    finally:
        first.kill()  # SIGKILL: no chance to remove its lock
        first.communicate()
    assert (out / ".lock").exists()
    done = subprocess.run(
        [*sim, "--resume", "--workers", "0"], env=_env(), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert f"removed the stale lock of fastsheng sim (pid {first.pid} on" in done.stderr
    assert json.loads((out / "run.json").read_text())["complete"]
    assert pds.dataset(out / "hands").count_rows() == 8000 and not (out / ".lock").exists()


# A Dask scheduler with one worker process of its own: killing the scheduler's process leaves
# the worker, as on a cluster whose scheduler machine goes down.
DASK_CLUSTER = (
    "import time\n"
    "from dask.distributed import LocalCluster\n"
    "c = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, protocol='tcp',\n"
    "                 dashboard_address=None, silence_logs=50)\n"
    "print(c.scheduler_address, flush=True)\n"
    "while True:\n"
    "    time.sleep(1)\n"
)


def test_losing_the_dask_scheduler_is_one_line_with_the_resume_command(tmp_path):
    """The client's own account of the lost connection (its reconnect attempts, the traceback
    of the reconnection cancelled as the run closes the client) stays off stderr: the run says
    it in one line, with the command that finishes it."""
    pytest.importorskip("dask.distributed")
    out = tmp_path / "r"
    cluster = subprocess.Popen(
        [sys.executable, "-c", DASK_CLUSTER],
        env=_env(FAKE_SLEEP="0.1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        address = cluster.stdout.readline().strip()
        assert address.startswith("tcp://")
        proc = subprocess.Popen(
            [sys.executable, "-c", FAKE_CLI, "sim", "-n", "4000", "--batch-size", "50"]
            + ["--seed", "9", "--out", str(out), "--scheduler", address, "--quiet"],
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        _wait_for_batches(out, 2, proc)
        os.kill(cluster.pid, signal.SIGKILL)  # the scheduler alone: its worker lives on
        _, stderr = proc.communicate(timeout=30)
    finally:
        os.killpg(cluster.pid, signal.SIGKILL)
        cluster.wait()
    assert_one_line_error(
        proc.returncode,
        stderr,
        f"lost the Dask scheduler at {address}",
        f"finish with: fastsheng sim --out {out} --resume --scheduler {address}",
    )
    manifest = json.loads((out / "run.json").read_text())
    assert len(manifest["batches"]) >= 2 and not manifest["complete"]


# --------------------------------------------------------------------------------------------
# End to end with the real engine


@pytest.fixture
def real_engine():
    return pytest.importorskip("fastsheng.engine.hands")


def test_replay_prints_the_hand_of_the_dataset(tmp_path, capsys, real_engine):
    out = tmp_path / "r"
    code, _, stderr = run_cli(
        capsys,
        "sim",
        "-n",
        "30",
        "--batch-size",
        "8",
        "--seed",
        "4",
        "--workers",
        "0",
        "--out",
        str(out),
        "-q",
    )
    assert code == 0, stderr
    code, text, stderr = run_cli(capsys, "replay", str(out), "--hand", "13")
    assert code == 0, stderr
    assert text.startswith("hand 13 ") and "trick: seat" in text
    row = pds.dataset(out / "hands").to_table().filter(pds.field("hand_id") == 13).to_pylist()[0]
    assert f"total {row['defenders_total']}; {row['winner']} +{row['levels']}" in text
    code, same, _ = run_cli(capsys, "replay", "--seed", "4", "--batch-size", "8", "--hand", "13")
    assert code == 0 and same == text
    code, _, stderr = run_cli(capsys, "replay", str(out), "--hand", "30")
    assert_one_line_error(code, stderr, "past the end of the run (30 hands)")
    code, _, stderr = run_cli(capsys, "replay", "--hand", "3")
    assert_one_line_error(code, stderr, "replay needs a RUN folder, or --seed")


def test_replay_in_a_matches_run(tmp_path, capsys, real_engine):
    out = tmp_path / "m"
    assert (
        run_cli(
            capsys,
            "sim",
            "-n",
            "2",
            "--mode",
            "matches",
            "--seed",
            "4",
            "--workers",
            "0",
            "--out",
            str(out),
            "-q",
        )[0]
        == 0
    )
    hand_id = pds.dataset(out / "hands").to_table()["hand_id"].to_pylist()[3]
    code, text, stderr = run_cli(capsys, "replay", str(out), "--hand", str(hand_id))
    assert code == 0, stderr
    assert text.startswith(f"hand {hand_id} ")


def test_ctrl_c_with_the_real_engine(tmp_path):
    pytest.importorskip("fastsheng.engine.hands")
    out = tmp_path / "r"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "fastsheng.apps.cli",
            "sim",
            "-n",
            "1e6",
            "--batch-size",
            "1000",
            "--seed",
            "5",
            "--workers",
            "2",
            "--out",
            str(out),
        ],
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    _wait_for_batches(out, 3, proc)
    t0 = time.time()
    os.killpg(proc.pid, signal.SIGINT)  # like Ctrl-C in a terminal: the whole process group
    _, stderr = proc.communicate(timeout=20)
    assert time.time() - t0 < 3
    assert proc.returncode == 130 and "Traceback" not in stderr, stderr
    assert f"fastsheng sim --out {out} --resume" in stderr.strip().splitlines()[-1]
    manifest = json.loads((out / "run.json").read_text())
    assert len(manifest["batches"]) >= 3 and not manifest["complete"]
    # check the kept parts: what --resume checks
    from fastsheng.sim.dataset import Storage, check_parts

    assert check_parts(Storage(out), manifest) == ([], [])


# --------------------------------------------------------------------------------------------
# Progress


class _Tty:
    def __init__(self):
        import io

        self.buffer = io.StringIO()

    def write(self, text):
        return self.buffer.write(text)

    def flush(self):
        pass

    def isatty(self):
        return True


def _events(reporter, spec, batches):
    reporter(
        "start",
        {
            "spec": spec,
            "out": "runs/x",
            "total_batches": len(batches),
            "done_batches": 0,
            "total_rows": spec.n,
            "done_rows": 0,
            "workers": 2,
            "scheduler": None,
        },
    )
    for b in batches:
        reporter("batch", {"batch": b, "stats": {"hands": spec.batch_rows(b)}})
    reporter(
        "worker_died",
        {"pid": 42, "batch": 1, "reason": "killed by SIGKILL", "attempt": 1, "retry": True},
    )
    reporter.close()


def test_progress_is_a_rich_bar_on_a_terminal_and_plain_lines_otherwise():
    from fastsheng.sim import progress

    spec = runner.RunSpec(
        rules=fastsheng.rules.get_rules("standard"),
        bots=("expert",) * 4,
        seed=1,
        n=300,
        batch_size=100,
    )
    tty = _Tty()
    reporter = progress.make_reporter(stream=tty)
    assert isinstance(reporter, progress.RichReporter)
    _events(reporter, spec, [0, 1, 2])
    text = tty.buffer.getvalue()
    assert "300/300 hands" in text and "hands/s" in text and "ETA" in text
    assert "worker 42 was killed by SIGKILL while running batch 1; retrying (attempt 2)" in text

    import io

    plain = io.StringIO()
    reporter = progress.make_reporter(stream=plain)
    assert type(reporter) is progress.Reporter
    reporter.interval = 0.0
    _events(reporter, spec, [0, 1, 2])
    lines = plain.getvalue().splitlines()
    expert = resolve_bot("expert")
    assert lines[0].startswith(f"sim: 300 hands of standard, bots {expert}, seed 1, 3 batches")
    assert lines[-2].startswith("  300/300 hands (100%)") and "hands/s  ETA" in lines[-2]
    assert "\x1b[" not in plain.getvalue()

    quiet = io.StringIO()
    reporter = progress.make_reporter(stream=quiet, quiet=True)
    _events(reporter, spec, [0, 1, 2])
    assert quiet.getvalue().startswith("warning: worker 42")  # problems still show


def test_a_line_up_with_a_python_bot_gets_a_time_estimate_before_it_starts(monkeypatch):
    """A Python bot plays hundreds of hands a second, not tens of thousands: the start says
    about how long, per its Python seats, the cores and the hands left, and that it is an
    estimate. A line-up of C bots gets no such line."""
    import io

    from fastsheng.sim import progress

    monkeypatch.setattr(progress.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)

    def start(bots, n, workers, done=0, mode="hands", scheduler=None):
        spec = runner.RunSpec(
            rules=fastsheng.rules.get_rules("standard"),
            bots=resolve_bots_of(bots),
            seed=1,
            n=n,
            batch_size=1000,
            mode=mode,
        )
        stream = io.StringIO()
        reporter = progress.make_reporter(stream=stream)
        info = {
            "spec": spec,
            "out": "runs/x",
            "total_batches": spec.n_batches,
            "done_batches": done // 1000,
            "total_rows": n,
            "done_rows": done,
            "workers": workers,
            "scheduler": scheduler,
        }
        reporter("start", info)
        return stream.getvalue().splitlines()

    lines = start(["userbots.simple:LowCards", "expert"] * 2, 192_000, workers=2)
    assert lines[1] == (
        "estimate: a simple Python bot at 2 seats plays about 800 hands/s per core: about 2 min "
        "on 2 cores (an estimate; a slower bot takes longer)"
    )
    one = start(["userbots.simple:LowCards"] + ["expert"] * 3, 100_000, workers=0, done=4_000)
    assert "at 1 seat plays about 1,600 hands/s per core: about 1 min on 1 core" in one[2]
    assert "under a minute" in start(["py-random"] * 4, 1000, workers=1)[1]
    matches = start(["userbots.simple:LowCards", "expert"] * 2, 2000, workers=2, mode="matches")
    assert "about 36 hands a match" in matches[1]
    assert not any("estimate" in ln for ln in start(["expert"] * 4, 10**6, workers=2))


def resolve_bots_of(bots):
    from fastsheng.bots.names import resolve_bots

    return tuple(resolve_bots(bots))


def test_sim_on_a_dask_scheduler(tmp_path, capsys, real_engine):
    distributed = pytest.importorskip("dask.distributed")
    args = ["sim", "-n", "300", "--batch-size", "100", "--seed", "8", "--bots", "basic"]
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        code, stdout, stderr = run_cli(
            capsys, *args, "--out", str(tmp_path / "d"), "--scheduler", cluster.scheduler_address
        )
    assert code == 0, stderr
    assert "Dask at " in stderr and "wrote 300 hands" in stdout
    assert run_cli(capsys, *args, "--out", str(tmp_path / "w"), "--workers", "0")[0] == 0
    d = pds.dataset(tmp_path / "d" / "hands").to_table().sort_by("hand_id")
    w = pds.dataset(tmp_path / "w" / "hands").to_table().sort_by("hand_id")
    assert d.equals(w)


def test_summary_of_a_real_run_has_every_line(tmp_path, capsys, real_engine):
    code, stdout, stderr = run_cli(
        capsys,
        "sim",
        "-n",
        "200",
        "--batch-size",
        "100",
        "--seed",
        "2",
        "--workers",
        "0",
        "--out",
        str(tmp_path / "r"),
    )
    assert code == 0, stderr
    for head in (
        "wrote 200 hands",
        "speed",
        "dealer side  won",
        "defenders    ",
        "kitty        captured",
        "levels       ",
        "read it:",
    ):
        assert head in stdout, stdout
    import pandas as pd
    import pyarrow as pa

    frame = pd.read_parquet(tmp_path / "r" / "hands")
    assert len(frame) == 200 and str(frame["rules"].dtype) == "category"
    schema = pds.dataset(tmp_path / "r" / "hands").schema
    for name in ("rules", "bots"):
        assert pa.types.is_dictionary(schema.field(name).type)
    loose = [f.name for f in schema if f.type in (pa.int64(), pa.float64(), pa.string())]
    assert loose == [], f"columns not typed tightly: {loose}"
    code, stdout, stderr = run_cli(
        capsys,
        "sim",
        "-n",
        "3",
        "--mode",
        "matches",
        "--seed",
        "2",
        "--workers",
        "0",
        "--out",
        str(tmp_path / "m"),
    )
    assert code == 0, stderr
    assert "wrote 3 matches" in stdout and "matches won  " in stdout and "per match" in stdout


# --------------------------------------------------------------------------------------------
# report, compare, replay read only verified, recorded parts


def _sim(capsys, out, *extra, n="60", batch_size="20", seed="4"):
    args = ["sim", "-n", n, "--batch-size", batch_size, "--seed", seed, "--workers", "0"]
    code, _, stderr = run_cli(capsys, *args, "--out", str(out), "-q", "--bots", "random", *extra)
    assert code == 0, stderr


@pytest.fixture
def two_runs(tmp_path, capsys, real_engine):
    a, b = tmp_path / "a", tmp_path / "b"
    _sim(capsys, a)
    _sim(capsys, b, "--rules", "super")
    return a, b


def _flip_a_byte(part: Path) -> None:
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0x40
    part.write_bytes(bytes(data))


def test_a_corrupt_part_stops_report_compare_and_replay_naming_it(two_runs, capsys, tmp_path):
    a, b = two_runs
    _flip_a_byte(a / "hands" / "part-00001.parquet")
    part = str(a / "hands" / "part-00001.parquet")
    for args in (
        ["report", str(a), "--out", str(tmp_path / "rep")],
        ["compare", str(a), str(b), "--out", str(tmp_path / "cmp")],
        ["replay", str(a), "--hand", "25"],
    ):
        code, _, stderr = run_cli(capsys, *args)
        assert_one_line_error(code, stderr, f"{part}: SHA-256 differs from run.json")
    assert not (tmp_path / "rep").exists() and not (tmp_path / "cmp").exists()
    code, _, stderr = run_cli(capsys, "replay", str(a), "--hand", "45")  # another batch: fine
    assert code == 0, stderr


def _interrupt(run: Path, keep: set[int]) -> None:
    """run.json as an interrupted run leaves it: only the batches in ``keep`` recorded."""
    manifest = json.loads((run / "run.json").read_text())
    manifest["batches"] = {k: v for k, v in manifest["batches"].items() if int(k) in keep}
    manifest["complete"] = False
    (run / "run.json").write_text(json.dumps(manifest))


def test_an_interrupted_run_is_reported_as_incomplete_and_only_its_recorded_parts_read(
    two_runs, capsys, tmp_path
):
    from fastsheng.studies import report

    a, b = two_runs
    _interrupt(a, {0, 2})  # part-00001 stays on disk, as after a kill before run.json's save
    loaded = report.load_run(a)
    assert len(loaded.hands) == 40 and set(loaded.hands["batch"]) == {0, 2}
    assert loaded.notice == "incomplete: 2 of 3 batches"
    code, stdout, stderr = run_cli(capsys, "report", str(a), "--out", str(tmp_path / "rep"))
    assert code == 0 and "incomplete: 2 of 3 batches" in stdout, stderr
    assert "incomplete: 2 of 3 batches" in (tmp_path / "rep" / "index.html").read_text()
    code, stdout, stderr = run_cli(capsys, "compare", str(a), str(b), "--out", str(tmp_path / "c"))
    assert code == 0 and "incomplete: 2 of 3 batches" in stdout, stderr
    assert "incomplete: 2 of 3 batches" in (tmp_path / "c" / "index.html").read_text()
    code, _, stderr = run_cli(capsys, "replay", str(a), "--hand", "25")
    assert code == 0 and "incomplete: 2 of 3 batches" in stderr and "not finished" in stderr
    code, _, stderr = run_cli(capsys, "replay", str(a), "--hand", "5")
    assert code == 0 and "incomplete: 2 of 3 batches" in stderr


def test_compare_refuses_runs_that_do_not_pair(tmp_path, capsys, real_engine):
    hands, matches, other = tmp_path / "h", tmp_path / "m", tmp_path / "o"
    _sim(capsys, hands)
    _sim(capsys, matches, "--mode", "matches", n="4", batch_size="2")
    _sim(capsys, other, batch_size="30")
    code, _, stderr = run_cli(capsys, "compare", str(hands), str(matches))
    assert_one_line_error(code, stderr, "is a hands run and", "a matches run")
    code, _, stderr = run_cli(capsys, "compare", str(hands), str(other))
    assert_one_line_error(code, stderr, "batches of 20", "of 30", "one --batch-size")


@pytest.mark.parametrize(
    "edit, words",
    [
        ({"batches": []}, "batches is []"),
        ({"rules": "standard"}, 'rules is "standard"'),
        ({"seed": -1}, "seed is -1"),
        ({"level": "Z"}, 'level is "Z", not a level 2..A or random'),
    ],
)
def test_a_hand_edited_run_json_is_one_line_for_resume_report_and_replay(
    tmp_path, capsys, fake_engine, edit, words
):
    out = tmp_path / "r"
    assert (
        run_cli(capsys, "sim", "-n", "50", "--seed", "1", "--workers", "0", "--out", str(out))[0]
        == 0
    )
    manifest = json.loads((out / "run.json").read_text())
    manifest.update(edit)
    (out / "run.json").write_text(json.dumps(manifest))
    for args in (
        ["sim", "--out", str(out), "--resume"],
        ["report", str(out)],
        ["replay", str(out), "--hand", "1"],
    ):
        code, _, stderr = run_cli(capsys, *args)
        assert_one_line_error(code, stderr, words)
