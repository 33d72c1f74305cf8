"""The run driver's mechanics (batching, seeding, backends, retries, resume, interruption) on a
small deterministic stand-in for the engine's batch function, plus end-to-end runs of the real
engine on a few hundred hands."""

from __future__ import annotations

import errno
import os
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.dataset as pds
import pytest

from fastsheng.sim import dataset, runner
from fastsheng.sim.runner import BatchFailed, RunInterrupted, RunSpec

# --------------------------------------------------------------------------------------------
# A deterministic stand-in for fastsheng.engine.hands.play_batch (same signature and contract), used
# to test the driver alone. It lives here (importable as ``test_runner.fake_batch``) so that
# spawned workers and Dask workers can load it by name. Behaviour switches come from the
# environment, which spawned workers inherit:
#   FAKE_SLEEP=seconds per batch; FAKE_KILL=dir:batch (SIGKILL itself once on that batch, or
#   always with FAKE_KILL_ALWAYS=1); FAKE_FAIL=batch (raise); FAKE_NOSPACE=batch (ENOSPC);
#   FAKE_NOMEMORY=batch[:how] (memory runs out: numpy's MemoryError, or with :arrow pyarrow's,
#   with :import a library that cannot be mapped).


def fake_batch(rules, bots, seed, batch, size, *, mode="hands", level="2", tricks=False):
    """Rows numbered from batch * size (like fastsheng.engine.hands.play_batch: the driver plays a
    full batch and cuts it for the truncated last one); the draws of row i never depend on
    `size`, so a shorter batch is a prefix of a longer one."""
    sleep = float(os.environ.get("FAKE_SLEEP", "0"))
    if sleep:
        time.sleep(sleep)
    kill = os.environ.get("FAKE_KILL")
    if kill:
        folder, _, which = kill.rpartition(":")
        marker = Path(folder) / f"killed-{batch}"
        if int(which) == batch and (os.environ.get("FAKE_KILL_ALWAYS") or not marker.exists()):
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
    if os.environ.get("FAKE_FAIL") == str(batch):
        raise ValueError("the fake engine fails on purpose")
    if os.environ.get("FAKE_NOSPACE") == str(batch):
        raise OSError(errno.ENOSPC, "No space left on device")
    which, _, how = os.environ.get("FAKE_NOMEMORY", "").partition(":")
    if which == str(batch):
        if how == "arrow":
            raise pa.lib.ArrowMemoryError("malloc of size 4194304 failed")
        if how == "import":
            raise ImportError(
                "/venv/lib/libarrow.so.2600: failed to map segment from shared object"
            )
        np.zeros(2**60, np.uint8)  # 1 EiB, past any address space: numpy's own MemoryError
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(batch,)))
    draws = rng.integers(0, 2**31, size=(size, 3))  # row i: the i-th triple of the stream
    start = batch * size
    per_match = 3 if mode == "matches" else 1
    n = size * per_match

    def common(count, ids):
        return {
            "hand_id": pa.array(ids, pa.uint64()),
            "batch": pa.array(np.full(count, batch, np.uint32)),
            "rules": pa.array([rules.name] * count).dictionary_encode(),
            "bots": pa.array([",".join(bots)] * count).dictionary_encode(),
        }

    rows = np.repeat(draws, per_match, axis=0)
    points = ((rows[:, 0] % 41) * 5).astype(np.int16)
    ids = np.arange(start, start + size, dtype=np.uint64)
    if mode == "matches":
        hand_ids = np.repeat(ids, 3) * 65536 + np.tile(np.arange(1, 4, dtype=np.uint64), size)
    else:
        hand_ids = ids
    hands = pa.table(
        {
            **common(n, hand_ids),
            **({"match_id": pa.array(np.repeat(ids, 3))} if mode == "matches" else {}),
            "level": pa.array([level] * n).dictionary_encode(),
            "defenders_total": pa.array(points),
            "winner": pa.array(np.where(points < 80, "dealer", "defenders")).dictionary_encode(),
            "levels": pa.array((rows[:, 1] % 4).astype(np.uint8)),
            "kitty_captured": pa.array(rows[:, 2] % 5 == 0),
        }
    )
    out = {"hands": hands}
    if mode == "matches":
        winner = np.array(["team0", "team1", "draw"])[draws[:, 1] % 3]
        out["matches"] = pa.table(
            {
                "match_id": pa.array(ids),
                **common(size, ids * 65536 + 1),
                "winner": pa.array(winner).dictionary_encode(),
                "hands": pa.array(np.full(size, 3, np.uint16)),
            }
        )
    if tricks:
        k = 3 * n
        out["tricks"] = pa.table(
            {
                **common(k, np.repeat(hand_ids, 3)),
                "trick": pa.array(np.tile(np.arange(3, dtype=np.uint8), n)),
            }
        )
    return out


class FakeRules:
    """Enough of fastsheng.rules.Rules for the driver: a name and to_dict()."""

    def __init__(self, name="standard", **switches):
        self.name = name
        self.switches = {"kitty_multiplier": "plus_two", **switches}

    def to_dict(self):
        return dict(self.switches)

    def __eq__(self, other):
        return isinstance(other, FakeRules) and self.to_dict() == other.to_dict()

    def __hash__(self):
        return hash(self.name)


def spec(n=300, batch_size=64, seed=7, **kw):
    kw.setdefault("rules", FakeRules())
    kw.setdefault("bots", ("random",) * 4)
    return RunSpec(seed=seed, n=n, batch_size=batch_size, **kw)


def read(out, table="hands"):
    return (
        pds.dataset(Path(out) / table)
        .to_table()
        .sort_by(
            [("batch", "ascending"), ("hand_id", "ascending")]
            if table != "matches"
            else [("match_id", "ascending")]
        )
    )


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in (
        *("FAKE_SLEEP", "FAKE_KILL", "FAKE_KILL_ALWAYS", "FAKE_FAIL", "FAKE_NOSPACE"),
        "FAKE_NOMEMORY",
    ):
        monkeypatch.delenv(name, raising=False)


# --------------------------------------------------------------------------------------------
# Batching


def test_batches_cover_n_with_a_truncated_last_batch():
    s = spec(n=300, batch_size=64)
    assert s.n_batches == 5
    assert [s.batch_rows(b) for b in range(5)] == [64, 64, 64, 64, 44]
    assert spec(n=128, batch_size=64).n_batches == 2
    with pytest.raises(IndexError):
        s.batch_rows(5)


@pytest.mark.parametrize(
    "kw, word",
    [
        ({"n": 0}, "n must"),
        ({"n": -5}, "n must"),
        ({"batch_size": 0}, "batch size"),
        ({"seed": -1}, "seed"),
        ({"mode": "games"}, "mode"),
        ({"level": "1"}, "level"),
        ({"bots": ("random",) * 3}, "or four .one per seat"),
    ],
)
def test_spec_rejects_bad_values(kw, word):
    with pytest.raises(ValueError, match=word):
        spec(**kw)


def test_hand_ids_run_from_0_to_n_minus_1_across_a_truncated_last_batch(tmp_path):
    runner.run(
        spec(n=300, batch_size=64, tricks=True), tmp_path / "r", workers=0, batch_fn=fake_batch
    )
    assert read(tmp_path / "r")["hand_id"].to_pylist() == list(range(300))
    tricks = pds.dataset(tmp_path / "r" / "tricks").to_table()
    assert sorted(set(tricks["hand_id"].to_pylist())) == list(range(300))


def test_truncated_matches_batch_keeps_the_hands_of_its_matches(tmp_path):
    runner.run(
        spec(n=100, batch_size=64, mode="matches", tricks=True),
        tmp_path / "m",
        workers=0,
        batch_fn=fake_batch,
    )
    matches = pds.dataset(tmp_path / "m" / "matches").to_table()
    hands = pds.dataset(tmp_path / "m" / "hands").to_table()
    assert sorted(matches["match_id"].to_pylist()) == list(range(100))
    assert sorted(set(hands["match_id"].to_pylist())) == list(range(100))
    assert hands.num_rows == 300


def test_a_batch_fn_taking_batch_size_plays_only_the_truncated_rows(tmp_path):
    calls = []

    def fn(rules, bots, seed, batch, size, *, batch_size=None, **kw):
        calls.append((batch, size, batch_size))
        return fake_batch(rules, bots, seed, batch, size, **kw)

    runner.run(spec(n=100, batch_size=64), tmp_path / "r", workers=0, batch_fn=fn)
    assert calls == [(0, 64, None), (1, 36, 64)]


def test_summary_aggregates(tmp_path):
    res = runner.run(spec(n=300, batch_size=64), tmp_path / "r", workers=0, batch_fn=fake_batch)
    table = read(tmp_path / "r")
    stats = res.stats
    assert stats["hands"] == 300
    assert stats["defender_points_sum"] == sum(table["defenders_total"].to_pylist())
    winners = table["winner"].cast(pa.string()).to_pylist()
    assert stats["dealer_wins"] == winners.count("dealer")
    assert stats["kitty_captures"] == sum(table["kitty_captured"].to_pylist())
    assert sum(stats["level_change"].values()) == 300
    levels = table["levels"].to_pylist()
    expected = sum(1 for w, lv in zip(winners, levels, strict=True) if w == "dealer" and lv == 2)
    assert stats["level_change"].get("dealer+2", 0) == expected


def test_in_process_run_writes_parts_and_manifest(tmp_path):
    out = tmp_path / "run"
    res = runner.run(spec(tricks=True), out, workers=0, batch_fn=fake_batch)
    assert res.complete and res.batches_run == 5 and res.rows_run == 300
    names = sorted(os.listdir(out / "hands"))
    assert names == [f"part-{b:05d}.parquet" for b in range(5)]
    assert sorted(os.listdir(out / "tricks")) == names
    manifest = dataset.read_manifest(dataset.Storage(out))
    assert manifest["n"] == 300 and manifest["batch_size"] == 64 and manifest["seed"] == 7
    assert manifest["rules"] == {"kitty_multiplier": "plus_two"}
    assert manifest["bots"] == ["random"] * 4 and manifest["complete"] is True
    assert manifest["batches"]["4"]["parts"]["hands"]["rows"] == 44
    assert manifest["batches"]["4"]["parts"]["tricks"]["rows"] == 132
    table = read(out)
    assert table.num_rows == 300
    assert res.stats["hands"] == 300


def test_workers_1_2_and_in_process_give_identical_data(tmp_path):
    s = spec(n=500, batch_size=40)
    tables = []
    for name, workers in (("w0", 0), ("w1", 1), ("w2", 2)):
        runner.run(s, tmp_path / name, workers=workers, batch_fn=fake_batch)
        tables.append(read(tmp_path / name))
    assert tables[0].equals(tables[1]) and tables[0].equals(tables[2])
    # and the parts are byte-identical: same checksums in the manifests
    sums = [
        {
            b: e["parts"]["hands"]["sha256"]
            for b, e in dataset.read_manifest(dataset.Storage(tmp_path / name))["batches"].items()
        }
        for name in ("w0", "w1", "w2")
    ]
    assert sums[0] == sums[1] == sums[2]


def test_batch_seeding_is_independent_of_n(tmp_path):
    """Batch b only depends on (seed, b): a longer run starts with the shorter one's data."""
    runner.run(spec(n=100, batch_size=64), tmp_path / "a", workers=0, batch_fn=fake_batch)
    runner.run(spec(n=200, batch_size=64), tmp_path / "b", workers=0, batch_fn=fake_batch)
    a, b = read(tmp_path / "a"), read(tmp_path / "b")
    assert b.slice(0, 100).equals(a)


# --------------------------------------------------------------------------------------------
# Resume and the manifest


def test_existing_folder_without_resume_is_refused(tmp_path):
    runner.run(spec(n=64), tmp_path / "r", workers=0, batch_fn=fake_batch)
    with pytest.raises(dataset.DatasetError, match="already exists; add --resume"):
        runner.run(spec(n=64), tmp_path / "r", workers=0, batch_fn=fake_batch)


def test_resume_finishes_exactly_the_missing_batches(tmp_path):
    out = tmp_path / "r"
    full = tmp_path / "full"
    s = spec(n=300, batch_size=64)
    runner.run(s, full, workers=0, batch_fn=fake_batch)
    runner.run(s, out, workers=0, batch_fn=fake_batch)
    storage = dataset.Storage(out)
    manifest = dataset.read_manifest(storage)
    # forget batches 1 and 3 (as if interrupted before they were recorded), delete one part
    del manifest["batches"]["1"], manifest["batches"]["3"]
    manifest["complete"] = False
    dataset.write_manifest(storage, manifest)
    os.remove(out / "hands" / "part-00003.parquet")
    (out / "hands" / ".part-00001.parquet.abc.tmp").write_bytes(b"half")
    seen = []
    res = runner.run(
        s,
        out,
        workers=0,
        batch_fn=fake_batch,
        resume=True,
        on_event=lambda kind, info: seen.append((kind, info.get("batch"))),
    )
    assert sorted(b for kind, b in seen if kind == "batch") == [1, 3]
    assert res.complete and res.batches_run == 2
    assert not [p for p in os.listdir(out / "hands") if p.endswith(".tmp")]
    assert read(out).equals(read(full))


def test_resume_of_a_complete_run_does_nothing(tmp_path):
    s = spec(n=100)
    runner.run(s, tmp_path / "r", workers=0, batch_fn=fake_batch)
    res = runner.run(s, tmp_path / "r", workers=0, batch_fn=fake_batch, resume=True)
    assert res.batches_run == 0 and res.complete


def test_resume_of_a_complete_run_on_a_read_only_folder_does_nothing(tmp_path, monkeypatch):
    import errno

    from fastsheng.sim import lock as runlock

    s = spec(n=100)
    out = tmp_path / "r"
    runner.run(s, out, workers=0, batch_fn=fake_batch)
    before = (out / "run.json").read_bytes()

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    # a read-only mount (tests may run as root, whom chmod does not stop)
    for target, name in (
        (dataset.Storage, "write_atomic"),
        (dataset.Storage, "remove"),
        (dataset.Storage, "makedirs"),
        (runlock, "_create"),
    ):
        monkeypatch.setattr(target, name, read_only)
    res = runner.run(s, out, workers=0, batch_fn=fake_batch, resume=True)
    assert res.batches_run == 0 and res.complete
    assert (out / "run.json").read_bytes() == before and not (out / ".lock").exists()


def test_a_memory_folder_is_refused_for_worker_processes():
    pytest.importorskip("fsspec")
    with pytest.raises(dataset.DatasetError, match="worker processes cannot write there"):
        runner.run(spec(n=100), "memory://fastsheng-test-run", workers=2, batch_fn=fake_batch)
    res = runner.run(spec(n=100), "memory://fastsheng-test-run", workers=0, batch_fn=fake_batch)
    assert res.complete


def test_a_dask_worker_writing_where_the_client_cannot_see_is_an_error(tmp_path, monkeypatch):
    """--out a folder that is not shared: each worker machine writes to its own disk. Simulated
    with in-process workers whose writes land in another folder."""
    distributed = pytest.importorskip("dask.distributed")
    elsewhere = dataset.Storage(tmp_path / "worker-disk")
    from fastsheng.sim import batch as batch_module

    real = batch_module.write_batch
    monkeypatch.setattr(batch_module, "write_batch", lambda storage, b, t: real(elsewhere, b, t))
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        with pytest.raises(dataset.DatasetError, match="where this machine does not see it"):
            runner.run(
                spec(n=100, batch_size=50),
                tmp_path / "r",
                scheduler=cluster.scheduler_address,
                batch_fn=fake_batch,
            )
    assert dataset.read_manifest(dataset.Storage(tmp_path / "r"))["batches"] == {}


def test_resuming_where_nothing_can_be_written_is_one_line(tmp_path, monkeypatch):
    from fastsheng.sim import lock as runlock

    s = spec(n=300)
    runner.run(s, tmp_path / "r", workers=0, batch_fn=fake_batch)
    manifest = dataset.read_manifest(dataset.Storage(tmp_path / "r"))
    del manifest["batches"]["2"]
    manifest["complete"] = False
    dataset.write_manifest(dataset.Storage(tmp_path / "r"), manifest)

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(runlock, "_create", read_only)
    with pytest.raises(dataset.DatasetError, match="cannot write there \\(Read-only file system"):
        runner.run(s, tmp_path / "r", workers=0, batch_fn=fake_batch, resume=True)


# --------------------------------------------------------------------------------------------
# A full disk


def test_a_full_disk_in_a_worker_stops_the_run_keeping_finished_batches(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_NOSPACE", "3")
    with pytest.raises(runner.DiskFull, match="no space left on the device of") as info:
        runner.run(spec(n=64 * 8, batch_size=64), tmp_path / "r", workers=2, batch_fn=fake_batch)
    manifest = dataset.read_manifest(dataset.Storage(tmp_path / "r"))
    assert info.value.done == len(manifest["batches"]) and "3" not in manifest["batches"]
    assert info.value.total == 8 and not (tmp_path / "r" / ".lock").exists()


# --------------------------------------------------------------------------------------------
# Memory running out


@pytest.mark.parametrize(
    "workers, how, detail",
    [
        (2, "", "MemoryError: Unable to allocate 1.00 EiB"),
        (2, "arrow", "ArrowMemoryError: malloc of size 4194304 failed"),
        (2, "import", "cannot load libarrow.so.2600"),
        (0, "", "MemoryError: Unable to allocate 1.00 EiB"),
    ],
)
def test_memory_running_out_stops_the_run_keeping_finished_batches(
    tmp_path, monkeypatch, workers, how, detail
):
    """Not the engine's fault: no traceback, no retry; the finished batches stay for --resume."""
    monkeypatch.setenv("FAKE_NOMEMORY", f"3:{how}")
    s = spec(n=64 * 8, batch_size=64)
    with pytest.raises(runner.OutOfMemory) as info:
        runner.run(s, tmp_path / "r", workers=workers, batch_fn=fake_batch)
    assert str(info.value).startswith(f"out of memory in batch 3 ({detail}")
    assert len(str(info.value)) < 120  # numpy's message goes on with the dtype: cut
    manifest = dataset.read_manifest(dataset.Storage(tmp_path / "r"))
    assert info.value.done == len(manifest["batches"]) and "3" not in manifest["batches"]
    assert info.value.total == 8 and info.value.out == str(tmp_path / "r")
    assert not (tmp_path / "r" / ".lock").exists()
    monkeypatch.delenv("FAKE_NOMEMORY")
    runner.run(s, tmp_path / "r", workers=workers, batch_fn=fake_batch, resume=True)
    runner.run(s, tmp_path / "w", workers=0, batch_fn=fake_batch)
    assert read(tmp_path / "r").equals(read(tmp_path / "w"))


def test_a_full_disk_while_writing_parts_or_run_json(tmp_path, monkeypatch):
    real = dataset.Storage.write_atomic
    writes = []

    def fills_up(self, rel, data):
        writes.append(rel)
        if len(writes) > 4:  # run.json, then a few parts and saves succeed
            raise OSError(errno.ENOSPC, "No space left on device", self.path(rel))
        real(self, rel, data)

    monkeypatch.setattr(dataset.Storage, "write_atomic", fills_up)
    s = spec(n=300, batch_size=30)
    with pytest.raises(runner.DiskFull) as info:
        runner.run(s, tmp_path / "r", workers=0, batch_fn=fake_batch, save_interval=0)
    monkeypatch.setattr(dataset.Storage, "write_atomic", real)
    manifest = dataset.read_manifest(dataset.Storage(tmp_path / "r"))
    assert info.value.done == len(manifest["batches"]) < 10
    runner.run(s, tmp_path / "r", workers=0, batch_fn=fake_batch, resume=True)
    runner.run(s, tmp_path / "w", workers=0, batch_fn=fake_batch)
    assert read(tmp_path / "r").equals(read(tmp_path / "w"))


# --------------------------------------------------------------------------------------------
# One writer per folder: the lock


def _dead_pid() -> int:
    import subprocess

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _write_lock(out, **owner):
    import json
    import socket

    out.mkdir(parents=True, exist_ok=True)
    record = {"pid": os.getpid(), "host": socket.gethostname(), "by": "fastsheng sim", **owner}
    (out / ".lock").write_text(json.dumps(record))


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path):
    from fastsheng.sim.lock import RunLocked, acquire_lock

    out = tmp_path / "r"
    s = spec(n=100)
    runner.run(s, out, workers=0, batch_fn=fake_batch)
    (out / "run.json").write_text(
        (out / "run.json").read_text().replace('"complete": true', '"complete": false')
    )
    with acquire_lock(dataset.Storage(out)):
        with pytest.raises(RunLocked, match=rf"in use by fastsheng sim \(pid {os.getpid()} on "):
            runner.run(s, out, workers=0, batch_fn=fake_batch, resume=True)
        with pytest.raises(RunLocked, match="in use by"):  # a fresh run: not "already exists"
            runner.run(s, out, workers=0, batch_fn=fake_batch)
        assert (out / ".lock").exists()
    assert not (out / ".lock").exists()
    assert runner.run(s, out, workers=0, batch_fn=fake_batch, resume=True).complete


def test_a_stale_lock_of_a_dead_process_is_removed(tmp_path):
    out = tmp_path / "r"
    _write_lock(out, pid=_dead_pid())
    notes = []
    res = runner.run(
        spec(n=100),
        out,
        workers=0,
        batch_fn=fake_batch,
        on_event=lambda kind, info: notes.append(info.get("message", "")),
    )
    assert res.complete and not (out / ".lock").exists()
    assert any(n.startswith("removed the stale lock of fastsheng sim (pid") for n in notes)


def test_a_reused_pid_does_not_keep_a_lock_alive(tmp_path):
    out = tmp_path / "r"
    _write_lock(out, pid=os.getpid(), start_ticks=1)  # this pid, but another process's start
    assert runner.run(spec(n=100), out, workers=0, batch_fn=fake_batch).complete


def test_a_lock_of_another_host_is_never_broken(tmp_path):
    from fastsheng.sim.lock import RunLocked

    out = tmp_path / "r"
    _write_lock(out, pid=_dead_pid(), host="elsewhere.example")
    with pytest.raises(RunLocked, match=r"on elsewhere.example.*delete .*\.lock"):
        runner.run(spec(n=100), out, workers=0, batch_fn=fake_batch)
    assert not (out / "run.json").exists()


def test_the_lock_is_released_when_a_batch_fails(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_FAIL", "1")
    with pytest.raises(ValueError, match="on purpose"):  # in-process: the engine's own error
        runner.run(spec(n=300), tmp_path / "r", workers=0, batch_fn=fake_batch)
    assert not (tmp_path / "r" / ".lock").exists()


def test_resume_refuses_a_manifest_that_disagrees(tmp_path):
    runner.run(spec(n=100), tmp_path / "r", workers=0, batch_fn=fake_batch)
    with pytest.raises(
        dataset.DatasetError, match=r"disagrees with the options: seed 8 \(run.json: 7\)"
    ):
        runner.run(spec(n=100, seed=8), tmp_path / "r", workers=0, batch_fn=fake_batch, resume=True)
    with pytest.raises(dataset.DatasetError, match="rules switches kitty_multiplier"):
        runner.run(
            spec(n=100, rules=FakeRules(kitty_multiplier="linear")),
            tmp_path / "r",
            workers=0,
            batch_fn=fake_batch,
            resume=True,
        )


def test_resume_refuses_a_corrupt_part(tmp_path):
    runner.run(spec(n=100), tmp_path / "r", workers=0, batch_fn=fake_batch)
    part = tmp_path / "r" / "hands" / "part-00001.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    with pytest.raises(dataset.DatasetError, match="corrupt part .*part-00001.parquet: checksum"):
        runner.run(spec(n=100), tmp_path / "r", workers=0, batch_fn=fake_batch, resume=True)
    part.write_bytes(b"short")
    with pytest.raises(dataset.DatasetError, match="has 5 bytes"):
        runner.run(spec(n=100), tmp_path / "r", workers=0, batch_fn=fake_batch, resume=True)


def test_resume_of_nothing_is_refused(tmp_path):
    with pytest.raises(dataset.DatasetError, match="nothing to resume"):
        runner.run(spec(n=100), tmp_path / "nope", workers=0, batch_fn=fake_batch, resume=True)


# --------------------------------------------------------------------------------------------
# Failures: killed workers, exceptions, Ctrl-C


def test_a_sigkilled_worker_is_reported_and_its_batch_retried(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KILL", f"{tmp_path}:2")
    events = []
    s = spec(n=300, batch_size=64)
    res = runner.run(
        s,
        tmp_path / "r",
        workers=2,
        batch_fn=fake_batch,
        on_event=lambda kind, info: events.append((kind, dict(info))),
    )
    died = [info for kind, info in events if kind == "worker_died"]
    assert len(died) == 1
    assert died[0]["batch"] == 2 and died[0]["reason"] == "killed by SIGKILL" and died[0]["retry"]
    assert res.complete and res.retried == [2]
    runner.run(s, tmp_path / "ref", workers=0, batch_fn=fake_batch)
    assert read(tmp_path / "r").equals(read(tmp_path / "ref"))


def test_a_batch_that_always_kills_its_worker_fails_the_run(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KILL", f"{tmp_path}:1")
    monkeypatch.setenv("FAKE_KILL_ALWAYS", "1")
    s = spec(n=300, batch_size=64)
    with pytest.raises(
        BatchFailed, match=r"batch 1 failed: its worker was killed by SIGKILL 3 time\(s\)"
    ) as info:
        runner.run(s, tmp_path / "r", workers=2, batch_fn=fake_batch, retries=2)
    assert "out-of-memory killer sends SIGKILL: fewer --workers or a smaller" in str(info.value)
    manifest = dataset.read_manifest(dataset.Storage(tmp_path / "r"))
    assert "1" not in manifest["batches"] and not manifest["complete"]


def test_an_exception_in_a_worker_fails_the_run_and_keeps_finished_batches(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_FAIL", "4")
    with pytest.raises(BatchFailed, match="batch 4 failed: ValueError: the fake engine") as info:
        runner.run(spec(n=300, batch_size=64), tmp_path / "r", workers=1, batch_fn=fake_batch)
    assert "Traceback" in info.value.remote_traceback
    manifest = dataset.read_manifest(dataset.Storage(tmp_path / "r"))
    assert set(manifest["batches"]) == {"0", "1", "2", "3"}
    monkeypatch.delenv("FAKE_FAIL")
    res = runner.run(
        spec(n=300, batch_size=64), tmp_path / "r", workers=1, batch_fn=fake_batch, resume=True
    )
    assert res.batches_run == 1 and res.complete


def test_keyboard_interrupt_stops_workers_and_keeps_finished_batches(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_SLEEP", "0.2")
    s = spec(n=64 * 40, batch_size=64)
    seen = []

    def on_event(kind, info):
        if kind == "batch":
            seen.append(info["batch"])
            if len(seen) == 4:
                # as if Ctrl-C arrived: SIGINT to this process only (workers ignore it anyway)
                threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()

    t0 = time.perf_counter()
    with pytest.raises(RunInterrupted) as info:
        runner.run(s, tmp_path / "r", workers=2, batch_fn=fake_batch, on_event=on_event)
    assert time.perf_counter() - t0 < 8
    manifest = dataset.read_manifest(dataset.Storage(tmp_path / "r"))
    assert info.value.done == len(manifest["batches"]) >= 4
    assert not manifest["complete"]
    assert not [p for p in os.listdir(tmp_path / "r" / "hands") if p.endswith(".tmp")]
    assert not (tmp_path / "r" / ".lock").exists()  # released on Ctrl-C
    monkeypatch.delenv("FAKE_SLEEP")
    runner.run(s, tmp_path / "r", workers=2, batch_fn=fake_batch, resume=True)
    runner.run(s, tmp_path / "ref", workers=0, batch_fn=fake_batch)
    assert read(tmp_path / "r").equals(read(tmp_path / "ref"))


# --------------------------------------------------------------------------------------------
# Dask backend on a LocalCluster


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip("dask.distributed")
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=40,
    )
    yield cluster
    cluster.close()


def test_dask_backend_gives_the_same_data(tmp_path, dask_cluster):
    s = spec(n=500, batch_size=40, tricks=True)
    res = runner.run(
        s, tmp_path / "d", scheduler=dask_cluster.scheduler_address, batch_fn=fake_batch
    )
    assert res.complete and res.batches_run == s.n_batches
    runner.run(s, tmp_path / "w", workers=0, batch_fn=fake_batch)
    assert read(tmp_path / "d").equals(read(tmp_path / "w"))
    assert read(tmp_path / "d", "tricks").equals(read(tmp_path / "w", "tricks"))
    md = dataset.read_manifest(dataset.Storage(tmp_path / "d"))
    mw = dataset.read_manifest(dataset.Storage(tmp_path / "w"))
    assert md["batches"] == mw["batches"]


def test_dask_backend_reports_a_failing_batch(tmp_path, dask_cluster):
    with pytest.raises(BatchFailed, match=r"batch \d+ failed: ValueError: nope"):
        runner.run(
            spec(n=100),
            tmp_path / "d",
            scheduler=dask_cluster.scheduler_address,
            batch_fn=_always_fails,
            retries=0,
        )


def _always_fails(rules, bots, seed, batch, size, **kw):
    raise ValueError("nope")


def test_unreachable_scheduler_is_a_clear_error(tmp_path):
    pytest.importorskip("dask.distributed")
    with pytest.raises(
        runner.FastshengError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"
    ):
        runner.run(
            spec(n=100),
            tmp_path / "d",
            scheduler="tcp://127.0.0.1:9",
            batch_fn=fake_batch,
            connect_timeout=1.0,
        )
    assert not (tmp_path / "d").exists()  # nothing created: the same command can be retried


# --------------------------------------------------------------------------------------------
# End to end with the real engine (fastsheng.engine.hands), a few hundred hands


@pytest.fixture(scope="module")
def hands_mod():
    return pytest.importorskip("fastsheng.engine.hands")


def real_spec(n=250, batch_size=100, **kw):
    from fastsheng.rules import get_rules

    kw.setdefault("bots", ("expert", "basic", "expert", "random"))
    return RunSpec(rules=get_rules("standard"), seed=11, n=n, batch_size=batch_size, **kw)


def read_sorted(out, table, keys):
    return pds.dataset(Path(out) / table).to_table().sort_by([(k, "ascending") for k in keys])


def test_real_engine_dataset_is_simulate_hands(tmp_path, hands_mod):
    """The driver's dataset (truncated last batch included) is exactly the engine's own
    simulate_hands of the same run, columns, types and all."""
    s = real_spec(tricks=True)
    runner.run(s, tmp_path / "r", workers=0)
    expected = hands_mod.simulate_hands(
        s.rules, s.bots, s.seed, s.n, batch_size=s.batch_size, tricks=True
    )
    assert read_sorted(tmp_path / "r", "hands", ["hand_id"]).equals(expected["hands"])
    tricks = read_sorted(tmp_path / "r", "tricks", ["hand_id", "trick"])
    assert tricks.equals(expected["tricks"])


def test_real_engine_matches_mode(tmp_path, hands_mod):
    s = real_spec(n=6, batch_size=4, mode="matches")
    res = runner.run(s, tmp_path / "m", workers=0)
    expected = hands_mod.simulate_matches(s.rules, s.bots, s.seed, s.n, batch_size=4, hands=True)
    assert read_sorted(tmp_path / "m", "matches", ["match_id"]).equals(expected["matches"])
    assert read_sorted(tmp_path / "m", "hands", ["hand_id"]).equals(expected["hands"])
    assert res.stats["matches"] == 6 and res.stats["hands"] == expected["hands"].num_rows


def test_real_engine_same_data_with_1_and_2_workers_and_dask(tmp_path, hands_mod, dask_cluster):
    s = real_spec(n=600, batch_size=100, tricks=True)
    runner.run(s, tmp_path / "w1", workers=1)
    runner.run(s, tmp_path / "w2", workers=2)
    runner.run(s, tmp_path / "dk", scheduler=dask_cluster.scheduler_address)
    for table, keys in (("hands", ["hand_id"]), ("tricks", ["hand_id", "trick"])):
        ref = read_sorted(tmp_path / "w1", table, keys)
        assert ref.num_rows >= 600
        assert read_sorted(tmp_path / "w2", table, keys).equals(ref)
        assert read_sorted(tmp_path / "dk", table, keys).equals(ref)


def test_real_engine_worker_killed_from_outside_is_retried(tmp_path, hands_mod):
    s = real_spec(n=6000, batch_size=500)
    died = []

    def on_event(kind, info):
        if kind == "worker_died":
            died.append(dict(info))
        elif kind == "assigned" and info["batch"] == 3 and not died:
            os.kill(info["pid"], signal.SIGKILL)  # from outside, while it has batch 3

    res = runner.run(s, tmp_path / "r", workers=2, on_event=on_event)
    assert [(d["batch"], d["reason"], d["retry"]) for d in died] == [(3, "killed by SIGKILL", True)]
    assert res.complete and res.retried == [3]
    runner.run(s, tmp_path / "ref", workers=0)
    assert read_sorted(tmp_path / "r", "hands", ["hand_id"]).equals(
        read_sorted(tmp_path / "ref", "hands", ["hand_id"])
    )


def _slow_batch(rules, bots, seed, batch, size, **kw):
    time.sleep(0.2)
    return fake_batch(rules, bots, seed, batch, size, **kw)


def _kill_once_batch(marker_dir, rules, bots, seed, batch, size, **kw):
    marker = Path(marker_dir) / f"dask-killed-{batch}"
    if batch == 2 and not marker.exists():
        marker.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return fake_batch(rules, bots, seed, batch, size, **kw)


def test_dask_backend_survives_a_killed_worker(tmp_path, dask_cluster):
    import functools

    s = spec(n=300, batch_size=64)
    fn = functools.partial(_kill_once_batch, str(tmp_path))
    res = runner.run(s, tmp_path / "d", scheduler=dask_cluster.scheduler_address, batch_fn=fn)
    assert (tmp_path / "dask-killed-2").exists() and res.complete
    runner.run(s, tmp_path / "w", workers=0, batch_fn=fake_batch)
    assert read(tmp_path / "d").equals(read(tmp_path / "w"))


def test_dask_backend_keyboard_interrupt_keeps_finished_batches(tmp_path, dask_cluster):
    s = spec(n=64 * 30, batch_size=64)
    seen = []

    def on_event(kind, info):
        if kind == "batch":
            seen.append(info["batch"])
            if len(seen) == 3:
                threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()

    with pytest.raises(RunInterrupted) as info:
        runner.run(
            s,
            tmp_path / "d",
            scheduler=dask_cluster.scheduler_address,
            batch_fn=_slow_batch,
            on_event=on_event,
        )
    manifest = dataset.read_manifest(dataset.Storage(tmp_path / "d"))
    assert info.value.done == len(manifest["batches"]) >= 3 and not manifest["complete"]
    res = runner.run(
        s,
        tmp_path / "d",
        scheduler=dask_cluster.scheduler_address,
        batch_fn=fake_batch,
        resume=True,
    )
    assert res.complete
    runner.run(s, tmp_path / "w", workers=0, batch_fn=fake_batch)
    assert read(tmp_path / "d").equals(read(tmp_path / "w"))


def _kill_mid_write_batch(marker_dir, rules, bots, seed, batch, size, **kw):
    """Batch 1's first attempt dies (SIGKILL) halfway through writing its part: the temporary
    file write_atomic would leave."""
    marker = Path(marker_dir) / f"mid-write-{batch}"
    if batch == 1 and not marker.exists():
        marker.touch()
        folder = Path(marker_dir) / "d" / "hands"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f".{dataset.part_name(batch)}.0123456789ab.tmp").write_bytes(b"PAR1 half")
        os.kill(os.getpid(), signal.SIGKILL)
    return fake_batch(rules, bots, seed, batch, size, **kw)


def test_a_dask_worker_killed_mid_write_leaves_no_temporary_file(tmp_path, dask_cluster):
    import functools

    s = spec(n=300, batch_size=64)
    fn = functools.partial(_kill_mid_write_batch, str(tmp_path))
    res = runner.run(s, tmp_path / "d", scheduler=dask_cluster.scheduler_address, batch_fn=fn)
    assert (tmp_path / "mid-write-1").exists() and res.complete
    assert [p.name for p in (tmp_path / "d").rglob("*") if p.name.endswith(".tmp")] == []


# A Dask scheduler (with one in-process worker) in a process of its own, to be killed.
CLUSTER = (
    "import time\n"
    "from dask.distributed import LocalCluster\n"
    "c = LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol='tcp',\n"
    "                 dashboard_address=None, silence_logs=50)\n"
    "print(c.scheduler_address, flush=True)\n"
    "while True:\n"
    "    time.sleep(1)\n"
)


def test_losing_the_dask_scheduler_keeps_finished_batches_and_says_so(tmp_path):
    import subprocess

    pytest.importorskip("dask.distributed")
    here = str(Path(__file__).resolve().parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(
        [sys.executable, "-c", CLUSTER],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=env,
    )
    s = spec(n=64 * 40, batch_size=64)
    seen = []

    def on_event(kind, info):
        if kind == "batch":
            seen.append(info["batch"])
            if len(seen) == 2:
                os.killpg(proc.pid, signal.SIGKILL)

    try:
        address = proc.stdout.readline().strip()
        with pytest.raises(runner.SchedulerLost) as info:
            runner.run(
                s, tmp_path / "d", scheduler=address, batch_fn=_slow_batch, on_event=on_event
            )
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert str(info.value).startswith(f"lost the Dask scheduler at {address} (")
    manifest = dataset.read_manifest(dataset.Storage(tmp_path / "d"))
    assert info.value.done == len(manifest["batches"]) >= 2 and info.value.total == 40
    assert not manifest["complete"] and not (tmp_path / "d" / ".lock").exists()
    runner.run(s, tmp_path / "d", workers=0, batch_fn=fake_batch, resume=True)
    runner.run(s, tmp_path / "w", workers=0, batch_fn=fake_batch)
    assert read(tmp_path / "d").equals(read(tmp_path / "w"))


def _disk_full_batch(rules, bots, seed, batch, size, **kw):
    if batch == 2:
        raise OSError(errno.ENOSPC, "No space left on device")
    return fake_batch(rules, bots, seed, batch, size, **kw)


def test_a_full_disk_on_a_dask_worker_is_disk_full(tmp_path, dask_cluster):
    with pytest.raises(runner.DiskFull, match="no space left on the device of"):
        runner.run(
            spec(n=640, batch_size=64),
            tmp_path / "d",
            scheduler=dask_cluster.scheduler_address,
            batch_fn=_disk_full_batch,
            retries=0,
        )
    assert not (tmp_path / "d" / ".lock").exists()


def _no_memory_batch(rules, bots, seed, batch, size, **kw):
    if batch == 2:
        np.zeros(2**60, np.uint8)  # 1 EiB: numpy's MemoryError
    return fake_batch(rules, bots, seed, batch, size, **kw)


def test_memory_running_out_on_a_dask_worker_is_out_of_memory(tmp_path, dask_cluster):
    with pytest.raises(runner.OutOfMemory, match=r"out of memory in batch 2 \(MemoryError: "):
        runner.run(
            spec(n=640, batch_size=64),
            tmp_path / "d",
            scheduler=dask_cluster.scheduler_address,
            batch_fn=_no_memory_batch,
            retries=0,
        )
    assert not (tmp_path / "d" / ".lock").exists()


def _not_importable_in_workers(rules, bots, seed, batch, size, **kw):  # pragma: no cover
    raise AssertionError("never called")


def test_workers_that_cannot_start_fail_the_run(tmp_path, monkeypatch):
    """A batch function the workers cannot import (here: defined in a module they do not
    have) kills every worker at start-up: the run stops with an error, it does not loop."""
    import types

    module = types.ModuleType("fastsheng_nowhere")
    module._not_importable_in_workers = _not_importable_in_workers
    _not_importable_in_workers.__module__ = "fastsheng_nowhere"
    monkeypatch.setitem(sys.modules, "fastsheng_nowhere", module)
    try:
        with pytest.raises(BatchFailed, match="its worker exited with code 1 1 time"):
            runner.run(
                spec(n=200, batch_size=50),
                tmp_path / "r",
                workers=2,
                batch_fn=_not_importable_in_workers,
                retries=0,
            )
    finally:
        _not_importable_in_workers.__module__ = __name__


def test_python_bots_give_the_same_data_on_workers_and_dask(tmp_path, hands_mod, dask_cluster):
    """A Python bot (module:Class) plays in spawned workers and on Dask workers alike: each
    imports it by its path, and a run's data does not depend on where it ran."""
    s = real_spec(n=60, batch_size=20, bots=("userbots.simple:LowCards", "expert") * 2)
    runner.run(s, tmp_path / "w0", workers=0)
    runner.run(s, tmp_path / "w2", workers=2)
    runner.run(s, tmp_path / "dk", scheduler=dask_cluster.scheduler_address)
    ref = read_sorted(tmp_path / "w0", "hands", ["hand_id"])
    assert ref.num_rows == 60
    assert read_sorted(tmp_path / "w2", "hands", ["hand_id"]).equals(ref)
    assert read_sorted(tmp_path / "dk", "hands", ["hand_id"]).equals(ref)
