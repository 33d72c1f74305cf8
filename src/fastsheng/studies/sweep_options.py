"""The sweep's options that the command line checks, before anything is played: the mode, n,
``--precision``, ``--check-bots`` and ``--check-n`` (each refusal one line, a
:class:`~fastsheng.studies.variants.SweepError`)."""

from __future__ import annotations

import numbers
from typing import Any

from fastsheng.studies.robustness import DEFAULT_CHECK_N
from fastsheng.studies.variants import SweepError, check_bot_names

__all__ = ["check_mode", "check_numbers", "check_size"]


def check_mode(mode: str) -> None:
    """A sweep pairs hands one to one: hands mode only (matches diverge after their hand 1)."""
    from fastsheng.sim.runner import MODES

    if mode not in MODES:
        raise SweepError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    if mode != "hands":
        raise SweepError(
            "sweep pairs hands one to one, which holds in hands mode only; compare two "
            "matches-mode runs with fastsheng compare RUN_A RUN_B"
        )


def check_numbers(
    bots: list, check_bots: str | None, n: Any, precision: Any, check_n: Any = None
) -> int:
    """n (returned as an int), --precision, --check-bots and --check-n, checked before anything
    is played."""
    if check_n is not None and check_bots is None:
        raise SweepError(
            "--check-n sets how many deals --check-bots replays: give --check-bots too"
        )
    if check_bots is not None and len(bots) > 1:
        raise SweepError(
            "mixed modes: --check-bots replays rule variants with another line-up; this sweep "
            "varies the line-up itself"
        )
    if check_bots is not None:
        check_bot_names([check_bots], "--check-bots")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise SweepError(f"n must be a positive whole number, not {n!r}")
    if precision is not None and not (isinstance(precision, int | float) and precision > 0):
        raise SweepError(f"--precision must be a positive half-width, not {precision!r}")
    return int(n)


def check_size(check_n: int | None, n_run: int) -> int:
    """The deals --check-bots replays: --check-n (default DEFAULT_CHECK_N), at most the runs' n."""
    check_n = min(DEFAULT_CHECK_N if check_n is None else check_n, n_run)
    if check_n < 2:
        raise SweepError(f"--check-n must be at least 2, not {check_n}")
    return check_n
