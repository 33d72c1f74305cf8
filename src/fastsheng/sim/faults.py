"""What stops a run or a batch, told in one line: Ctrl-C, a lost Dask scheduler, a full disk,
memory running out, a batch that failed or killed its worker too often."""

from __future__ import annotations

import errno
import signal
import traceback

from fastsheng.errors import FastshengError

__all__ = [
    "BatchFailed",
    "DiskFull",
    "OutOfMemory",
    "RunInterrupted",
    "SchedulerLost",
    "death_reason",
    "died_phrase",
    "failure_text",
    "memory_detail",
    "no_space",
    "out_of_memory",
]


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


class OutOfMemory(FastshengError):
    """A batch ran out of memory (a MemoryError, a library that could not be mapped under a
    memory limit): not the engine's fault; every finished batch is kept and recorded."""

    def __init__(self, batch: int | None, detail: str):
        where = "" if batch is None else f" in batch {batch}"
        super().__init__(f"out of memory{where} ({detail})")
        self.batch = batch
        self.detail = detail
        self.done = 0
        self.total = 0
        self.out = ""


# how memory running out reads when the exception is not a MemoryError: a shared library that
# cannot be mapped under `ulimit -v` (an ImportError), an allocation failing in C or C++
_NO_MEMORY_TEXTS = (
    "failed to map segment from shared object",
    "cannot allocate memory",
    "cannot map zero-fill pages",
    "std::bad_alloc",
)


def out_of_memory(exc: BaseException) -> bool:
    """Memory ran out: a MemoryError (numpy's, pyarrow's ArrowMemoryError...), ENOMEM, or a
    library that could not be loaded for want of memory; also when it crossed a process
    boundary as text."""
    if isinstance(exc, MemoryError):
        return True
    if isinstance(exc, OSError) and exc.errno == errno.ENOMEM:
        return True
    text = str(exc).lower()
    return any(marker in text for marker in _NO_MEMORY_TEXTS)


def memory_detail(exc: BaseException, limit: int = 80) -> str:
    """ "MemoryError: Unable to allocate 286. MiB for an array with shape (12500000,)...": the
    exception's first line, cut at a word (numpy's goes on with the whole dtype); a library
    that could not be mapped by its file name."""
    lines = str(exc).strip().splitlines()
    library, sep, _ = lines[0].partition(": failed to map segment") if lines else ("", "", "")
    if sep:
        return f"cannot load {library.strip().rsplit('/', 1)[-1]}"
    text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + "..."
    return text


class BatchFailed(FastshengError):
    """A batch failed: the batch function raised, or it killed its worker too many times."""

    def __init__(self, batch: int, message: str, remote_traceback: str | None = None):
        super().__init__(f"batch {batch} failed: {message}")
        self.batch = batch
        self.remote_traceback = remote_traceback


def failure_text(exc: BaseException) -> tuple[str, str | None]:
    """A batch's failure as (one line, traceback). A user's bot failing (BotError) is the
    user's mistake, told in its one line; anything else is a bug and keeps its traceback."""
    from fastsheng.errors import BotError

    if isinstance(exc, BotError):
        return str(exc), None
    return f"{type(exc).__name__}: {exc}", traceback.format_exc()


def died_phrase(reason: str) -> str:
    """ "was killed by SIGKILL", "exited with code 1", "vanished"."""
    return f"was {reason}" if reason.startswith("killed") else reason


def death_reason(exitcode: int | None) -> str:
    if exitcode is None:
        return "vanished"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exited with code {exitcode}"
