"""The package's size rules, over every module of src/: its ``.py`` files (read with ``ast``) and
the compiled core's ``.pyx`` and ``.pxd`` files (read as text; nothing is imported). No
function over 80 lines, no module over 700 lines unless it is a data table, and no typer
command function over 40 lines (a command parses and hands over; its work lives elsewhere).
A function's lines run from its ``def`` (``cdef``, ``cpdef``; decorators not counted) to its
last line, docstring and signature included; nested functions count inside their parent too.
A ``cdef class`` is a class: its methods are measured, as a Python class's are.

The core's older modules break both limits today. Each breach is listed below with its size
now, and the lists can only shrink: the test fails if a listed module or function grew, or
if it is within the limit now and its entry is no longer needed."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "src" / "fastsheng"
SUFFIXES = (".py", ".pyx", ".pxd")

MAX_FUNCTION = 80
MAX_MODULE = 700
MAX_COMMAND = 40

# modules that are data, not code, with the reason each may be longer (none is today: tables.py
# and presets.py, the presets' data out of rules.py, are both under the limit)
DATA_TABLES: dict[str, str] = {}

# Today's breaches, each with its size now: a number here may only go down, and an entry goes
# when its module or function is within the limit. A key names a file by its path's tail (its
# basename will do while that is unique), so moving the module into a subpackage needs no edit
# here; a function is "file:name" (a name defined twice in one file is measured at its longest).
LONG_MODULES: dict[str, int] = {
    "_heuristic.pyx": 1235,
    "_game.pyx": 1179,
    "_worlds.pyx": 1064,
    "_state.pyx": 879,
    "_core.pyx": 711,
}
LONG_FUNCTIONS: dict[str, int] = {
    "_card_belief.pyx:card_features": 222,
    "_state.pyx:sample_world_tries": 126,
    "_worlds.pyx:public_scrub": 102,
    "_worlds.pyx:world_history": 96,
}


def _modules() -> list[Path]:
    return sorted(
        p for p in PKG.rglob("*") if p.suffix in SUFFIXES and "__pycache__" not in p.parts
    )


def _rel(path: Path) -> str:
    return path.relative_to(PKG).as_posix()


# -- measuring a .py file: ast ----------------------------------------------------------------


def _functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _length(node: ast.AST) -> int:
    return node.end_lineno - node.lineno + 1


def _is_command(node: ast.FunctionDef) -> bool:
    """Registered as a typer command: ``@app.command(...)`` or ``@rules_app.command``."""
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if isinstance(target, ast.Attribute) and target.attr == "command":
            return True
    return False


@cache
def _tree(path: Path) -> ast.AST:
    return ast.parse(path.read_text(encoding="utf-8"))


# -- measuring a .pyx or .pxd file: statements and indentation --------------------------------

# string literals and comments, leftmost first (so a quote in a comment, or a '#' in a string,
# is read as what it is)
_NOISE = re.compile(
    r'[rRbBuUfFcC]{0,2}(?:"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"'
    r"|'(?:\\.|[^'\\\n])*')|#[^\n]*"
)
_DEF = re.compile(
    r"(?:async\s+)?def\s+(\w+)\s*\("  # def, async def
    r"|c?p?def\s+(?!class\b|struct\b|union\b|enum\b|extern\b|packed\b|fused\b)"
    r"[^=:]*?(\w+)\s*\((?!\s*\*)"  # cdef, cpdef, cdef inline <type> name(
)
_CLASS = re.compile(r"(?:cdef\s+|cpdef\s+)?class\s+(\w+)")


def _statements(text: str) -> list[tuple[int, int, int, str]]:
    """The logical statements of Cython (or Python) source: (first line, last line, indent of
    the first line, code). Comments are dropped and strings stand as placeholders, so a line
    inside a string or a bracket continues its statement whatever its indentation."""
    inside = set()  # lines that begin inside a multi-line string

    def mask(m: re.Match) -> str:
        s = m.group(0)
        if s.startswith("#"):
            return ""
        first = text.count("\n", 0, m.start())
        inside.update(range(first + 1, first + 1 + s.count("\n")))
        return re.sub(r"[^\n]", "s", s)

    lines = _NOISE.sub(mask, text).split("\n")
    out, start, depth = [], None, 0
    for i, line in enumerate(lines):
        start = i if start is None else start
        depth += sum(map(line.count, "([{")) - sum(map(line.count, ")]}"))
        if depth > 0 or line.rstrip().endswith("\\") or i + 1 in inside:
            continue
        first = lines[start]
        code = " ".join(s.strip() for s in lines[start : i + 1]).strip()
        out.append((start + 1, i + 1, len(first) - len(first.lstrip()), code))
        start, depth = None, 0
    return out


def _text_functions(text: str) -> list[tuple[str, int]]:
    """(name, lines) of every function of Cython (or Python) source, measured by indentation:
    from its header to the last line of the last statement indented deeper than it."""
    stmts = [s for s in _statements(text) if s[3]]
    found = []
    for j, (first, last, indent, code) in enumerate(stmts):
        m = _DEF.match(code)
        if not m or _CLASS.match(code):
            continue
        end = last
        for _, k_last, k_indent, _ in stmts[j + 1 :]:
            if k_indent <= indent:
                break
            end = k_last
        found.append((m.group(1) or m.group(2), end - first + 1))
    return found


# -- either kind ------------------------------------------------------------------------------


@cache
def _lengths(path: Path) -> tuple[tuple[str, int], ...]:
    """(function name, lines) of a module, any kind."""
    if path.suffix == ".py":
        return tuple((f.name, _length(f)) for f in _functions(_tree(path)))
    return tuple(_text_functions(path.read_text(encoding="utf-8")))


def _module_lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _file_of(key: str) -> Path:
    """The one module a key names: its path ends with the key."""
    hits = [p for p in _modules() if ("/" + _rel(p)).endswith("/" + key)]
    assert len(hits) == 1, f"{key!r} names {len(hits)} files of src/: {[_rel(p) for p in hits]}"
    return hits[0]


def _listed_module(path: Path) -> str | None:
    return next((k for k in LONG_MODULES if _file_of(k) == path), None)


def _listed_function(path: Path, name: str) -> str | None:
    return next(
        (
            k
            for k in LONG_FUNCTIONS
            if k.split(":")[1] == name and _file_of(k.split(":")[0]) == path
        ),
        None,
    )


# -- the measures themselves ------------------------------------------------------------------


def test_the_walk_sees_the_package():
    """The walk finds the modules and functions it checks, commands and the core among them."""
    rels = {_rel(p) for p in _modules()}
    assert {"apps/cli.py", "engine/game.py", "cards.py", "_game.pyx", "_bitboard.pxd"} <= rels
    commands = [f.name for f in _functions(_tree(PKG / "apps" / "cli.py")) if _is_command(f)]
    assert {"sim", "replay", "sweep_cmd", "rules_list"} <= set(commands)
    core = dict(_lengths(_file_of("_core.pyx")))
    assert {"ctx_init", "suit_rank", "lead_shape", "__init__", "is_trump"} <= set(core)
    assert "Context" not in core  # a cdef class is a class
    assert sum(len(_lengths(p)) for p in _modules() if p.suffix != ".py") > 400


def _source(name: str, body_lines: int, decorator: str = "") -> str:
    body = "".join(f"    x{i} = {i}\n" for i in range(body_lines))
    return f"{decorator}def {name}():\n{body}\n"


def test_the_measure_on_made_up_source():
    """81 lines is over, 80 is not; a command is known by its decorator, called or not."""
    tree = ast.parse(
        _source("long", 80)
        + _source("short", 79)
        + _source("cmd", 40, "@app.command()\n")
        + _source("sub", 39, "@rules_app.command\n")
    )
    lengths = {f.name: (_length(f), _is_command(f)) for f in _functions(tree)}
    assert lengths == {
        "long": (81, False),
        "short": (80, False),
        "cmd": (41, True),
        "sub": (40, True),
    }


CYTHON = '''\
cdef extern from "x.h":
    int ext(int a)
cdef struct pair_t:
    int a
cdef int (*hook)(int) noexcept nogil
cdef object made = build(1)

cdef inline int small(
    int a,  # a comment (with a bracket
    int b,
) noexcept nogil:
    """A docstring, with 'quotes' and a def f( in it,
at column 0 inside the string.
    """
    cdef int x = a

# a comment at column 0 is inside no function
    return x + b


cdef class Box(Base):
    cdef int n

    def __init__(self, n):
        self.n = n

    cpdef int twice(self):
        return 2 * self.n
s = """
def not_a_function():
"""
cpdef tuple pair(int a) except *:
    return (a,
a)
cdef (int, int) two() noexcept:
    return \\
        1, 2
def tail(): return 1
'''


def test_the_cython_measure_on_made_up_source():
    """Every form of a Cython function, each measured from its header to its last line."""
    assert _text_functions(CYTHON) == [
        ("small", 11),
        ("__init__", 2),
        ("twice", 2),
        ("pair", 3),
        ("two", 3),
        ("tail", 1),
    ]


def test_the_cython_measure_agrees_with_ast():
    """The text measure, run on every .py of src/, gives ast's lengths: the indentation rule
    is the language's."""
    for p in _modules():
        if p.suffix == ".py":
            by_text = _text_functions(p.read_text(encoding="utf-8"))
            by_ast = sorted((f.lineno, f.name, _length(f)) for f in _functions(_tree(p)))
            assert by_text == [(n, k) for _, n, k in by_ast], _rel(p)


# -- the breaches listed: real, needed, not grown ---------------------------------------------


def test_the_exemption_lists_name_real_things():
    """Every listed module exists, each key names one file of src/, and every listed function
    exists in its file."""
    rels = {_rel(p) for p in _modules()}
    missing = sorted(set(DATA_TABLES) - rels)
    assert not missing, f"listed but not in src/: {missing}"
    for key in LONG_MODULES:
        _file_of(key)
    for key in LONG_FUNCTIONS:
        path, name = key.split(":")
        assert name in dict(_lengths(_file_of(path))), f"{key}: no such function"


def test_the_exemptions_only_shrink():
    """A listed breach is still a breach (else its entry goes) and no bigger than listed."""
    stale, grown = [], []
    for key, size in LONG_MODULES.items():
        now = _module_lines(_file_of(key))
        (stale if now <= MAX_MODULE else grown if now > size else []).append(f"{key} ({now})")
    for key, size in LONG_FUNCTIONS.items():
        path, name = key.split(":")
        now = max(n for f, n in _lengths(_file_of(path)) if f == name)
        (stale if now <= MAX_FUNCTION else grown if now > size else []).append(f"{key} ({now})")
    assert not stale, f"within the limit now, remove the entry: {', '.join(stale)}"
    assert not grown, f"grew past its listed size (split it instead): {', '.join(grown)}"


# -- the rules --------------------------------------------------------------------------------


def test_no_module_over_700_lines():
    long = [
        f"{_rel(p)} ({n} lines)"
        for p in _modules()
        if _rel(p) not in DATA_TABLES
        and _listed_module(p) is None
        and (n := _module_lines(p)) > MAX_MODULE
    ]
    assert not long, f"over {MAX_MODULE} lines: {', '.join(long)}"


def test_no_function_over_80_lines():
    long = [
        f"{_rel(p)}:{name} ({n} lines)"
        for p in _modules()
        for name, n in _lengths(p)
        if n > MAX_FUNCTION and _listed_function(p, name) is None
    ]
    assert not long, f"over {MAX_FUNCTION} lines: {', '.join(long)}"


def test_no_command_function_over_40_lines():
    long = [
        f"{_rel(p)}:{f.name} ({_length(f)} lines)"
        for p in _modules()
        if p.suffix == ".py"
        for f in _functions(_tree(p))
        if _is_command(f) and _length(f) > MAX_COMMAND
    ]
    assert not long, f"typer commands over {MAX_COMMAND} lines: {', '.join(long)}"
