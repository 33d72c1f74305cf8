"""``fastsheng report`` and ``fastsheng compare``: the standard questions about a run, answered with
honest uncertainty, as an HTML page (tables + embedded PNG plots), CSV tables and a printed
headline.

The package, one concept per module:

* :mod:`~fastsheng.report.columns`: the simulator's columns -> the canonical hands/matches tables
  (:data:`HAND_COLUMNS`, :func:`canonical_hands`).
* :mod:`~fastsheng.report.metrics`: every per-hand metric declared once (name, unit, kind, how to
  compute it, its interval); ``report`` and ``compare`` both use these declarations.
* :mod:`~fastsheng.report.sections` (one run), :mod:`~fastsheng.report.matches` (matches mode),
  :mod:`~fastsheng.report.compare` (two runs): the tables, as short functions.
* :mod:`~fastsheng.report.plots`, :mod:`~fastsheng.report.render`: figures, HTML, CSV, console.
* :mod:`~fastsheng.report.commands`: the CLI entry points.

Adding a section to the report (e.g. a realism panel from ``fastsheng/realism.py``) is one
function ``section(ctx: Context) -> list[Table | Figure]`` added to
:data:`fastsheng.report.sections.REPORT_SECTIONS`; see :mod:`fastsheng.report.sections`.

Intervals (see :mod:`fastsheng.stats` and docs/analysis.md): proportions Wilson, means Student t
with a skew check, paired differences paired t, ratios of sums cluster-robust; all 95%.
"""

from __future__ import annotations

from fastsheng.report.columns import (
    HAND_COLUMNS,
    MATCH_COLUMNS,
    canonical_hands,
    canonical_matches,
    resolve_columns,
)
from fastsheng.report.commands import compare_command, report_command, simulate_run
from fastsheng.report.compare import compute_compare, deal_check
from fastsheng.report.metrics import METRICS, Metric
from fastsheng.report.model import Context, Figure, Report, Table
from fastsheng.report.render import display_frame, print_headline, render_html, write_report
from fastsheng.report.runs import Run, load_run
from fastsheng.report.sections import REPORT_SECTIONS
from fastsheng.report.single import compute_report

__all__ = [
    "HAND_COLUMNS",
    "MATCH_COLUMNS",
    "METRICS",
    "REPORT_SECTIONS",
    "Context",
    "Figure",
    "Metric",
    "Report",
    "Run",
    "Table",
    "canonical_hands",
    "canonical_matches",
    "compare_command",
    "compute_compare",
    "compute_report",
    "deal_check",
    "display_frame",
    "load_run",
    "print_headline",
    "render_html",
    "report_command",
    "resolve_columns",
    "simulate_run",
    "write_report",
]
