"""Typed specifications of the C bots: one frozen dataclass per family, every setting declared once.

A bot name (``expert``, ``learned-v1``, ``search-v3:k=128,infer=10``) parses into a spec, and the
spec formats its canonical name back (what run.json and the ``bots`` column record). Each
setting is a dataclass field declared once with its type, default, bounds and a one-line doc
(:func:`setting`, as OpenSpiel's parameter specifications and scikit-learn's
``_parameter_constraints``); ``__post_init__`` validates it, and :meth:`BotSpec.core_fields`
gives the plain values the C seat receives (``fastsheng/bots/_seat.pxd``). Research settings are
fields too, with their published values as defaults: a name spells them only when changed, so
a published name never changes meaning, and nothing outside the spec decides how a seat plays.

>>> spec = bot_spec("search-v3:k=128,infer=10")
>>> spec.k, spec.infer, spec.close
(128, 10, 20)
>>> spec.name
'search-v3:k=128,cands=8,base=expert-v3,close=20,late=10,early=5,top=3,bury=0,infer=10'
>>> bot_spec("search-v3:k=5000")
Traceback (most recent call last):
ValueError: bot 'search-v3:k=5000': k must be an integer in 1..4096
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any, ClassVar

from fastsheng.bots.catalog import ALIASES, BELIEF_MODELS, BOT_INDEX, CARD_MODELS, LEARNED_MODELS

__all__ = [
    "BotSpec",
    "GuidedSearchSpec",
    "HeuristicSpec",
    "LearnedSpec",
    "SearchSpec",
    "SearchV2Spec",
    "Setting",
    "SPEC_FAMILIES",
    "bot_spec",
    "search_family",
    "setting",
]

# the C seat's search families (fastsheng/bots/_seat.pxd: FAMILY_*)
FAMILY_NONE, FAMILY_SEARCH, FAMILY_V2, FAMILY_V3 = 0, 1, 2, 3
# the row a search-v3 seat's guiding model comes from (its learned bot)
GUIDE = "learned-v1"


@dataclass(frozen=True)
class Setting:
    """One setting of a family, as its field declares it."""

    name: str
    type: type
    default: Any
    doc: str
    lo: float | None = None
    hi: float | None = None
    shown: str = "always"  # "always": in every canonical name; "changed": only when not default
    research: bool = False  # a research setting: not a published parameter

    def check(self, bot: str, value: Any) -> Any:
        """The value as its type, or ValueError naming the field and its bounds."""
        if self.type is str:
            if not isinstance(value, str):
                raise ValueError(f"bot {bot!r}: {self.name} must be a string")
            return value
        if self.type is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
            if isinstance(value, str) and value.isdigit():
                value, ok = int(value), True
            if not ok or not self.lo <= value <= self.hi:
                raise ValueError(
                    f"bot {bot!r}: {self.name} must be an integer in {self.lo}..{self.hi}"
                )
            return value
        try:
            value = float(value)
        except (TypeError, ValueError):
            value = None
        if value is None or not self.lo <= value <= self.hi:
            raise ValueError(f"bot {bot!r}: {self.name} must be a number in {self.lo}..{self.hi}")
        return value

    def text(self, value: Any) -> str:
        return repr(value) if self.type is float else str(value)


def setting(
    default: Any,
    doc: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    shown: str = "always",
    research: bool = False,
) -> Any:
    """A spec field with its one-line doc, its bounds and when a name spells it."""
    meta = {"doc": doc, "lo": lo, "hi": hi, "shown": shown, "research": research}
    return field(default=default, metadata=meta)


def _base_row(bot: str, value: str) -> str:
    """A search's base (or model) bot, resolved: a built-in bot that does not search."""
    base = ALIASES.get(value, value)
    if base.startswith("_") or search_family(base):
        raise ValueError(f"bot {bot!r}: base must be a built-in bot other than search")
    if base not in BOT_INDEX:
        known = ", ".join(
            n for n in (*ALIASES, *BOT_INDEX) if n[0] != "_" and ":" not in ALIASES.get(n, "")
        )
        raise ValueError(f"unknown bot {value!r}; a base is one of {known}")
    return base


@dataclass(frozen=True)
class BotSpec:
    """What every family shares: a canonical name, the row it plays in the C table of bots,
    the C seat's settings and the models it reads."""

    family: ClassVar[str]
    family_code: ClassVar[int] = FAMILY_NONE
    #: the fields that go as they are into the C seat's search_t (core_fields)
    core: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def settings(cls) -> tuple[Setting, ...]:
        """The family's settings, in the order a name spells them."""
        return tuple(
            Setting(
                f.name,
                _TYPES[f.type] if isinstance(f.type, str) else f.type,
                f.default,
                **f.metadata,
            )
            for f in dataclasses.fields(cls)
        )

    def __post_init__(self) -> None:
        bot = getattr(self, "_given", None) or self.family
        for s in self.settings():
            object.__setattr__(self, s.name, s.check(bot, getattr(self, s.name)))
        self._validate(bot)

    def _validate(self, bot: str) -> None:
        """Checks across fields (ValueError naming the bot)."""

    @property
    def name(self) -> str:
        """The canonical name: what the simulator records."""
        raise NotImplementedError

    @property
    def row(self) -> int:
        """The seat's row in the C table of bots (a search's: its base bot's)."""
        raise NotImplementedError

    @property
    def searches(self) -> bool:
        return self.family_code != FAMILY_NONE

    @property
    def needs_learned(self) -> bool:
        """Does the seat read learned-v1's model (its row, its base, its guide)?"""
        return False

    def belief_model(self) -> tuple[str, str | None] | None:
        """The belief its inference reads: (path in the package or a file, SHA-256 to check)."""
        return None

    def cards_model(self) -> tuple[str, str | None] | None:
        """The per-card belief its inference reads, as belief_model."""
        return None

    def core_fields(self) -> dict[str, Any]:
        """The C seat's search settings (fastsheng/bots/_seat.pxd search_t): the defaults of a
        seat that does not search, then the family's code and its fields named in ``core``."""
        out = dict(_CORE_DEFAULTS)
        if self.searches:
            out["family"] = self.family_code
        out.update((f, getattr(self, f)) for f in self.core)
        return out

    def __str__(self) -> str:
        return self.name


# ---------------------------------------------------------------------------------------------
# Families that do not search: a row of the table of bots


@dataclass(frozen=True)
class HeuristicSpec(BotSpec):
    """A heuristic bot of the C table: random, basic-v1, expert-v1 ... expert-v4 (and the test
    bots ``_chaos``, ``_mute``)."""

    family: ClassVar[str] = "heuristic"
    version: str = setting("expert-v4", "its versioned name")

    def _validate(self, bot: str) -> None:
        if self.version not in BOT_INDEX or self.version in LEARNED_MODELS:
            raise ValueError(f"bot {bot!r}: not a heuristic bot")

    @property
    def name(self) -> str:
        return self.version

    @property
    def row(self) -> int:
        return BOT_INDEX[self.version]


@dataclass(frozen=True)
class LearnedSpec(BotSpec):
    """A learned bot: expert-v4 with a small MLP choosing among the search's candidates."""

    family: ClassVar[str] = "learned"
    version: str = setting("learned-v1", "its versioned name")

    def _validate(self, bot: str) -> None:
        if self.version not in LEARNED_MODELS:
            raise ValueError(f"bot {bot!r}: not a learned bot")

    @property
    def name(self) -> str:
        return self.version

    @property
    def row(self) -> int:
        return BOT_INDEX[self.version]

    @property
    def needs_learned(self) -> bool:
        return True


# ---------------------------------------------------------------------------------------------
# The searches


@dataclass(frozen=True)
class _Search(BotSpec):
    """What the searches share: a base bot, whose row plays what the search does not."""

    def _validate(self, bot: str) -> None:
        object.__setattr__(self, "base", _base_row(bot, self.base))

    @property
    def name(self) -> str:
        parts = [
            f"{s.name}={s.text(getattr(self, s.name))}"
            for s in self.settings()
            if s.shown == "always" or getattr(self, s.name) != s.default
        ]
        return f"{self.family}:" + ",".join(parts)

    @property
    def row(self) -> int:
        return BOT_INDEX[self.base]

    @property
    def needs_learned(self) -> bool:
        return self.base in LEARNED_MODELS


def _later(default: Any, doc: str, lo: float, hi: float) -> Any:
    """A search-v3 parameter published after its first names: spelled only when set."""
    return setting(default, doc, lo=lo, hi=hi, shown="changed")


def _research(default: Any, doc: str, lo: float | None = None, hi: float | None = None) -> Any:
    return setting(default, doc, lo=lo, hi=hi, shown="changed", research=True)


@dataclass(frozen=True)
class SearchSpec(_Search):
    """`search` (frozen): every candidate played out over k worlds with the base bot."""

    family: ClassVar[str] = "search"
    family_code: ClassVar[int] = FAMILY_SEARCH
    k: int = setting(32, "worlds each candidate is played out in", lo=1, hi=1024)
    cands: int = setting(8, "candidate plays compared", lo=1, hi=32)
    base: str = setting("expert-v3", "the bot that plays the playouts and what is not searched")
    z: float = _research(1.0, "the gate, in standard errors of the gain", 0, 10)

    core: ClassVar[tuple[str, ...]] = ("k", "cands", "z")


@dataclass(frozen=True)
class SearchV2Spec(_Search):
    """`search-v2`: the candidates raced over consistent worlds."""

    family: ClassVar[str] = "search-v2"
    family_code: ClassVar[int] = FAMILY_V2
    k: int = setting(32, "worlds of a race at most", lo=1, hi=1024)
    cands: int = setting(8, "candidate plays compared", lo=1, hi=32)
    base: str = setting("expert-v3", "the bot that plays the playouts and what is not searched")
    # research settings (their published values)
    k0: int = _research(4, "worlds of the first round", 1, 4096)
    early: int = _research(0, "tricks before this one race k / early_div worlds", 0, 32)
    early_div: int = _research(4, "see early", 1, 64)
    k0_early: int = _research(2, "the first round's worlds before `early`", 1, 4096)
    late: int = _research(99, "tricks from this one race k x late_mul worlds", 0, 99)
    late_mul: int = _research(2, "see late", 1, 64)
    confirm: int = _research(0, "1/confirm of the race's worlds, fresh, confirm the winner", 0, 64)
    consistent: int = _research(1, "worlds honouring every public fact (0: the old sampler)", 0, 1)
    tries: int = _research(64, "rejection tries per world", 1, 4096)
    halve: int = _research(1, "keep the better half of the candidates each round", 0, 1)
    z: float = _research(1.0, "the gate, in standard errors", 0, 10)
    zdrop: float = _research(1.0, "dropped when off course to clear the gate", 0, 10)

    core: ClassVar[tuple[str, ...]] = (
        *("k", "cands", "k0", "early", "early_div", "k0_early", "late", "late_mul", "confirm"),
        *("consistent", "tries", "halve", "z", "zdrop"),
    )


@dataclass(frozen=True)
class GuidedSearchSpec(_Search):
    """`search-v3`: the search guided by learned-v1's model, which ranks the candidates and
    leaves the uncontested decisions to it; its options read the play, the burial and each
    hidden card, and search the burial and the calls."""

    family: ClassVar[str] = "search-v3"
    family_code: ClassVar[int] = FAMILY_V3
    k: int = setting(64, "worlds of a race at most", lo=1, hi=4096)
    cands: int = setting(8, "candidate plays compared", lo=1, hi=32)
    base: str = setting("expert-v3", "the bot that plays the playouts and what is not searched")
    close: int = setting(
        20, "raced when a challenger is predicted within close/100 net levels", lo=0, hi=31
    )
    late: int = setting(10, "every decision with a choice raced from this trick", lo=0, hi=31)
    early: int = setting(5, "none raced before this trick", lo=0, hi=31)
    top: int = setting(3, "challengers raced at most (the best predicted)", lo=1, hi=7)
    bury: int = setting(0, "1: the burial searched too", lo=0, hi=1)
    call: int = _later(0, "1: the calls searched too", 0, 1)
    infer: int = _later(
        0, "reading the play: a misfit's weight in tenths of a natural log (0: off)", 0, 127
    )
    kitty: int = _later(0, "reading the burial: misfits per kitty card (needs infer)", 0, 15)
    belief: int = _later(0, "1: the play read by the shipped learned belief (needs infer)", 0, 1)
    cards: int = _later(0, "1: worlds weighed by the shipped per-card belief (needs infer)", 0, 1)
    gate: int = _later(10, "the race's gate in tenths of a standard error", 1, 10)
    chains: int = _later(1, "independent inference chains a race's worlds come from", 1, 16)
    # research settings (their published values)
    k0: int = _research(4, "worlds of a race's first round", 1, 4096)
    z: float = _research(1.0, "the gate, in standard errors, when gate=10", 0, 10)
    zdrop: float = _research(1.0, "dropped when off course to clear the gate at k worlds", 0, 10)
    maker: int = _research(
        1, "one world dealer per race (0: each world dealt alone, the same)", 0, 1
    )
    steps: int = _research(20, "the chain's steps between two worlds", 1, 100_000)
    burn: int = _research(400, "the chain's steps before its first world", 0, 1_000_000)
    oracle: int = _research(0, "1: every race plays on the real deal (a cheat, analysis)", 0, 1)
    soft: float = _research(0.0, "> 0: a play judged by the learned model's predicted gain", 0, 100)
    model: str = _research("", "the model bot of the reading ('': the base bot)")
    kinds: int = _research(3, "decisions read: 1 leads, 2 follows, 3 both", 0, 3)
    belief_kind: int = _research(0, "the belief's kind (0: the name's; 1, 2: belief_path's)", 0, 2)
    belief_path: str = _research("", "a belief model file (.npz) in place of the shipped one")
    lam: float = _research(0.0, "the per-card belief's power (0: the shipped model's)", 0, 100)
    cards_path: str = _research("", "a per-card model file (.npz) in place of the shipped one")
    play: int = _research(
        1, "0: a burial- or call-searching seat leads and follows as its base", 0, 1
    )
    bury_kmul: int = _research(4, "the burial's worlds: k x bury_kmul", 1, 64)
    bury_maxw: int = _research(128, "the burial's worlds at most", 1, 4096)
    bury_rules: int = _research(1, "the named swaps among the burial's candidates", 0, 1)
    bury_z: float = _research(1.0, "the burial's gate, in standard errors", 0, 10)
    call_kmul: int = _research(1, "a searched call's worlds: k x call_kmul", 1, 64)
    call_maxw: int = _research(32, "a searched call's worlds at most", 1, 4096)
    call_every: int = _research(0, "1: every question searched", 0, 1)
    call_z: float = _research(2.0, "the calls' gate, in standard errors", 0, 10)

    def _validate(self, bot: str) -> None:
        super()._validate(bot)
        for needs in ("kitty", "belief", "cards"):
            if getattr(self, needs) and not self.infer:
                what = {
                    "kitty": "reads the burial through",
                    "belief": "reads the play through",
                    "cards": "weighs the worlds of",
                }[needs]
                raise ValueError(f"bot {bot!r}: {needs} {what} infer's chain: set infer")
        if self.chains != 1 and not self.infer:
            raise ValueError(f"bot {bot!r}: chains are infer's: set infer")
        if self.model:
            object.__setattr__(self, "model", _base_row(bot, self.model))
        if self.lam and not (self.cards or self.cards_path):
            raise ValueError(f"bot {bot!r}: lam weighs a per-card model: set cards or cards_path")

    @property
    def needs_learned(self) -> bool:
        return True  # its guide (and any learned base or model bot: the same model)

    def belief_model(self) -> tuple[str, str | None] | None:
        if self.belief_path:
            return (self.belief_path, None)
        if self.belief:
            return BELIEF_MODELS[self.belief]
        return None

    def cards_model(self) -> tuple[str, str | None] | None:
        if self.cards_path:
            return (self.cards_path, None)
        if self.cards:
            return CARD_MODELS[self.cards][0]
        return None

    core: ClassVar[tuple[str, ...]] = (
        *("k", "cands", "close", "late", "early", "top", "gate", "chains", "k0", "z", "zdrop"),
        *("maker", "steps", "burn", "oracle", "infer", "kitty", "kinds", "soft", "bury", "call"),
        *("play", "bury_kmul", "bury_maxw", "bury_rules", "bury_z"),
        *("call_kmul", "call_maxw", "call_every", "call_z"),
    )

    def core_fields(self) -> dict[str, Any]:
        out = super().core_fields()
        out["guide"] = BOT_INDEX[GUIDE]
        out["model"] = BOT_INDEX[self.model] if self.model else -1
        # the belief's kind: a research kind, else the shipped belief's (the model of deviations)
        out["belief"] = self.belief_kind or (2 if self.belief else 0)
        # the per-card belief's power: a research power, else the shipped model's
        out["lam"] = self.lam or (CARD_MODELS[self.cards][1] if self.cards else 0.0)
        return out


_TYPES = {"int": int, "float": float, "str": str}

# every field of the C search_t, with the value of a seat that does not search
_CORE_DEFAULTS: dict[str, Any] = {
    "family": FAMILY_NONE,
    **dict.fromkeys(("k", "cands", "k0", "early", "late", "early_div", "k0_early"), 0),
    **dict.fromkeys(("late_mul", "confirm", "consistent", "tries", "halve", "close", "top"), 0),
    **dict.fromkeys(("gate", "chains", "maker", "steps", "burn", "oracle", "infer", "kitty"), 0),
    **dict.fromkeys(("belief", "bury", "bury_kmul", "bury_maxw", "bury_rules"), 0),
    "kinds": 3,  # a seat that does not search reads the play (the step API's misfits) plainly
    **dict.fromkeys(("play", "call", "call_kmul", "call_maxw", "call_every"), 0),
    "guide": -1,
    "model": -1,
    **dict.fromkeys(("z", "zdrop", "soft", "lam", "bury_z", "call_z"), 0.0),
}

#: the search families by the name that starts their bot names
SPEC_FAMILIES: dict[str, type[_Search]] = {
    c.family: c for c in (SearchSpec, SearchV2Spec, GuidedSearchSpec)
}


def unalias(key: str) -> str:
    """A name with its short name spelled out: ``expert`` -> ``expert-v4``, and a frozen search
    name with its own parameters after (so they win): ``search-v4:gate=5`` ->
    ``search-v3:k=1024,...,chains=4,gate=5``."""
    head, colon, rest = key.partition(":")
    target = ALIASES.get(head.lower())
    if colon and target and ":" in target:
        return f"{target},{rest}"
    return ALIASES.get(key.lower(), key)


def search_family(key: str) -> str | None:
    """The search family a (lower-cased) name belongs to: ``search``, ``search-v2``, ... or None
    (short names spelled out first)."""
    key = unalias(key)
    for fam in SPEC_FAMILIES:
        if key == fam or key.startswith(fam + ":"):
            return fam
    return None


def _items(key: str, start: int):
    """The comma-separated settings of a name after `start`, with where each begins."""
    at = start
    for piece in key[start:].split(","):
        if piece.strip():
            yield at, piece.strip()
        at += len(piece) + 1


@functools.lru_cache(maxsize=4096)
def bot_spec(name: str) -> BotSpec:
    """The typed specification of a C bot's name (aliases applied, every parameter checked);
    ValueError naming the field and its bounds, or the unknown bot."""
    if not isinstance(name, str):
        raise ValueError(f"a bot name is a string, not {name!r}")
    text = name.strip()
    key = unalias(text)
    fam = search_family(key.lower())
    if fam is None:
        key = key.lower()
        if key in LEARNED_MODELS:
            return LearnedSpec(key)
        if key in BOT_INDEX:
            return HeuristicSpec(key)
        raise KeyError(key)
    cls = SPEC_FAMILIES[fam]
    fields = {s.name: s for s in cls.settings()}
    given: dict[str, str] = {}
    # a short name's own settings come first; the name's may override them, once each
    own = len(key) - len(text.partition(":")[2]) if key != text and ":" in text else len(fam) + 1
    for at, item in _items(key, len(fam) + 1):
        f, eq, value = item.partition("=")
        f = f.strip().lower()
        if not eq or f not in fields:
            published = ", ".join(f"{s}=" for s in fields if not fields[s].research)
            raise ValueError(
                f"bot {name!r}: parameters are {published} (e.g. search:k=32,cands=8), not {item!r}"
            )
        value = value.strip()
        if f in given and at >= own and given.get("\0" + f):
            raise ValueError(f"bot {name!r}: {f} is given twice")
        given[f] = value if f.endswith("_path") else value.lower()
        if at >= own:
            given["\0" + f] = "set"
    given = {f: v for f, v in given.items() if not f.startswith("\0")}
    spec = cls.__new__(cls)
    object.__setattr__(spec, "_given", name)
    for s in fields.values():
        object.__setattr__(spec, s.name, given.get(s.name, s.default))
    spec.__post_init__()
    object.__delattr__(spec, "_given")
    return spec
