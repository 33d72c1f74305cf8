"""The README's examples (and those of the pages it hands details to: docs/rules-api.md) run as
written and print what they show.

Python blocks are executed statement by statement in a scratch folder: an expression (or a
``print``) with a trailing comment must produce what the comment starts with (``# 25``,
``# 'tractor': ...``, ``# 130: ...``). Each ``fastsheng ...`` line of a bash block is parsed by the
real command line (every option must exist and take what it is given); the cheap ones run. The
one Python block that reads a run folder gets a small run under the folder name it shows (the
million-hand run itself is `pytest -m bench_full`'s business). About 3 s.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
import sys
from pathlib import Path

import pytest
import typer

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
GAME_MD = (ROOT / "docs" / "game.md").read_text()
RULES_API_MD = (ROOT / "docs" / "rules-api.md").read_text()
SIM_MD = (ROOT / "docs" / "sim.md").read_text()


def blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.M | re.S)


def _comment(line: str) -> str | None:
    """The trailing comment of a source line (none inside a string, for these examples)."""
    tokens = line.split("  # ", 1)
    return tokens[1].strip() if len(tokens) == 2 else None


def _shows(comment: str, value: str) -> bool:
    return comment == value or comment.startswith((value + ":", value + " "))


def run_block(source: str, namespace: dict) -> int:
    """Execute ``source`` statement by statement, checking every commented expression; returns
    how many values were checked."""
    lines = source.splitlines()
    checked = 0
    for stmt in ast.parse(source).body:
        code = ast.get_source_segment(source, stmt)
        comment = _comment(lines[stmt.end_lineno - 1]) if stmt.lineno == stmt.end_lineno else None
        is_print = (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and getattr(stmt.value.func, "id", "") == "print"
        )
        if isinstance(stmt, ast.Expr) and not is_print:
            value = eval(compile(ast.Expression(stmt.value), "<readme>", "eval"), namespace)
            shown = repr(value)
        else:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(ast.Module([stmt], []), "<readme>", "exec"), namespace)
            shown = out.getvalue().strip()
        if comment is not None and (isinstance(stmt, ast.Expr)):
            assert _shows(comment, shown), f"{code!r} gives {shown!r}; the README says {comment!r}"
            checked += 1
    return checked


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_python_example_of_the_readme_runs_and_shows_its_values(scratch):
    from fastsheng.apps.cli import main

    python = blocks(README, "python") + blocks(RULES_API_MD, "python")
    assert len(python) >= 3
    for source in python:
        for folder in re.findall(r'"(runs/[^"/]+)/hands"', source):  # a run the block reads
            assert (
                main(["sim", "-n", "500", "--seed", "7", "--workers", "0", "--out", folder, "-q"])
                == 0
            )
        run_block(source, {"__name__": "readme"})
    rules_api = next(b for b in python if "ctx.units" in b)
    assert run_block(rules_api, {}) == 9  # every call of the rules API shows its value
    step = next(b for b in python if "fs.Game(" in b)
    assert run_block(step, {}) == 1  # the defenders' total it prints


def test_the_from_position_example_of_docs_game_md(scratch):
    source = next(b for b in blocks(GAME_MD, "python") if "from_position" in b)
    assert run_block(source, {}) == 2


def _parse_only(args: list[str]) -> None:
    """Parse a command line as `fastsheng` would, without running it."""
    from fastsheng.apps.cli import app

    cmd = typer.main.get_command(app)
    ctx = cmd.make_context("fastsheng", list(args))
    while hasattr(cmd, "resolve_command"):
        name, cmd, rest = cmd.resolve_command(
            ctx, [*getattr(ctx, "_protected_args", []), *ctx.args]
        )
        ctx = cmd.make_context(name, rest, parent=ctx)


def readme_commands(text: str = README) -> list[list[str]]:
    out = []
    for block in blocks(text, "bash"):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            for k, w in enumerate(words):  # `pip install . && fastsheng sim ...`
                if w == "fastsheng" and (k == 0 or words[k - 1] == "&&"):
                    out.append(words[k + 1 :])
    return out


def test_every_fastsheng_command_of_the_readme_parses():
    commands = readme_commands()
    assert len(commands) >= 8
    for args in commands:
        _parse_only(args)  # raises a usage error naming the option


@pytest.mark.parametrize("args", [["rules", "list"], ["rules", "show", "standard"]])
def test_the_rules_commands_of_the_docs_run_as_written(args, capsys):
    from fastsheng.apps.cli import main

    assert args in readme_commands() + readme_commands(SIM_MD)
    assert main(args) == 0 and "standard" in capsys.readouterr().out


def test_the_example_bot_module_plays_in_sim_as_the_readme_names_it(tmp_path, monkeypatch):
    """`cd examples; fastsheng sim --bots mybot:LowCards,expert` at a small n."""
    import pyarrow.parquet as pq

    from fastsheng.apps.cli import main

    monkeypatch.chdir(ROOT / "examples")
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert any("mybot:LowCards" in " ".join(c) for c in readme_commands())
    out = tmp_path / "r"
    assert (
        main(
            [
                "sim",
                "-n",
                "20",
                "--bots",
                "mybot:LowCards,expert",
                "--seed",
                "3",
                "--workers",
                "0",
                "--out",
                str(out),
                "-q",
            ]
        )
        == 0
    )
    assert pq.read_table(out / "hands").column("bots")[0].as_py().startswith("mybot:LowCards")


def test_the_run_folders_the_docs_show_are_the_ones_sim_names():
    """README and docs/sim.md show `fastsheng sim -n 1e6 [--seed S]`'s default folder."""
    from fastsheng.apps.cli import default_out
    from fastsheng.rules import get_rules
    from fastsheng.sim.runner import RunSpec

    shown = re.findall(r"runs/standard-expert[\w.-]*?-1e6-s(?:\d+|<seed>)", README + SIM_MD)
    assert len(shown) >= 8
    for folder in shown:
        seed = folder.rpartition("-s")[2]
        spec = RunSpec(
            get_rules("standard"),
            ("expert",) * 4,
            int(seed) if seed.isdigit() else 1,
            10**6,
            10_000,
        )
        assert folder.replace("<seed>", "1") == default_out(spec).as_posix(), folder


def test_the_ladders_running_time_is_given_with_its_conditions():
    """A wall-clock figure alone misleads on a loaded machine: the docs that quote the ladder's
    run (docs/bots.md; the README links there) give the CPU time and the load it was measured
    at."""
    bots_md = (ROOT / "docs" / "bots.md").read_text()
    command = "fastsheng ladder --bots random,basic-v1,expert-v1,expert -n 1e5 --seed 2024"
    quoting = [t for t in (" ".join(d.split()) for d in (README, bots_md)) if command in t]
    assert quoting
    for text in quoting:
        sentence = text[text.index(command) : text.index(command) + 400]
        assert "of CPU time" in sentence and "load average" in sentence
        assert "about 20 s on 2 cores" not in text


def test_the_workers_0_advice_names_what_has_workers():
    """`workers=0` is an option of runner.run (and sim's --workers 0), not of simulate_hands,
    which plays in the calling process: docs/game.md's sentence says which is which."""
    import inspect

    import fastsheng as fs
    from fastsheng.sim import runner

    text = " ".join(GAME_MD.split())
    advice = text[text.index("in one line: run it in process") :][:200]
    assert "runner.run(..., workers=0)" in advice and "--workers 0" in advice
    assert "workers" in inspect.signature(runner.run).parameters
    assert "workers" not in inspect.signature(fs.simulate_hands).parameters
    assert "`simulate_hands`, `simulate_matches` and `fs.evaluate` play in the calling" in text


def test_every_file_the_readme_links_to_exists():
    """The README is read on GitHub and in a clone, where the site's link checks do not run:
    each relative link names a file of the repository (and a heading of it, when it has a #)."""
    links = re.findall(r"\]\(([^)\s]+)\)", README)
    local = [link for link in links if "://" not in link]
    assert len(local) >= 10
    for link in local:
        path, _, anchor = link.partition("#")
        target = ROOT / path
        assert target.exists(), link
        if anchor:
            headings = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).strip().replace(" ", "-") for h in headings}
            assert anchor in slugs, link
