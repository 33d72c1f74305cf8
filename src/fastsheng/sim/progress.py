"""Progress of a run on stderr: a rich progress bar (hands/s, ETA) on a terminal, plain periodic
lines otherwise (logs, CI, pipes), nothing but problems with ``--quiet``.

A reporter is the ``on_event(kind, info)`` callback of :func:`fastsheng.sim.runner.run`.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from typing import Any, TextIO

from fastsheng.sim.faults import died_phrase

__all__ = ["Reporter", "make_reporter", "fmt_count", "fmt_duration"]


def fmt_count(n: float) -> str:
    return f"{int(round(n)):,}"


def fmt_duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Reporter:
    """Plain reporter: a start line, a line every ``interval`` seconds, worker deaths and notes.

    ``quiet`` keeps only worker deaths (they are problems worth seeing)."""

    def __init__(self, stream: TextIO | None = None, *, quiet: bool = False, interval: float = 5.0):
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.interval = interval
        self.unit = "hands"
        self.total = 0
        self.done = 0
        self.done_at_start = 0
        self.t0 = time.perf_counter()
        self.last = self.t0
        self.seed_drawn = False

    # -- helpers
    def write(self, line: str) -> None:
        print(line, file=self.stream, flush=True)

    def rate(self) -> float:
        elapsed = time.perf_counter() - self.t0
        return (self.done - self.done_at_start) / elapsed if elapsed > 0 else 0.0

    def status_line(self) -> str:
        rate = self.rate()
        left = self.total - self.done
        eta = fmt_duration(left / rate) if rate > 0 else "?"
        pct = 100.0 * self.done / self.total if self.total else 100.0
        return (
            f"  {fmt_count(self.done)}/{fmt_count(self.total)} {self.unit} ({pct:.0f}%)  "
            f"{fmt_count(rate)} {self.unit}/s  ETA {eta}"
        )

    # -- events
    def __call__(self, kind: str, info: Mapping[str, Any]) -> None:
        getattr(self, f"on_{kind}", self.on_other)(info)

    def on_start(self, info: Mapping[str, Any]) -> None:
        spec = info["spec"]
        self.unit = "matches" if spec.mode == "matches" else "hands"
        self.total = info["total_rows"]
        self.done = self.done_at_start = info["done_rows"]
        self.t0 = self.last = time.perf_counter()
        if self.quiet:
            return
        bots = spec.bots[0] if len(set(spec.bots)) == 1 else ",".join(spec.bots)
        where = (
            f"{info['workers']} worker{'s' if info['workers'] != 1 else ''}"
            if info.get("scheduler") is None
            else f"Dask at {_address(info['scheduler'])}"
        )
        if info["workers"] == 0 and info.get("scheduler") is None:
            where = "in-process"
        self.write(
            f"sim: {fmt_count(spec.n)} {self.unit} of {spec.rules_name}, bots {bots}, "
            f"seed {spec.seed}{' (drawn at random)' if self.seed_drawn else ''}, "
            f"{_batches(spec, info['total_batches'])}, "
            f"{where} -> {info['out']}"
        )
        if info["done_batches"]:
            self.write(
                f"resuming: {info['done_batches']} of {info['total_batches']} batches already "
                "finished"
            )
        estimate = python_bot_estimate(spec, self.total - self.done, info)
        if estimate:
            self.write(estimate)
        self.begin()

    def begin(self) -> None:
        pass

    def on_batch(self, info: Mapping[str, Any]) -> None:
        self.done += sum_rows(info)
        if self.quiet:
            return
        now = time.perf_counter()
        if now - self.last >= self.interval:
            self.last = now
            self.write(self.status_line())

    def on_worker_died(self, info: Mapping[str, Any]) -> None:
        if info.get("batch") is None:
            self.write(
                f"warning: worker {info['pid']} {died_phrase(info['reason'])} while idle; replaced"
            )
            return
        what = f"retrying (attempt {info['attempt'] + 1})" if info.get("retry") else "giving up"
        self.write(
            f"warning: worker {info['pid']} {died_phrase(info['reason'])} while running batch "
            f"{info['batch']}; {what}"
        )

    def on_note(self, info: Mapping[str, Any]) -> None:
        if not self.quiet:
            self.write(info["message"])

    def on_other(self, info: Mapping[str, Any]) -> None:
        pass

    def close(self) -> None:
        pass


# hands a second on one core of a line-up with Python bots, measured with the simple bots of
# tests/userbots (LowCards beside expert, 1,000 hands at standard): about 1,670 with one Python
# seat, 805 with two, 414 with four; the Python seats' act() calls are the cost, so the rate is
# this over the number of Python seats. A bot doing more work per call is slower (AsExpert, which
# asks the C bot from Python, plays 324 at two seats).
PYTHON_SEAT_RATE = 1_600
HANDS_PER_MATCH = 36  # a match of expert bots at standard, for matches mode


def python_bot_estimate(spec: Any, rows: int, info: Mapping[str, Any]) -> str | None:
    """ "estimate: a simple Python bot at 2 seats plays about 800 hands/s per core: about 2 min
    on 2 cores (...)" for a line-up with a Python bot; None for C bots only."""
    from fastsheng.bots.names import is_python_bot

    seats = sum(1 for b in spec.bots if is_python_bot(b))
    if not seats or rows <= 0:
        return None
    rate = PYTHON_SEAT_RATE // seats
    hands = rows * (HANDS_PER_MATCH if spec.mode == "matches" else 1)
    if info.get("scheduler") is not None:
        cores, where = 1, "on one core (the Dask workers' threads divide it)"
    else:
        try:
            have = len(os.sched_getaffinity(0))
        except AttributeError:  # not Linux
            have = os.cpu_count() or 1
        cores = max(1, min(info.get("workers") or 1, have))
        where = f"on {cores} core{'s' if cores != 1 else ''}"
    minutes = hands / (rate * cores) / 60
    if minutes < 1:
        took = "under a minute"
    elif minutes < 90:
        took = f"about {round(minutes)} min"
    else:
        took = f"about {minutes / 60:.1f} h"
    per_match = f", about {HANDS_PER_MATCH} hands a match" if spec.mode == "matches" else ""
    return (
        f"estimate: a simple Python bot at {seats} seat{'s' if seats != 1 else ''} plays about "
        f"{rate:,} hands/s per core{per_match}: {took} {where} (an estimate; a slower bot takes "
        "longer)"
    )


def _batches(spec: Any, total: int) -> str:
    """ "20 batches of 10,000"; a run of one batch plays only its n rows: "1 batch of 5"."""
    if total == 1:
        return f"1 batch of {fmt_count(spec.batch_rows(0))}"
    return f"{total} batches of {fmt_count(spec.batch_size)}"


def _address(client: Any) -> str:
    return str(getattr(getattr(client, "scheduler", None), "address", client))


def sum_rows(info: Mapping[str, Any]) -> int:
    stats = info.get("stats") or {}
    if "matches" in stats:
        return int(stats["matches"])
    return int(stats.get("hands", 0))


class RichReporter(Reporter):
    """The rich progress bar: bar, count, hands/s, elapsed, ETA."""

    def begin(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            ProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.text import Text

        unit = self.unit

        class RateColumn(ProgressColumn):
            def render(self, task):  # noqa: D102
                speed = task.finished_speed or task.speed
                return Text(f"{fmt_count(speed)} {unit}/s" if speed else f"? {unit}/s")

        self.console = Console(file=self.stream)
        self.progress = Progress(
            TextColumn("[bold]sim"),
            BarColumn(),
            TextColumn("{task.completed:,.0f}/{task.total:,.0f} " + unit),
            RateColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
            refresh_per_second=5,
            speed_estimate_period=10.0,
        )
        self.progress.start()
        self.task = self.progress.add_task("sim", total=self.total, completed=self.done)

    def on_batch(self, info: Mapping[str, Any]) -> None:
        n = sum_rows(info)
        self.done += n
        if hasattr(self, "progress"):
            self.progress.update(self.task, advance=n)

    def write(self, line: str) -> None:
        if hasattr(self, "progress"):
            self.progress.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            super().write(line)

    def close(self) -> None:
        if hasattr(self, "progress"):
            self.progress.stop()
            del self.progress


def make_reporter(*, quiet: bool = False, stream: TextIO | None = None) -> Reporter:
    """A rich bar on a terminal, plain lines otherwise."""
    stream = stream or sys.stderr
    if not quiet and getattr(stream, "isatty", lambda: False)():
        return RichReporter(stream, quiet=quiet)
    return Reporter(stream, quiet=quiet)
