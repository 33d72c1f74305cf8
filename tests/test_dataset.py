"""Parquet parts, atomic writes, the run.json manifest and its checks, the schema table."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fastsheng.sim import dataset
from fastsheng.sim.dataset import DatasetError, Storage


def small_table(n=10):
    return pa.table(
        {
            "hand_id": pa.array(range(n), pa.uint64()),
            "points": pa.array([5 * i for i in range(n)], pa.int16()),
            "rules": pa.array(["standard"] * n).dictionary_encode(),
        }
    )


def test_part_names_sort_and_grow():
    assert dataset.part_name(0) == "part-00000.parquet"
    assert dataset.part_name(42) == "part-00042.parquet"
    assert dataset.part_name(123456) == "part-123456.parquet"


def test_write_part_is_zstd_typed_and_checksummed(tmp_path):
    storage = Storage(tmp_path)
    storage.makedirs("hands")
    info = dataset.write_part(storage, "hands", 3, small_table())
    path = tmp_path / "hands" / "part-00003.parquet"
    data = path.read_bytes()
    assert info.rows == 10 and info.bytes == len(data)
    assert info.sha256 == hashlib.sha256(data).hexdigest()
    meta = pq.ParquetFile(path).metadata
    assert meta.row_group(0).column(1).compression == "ZSTD"
    back = pq.read_table(path)
    assert back.schema.field("points").type == pa.int16()
    assert pa.types.is_dictionary(back.schema.field("rules").type)
    assert [p for p in os.listdir(tmp_path / "hands")] == ["part-00003.parquet"]


def test_encoding_is_deterministic():
    assert dataset.encode_part(small_table()) == dataset.encode_part(small_table())


def test_atomic_write_leaves_nothing_on_failure(tmp_path, monkeypatch):
    storage = Storage(tmp_path)

    def boom(src, dst):
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        storage.write_atomic("x.bin", b"data")
    assert os.listdir(tmp_path) == []


def test_atomic_write_replaces(tmp_path):
    storage = Storage(tmp_path)
    storage.write_atomic("x.bin", b"one")
    storage.write_atomic("x.bin", b"two")
    assert (tmp_path / "x.bin").read_bytes() == b"two"
    assert os.listdir(tmp_path) == ["x.bin"]


def test_write_batch_rejects_unknown_tables(tmp_path):
    with pytest.raises(ValueError, match="unknown table"):
        dataset.write_batch(Storage(tmp_path), 0, {"hand": small_table()})


def test_manifest_round_trip_and_errors(tmp_path):
    storage = Storage(tmp_path)
    with pytest.raises(DatasetError, match="no manifest"):
        dataset.read_manifest(storage)
    (tmp_path / "run.json").write_text("{not json")
    with pytest.raises(DatasetError, match="unreadable manifest"):
        dataset.read_manifest(storage)
    (tmp_path / "run.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(DatasetError, match="not a fastsheng run"):
        dataset.read_manifest(storage)
    manifest = {"format": dataset.FORMAT, "format_version": dataset.FORMAT_VERSION, "batches": {}}
    dataset.write_manifest(storage, manifest)
    assert dataset.read_manifest(storage) == manifest
    manifest["format_version"] = 99
    dataset.write_manifest(storage, manifest)
    with pytest.raises(DatasetError, match="format version 99"):
        dataset.read_manifest(storage)


def test_check_parts_finds_missing_and_corrupt(tmp_path):
    storage = Storage(tmp_path)
    batches = {}
    for b in range(3):
        parts = dataset.write_batch(storage, b, {"hands": small_table(5 + b)})
        batches[str(b)] = {"parts": {k: v.to_dict() for k, v in parts.items()}}
    manifest = {"batches": batches}
    assert dataset.check_parts(storage, manifest) == ([], [])
    os.remove(tmp_path / "hands" / "part-00001.parquet")
    part2 = tmp_path / "hands" / "part-00002.parquet"
    data = bytearray(part2.read_bytes())
    data[100] ^= 1
    part2.write_bytes(bytes(data))
    missing, corrupt = dataset.check_parts(storage, manifest)
    assert missing == [1]
    assert len(corrupt) == 1 and "part-00002.parquet: checksum differs" in corrupt[0]


def test_clean_temporaries(tmp_path):
    storage = Storage(tmp_path)
    storage.makedirs("hands")
    (tmp_path / "hands" / ".part-00001.parquet.abc.tmp").write_bytes(b"x")
    (tmp_path / ".run.json.abc.tmp").write_bytes(b"x")
    (tmp_path / "hands" / "part-00000.parquet").write_bytes(b"x")
    assert dataset.clean_temporaries(storage) == 2
    assert os.listdir(tmp_path / "hands") == ["part-00000.parquet"]


def test_temporaries_are_invisible_to_readers(tmp_path):
    """pyarrow.dataset / pandas skip dot-files, so a half-written part is never read."""
    import pandas as pd
    import pyarrow.dataset as pds

    storage = Storage(tmp_path)
    dataset.write_batch(storage, 0, {"hands": small_table()})
    (tmp_path / "hands" / ".part-00001.parquet.abc.tmp").write_bytes(b"garbage")
    assert pds.dataset(tmp_path / "hands").to_table().num_rows == 10
    assert len(pd.read_parquet(tmp_path / "hands")) == 10


def test_storage_over_fsspec_memory_filesystem():
    pytest.importorskip("fsspec")
    storage = Storage("memory://fastsheng-test/run")
    assert not storage.local
    storage.makedirs("hands")
    info = dataset.write_part(storage, "hands", 0, small_table())
    assert storage.listdir("hands") == ["part-00000.parquet"]
    assert storage.size("hands/part-00000.parquet") == info.bytes
    dataset.write_manifest(storage, {"format": dataset.FORMAT, "format_version": 1, "batches": {}})
    assert dataset.read_manifest(storage)["batches"] == {}


def test_schema_markdown_lists_every_column():
    text = dataset.schema_markdown({"tricks": small_table().schema})
    assert text.startswith("#### `tricks`")
    assert "| `hand_id` | uint64 |" in text
    assert "| `rules` | dictionary<string> | rules preset name" in text
    assert "| `points` | int16 |" in text
    field = pa.field("x", pa.list_(pa.uint8()), metadata={"doc": "the x"})
    assert dataset.schema_rows("hands", pa.schema([field])) == [("x", "list<uint8>", "the x")]


def test_docs_schema_section_is_current():
    """docs/sim.md's schema tables are generated from the engine's tables: regenerate them with
    ``python -c "import fastsheng.sim.dataset as d; print(d.schema_markdown(d.engine_schemas()))"``
    when a column changes."""
    pytest.importorskip("fastsheng.engine.hands")
    doc = Path(__file__).resolve().parents[1] / "docs" / "sim.md"
    if not doc.exists():
        pytest.skip("docs/sim.md is not beside the tests")
    text = doc.read_text(encoding="utf-8")
    section = text.split("<!-- schema:begin -->\n", 1)[1].split("\n<!-- schema:end -->", 1)[0]
    assert section.strip() == dataset.schema_markdown(dataset.engine_schemas()).strip()


# --------------------------------------------------------------------------------------------
# Reading a run back: only recorded parts, each verified; hand-edited manifests


def small_run(tmp_path, batches=3, recorded=None, n_batches=None):
    """A run folder of ``batches`` parts of which run.json records ``recorded`` (default all)."""
    storage = Storage(tmp_path)
    entries = {}
    for b in range(batches):
        parts = dataset.write_batch(storage, b, {"hands": small_table(5 + b)})
        if recorded is None or b in recorded:
            entries[str(b)] = {"parts": {k: v.to_dict() for k, v in parts.items()}, "stats": {}}
    manifest = {
        "format": dataset.FORMAT,
        "format_version": dataset.FORMAT_VERSION,
        "n_batches": n_batches or batches,
        "tables": ["hands"],
        "complete": recorded is None,
        "batches": entries,
    }
    dataset.write_manifest(storage, manifest)
    return manifest


def test_read_run_reads_exactly_the_recorded_parts(tmp_path):
    small_run(tmp_path, batches=3, recorded={0, 2})  # part 1 on disk, not in run.json
    data = dataset.read_run(tmp_path)
    assert data.tables["hands"].num_rows == 5 + 7
    assert data.notice == "incomplete: 2 of 3 batches"
    small_run(tmp_path / "full", batches=3)
    full = dataset.read_run(tmp_path / "full")
    assert full.tables["hands"].num_rows == 5 + 6 + 7 and full.notice is None


def test_read_run_refuses_a_part_that_disagrees_with_run_json(tmp_path):
    small_run(tmp_path)
    part = tmp_path / "hands" / "part-00001.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 1  # same size: only the hash can tell
    part.write_bytes(bytes(data))
    with pytest.raises(DatasetError) as info:
        dataset.read_run(tmp_path)
    text = str(info.value)
    assert "part-00001.parquet: SHA-256 differs from run.json" in text and "\n" not in text
    assert f"fastsheng sim --out {tmp_path} --resume" in text
    part.write_bytes(bytes(data[:-3]))
    with pytest.raises(DatasetError, match=r"part-00001.parquet has \d+ bytes, run.json says"):
        dataset.read_run(tmp_path)
    part.unlink()
    with pytest.raises(DatasetError, match="part-00001.parquet is missing"):
        dataset.read_run(tmp_path)


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda m: m.update(batches=[]), "batches is []"),
        (lambda m: m.pop("batches"), "no batches field"),
        (lambda m: m.update(n="100"), 'n is "100", not a whole number'),
        (lambda m: m.update(rules="standard"), 'rules is "standard", not a table'),
        (lambda m: m.update(bots="expert"), "bots is"),
        (lambda m: m.update(mode="games"), "mode is"),
        (lambda m: m["batches"].update({"x": {}}), "entry 'x'"),
        (lambda m: m["batches"].update({"7": m["batches"]["0"]}), "entry '7'"),
        (lambda m: m["batches"]["0"].update(parts=None), "batch 0 has no parts"),
        (lambda m: m["batches"]["0"]["parts"]["hands"].pop("sha256"), "batch 0's hands part"),
        (lambda m: m["batches"]["0"]["parts"]["hands"].update(bytes="9"), "batch 0's hands"),
        (lambda m: m["batches"]["0"].update(stats=[]), "batch 0's stats"),
        (lambda m: m.update(n=1000), "n_batches is 3, but n 1000 in batches of 10 makes 100"),
    ],
)
def test_a_hand_edited_manifest_is_one_clear_line(tmp_path, edit, words):
    manifest = small_run(tmp_path)
    manifest.update(n=30, batch_size=10, rules={}, bots=["random"] * 4, mode="hands")
    edit(manifest)
    (tmp_path / "run.json").write_text(json.dumps(manifest))
    with pytest.raises(DatasetError) as info:
        dataset.read_manifest(Storage(tmp_path))
    text = str(info.value)
    assert words in text and "edited by hand" in text and "\n" not in text, text
