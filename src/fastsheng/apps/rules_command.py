"""``fastsheng rules list|show``: the presets in a table, and every switch of one rule set with
its value and the passage of the rule document it comes from."""

from __future__ import annotations

import unicodedata
from typing import Any

__all__ = ["presets_text", "rules_text"]


def presets_text() -> str:
    """One line per preset: its name, the rule document it comes from, what sets it apart."""
    from fastsheng import rules as rules_mod

    labels = getattr(rules_mod, "PRESET_LABELS", {})
    summaries = getattr(rules_mod, "PRESET_SUMMARIES", {})
    names = rules_mod.list_presets()
    width = max(len(n) for n in names)
    lwidth = max(_display_width(labels.get(n, "")) for n in names)
    lines = []
    for name in names:
        label = labels.get(name, "")
        pad = " " * (lwidth - _display_width(label))
        lines.append(f"{name:<{width}}  {label}{pad}  {summaries.get(name, '')}".rstrip())
    return "\n".join(lines)


def _display_width(text: str) -> int:
    """Terminal columns of a text: CJK characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def rules_text(spec: str) -> str:
    """Every switch of the preset or rules file ``spec``, its value and where it comes from."""
    from fastsheng.rules import describe_rules, rules_from_spec

    r = rules_from_spec(spec)
    rows = describe_rules(r)
    width = max(len(f) for f, _, _ in rows)
    vwidth = max(len(_fmt_value(v)) for _, v, _ in rows)
    lines = [f"rules {r.name}"]
    for field, value, source in rows:
        lines.append(f"  {field:<{width}}  {_fmt_value(value):<{vwidth}}  {source}")
    return "\n".join(lines)


def _fmt_value(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value)) or "-"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
