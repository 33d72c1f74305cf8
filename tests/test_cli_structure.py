"""The CLI is thin: one level parser, RunSpec.from_options, one failure table,
short command functions. All fast: no test here plays a hand."""

from __future__ import annotations

import inspect
import re

import pytest

from fastsheng.apps import cli
from fastsheng.cards import parse_level
from fastsheng.rules import get_rules
from fastsheng.sim import runner
from fastsheng.sim.runner import DEFAULT_BATCH_SIZE, PYTHON_BATCH_SIZE, RunSpec

LEVEL_MESSAGE = "unknown --level '1'; levels: 2..10, J, Q, K, A or random"


def run_cli(capsys, *args):
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --------------------------------------------------------------------------------------------
# one level parser


@pytest.mark.parametrize(
    "text, level",
    [("2", "2"), ("j", "J"), ("T", "10"), ("10", "10"), (" a ", "A"), ("Random", "random")],
)
def test_parse_level_normalises(text, level):
    assert parse_level(text) == level
    assert RunSpec(get_rules("standard"), ("random",) * 4, 0, 1, 1, level=text).level == level


@pytest.mark.parametrize("text", ["1", "Z", "", "11", "randomly"])
def test_parse_level_refuses(text):
    with pytest.raises(ValueError, match="unknown --level .*levels: 2..10, J, Q, K, A or random"):
        parse_level(text, "--level")


@pytest.mark.parametrize(
    "args",
    [
        ("sim", "-n", "10"),
        ("replay", "--seed", "0", "--hand", "0"),
        ("ladder", "--bots", "random,basic", "-n", "10"),
        ("compare", "--rules", "standard", "--rules", "standard", "-n", "10"),
        ("sweep", "--set", "kitty_multiplier=linear", "-n", "10"),
    ],
)
def test_every_command_parses_the_level_alike(capsys, args):
    """The same bad --level gets the same one-line message from every command."""
    code, _, err = run_cli(capsys, *args, "--level", "1")
    assert code == 2, err
    assert err.strip() == f"error: {LEVEL_MESSAGE}", err


# --------------------------------------------------------------------------------------------
# RunSpec.from_options


def test_from_options_defaults():
    spec = RunSpec.from_options(n=10, seed=3)
    assert spec == RunSpec(
        get_rules("standard"), ("expert",) * 4, 3, 10, DEFAULT_BATCH_SIZE["hands"]
    )


def test_from_options_draws_a_seed_and_picks_the_line_ups_batch_size():
    spec = RunSpec.from_options(n=10, bots=("py-random",) * 4, mode="matches")
    assert 0 <= spec.seed < 2**32
    assert spec.batch_size == PYTHON_BATCH_SIZE["matches"]


def test_from_options_over_a_resumed_run():
    base = RunSpec.from_options(n=10, seed=5, bots=("basic",) * 4, level="k").config()
    spec = RunSpec.from_options(n=20, base=base)
    assert (spec.n, spec.seed, spec.level, spec.bots) == (
        20,
        5,
        "K",
        RunSpec.from_manifest(base).bots,
    )


@pytest.mark.parametrize(
    "kw, words",
    [
        ({}, "missing -n"),
        ({"n": 5, "mode": "rounds"}, "unknown --mode 'rounds'"),
        ({"n": 5, "mode": "matches", "level": "3"}, "--level applies to --mode hands"),
        ({"n": 5, "level": "1"}, LEVEL_MESSAGE),
        ({"base": {"n": 5}}, "run.json lacks the field"),
    ],
)
def test_from_options_refuses(kw, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        RunSpec.from_options(**kw)


# --------------------------------------------------------------------------------------------
# one failure table


def test_a_stopped_run_outside_sim_is_one_line(capsys, monkeypatch):
    """A RunInterrupted that no command annotated still exits 130 without a traceback."""

    def interrupted(*a, **k):
        raise runner.RunInterrupted(1, 2, "runs/x")

    monkeypatch.setattr("fastsheng.studies.ladder.ladder_command", interrupted)
    code, _, err = run_cli(capsys, "ladder", "--bots", "random,basic", "-n", "10")
    assert code == cli.EXIT_INTERRUPTED
    assert err.strip() == "error: interrupted"


def test_the_table_ends_with_the_generic_mistakes():
    """First match wins: the run's stops (FastshengErrors) come before the generic row."""
    table = cli.failures()
    generic = [i for i, (types, _) in enumerate(table) if ValueError in types]
    stops = [i for i, (types, _) in enumerate(table) if runner.DiskFull in types]
    assert generic == [len(table) - 1] and stops and stops[0] < generic[0]


# --------------------------------------------------------------------------------------------
# thin commands


def _commands():
    for typer_app in (cli.app, cli.rules_app):
        for info in typer_app.registered_commands:
            yield info.callback


@pytest.mark.parametrize("command", list(_commands()), ids=lambda f: f.__name__)
def test_every_command_keeps_its_help_line(command):
    """A command's docstring is its line in `fastsheng --help`: moving its body elsewhere must
    not take the docstring along."""
    assert (command.__doc__ or "").strip(), f"{command.__name__} has no help text"


@pytest.mark.parametrize("command", list(_commands()), ids=lambda f: f.__name__)
def test_no_command_function_over_40_lines(command):
    """About 40 lines at most, and its body (past the signature's one line per option) short:
    a command parses and hands over, the work lives elsewhere."""
    lines, _ = inspect.getsourcelines(command)
    end = next(i for i, line in enumerate(lines) if line.startswith((")", "def ")) and ":" in line)
    body = len(lines) - end - 1
    assert len(lines) <= 45, f"{command.__name__} is {len(lines)} lines"
    assert body <= 25, f"{command.__name__}'s body is {body} lines"


def test_the_ladder_does_not_import_the_cli():
    """cli imports ladder's command; ladder parses --max-deals counts with cliargs, not cli."""
    import ast
    from pathlib import Path

    import fastsheng.studies.ladder

    imported = set()
    for path in Path(fastsheng.studies.ladder.__file__).parent.glob("*.py"):  # the package
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "fastsheng.studies.ladder.command" in imported  # the walk sees the package
    assert "fastsheng.apps.cli" not in imported
    assert cli.parse_count is fastsheng.sim.counts.parse_count
