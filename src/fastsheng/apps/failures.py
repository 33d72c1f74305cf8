"""How a command ends: the one table from an exception to its exit code and its text on stderr.

User mistakes (a bad count, an unknown preset or bot, a malformed rules file, an output folder
that exists, an unreachable scheduler, a corrupt part...) print one line ``error: ...`` and exit
with code 2, never a traceback, and so does what the machine lacks (a full disk, memory running
out); Ctrl-C exits with 130 and a stopped run says how to finish it.
"""

from __future__ import annotations

import sys
from typing import Any

import typer

from fastsheng.errors import FastshengError

__all__ = ["EXIT_USAGE", "EXIT_INTERRUPTED", "EXITS", "explain", "failures"]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def _click_exceptions() -> tuple[tuple[type, ...], tuple[type, ...], tuple[type, ...]]:
    """(Exit, UsageError/ClickException, Abort) classes of click and of the copy of click that
    recent typer versions vendor (``typer._click``): catch both."""
    exits: list[type] = [typer.Exit]
    usage: list[type] = []
    aborts: list[type] = [typer.Abort]
    for modname in ("typer._click.exceptions", "click.exceptions"):
        try:
            mod = __import__(modname, fromlist=["UsageError"])
        except ImportError:
            continue
        for name, bucket in (("Exit", exits), ("ClickException", usage), ("Abort", aborts)):
            cls = getattr(mod, name, None)
            if isinstance(cls, type):
                bucket.append(cls)
    return tuple(exits), tuple(usage), tuple(aborts)


# EXITS end a command with their own code (--version, a command's exit code): not failures
EXITS, _USAGE_ERRORS, _ABORTS = _click_exceptions()


def _one_line(message: object) -> str:
    return "error: " + " ".join(str(message).split())


def _usage(exc) -> tuple[int, str]:
    if type(exc).__name__ == "NoArgsIsHelpError":  # the help is the message (or was shown)
        return EXIT_USAGE, exc.format_message()
    return int(getattr(exc, "exit_code", EXIT_USAGE) or EXIT_USAGE), _one_line(exc.format_message())


def _mistake(exc: BaseException) -> tuple[int, str]:
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        # the path and the reason, not Python's "[Errno 20] ..." (a folder that cannot be made)
        return EXIT_USAGE, _one_line(f"cannot use {exc.filename}: {exc.strerror}")
    return EXIT_USAGE, _one_line(str(exc) or type(exc).__name__)


def _interrupted(exc) -> tuple[int, str]:
    finish = getattr(exc, "finish", None)
    if finish is None:
        return EXIT_INTERRUPTED, _one_line("interrupted")
    return EXIT_INTERRUPTED, (
        f"interrupted: {exc.done} of {exc.total} batches kept in {exc.out}; {finish}"
    )


def _scheduler_lost(exc) -> tuple[int, str]:
    finish = getattr(exc, "finish", None)
    if finish is None:
        return _mistake(exc)
    return EXIT_USAGE, _one_line(
        f"{exc}; {exc.done} of {exc.total} batches kept in {exc.out}; {finish}"
    )


# what a run that ran out of memory can do, when the command has not said it (compare, sweep)
_LESS_MEMORY = "fewer --workers or a smaller --batch-size need less memory"


def _out_of_memory(exc) -> tuple[int, str]:
    kept = f"{exc.done} of {exc.total} batches kept in {exc.out}" if exc.out else ""
    finish = getattr(exc, "finish", None) or _LESS_MEMORY
    return EXIT_USAGE, _one_line("; ".join(filter(None, (str(exc), kept, finish))))


def _no_memory(exc: BaseException) -> tuple[int, str]:
    """Memory ran out outside a run's batches (reading a run, a report...)."""
    from fastsheng.sim.faults import memory_detail

    return EXIT_USAGE, _one_line(
        f"out of memory ({memory_detail(exc)}); give fastsheng more memory (a higher ulimit -v, "
        "fewer programs running) or a smaller job"
    )


def _import_failed(exc: ImportError) -> tuple[int, str]:
    """A module that is not there (the C core not built, a dependency missing), or one that could
    not be loaded for want of memory: that is no installation problem."""
    from fastsheng.sim.faults import out_of_memory

    if out_of_memory(exc):
        return _no_memory(exc)
    return 1, _one_line(f"{exc} (is fastsheng installed and built? pip install .)")


def _disk_full(exc) -> tuple[int, str]:
    finish = getattr(exc, "finish", None)
    return _mistake(exc) if finish is None else (EXIT_USAGE, _one_line(f"{exc}; {finish}"))


def _batch_failed(exc) -> tuple[int, str]:
    finish = getattr(exc, "finish", None)
    if finish is None:
        return _mistake(exc)
    head = exc.remote_traceback.rstrip() + "\n" if exc.remote_traceback else ""
    return 1, f"{head}error: {exc}; {finish}"


def failures() -> tuple[tuple[tuple[type, ...], Any], ...]:
    """The one table from an exception that ends a command to its exit code and the text on
    stderr, first match wins. A run's stops come first (when runner ran: never imported for
    nothing, since a missing C core is itself a failure to explain)."""
    runner = sys.modules.get("fastsheng.sim.runner")
    stops = (
        ()
        if runner is None
        else (
            ((runner.RunInterrupted,), _interrupted),
            ((runner.SchedulerLost,), _scheduler_lost),
            ((runner.DiskFull,), _disk_full),
            ((runner.OutOfMemory,), _out_of_memory),
            ((runner.BatchFailed,), _batch_failed),
        )
    )
    return (
        *stops,
        (_USAGE_ERRORS, _usage),
        ((*_ABORTS, KeyboardInterrupt), lambda exc: (EXIT_INTERRUPTED, _one_line("interrupted"))),
        ((MemoryError,), _no_memory),
        # the C core is not built, or a dependency is missing (or memory ran out loading it)
        ((ImportError,), _import_failed),
        ((FastshengError, ValueError, OSError), _mistake),
    )


def explain(exc: BaseException) -> tuple[int, str] | None:
    """The exit code and stderr text of the first row of failures() that ``exc`` matches (None:
    not a failure to explain; the caller re-raises it)."""
    for types, explain_row in failures():
        if isinstance(exc, types):
            return explain_row(exc)
    return None
