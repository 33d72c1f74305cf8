"""The example notebooks (examples/notebooks/*.py, jupytext percent format) and the script that
executes them for the site (scripts/run_notebooks.py).

The default suite only reads them: each parses as a notebook, compiles, and starts with a
title. Executing all three takes 17-27 s on the shared 2-core machine (more under load), so it
happens where the site is built (scripts/run_notebooks.py, which prints each notebook's time)
and here under ``-m slow``. The script's failure path runs a small failing notebook (one
kernel start, about 1 s).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "examples" / "notebooks").glob("*.py"))
NAMES = ("bot_researcher", "designer", "statistician")


def _script():
    spec = importlib.util.spec_from_file_location(
        "run_notebooks", ROOT / "scripts/run_notebooks.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_three_notebooks_are_there():
    assert tuple(p.stem for p in NOTEBOOKS) == NAMES


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_parses_and_compiles(path):
    text = path.read_text(encoding="utf-8")
    nb = jupytext.reads(text, fmt="py:percent")
    nbformat.validate(nb)
    kinds = [c.cell_type for c in nb.cells]
    assert kinds[0] == "markdown" and nb.cells[0].source.startswith("# "), "a title first"
    assert kinds.count("code") >= 3 and kinds.count("markdown") >= 3
    # every code cell compiles on its own, as the kernel runs it
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            compile(cell.source, f"{path.name}[cell {i + 1}]", "exec")
    # the round trip keeps the code: the .py is the notebook, not a lossy export of it
    back = jupytext.writes(nb, fmt="py:percent")
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert [
        c.source for c in jupytext.reads(back, fmt="py:percent").cells if c.cell_type == "code"
    ] == code
    assert nb.metadata["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_writes_only_to_a_temporary_folder(path):
    # a run folder, a sweep's runs: under tempfile, never in the working folder
    text = path.read_text(encoding="utf-8")
    if "out=" in text or "--out" in text:
        assert "tempfile.mkdtemp" in text


def test_script_refuses_an_unknown_name(capsys):
    rc = _script().main(["nosuch"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("error: no notebook 'nosuch'")
    assert "statistician" in err


def test_script_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "nbclient", None)  # as if it were not installed
    with pytest.raises(SystemExit) as e:
        _script().main([])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert (
        err == "error: nbclient is not installed; install the docs extra: pip install '.[docs]'\n"
    )


def test_script_names_the_failing_notebook_and_cell(tmp_path, capsys):
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    (nbs / "broken.py").write_text(
        '# %% [markdown]\n# # Broken\n\n# %%\nx = 1\n\n# %%\nprint("before")\n1 / 0\n'
    )
    out = tmp_path / "out"
    rc = _script().main(["--notebooks", str(nbs), "--out", str(out)])
    cap = capsys.readouterr()
    assert rc == 1
    last = cap.err.strip().splitlines()[-1]
    assert last.startswith("error: ") and "broken.py, cell 3 (lines 8-9): ZeroDivisionError" in last
    assert "1 / 0" in cap.err  # the traceback above the line
    assert not (out / "broken.ipynb").exists()


@pytest.mark.slow
def test_every_notebook_executes(tmp_path, capsys):
    rc = _script().main(["--out", str(tmp_path)])
    printed = capsys.readouterr().out
    assert rc == 0, printed
    for name in NAMES:
        nb = nbformat.read(tmp_path / f"{name}.ipynb", as_version=4)
        outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
        assert not [o for o in outputs if o.output_type == "error"]
        assert any("image/png" in o.get("data", {}) for o in outputs), f"{name}: no plot"
        assert f"{name} " in printed
    assert printed.splitlines()[-1].startswith("total")
