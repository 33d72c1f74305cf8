"""The rules configuration: one field per switch of docs/rules.md §7, and the presets of §8.

``Rules`` is a frozen dataclass; its defaults are the ``standard`` preset. Every value is checked
when a ``Rules`` is made (``RulesError`` names the field, the value and what is allowed): choices
are the strings listed in §7, ranks are strings ``"2"``..``"A"``, ``must_play`` a tuple of ranks,
``suit_order`` a permutation of ``"SHCD"`` (strongest first), ``defender_cap`` / ``hand_cap`` an int
or ``None``.

Presets: ``list_presets()``, ``get_rules(name)``; ``describe_rules(rules)`` gives every switch
with the seed passage behind it (``PRESET_SOURCES``). Their data (values and passages) is
``fastsheng.presets``; this module turns it into ``Rules``.

Three switches are data (``fastsheng.tables``, docs/rules.md §6, §7, §11): ``level_table`` and
``kitty_multiplier`` take a preset name or a dict (normalised to the name when equal to a named
table, else a ``LevelTable`` / ``KittyMultiplier``); ``throw_penalty`` takes a form or a dict
``{form, points}`` that sets ``throw_penalty_points`` too. Missing keys take documented defaults,
so ``rules.replace(level_table={"threshold": 70})`` is a rules set.

Rules files (``load_rules(path)``) are TOML with every key at the **top level**; only the three
data switches may be tables::

    # my_rules.toml
    preset = "super"          # the preset to start from (default "standard")
    name = "super, no 炒底"    # optional; default: the file's name
    overcall_after_burial = "no"
    must_play = ["J", "A"]
    defender_cap = 5          # "none" for no cap (TOML has no null)
    level_table = { threshold = 70, step = 40 }

Errors name the file, the line and the field. ``rules_from_spec(spec)`` takes a preset name or
the path of a ``.toml`` file (what the command line accepts).

The Cython core receives ``Rules.core_fields()``: the fields of the C struct ``rules_t``
(``_core.pxd``) as ints: bools 0/1, a choice as the index of its value in ``CHOICES[field]``
(the §7 order, which never changes), ranks 0..12, ``suit_strength`` and ``must_play_mask`` packed,
``None`` caps as 0; the level table and kitty multiplier as their arrays (lists of ints).
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from fastsheng import presets, tables
from fastsheng.cards import RANKS, SUITS, rank_index
from fastsheng.errors import RulesError
from fastsheng.tables import (
    KITTY_MULTIPLIERS,
    LEVEL_TABLES,
    THROW_PENALTY_FORMS,
    KittyMultiplier,
    LevelTable,
)

__all__ = [
    "Rules",
    "CHOICES",
    "TABLE_FIELDS",
    "BOOL_FIELDS",
    "INT_FIELDS",
    "OPTIONAL_INT_FIELDS",
    "RANK_FIELDS",
    "FIELDS",
    "CORE_FIELDS",
    "FIELD_DOCS",
    "PRESETS",
    "PRESET_SOURCES",
    "PRESET_LABELS",
    "PRESET_SUMMARIES",
    "get_rules",
    "list_presets",
    "load_rules",
    "rules_from_spec",
    "describe_rules",
]

# The value lists of docs/rules.md §7, in order: the core receives the index.
CHOICES: dict[str, tuple[str, ...]] = {
    "overcall_ladder": ("pair_over_single", "strict", "ordered", "first_pair", "jokers_over_pairs"),
    "joker_pairs": ("ladder", "after_pair", "never"),
    "bj_over_sj": ("always", "hand1", "never"),
    "reinforce": ("final", "raises", "jokers_only"),
    "self_overcall": ("never", "after_other"),
    "hand1_dealer": ("final", "first", "random"),
    "overcall_after_burial": ("no", "yes", "if_declared"),
    "no_declaration": (
        "kitty1",
        "kitty3",
        "kitty3_skip_jokers",
        "no_trump",
        "flip_level",
        "random_kitty",
    ),
    "declaring_closes": ("kitty", "deal"),
    "overcall_bonus": ("none", "level", "stake"),
    "tractor_chain": ("full", "limited"),
    "throw_follow": ("shape", "suit"),
    "void_fill": ("any", "trump_first"),
    "overtrump_throw": ("decisive", "every"),
    "throw_penalty": THROW_PENALTY_FORMS,
    "throw_kitty": ("at_least_3", "largest", "pair_4"),
    "cap_tie": ("dealer", "draw"),
}

# The data-valued switches (fastsheng.tables): a preset name of these, or data.
TABLE_FIELDS: dict[str, tuple[str, ...]] = {
    "kitty_multiplier": tuple(KITTY_MULTIPLIERS),
    "level_table": tuple(LEVEL_TABLES),
}

BOOL_FIELDS: tuple[str, ...] = (
    "hand1_pairs_over_pairs",
    "hand1_joker_pairs",
    "hand1_overcalls",
    "declare_needs_joker",
    "hand1_single_joker",
    "kitty_trump_final",
    "nt_level_tractor",
    "partner_no_trump_after_failed_throw",
)
INT_FIELDS: dict[str, tuple[int, int]] = {"throw_penalty_points": (0, 200)}  # inclusive range
OPTIONAL_INT_FIELDS: dict[str, tuple[int, int]] = {
    "defender_cap": (1, 12),
    "hand_cap": (1, 100_000),
}
RANK_FIELDS: tuple[str, ...] = ("start_rank", "end_rank")

# The fields of the C struct rules_t in src/fastsheng/_core.pxd, in order.
CORE_FIELDS: tuple[str, ...] = (
    "overcall_ladder",
    "suit_strength",
    "hand1_pairs_over_pairs",
    "joker_pairs",
    "hand1_joker_pairs",
    "bj_over_sj",
    "reinforce",
    "self_overcall",
    "hand1_overcalls",
    "hand1_dealer",
    "overcall_after_burial",
    "declare_needs_joker",
    "hand1_single_joker",
    "no_declaration",
    "kitty_trump_final",
    "declaring_closes",
    "overcall_bonus",
    "tractor_chain",
    "nt_level_tractor",
    "throw_follow",
    "void_fill",
    "overtrump_throw",
    "partner_no_trump_after_failed_throw",
    "throw_penalty",
    "throw_penalty_points",
    "km_single",
    "km_pair",
    "km_tractor",
    "throw_kitty",
    "lt_nbands",
    "lt_low",
    "lt_side",
    "lt_levels",
    "lt_step",
    "defender_cap",
    "start_rank",
    "end_rank",
    "must_play_mask",
    "hand_cap",
    "cap_tie",
)

# One line per switch (docs/rules.md §7), shown by `fastsheng rules show`.
FIELD_DOCS: dict[str, str] = {
    "overcall_ladder": "which overcalls beat which (docs/rules.md §9)",
    "suit_order": "suit ranking of the ladders, strongest first",
    "hand1_pairs_over_pairs": "in hand 1 suit pairs also overcall suit pairs in suit_order",
    "joker_pairs": "joker pairs overcall as the ladder says / only over a pair / never",
    "hand1_joker_pairs": "joker pairs may be shown in hand 1",
    "bj_over_sj": "a BJ pair may overcall an SJ pair: always / in hand 1 only / never",
    "reinforce": "after reinforcing: nobody overcalls / only higher calls / only joker pairs",
    "self_overcall": "a seat may overcall its own call: never / once another seat has overcalled",
    "hand1_overcalls": "overcalls are allowed in hand 1",
    "hand1_dealer": "hand-1 dealer: the final caller / the first declarer / a random seat",
    "overcall_after_burial": "炒底 after hand 1: no / yes / only when trump was declared",
    "declare_needs_joker": "a call needs a joker of the suit's colour (BJ for H/D, SJ for S/C)",
    "hand1_single_joker": "in hand 1 a single joker declares no trump (and cannot overcall)",
    "no_declaration": "trump of a later hand nobody called (docs/rules.md §10)",
    "kitty_trump_final": "trump set from the kitty can no longer be overcalled",
    "declaring_closes": "calls close when the dealer takes the kitty / with the last card dealt",
    "overcall_bonus": "each overcall: nothing / +1 level to the winning side / doubles the stake",
    "tractor_chain": "full trump chain / level chain limited to 主级-SJ-BJ",
    "nt_level_tractor": "in no trump an L pair and the SJ pair are adjacent",
    "throw_follow": "following a throw: by shape (docs/rules.md §5) / by suit only",
    "void_fill": "a short follower fills with any cards / with trumps first",
    "overtrump_throw": "overtrumping a throw: its decisive unit / every unit must be higher",
    "partner_no_trump_after_failed_throw": "after the dealer side's failed throw the dealer's "
    "partner cannot win by trumping",
    "throw_penalty": "failed-throw penalty: points per card / none / flat points / half the stake "
    "(or a table {form, points})",
    "throw_penalty_points": "points of the failed-throw penalty (per card or flat)",
    "kitty_multiplier": "kitty multiplier of the last trick's lead: a preset or a table "
    "{single, pair, tractor} (docs/rules.md §6)",
    "throw_kitty": "kitty multiplier of a thrown last lead",
    "level_table": "defenders' total -> levels: a preset or a table {threshold, step} / "
    "{bands, step} (docs/rules.md §11)",
    "defender_cap": "most levels the defenders gain in one hand (None: no cap)",
    "start_rank": "rank both teams start at",
    "end_rank": "rank a team must win as the dealer side to win the match",
    "must_play": "ranks a team cannot skip: it stops there until it wins a hand there as dealer",
    "hand_cap": "hands per match before the tie rule decides (None: no cap)",
    "cap_tie": "at the cap with equal levels: the dealer side wins / a draw",
    "name": "preset or file name",
}


def _canon_rank(field: str, value: Any) -> str:
    if isinstance(value, str):
        text = value.strip()
        try:  # a rules file may also write an ace as "1"
            return RANKS[rank_index("A" if text == "1" else text)]
        except ValueError:
            pass
    raise RulesError(
        f"{field} = {value!r} is not a rank; expected one of {', '.join(map(repr, RANKS))}"
    )


def _check_field(field: str, value: Any) -> Any:
    """The normalised value of one field, or RulesError naming the field, value and choices."""
    if field == "level_table":
        return tables.check_level_table(value)
    if field == "kitty_multiplier":
        return tables.check_kitty_multiplier(value)
    if field == "throw_penalty":
        form, points = tables.check_throw_penalty(value)
        return form if points is None else {"form": form, "points": points}
    if field in CHOICES:
        if isinstance(value, str) and value in CHOICES[field]:
            return value
        raise RulesError(
            f"{field} = {value!r} is not valid; expected one of "
            f"{', '.join(map(repr, CHOICES[field]))}"
        )
    if field in BOOL_FIELDS:
        if isinstance(value, bool):
            return value
        raise RulesError(f"{field} = {value!r} is not valid; expected true or false")
    if field in INT_FIELDS or field in OPTIONAL_INT_FIELDS:
        optional = field in OPTIONAL_INT_FIELDS
        lo, hi = OPTIONAL_INT_FIELDS[field] if optional else INT_FIELDS[field]
        if optional and (value is None or (isinstance(value, str) and value.lower() == "none")):
            return None
        if isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi:
            return value
        allowed = f"an integer {lo}..{hi}" + (' or None ("none" in a file)' if optional else "")
        raise RulesError(f"{field} = {value!r} is not valid; expected {allowed}")
    if field in RANK_FIELDS:
        return _canon_rank(field, value)
    if field == "must_play":
        if isinstance(value, str) or not isinstance(value, list | tuple | set | frozenset):
            raise RulesError(
                f"must_play = {value!r} is not valid; expected a list of ranks such as "
                f'["J", "A"] (each one of {", ".join(RANKS)})'
            )
        ranks = {_canon_rank("must_play", v) for v in value}
        return tuple(sorted(ranks, key=RANKS.index))
    if field == "suit_order":
        if isinstance(value, str) and sorted(value.strip().upper()) == sorted(SUITS):
            return value.strip().upper()
        raise RulesError(
            f"suit_order = {value!r} is not valid; expected a permutation of 'SHCD' "
            "(strongest first), e.g. 'SHDC'"
        )
    if field == "name":
        if isinstance(value, str) and value.strip():
            return value
        raise RulesError(f"name = {value!r} is not valid; expected a non-empty string")
    raise RulesError(f"unknown field {field!r}; fields: {', '.join(FIELDS)}")


@dataclass(frozen=True)
class Rules:
    """A complete rules configuration: one field per switch of docs/rules.md §7.

    The defaults are the ``standard`` preset (001 竞赛规则). Field meanings: ``FIELD_DOCS``;
    allowed values: ``CHOICES`` (and the module docstring).
    """

    # --- declaring and overcalling (§9) ---
    overcall_ladder: str = "pair_over_single"
    suit_order: str = "SHCD"
    hand1_pairs_over_pairs: bool = True
    joker_pairs: str = "ladder"
    hand1_joker_pairs: bool = False
    bj_over_sj: str = "never"
    reinforce: str = "final"
    self_overcall: str = "never"
    hand1_overcalls: bool = True
    hand1_dealer: str = "final"
    overcall_after_burial: str = "no"
    declare_needs_joker: bool = False
    hand1_single_joker: bool = False
    no_declaration: str = "kitty1"
    kitty_trump_final: bool = False
    declaring_closes: str = "kitty"
    overcall_bonus: str = "none"
    # --- play (§3–§6) ---
    tractor_chain: str = "full"
    nt_level_tractor: bool = True
    throw_follow: str = "shape"
    void_fill: str = "any"
    overtrump_throw: str = "decisive"
    partner_no_trump_after_failed_throw: bool = True
    throw_penalty: str = "per_card"  # a {form, points} table sets throw_penalty_points too
    throw_penalty_points: int = 10
    kitty_multiplier: str | KittyMultiplier = "plus_two"
    throw_kitty: str = "at_least_3"
    # --- levels and the match (§11) ---
    level_table: str | LevelTable = "standard"
    defender_cap: int | None = None
    start_rank: str = "2"
    end_rank: str = "A"
    must_play: tuple[str, ...] = ("2", "J", "A")
    hand_cap: int | None = None
    cap_tie: str = "dealer"
    # --- not a switch ---
    name: str = "standard"

    def __post_init__(self) -> None:
        if isinstance(self.throw_penalty, Mapping):  # the table form sets both fields
            form, points = tables.check_throw_penalty(self.throw_penalty)
            object.__setattr__(self, "throw_penalty", form)
            object.__setattr__(self, "throw_penalty_points", points)
        for f in dataclasses.fields(self):
            value = _check_field(f.name, getattr(self, f.name))
            object.__setattr__(self, f.name, value)
        if RANKS.index(self.start_rank) > RANKS.index(self.end_rank):
            raise RulesError(
                f"start_rank = {self.start_rank!r} is above end_rank = {self.end_rank!r}; "
                "start_rank must not be higher than end_rank"
            )

    # --- conversions ---------------------------------------------------------------------
    @cached_property
    def _core(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        data = {
            **tables.level_core_fields(self.level_table),
            **tables.kitty_core_fields(self.kitty_multiplier),
        }
        for field in CORE_FIELDS:
            if field in data:
                out[field] = data[field]
            elif field == "suit_strength":
                packed = 0
                for s, suit in enumerate(SUITS):
                    packed |= (3 - self.suit_order.index(suit)) << (2 * s)
                out[field] = packed
            elif field == "must_play_mask":
                out[field] = sum(1 << RANKS.index(r) for r in self.must_play)
            elif field in CHOICES:
                out[field] = CHOICES[field].index(getattr(self, field))
            elif field in BOOL_FIELDS:
                out[field] = int(getattr(self, field))
            elif field in RANK_FIELDS:
                out[field] = RANKS.index(getattr(self, field))
            elif field in OPTIONAL_INT_FIELDS:
                value = getattr(self, field)
                out[field] = 0 if value is None else value
            else:
                out[field] = getattr(self, field)
        return out

    def core_fields(self) -> dict[str, Any]:
        """The fields of the C struct ``rules_t`` (``CORE_FIELDS``): ints, and lists of ints for
        the tables' arrays (a fresh dict; fresh lists)."""
        return {k: list(v) if isinstance(v, list) else v for k, v in self._core.items()}

    def replace(self, **overrides: Any) -> Rules:
        """A copy with some fields changed (validated like the constructor)."""
        unknown = [k for k in overrides if k not in FIELDS]
        if unknown:
            raise RulesError(f"unknown field {unknown[0]!r}; fields: {', '.join(FIELDS)}")
        return dataclasses.replace(self, **overrides)

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain JSON types (``must_play`` a list, a data table a dict), for
        manifests."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = tables.table_value(getattr(self, f.name))
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Inverse of ``to_dict`` (missing fields take the standard defaults)."""
        unknown = [k for k in data if k not in FIELDS]
        if unknown:
            raise RulesError(f"unknown field {unknown[0]!r}; fields: {', '.join(FIELDS)}")
        return cls(**dict(data))


FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules))
SWITCHES: tuple[str, ...] = tuple(f for f in FIELDS if f != "name")

# ---------------------------------------------------------------------------------------------
# Presets (docs/rules.md §8): their data is fastsheng.presets; here they become Rules.

PRESET_LABELS: dict[str, str] = presets.LABELS
#: What sets each preset apart, in one line (the table of docs/rules.md §8; `rules list`).
PRESET_SUMMARIES: dict[str, str] = presets.SUMMARIES


def _build_presets() -> tuple[dict[str, Rules], dict[str, dict[str, str]]]:
    built: dict[str, Rules] = {}
    sources: dict[str, dict[str, str]] = {}
    for name, spec in presets.SPECS.items():
        values: dict[str, Any] = {}
        src: dict[str, str] = {}
        for field in SWITCHES:
            if field in spec:
                values[field], src[field] = spec[field]
            elif field in presets.USUAL:
                values[field] = presets.USUAL[field]
                src[field] = f"(reading) {PRESET_LABELS[name]} is silent; the usual value"
            else:  # every preset must set the others itself
                raise AssertionError(f"preset {name} does not set {field}")
        built[name] = Rules(**values, name=name)
        sources[name] = src
    return built, sources


PRESETS, PRESET_SOURCES = _build_presets()


def list_presets() -> list[str]:
    """The preset names, in the order of docs/rules.md §8."""
    return list(PRESETS)


def get_rules(name: str) -> Rules:
    """The preset ``name``; RulesError listing the presets when there is none."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in PRESETS:
        raise RulesError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
    return PRESETS[key]


# ---------------------------------------------------------------------------------------------
# Rules files


def _key_line(lines: list[str], key: str) -> int | None:
    """1-based line where top-level ``key`` is assigned (or opens a table), None if not found."""
    k = re.escape(key)
    assign = re.compile(rf"""^\s*(?:{k}|"{k}"|'{k}')\s*[=.]""")
    table = re.compile(rf"""^\s*\[\[?\s*(?:{k}|"{k}"|'{k}')\s*[\].]""")
    for i, line in enumerate(lines, 1):
        if assign.match(line) or table.match(line):
            return i
    return None


_DATA_KEYS = (*TABLE_FIELDS, "throw_penalty")  # the fields a rules file may give as a table


def load_rules(path: str | Path) -> Rules:
    """Rules from a TOML file: ``preset = "..."`` (default standard) plus top-level overrides.

    Errors (RulesError) name the file and line: TOML syntax errors keep tomllib's line and
    column; an unknown field, a bad value or an unknown preset give the line of the key.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise RulesError(f"cannot read rules file {str(p)!r}: {e.strerror or e}") from e
    try:  # a UTF-8 byte order mark (Windows editors write one) is accepted and dropped
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise RulesError(
            f"{p}: not a text file (byte {e.start} is not UTF-8); a rules file is UTF-8 TOML"
        ) from None
    if "\x00" in text:
        raise RulesError(f"{p}: not a text file (it holds NUL bytes); a rules file is UTF-8 TOML")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RulesError(f"{p}: TOML syntax error: {e}") from e
    lines = text.splitlines()

    def where(key: str) -> str:
        line = _key_line(lines, key)
        return f"{p}:{line}" if line is not None else str(p)

    preset = data.pop("preset", "standard")
    if not isinstance(preset, str) or preset.strip().lower() not in PRESETS:
        raise RulesError(
            f"{where('preset')}: unknown preset {preset!r}; presets: {', '.join(PRESETS)}"
        )
    base = PRESETS[preset.strip().lower()]
    overrides: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict) and key not in _DATA_KEYS:
            raise RulesError(
                f"{where(key)}: tables are not supported ([{key}]); write every field at the "
                f"top level (only {', '.join(_DATA_KEYS)} take a table)"
            )
        if key not in FIELDS:
            raise RulesError(f"{where(key)}: unknown field {key!r}; fields: {', '.join(FIELDS)}")
        try:
            overrides[key] = _check_field(key, value)
        except RulesError as e:
            raise RulesError(f"{where(key)}: {e}") from None
    if isinstance(data.get("throw_penalty"), dict) and "throw_penalty_points" in data:
        raise RulesError(
            f"{where('throw_penalty_points')}: throw_penalty_points is set twice (also as "
            "throw_penalty's points); set it in one place"
        )
    overrides.setdefault("name", p.name)
    try:
        return base.replace(**overrides)
    except RulesError as e:  # a cross-field check: point at the field(s) set in the file
        keys = [k for k in ("start_rank", "end_rank") if k in overrides] or ["preset"]
        raise RulesError(f"{where(keys[0])}: {e}") from None


def rules_from_spec(spec: str | Path) -> Rules:
    """A preset name, or the path of a ``.toml`` rules file."""
    if isinstance(spec, str) and spec.strip().lower() in PRESETS:
        return PRESETS[spec.strip().lower()]
    p = Path(spec)
    if p.suffix.lower() == ".toml" or p.is_file():
        if not p.is_file():
            raise RulesError(f"no such rules file: {str(p)!r}")
        return load_rules(p)
    raise RulesError(
        f"unknown preset {str(spec)!r}; presets: {', '.join(PRESETS)} (or the path of a .toml "
        "rules file)"
    )


def describe_rules(rules: Rules) -> list[tuple[str, Any, str]]:
    """``(field, value, source)`` for every switch: the seed passage behind the value.

    The base preset is ``rules.name`` when it is a preset, else the preset sharing the most
    values with ``rules``; a value that differs from the base is marked as set by the user.
    """
    if rules.name in PRESETS:
        base = rules.name
    else:
        base = max(
            PRESETS,
            key=lambda n: sum(getattr(PRESETS[n], f) == getattr(rules, f) for f in SWITCHES),
        )
    out: list[tuple[str, Any, str]] = []
    for field in SWITCHES:
        value = getattr(rules, field)
        if value == getattr(PRESETS[base], field):
            source = PRESET_SOURCES[base][field]
        else:
            source = f"(set by the user; {base}: {getattr(PRESETS[base], field)!r})"
        out.append((field, value, source))
    return out
