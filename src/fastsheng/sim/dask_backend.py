"""The Dask backend (``scheduler="tcp://host:port"`` or a ``dask.distributed.Client``): one task
per batch; the Dask workers write their parts to the output location (a shared path or an fsspec
URL) and return the same small records; the client keeps the manifest."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from fastsheng.errors import FastshengError
from fastsheng.sim.batch import BatchFn, Todo, execute_batch
from fastsheng.sim.dataset import DatasetError, Storage, part_name
from fastsheng.sim.faults import (
    BatchFailed,
    OutOfMemory,
    SchedulerLost,
    failure_text,
    memory_detail,
    no_space,
    out_of_memory,
)
from fastsheng.sim.spec import RunSpec

__all__ = ["check_visible", "connect_dask", "quiet_lost_scheduler", "run_dask"]

EventFn = Callable[[str, Mapping[str, Any]], None]


def connect_dask(scheduler: Any, connect_timeout: float):
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


class _LostSchedulerNoise(logging.Filter):
    """The Dask client's own account of a lost scheduler: "Failed to reconnect to scheduler",
    and the traceback of its reconnection (a CancelledError, a refused connection) when the run
    closes the client. The run says it in one line (:class:`SchedulerLost`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage().startswith("Failed to reconnect to scheduler"):
            return False
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, (asyncio.CancelledError, OSError))


@contextlib.contextmanager
def quiet_lost_scheduler() -> Iterator[None]:
    """While a run holds its client (until it is closed): no client log of a lost scheduler."""
    logger = logging.getLogger("distributed.client")
    noise = _LostSchedulerNoise()
    logger.addFilter(noise)
    try:
        yield
    finally:
        logger.removeFilter(noise)


def run_dask(
    spec: RunSpec,
    storage: Storage,
    todo: Todo,
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
    todo: Todo,
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
            w, t = len(workers), nthreads
            emit(
                "note", {"message": f"Dask: {w} worker{'s' * (w != 1)}, {t} thread{'s' * (t != 1)}"}
            )
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
                if out_of_memory(exc):
                    raise OutOfMemory(batch, memory_detail(exc))
                if no_space(exc):
                    raise OSError(errno.ENOSPC, str(exc))
                raise BatchFailed(batch, failure_text(exc)[0])
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
