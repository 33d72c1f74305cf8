"""Bot names: the public names, their versions, and the one function that resolves them.

A bot that ships is frozen under a versioned name (`basic-v1`, `expert-v1`, ...) and plays the
same hands forever; the short names (`basic`, `expert`, `search-v4`) point at a frozen name
(fastsheng.bots.catalog.ALIASES). Every entry point (the Python API, the CLI, the runner, compare)
resolves names with :func:`resolve_bot`, and what is recorded (run.json, the `bots` column) is the
resolved name, so a published dataset names exactly the bots that played it. Pure Python (no
engine import), so the runner can check names before the engine is built.

A search takes its settings in its name (``search:k=32,cands=8``, docs/bots.md): the name parses
into a typed specification (fastsheng.bots.spec) and resolves to its canonical spelling, its
base bot included (``search:k=32,cands=8,base=expert-v3``).

A Python bot may also be given as an object or a class wherever a name goes: it resolves to a
:class:`BotRef`, a ``str`` (so line-ups, run.json and the ``bots`` column stay strings) named
``module:Class`` that carries the object with it.
"""

from __future__ import annotations

import copy
import re
import sys
from typing import Any

from fastsheng.bots.catalog import ALIASES, BOT_INDEX
from fastsheng.bots.spec import SPEC_FAMILIES, bot_spec, search_family

__all__ = [
    "BOTS",
    "ALIASES",
    "BOT_INDEX",
    "BotRef",
    "bot_spec",
    "is_builtin",
    "is_python_bot",
    "resolve_bot",
    "resolve_bots",
    "split_bots",
]

# the names a user may give (short names first, frozen search names last)
BOTS = (
    "random",
    *(a for a in ALIASES if not search_family(a)),
    *(n for n in BOT_INDEX if n != "random" and n[0] != "_"),
    *SPEC_FAMILIES,
    *(a for a in ALIASES if search_family(a)),
)
"""Every built-in bot name a line-up may give: ``random``, the short names (``basic``,
``expert``), the frozen versions (``expert-v1`` ...), ``learned-v1`` and the search bots.
``fastsheng.list_bots()`` describes the public ones; ``module:Class`` names a Python bot."""


# a Python bot (fastsheng.engine.agents): "module.path:Attribute", or the built-in Python random bot
_PY_SPEC = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
PY_RANDOM = "py-random"


class BotRef(str):
    """A bot object or class given in place of a name. Its text is ``module:Class`` (what
    run.json and the ``bots`` column record); :meth:`make` gives the bot that plays a seat: a
    class is instantiated with no arguments, an object is deep-copied, so every seat of every
    batch starts from the object as given (as a worker process would get it) and the object
    itself never plays."""

    target: Any

    def __new__(cls, target: Any, name: str | None = None) -> BotRef:
        kind = target if isinstance(target, type) else type(target)
        self = super().__new__(cls, name or f"{kind.__module__}:{kind.__qualname__}")
        self.target = target
        return self

    def __reduce__(self):
        # pickled with its object (a class by reference) and its name: a spawned worker sees
        # the parent's __main__ as __mp_main__, and the data must not depend on the worker
        return (BotRef, (self.target, str(self)))

    def make(self) -> Any:
        """A fresh bot for one seat of one batch; ValueError naming it if that fails."""
        try:
            obj = self.target() if isinstance(self.target, type) else copy.deepcopy(self.target)
        except Exception as e:
            how = "instantiate" if isinstance(self.target, type) else "copy"
            raise ValueError(f"bot {self}: cannot {how} it ({type(e).__name__}: {e})") from None
        if not callable(getattr(obj, "act", None)):
            raise ValueError(f"bot {self}: it has no act(observation, legal_actions) method")
        return obj

    def worker_problem(self, *, dask: bool = False) -> str | None:
        """Why a worker process could not get this bot (None: it pickles, and its class is
        importable there; Dask's cloudpickle sends a class of ``__main__`` by value)."""
        import pickle

        kind = self.target if isinstance(self.target, type) else type(self.target)
        main = sys.modules.get("__main__")
        interactive = getattr(main, "__file__", None) is None
        if kind.__module__ == "__main__" and interactive and not dask:
            return "it is defined in an interactive session, which worker processes cannot import"
        try:
            if dask and kind.__module__ == "__main__":
                import cloudpickle

                cloudpickle.dumps(self)
            else:
                pickle.dumps(self)
        except Exception as e:
            return f"it does not pickle ({type(e).__name__}: {e})"
        return None


def is_bot_object(obj: Any) -> bool:
    """A bot given as an object or class (anything with an ``act`` method), not a name."""
    return isinstance(obj, BotRef) or (not isinstance(obj, str) and hasattr(obj, "act"))


def is_python_bot(name: str) -> bool:
    """A name that runs Python code at a seat: "module.path:Class" or "py-random" (not
    ``search:...``, the C search bot with its parameters), or a bot object (:class:`BotRef`)."""
    if is_bot_object(name):
        return True
    if isinstance(name, str) and search_family(name.strip().lower()):
        return False
    return isinstance(name, str) and (name == PY_RANDOM or bool(_PY_SPEC.fullmatch(name)))


def resolve_bot(name: str) -> str:
    """The versioned name a bot name plays as: ``"expert"`` -> ``"expert-v4"``, a search's with
    every parameter spelled out. Raises ``ValueError`` naming the bot and the known ones when it
    is unknown, or the parameter and its bounds. A Python bot's "module.path:Class" is kept as
    given (it is imported where it plays); a bot object or class becomes a :class:`BotRef`."""
    if is_bot_object(name):
        return name if isinstance(name, BotRef) else BotRef(name)
    if is_python_bot(name):
        return name
    try:
        return bot_spec(name).name
    except KeyError:
        raise ValueError(
            f"unknown bot {name!r}; bots: {', '.join(BOTS)}, or a Python bot module.path:Class"
        ) from None


def resolve_bots(bots: Any) -> tuple[str, str, str, str]:
    """A line-up -> the four resolved names, seat 0 first. One bot (a name, an object or a
    class) plays all four seats; two are the teams (seats 0/2, then 1/3); four are the seats.
    A string may list them comma-separated (``"mine:Bot,expert"``)."""
    if is_bot_object(bots):
        names: tuple[Any, ...] = (bots,)
    elif isinstance(bots, str):
        names = tuple(split_bots(bots)) if "," in bots else (bots,)
    else:
        try:
            names = tuple(bots)
        except TypeError:
            raise ValueError(
                f"bots: a name, a bot object or class, or a list of them, not {bots!r}"
            ) from None
    if len(names) == 1:
        names *= 4
    elif len(names) == 2:  # team 0 (seats 0, 2), team 1 (seats 1, 3)
        names = (names[0], names[1], names[0], names[1])
    if len(names) != 4:
        raise ValueError(
            f"bots: one bot (every seat), two (team 0 at seats 0/2, team 1 at seats 1/3) or four "
            f"(one per seat), got {len(names)}"
        )
    return tuple(resolve_bot(n) for n in names)  # type: ignore[return-value]


def is_builtin(name: str) -> bool:
    """A resolved name the C engine plays (test bots excluded)."""
    return bool(search_family(name)) or (name in BOT_INDEX and not name.startswith("_"))


def split_bots(text: str) -> list[str]:
    """A comma-separated line-up, where a ``key=value`` piece continues the previous bot's
    parameters: ``"search:k=8,cands=4,expert"`` -> ``["search:k=8,cands=4", "expert"]``."""
    out: list[str] = []
    for piece in text.split(","):
        part = piece.strip()
        if out and "=" in part and ":" not in part and search_family(out[-1].lower()):
            out[-1] += "," + part
        else:
            out.append(part)
    return out
