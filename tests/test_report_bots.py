"""`fastsheng report` and `compare` name the bots behind every figure: next to each table and
plot in the HTML, under the printed headline and in a `bots` column of every CSV, with the
versioned names run.json records (a figure read without the bots that played it means nothing:
docs/analysis.md, the strength axis). About 5 s."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from rich.console import Console

from fastsheng.studies.report import compare_command, report_command
from fastsheng.studies.report.model import lineup_text


def test_lineup_text():
    assert lineup_text(["expert-v4"] * 4) == "expert-v4 at all four seats"
    assert lineup_text(["a", "b", "a", "b"]) == "a (seats 0/2) vs b (seats 1/3)"
    assert lineup_text(["a", "b", "c", "d"]) == "seat 0 a, seat 1 b, seat 2 c, seat 3 d"


def _check_outputs(where, tables, want: dict[str, str], default: str) -> None:
    """Every CSV has a `bots` column naming who played (``want`` by table, else ``default``);
    every table's HTML section and every figure caption names them too."""
    page = (where / "index.html").read_text(encoding="utf-8")
    for t in tables:
        csv = pd.read_csv(where / f"{t.name}.csv", comment="#")
        if len(csv):
            assert set(csv["bots"]) == {want.get(t.name, default)}, t.name
        section = page.split(f'<h2 id="{t.name}">', 1)[1].split("<h2", 1)[0]
        assert f'<p class="bots">bots: {want.get(t.name, default)}</p>' in section, t.name
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", page, re.S)
    assert captions and all("(bots: " in c for c in captions)


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    where = tmp_path_factory.mktemp("cmp")
    console = Console(record=True, width=200)
    rep = compare_command(
        rules=["standard", "super"],
        bots=["expert,basic"],
        n=60,
        out=where,
        workers=0,
        console=console,
    )
    return where, rep, console.export_text()


def test_compare_names_the_bots_everywhere(compared):
    where, rep, text = compared
    both = "A and B: expert-v4 (seats 0/2) vs basic-v1 (seats 1/3)"
    assert rep.bots == both
    assert f"bots: {both}" in " ".join(text.split())  # the headline's caption (may wrap)
    lineup = "expert-v4 (seats 0/2) vs basic-v1 (seats 1/3)"
    _check_outputs(where, rep.tables, {"headline_a": lineup, "headline_b": lineup}, both)


def test_compare_of_two_bot_lineups_names_each(tmp_path):
    console = Console(record=True, width=200)
    rep = compare_command(
        bots=["expert-v1", "basic"], n=40, out=tmp_path, workers=0, console=console
    )
    a, b = "expert-v1 at all four seats", "basic-v1 at all four seats"
    assert rep.bots == f"A: {a}; B: {b}"
    assert f"A: {a}; B: {b}" in " ".join(console.export_text().split())
    _check_outputs(tmp_path, rep.tables, {"headline_a": a, "headline_b": b}, rep.bots)


def test_report_names_the_bots_everywhere(compared, tmp_path):
    where, _, _ = compared
    console = Console(record=True, width=200)
    rep = report_command(str(where / "runs" / "standard"), out=tmp_path, console=console)
    lineup = "expert-v4 (seats 0/2) vs basic-v1 (seats 1/3)"
    assert rep.bots == lineup
    assert lineup in " ".join(console.export_text().split())
    _check_outputs(tmp_path, rep.tables, {}, lineup)
