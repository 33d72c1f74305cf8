"""What a report is made of: tables (the numbers, as data frames), figures (PNG bytes) and the
page's header (title, subtitle, conventions, an optional notice). Computing builds these;
:mod:`fastsheng.report.render` turns them into HTML, CSV and the printed headline."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["Table", "Figure", "Report", "Context", "Section"]


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
