"""``fastsheng report`` and ``fastsheng compare``: the standard questions about a run, answered with
honest uncertainty, as an HTML page (tables + embedded PNG plots), CSV tables and a printed
headline.

The package, one concept per module:

* :mod:`~fastsheng.studies.report.columns`: the simulator's columns -> the canonical hands/matches
  tables (:data:`HAND_COLUMNS`, :func:`canonical_hands`).
* :mod:`~fastsheng.studies.report.metrics`: every per-hand metric declared once (name, unit, kind,
  how to compute it, its interval); ``report`` and ``compare`` both use these declarations.
* :mod:`~fastsheng.studies.report.sections` (one run), :mod:`~fastsheng.studies.report.matches`
  (matches mode),
  :mod:`~fastsheng.studies.report.compare` (two runs): the tables, as short functions.
* :mod:`~fastsheng.studies.report.plots`, :mod:`~fastsheng.studies.report.render`: figures, HTML,
  CSV, console.
* :mod:`~fastsheng.studies.report.commands`: the CLI entry points.

Adding a section to the report (e.g. a realism panel from ``fastsheng/studies/realism.py``) is one
function ``section(ctx: Context) -> list[Table | Figure]`` added to
:data:`fastsheng.studies.report.sections.REPORT_SECTIONS`; see
:mod:`fastsheng.studies.report.sections`.

Intervals (see :mod:`fastsheng.studies.stats` and docs/analysis.md): proportions Wilson, means
Student t with a skew check, paired differences paired t, ratios of sums cluster-robust; all 95%.
"""

from __future__ import annotations

from fastsheng.studies.report.columns import (
    HAND_COLUMNS,
    MATCH_COLUMNS,
    canonical_hands,
    canonical_matches,
    resolve_columns,
)
from fastsheng.studies.report.commands import compare_command, report_command, simulate_run
from fastsheng.studies.report.compare import compute_compare, deal_check
from fastsheng.studies.report.metrics import METRICS, Metric
from fastsheng.studies.report.model import Context, Figure, Report, Table
from fastsheng.studies.report.render import display_frame, print_headline, render_html, write_report
from fastsheng.studies.report.runs import Run, load_run
from fastsheng.studies.report.sections import REPORT_SECTIONS
from fastsheng.studies.report.single import compute_report

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
