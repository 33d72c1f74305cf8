"""The menu of bots: ``fastsheng.list_bots()``, ``fastsheng bots`` and the README's "Bots" table.
Each bot's name resolves to what the menu says it plays as; its figures are its point of the
stored frontier (found here by resolving the frontier's names, not by the menu's own table);
the packaged frontier is docs/frontier.json, which analysis/frontier.py writes with it; the
README's table is the command's rows."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
from pathlib import Path

import pytest

import fastsheng as fs
from fastsheng.apps.bots_command import COLUMNS, menu_markdown
from fastsheng.apps.cli import main
from fastsheng.bots import menu
from fastsheng.bots.names import BOTS, resolve_bot
from fastsheng.errors import FastshengError

ROOT = Path(__file__).resolve().parents[1]
DOCS_FRONTIER = ROOT / "docs" / "frontier.json"
PACKAGED = ROOT / "src" / "fastsheng" / "bots" / "frontier.json"
# the public names the menu leaves out: the frozen versions `expert` and `basic` stand for
OLDER = {"basic-v1", "expert-v1", "expert-v2", "expert-v3", "expert-v4"}


@pytest.fixture(scope="module")
def bots():
    return {b.name: b for b in fs.list_bots()}


def test_list_bots_is_the_flat_apis():
    assert fs.list_bots is menu.list_bots and "list_bots" in fs.__all__
    info = fs.list_bots()[0]
    assert isinstance(info, fs.bots.BotInfo)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.name = "x"  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(info)] == [
        "name",
        "plays_as",
        "how",
        "strength",
        "strength_lo",
        "strength_hi",
        "hands_per_s",
        "use",
    ]


def test_every_public_bot_once_in_the_order_of_BOTS(bots):
    names = [b.name for b in fs.list_bots()]
    assert names == [b for b in BOTS if b not in OLDER]
    assert names[:3] == ["random", "basic", "expert"] and names[-1] == "search-v4"


def test_each_name_plays_as_it_resolves(bots):
    for b in bots.values():
        assert b.plays_as == resolve_bot(b.name), b.name
        assert b.how.strip() and b.use.strip() and "\n" not in b.how + b.use
    assert bots["expert"].plays_as == "expert-v4" and bots["basic"].plays_as == "basic-v1"
    # the frozen search plays on expert-v3, as published, and says so
    assert bots["search"].plays_as.endswith("base=expert-v3") and "expert-v3" in bots["search"].how


def test_the_figures_are_the_frontiers_points(bots):
    points = json.loads(DOCS_FRONTIER.read_text())
    by_resolved = {resolve_bot(p["bot"]): p for p in points}
    for b in bots.values():
        p = by_resolved[b.plays_as]  # every public bot is on the frontier
        assert (b.strength, b.strength_lo, b.strength_hi) == (p["net"], p["net_lo"], p["net_hi"])
        assert b.hands_per_s == p["hands_per_s"] > 0
        assert b.strength_lo <= b.strength <= b.strength_hi
    assert bots["random"].strength < bots["basic"].strength < 0 < bots["expert"].strength


def test_the_figures_as_formatted(bots):
    fmt = {n: (menu.format_strength(b), menu.format_speed(b)) for n, b in bots.items()}
    assert fmt["expert"] == ("+0.136 [+0.127, +0.144]", "34,190")
    assert fmt["learned-v1"] == ("+0.229 [+0.221, +0.238]", "2,504")
    assert fmt["search"] == ("+0.372 [+0.333, +0.411]", "8")
    assert fmt["search-v4"] == ("+0.531 [+0.492, +0.570]", "0.46")
    assert fmt["random"] == ("-1.579 [-1.590, -1.569]", "77,687")


def test_a_bot_off_the_frontier_gets_no_figure(monkeypatch):
    """A bot whose point the frontier lacks shows none: never a figure from elsewhere."""
    monkeypatch.setattr(menu, "frontier_points", lambda: [])
    off = {b.name: b for b in menu.list_bots()}["random"]
    assert (off.strength, off.strength_lo, off.strength_hi, off.hands_per_s) == (None,) * 4
    assert menu.format_strength(off) == "not measured on the frontier"


def test_the_packaged_frontier_is_docs_frontier():
    assert PACKAGED.read_bytes() == DOCS_FRONTIER.read_bytes()
    assert menu.frontier_points() == json.loads(DOCS_FRONTIER.read_text())


def test_frontier_script_writes_both_files(tmp_path, monkeypatch):
    """analysis/frontier.py measuring one bot (measure faked) writes the same points to docs/
    and to the package."""
    path = ROOT / "analysis" / "frontier.py"
    spec = importlib.util.spec_from_file_location("analysis_frontier", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    docs, packaged = tmp_path / "frontier.json", tmp_path / "pkg.json"
    docs.write_text(DOCS_FRONTIER.read_text())
    monkeypatch.setattr(script, "POINTS", docs)
    monkeypatch.setattr(script, "PACKAGED", packaged)
    monkeypatch.setattr(script, "OUT", tmp_path / "frontier.png")
    monkeypatch.setattr(script, "plot", lambda points, path: None)

    def measure(bot, deals, timed, seed, scale):
        return {"bot": bot, "hands_per_s": 1.5, "deals": deals, "net": 0.5, "net_lo": 0.4,
                "net_hi": 0.6, "timed": timed, "scale": scale, "seed": seed}  # fmt: skip

    monkeypatch.setattr(script, "measure", measure)
    script.main(["frontier.py", "0.01", "7", "search-v2"])
    assert packaged.read_bytes() == docs.read_bytes()
    points = {p["bot"]: p for p in json.loads(docs.read_text())}
    assert points["search-v2"]["net"] == 0.5 and points["expert-v4"]["net"] == 0.136


@pytest.mark.parametrize(
    "text, why",
    [(None, "cannot read"), ("[{", "cannot read"), ('[{"bot": "x"}]', "not a list of points")],
)
def test_a_broken_frontier_is_one_error_line(tmp_path, monkeypatch, capsys, text, why):
    if text is not None:
        (tmp_path / "frontier.json").write_text(text)
    monkeypatch.setattr(menu, "files", lambda package: tmp_path)
    with pytest.raises(FastshengError, match=why):
        fs.list_bots()
    assert main(["bots"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and why in err and err.count("\n") == 1


def test_the_command_refuses_an_argument(capsys):
    assert main(["bots", "expert"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


# --------------------------------------------------------------------------------------------
# the command's table and the README's


def _console_rows(text: str) -> list[list[str]]:
    """The rows of a rich table as printed (box characters; a wrapped cell continues on the
    next lines, its first column blank there), header first."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    rows: list[list[str]] = []
    for line in text.splitlines():
        if not line.strip().startswith(("│", "┃", "|")):
            continue
        cells = [c.strip() for c in re.split(r"[│┃|]", line.strip())[1:-1]]
        if rows and not cells[0]:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
        else:
            rows.append(cells)
    return rows


def _readme_rows() -> list[list[str]]:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("\n## Bots\n") :]
    section = section[: section.index("\n## ", 1)]
    table = [ln for ln in section.splitlines() if ln.startswith("|")]
    assert table[1].replace("|", "").strip("-") == ""  # the Markdown rule under the header
    return [[c.strip() for c in ln.strip("|").split(" | ")] for ln in [table[0], *table[2:]]]


def test_the_command_prints_one_row_per_bot(capsys, monkeypatch):
    for var in ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS"):
        monkeypatch.delenv(var, raising=False)
    assert main(["bots"]) == 0
    rows = _console_rows(capsys.readouterr().out)
    assert rows[0] == list(COLUMNS)
    assert [r[0] for r in rows[1:]] == [b.name for b in fs.list_bots()]


def test_the_readme_table_is_the_commands(capsys, monkeypatch):
    for var in ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS"):
        monkeypatch.delenv(var, raising=False)
    assert main(["bots"]) == 0
    printed = _console_rows(capsys.readouterr().out)
    readme = _readme_rows()
    assert [r[0] for r in readme] == [r[0] for r in printed]  # the same names, in order
    assert readme == printed  # and the same figures and words, as formatted
    # `fastsheng bots --markdown` is the README's table to the character
    assert main(["bots", "--markdown"]) == 0
    markdown = capsys.readouterr().out
    assert markdown == menu_markdown() + "\n"
    assert markdown in (ROOT / "README.md").read_text()
