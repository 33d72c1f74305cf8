"""Bot names: the public names, their versions, and the one function that resolves them.

A bot that ships is frozen under a versioned name (`basic-v1`, `expert-v1`, ...) and plays the
same hands forever; the unversioned names (`basic`, `expert`) point at the newest version. Every
entry point (the Python API, the CLI, the runner, compare) resolves names with
:func:`resolve_bot`, and what is recorded (run.json, the `bots` column) is the resolved name, so
a published dataset names exactly the bots that played it. Pure Python (no engine import), so
the runner can check names before the engine is built.

``search`` takes parameters in its name (``search:k=32,cands=8``, docs/bots.md); it resolves to
every parameter spelled out, its base bot included (``search:k=32,cands=8,base=expert-v1``).

A Python bot may also be given as an object or a class wherever a name goes: it resolves to a
:class:`BotRef`, a ``str`` (so line-ups, run.json and the ``bots`` column stay strings) named
``module:Class`` that carries the object with it.
"""

from __future__ import annotations

import copy
import re
import sys
from typing import Any

__all__ = [
    "BOTS",
    "ALIASES",
    "BotRef",
    "bot_spec",
    "is_python_bot",
    "resolve_bot",
    "resolve_bots",
    "split_bots",
]

# unversioned name -> the version it plays today; a frozen search name -> the search-v3 setting
# it plays forever (search-v4: the strongest bot on the frontier, docs/bots.md "Four chains");
# a frozen search name takes parameters as search-v3 does, over its own
ALIASES = {
    "basic": "basic-v1",
    "expert": "expert-v4",
    "search-v4": "search-v3:k=1024,close=31,early=0,top=7,infer=10,kitty=5,belief=1,cards=1,"
    "chains=4",
}

# the row of each versioned bot in the C table of bots (ids in fastsheng/_bots.pxd, rows at the
# end of _bots.pyx; docs/bots.md, "How to add a bot version"); `_chaos` leads random
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
    "learned-v1": 8,
}

# the learned bots (fastsheng._learned): name -> its model in fastsheng/models/ and the file's
# SHA-256, checked when bot_spec loads it; retraining makes a new version, never a new file here
LEARNED_MODELS = {
    "learned-v1": (
        "learned-v1.npz",
        "d78c7ed1583dffb7da6e72b349b69c12e3bb42c834acabdc24dcd2d1578ddc6e",
    ),
}

# the search bot: parameters with their defaults and bounds (cands <= _search.MAX_CANDS)
SEARCH = "search"
# (the base stays expert-v3, so `search` plays as in its published figures; base=expert is v4)
SEARCH_DEFAULTS = {"k": 32, "cands": 8, "base": "expert-v3"}
SEARCH_BOUNDS = {"k": (1, 1024), "cands": (1, 32)}
# the searches by version: name -> the version the C search dispatches on (bot_spec packs it
# above the candidates, fastsheng._search.V2_SHIFT); `search` itself is version 0, frozen
SEARCH_VERSIONS = {SEARCH: 0, "search-v2": 1, "search-v3": 2}
_SEARCH_SHIFT = 8
# the searches guided by a learned model (fastsheng._guided_search): family -> the model's bot
GUIDED_SEARCH = {"search-v3": "learned-v1"}
# search-v3's races (docs/bots.md "search-v3"): a decision is raced when a challenger's predicted
# gain is within `close` hundredths of a net level of the reference's, and always from trick
# `late`, never before trick `early`; the best `top` challengers race
# `bury` = 1: the burial searched too (fastsheng._bury_search, docs/bots.md "search-v3: the
# burial"), flagged by bit 12 of the candidates word (BURY_FLAG); 0 by default: it wins about
# +0.009 net levels/hand but halves search-v3's hands/s (target (a) is 10x search:k=32's)
GUIDED_DEFAULTS = {
    **SEARCH_DEFAULTS,
    "k": 64,
    "close": 20,
    "late": 10,
    "early": 5,
    "top": 3,
    "bury": 0,
    "call": 0,
    "infer": 0,
    "kitty": 0,
    "belief": 0,
    "cards": 0,
    "gate": 10,
    "chains": 1,
}
# `call` = 1: the calls searched too (fastsheng._call_search, docs/bots.md "search-v3: the
# calls"), flagged by the sign bit of the candidates word (CALL_FLAG). It came after search-v3's
# names were published, so a resolved name spells it out only when it is 1: every name published
# before resolves to the very same string.
# `infer` = the weight of a misfit in tenths of a natural log (1..127; 0: off): the race's worlds
# come from a chain that weighs each consistent world by exp(-infer / 10) per misfit, a past play
# of another seat its base bot would not have made (fastsheng._infer, docs/bots.md "search-v3:
# reading the play"); it rides above k in the worlds word (INFER_SHIFT) and is spelled out only
# when set, as `call`
# `kitty` = misfits per kitty card (1..15; 0: off) the chain also counts against a world: each
# card of its kitty that the base bot would not have buried from the burier's cards of that
# world (one burial, by another seat; docs/bots.md "search-v3: reading the play"); it reads
# through infer's chain, so it needs infer, and rides above infer (KITTY_SHIFT)
# `belief` = 1: the chain reads each past decision by a learned model of when a player leaves
# the base bot's play (fastsheng._infer, BELIEF_MODELS; docs/bots.md "search-v3: reading the
# play") in place of the 0/1 misfits, -log P per decision; it needs infer (infer=10 takes the
# model's odds as they are) and rides above kitty (BELIEF_SHIFT)
# `cards` = 1: the chain also weighs each world by a learned per-card belief (fastsheng.
# _card_belief, CARD_MODELS; docs/bots.md "A per-card belief"): the product over its hidden
# cards of the model's probability that each lies where the world puts it, to a fixed power;
# it needs infer and rides above belief (CARDS_SHIFT)
# `gate` = the race's gate in tenths of a standard error: a challenger replaces the reference
# when its mean gain over it clears gate/10 standard errors, and is dropped early when off
# course to (docs/bots.md "The race's gate"); 1..7, or the published 10. It rides in bits 13-15
# of the worlds word (GATE_SHIFT; 0 there: 10) and is spelled out only when not 10. The burial's
# and calls' searches keep their own gates
# `chains` = 4: a race's worlds come in turn from 4 independent chains, each burnt in, not from
# one (docs/bots.md "Four chains"): a chain's consecutive worlds are 20 swaps apart and much
# alike, so the race's first rounds (4, 8 worlds), where most challengers are dropped, saw one
# region of the worlds. 1 or 4; it needs infer, rides in bit 30 of the worlds word (CHAINS_SHIFT;
# 0 there: 1) and is spelled out only when 4
LATER_PARAMS = {
    "search-v3": {
        f: GUIDED_DEFAULTS[f]
        for f in ("call", "infer", "kitty", "belief", "cards", "gate", "chains")
    }
}
GATE_SHIFT = 13  # fastsheng._search.GATE_SHIFT
GATE_DEFAULT = 10
GATE_VALUES = (*map(str, range(1, 8)), str(GATE_DEFAULT))  # 3 bits: 1..7, 0 for the default
INFER_SHIFT = 16  # fastsheng._search.INFER_SHIFT
KITTY_SHIFT = 23  # fastsheng._search.KITTY_SHIFT
BELIEF_SHIFT = 27  # fastsheng._search.BELIEF_SHIFT
CARDS_SHIFT = 28  # fastsheng._search.CARDS_SHIFT
CHAINS_SHIFT = 30  # fastsheng._search.CHAINS_SHIFT
CHAINS_VALUES = ("1", "4")  # 1 bit: 0 one chain, 1 four
# the learned beliefs (fastsheng._infer.load_belief): `belief` value -> its model in
# fastsheng/models/ and the file's SHA-256 (analysis/train_belief.py; a retrained one is a new
# value, never a new file here)
BELIEF_MODELS = {
    1: ("belief-v1.npz", "4df93e9d872152cbc79df86df76ec0c7fce319e16957986c9e112d60edbec211"),
}
# the per-card beliefs (fastsheng._card_belief.load): `cards` value -> its model in
# fastsheng/models/, the file's SHA-256 and the power its probabilities weigh the worlds by
# (analysis/train_card_belief.py; a retrained model or another power is a new value)
CARD_MODELS = {
    1: (
        "card-belief-v1.npz",
        "18b29e6494d712af1cd23a93835911964aa31056cde3442841160399780c4c7d",
        0.5,
    ),
}
GUIDED_BOUNDS = {
    "k": (1, 4096),
    "cands": (1, 32),
    "close": (0, 31),
    "late": (0, 31),
    "early": (0, 31),
    "top": (1, 7),
    "bury": (0, 1),
    "call": (0, 1),
    "infer": (0, 127),
    "kitty": (0, 15),
    "belief": (0, 1),
    "cards": (0, 1),
    "gate": (1, 10),
    "chains": (1, 4),
}
# where each of search-v3's parameters rides in the C search's candidates word (bits 0-7 the
# candidates, 8-11 the version, 12 reserved): field -> (shift, width); fastsheng._guided_search
# reads the same layout
GUIDED_BITS = {"close": (13, 5), "late": (18, 5), "early": (23, 5), "top": (28, 3)}
BURY_FLAG = 1 << 12  # fastsheng._game.BURY_FLAG
CALL_FLAG = -(1 << 31)  # the sign bit of the C int (fastsheng._game's searches_calls)
_FAMILY_PARAMS = {
    SEARCH: (SEARCH_DEFAULTS, SEARCH_BOUNDS),
    "search-v2": (SEARCH_DEFAULTS, SEARCH_BOUNDS),
    "search-v3": (GUIDED_DEFAULTS, GUIDED_BOUNDS),
}


def _search_family(key: str) -> str | None:
    """The search name `key` (lower-cased) belongs to: ``search``, ``search-v2`` or None."""
    for fam in SEARCH_VERSIONS:
        if key == fam or key.startswith(fam + ":"):
            return fam
    return None


# the names a user may give (unversioned first, frozen search names last)
BOTS = (
    "random",
    *(a for a in ALIASES if not a.startswith(SEARCH)),
    *(n for n in BOT_INDEX if n not in ("random",) and n[0] != "_"),
    *SEARCH_VERSIONS,
    *(a for a in ALIASES if a.startswith(SEARCH)),
)


def _unalias(key: str) -> str:
    """A lower-cased name with a frozen search name spelled out: ``search-v4:gate=5`` ->
    ``search-v3:k=1024,...,chains=4,gate=5`` (its own parameters after, so they win)."""
    head, colon, rest = key.partition(":")
    if colon and _search_family(ALIASES.get(head, "")):
        return f"{ALIASES[head]},{rest}"
    return ALIASES.get(key, key)


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
    if isinstance(name, str) and _search_family(name.strip().lower()):
        return False
    return isinstance(name, str) and (name == PY_RANDOM or bool(_PY_SPEC.fullmatch(name)))


def resolve_bot(name: str) -> str:
    """The versioned name a bot name plays as: ``"expert"`` -> ``"expert-v4"``. Raises
    ``ValueError`` naming the bot and the known ones when it is unknown. A Python bot's
    "module.path:Class" is kept as given (it is imported where it plays); a bot object or class
    becomes a :class:`BotRef`."""
    if is_bot_object(name):
        return name if isinstance(name, BotRef) else BotRef(name)
    if is_python_bot(name):
        return name
    key = name.strip().lower() if isinstance(name, str) else name
    if isinstance(key, str) and _search_family(_unalias(key)):
        return _resolve_search(name, _unalias(key))
    key = ALIASES.get(key, key)
    if key not in BOT_INDEX:
        raise ValueError(
            f"unknown bot {name!r}; bots: {', '.join(BOTS)}, or a Python bot module.path:Class"
        )
    return key


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


def _resolve_search(name: str, key: str) -> str:
    """``search[:k=..,cands=..,base=..]`` (or ``search-v2[:...]``) with every parameter spelled
    out, the base resolved."""
    fam = _search_family(key) or SEARCH
    defaults, bounds = _FAMILY_PARAMS[fam]
    params = dict(defaults)
    body = key[len(fam) + 1 :]
    for item in filter(None, (p.strip() for p in body.split(","))):
        field, eq, value = item.partition("=")
        field, value = field.strip(), value.strip()
        if not eq or field not in defaults:
            raise ValueError(
                f"bot {name!r}: parameters are {', '.join(f'{k}=' for k in defaults)}"
                f" (e.g. search:k=32,cands=8), not {item!r}"
            )
        params[field] = value
    for field, (lo, hi) in bounds.items():
        value = str(params[field])
        if field == "gate" and value not in GATE_VALUES:
            raise ValueError(f"bot {name!r}: gate must be 1..7 or 10 (tenths of a standard error)")
        if field == "chains" and value not in CHAINS_VALUES:
            raise ValueError(f"bot {name!r}: chains must be 1 or 4 (a race's inference chains)")
        if not value.isdigit() or not lo <= int(value) <= hi:
            raise ValueError(f"bot {name!r}: {field} must be an integer in {lo}..{hi}")
        params[field] = int(value)
    base = resolve_bot(str(params["base"]))
    if _search_family(base) or base.startswith("_"):
        raise ValueError(f"bot {name!r}: base must be a built-in bot other than search")
    params["base"] = base
    if params.get("kitty") and not params.get("infer"):
        raise ValueError(f"bot {name!r}: kitty reads the burial through infer's chain: set infer")
    if params.get("belief") and not params.get("infer"):
        raise ValueError(f"bot {name!r}: belief reads the play through infer's chain: set infer")
    if params.get("cards") and not params.get("infer"):
        raise ValueError(f"bot {name!r}: cards weighs the worlds of infer's chain: set infer")
    if params.get("chains", 1) != 1 and not params.get("infer"):
        raise ValueError(f"bot {name!r}: chains are infer's: set infer")
    later = LATER_PARAMS.get(fam, {})
    return f"{fam}:" + ",".join(
        f"{field}={params[field]}"
        for field in defaults
        if field not in later or params[field] != later[field]
    )


def bot_spec(resolved: str) -> tuple[int, int, int]:
    """A resolved name -> (C index of the bot that plays its seat, search worlds k, search
    candidates): k = cands = 0 for a bot that does not search."""
    fam = _search_family(resolved)
    if fam and fam != resolved:
        fields = dict(p.split("=", 1) for p in resolved[len(fam) + 1 :].split(","))
        cands = int(fields["cands"]) | SEARCH_VERSIONS[fam] << _SEARCH_SHIFT
        if fam in GUIDED_SEARCH:
            for field, (shift, _) in GUIDED_BITS.items():
                cands |= int(fields[field]) << shift
            _load_guided(GUIDED_SEARCH[fam])
            if fields.get("bury") == "1":
                from fastsheng import _bury_search  # noqa: F401  (registers the burial hook)

                cands |= BURY_FLAG
            if fields.get("call") == "1":
                from fastsheng import _call_search  # noqa: F401  (registers the calls' hook)

                cands |= CALL_FLAG
        k = (
            int(fields["k"])
            | int(fields.get("infer", 0)) << INFER_SHIFT
            | int(fields.get("kitty", 0)) << KITTY_SHIFT
            | int(fields.get("belief", 0)) << BELIEF_SHIFT
            | int(fields.get("cards", 0)) << CARDS_SHIFT
            | int(fields.get("gate", GATE_DEFAULT)) % GATE_DEFAULT << GATE_SHIFT
            | (fields.get("chains", "1") == "4") << CHAINS_SHIFT
        )
        if int(fields.get("belief", 0)):
            _load_belief(int(fields["belief"]))
        if int(fields.get("cards", 0)):
            _load_cards(int(fields["cards"]))
        return BOT_INDEX[fields["base"]], k, cands
    if resolved in LEARNED_MODELS:
        _load_learned(resolved)
    return BOT_INDEX[resolved], 0, 0


def _load_learned(name: str) -> None:
    """Load a learned bot's model into the C core (once per process; its hash checked)."""
    from importlib.resources import files

    from fastsheng import _learned

    file, sha256 = LEARNED_MODELS[name]
    _learned.load(str(files("fastsheng") / "models" / file), sha256)


def _load_belief(value: int) -> None:
    """Load a learned belief into the C core (once per process; its hash checked)."""
    from importlib.resources import files

    from fastsheng import _infer

    file, sha256 = BELIEF_MODELS[value]
    _infer.load_belief(str(files("fastsheng") / "models" / file), sha256)


def _load_cards(value: int) -> None:
    """Load a per-card belief into the C core (once per process; its hash checked)."""
    from importlib.resources import files

    from fastsheng import _card_belief

    file, sha256, lam = CARD_MODELS[value]
    _card_belief.load(value, str(files("fastsheng") / "models" / file), sha256, lam)


def _load_guided(model_bot: str) -> None:
    """Register the guided search with the game loop and load the model that guides it."""
    from fastsheng import _guided_search  # noqa: F401  (registers its search hook)

    _load_learned(model_bot)


def is_builtin(name: str) -> bool:
    """A resolved name the C engine plays (test bots excluded)."""
    return bool(_search_family(name)) or (name in BOT_INDEX and not name.startswith("_"))


def split_bots(text: str) -> list[str]:
    """A comma-separated line-up, where a ``key=value`` piece continues the previous bot's
    parameters: ``"search:k=8,cands=4,expert"`` -> ``["search:k=8,cands=4", "expert"]``."""
    out: list[str] = []
    for piece in text.split(","):
        part = piece.strip()
        if out and "=" in part and ":" not in part and _search_family(_unalias(out[-1].lower())):
            out[-1] += "," + part
        else:
            out.append(part)
    return out
