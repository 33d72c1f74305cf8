"""The variants of a sweep: a baseline and the rule sets (or bot line-ups) compared with it.

Where variants come from:

* ``--set "switch=value"``: one variant per option; several assignments of one variant are
  separated by ``;`` (``"throw_penalty=flat;throw_penalty_points=20"``). A value is read as a
  TOML literal (``70``, ``true``, ``["J", "A"]``, ``"none"``), else as a bare string. A dotted key
  ``switch.key=value`` sets one key of a data-valued switch (a dict whose missing keys take
  their defaults, e.g. ``level_table.threshold=70``); several dotted keys of one switch merge.
* a TOML file with a ``[grid]`` table: a list of values per switch (dotted keys or nested tables
  for data-valued switches); the variants are the product of the lists.
* presets and rules files (``--variant super``, ``--variant house.toml``).
* bot line-ups (``--bots`` more than once): then the rules are the baseline's for every run.

Every check names the problem in one line (:class:`SweepError`; a bad switch or value is the
:class:`~fastsheng.errors.RulesError` of :class:`~fastsheng.rules.Rules`).
"""

from __future__ import annotations

import difflib
import itertools
import math
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastsheng.errors import FastshengError, RulesError
from fastsheng.rules import FIELDS, Rules, rules_from_spec
from fastsheng.studies.folders import variant_folder

__all__ = [
    "MAX_VARIANTS",
    "SweepError",
    "Variant",
    "parse_value",
    "parse_assignments",
    "apply_settings",
    "grid_settings",
    "load_grid",
    "build_variants",
    "did_you_mean",
    "check_bot_names",
    "table_data",
]

#: A grid larger than this needs ``force=True`` (``--force``): a typo in a list multiplies.
MAX_VARIANTS = 1_000


class SweepError(FastshengError, ValueError):
    """A sweep that cannot be made as asked (the message names the problem)."""


@dataclass(frozen=True)
class Variant:
    """One run of the sweep: its label (also its folder name), its rules and line-up, and the
    settings that make it differ from the baseline (``{"throw_penalty_points": 20}``), used for
    plots against an ordered switch."""

    label: str
    rules: Rules
    bots: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)


def parse_value(text: str) -> Any:
    """A ``--set`` value: a TOML literal (``70``, ``0.5``, ``true``, ``["J", "A"]``,
    ``"x"``), else the text itself as a string (``linear``)."""
    raw = text.strip()
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def parse_assignments(text: str) -> dict[str, Any]:
    """``"a=1;b.c=x"`` -> ``{"a": 1, "b.c": "x"}`` (keys as written, values parsed)."""
    out: dict[str, Any] = {}
    for piece in text.split(";"):
        if not piece.strip():
            continue
        key, eq, value = piece.partition("=")
        key = key.strip()
        if not eq or not key or not value.strip():
            raise SweepError(f"--set {text!r}: expected switch=value (several joined by ';')")
        if key in out:
            raise SweepError(f"--set {text!r}: {key} is set twice")
        out[key] = parse_value(value)
    if not out:
        raise SweepError(f"--set {text!r}: expected switch=value")
    return out


def _nested(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Dotted keys merged into one dict per data-valued switch: ``{"t.a": 1, "t.b": 2}`` ->
    ``{"t": {"a": 1, "b": 2}}``."""
    out: dict[str, Any] = {}
    for key, value in settings.items():
        head, dot, rest = key.partition(".")
        if not dot:
            if isinstance(out.get(head), dict):
                raise SweepError(f"{head} is set both whole and by its keys")
            out[head] = value
            continue
        target = out.setdefault(head, {})
        if not isinstance(target, dict):
            raise SweepError(f"{head} is set both whole and by its keys")
        parts = rest.split(".")
        for p in parts[:-1]:
            target = target.setdefault(p, {})
        target[parts[-1]] = value
    return out


def did_you_mean(
    word: str, choices: Iterable[str], aliases: Mapping[str, str] | None = None
) -> str:
    """``"; did you mean X?"`` (the closest of ``choices``, or an alias's meaning), or ""."""
    key = word.strip().lower().replace("-", "_")
    if aliases and key in aliases:
        return f"; did you mean {aliases[key]}?"
    close = difflib.get_close_matches(word, list(choices), n=2, cutoff=0.6)
    return f"; did you mean {' or '.join(close)}?" if close else ""


#: names a designer may type for a switch that lives elsewhere (docs/rules.md's wording)
_FIELD_ALIASES = {
    "take_over": "level_table.threshold (the take-over line)",
    "takeover": "level_table.threshold (the take-over line)",
    "take_over_line": "level_table.threshold (the take-over line)",
    "threshold": "level_table.threshold (the take-over line)",
    "multiplier": "kitty_multiplier",
}


def table_data(switch: str, value: Any) -> Any:
    """The data of a data-valued switch's value (a named table: ``standard`` -> its threshold and
    the rest), as a plain value; ``value`` itself when it names no table (or rules have none)."""
    try:
        from fastsheng import tables
    except ImportError:  # rules without data-valued switches
        return value
    lookup = {
        "level_table": getattr(tables, "level_table_data", None),
        "kitty_multiplier": getattr(tables, "kitty_multiplier_data", None),
    }.get(switch)
    try:
        value = lookup(value) if lookup is not None else value
    except KeyError:
        return value
    return value.to_value() if hasattr(value, "to_value") else value


def _settable(base: Rules) -> list[str]:
    """The switches, and the keys of the data-valued ones (``level_table.threshold``)."""
    names = [f for f in FIELDS if f != "name"]
    try:
        for switch in ("level_table", "kitty_multiplier"):
            data = table_data(switch, getattr(base, switch, None))
            if isinstance(data, dict):
                names += [f"{switch}.{k}" for k in data]
    except Exception:  # noqa: BLE001 - suggestions only; the switches alone still help
        pass
    return names


def _check_fields(base: Rules, settings: Mapping[str, Any]) -> None:
    """RulesError for an unknown switch, with the closest switch (or data key) instead of the
    list of every field."""
    for key in settings:
        head = key.partition(".")[0]
        if head in FIELDS:
            continue
        hint = did_you_mean(key, _settable(base), _FIELD_ALIASES)
        raise RulesError(
            f"unknown field {head!r}{hint} (fastsheng rules show {base.name} lists every switch)"
        )


def check_bot_names(lineups: Iterable[str | None], option: str = "--bots") -> None:
    """SweepError for an unknown bot name in a line-up, with the closest known name."""
    from fastsheng.bots.names import BOTS, is_python_bot, resolve_bot, split_bots

    for text in lineups:
        if not isinstance(text, str):
            continue
        for name in split_bots(text):
            if not name or is_python_bot(name):
                continue
            try:
                resolve_bot(name.lower())
            except ValueError as exc:
                if "unknown bot" not in str(exc):
                    raise SweepError(str(exc)) from None
                family = name.partition(":")[0]
                hint = did_you_mean(family.lower(), BOTS)
                raise SweepError(
                    f"{option}: unknown bot {name!r}{hint} (fastsheng bots lists them; a Python "
                    "bot is module.path:Class)"
                ) from None


def apply_settings(base: Rules, settings: Mapping[str, Any]) -> Rules:
    """``base`` with ``settings`` applied (validated by :class:`Rules`: an unknown switch or a
    value outside its choices is a one-line RulesError; an unknown switch names the closest)."""
    _check_fields(base, settings)
    overrides = _nested(settings)
    try:
        return base.replace(**overrides)
    except TypeError as e:  # a dataclass that refuses a value's type
        raise RulesError(str(e)) from None


def settings_label(settings: Mapping[str, Any]) -> str:
    return ";".join(f"{k}={_show(v)}" for k, v in settings.items())


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list | tuple):
        return "[" + ",".join(map(_show, v)) + "]"
    return str(v)


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def grid_settings(
    grid: Mapping[str, Any], *, force: bool = False, where: str = "grid"
) -> list[dict[str, Any]]:
    """The product of a ``[grid]`` table's lists, one settings dict per variant (first key
    slowest). More than :data:`MAX_VARIANTS` needs ``force``."""
    flat = _flatten(grid)
    if not flat:
        raise SweepError(f"{where}: the [grid] table is empty")
    for k, v in flat.items():
        if not isinstance(v, list) or not v:
            raise SweepError(f"{where}: {k} must be a non-empty list of values, not {v!r}")
    size = math.prod(len(v) for v in flat.values())
    if size > MAX_VARIANTS and not force:
        raise SweepError(
            f"{where}: the grid makes {size:,} variants, more than {MAX_VARIANTS:,}; "
            "give --force to run it anyway"
        )
    keys = list(flat)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*flat.values())]


def load_grid(path: str | Path) -> dict[str, Any]:
    """The ``[grid]`` table of a TOML file (a missing file or table: SweepError)."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8-sig"))
    except OSError as e:
        raise SweepError(f"cannot read grid file {str(p)!r}: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SweepError(f"{p}: not a valid TOML file: {e}") from None
    grid = data.get("grid")
    if not isinstance(grid, dict):
        raise SweepError(f"{p}: no [grid] table (a list of values per switch)")
    return grid


def _switches(rules: Rules) -> dict[str, Any]:
    return {k: v for k, v in rules.to_dict().items() if k != "name"}


def build_variants(
    baseline: str | Rules = "standard",
    *,
    sets: Sequence[str | Mapping[str, Any]] = (),
    grid: Mapping[str, Any] | str | Path | None = None,
    rules: Sequence[str | Rules] = (),
    bots: Sequence[str] = (),
    force: bool = False,
    notes: list[str] | None = None,
) -> tuple[Variant, list[Variant]]:
    """The baseline and the variants, checked: at least one variant, no variant that plays the
    baseline again, no variant twice, rules and line-ups not mixed, at most
    :data:`MAX_VARIANTS` (without ``force``). A grid's point that is the baseline's own rules
    (``level_table.threshold = [60, 70, 80]`` under ``standard``, whose line is 80) is skipped,
    and said in ``notes``; a --set or --variant that plays the baseline again is a mistake.
    ``bots``: with one line-up, every run's line-up; with several, the variants are line-ups
    (the first is the baseline's)."""
    base_rules = baseline if isinstance(baseline, Rules) else rules_from_spec(baseline)
    bots = list(bots)
    check_bot_names(bots)
    rule_variants: list[Variant] = []
    for s in sets:
        settings = parse_assignments(s) if isinstance(s, str) else dict(s)
        rule_variants.append(_settings_variant(base_rules, settings))
    if grid is not None:
        where = str(grid) if isinstance(grid, str | Path) else "grid"
        table = load_grid(grid) if isinstance(grid, str | Path) else grid
        own = _switches(base_rules)
        for settings in grid_settings(table, force=force, where=where):
            v = _settings_variant(base_rules, settings)
            if _switches(v.rules) == own:
                if notes is not None:
                    notes.append(
                        f"grid: {v.label} is the baseline's own rules ({base_rules.name}); "
                        "skipped (every variant is compared with the baseline)"
                    )
                continue
            rule_variants.append(v)
    for spec in rules:
        r = spec if isinstance(spec, Rules) else rules_from_spec(spec)
        rule_variants.append(Variant(label=r.name, rules=r, settings={}))
    if rule_variants and len(bots) > 1:
        raise SweepError(
            "mixed modes: a sweep varies either the rules (--set, --grid, --variant) or the "
            "line-up (several --bots), not both"
        )
    if len(bots) > 1:
        from fastsheng.sim.runner import lineup_label

        base = Variant(label=lineup_label(bots[0]), rules=base_rules, bots=bots[0])
        variants = [Variant(label=lineup_label(b), rules=base_rules, bots=b) for b in bots[1:]]
        _check_distinct(base, variants, key=lambda v: v.label, what="line-up")
        return base, variants
    lineup = bots[0] if bots else None
    base = Variant(label=f"baseline={base_rules.name}", rules=base_rules, bots=lineup)
    variants = [Variant(v.label, v.rules, lineup, v.settings) for v in rule_variants]
    if not variants:
        raise SweepError("no variants: give --set, --grid, --variant (or several --bots)")
    if len(variants) > MAX_VARIANTS and not force:
        raise SweepError(
            f"{len(variants):,} variants, more than {MAX_VARIANTS:,}; give --force to run them"
        )
    _check_distinct(
        base,
        variants,
        key=lambda v: tuple(sorted(map(str, _switches(v.rules).items()))),
        what="rules",
    )
    labels = [variant_folder(v.label) for v in [base, *variants]]
    if len(set(labels)) != len(labels):
        dup = next(x for x in labels if labels.count(x) > 1)
        raise SweepError(f"two variants share the folder name {dup!r}; give them other names")
    return base, variants


def _settings_variant(base: Rules, settings: dict[str, Any]) -> Variant:
    label = settings_label(settings)
    rules = apply_settings(base, settings).replace(name=f"{base.name}+{label}")
    return Variant(label=label, rules=rules, settings=settings)


def _check_distinct(base: Variant, variants: Iterable[Variant], *, key, what: str) -> None:
    seen = {key(base): base.label}
    for v in variants:
        k = key(v)
        if k in seen:
            other = seen[k]
            if other == base.label:
                raise SweepError(
                    f"variant {v.label!r} plays the same {what} as the baseline "
                    f"({base.label}); a baseline cannot be one of its variants"
                )
            raise SweepError(f"variants {other!r} and {v.label!r} play the same {what}")
        seen[k] = v.label
