"""Packaging: one version, the build that every .pyx gets, what `--version` says, the data the
wheel must carry, and the release scripts CI runs (scripts/check_dist.sh builds and smoke-tests
the real wheel and sdist; these tests check the pieces cheaply)."""

import ast
import importlib.metadata
import json
import re
import runpy
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import fastsheng
from fastsheng import _version
from fastsheng.apps.cli import app

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_is_written_once():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "fastsheng._version.__version__"
    }
    # the installed distribution says the same as the module
    assert importlib.metadata.version("fastsheng") == fastsheng.__version__


def test_the_version_module_loads_alone():
    """setuptools reads _version.py before the core exists: it may import only the standard
    library, and its version must be a plain literal."""
    path = ROOT / "src" / "fastsheng" / "_version.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or ".").split(".")[0])
    assert imported <= set(sys.stdlib_module_names), imported
    assert runpy.run_path(str(path))["__version__"] == fastsheng.__version__


def test_the_changelog_has_a_dated_section_for_the_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in text
    assert re.search(
        rf"^## \[{re.escape(fastsheng.__version__)}\] - \d{{4}}-\d\d-\d\d$", text, re.M
    )


def test_setup_builds_every_pyx():
    """A .pyx that setup.py does not list would be left out of the wheel without a word."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    listed = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and node.targets[0].id == "CORE_MODULES"
    )
    package = ROOT / "src" / "fastsheng"
    found = {".".join(p.relative_to(package).with_suffix("").parts) for p in package.rglob("*.pyx")}
    assert sorted(listed) == sorted(found)


def test_version_says_how_the_core_was_built(capsys):
    with pytest.raises(SystemExit) as done:
        app(["--version"], standalone_mode=True)
    assert done.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"fastsheng {fastsheng.__version__}"
    info = _version.build_info()
    assert info is not None, "the installed core has no _build_info.json: rebuild it"
    assert lines[1].startswith("core: ") and info["compiler"] in lines[1]
    assert "-O3" in lines[2] and "FASTSHENG_NATIVE" in lines[3]


def test_the_build_record_reads_back(tmp_path, monkeypatch):
    record = {
        "compiler": "gcc 12",
        "compile_command": ["gcc", "-O3", "-march=native"],
        "native": True,
        "cython": "3.1",
        "numpy": "2.1",
        "python": "CPython 3.12.1",
        "platform": "linux-x86_64",
    }
    monkeypatch.setattr(_version, "BUILD_INFO", tmp_path / "_build_info.json")
    assert _version.build_info() is None
    assert "without a build record" in _version.describe_build()
    (tmp_path / "_build_info.json").write_text(json.dumps(record))
    text = _version.describe_build()
    assert "gcc 12" in text and "gcc -O3 -march=native" in text
    assert "FASTSHENG_NATIVE set" in text


def test_the_package_carries_the_bots_data():
    """The wheel holds the model files and the frontier (scripts/check_dist.sh reads the real
    wheel's file list): the package-data patterns cover every such file of the source tree."""
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["fastsheng.bots"]
    bots = ROOT / "src" / "fastsheng" / "bots"
    data = [p.relative_to(bots) for p in bots.rglob("*") if p.suffix in (".npz", ".json")]
    assert data
    for path in data:
        assert any(path.match(pattern) for pattern in patterns), path
    installed = Path(fastsheng.__file__).parent / "bots"
    for path in data:
        assert (installed / path).is_file(), f"{path} is not installed"


def test_the_release_builds_and_tests_what_ci_checks():
    cibw = PYPROJECT["tool"]["cibuildwheel"]
    assert cibw["build"] == ["cp311-*", "cp312-*", "cp313-*"]
    assert "scripts/smoke.py" in cibw["test-command"]
    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    for runner in ("ubuntu-24.04", "ubuntu-24.04-arm", "macos-14", "windows-2022"):
        assert runner in workflow
    assert "Linux x86-64 is the only platform built and tested" in workflow
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/check_dist.sh" in ci and "scripts/install_time.sh" in ci


@pytest.mark.parametrize("script", ["check_dist.sh", "install_time.sh"])
def test_the_release_scripts_parse(script):
    subprocess.run(["bash", "-n", str(ROOT / "scripts" / script)], check=True)


def test_the_install_page_counts_the_modules_setup_py_builds():
    """docs/install.md says how many modules the first install compiles: setup.py's list."""
    import ast

    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    modules = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "CORE_MODULES"
    )
    count = len(modules.elts)
    text = " ".join((ROOT / "docs" / "install.md").read_text(encoding="utf-8").split())
    assert f"compiles the Cython core, {count} modules" in text
