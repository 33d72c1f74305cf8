"""The local backend: a small pool of spawned processes, one batch at a time each, so that the
parent always knows which batch a dead worker was running. A worker that dies is reported and
its batch given to a fresh worker, up to ``retries`` more times; workers ignore SIGINT, the
parent stops them on Ctrl-C."""

from __future__ import annotations

import errno
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Mapping
from multiprocessing.connection import wait as mp_wait
from typing import Any

from fastsheng.errors import FastshengError
from fastsheng.sim.batch import BatchFn, Todo, execute_batch
from fastsheng.sim.dataset import Storage, part_name
from fastsheng.sim.faults import (
    BatchFailed,
    OutOfMemory,
    death_reason,
    died_phrase,
    failure_text,
    memory_detail,
    no_space,
    out_of_memory,
)
from fastsheng.sim.spec import RunSpec

__all__ = ["resolve_workers", "run_local"]

EventFn = Callable[[str, Mapping[str, Any]], None]


def resolve_workers(workers: int | None, n_todo: int) -> int:
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
            # neither is the engine's fault: the parent says so in one line
            if out_of_memory(exc):
                conn.send(("nomemory", batch, memory_detail(exc)))
                continue
            if no_space(exc):
                conn.send(("nospace", batch, str(exc)))
                continue
            conn.send(("error", batch, *failure_text(exc)))
        else:
            conn.send(("ok", res))


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


def _remove_batch_temporaries(storage: Storage, batch: int) -> None:
    prefix = "." + part_name(batch) + "."
    for table in ("hands", "matches", "tricks"):
        for name in storage.listdir(table):
            if name.startswith(prefix) and name.endswith(".tmp"):
                storage.remove(f"{table}/{name}")


class _Pool:
    """The worker processes of a local run. A worker found dead is reported (one "worker_died"
    event) and replaced; its batch, if it had one, goes back to the front of the queue until it
    has killed ``retries`` + 1 workers."""

    def __init__(self, spec, storage, batch_fn, emit: EventFn, retries: int):
        self.ctx = multiprocessing.get_context("spawn")
        self.spec, self.storage, self.batch_fn = spec, storage, batch_fn
        self.emit, self.retries = emit, retries
        self.workers: list[_Worker] = []
        self.idle_deaths = 0
        self.failures: dict[int, int] = {}

    def spawn(self) -> _Worker:
        w = _Worker(self.ctx, self.spec, self.storage, self.batch_fn)
        self.emit("worker_started", {"pid": w.pid})
        return w

    def busy(self) -> list[_Worker]:
        return [w for w in self.workers if w.batch is not None]

    def _died(self, w: _Worker, batch: int | None, attempt: int) -> str:
        """Report a dead worker and stop it; its death's reason ("killed by SIGKILL", ...)."""
        reason = death_reason(w.proc.exitcode)
        retry = batch is not None and attempt <= self.retries
        self.emit(
            "worker_died",
            {"pid": w.pid, "batch": batch, "reason": reason, "attempt": attempt, "retry": retry},
        )
        w.stop(0.1)
        return reason

    def _replace_idle(self, w: _Worker) -> _Worker:
        """A worker that died while idle: nothing to retry, unless workers die as they start."""
        reason = self._died(w, None, 0)
        self.idle_deaths += 1
        if self.idle_deaths > 3 * len(self.workers) + self.retries:
            raise FastshengError(
                f"workers keep dying ({reason}) before they get a batch; see the messages above"
            )
        return self.spawn()

    def _replace_busy(self, w: _Worker, queue: Todo, retried: list[int]) -> _Worker:
        w.proc.join(1.0)
        batch = w.batch
        self.failures[batch] = attempt = self.failures.get(batch, 0) + 1
        retried.append(batch)
        _remove_batch_temporaries(self.storage, batch)
        reason = self._died(w, batch, attempt)
        if attempt > self.retries:
            oom = (  # what a worker over the machine's memory dies of, without a word
                " (the kernel's out-of-memory killer sends SIGKILL: fewer --workers or a smaller "
                "--batch-size need less memory)"
                if reason == "killed by SIGKILL"
                else ""
            )
            raise BatchFailed(
                batch, f"its worker {died_phrase(reason)} {attempt} time(s); giving up{oom}"
            )
        queue.appendleft(batch)
        return self.spawn()

    def assign(self, queue: Todo) -> None:
        """Give every idle worker the next batch (replacing the dead ones first)."""
        for i, w in enumerate(self.workers):
            if w.batch is None and queue:
                if not w.proc.is_alive():
                    w = self.workers[i] = self._replace_idle(w)
                batch = queue.popleft()
                try:
                    w.assign(batch)
                except (BrokenPipeError, OSError):  # dying: its sentinel reports it
                    w.batch = batch
                self.emit("assigned", {"pid": w.pid, "batch": batch})

    def collect(self, queue: Todo, record, retried: list[int]) -> None:
        """Wait (up to 0.5 s) for the busy workers: record finished batches, replace the dead."""
        busy = self.busy()
        ready = set(mp_wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=0.5))
        for i, w in enumerate(self.workers):
            if w.batch is None:
                continue
            message = _receive(w) if w.conn in ready else None
            if message is not None:
                if message[0] == "ok":
                    w.batch = None  # idle again, even if recording fails
                _outcome(message, record)
            elif w.proc.sentinel in ready or not w.proc.is_alive():
                self.workers[i] = self._replace_busy(w, queue, retried)

    def close(self) -> None:
        for w in self.workers:
            w.close()
        for w in self.workers:
            w.proc.join(2.0)

    def stop(self) -> None:
        """Stop every worker now; a batch cut short leaves no temporary file."""
        interrupted = [w.batch for w in self.workers if w.batch is not None]
        for w in self.workers:
            w.stop(1.0)
        for batch in interrupted:
            _remove_batch_temporaries(self.storage, batch)


def _receive(w: _Worker):
    try:
        return w.conn.recv()
    except (EOFError, OSError):
        return None


def _outcome(message: tuple, record: Callable[[Mapping[str, Any]], None]) -> None:
    """A worker's answer: its batch recorded (the worker is idle again), or the run's failure."""
    if message[0] == "ok":
        record(message[1])
        return
    if message[0] == "nospace":
        raise OSError(errno.ENOSPC, message[2])
    if message[0] == "nomemory":
        raise OutOfMemory(message[1], message[2])
    _, batch, text, tb = message
    raise BatchFailed(batch, text, tb)


def run_local(
    spec: RunSpec,
    storage: Storage,
    todo: Todo,
    n_workers: int,
    batch_fn: BatchFn,
    record: Callable[[Mapping[str, Any]], None],
    emit: EventFn,
    retries: int,
    retried: list[int],
) -> None:
    """Run the batches of `todo` on `n_workers` processes; `retried` collects the batches given
    again after their worker died."""
    pool = _Pool(spec, storage, batch_fn, emit, retries)
    try:
        for _ in range(n_workers):
            pool.workers.append(pool.spawn())
        while todo or pool.busy():
            pool.assign(todo)
            pool.collect(todo, record, retried)
        pool.close()
    finally:
        pool.stop()
