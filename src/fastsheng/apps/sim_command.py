"""``fastsheng sim``'s work beside the run itself: the options merged (a resumed run's run.json
under them), where the run is written, the hints a stopped run prints to finish it, and the
summary printed after it."""

from __future__ import annotations

import hashlib
import math
import os
import re
import shlex
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastsheng.apps.args import parse_batch_size, parse_bots
from fastsheng.sim.counts import UserError, parse_count
from fastsheng.sim.limits import MAX_N

__all__ = [
    "default_out",
    "reporter_closed",
    "resume_command",
    "resume_hints",
    "resumed_manifest",
    "run_options",
    "short_count",
    "sim_target",
    "summary_text",
]


def short_count(n: int) -> str:
    """1000000 -> "1e6", 2500000 -> "2.5e6", 1234 -> "1234" (for folder names)."""
    if n >= 10_000:
        exp = int(math.log10(n))
        while exp > 0 and n % 10**exp:
            exp -= 1
        if exp >= 4 or (exp >= 3 and n // 10**exp < 10):
            mant = n / 10 ** int(math.log10(n))
            if mant == int(mant) or len(f"{mant:g}") <= 4:
                return f"{mant:g}e{int(math.log10(n))}"
    return str(n)


def default_out(spec) -> Path:
    """``runs/<rules>-<bots>-<n>[-matches]-s<seed>`` under the current folder. The rules name
    keeps its letters and digits in any script (规则.toml and 方案.toml are two folders)."""
    rules = re.sub(r"[^\w.-]+", "_", spec.rules_name.removesuffix(".toml")).strip("_")
    if not rules.strip("._-"):  # nothing left of it (e.g. only symbols): a name from its hash
        digest = hashlib.sha256(spec.rules_name.encode()).hexdigest()[:8]
        rules = f"rules-{digest}"
    bots = spec.bots[0] if len(set(spec.bots)) == 1 else "-".join(spec.bots)
    bots = re.sub(r"[^A-Za-z0-9_.-]+", "_", bots)  # module:Class bots
    mode = "-matches" if spec.mode == "matches" else ""
    return Path("runs") / f"{rules}-{bots}-{short_count(spec.n)}{mode}-s{spec.seed}"


def run_options(n, rules, bots, seed, batch_size) -> dict[str, Any]:
    """sim's text options parsed (None: not given), in the order a mistake is reported."""
    from fastsheng.rules import rules_from_spec

    return {
        "n": None if n is None else parse_count(n, "-n", maximum=MAX_N),
        "rules": None if rules is None else rules_from_spec(rules),
        "bots": None if bots is None else parse_bots(bots),
        "seed": None if seed is None else parse_count(seed, "--seed", minimum=0),
        "batch_size": parse_batch_size(batch_size),
    }


def resumed_manifest(out: str | None, resume: bool, options: dict[str, Any]) -> dict | None:
    """The run.json that --resume finishes (None for a new run, or for --resume with -n and
    --seed and no --out: the run in its default folder)."""
    if not resume:
        return None
    if out is None:
        if options["seed"] is None or options["n"] is None:
            raise UserError("--resume needs --out RUN (the folder of the run to finish)")
        return None
    from fastsheng.sim.dataset import Storage, read_manifest

    storage = Storage(out)
    if not storage.exists():
        raise UserError(f"{out}: nothing to resume (no such run folder)")
    return read_manifest(storage)


def sim_target(out: str | None, spec) -> str:
    """Where the run is written: --out, or ./runs/<name>; never a memory:// folder."""
    target = str(out) if out is not None else str(default_out(spec))
    if target.lower().startswith("memory://"):
        raise UserError(
            f"--out {target}: a memory:// folder lives in this command's memory and is lost when "
            "it ends; give a folder or a lasting URL (s3://...)"
        )
    return target


@contextmanager
def reporter_closed(reporter):
    """The progress display is gone before anything else is printed (a summary, an error)."""
    try:
        yield
    finally:
        reporter.close()


@contextmanager
def resume_hints(target: str, scheduler: str | None):
    """A run that stops early tells how to finish it: each stop gets its ``finish`` clause,
    which failures() prints after the stop's own message."""
    from fastsheng.sim import runner

    try:
        yield
    except (runner.RunInterrupted, runner.SchedulerLost, runner.DiskFull) as exc:
        again = resume_command(exc.out, scheduler)
        free = "free some space, then: " if isinstance(exc, runner.DiskFull) else "finish with: "
        exc.finish = free + again
        raise
    except runner.OutOfMemory as exc:
        # a resumed run keeps its batch size (it decides the deals): only a new run can shrink it
        smaller = "(a smaller --batch-size needs a new run)"
        if scheduler:
            again = resume_command(exc.out, scheduler)
            exc.finish = f"give the Dask workers more memory, then: {again} {smaller}"
        else:
            again = resume_command(exc.out, None) + " --workers 1"
            exc.finish = f"finish with fewer workers: {again} {smaller}"
        raise
    except runner.BatchFailed as exc:
        exc.finish = f"finished batches are kept in {target} (--resume finishes the run)"
        raise


def resume_command(out: str, scheduler: str | None) -> str:
    """The command that finishes the run in ``out`` on the same backend."""
    where = f" --scheduler {shlex.quote(scheduler)}" if scheduler else ""
    return f"fastsheng sim --out {shlex.quote(out)} --resume{where}"


def level_change_text(hist: dict[str, int], total: int) -> str:
    """``dealer +3 4.1%, dealer +2 ..., take over 20.0%, defenders +1 ...``."""

    def order(key: str) -> tuple[int, int]:
        side, _, k = key.partition("+")
        return (0, -int(k)) if side == "dealer" else (1, int(k))

    parts = []
    for key in sorted(hist, key=order):
        side, _, k = key.partition("+")
        label = "take over" if key == "defenders+0" else f"{side} +{k}"
        parts.append(f"{label} {100.0 * hist[key] / total:.1f}%")
    return ", ".join(parts)


def summary_text(result) -> str:
    """The one-screen summary printed after a run."""
    from fastsheng.sim.dataset import TABLES

    m = result.manifest
    stats = result.stats
    unit = "matches" if m["mode"] == "matches" else "hands"
    rows = stats.get(unit, 0)
    lines = []
    state = "complete" if result.complete else "INCOMPLETE"
    head = (
        f"wrote {rows:,} {unit} to" if result.batches_run else f"nothing to do: {rows:,} {unit} in"
    )
    n_parts = len(m["batches"])
    lines.append(f"{head} {result.out} ({state}, {n_parts} part{'' if n_parts == 1 else 's'})")
    if result.rows_run:
        share = (
            100.0 * result.write_seconds / (result.sim_seconds + result.write_seconds)
            if result.sim_seconds + result.write_seconds > 0
            else 0.0
        )
        lines.append(
            f"  speed        {result.rate:,.0f} {unit}/s over {result.elapsed:.1f} s "
            f"({result.rows_run:,} {unit} this session; writing {share:.0f}% of worker time)"
        )
    hands = stats.get("hands", 0)
    if unit == "matches":
        lines.append(
            f"  hands        {hands:,} in {rows:,} matches ({hands / max(rows, 1):.1f} per match)"
        )
    if hands and "dealer_wins" in stats:
        lines.append(f"  dealer side  won {100.0 * stats['dealer_wins'] / hands:.1f}% of hands")
    if hands and "defender_points_sum" in stats:
        lines.append(f"  defenders    {stats['defender_points_sum'] / hands:.1f} points on average")
    if hands and "kitty_captures" in stats:
        rate = 100.0 * stats["kitty_captures"] / hands
        lines.append(f"  kitty        captured by the defenders in {rate:.1f}% of hands")
    hist = stats.get("level_change")
    if hands and hist:
        lines.append("  levels       " + level_change_text(hist, hands))
    if stats.get("forfeits"):
        lines.append(
            f"  forfeits     {stats['forfeits']:,} hands lost to an isolated bot's failure "
            "(the forfeit column names the seat)"
        )
    if rows and unit == "matches" and stats.get("match_winner"):
        won = stats["match_winner"]
        parts = [
            f"{k} {100.0 * won[k] / rows:.1f}%" for k in ("team0", "team1", "draw") if k in won
        ]
        lines.append("  matches won  " + ", ".join(parts))
    sep = "/" if "://" in result.out else os.sep
    reads = [
        f"pandas.read_parquet({result.out.rstrip('/') + sep + t!r})"
        for t in TABLES
        if t in m.get("tables", []) and t != "tricks"
    ]
    lines.append("read it:      " + ", ".join(reads))
    return "\n".join(lines)
