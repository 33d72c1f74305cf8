"""CLI friction: preset summaries in `rules list`, flags whose help shows no value,
a garbled run.json `stats` told in one line on --resume, Python-bot runs in smaller batches."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fastsheng.apps.cli import main
from fastsheng.rules import PRESET_SUMMARIES, list_presets

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_rules_list_shows_each_presets_summary_as_docs_rules_md_has_it(capsys):
    assert main(["rules", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    doc = (DOCS / "rules.md").read_text()
    presets = doc[doc.index("## 8. Presets") : doc.index("## 9.")]
    table = dict(re.findall(r"^\| `(\w+)` \| [^|]+ \| ([^|]+) \|$", presets, re.M))
    assert len(lines) == len(list_presets())
    for name, line in zip(list_presets(), lines, strict=True):
        assert line.startswith(name) and line.endswith(PRESET_SUMMARIES[name])
        assert PRESET_SUMMARIES[name] == table[name].strip()  # the doc and the program agree


@pytest.mark.parametrize(
    "command",
    [[], ["sim"], ["ladder"], ["compare"], ["sweep"], ["replay"], ["report"], ["play"]]
    + [["rules"], ["rules", "list"], ["rules", "show"]],
)
def test_flags_show_no_value_in_the_help(command, capsys, monkeypatch):
    """No on/off flag of any command, --help included, reads as if it took a value."""
    monkeypatch.setenv("COLUMNS", "150")
    main([*command, "--help"])
    out = capsys.readouterr().out
    assert "--help" in out
    assert "<bool>" not in out, [line for line in out.splitlines() if "<bool>" in line]


def test_a_garbled_stats_entry_is_one_line_on_resume(tmp_path, capsys):
    out = tmp_path / "r"
    assert (
        main(
            [
                "sim",
                "-n",
                "20",
                "--batch-size",
                "10",
                "--seed",
                "1",
                "--workers",
                "0",
                "--out",
                str(out),
                "-q",
            ]
        )
        == 0
    )
    manifest = json.loads((out / "run.json").read_text())
    manifest["batches"]["0"]["stats"] = {"hands": "ten", "level_change": {"dealer+1": None}}
    (out / "run.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert main(["sim", "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "batch 0's stats 'hands'" in err and "edited by hand" in err


def test_a_python_bot_run_gets_the_smaller_default_batch_size(tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    out = tmp_path / "r"
    assert (
        main(
            [
                "sim",
                "-n",
                "30",
                "--bots",
                "userbots.simple:LowCards,expert",
                "--seed",
                "1",
                "--workers",
                "0",
                "--out",
                str(out),
                "-q",
            ]
        )
        == 0
    )
    assert json.loads((out / "run.json").read_text())["batch_size"] == 1_000
    c = tmp_path / "c"
    assert main(["sim", "-n", "30", "--seed", "1", "--workers", "0", "--out", str(c), "-q"]) == 0
    assert json.loads((c / "run.json").read_text())["batch_size"] == 10_000


def test_a_rerun_with_other_options_is_told_to_give_another_out(tmp_path, capsys):
    out = str(tmp_path / "r")
    assert main(["sim", "-n", "20", "--seed", "1", "--workers", "0", "--out", out, "-q"]) == 0
    capsys.readouterr()
    assert main(["sim", "-n", "20", "--seed", "2", "--workers", "0", "--out", out, "--resume"]) == 2
    err = capsys.readouterr().err
    assert "disagrees with the options: seed 2 (run.json: 1)" in err
    assert "give another --out" in err and err.count("\n") == 1
