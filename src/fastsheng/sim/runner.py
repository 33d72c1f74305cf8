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

This module is the orchestration (:func:`run`: prepare or resume the folder, dispatch, save
run.json, stop cleanly); each concern lives in its own module of ``fastsheng.sim`` (``spec``,
``batch``, ``summary``, ``faults``, ``local``, ``dask_backend``), re-exported here.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from fastsheng.errors import FastshengError  # noqa: F401  (runner.FastshengError, as before)
from fastsheng.sim.batch import (
    BatchFn,
    Todo,
    call_batch_fn,
    default_batch_fn,
    execute_batch,
    truncate_tables,
)
from fastsheng.sim.dask_backend import (
    check_visible,
    connect_dask,
    quiet_lost_scheduler,
    run_dask,
)
from fastsheng.sim.dataset import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    DatasetError,
    Storage,
    check_parts,
    clean_temporaries,
    read_manifest,
    write_manifest,
)
from fastsheng.sim.faults import (
    BatchFailed,
    DiskFull,
    OutOfMemory,
    RunInterrupted,
    SchedulerLost,
    died_phrase,
    memory_detail,
    no_space,
    out_of_memory,
)
from fastsheng.sim.local import resolve_workers, run_local
from fastsheng.sim.lock import LOCK, acquire_lock
from fastsheng.sim.spec import (
    DEFAULT_BATCH_SIZE,
    MODES,
    PYTHON_BATCH_SIZE,
    RunSpec,
    check_bots,
    check_portable,
    check_python_bots,
    default_batch_size,
    isolation_of,
    known_bots,
    lineup_label,
    lineup_names,
)
from fastsheng.sim.summary import merge_stats, summarize

__all__ = [
    "BatchFailed",
    "DiskFull",
    "OutOfMemory",
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
    # the rest of what code outside sim/ imports from here (fastsheng.runner, the CLI, studies)
    "BatchFn",
    "call_batch_fn",
    "check_bots",
    "check_portable",
    "check_python_bots",
    "check_visible",
    "died_phrase",
    "finished_run",
    "isolation_of",
    "known_bots",
    "lineup_label",
    "lineup_names",
    "no_space",
    "truncate_tables",
]

EventFn = Callable[[str, Mapping[str, Any]], None]


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
    write_cpu_seconds: float = 0.0
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
    Raises :class:`RunInterrupted` on Ctrl-C, :class:`BatchFailed`, :class:`DatasetError`,
    :class:`DiskFull`, :class:`OutOfMemory`, :class:`SchedulerLost`."""
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
        client, owned = connect_dask(scheduler, connect_timeout)
    # a lost scheduler is told in one line (SchedulerLost), not in the client's log too
    with quiet_lost_scheduler() if client is not None else contextlib.nullcontext():
        try:
            if resume:
                finished = finished_run(spec, storage)
                if finished is not None:  # nothing to write: works on a read-only folder too
                    return finished
                if not storage.exists():
                    raise DatasetError(
                        f"{storage.display()}: nothing to resume (no such run folder)"
                    )
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


class _Session:
    """This session of a run: the manifest it continues, the batches it records, run.json saved
    every ``save_interval`` seconds (and at the end, or when the run stops)."""

    def __init__(self, spec: RunSpec, storage: Storage, manifest: dict[str, Any], emit, interval):
        self.spec, self.storage, self.manifest = spec, storage, manifest
        self.emit, self.interval = emit, interval
        self.done: dict[str, Any] = manifest["batches"]
        self.result = RunResult(out=storage.display(), manifest=manifest)
        self.start = self.last_save = time.perf_counter()
        self.previous_elapsed = float(manifest.get("elapsed_seconds", 0.0))
        self.save_cost = 0.0

    def todo(self) -> Todo:
        # lazily: a run of 1e8 batches must not hold a list of them
        return Todo(b for b in range(self.spec.n_batches) if str(b) not in self.done)

    def start_info(self, n_workers: int, client: Any) -> dict[str, Any]:
        spec = self.spec
        return {
            "spec": spec,
            "out": self.result.out,
            "total_batches": spec.n_batches,
            "done_batches": len(self.done),
            "total_rows": spec.n,
            "done_rows": sum(spec.batch_rows(int(b)) for b in self.done),
            "workers": n_workers if client is None else None,
            "scheduler": client,
        }

    def save(self) -> None:
        manifest, done = self.manifest, self.done
        manifest["updated"] = _now()
        elapsed = self.previous_elapsed + time.perf_counter() - self.start
        manifest["elapsed_seconds"] = round(elapsed, 3)
        manifest["complete"] = len(done) == self.spec.n_batches
        ordered = dict(sorted(done.items(), key=lambda kv: int(kv[0])))
        done.clear()
        done.update(ordered)
        t = time.perf_counter()
        write_manifest(self.storage, manifest)
        # a huge manifest (1e5 batches) must not eat the parent: save at most 5% of the time
        self.save_cost = time.perf_counter() - t

    def record(self, res: Mapping[str, Any]) -> None:
        result = self.result
        self.done[str(res["batch"])] = {"parts": res["parts"], "stats": res["stats"]}
        result.batches_run += 1
        result.rows_run += self.spec.batch_rows(res["batch"])
        result.sim_seconds += res.get("sim_s", 0.0)
        result.write_seconds += res.get("write_s", 0.0)
        result.cpu_seconds += res.get("cpu_s", 0.0)
        result.write_cpu_seconds += res.get("write_cpu_s", 0.0)
        self.emit("batch", res)
        now = time.perf_counter()
        if now - self.last_save >= max(self.interval, 20 * self.save_cost):
            self.save()
            self.last_save = now

    def stopped(self, exc: BaseException) -> BaseException | None:
        """Save what is done when the run stops on `exc`; the exception to raise instead (None:
        `exc` itself)."""
        total, out = self.spec.n_batches, self.result.out
        if isinstance(exc, KeyboardInterrupt):
            self.result.elapsed = time.perf_counter() - self.start
            self.save()
            return RunInterrupted(len(self.done), total, out)
        if isinstance(exc, SchedulerLost | OutOfMemory) or out_of_memory(exc):
            # an in-process batch (workers=0), or the driver itself, ran out: OutOfMemory too
            stop = exc if isinstance(exc, SchedulerLost | OutOfMemory) else None
            stop = stop or OutOfMemory(None, memory_detail(exc))
            self.save()
            stop.done, stop.total, stop.out = len(self.done), total, out
            return None if stop is exc else stop
        try:
            self.save()
        except OSError as failed:  # run.json keeps its last saved state (written atomically)
            if not no_space(failed):
                raise
            return DiskFull(out, _kept(self.storage), total)
        return DiskFull(out, len(self.done), total) if no_space(exc) else None


def _in_process(spec: RunSpec, batch: int, storage: Storage, batch_fn: BatchFn):
    """One batch in this process (workers=0); memory running out names the batch, as a
    worker's does."""
    try:
        return execute_batch(spec, batch, storage, batch_fn)
    except Exception as exc:
        if out_of_memory(exc):
            raise OutOfMemory(batch, memory_detail(exc)) from None
        raise


def _run(spec, storage, workers, client, resume, batch_fn, emit, retries, save_interval):
    session = _Session(spec, storage, prepare(spec, storage, resume=resume, emit=emit), emit,
                       save_interval)  # fmt: skip
    todo = session.todo()
    n_todo = spec.n_batches - len(session.done)
    n_workers = resolve_workers(workers, n_todo)
    emit("start", session.start_info(n_workers, client))
    record = session.record
    try:
        if not n_todo:
            pass
        elif client is not None:
            run_dask(spec, storage, todo, client, batch_fn, record, emit, retries)
        elif n_workers == 0:
            for b in todo:
                record(_in_process(spec, b, storage, batch_fn))
        else:
            retried = session.result.retried
            run_local(spec, storage, todo, n_workers, batch_fn, record, emit, retries, retried)
    except BaseException as exc:
        instead = session.stopped(exc)
        if instead is not None:
            raise instead from None
        raise
    session.result.elapsed = time.perf_counter() - session.start
    session.save()
    # a worker killed mid-write (a Dask worker, whose death the driver does not see) leaves a
    # temporary file: none is left behind once the run is complete
    clean_temporaries(storage)
    return session.result
