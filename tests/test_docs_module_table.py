"""docs/design.md's module table is the tree: every module of the package, and of
each subpackage, is named in it, and it names no module that is gone."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "src" / "fastsheng"


def _table() -> str:
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    return text.split("```", 2)[1]  # the tree block that opens the page


def _modules() -> set[str]:
    out = set()
    for p in PKG.rglob("*"):
        if p.suffix in (".py", ".pyx", ".pxd") and "__pycache__" not in p.parts:
            if p.name != "__init__.py" or p.parent == PKG:
                out.add(p.relative_to(PKG).as_posix())
    return out


def test_every_module_is_in_the_design_table():
    table = _table()
    missing = []
    for rel in sorted(_modules()):
        *folder, name = rel.split("/")
        stem, ext = name.rsplit(".", 1)
        # `_core.pxd/.pyx` names both files; a subpackage's modules are listed under its folder
        named = re.search(rf"(?<![\w.]){re.escape(stem)}\.[\w/.]*{ext}\b", table)
        if not named or (folder and f"{folder[0]}/" not in table):
            missing.append(rel)
    assert not missing, f"docs/design.md's table lacks {missing}"


def test_the_design_table_names_no_module_that_is_gone():
    names = {p.name for p in PKG.rglob("*") if p.suffix in (".py", ".pyx", ".pxd")}
    stems = {n.rsplit(".", 1)[0] for n in names}
    listed = set(re.findall(r"(?<![\w.])(_?[a-z_]+)\.(?:py|pyx|pxd)\b", _table()))
    assert listed <= stems, sorted(listed - stems)
