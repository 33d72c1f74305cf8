"""The sweep's console: each run's progress line on stderr, and on stdout the summary (the
headline table, the flips of ``--check-bots``, the files written)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from fastsheng.studies.effects import Check
from fastsheng.studies.report.model import Report
from fastsheng.studies.report.render import print_headline
from fastsheng.studies.robustness import FLIP

__all__ = ["print_summary", "progress", "flip_lines"]


def print_summary(rep: Report, index: Path, check: Check | None, console: Any) -> None:
    """The headline table, every flip of the check line-up (or none) and the files written."""
    print_headline(rep, console)
    for line in flip_lines(rep, check):
        _say(console, line)
    _say(console, f"wrote {index} and {len(rep.tables)} CSV tables")


def _say(console: Any, text: str) -> None:
    if console is not None:
        console.print(text, markup=False, highlight=False)
    else:
        print(text, flush=True)


def progress(console: Any, text: str) -> None:
    """A run's progress line: on stderr, as ``sim`` shows its progress (stdout keeps the
    summary)."""
    if console is not None and getattr(console, "stderr", False):
        console.print(text, markup=False, highlight=False)
    else:
        print(text, file=sys.stderr, flush=True)


def flip_lines(rep: Report, check: Check | None) -> list[str]:
    """The console summary of the check line-up: every effect that flips sign, or none."""
    if check is None:
        return []
    out = []
    for t in rep.tables:
        if not t.name.startswith("metric_") or "robustness" not in t.df:
            continue
        for _, r in t.df[t.df["robustness"] == FLIP].iterrows():
            out.append(
                f"FLIPS SIGN with {check.lineup}: {r['variant']}, {r['key']}: {r['diff']:+.4g} "
                f"[{r['diff_lo']:+.4g}, {r['diff_hi']:+.4g}] vs {r['check_diff']:+.4g} "
                f"[{r['check_diff_lo']:+.4g}, {r['check_diff_hi']:+.4g}]"
            )
    return out or [f"no effect flips sign with {check.lineup} (first {check.n:,} deals)"]
