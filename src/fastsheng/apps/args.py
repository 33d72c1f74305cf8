"""The text of the options several commands share, parsed: bots, batch size, workers,
precision, and the options of the studies (compare, sweep). A mistake is a UserError naming the
option (one line, exit code 2)."""

from __future__ import annotations

import math
from typing import Any

from fastsheng.cards import parse_level
from fastsheng.sim.counts import UserError, parse_count
from fastsheng.sim.limits import MAX_BATCH_SIZE, MAX_N

__all__ = [
    "MAX_WORKERS",
    "check_workers",
    "parse_batch_size",
    "parse_bots",
    "parse_isolation",
    "parse_precision",
    "study_options",
]

_MAX_BATCH = max(MAX_BATCH_SIZE.values())  # the mode's own maximum is checked by RunSpec
#: More local workers than this is a typo (each is a process holding a batch in memory).
MAX_WORKERS = 1024


def parse_bots(text: str) -> tuple[str, str, str, str]:
    """``"expert"`` (all four seats), ``"mine:Bot,expert"`` (the teams: seats 0/2, 1/3) or
    ``"expert,basic,expert,basic"`` (seat 0 first)."""
    from fastsheng.bots.names import is_python_bot, split_bots
    from fastsheng.sim.runner import check_bots

    # a Python bot's module:Class keeps its case; built-in names are case-insensitive
    names = [b.strip() if is_python_bot(b.strip()) else b.strip().lower() for b in split_bots(text)]
    if len(names) not in (1, 2, 4) or not all(names):
        raise UserError(
            f"--bots takes one bot name, two (team 0 at seats 0/2, team 1 at seats 1/3) or four "
            f"(one per seat), not {text!r}"
        )
    try:  # the names only: the run makes the Python bots, isolated or not, once it knows which
        return check_bots(names, imports=False)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def parse_isolation(isolate, timeout, memory, on_error) -> dict[str, Any]:
    """``--isolate/--no-isolate``, ``--bot-timeout``, ``--bot-memory``, ``--on-bot-error`` as
    ``{"isolate": bool | None, "bot_limits": BotLimits | None}`` (None: not given)."""
    from fastsheng.engine.isolation import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT, BotLimits

    if timeout is None and memory is None and on_error is None:
        return {"isolate": isolate, "bot_limits": None}
    try:
        seconds = DEFAULT_TIMEOUT if timeout is None else float(timeout)
    except ValueError:
        raise UserError(f"--bot-timeout takes seconds such as 5 or 0.5, not {timeout!r}") from None
    mb = DEFAULT_MEMORY_MB if memory is None else parse_count(memory, "--bot-memory", minimum=64)
    try:
        limits = BotLimits(seconds, mb, on_error)
    except ValueError as exc:
        raise UserError(f"{exc} (--bot-timeout, --bot-memory, --on-bot-error)") from None
    return {"isolate": isolate, "bot_limits": limits}


def parse_batch_size(text: str | None, maximum: int = _MAX_BATCH) -> int | None:
    """``--batch-size`` (None when not given)."""
    return None if text is None else parse_count(text, "--batch-size", maximum=maximum)


def check_workers(workers: int | None) -> None:
    """UserError for a --workers count that is a typo (negative, or thousands of processes)."""
    if workers is not None and not 0 <= workers <= MAX_WORKERS:
        raise UserError(f"--workers must be 0 to {MAX_WORKERS}, not {workers}")


def parse_precision(text: str | None) -> float | None:
    """``--precision 0.005`` -> 0.005 (a positive half-width in the primary metric's unit)."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value > 0):
        raise UserError(f"--precision must be a positive half-width such as 0.005, not {text!r}")
    return value


def study_options(n, seed, batch_size, level, precision, check_n) -> dict[str, Any]:
    """The text options compare and sweep share, parsed in the order a mistake is reported."""
    return {
        "n": parse_count(n, maximum=MAX_N),
        "seed": parse_count(seed, "--seed", minimum=0),
        "batch_size": parse_batch_size(batch_size or None),
        "level": parse_level(level, "--level"),
        "precision": parse_precision(precision),
        "check_n": parse_count(check_n, "--check-n", minimum=2) if check_n else None,
    }
