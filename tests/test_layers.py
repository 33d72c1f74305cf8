"""The package's layers, checked by walking every import of every module: ``.py`` files read
with ``ast``, the compiled core's ``.pyx`` and ``.pxd`` files read as text (a ``.pxd``-only
module such as ``_bitboard`` is a module too, and a ``.pyx`` with its ``.pxd`` is one module).

Two orders are checked. The Python layers: the compiled core and the rules at the bottom, then
engine/, sim/, studies/, apps/; no module imports a layer above its own. Within the bottom, the
compiled core has its own order, CORE_LAYERS below: a core module may cimport (or import) only
modules of its own entry or a lower one. And no modules import each other in a cycle, whether
the import is at the top of the module or inside a function (a lazy import is still a
dependency), a ``cimport`` or an ``import``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "fastsheng"

# The compiled core's order, lowest first. A module may cimport or import only modules of its
# own entry or an entry above it in this list (lower in the stack); cycles are refused anyway.
# Modules are named by their dotted name: moving one into a subpackage (fastsheng.bots, say) is
# an edit of its name here and nothing else. Every .pyx/.pxd module of src/ must be listed.
CORE_LAYERS: list[tuple[str, ...]] = [
    ("fastsheng._bitboard",),  # the hand as a bitboard: types and inline set operations
    ("fastsheng._threads",),  # threads and locks, POSIX or Windows (header only)
    # the random streams; the models' and a searching seat's plain structs (headers only)
    ("fastsheng._rng", "fastsheng.bots._models", "fastsheng.bots._seat"),
    ("fastsheng._core",),  # rules, trump order, shapes, legality
    ("fastsheng._table", "fastsheng._declare"),  # the table, its bot rows; the declarations
    ("fastsheng.bots._heuristic",),  # the heuristic bots' decisions and their table
    ("fastsheng._game",),  # the hand and match loop; a seat's decisions come through the seat
    ("fastsheng._worlds", "fastsheng.bots._features"),  # sampled deals; the candidates' features
    ("fastsheng._state",),  # one game from Python: the step API's core
    ("fastsheng.bots._card_belief",),  # per-card belief of where the unseen cards lie
    ("fastsheng.bots._infer",),  # inference of the hidden hands from the play
    ("fastsheng.bots._search",),  # the sampling searches (search, search-v2)
    # over the search: the learned bot, its labels, the searched calls and burial
    (
        "fastsheng.bots._learned",
        "fastsheng.bots._labels",
        "fastsheng.bots._call_search",
        "fastsheng.bots._bury_search",
    ),
    ("fastsheng.bots._guided_search",),  # the guided search (search-v3)
    ("fastsheng.bots._lineup",),  # a line-up: the table of bots and the seats' decisions
    ("fastsheng.bots._reading",),  # what a seat's reading of the play sees (analysis)
    # the vec core's parts: a seat's observation, the action ids and masks, the thread pool
    ("fastsheng._vec_obs", "fastsheng._vec_actions", "fastsheng._thread_pool"),
    ("fastsheng._vec",),  # many games stepped at once (fastsheng.vec's core)
]

# the layer of each subpackage of fastsheng; the package's own top-level modules are the base
# (rules, cards, errors) with the compiled core. A subpackage holding core modules (listed in
# CORE_LAYERS) is the base too without an entry here; any other new subpackage must be placed.
LAYERS = {"reference": 0, "engine": 1, "vec": 1.5, "sim": 2, "studies": 3, "apps": 4}
ROOT_API = "fastsheng"  # the flat public API imports every layer; only apps/ may import it
ROOT_API_LAYER = 3.5  # above the studies, below the applications


# -- reading the imports ----------------------------------------------------------------------


def _name(path: Path, root: Path) -> str:
    """The dotted module name of a file below ``root`` (the directory holding the package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(pkg: Path) -> dict[str, list[Path]]:
    """Every module of the package: dotted name -> its files (a .pyx and its .pxd are one)."""
    out: dict[str, list[Path]] = {}
    for p in sorted(pkg.rglob("*")):
        if p.suffix in (".py", ".pyx", ".pxd") and "__pycache__" not in p.parts:
            out.setdefault(_name(p, pkg.parent), []).append(p)
    return out


# string literals and comments, leftmost first, so a quote in a comment or a '#' in a string is
# read as what it is; their text is blanked (newlines kept) before imports are looked for
_NOISE = re.compile(
    r'[rRbBuUfFcC]{0,2}(?:"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"'
    r"|'(?:\\.|[^'\\\n])*')|#[^\n]*"
)
_OPEN, _CLOSE = "([{", ")]}"
_IMPORT = re.compile(r"(c?import)\s+(.+)", re.S)
_FROM = re.compile(r"from\s+(\.*)\s*([\w.]*)\s+c?import\s+(.+)", re.S)


def _blank(m: re.Match) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def _logical_lines(text: str) -> list[str]:
    """The statements of Cython (or Python) source: strings and comments blanked, lines joined
    inside brackets and after a backslash, ``;`` and a one-line ``if x: import y`` split."""
    text = _NOISE.sub(_blank, text)
    out, cur, depth = [], [], 0
    for line in text.split("\n"):
        cur.append(line)
        depth += sum(line.count(c) for c in _OPEN) - sum(line.count(c) for c in _CLOSE)
        if depth > 0 or line.rstrip().endswith("\\"):
            continue
        joined = " ".join(s.rstrip().rstrip("\\") for s in cur)
        cur, depth = [], 0
        for stmt in joined.split(";"):
            out.append(stmt.strip())
    for i, stmt in enumerate(out):  # 'try: import x', 'else: from x cimport y'
        m = re.match(r"(?:\w+(?:\s+[^:]*)?):\s*((?:from|c?import)\s.*)", stmt)
        if m and not stmt.startswith(("from", "import", "cimport")):
            out[i] = m.group(1)
    return out


def _names(clause: str) -> list[str]:
    """``a, b as c`` or ``(a,\\n b,\\n)`` -> ['a', 'b']."""
    clause = clause.strip().strip("()")
    return [part.split()[0] for part in clause.split(",") if part.split()]


def _resolve(module: str, dots: int, here: str, is_pkg: bool) -> str:
    """The absolute name of ``from <dots><module> import``, written in module ``here``."""
    if not dots:
        return module
    base = here.split(".") if is_pkg else here.split(".")[:-1]
    base = base[: len(base) - (dots - 1)]
    return ".".join(base + ([module] if module else []))


def _raw_imports(path: Path, here: str) -> list[tuple[str, list[str]]]:
    """What a file imports: (module, names) for ``from module (c)import names``, (module, [])
    for ``(c)import module``; relative imports resolved against ``here``."""
    is_pkg = path.stem == "__init__"
    text = path.read_text(encoding="utf-8")
    found: list[tuple[str, list[str]]] = []
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom):
                mod = _resolve(node.module or "", node.level, here, is_pkg)
                found.append((mod, [a.name for a in node.names]))
            elif isinstance(node, ast.Import):
                found.extend((a.name, []) for a in node.names)
        return found
    for stmt in _logical_lines(text):
        if m := _FROM.fullmatch(stmt):
            found.append((_resolve(m.group(2), len(m.group(1)), here, is_pkg), _names(m[3])))
        elif m := _IMPORT.fullmatch(stmt):
            found.extend((name, []) for name in _names(m.group(2)))
    return found


def _imports(path: Path, here: str, known: set[str]) -> set[str]:
    """The package's modules a file imports: ``from X import Y`` counts X.Y when that is a
    module, else X; ``import a.b.c`` counts its deepest module of the package."""
    found: set[str] = set()
    for mod, names in _raw_imports(path, here):
        subs = {f"{mod}.{n}" for n in names} & known
        found |= subs
        if len(subs) < len(names) or not names:
            parts = mod.split(".")
            for i in range(len(parts), 0, -1):
                if ".".join(parts[:i]) in known:
                    found.add(".".join(parts[:i]))
                    break
    return found


def _graph(pkg: Path | None = None) -> dict[str, set[str]]:
    mods = _modules(pkg or PKG)
    known = set(mods)
    return {m: set().union(*(_imports(p, m, known) for p in ps)) - {m} for m, ps in mods.items()}


def _core_modules(pkg: Path | None = None) -> set[str]:
    """The compiled core: the modules with a .pyx or a .pxd."""
    return {m for m, ps in _modules(pkg or PKG).items() if any(p.suffix != ".py" for p in ps)}


# -- the checks, on any graph -----------------------------------------------------------------


def _core_violations(g: dict[str, set[str]], table: list[tuple[str, ...]]) -> list[str]:
    """Each import of a listed module by a listed module of a lower entry."""
    level = {m: i for i, entry in enumerate(table) for m in entry}
    return [
        f"{m} (entry {level[m]}) imports {d} (entry {level[d]})"
        for m in sorted(level)
        for d in sorted(g.get(m, ()))
        if d in level and level[d] > level[m]
    ]


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


def _listed() -> set[str]:
    return {m for entry in CORE_LAYERS for m in entry}


def _layer(mod: str) -> float:
    """The Python layer of a module of fastsheng (KeyError for an unplaced subpackage)."""
    if mod == ROOT_API:
        return ROOT_API_LAYER
    sub = mod.split(".")[1]
    if sub in LAYERS:
        return LAYERS[sub]
    if mod in _listed() or not (PKG / sub).is_dir():
        return 0  # the compiled core, or a top-level module of the package
    if any(m.startswith(f"fastsheng.{sub}.") for m in _listed()):
        return 0  # a subpackage of the compiled core (its __init__ too)
    raise KeyError(
        f"fastsheng.{sub} has no layer: add it to LAYERS (or its modules to CORE_LAYERS)"
    )


# -- the package as it is ---------------------------------------------------------------------


def core(basename: str) -> str:
    """The dotted name CORE_LAYERS gives a core module, by its last part ('_game')."""
    (name,) = [m for m in _listed() if m.rsplit(".", 1)[-1] == basename]
    return name


def test_the_walk_sees_the_imports():
    """The walk itself: known edges of each kind (a .py's top level and function, a .pyx's
    import, a multi-line cimport list, a .pxd-only module's cimports)."""
    g = _graph()
    assert "fastsheng.engine.hands" in g["fastsheng.sim.dataset"]
    assert "fastsheng.engine.pybatch" in g["fastsheng.engine.hands"]  # imported in a function
    assert "fastsheng.errors" in g["fastsheng._core"]  # a .pyx file's import
    assert core("_rng") in g[core("_game")]  # the last of _game.pyx's multi-line lists
    assert core("_worlds") in g[core("_state")]  # ditto, in _state.pyx
    assert core("_core") in g[core("_table")]  # _table is a .pxd only, its cimport multi-line
    assert core("_bitboard") in g[core("_rng")]  # ditto, one line
    assert core("_search") in g[core("_bury_search")]  # a lazy 'from fastsheng import ...'
    assert len(g) > 80
    assert sum(len(g[m] & _core_modules()) for m in _core_modules()) > 80  # the core's cimports


def test_every_core_module_is_placed_once():
    """CORE_LAYERS lists every .pyx/.pxd module of src/, each once, and nothing else."""
    listed = [m for entry in CORE_LAYERS for m in entry]
    assert len(listed) == len(set(listed)), "a module listed twice"
    assert set(listed) == _core_modules(), (
        f"not listed: {sorted(_core_modules() - set(listed))}; "
        f"listed but not in src/: {sorted(set(listed) - _core_modules())}"
    )


def test_the_core_imports_no_entry_above_its_own():
    bad = _core_violations(_graph(), CORE_LAYERS)
    assert not bad, "\n".join(bad)


def test_no_module_imports_a_layer_above_its_own():
    upward = [
        f"{m} ({_layer(m)}) imports {d} ({_layer(d)})"
        for m, deps in sorted(_graph().items())
        if m != ROOT_API
        for d in sorted(deps)
        if _layer(d) > _layer(m)
    ]
    assert not upward, "\n".join(upward)


def test_every_subpackage_has_a_layer():
    unplaced = []
    for m in _graph():
        try:
            _layer(m)
        except KeyError as e:
            unplaced.append(str(e))
    assert not unplaced, sorted(set(unplaced))


def _is_pkg(mod: str, pkg: Path) -> bool:
    return (pkg.parent / mod.replace(".", "/") / "__init__.py").exists()


def _cycles_of_concepts(g: dict[str, set[str]], pkg: Path) -> list[list[str]]:
    # a package's __init__ re-exporting its own modules is not a cycle of concepts
    g = {
        m: {d for d in ds if not (m.startswith(d + ".") and _is_pkg(d, pkg))} for m, ds in g.items()
    }
    return _cycles(g)


def test_no_import_cycle():
    cycles = _cycles_of_concepts(_graph(), PKG)
    assert not cycles, cycles


# -- the checker on made-up trees -------------------------------------------------------------


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    pkg = tmp_path / "pkg"
    for rel, text in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text, encoding="utf-8")
    return pkg


def test_every_form_of_import_is_read(tmp_path):
    """Each way a .pyx, .pxd or .py file names another module, one module per form."""
    pkg = _tree(
        tmp_path,
        {
            "__init__.py": "",
            **{f"m{i}.pxd": "" for i in range(1, 16)},
            "sub/__init__.py": "",
            "sub/s1.pxd": "",
            "sub/s2.py": "",
            "user.pyx": '''"""from pkg.nope cimport x  (a docstring, not an import)"""
cimport pkg.m1
cimport pkg.m2 as two
from pkg.m3 cimport a, b as c
from pkg.m4 cimport (
    a, b,  # a comment ) with a bracket
    c,
)
from pkg cimport m5, m6 as six
from . cimport m7
from .sub cimport s1
import pkg.m8
from pkg.m9 import x \\
    as y
s = "import pkg.nope2"  # cimport pkg.nope3
def f():
    from pkg import m10
    if True: import pkg.m11
    x = 1; cimport pkg.m12
''',
            "sub/s3.pxd": "from .. cimport m13\nfrom ..m14 cimport (\n  t,\n)\n",
            "sub/s4.py": "from . import s2\nfrom ..m15 import t\n",
        },
    )
    g = _graph(pkg)
    assert g["pkg.user"] == {f"pkg.m{i}" for i in range(1, 13)} | {"pkg.sub.s1"}
    assert g["pkg.sub.s3"] == {"pkg.m13", "pkg.m14"}
    assert g["pkg.sub.s4"] == {"pkg.sub.s2", "pkg.m15"}
    assert {"pkg.m1", "pkg.sub.s1", "pkg.user"} <= _core_modules(pkg)  # .pxd-only modules too


def test_a_cycle_through_a_multiline_cimport_is_caught(tmp_path):
    pkg = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "a.pxd": "from pkg.b cimport (\n    b_t,\n    b_fn,\n)\n",
            "a.pyx": "cdef int f():\n    return 0\n",
            "b.pyx": "from pkg.a cimport f\n",
            "c.pyx": "from pkg.a cimport f\n",
        },
    )
    assert _cycles_of_concepts(_graph(pkg), pkg) == [["pkg.a", "pkg.b"]]


def test_a_low_entry_cimporting_a_higher_one_is_caught(tmp_path):
    pkg = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "low.pxd": "cdef int low_fn()\n",
            "low.pyx": "from pkg.high cimport (\n    high_fn,\n)\n",
            "high.pxd": "cdef int high_fn()\n",
            "mid.pyx": "cimport pkg.low as low\n",
        },
    )
    table = [("pkg.low",), ("pkg.mid",), ("pkg.high",)]
    assert _core_violations(_graph(pkg), table) == ["pkg.low (entry 0) imports pkg.high (entry 2)"]
    assert _core_violations(_graph(pkg), [("pkg.low", "pkg.high"), ("pkg.mid",)]) == []


# -- the old import paths ---------------------------------------------------------------------
