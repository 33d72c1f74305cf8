"""One batch of a run: computed by the batch function from its seed alone, cut when it is the
run's truncated last batch, written atomically; and the batches still to run."""

from __future__ import annotations

import inspect
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from fastsheng.sim.dataset import Storage, write_batch
from fastsheng.sim.spec import RunSpec
from fastsheng.sim.summary import summarize

__all__ = [
    "BatchFn",
    "Todo",
    "call_batch_fn",
    "default_batch_fn",
    "execute_batch",
    "truncate_tables",
]

BatchFn = Callable[..., Mapping[str, pa.Table]]


def default_batch_fn() -> BatchFn:
    """The engine's batch function, :func:`fastsheng.engine.hands.play_batch`."""
    from fastsheng.engine.hands import play_batch

    return play_batch


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
    if spec.isolate or _accepts(fn, "isolate"):  # never played in process by a function that
        kwargs["isolate"] = spec.isolate  # cannot isolate (it refuses the keyword instead)
        kwargs["bot_limits"] = spec.bot_limits
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
    ``{"batch", "parts": {table: {rows, bytes, sha256}}, "stats", "sim_s", "write_s", "cpu_s",
    "write_cpu_s"}``."""
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
    c1 = time.process_time()
    parts = write_batch(storage, batch, tables)
    t2 = time.perf_counter()
    c2 = time.process_time()
    return {
        "batch": batch,
        "parts": {name: info.to_dict() for name, info in parts.items()},
        "stats": summarize(tables),
        "sim_s": t1 - t0,
        "write_s": t2 - t1,
        "cpu_s": time.process_time() - c0,  # < sim_s + write_s: the worker waited for a core
        # the writing's own CPU time (encoding, compression, checksums): unlike write_s, not
        # inflated by another job holding the core or the disk
        "write_cpu_s": c2 - c1,
    }


class Todo:
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
