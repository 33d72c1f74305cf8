"""Running a simulation: fixed-size batches, seeding, the local and Dask backends, retries, Ctrl-C.

A run is a pure function of its :class:`RunSpec` (seed, rules, bots, n, batch size, mode, level,
tricks): it is cut into ``ceil(n / batch_size)`` batches, batch ``b`` holds hands (or matches)
``b * batch_size ...`` and is computed by the batch function from
``numpy.random.SeedSequence(seed, spawn_key=(b,))`` alone. Which process computes a batch, and in
which order, never changes the data.

Backends:

* local (default): ``workers`` processes of a "spawn" context, one batch at a time each; a worker
  computes its batch, writes its parts (atomically) and sends back row counts, checksums and a few
  aggregates; the parent only assigns batches and keeps the manifest. A worker that dies (killed
  by the OOM killer, SIGKILL, a crash in C) is reported and its batch given to a fresh worker, up
  to ``retries`` more times. Workers ignore SIGINT: on Ctrl-C the parent stops them at once, keeps
  every finished batch in the manifest and raises :class:`RunInterrupted`.
* ``workers=0``: everything in the calling process (debugging, profiling).
* Dask (``scheduler="tcp://host:port"`` or a ``dask.distributed.Client``): one task per batch;
  the Dask workers write their parts to the output location (a shared path or an fsspec URL) and
  return the same small records; the client keeps the manifest.
"""

from __future__ import annotations

import errno
import inspect
import multiprocessing
import os
import signal
import sys
import time
import traceback
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing.connection import wait as mp_wait
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from fastsheng.cards import parse_level
from fastsheng.engine.registry import resolve_bots
from fastsheng.errors import FastshengError
from fastsheng.sim.dataset import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    DatasetError,
    Storage,
    check_parts,
    clean_temporaries,
    part_name,
    read_manifest,
    write_batch,
    write_manifest,
)
from fastsheng.sim.limits import check_size, n_batches
from fastsheng.sim.lock import LOCK, acquire_lock

__all__ = [
    "BatchFailed",
    "DiskFull",
    "RunInterrupted",
    "SchedulerLost",
    "RunResult",
    "RunSpec",
    "MODES",
    "DEFAULT_BATCH_SIZE",
    "PYTHON_BATCH_SIZE",
    "default_batch_size",
    "default_batch_fn",
    "execute_batch",
    "run",
    "summarize",
    "merge_stats",
]

MODES = ("hands", "matches")
#: Default batch size per mode (hands per batch, matches per batch): part of a run's identity,
#: so it never depends on the machine or the number of workers.
DEFAULT_BATCH_SIZE = {"hands": 10_000, "matches": 500}
#: The default when a seat runs Python code (about 700 hands/s against 50,000 for the C bots):
#: smaller batches, so that a run of 1e4 hands still spreads over every worker. Chosen from the
#: line-up alone, never from timing, since the batch size is part of the run's identity.
PYTHON_BATCH_SIZE = {"hands": 1_000, "matches": 50}
BatchFn = Callable[..., Mapping[str, pa.Table]]
EventFn = Callable[[str, Mapping[str, Any]], None]


class RunInterrupted(Exception):
    """Ctrl-C (or SIGTERM) stopped the run; every finished batch is kept and recorded."""

    def __init__(self, done: int, total: int, out: str):
        super().__init__(f"interrupted with {done} of {total} batches finished in {out}")
        self.done = done
        self.total = total
        self.out = out


class SchedulerLost(FastshengError):
    """The Dask scheduler went away during a run; every finished batch is kept and recorded."""

    def __init__(self, address: str, reason: str):
        super().__init__(f"lost the Dask scheduler at {address} ({reason})")
        self.address = address
        self.reason = reason
        self.done = 0
        self.total = 0
        self.out = ""


class DiskFull(FastshengError):
    """No space left where the run is written; every batch run.json records is kept."""

    def __init__(self, out: str, done: int, total: int):
        super().__init__(f"no space left on the device of {out}; {done} of {total} batches kept")
        self.out = out
        self.done = done
        self.total = total


def no_space(exc: BaseException) -> bool:
    """A full disk (or quota), also when the error crossed a process boundary as text."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc)
    return "No space left on device" in text or "Disk quota exceeded" in text


class BatchFailed(FastshengError):
    """A batch failed: the batch function raised, or it killed its worker too many times."""

    def __init__(self, batch: int, message: str, remote_traceback: str | None = None):
        super().__init__(f"batch {batch} failed: {message}")
        self.batch = batch
        self.remote_traceback = remote_traceback


def default_batch_fn() -> BatchFn:
    """The engine's batch function, :func:`fastsheng.engine.hands.play_batch`."""
    from fastsheng.engine.hands import play_batch

    return play_batch


def default_batch_size(bots: Any, mode: str = "hands") -> int:
    """The batch size a run of this line-up gets when none is given: DEFAULT_BATCH_SIZE, or
    PYTHON_BATCH_SIZE when any seat is a Python bot (``module:Class``, ``py-random``, an
    object)."""
    from fastsheng.engine.registry import is_python_bot

    python = any(is_python_bot(b) for b in resolve_bots(bots))
    return (PYTHON_BATCH_SIZE if python else DEFAULT_BATCH_SIZE)[mode]


def known_bots() -> tuple[str, ...]:
    """The bot names a user may give (fastsheng.engine.registry.BOTS)."""
    from fastsheng.engine.registry import BOTS

    return tuple(BOTS)


def check_bots(bots: Any) -> tuple[str, str, str, str]:
    """The one place a bot line-up is validated (the CLI, RunSpec and compare all call it):
    one bot, two (the teams: seats 0/2, 1/3) or four, each a known name or a bot object or
    class, returned as the four versions they play (fastsheng.engine.registry.resolve_bots:
    ``expert`` -> ``expert-v4``). ValueError naming the bad one."""
    # the versioned names are what the data depends on (run.json records them)
    resolved = resolve_bots(bots)
    check_python_bots(resolved)
    return resolved


def lineup_names(b: Any) -> tuple[str, str, str, str]:
    """A line-up (1 bot, 2 = team 0, team 1, or 4; names, a comma-separated string, or bot
    objects) as the four versioned names it plays."""
    return check_bots(("expert",) if b is None else b)


def lineup_label(b: Any) -> str:
    """``expert`` -> ``expert-v4``; ``expert,basic`` -> ``expert-v4,basic-v1``: the label of a
    line-up names the versions that played."""
    names = lineup_names(b)
    if len(set(names)) == 1:
        return names[0]
    if names[0] == names[2] and names[1] == names[3]:
        return f"{names[0]},{names[1]}"
    return ",".join(names)


def check_python_bots(names: Iterable[str]) -> None:
    """Import every Python bot (module.path:Class) now, so a typo fails before any work; the
    current folder is importable (the workers inherit sys.path), as for `python -m`."""
    from fastsheng.engine.registry import PY_RANDOM, BotRef, is_python_bot

    todo = [n for n in names if is_python_bot(n) and n != PY_RANDOM]
    if not todo:
        return
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    from fastsheng.engine.agents import load_bot

    for name in todo:  # (bot objects of one class share a name: check each)
        name.make() if isinstance(name, BotRef) else load_bot(name)


def check_portable(bots: Iterable[str], *, dask: bool = False) -> None:
    """ValueError in one line when a bot object cannot reach a worker process (it does not
    pickle, or its class lives in an interactive session, which a spawned worker cannot import;
    Dask pickles such classes by value): workers=0 plays it in process."""
    from fastsheng.engine.registry import BotRef

    for name in bots:
        problem = name.worker_problem(dask=dask) if isinstance(name, BotRef) else None
        if problem:
            raise ValueError(
                f"bot {name} cannot be sent to worker processes: {problem}; run it in this "
                "process (workers=0, --workers 0) or put it in a module and name it module:Class"
            )


# --------------------------------------------------------------------------------------------
# The run's identity


@dataclass(frozen=True)
class RunSpec:
    """Everything a run's data depends on. ``rules`` is a :class:`fastsheng.rules.Rules`."""

    rules: Any
    bots: tuple[str, str, str, str]
    seed: int
    n: int
    batch_size: int
    mode: str = "hands"
    level: str = "2"
    tricks: bool = False
    # how the bots' random stream is seeded: "hand" (each hand its own; fastsheng 0.2 on) or
    # "batch" (runs made before, whose run.json has no such field): only random bots draw
    bot_stream: str = "hand"

    def __post_init__(self):
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"n must be a positive whole number, not {self.n!r}")
        if (
            isinstance(self.batch_size, bool)
            or not isinstance(self.batch_size, int)
            or self.batch_size < 1
        ):
            raise ValueError(f"batch size must be a positive whole number, not {self.batch_size!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a whole number >= 0, not {self.seed!r}")
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; expected one of {', '.join(MODES)}")
        object.__setattr__(self, "level", parse_level(self.level))
        check_size(self.n, self.batch_size, self.mode)
        if self.bot_stream not in ("hand", "batch"):
            raise ValueError(f"bot_stream must be 'hand' or 'batch', not {self.bot_stream!r}")
        object.__setattr__(self, "bots", check_bots(self.bots))

    @property
    def n_batches(self) -> int:
        return n_batches(self.n, self.batch_size)

    def batch_rows(self, batch: int) -> int:
        """Hands (matches) in batch ``batch``: ``batch_size``, less for a truncated last one."""
        if not 0 <= batch < self.n_batches:
            raise IndexError(f"batch {batch} out of range 0..{self.n_batches - 1}")
        return min(self.batch_size, self.n - batch * self.batch_size)

    @property
    def tables(self) -> tuple[str, ...]:
        names = ["hands"]
        if self.mode == "matches":
            names.append("matches")
        if self.tricks:
            names.append("tricks")
        return tuple(names)

    @property
    def rules_name(self) -> str:
        return getattr(self.rules, "name", "custom")

    def config(self) -> dict[str, Any]:
        """The manifest's description of the run (everything the data depends on)."""
        return {
            "rules_name": self.rules_name,
            "rules": self.rules.to_dict(),
            "bots": list(self.bots),
            "seed": self.seed,
            "n": self.n,
            "batch_size": self.batch_size,
            "n_batches": self.n_batches,
            "mode": self.mode,
            "level": self.level,
            "tricks": self.tricks,
            "tables": list(self.tables),
            "bot_stream": self.bot_stream,
        }

    def disagreements(self, manifest: Mapping[str, Any]) -> list[str]:
        """``["seed 3 (run.json: 5)", ...]``: where this spec and a manifest differ."""
        mine = self.config()
        out = []
        theirs_all = {"bot_stream": "batch", **manifest}  # runs made before 0.2
        for key in (
            "rules_name",
            "bots",
            "seed",
            "n",
            "batch_size",
            "mode",
            "level",
            "tricks",
            "bot_stream",
        ):
            if theirs_all.get(key) != mine[key]:
                out.append(f"{key} {_show(mine[key])} (run.json: {_show(theirs_all.get(key))})")
        if manifest.get("rules") != mine["rules"]:
            theirs = manifest.get("rules") or {}
            fields = sorted(
                k for k in set(theirs) | set(mine["rules"]) if theirs.get(k) != mine["rules"].get(k)
            )
            out.append(
                "rules switches " + ", ".join(fields[:5]) + (" ..." if len(fields) > 5 else "")
            )
        return out

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> RunSpec:
        """The spec a run.json records; ValueError when a field is missing (not a run)."""
        return cls(**_fields_of_manifest(manifest))

    @classmethod
    def from_options(
        cls,
        *,
        n: int | None = None,
        rules: Any = None,
        bots: Any = None,
        seed: int | None = None,
        mode: str | None = None,
        level: str | None = None,
        tricks: bool = False,
        batch_size: int | None = None,
        base: Mapping[str, Any] | None = None,
    ) -> RunSpec:
        """The spec of ``fastsheng sim``'s options: those given (None: not given) over the run
        ``base`` (a run.json being resumed), over the defaults (standard rules, expert bots,
        level 2, the line-up's batch size, a seed drawn at random). ValueError naming the
        option for a mistake."""
        given: dict[str, Any] = {
            k: v
            for k, v in (("n", n), ("bots", bots), ("seed", seed), ("batch_size", batch_size))
            if v is not None
        }
        if rules is not None:
            from fastsheng.rules import rules_from_spec

            given["rules"] = rules_from_spec(rules) if isinstance(rules, str) else rules
        if mode is not None:
            if mode not in MODES:
                raise ValueError(f"unknown --mode {mode!r}; modes: {', '.join(MODES)}")
            given["mode"] = mode
        if level is not None:
            given["level"] = parse_level(level, "--level")
        if tricks:
            given["tricks"] = True
        kw = {**(_fields_of_manifest(base) if base is not None else {}), **given}
        if "n" not in kw:
            raise ValueError("missing -n: how many hands to play, e.g. -n 1e6")
        kw.setdefault("mode", "hands")
        if kw["mode"] == "matches" and given.get("level", "2") != "2":
            raise ValueError(
                "--level applies to --mode hands (matches start at the rules' start rank)"
            )
        if "rules" not in kw:
            from fastsheng.rules import get_rules

            kw["rules"] = get_rules("standard")
        kw.setdefault("bots", ("expert",) * 4)
        if "batch_size" not in kw:  # smaller for Python bots (a rule of the line-up)
            kw["batch_size"] = default_batch_size(kw["bots"], kw["mode"])
        if "seed" not in kw:  # drawn, then printed and recorded: the run stays reproducible
            import secrets

            kw["seed"] = secrets.randbelow(2**32)
        return cls(**kw)


def _fields_of_manifest(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """RunSpec's fields as run.json records them."""
    from fastsheng.rules import Rules

    try:
        return {
            "rules": Rules.from_dict(manifest["rules"]),
            "bots": tuple(manifest["bots"]),
            "seed": manifest["seed"],
            "n": manifest["n"],
            "batch_size": manifest["batch_size"],
            "mode": manifest["mode"],
            "level": manifest["level"],
            "tricks": manifest["tricks"],
            # runs made before fastsheng 0.2 drew random bots from one stream per batch
            "bot_stream": manifest.get("bot_stream", "batch"),
        }
    except (KeyError, TypeError) as exc:
        raise ValueError(f"run.json lacks the field {exc}; is it a fastsheng run?") from None


def _show(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)


# --------------------------------------------------------------------------------------------
# One batch


def _accepts(fn: Callable[..., Any], name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params  # explicitly: a **kwargs wrapper may not pass it on


def call_batch_fn(fn: BatchFn, spec: RunSpec, batch: int) -> dict[str, pa.Table]:
    """The tables of batch ``batch``. The last batch of a run may be truncated: it holds the
    first ``batch_rows(batch)`` hands (matches) of the full batch, numbered as in the full batch.
    A batch function that takes ``batch_size=`` plays just those; one that does not (it numbers
    rows from ``batch * size``) plays the full batch, cut here."""
    size = spec.batch_rows(batch)
    kwargs = {"mode": spec.mode, "level": spec.level, "tricks": spec.tricks}
    if spec.bot_stream != "hand" or _accepts(fn, "bot_stream"):
        kwargs["bot_stream"] = spec.bot_stream
    args = (spec.rules, spec.bots, spec.seed, batch)
    if size == spec.batch_size:
        return dict(fn(*args, size, **kwargs))
    if _accepts(fn, "batch_size"):
        return dict(fn(*args, size, batch_size=spec.batch_size, **kwargs))
    return truncate_tables(dict(fn(*args, spec.batch_size, **kwargs)), spec.mode, size)


def truncate_tables(tables: dict[str, pa.Table], mode: str, size: int) -> dict[str, pa.Table]:
    """The first ``size`` hands (matches) of a batch's tables, with their tricks (hands)."""
    out = dict(tables)
    if mode == "hands":
        out["hands"] = tables["hands"].slice(0, size)
    else:
        out["matches"] = tables["matches"].slice(0, size)
        keep = pc.is_in(
            tables["hands"]["match_id"], value_set=out["matches"]["match_id"].combine_chunks()
        )
        out["hands"] = tables["hands"].filter(keep)
    if "tricks" in tables:
        keep = pc.is_in(
            tables["tricks"]["hand_id"], value_set=out["hands"]["hand_id"].combine_chunks()
        )
        out["tricks"] = tables["tricks"].filter(keep)
    return out


def execute_batch(spec: RunSpec, batch: int, storage: Storage, batch_fn: BatchFn | None = None):
    """Compute batch ``batch`` of the run, write its parts atomically, return its record:
    ``{"batch", "parts": {table: {rows, bytes, sha256}}, "stats", "sim_s", "write_s"}``."""
    fn = batch_fn or default_batch_fn()
    size = spec.batch_rows(batch)
    c0 = time.process_time()
    t0 = time.perf_counter()
    tables = call_batch_fn(fn, spec, batch)
    t1 = time.perf_counter()
    missing = set(spec.tables) - set(tables)
    if missing:
        raise RuntimeError(f"the batch function returned no {', '.join(sorted(missing))} table")
    tables = {name: tables[name] for name in spec.tables}
    if spec.mode == "hands" and tables["hands"].num_rows != size:
        raise RuntimeError(
            f"the batch function returned {tables['hands'].num_rows} hands, not {size}"
        )
    parts = write_batch(storage, batch, tables)
    t2 = time.perf_counter()
    return {
        "batch": batch,
        "parts": {name: info.to_dict() for name, info in parts.items()},
        "stats": summarize(tables),
        "sim_s": t1 - t0,
        "write_s": t2 - t1,
        "cpu_s": time.process_time() - c0,  # < sim_s + write_s: the worker waited for a core
    }


# --------------------------------------------------------------------------------------------
# Aggregates for the end-of-run summary, kept per batch in the manifest so that a resumed run
# can still summarize the whole dataset without reading it back. Columns of fastsheng.engine.hands:
# defenders_total, winner ("dealer"/"defenders"), levels, kitty_captured; matches: winner.


def _as_numpy(column: pa.ChunkedArray):
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    return column.to_numpy(zero_copy_only=False)


def summarize(tables: Mapping[str, pa.Table]) -> dict[str, Any]:
    """Small additive aggregates of one batch (merged with :func:`merge_stats`):
    hand and match counts, the defenders' points, dealer-side wins, kitty captures and the
    level changes (``"dealer+2"``, ``"defenders+0"`` = take over ...)."""
    import numpy as np

    hands = tables["hands"]
    stats: dict[str, Any] = {"hands": hands.num_rows}
    names = set(hands.column_names)
    if hands.num_rows:
        if "defenders_total" in names:
            stats["defender_points_sum"] = int(pc.sum(hands["defenders_total"]).as_py() or 0)
        if "kitty_captured" in names:
            stats["kitty_captures"] = int(pc.sum(hands["kitty_captured"].cast(pa.int64())).as_py())
        if "winner" in names:
            dealer = _as_numpy(hands["winner"]) == "dealer"
            stats["dealer_wins"] = int(dealer.sum())
            if "levels" in names:
                levels = _as_numpy(hands["levels"]).astype(np.int64)
                code = np.where(dealer, levels, -1 - levels)
                values, counts = np.unique(code, return_counts=True)
                stats["level_change"] = {
                    (f"dealer+{v}" if v >= 0 else f"defenders+{-1 - v}"): int(c)
                    for v, c in zip(values.tolist(), counts.tolist(), strict=True)
                }
    if "matches" in tables:
        matches = tables["matches"]
        stats["matches"] = matches.num_rows
        if matches.num_rows and "winner" in matches.column_names:
            values, counts = np.unique(_as_numpy(matches["winner"]), return_counts=True)
            stats["match_winner"] = {
                str(v): int(c) for v, c in zip(values.tolist(), counts.tolist(), strict=True)
            }
    return stats


def merge_stats(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Sum per-batch aggregates (histograms key by key)."""
    total: dict[str, Any] = {}
    for stats in records:
        for key, value in stats.items():
            if isinstance(value, Mapping):
                hist = total.setdefault(key, {})
                for k, v in value.items():
                    hist[k] = hist.get(k, 0) + v
            else:
                total[key] = total.get(key, 0) + value
    return total


# --------------------------------------------------------------------------------------------
# The run


@dataclass
class RunResult:
    """What :func:`run` did: the final manifest, and this session's figures."""

    out: str
    manifest: dict[str, Any]
    batches_run: int = 0
    rows_run: int = 0
    elapsed: float = 0.0
    sim_seconds: float = 0.0
    write_seconds: float = 0.0
    cpu_seconds: float = 0.0
    retried: list[int] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return bool(self.manifest.get("complete"))

    @property
    def stats(self) -> dict[str, Any]:
        return merge_stats(b.get("stats", {}) for b in self.manifest["batches"].values())

    @property
    def rate(self) -> float:
        """Hands (matches) per second of wall time in this session."""
        return self.rows_run / self.elapsed if self.elapsed > 0 else 0.0


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _new_manifest(spec: RunSpec) -> dict[str, Any]:
    from fastsheng._version import __version__

    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "fastsheng_version": __version__,
        **spec.config(),
        "complete": False,
        "created": _now(),
        "updated": _now(),
        "elapsed_seconds": 0.0,
        "batches": {},
    }


# the folder holds another run: a rerun with other options (seed, n, ...) needs its own folder
_OTHER_OUT = "; that folder holds a run with other options: give another --out for this one"


def prepare(spec: RunSpec, storage: Storage, *, resume: bool, emit: EventFn) -> dict[str, Any]:
    """Create the run folder, or check it for ``--resume``; return the manifest to continue."""
    where = storage.display()
    has_content = storage.exists() and bool(set(storage.listdir()) - {LOCK})
    if not resume:
        if has_content:
            raise DatasetError(
                f"{where} already exists; add --resume to finish that run, or choose another --out"
            )
        storage.makedirs()
        manifest = _new_manifest(spec)
        write_manifest(storage, manifest)
        return manifest
    if not has_content:
        raise DatasetError(f"{where}: nothing to resume (no such run folder)")
    manifest = read_manifest(storage)
    diffs = spec.disagreements(manifest)
    if diffs:
        raise DatasetError(
            f"{where}/run.json disagrees with the options: {'; '.join(diffs)}{_OTHER_OUT}"
        )
    removed = clean_temporaries(storage)
    if removed:
        emit("note", {"message": f"removed {removed} unfinished temporary file(s)"})
    missing, corrupt = check_parts(storage, manifest)
    if corrupt:
        extra = f" (and {len(corrupt) - 1} more)" if len(corrupt) > 1 else ""
        raise DatasetError(
            f"corrupt part {corrupt[0]}{extra}; delete it and run --resume again to recompute "
            "its batch"
        )
    for batch in missing:
        del manifest["batches"][str(batch)]
        emit("note", {"message": f"batch {batch}: a part is missing, computing it again"})
    # parts on disk that the manifest does not list (finished after its last save) are
    # overwritten when their batch is computed again
    return manifest


def run(
    spec: RunSpec,
    out: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: Any = None,
    resume: bool = False,
    batch_fn: BatchFn | None = None,
    on_event: EventFn | None = None,
    retries: int = 2,
    save_interval: float = 1.0,
    connect_timeout: float = 10.0,
) -> RunResult:
    """Run (or finish, with ``resume``) the simulation ``spec`` into the folder ``out``.

    ``workers``: local worker processes (default: every core; 0: in this process).
    ``scheduler``: a Dask scheduler address or ``dask.distributed.Client`` (then ``workers`` is
    ignored). ``batch_fn``: the function computing one batch (default
    :func:`fastsheng.engine.hands.play_batch`; it must be importable by name for process backends).
    ``on_event(kind, info)``: progress callbacks ("start", "batch", "worker_started",
    "assigned", "worker_died", "note").
    Raises :class:`RunInterrupted` on Ctrl-C, :class:`BatchFailed`, :class:`DatasetError`."""
    emit: EventFn = on_event or (lambda kind, info: None)
    storage = Storage(out)
    if storage.in_memory and (scheduler is not None or workers != 0):
        raise DatasetError(
            f"{storage.display()}: a memory:// folder is this process's memory; worker processes "
            "cannot write there (use workers=0, or a folder)"
        )
    batch_fn = batch_fn or default_batch_fn()
    if scheduler is not None or workers != 0:
        check_portable(spec.bots, dask=scheduler is not None)
    client, owned = (None, False)
    if scheduler is not None:
        # connect before touching the folder: an unreachable scheduler changes nothing
        client, owned = _connect_dask(scheduler, connect_timeout)
    try:
        if resume:
            finished = finished_run(spec, storage)
            if finished is not None:  # nothing to write: works on a read-only folder too
                return finished
            if not storage.exists():
                raise DatasetError(f"{storage.display()}: nothing to resume (no such run folder)")
        storage.makedirs()
        with acquire_lock(storage, emit):
            return _run(
                spec, storage, workers, client, resume, batch_fn, emit, retries, save_interval
            )
    except OSError as exc:  # full before the first batch (the lock, the first run.json)
        if not no_space(exc):
            raise
        raise DiskFull(storage.display(), _kept(storage), spec.n_batches) from None
    finally:
        if owned:
            client.close()


def _kept(storage: Storage) -> int:
    """Batches the run.json on disk records (0 if there is none yet)."""
    try:
        return len(read_manifest(storage)["batches"])
    except (DatasetError, OSError):
        return 0


def finished_run(spec: RunSpec, storage: Storage) -> RunResult | None:
    """The result of a run that is complete and intact (every part with its recorded size and
    SHA-256), read without writing anything; None if there is something to do."""
    if not storage.exists() or not storage.exists(MANIFEST):
        return None
    manifest = read_manifest(storage)
    diffs = spec.disagreements(manifest)
    if diffs:
        raise DatasetError(
            f"{storage.display()}/run.json disagrees with the options: {'; '.join(diffs)}"
            + _OTHER_OUT
        )
    batches = manifest.get("batches", {})
    if not manifest.get("complete") or len(batches) != spec.n_batches:
        return None
    missing, corrupt = check_parts(storage, manifest)
    if missing or corrupt:
        return None
    try:  # litter of a killed writer; a read-only folder keeps it (readers skip it)
        clean_temporaries(storage)
    except OSError:
        pass
    return RunResult(out=storage.display(), manifest=manifest)


def _run(spec, storage, workers, client, resume, batch_fn, emit, retries, save_interval):
    manifest = prepare(spec, storage, resume=resume, emit=emit)
    done = manifest["batches"]
    n_todo = spec.n_batches - len(done)
    # lazily: a run of 1e8 batches must not hold a list of them
    todo = _Todo(b for b in range(spec.n_batches) if str(b) not in done)
    result = RunResult(out=storage.display(), manifest=manifest)
    start = time.perf_counter()
    previous_elapsed = float(manifest.get("elapsed_seconds", 0.0))
    last_save = start

    save_cost = [0.0]

    def save(final: bool = False) -> None:
        manifest["updated"] = _now()
        manifest["elapsed_seconds"] = round(previous_elapsed + time.perf_counter() - start, 3)
        manifest["complete"] = len(done) == spec.n_batches
        ordered = dict(sorted(done.items(), key=lambda kv: int(kv[0])))
        done.clear()
        done.update(ordered)
        t = time.perf_counter()
        write_manifest(storage, manifest)
        # a huge manifest (1e5 batches) must not eat the parent: save at most 5% of the time
        save_cost[0] = time.perf_counter() - t

    def record(res: Mapping[str, Any]) -> None:
        nonlocal last_save
        done[str(res["batch"])] = {"parts": res["parts"], "stats": res["stats"]}
        result.batches_run += 1
        result.rows_run += spec.batch_rows(res["batch"])
        result.sim_seconds += res.get("sim_s", 0.0)
        result.write_seconds += res.get("write_s", 0.0)
        result.cpu_seconds += res.get("cpu_s", 0.0)
        emit("batch", res)
        now = time.perf_counter()
        if now - last_save >= max(save_interval, 20 * save_cost[0]):
            save()
            last_save = now

    n_workers = _resolve_workers(workers, n_todo)
    emit(
        "start",
        {
            "spec": spec,
            "out": result.out,
            "total_batches": spec.n_batches,
            "done_batches": len(done),
            "total_rows": spec.n,
            "done_rows": sum(spec.batch_rows(int(b)) for b in done),
            "workers": n_workers if client is None else None,
            "scheduler": client,
        },
    )
    try:
        if not n_todo:
            pass
        elif client is not None:
            _run_dask(spec, storage, todo, client, batch_fn, record, emit, retries)
        elif n_workers == 0:
            for b in todo:
                record(execute_batch(spec, b, storage, batch_fn))
        else:
            _run_local(spec, storage, todo, n_workers, batch_fn, record, emit, retries, result)
    except KeyboardInterrupt:
        result.elapsed = time.perf_counter() - start
        save()
        raise RunInterrupted(len(done), spec.n_batches, result.out) from None
    except SchedulerLost as exc:
        save()
        exc.done, exc.total, exc.out = len(done), spec.n_batches, result.out
        raise
    except BaseException as exc:
        try:
            save()
        except OSError as failed:  # run.json keeps its last saved state (written atomically)
            if not no_space(failed):
                raise
            raise DiskFull(result.out, _kept(storage), spec.n_batches) from None
        if no_space(exc):
            raise DiskFull(result.out, len(done), spec.n_batches) from None
        raise
    result.elapsed = time.perf_counter() - start
    save(final=True)
    # a worker killed mid-write (a Dask worker, whose death the driver does not see) leaves a
    # temporary file: none is left behind once the run is complete
    clean_temporaries(storage)
    return result


class _Todo:
    """The batches still to run: a lazy iterator, plus batches put back for a retry (first)."""

    def __init__(self, batches: Iterable[int]):
        self._it = iter(batches)
        self._back: deque[int] = deque()
        self._next: int | None = None
        self._advance()

    def _advance(self) -> None:
        self._next = next(self._it, None)

    def __bool__(self) -> bool:
        return bool(self._back) or self._next is not None

    def __iter__(self):
        while self:
            yield self.popleft()

    def popleft(self) -> int:
        if self._back:
            return self._back.popleft()
        if self._next is None:
            raise IndexError("no batch left")
        batch = self._next
        self._advance()
        return batch

    def appendleft(self, batch: int) -> None:
        self._back.appendleft(batch)


def _resolve_workers(workers: int | None, n_todo: int) -> int:
    if workers is None:
        try:
            workers = len(os.sched_getaffinity(0))
        except AttributeError:  # not Linux
            workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise ValueError(f"workers must be a whole number >= 0, not {workers!r}")
    if workers == 0:
        return 0
    return max(1, min(workers, n_todo))


# --------------------------------------------------------------------------------------------
# Local backend: a small pool of spawned processes, one batch at a time each, so that the parent
# always knows which batch a dead worker was running.


def _worker_main(conn, spec: RunSpec, storage: Storage, batch_fn: BatchFn) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's business
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    while True:
        try:
            batch = conn.recv()
        except (EOFError, OSError):
            return
        if batch is None:
            return
        try:
            res = execute_batch(spec, batch, storage, batch_fn)
        except Exception as exc:
            if no_space(exc):  # not the engine's fault: the parent says so in one line
                conn.send(("nospace", batch, str(exc)))
                continue
            conn.send(("error", batch, *_failure(exc)))
        else:
            conn.send(("ok", res))


def _failure(exc: BaseException) -> tuple[str, str | None]:
    """A batch's failure as (one line, traceback). A user's bot failing (BotError) is the
    user's mistake, told in its one line; anything else is a bug and keeps its traceback."""
    from fastsheng.errors import BotError

    if isinstance(exc, BotError):
        return str(exc), None
    return f"{type(exc).__name__}: {exc}", traceback.format_exc()


class _Worker:
    def __init__(self, ctx, spec: RunSpec, storage: Storage, batch_fn: BatchFn):
        parent_conn, child_conn = ctx.Pipe(duplex=True)
        self.conn = parent_conn
        self.proc = ctx.Process(
            target=_worker_main,
            args=(child_conn, spec, storage, batch_fn),
            name="fastsheng-worker",
            daemon=True,
        )
        # SIGINT blocked while the child starts: it inherits the mask and unblocks SIGINT only
        # once it ignores it, so a Ctrl-C during start-up never prints a child's traceback.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.proc.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        child_conn.close()
        self.batch: int | None = None
        self.started = time.perf_counter()

    @property
    def pid(self) -> int | None:
        return self.proc.pid

    def assign(self, batch: int) -> None:
        self.batch = batch
        self.conn.send(batch)

    def stop(self, timeout: float = 1.0) -> None:
        """Stop now: SIGTERM, then SIGKILL if it has not exited within ``timeout``."""
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(timeout)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join(1.0)
        self.conn.close()

    def close(self) -> None:
        """Ask an idle worker to exit."""
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass


def died_phrase(reason: str) -> str:
    """ "was killed by SIGKILL", "exited with code 1", "vanished"."""
    return f"was {reason}" if reason.startswith("killed") else reason


def _death_reason(exitcode: int | None) -> str:
    if exitcode is None:
        return "vanished"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exited with code {exitcode}"


def _remove_batch_temporaries(storage: Storage, batch: int) -> None:
    prefix = "." + part_name(batch) + "."
    for table in ("hands", "matches", "tricks"):
        for name in storage.listdir(table):
            if name.startswith(prefix) and name.endswith(".tmp"):
                storage.remove(f"{table}/{name}")


def _run_local(
    spec: RunSpec,
    storage: Storage,
    todo: _Todo,
    n_workers: int,
    batch_fn: BatchFn,
    record: Callable[[Mapping[str, Any]], None],
    emit: EventFn,
    retries: int,
    result: RunResult,
) -> None:
    ctx = multiprocessing.get_context("spawn")
    queue = todo
    idle_deaths = 0
    failures: dict[int, int] = {}
    pool: list[_Worker] = []
    try:
        for _ in range(n_workers):
            pool.append(_Worker(ctx, spec, storage, batch_fn))
            emit("worker_started", {"pid": pool[-1].pid})
        while queue or any(w.batch is not None for w in pool):
            for i, w in enumerate(pool):
                if w.batch is None and queue:
                    if not w.proc.is_alive():  # died while idle: nothing to retry
                        emit(
                            "worker_died",
                            {
                                "pid": w.pid,
                                "batch": None,
                                "reason": _death_reason(w.proc.exitcode),
                                "attempt": 0,
                                "retry": False,
                            },
                        )
                        w.stop(0.1)
                        idle_deaths += 1
                        if idle_deaths > 3 * n_workers + retries:
                            raise FastshengError(
                                f"workers keep dying ({_death_reason(w.proc.exitcode)}) "
                                "before they get a batch; see the messages above"
                            )
                        w = pool[i] = _Worker(ctx, spec, storage, batch_fn)
                        emit("worker_started", {"pid": w.pid})
                    batch = queue.popleft()
                    try:
                        w.assign(batch)
                    except (BrokenPipeError, OSError):  # dying: its sentinel reports it
                        w.batch = batch
                    emit("assigned", {"pid": w.pid, "batch": batch})
            busy = [w for w in pool if w.batch is not None]
            waitables = [w.conn for w in busy] + [w.proc.sentinel for w in busy]
            ready = set(mp_wait(waitables, timeout=0.5))
            for i, w in enumerate(pool):
                if w.batch is None:
                    continue
                message = None
                if w.conn in ready:
                    try:
                        message = w.conn.recv()
                    except (EOFError, OSError):
                        message = None
                if message is not None:
                    if message[0] == "ok":
                        w.batch = None
                        record(message[1])
                        continue
                    if message[0] == "nospace":
                        raise OSError(errno.ENOSPC, message[2])
                    _, batch, text, tb = message
                    raise BatchFailed(batch, text, tb)
                if w.proc.sentinel in ready or not w.proc.is_alive():
                    w.proc.join(1.0)
                    batch = w.batch
                    reason = _death_reason(w.proc.exitcode)
                    failures[batch] = failures.get(batch, 0) + 1
                    result.retried.append(batch)
                    _remove_batch_temporaries(storage, batch)
                    emit(
                        "worker_died",
                        {
                            "pid": w.pid,
                            "batch": batch,
                            "reason": reason,
                            "attempt": failures[batch],
                            "retry": failures[batch] <= retries,
                        },
                    )
                    w.stop(0.1)
                    if failures[batch] > retries:
                        times = f"{failures[batch]} time(s)"
                        raise BatchFailed(
                            batch, f"its worker {died_phrase(reason)} {times}; giving up"
                        )
                    queue.appendleft(batch)
                    pool[i] = _Worker(ctx, spec, storage, batch_fn)
                    emit("worker_started", {"pid": pool[i].pid})
        for w in pool:
            w.close()
        for w in pool:
            w.proc.join(2.0)
    finally:
        interrupted_batches = [w.batch for w in pool if w.batch is not None]
        for w in pool:
            w.stop(1.0)
        for batch in interrupted_batches:
            _remove_batch_temporaries(storage, batch)


# --------------------------------------------------------------------------------------------
# Dask backend


def _connect_dask(scheduler: Any, connect_timeout: float):
    try:
        from dask.distributed import Client
    except ImportError:
        raise FastshengError(
            "--scheduler needs dask.distributed: pip install 'fastsheng[dask]'"
        ) from None
    if isinstance(scheduler, Client):
        return scheduler, False
    address = (
        scheduler if isinstance(scheduler, str) else getattr(scheduler, "scheduler_address", None)
    )
    if not isinstance(address, str):
        raise ValueError(f"scheduler must be an address like tcp://host:8786, not {scheduler!r}")
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import backends

    try:  # check the address first: a Client made from a bad one complains at exit
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls"):
            parse_host_port(location)
    except (ValueError, TypeError) as exc:
        raise FastshengError(
            f"bad Dask scheduler address {address!r} ({exc}); expected tcp://HOST:PORT"
        ) from None
    if scheme not in backends:  # the dashboard's http:// address hung 20 s: refuse it now
        raise FastshengError(
            f"bad Dask scheduler address {address!r}: {scheme}:// is not a scheduler protocol "
            f"(the dashboard's address is not the scheduler's); expected tcp://HOST:8786"
        )
    try:
        client = Client(address, timeout=f"{connect_timeout}s", set_as_default=False)
    except (OSError, TimeoutError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FastshengError(f"cannot reach the Dask scheduler at {address}: {text}") from None
    except ValueError as exc:
        raise FastshengError(f"bad Dask scheduler address {address!r}: {exc}") from None
    return client, True


def _run_dask(
    spec: RunSpec,
    storage: Storage,
    todo: _Todo,
    client: Any,
    batch_fn: BatchFn,
    record: Callable[[Mapping[str, Any]], None],
    emit: EventFn,
    retries: int,
) -> None:
    """The Dask loop; a scheduler that goes away mid-run is :class:`SchedulerLost`."""
    from concurrent.futures import CancelledError

    try:
        _dask_loop(spec, storage, todo, client, batch_fn, record, emit, retries)
    except (CancelledError, OSError, TimeoutError) as exc:
        if getattr(client, "status", "running") == "running" and not _connection_lost(exc):
            raise
        address = getattr(getattr(client, "scheduler", None), "address", "?")
        lines = str(exc).strip().splitlines()
        reason = "connection lost" if _connection_lost(exc) else (lines[0] if lines else "gone")
        raise SchedulerLost(address, reason) from None


def check_visible(storage: Storage, res: Mapping[str, Any]) -> None:
    """A Dask worker's parts must be where this process sees them, with the size it reported:
    a folder that is not shared (each machine's own ./runs) would scatter the run over the
    workers' disks while run.json records it as written."""
    batch = res["batch"]
    for table, info in res["parts"].items():
        rel = f"{table}/{part_name(batch)}"
        try:
            size = storage.size(rel)
        except FileNotFoundError:
            size = None
        if size != info["bytes"]:
            raise DatasetError(
                f"a Dask worker wrote {rel} where this machine does not see it in "
                f"{storage.display()}; --out must be a folder every worker shares (NFS...) or a "
                "URL (s3://...)"
            )


def _connection_lost(exc: BaseException) -> bool:
    return "connection" in str(exc).lower() or type(exc).__name__ == "CommClosedError"


def _dask_loop(
    spec: RunSpec,
    storage: Storage,
    todo: _Todo,
    client: Any,
    batch_fn: BatchFn,
    record: Callable[[Mapping[str, Any]], None],
    emit: EventFn,
    retries: int,
) -> None:
    from dask.distributed import as_completed

    token = uuid.uuid4().hex[:8]
    futures: dict[Any, int] = {}
    try:
        workers = client.nthreads()
        nthreads = sum(workers.values())
        window = max(4, 2 * nthreads)
        queue = todo
        if nthreads:
            emit("note", {"message": f"Dask: {len(workers)} workers, {nthreads} threads"})
        else:
            emit("note", {"message": "Dask: no workers yet; the tasks wait for the first one"})
        known, last_check = set(workers), time.perf_counter()

        def submit(batch: int):
            fut = client.submit(
                execute_batch,
                spec,
                batch,
                storage,
                batch_fn,
                key=f"fastsheng-{token}-batch-{batch}",
                pure=False,
                retries=retries,
            )
            futures[fut] = batch
            return fut

        first = [submit(queue.popleft()) for _ in range(window) if queue]
        pending = as_completed(first, loop=client.loop)
        for fut in pending:
            batch = futures.pop(fut)
            if fut.status == "error":
                exc = fut.exception()
                if no_space(exc):
                    raise OSError(errno.ENOSPC, str(exc))
                raise BatchFailed(batch, _failure(exc)[0])
            res = fut.result()
            check_visible(storage, res)
            record(res)
            fut.release()
            if queue:
                pending.add(submit(queue.popleft()))
            if time.perf_counter() - last_check > 2.0:  # report workers that left
                last_check = time.perf_counter()
                current = set(client.nthreads())
                for address in sorted(known - current):
                    emit(
                        "note",
                        {"message": f"warning: Dask worker {address} left; Dask reruns its tasks"},
                    )
                known = current
    finally:
        if futures:
            try:
                client.cancel(list(futures))
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
