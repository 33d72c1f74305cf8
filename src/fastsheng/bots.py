"""Bot names: the public names, their versions, and the one function that resolves them.

A bot that ships is frozen under a versioned name (`basic-v1`, `expert-v1`, ...) and plays the
same hands forever; the unversioned names (`basic`, `expert`) point at the newest version. Every
entry point (the Python API, the CLI, the runner, compare) resolves names with
:func:`resolve_bot`, and what is recorded (run.json, the `bots` column) is the resolved name, so
a published dataset names exactly the bots that played it. Pure Python (no engine import), so
the runner can check names before the engine is built.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["BOTS", "ALIASES", "is_python_bot", "resolve_bot", "resolve_bots"]

# unversioned name -> the version it plays today
ALIASES = {"basic": "basic-v1", "expert": "expert-v3"}

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
}

# the names a user may give (unversioned first)
BOTS = ("random", *ALIASES, *(n for n in BOT_INDEX if n not in ("random",) and n[0] != "_"))


# a Python bot (fastsheng.agents): "module.path:Attribute", or the built-in Python random bot
_PY_SPEC = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
PY_RANDOM = "py-random"


def is_python_bot(name: str) -> bool:
    """A name that runs Python code at a seat: "module.path:Class" or "py-random"."""
    return isinstance(name, str) and (name == PY_RANDOM or bool(_PY_SPEC.fullmatch(name)))


def resolve_bot(name: str) -> str:
    """The versioned name a bot name plays as: ``"expert"`` -> ``"expert-v3"``. Raises
    ``ValueError`` naming the bot and the known ones when it is unknown. A Python bot's
    "module.path:Class" is kept as given (it is imported where it plays)."""
    if is_python_bot(name):
        return name
    key = name.strip().lower() if isinstance(name, str) else name
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
