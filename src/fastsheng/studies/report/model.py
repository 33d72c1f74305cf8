"""What a report is made of: tables (the numbers, as data frames), figures (PNG bytes) and the
page's header (title, subtitle, conventions, an optional notice). Computing builds these;
:mod:`fastsheng.studies.report.render` turns them into HTML, CSV and the printed headline."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["Table", "Figure", "Report", "Context", "Section", "lineup_text"]


def lineup_text(bots) -> str:
    """The bots of a run as run.json records them (versioned names), said once:
    ``expert-v4 at all four seats``, ``expert-v4 (seats 0/2) vs basic-v1 (seats 1/3)``, or
    seat by seat."""
    b = [str(x) for x in (bots or [])]
    if len(b) != 4:
        return ", ".join(b) or "?"
    if len(set(b)) == 1:
        return f"{b[0]} at all four seats"
    if b[0] == b[2] and b[1] == b[3]:
        return f"{b[0]} (seats 0/2) vs {b[1]} (seats 1/3)"
    return ", ".join(f"seat {s} {x}" for s, x in enumerate(b))


@dataclass
class Table:
    """One result table. ``df`` is what goes to CSV; in HTML every triple of columns ``X``,
    ``X_lo``, ``X_hi`` is shown as one cell ``X [lo, hi]`` with as many decimals as keep the
    interval visible; columns in ``percent`` (and rows whose ``unit`` is ``share``) are shown as
    percentages."""

    name: str
    title: str
    df: pd.DataFrame
    note: str = ""
    percent: tuple[str, ...] = ()
    digits: int | None = None  # fixed decimals for plain numbers (None: automatic)
    collapsed: bool = False  # long tables: folded in the HTML (<details>), complete in the CSV
    show: tuple[str, ...] = ()  # columns shown in HTML / console (default: all); CSV has all
    console: tuple[str, ...] = ()  # columns printed by the command (default: ``show``)
    bots: str = ""  # who played the hands behind it, when not the report's ``bots`` (compare's A)
    # the level said in an interval column's header, when not "95% CI" (a sweep's simultaneous
    # intervals: {"diff": "simultaneous 95%"})
    ci_labels: dict[str, str] = field(default_factory=dict)


@dataclass
class Figure:
    name: str
    title: str
    png: bytes
    note: str = ""
    section: str = ""  # the table it is shown under (default: at the end)


@dataclass
class Report:
    title: str
    subtitle: str
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    headline: str = "headline"
    meta: dict[str, Any] = field(default_factory=dict)
    conventions: list[str] = field(default_factory=list)  # how to read the numbers (page top)
    notice: str | None = None  # e.g. "incomplete: 3 of 10 batches": on every output
    # the bots behind every figure (versioned names, as run.json records them): next to each
    # table and plot in the HTML, under the console headline, and a ``bots`` column in each CSV
    bots: str = ""

    def name_bots(self) -> None:
        """Give every table a ``bots`` column (its own ``bots``, else the report's): the CSV is
        read without the page, so each row says who played."""
        for t in self.tables:
            who = t.bots or self.bots
            if who and "bots" not in t.df.columns:
                t.df = t.df.assign(bots=who)

    def table(self, name: str) -> Table:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)

    def add(self, items: Iterable[Table | Figure]) -> None:
        for item in items:
            (self.tables if isinstance(item, Table) else self.figures).append(item)


@dataclass
class Context:
    """What a section of the one-run report sees: the canonical hands (and matches) table, the
    run's manifest and rules, and whether to draw figures."""

    hands: pd.DataFrame
    manifest: dict[str, Any]
    rules: Any = None
    matches: pd.DataFrame | None = None
    figures: bool = True

    @property
    def n(self) -> int:
        return len(self.hands)

    @property
    def cluster(self) -> str | None:
        """The column of independent clusters of hands: ``match_id`` in matches mode (the hands
        of a match are dependent), else None (hands are independent)."""
        if self.manifest.get("mode") == "matches" and "match_id" in self.hands:
            return "match_id"
        return None

    def has(self, *columns: str) -> bool:
        return all(c in self.hands for c in columns)


# A section: Context -> the tables and figures it adds (none when its columns are missing).
Section = Callable[[Context], Iterable[Table | Figure]]
