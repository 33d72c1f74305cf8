"""Is an effect a property of the rules or of the bots? ``--check-bots LINEUP`` replays the
baseline and every variant with another line-up on the first ``--check-n`` deals of the same
seed, and each effect (variant minus baseline) is compared between the two line-ups on those
common deals: the per-hand difference of the two line-ups' differences, with its paired
interval.

Verdicts (``check`` = the other line-up's effect, ``main`` = the sweep's; intervals as the
sweep's, adjusted for the number of variants):

* **flips sign**: both effects' intervals exclude 0, on opposite sides;
* **grows** / **shrinks**: the interval of ``check - main`` excludes 0, away from / towards 0
  (the main effect's interval excludes 0, so its sign is known);
* **changes**: the interval of ``check - main`` excludes 0 but the main effect's covers 0: the
  effect differs between the line-ups, and with no established sign neither "grows" nor
  "shrinks" can be said;
* **holds**: the interval of ``check - main`` covers 0 (no change this n can show).
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = [
    "CHECK_COLUMNS",
    "CHANGES",
    "DEFAULT_CHECK_N",
    "FLIP",
    "VERDICTS",
    "verdict",
    "ROBUSTNESS_TEXT",
    "mark_flips",
]

#: the deals --check-bots replays unless --check-n says (at most the runs' n)
DEFAULT_CHECK_N = 10_000
FLIP = "flips sign"
CHANGES = "changes"
VERDICTS = ("holds", "shrinks", "grows", CHANGES, FLIP)
#: The columns a check adds to an effect table: the check line-up's effect, its change, verdict.
CHECK_COLUMNS = (
    "check_diff",
    "check_diff_lo",
    "check_diff_hi",
    "change",
    "change_lo",
    "change_hi",
    "robustness",
)

ROBUSTNESS_TEXT = (
    "Robustness: the baseline and every variant replayed with {lineup} on the first {n:,} deals "
    "of the same seed; check_diff is the effect under {lineup}, change = check_diff - diff on "
    "those common deals (paired over the deals, the same adjusted level). Verdicts: flips sign "
    "(both intervals exclude 0 on opposite sides), grows / shrinks (the change excludes 0, away "
    "from / towards 0, and the main effect's interval excludes 0), changes (the change excludes "
    "0 but the main effect's sign is not established), holds (the change covers 0)."
)


def verdict(
    main: tuple[float, float, float],
    check: tuple[float, float, float],
    change: tuple[float, float, float],
) -> str:
    """The verdict of one effect from ``(estimate, lo, hi)`` of the main effect, the check
    line-up's effect and their difference ``check - main``."""
    m, mlo, mhi = main
    _, clo, chi = check
    d, dlo, dhi = change
    if (mlo > 0 and chi < 0) or (mhi < 0 and clo > 0):
        return FLIP
    if dlo <= 0 <= dhi or not (dlo == dlo and dhi == dhi):  # covers 0 (or NaN: nothing differs)
        return "holds"
    if mlo <= 0 <= mhi or not (mlo == mlo and mhi == mhi):
        return CHANGES  # the main effect's sign is not established: no direction to grow in
    return "grows" if (d > 0) == (m > 0) else "shrinks"


_FLIP_CELL = re.compile(r"<td>flips sign</td>")


def mark_flips(index: Path) -> None:
    """A flip is shown in red on the page."""
    text = index.read_text(encoding="utf-8")
    marked = _FLIP_CELL.sub(
        '<td class="flip" style="color:#c00;font-weight:700">flips sign</td>', text
    )
    if marked != text:
        index.write_text(marked, encoding="utf-8")
