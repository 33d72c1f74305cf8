"""Bot names: the public names, their versions, and the one function that resolves them.

A bot that ships is frozen under a versioned name (`basic-v1`, `expert-v1`, ...) and plays the
same hands forever; the unversioned names (`basic`, `expert`) point at the newest version. Every
entry point (the Python API, the CLI, the runner, compare) resolves names with
:func:`resolve_bot`, and what is recorded (run.json, the `bots` column) is the resolved name, so
a published dataset names exactly the bots that played it. Pure Python (no engine import), so
the runner can check names before the engine is built.

``search`` takes parameters in its name (``search:k=32,cands=8``, docs/bots.md); it resolves to
every parameter spelled out, its base bot included (``search:k=32,cands=8,base=expert-v1``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "BOTS",
    "ALIASES",
    "bot_spec",
    "is_python_bot",
    "resolve_bot",
    "resolve_bots",
    "split_bots",
]

# unversioned name -> the version it plays today
ALIASES = {"basic": "basic-v1", "expert": "expert-v4"}

# index of each versioned bot in the C dispatch (fastsheng/_bots.pxd); `_chaos` leads random
# subsets of a suit (throws that fail), `_mute` plays as basic-v1 and never calls (the no-call
# fallbacks): test bots, not public
BOT_INDEX = {
    "random": 0,
    "basic-v1": 1,
    "expert-v1": 2,
    "_chaos": 3,
    "_mute": 4,
    "expert-v2": 5,
    "expert-v3": 6,
    "expert-v4": 7,
}

# the search bot: parameters with their defaults and bounds (cands <= _search.MAX_CANDS)
SEARCH = "search"
# (the base stays expert-v3, so `search` plays as in its published figures; base=expert is v4)
SEARCH_DEFAULTS = {"k": 32, "cands": 8, "base": "expert-v3"}
SEARCH_BOUNDS = {"k": (1, 1024), "cands": (1, 32)}

# the names a user may give (unversioned first)
BOTS = (
    "random",
    *ALIASES,
    *(n for n in BOT_INDEX if n not in ("random",) and n[0] != "_"),
    SEARCH,
)


# a Python bot (fastsheng.agents): "module.path:Attribute", or the built-in Python random bot
_PY_SPEC = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
PY_RANDOM = "py-random"


def is_python_bot(name: str) -> bool:
    """A name that runs Python code at a seat: "module.path:Class" or "py-random" (not
    ``search:...``, the C search bot with its parameters)."""
    if isinstance(name, str) and name.strip().lower().startswith(SEARCH + ":"):
        return False
    return isinstance(name, str) and (name == PY_RANDOM or bool(_PY_SPEC.fullmatch(name)))


def resolve_bot(name: str) -> str:
    """The versioned name a bot name plays as: ``"expert"`` -> ``"expert-v4"``. Raises
    ``ValueError`` naming the bot and the known ones when it is unknown. A Python bot's
    "module.path:Class" is kept as given (it is imported where it plays)."""
    if is_python_bot(name):
        return name
    key = name.strip().lower() if isinstance(name, str) else name
    if isinstance(key, str) and (key == SEARCH or key.startswith(SEARCH + ":")):
        return _resolve_search(name, key)
    key = ALIASES.get(key, key)
    if key not in BOT_INDEX:
        raise ValueError(
            f"unknown bot {name!r}; bots: {', '.join(BOTS)}, or a Python bot module.path:Class"
        )
    return key


def resolve_bots(bots: str | Sequence[str]) -> tuple[str, str, str, str]:
    """One name (all four seats) or four (seat 0 first) -> the four resolved names."""
    names = (bots,) * 4 if isinstance(bots, str) else tuple(bots)
    if len(names) != 4:
        raise ValueError(f"bots: one name or four (one per seat), got {len(names)}")
    return tuple(resolve_bot(n) for n in names)  # type: ignore[return-value]


def _resolve_search(name: str, key: str) -> str:
    """``search[:k=..,cands=..,base=..]`` with every parameter spelled out, the base resolved."""
    params = dict(SEARCH_DEFAULTS)
    body = key[len(SEARCH) + 1 :]
    for item in filter(None, (p.strip() for p in body.split(","))):
        field, eq, value = item.partition("=")
        field, value = field.strip(), value.strip()
        if not eq or field not in SEARCH_DEFAULTS:
            raise ValueError(
                f"bot {name!r}: parameters are {', '.join(f'{k}=' for k in SEARCH_DEFAULTS)}"
                f" (e.g. search:k=32,cands=8), not {item!r}"
            )
        params[field] = value
    for field, (lo, hi) in SEARCH_BOUNDS.items():
        value = str(params[field])
        if not value.isdigit() or not lo <= int(value) <= hi:
            raise ValueError(f"bot {name!r}: {field} must be an integer in {lo}..{hi}")
        params[field] = int(value)
    base = resolve_bot(str(params["base"]))
    if base == SEARCH or base.startswith(SEARCH + ":") or base.startswith("_"):
        raise ValueError(f"bot {name!r}: base must be a built-in bot other than search")
    return f"{SEARCH}:k={params['k']},cands={params['cands']},base={base}"


def bot_spec(resolved: str) -> tuple[int, int, int]:
    """A resolved name -> (C index of the bot that plays its seat, search worlds k, search
    candidates): k = cands = 0 for a bot that does not search."""
    if resolved.startswith(SEARCH + ":"):
        fields = dict(p.split("=", 1) for p in resolved[len(SEARCH) + 1 :].split(","))
        return BOT_INDEX[fields["base"]], int(fields["k"]), int(fields["cands"])
    return BOT_INDEX[resolved], 0, 0


def is_builtin(name: str) -> bool:
    """A resolved name the C engine plays (test bots excluded)."""
    return name.startswith(SEARCH + ":") or (name in BOT_INDEX and not name.startswith("_"))


def split_bots(text: str) -> list[str]:
    """A comma-separated line-up, where a ``key=value`` piece continues the previous bot's
    parameters: ``"search:k=8,cands=4,expert"`` -> ``["search:k=8,cands=4", "expert"]``."""
    out: list[str] = []
    for piece in text.split(","):
        part = piece.strip()
        if out and "=" in part and ":" not in part and out[-1].lower().startswith(SEARCH + ":"):
            out[-1] += "," + part
        else:
            out.append(part)
    return out
