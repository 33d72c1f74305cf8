"""The data-valued switches of ``Rules`` (docs/rules.md §6, §7, §11): level table, kitty
multiplier and throw penalty, each either a preset name or plain data.

* ``level_table``: a name of ``LEVEL_TABLES``, or a dict in one of two forms
  (missing keys take the defaults shown)::

      {"threshold": 80, "step": 40}                      # the take-over line, the band width
      {"bands": [[0, "dealer", 3], [1, "dealer", 2], ...], "step": 0}

  Both become a ``LevelTable`` (bands + step); a table equal to a named one becomes its name.
* ``kitty_multiplier``: a name of ``KITTY_MULTIPLIERS``, or
  ``{"single": 2, "pair": 4, "tractor": [6, 8, ...]}`` (the multipliers of tractors of 2, 3, …
  pairs; longer tractors take the last value). Becomes a ``KittyMultiplier`` or its name.
* ``throw_penalty``: a form name, or ``{"form": "per_card", "points": 10}``, which sets
  ``throw_penalty`` and ``throw_penalty_points`` together.

Every check raises ``RulesError`` with one line naming the field, the value and what is allowed.
The C core receives the resolved data (``level_core_fields``, ``kitty_core_fields``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastsheng.errors import RulesError

__all__ = [
    "LevelTable",
    "KittyMultiplier",
    "LEVEL_TABLES",
    "KITTY_MULTIPLIERS",
    "THROW_PENALTY_FORMS",
    "MAX_BANDS",
    "MAX_TRACTOR",
    "threshold_table",
    "check_level_table",
    "check_kitty_multiplier",
    "check_throw_penalty",
    "level_table_data",
    "kitty_multiplier_data",
    "table_value",
    "level_core_fields",
    "kitty_core_fields",
]

MAX_BANDS = 24  # room in the C struct rules_t (_core.pxd LT_MAX_BANDS)
MAX_TRACTOR = 12  # pairs in the longest tractor a 25-card hand can lead
_SIDES = ("dealer", "defenders")
_MAX_TOTAL = 10_000  # far above any defenders' total (200 points + the kitty's bonus)
_MAX_LEVELS = 99
_MAX_MULT = 10_000  # powers reaches 2**13 for a tractor of 12 pairs


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class LevelTable:
    """Defenders' total -> (side, levels) as data (docs/rules.md §11).

    ``bands``: ``(lowest total, side, levels)`` rows, lowest totals strictly increasing from 0; a
    total falls in the last row whose lowest total it reaches. ``step``: past the last row (a
    defenders' row) the defenders gain one more level per ``step`` points; 0: no more.
    """

    bands: tuple[tuple[int, str, int], ...]
    step: int = 0

    def outcome(self, total: int) -> tuple[str, int]:
        """The row's (side, levels) for a total >= 0, before any ``defender_cap``."""
        low, side, n = next(b for b in reversed(self.bands) if b[0] <= total)
        if self.step and low == self.bands[-1][0]:
            n += (total - low) // self.step
        return side, n

    def threshold_form(self) -> tuple[int, int] | None:
        """``(threshold, step)`` when this is the table ``threshold_table`` makes, else None."""
        takeover = [b[0] for b in self.bands if b[1] == "defenders"]
        if not takeover or self.step <= 0:
            return None
        threshold = takeover[0]
        try:
            same = threshold_table(threshold, self.step) == self
        except RulesError:
            return None
        return (threshold, self.step) if same else None

    def to_value(self) -> dict[str, Any]:
        """The plain (JSON / TOML) form: the threshold form when the table is one."""
        form = self.threshold_form()
        if form is not None:
            return {"threshold": form[0], "step": form[1]}
        return {"bands": [list(b) for b in self.bands], "step": self.step}

    def __str__(self) -> str:
        return _inline(self.to_value())


@dataclass(frozen=True)
class KittyMultiplier:
    """The kitty multiplier of a last lead's decisive unit (docs/rules.md §6) as data.

    ``tractor[i]``: the multiplier of a tractor of i + 2 pairs, for 2 .. ``MAX_TRACTOR`` pairs.
    """

    single: int
    pair: int
    tractor: tuple[int, ...]

    def to_value(self) -> dict[str, Any]:
        """The plain form; trailing repeats of the tractor list are dropped (they are implied)."""
        tractor = list(self.tractor)
        while len(tractor) > 1 and tractor[-1] == tractor[-2]:
            tractor.pop()
        return {"single": self.single, "pair": self.pair, "tractor": tractor}

    def __str__(self) -> str:
        return _inline(self.to_value())


def _inline(value: Mapping[str, Any]) -> str:
    """A TOML inline table, as a rules file would write it."""

    def one(v: Any) -> str:
        if isinstance(v, str):
            return f'"{v}"'
        if isinstance(v, list | tuple):
            return "[" + ", ".join(one(x) for x in v) + "]"
        return str(v)

    return "{" + ", ".join(f"{k} = {one(v)}" for k, v in value.items()) + "}"


def threshold_table(threshold: int = 80, step: int = 40) -> LevelTable:
    """The level table of a take-over line and a band width (docs/rules.md §11).

    For 0 < total < threshold the dealer side gains ceil((threshold - total) / step) levels; at
    total 0 (大光) one more than at total 1; from the threshold the defenders take over and gain
    (total - threshold) // step levels. ``threshold_table(80, 40)`` is ``standard``.
    """
    for key, value in (("threshold", threshold), ("step", step)):
        if not _is_int(value) or not 1 <= value <= _MAX_TOTAL:
            raise RulesError(
                f"level_table {key} = {value!r} is not valid; expected an integer 1..{_MAX_TOTAL}"
            )
    deepest = -(-(threshold - 1) // step)  # the dealer's levels at total 1
    bands: list[tuple[int, str, int]] = [(0, "dealer", deepest + 1)]
    for n in range(deepest, 0, -1):  # band n: totals from max(1, threshold - n * step)
        bands.append((max(1, threshold - n * step), "dealer", n))
    bands += [(threshold, "defenders", 0), (threshold + step, "defenders", 1)]
    if len(bands) > MAX_BANDS:
        raise RulesError(
            f"level_table {{threshold = {threshold}, step = {step}}} makes {len(bands)} bands; "
            f"at most {MAX_BANDS} (use a wider step)"
        )
    return LevelTable(tuple(bands), step)


LEVEL_TABLES: dict[str, LevelTable] = {
    "standard": threshold_table(80, 40),
    "super": LevelTable(
        (
            (0, "dealer", 6),
            (1, "dealer", 5),
            (15, "dealer", 4),
            (25, "dealer", 3),
            (35, "dealer", 2),
            (40, "dealer", 1),
            (80, "defenders", 0),
            (120, "defenders", 1),
            (125, "defenders", 2),
            (165, "defenders", 3),
            (205, "defenders", 4),
            (245, "defenders", 5),
            (285, "defenders", 6),
        ),
        0,
    ),
    "twenty": LevelTable(
        (
            (0, "dealer", 4),
            (1, "dealer", 3),
            (30, "dealer", 2),
            (55, "dealer", 1),
            (80, "defenders", 0),
            (100, "defenders", 1),
        ),
        20,
    ),
}
"""The named level tables (docs/rules.md §11), in the order of the §7 list."""


def _plus(first: int, per_pair: int) -> tuple[int, ...]:
    return tuple(first + per_pair * (k - 2) for k in range(2, MAX_TRACTOR + 1))


KITTY_MULTIPLIERS: dict[str, KittyMultiplier] = {
    "plus_two": KittyMultiplier(2, 4, _plus(6, 2)),
    "linear": KittyMultiplier(2, 4, _plus(8, 4)),
    "powers": KittyMultiplier(2, 4, tuple(2 ** (k + 1) for k in range(2, MAX_TRACTOR + 1))),
    "cards": KittyMultiplier(1, 2, _plus(4, 2)),
}
"""The named kitty multipliers (docs/rules.md §6), in the order of the §7 list."""

THROW_PENALTY_FORMS: tuple[str, ...] = ("per_card", "none", "flat", "half_stake")
_THROW_PENALTY_DEFAULTS = {"form": "per_card", "points": 10}
_POINTS_RANGE = (0, 200)  # as rules.INT_FIELDS["throw_penalty_points"]


def _keys(field: str, value: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    bad = [k for k in value if k not in allowed]
    if bad:
        raise RulesError(f"{field} has an unknown key {bad[0]!r}; keys: {', '.join(allowed)}")


def _names(table: Mapping[str, Any]) -> str:
    return ", ".join(map(repr, table))


def _bad(field: str, value: Any, table: Mapping[str, Any], form: str) -> RulesError:
    return RulesError(
        f"{field} = {value!r} is not valid; expected one of {_names(table)} or {form}"
    )


def _check_bands(raw: Any) -> tuple[tuple[int, str, int], ...]:
    if isinstance(raw, str) or not isinstance(raw, list | tuple) or not raw:
        raise RulesError(
            f"level_table bands = {raw!r} is not valid; expected a list of "
            '[lowest total, "dealer" or "defenders", levels] rows'
        )
    if len(raw) > MAX_BANDS:
        raise RulesError(f"level_table has {len(raw)} bands; at most {MAX_BANDS}")
    bands: list[tuple[int, str, int]] = []
    for row in raw:
        ok = (
            isinstance(row, list | tuple)
            and len(row) == 3
            and _is_int(row[0])
            and 0 <= row[0] <= _MAX_TOTAL
            and row[1] in _SIDES
            and _is_int(row[2])
            and 0 <= row[2] <= _MAX_LEVELS
        )
        if not ok:
            raise RulesError(
                f"level_table band {row!r} is not valid; expected [lowest total 0..{_MAX_TOTAL}, "
                f'"dealer" or "defenders", levels 0..{_MAX_LEVELS}]'
            )
        if bands and row[0] <= bands[-1][0]:
            raise RulesError(
                f"level_table band {list(row)!r} starts at {row[0]}, not above the band before "
                f"it ({bands[-1][0]}); lowest totals must increase"
            )
        if bands and bands[-1][1] == "defenders" and row[1] == "dealer":
            raise RulesError(
                f"level_table band {list(row)!r} is a dealer band above a defenders band; a "
                "higher total never helps the dealer side"
            )
        bands.append((row[0], row[1], row[2]))
    if bands[0][0] != 0:
        raise RulesError(f"level_table's first band starts at {bands[0][0]}; it must start at 0")
    return tuple(bands)


def check_level_table(value: Any) -> str | LevelTable:
    """The normalised ``level_table``: a name of ``LEVEL_TABLES`` (also for a table equal to
    one), else a ``LevelTable``."""
    if isinstance(value, str):
        if value in LEVEL_TABLES:
            return value
        raise _bad("level_table", value, LEVEL_TABLES, "a table {threshold = 80, step = 40}")
    if isinstance(value, LevelTable):
        table = LevelTable(_check_bands(value.bands), value.step)
        step = value.step
    elif isinstance(value, Mapping):
        _keys("level_table", value, ("threshold", "step", "bands"))
        if "bands" in value:
            if "threshold" in value:
                raise RulesError(
                    "level_table sets both threshold and bands; give one form (docs/rules.md §11)"
                )
            step = value.get("step", 0)
            table = LevelTable(_check_bands(value["bands"]), step)
        else:
            table = threshold_table(value.get("threshold", 80), value.get("step", 40))
            step = table.step
    else:
        raise _bad("level_table", value, LEVEL_TABLES, "a table {threshold = 80, step = 40}")
    if not _is_int(step) or not 0 <= step <= _MAX_TOTAL:
        raise RulesError(
            f"level_table step = {step!r} is not valid; expected an integer 0..{_MAX_TOTAL} "
            "(0: no levels past the last band)"
        )
    if step and table.bands[-1][1] != "defenders":
        raise RulesError(
            f"level_table step = {step} needs a defenders band last (the step adds the "
            "defenders' levels past it)"
        )
    return _named(table, LEVEL_TABLES)


def check_kitty_multiplier(value: Any) -> str | KittyMultiplier:
    """The normalised ``kitty_multiplier``: a name of ``KITTY_MULTIPLIERS`` (also for data
    equal to one), else a ``KittyMultiplier``."""
    form = "a table {single = 2, pair = 4, tractor = [6, 8, 10]}"
    if isinstance(value, str):
        if value in KITTY_MULTIPLIERS:
            return value
        raise _bad("kitty_multiplier", value, KITTY_MULTIPLIERS, form)
    if isinstance(value, KittyMultiplier):
        value = {"single": value.single, "pair": value.pair, "tractor": list(value.tractor)}
    if not isinstance(value, Mapping):
        raise _bad("kitty_multiplier", value, KITTY_MULTIPLIERS, form)
    _keys("kitty_multiplier", value, ("single", "pair", "tractor"))
    base = KITTY_MULTIPLIERS["plus_two"]
    single, pair = value.get("single", base.single), value.get("pair", base.pair)
    for key, m in (("single", single), ("pair", pair)):
        if not _is_int(m) or not 0 <= m <= _MAX_MULT:
            raise RulesError(
                f"kitty_multiplier {key} = {m!r} is not valid; expected an integer 0..{_MAX_MULT}"
            )
    tractor = value.get("tractor", list(base.tractor))
    ok = (
        isinstance(tractor, list | tuple)
        and 1 <= len(tractor) <= MAX_TRACTOR - 1
        and all(_is_int(m) and 0 <= m <= _MAX_MULT for m in tractor)
    )
    if not ok:
        raise RulesError(
            f"kitty_multiplier tractor = {tractor!r} is not valid; expected a list of 1.."
            f"{MAX_TRACTOR - 1} integers 0..{_MAX_MULT} (tractors of 2, 3, ... pairs)"
        )
    full = tuple(tractor) + (tractor[-1],) * (MAX_TRACTOR - 1 - len(tractor))
    return _named(KittyMultiplier(single, pair, full), KITTY_MULTIPLIERS)


def check_throw_penalty(value: Any) -> tuple[str, int | None]:
    """``(form, points)`` of a ``throw_penalty`` value: a form name (points None: the
    ``throw_penalty_points`` field stands) or a dict ``{form, points}`` (defaults per_card, 10)."""
    if isinstance(value, str):
        if value in THROW_PENALTY_FORMS:
            return value, None
    elif isinstance(value, Mapping):
        _keys("throw_penalty", value, ("form", "points"))
        form = value.get("form", _THROW_PENALTY_DEFAULTS["form"])
        points = value.get("points", _THROW_PENALTY_DEFAULTS["points"])
        if form not in THROW_PENALTY_FORMS:
            raise RulesError(
                f"throw_penalty form = {form!r} is not valid; expected one of "
                f"{', '.join(map(repr, THROW_PENALTY_FORMS))}"
            )
        lo, hi = _POINTS_RANGE
        if not _is_int(points) or not lo <= points <= hi:
            raise RulesError(
                f"throw_penalty points = {points!r} is not valid; expected an integer {lo}..{hi}"
            )
        return form, points
    raise RulesError(
        f"throw_penalty = {value!r} is not valid; expected one of "
        f'{", ".join(map(repr, THROW_PENALTY_FORMS))} or a table {{form = "per_card", '
        "points = 10}"
    )


def _named(data: Any, named: Mapping[str, Any]) -> Any:
    for name, table in named.items():
        if table == data:
            return name
    return data


def level_table_data(value: str | LevelTable) -> LevelTable:
    """The ``LevelTable`` of a normalised ``level_table`` value."""
    return LEVEL_TABLES[value] if isinstance(value, str) else value


def kitty_multiplier_data(value: str | KittyMultiplier) -> KittyMultiplier:
    """The ``KittyMultiplier`` of a normalised ``kitty_multiplier`` value."""
    return KITTY_MULTIPLIERS[value] if isinstance(value, str) else value


def table_value(value: Any) -> Any:
    """A normalised value as plain JSON / TOML data (names stay names)."""
    return value.to_value() if isinstance(value, LevelTable | KittyMultiplier) else value


def level_core_fields(value: str | LevelTable) -> dict[str, Any]:
    """The level-table fields of the C struct ``rules_t``: arrays padded to ``MAX_BANDS``."""
    table = level_table_data(value)
    pad = [0] * (MAX_BANDS - len(table.bands))
    return {
        "lt_nbands": len(table.bands),
        "lt_low": [b[0] for b in table.bands] + pad,
        "lt_side": [_SIDES.index(b[1]) for b in table.bands] + pad,
        "lt_levels": [b[2] for b in table.bands] + pad,
        "lt_step": table.step,
    }


def kitty_core_fields(value: str | KittyMultiplier) -> dict[str, Any]:
    """The kitty-multiplier fields of ``rules_t``: ``km_tractor[k]`` for k pairs, 0..12."""
    m = kitty_multiplier_data(value)
    return {
        "km_single": m.single,
        "km_pair": m.pair,
        "km_tractor": [0, 0, *m.tractor],
    }
