"""One writer per run folder: the exclusive lock file ``OUT/.lock``.

``fastsheng sim`` (and ``--resume``) creates ``OUT/.lock`` with an exclusive create before it
touches anything else and removes it on every way out (a normal end, an error, Ctrl-C, SIGTERM).
The file says who holds it (pid, host, the process's start time, when), so a second ``sim`` on
the same folder stops with one line naming the owner. A lock left by a process that no longer
exists (SIGKILL, a power cut) is *stale*: when its host is this machine and its pid is gone (or
is now another process: a different start time), the next run removes it and goes on. A lock
held on another host is never broken automatically: the message says which file to delete.

On a local disk the exclusive create is atomic; on an fsspec URL (s3://...) it is best effort
(check, write, read back).
"""

from __future__ import annotations

import errno
import json
import os
import socket
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from fastsheng.sim.dataset import DatasetError, Storage

__all__ = ["LOCK", "RunLocked", "RunLock", "acquire_lock"]

LOCK = ".lock"
#: A lock file that cannot be parsed is only judged stale once it is this old (its writer may be
#: between the create and the write).
UNREADABLE_GRACE_S = 10.0


class RunLocked(DatasetError):
    """Another process writes to this run folder."""


def _start_ticks(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (Linux), to tell a reused pid."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # the command name (field 2) may contain spaces and parentheses: split after its last ")"
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:
        return int(fields[19])  # field 22 of the whole line
    except (IndexError, ValueError):
        return None


def _owner_record() -> dict[str, Any]:
    pid = os.getpid()
    return {
        "pid": pid,
        "host": socket.gethostname(),
        "start_ticks": _start_ticks(pid),
        "since": datetime.now(UTC).isoformat(timespec="seconds"),
        "by": "fastsheng sim",
    }


def _pid_alive(pid: int, start_ticks: int | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        pass
    now = _start_ticks(pid)
    return start_ticks is None or now is None or now == start_ticks


def is_stale(owner: dict[str, Any] | None, age_s: float) -> bool:
    """True when the lock's owner surely no longer runs (judged only for this host)."""
    if owner is None:
        return age_s > UNREADABLE_GRACE_S
    if owner.get("host") != socket.gethostname():
        return False
    pid = owner.get("pid")
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
        return age_s > UNREADABLE_GRACE_S
    start = owner.get("start_ticks")
    return not _pid_alive(pid, start if isinstance(start, int) else None)


class RunLock:
    """The held lock of one run folder; :meth:`release` (or ``with``) removes it."""

    def __init__(self, storage: Storage, record: dict[str, Any]):
        self.storage = storage
        self.record = record
        self.held = True

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        if _read(self.storage)[0] == self.record:  # never remove a lock that is not ours
            self.storage.remove(LOCK)

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read(storage: Storage) -> tuple[dict[str, Any] | None, float]:
    """(owner record or None if unreadable, age of the file in seconds); (None, -1) if absent."""
    try:
        raw = storage.read_bytes(LOCK)
    except FileNotFoundError:
        return None, -1.0
    age = 0.0
    if storage.local:
        try:
            age = time.time() - os.stat(storage.path(LOCK)).st_mtime
        except FileNotFoundError:
            return None, -1.0
    try:
        owner = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None, age
    return (owner if isinstance(owner, dict) else None), age


def _create(storage: Storage, data: bytes) -> None:
    """Create the lock file, FileExistsError if it exists."""
    if storage.local:
        fd = os.open(storage.path(LOCK), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        return
    if storage.exists(LOCK):
        raise FileExistsError(storage.path(LOCK))
    storage.write_atomic(LOCK, data)
    if storage.read_bytes(LOCK) != data:  # another writer came in between
        raise FileExistsError(storage.path(LOCK))


def _break(storage: Storage, seen: dict[str, Any] | None) -> None:
    """Remove a stale lock, unless it changed since it was judged (another process broke it
    and took the folder in between): move it aside atomically, then look at what was moved."""
    if not storage.local:
        storage.remove(LOCK)
        return
    aside = storage.path(f"{LOCK}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        os.rename(storage.path(LOCK), aside)
    except FileNotFoundError:
        return
    try:
        with open(aside, "rb") as f:
            moved = json.loads(f.read())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        moved = None
    if moved != seen:  # a fresh lock: put it back (unless yet another one exists)
        try:
            os.link(aside, storage.path(LOCK))
        except FileExistsError:
            pass
    os.remove(aside)


def _describe(owner: dict[str, Any] | None) -> str:
    if owner is None:
        return "another process (its lock file is being written or is unreadable)"
    return (
        f"{owner.get('by', 'a process')} (pid {owner.get('pid')} on {owner.get('host')}, "
        f"since {owner.get('since')})"
    )


def acquire_lock(storage: Storage, emit=None) -> RunLock:
    """Take the run folder's lock (the folder must exist); RunLocked naming the owner if a live
    process holds it. ``emit("note", ...)`` reports a stale lock that was removed."""
    record = _owner_record()
    data = json.dumps(record).encode()
    for _ in range(5):
        try:
            _create(storage, data)
            return RunLock(storage, record)
        except FileExistsError:
            pass
        except OSError as exc:
            if not isinstance(exc, PermissionError) and exc.errno != errno.EROFS:
                raise
            raise DatasetError(
                f"{storage.display()}: cannot write there ({exc.strerror or exc}); a run is "
                "written or resumed where it can be written"
            ) from None
        owner, age = _read(storage)  # locked: by a live owner, or a stale lock to remove
        if age < 0:  # released in between
            continue
        if not is_stale(owner, age):
            raise RunLocked(
                f"{storage.display()} is in use by {_describe(owner)}; wait for it to end "
                f"or stop it (if no such process runs, delete {storage.display(LOCK)})"
            )
        _break(storage, owner)
        if emit is not None:
            emit("note", {"message": f"removed the stale lock of {_describe(owner)}"})
    raise RunLocked(f"{storage.display()}: could not take {LOCK}; other processes keep taking it")
