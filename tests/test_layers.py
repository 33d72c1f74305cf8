"""The package's layers, checked by walking every import (issue 18): the compiled core and the
rules at the bottom, then engine/, sim/, studies/, apps/. No module imports a layer above its
own, and no modules import each other in a cycle, whether the import is at the top of the
module or inside a function (a lazy import is still a dependency)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "src" / "fastsheng"

# the layer of each subpackage; every other module of the package is the base (rules, cards,
# reference, the compiled modules)
LAYERS = {"engine": 1, "sim": 2, "studies": 3, "apps": 4}
ROOT_API = "fastsheng"  # the flat public API imports every layer; only apps/ may import it


def _name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*"):
        if p.suffix in (".py", ".pyx") and "__pycache__" not in p.parts:
            out[_name(p)] = p
    return out


_CIMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+c?import\s+([\w, ()]+)|c?import\s+([\w.]+))", re.M)


def _imports(path: Path, known: set[str]) -> set[str]:
    """The package's modules this file imports (from X import Y counts X.Y when it is a module)."""
    found: set[str] = set()

    def add(mod: str, names: list[str]) -> None:
        for n in names:
            if f"{mod}.{n}" in known:
                found.add(f"{mod}.{n}")
            elif mod in known:
                found.add(mod)

    text = path.read_text(encoding="utf-8")
    if path.suffix == ".pyx":
        for m in _CIMPORT.finditer(text):
            if m.group(1):
                add(m.group(1), re.findall(r"\w+", m.group(2)))
            elif m.group(3) in known:
                found.add(m.group(3))
        return found
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            add(node.module, [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                for i in range(len(parts), 0, -1):  # import a.b.c depends on its deepest module
                    if ".".join(parts[:i]) in known:
                        found.add(".".join(parts[:i]))
                        break
    return found


def _layer(mod: str) -> float:
    if mod == ROOT_API:
        return 3.5  # above the studies, below the applications
    parts = mod.split(".")
    return LAYERS.get(parts[1], 0) if len(parts) > 1 else 0


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {m: _imports(p, known) - {m} for m, p in mods.items()}


def test_the_walk_sees_the_imports():
    """The walk itself: known edges of each kind (top level, in a function, in a .pyx)."""
    g = _graph()
    assert "fastsheng.engine.hands" in g["fastsheng.sim.dataset"]
    assert "fastsheng.engine.pybatch" in g["fastsheng.engine.hands"]  # imported in a function
    assert "fastsheng.errors" in g["fastsheng._core"]  # a .pyx file's import
    assert len(g) > 60


def test_no_module_imports_a_layer_above_its_own():
    upward = [
        f"{m} ({_layer(m)}) imports {d} ({_layer(d)})"
        for m, deps in sorted(_graph().items())
        if m != ROOT_API
        for d in sorted(deps)
        if _layer(d) > _layer(m)
    ]
    assert not upward, "\n".join(upward)


def _cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    g = _graph()
    # a package's __init__ re-exporting its own modules is not a cycle of concepts
    for m in g:
        g[m] = {d for d in g[m] if not (m.startswith(d + ".") and _modules_is_pkg(d))}
    assert not _cycles(g), _cycles(g)


def _modules_is_pkg(mod: str) -> bool:
    return (PKG.parent / mod.replace(".", "/") / "__init__.py").exists()
