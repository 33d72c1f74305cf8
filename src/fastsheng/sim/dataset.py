"""The on-disk dataset of a run: Parquet parts, atomic writes and the ``run.json`` manifest.

A run folder ``OUT`` holds one folder per table (``hands``, ``matches`` in matches mode,
``tricks`` with ``--tricks``), each with one zstd-compressed Parquet file per batch
(``part-00000.parquet`` ...), and ``OUT/run.json``: the run's configuration (version, rules with
every switch, bots, seed, n, batch size, mode, level) and, per finished batch, the row count, byte
size and SHA-256 of each of its parts plus a few aggregates for the summary.

Nothing is ever half-written under its final name: a part is first written as a hidden temporary
file (``.part-00000.parquet.<random>.tmp``, which ``pyarrow.dataset`` and ``pandas.read_parquet``
skip because of the leading dot) and renamed when complete; the manifest is replaced the same
way. A part that is on disk but not in the manifest is simply recomputed on ``--resume``.

``OUT`` may be a local path or any fsspec URL (``s3://bucket/run``, ``gs://...``): the Dask
backend's workers write their parts there directly.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import posixpath
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from fastsheng.cards import LEVELS
from fastsheng.errors import FastshengError

__all__ = [
    "MANIFEST",
    "FORMAT",
    "FORMAT_VERSION",
    "TABLES",
    "COLUMN_DOCS",
    "DatasetError",
    "Storage",
    "PartInfo",
    "part_name",
    "encode_part",
    "write_part",
    "write_batch",
    "read_manifest",
    "write_manifest",
    "check_parts",
    "clean_temporaries",
    "manifest_problem",
    "progress_notice",
    "read_run",
    "read_verified",
    "verified_parts",
    "RunData",
    "schema_rows",
    "schema_markdown",
    "engine_schemas",
]

MANIFEST = "run.json"
FORMAT = "fastsheng-run"
FORMAT_VERSION = 1
TABLES = ("hands", "matches", "tricks")
COMPRESSION = "zstd"


class DatasetError(FastshengError):
    """A run folder that cannot be used as asked: it exists without --resume, its manifest is
    unreadable or disagrees with the options, or one of its parts is corrupt."""


def part_name(batch: int) -> str:
    """File name of batch ``batch``'s part: ``part-00042.parquet`` (wider past 99999)."""
    return f"part-{batch:05d}.parquet"


# --------------------------------------------------------------------------------------------
# Storage: the local file system (plain os calls, fsync + os.replace) or any fsspec URL.


class Storage:
    """Where a run lives: ``Storage(root)`` with ``root`` a local path or an fsspec URL.

    Paths given to the methods are relative to the root, with ``/`` separators."""

    def __init__(self, root: str | os.PathLike[str]):
        text = os.fspath(root)
        self.url = text
        self.local = "://" not in text or text.startswith("file://")
        if self.local:
            if text.startswith("file://"):
                text = text[len("file://") :]
            self.root = os.path.abspath(text)
            self.fs = None
        else:
            import fsspec  # a dependency of dask; only needed for remote URLs

            self.fs, self.root = fsspec.core.url_to_fs(text)

    def __repr__(self) -> str:
        return f"Storage({self.url!r})"

    @property
    def in_memory(self) -> bool:
        """An fsspec memory:// folder: private to this process, gone when it ends."""
        protocol = getattr(self.fs, "protocol", ()) if self.fs is not None else ()
        return "memory" in ((protocol,) if isinstance(protocol, str) else tuple(protocol))

    def __reduce__(self):
        return (Storage, (self.url if not self.local else self.root,))

    def path(self, rel: str = "") -> str:
        if not rel:
            return self.root
        if self.local:
            return os.path.join(self.root, *rel.split("/"))
        return posixpath.join(self.root, rel)

    def display(self, rel: str = "") -> str:
        """A path to print: the root as the user gave it (relative stays relative)."""
        if self.local:
            base = os.path.relpath(self.root) if not os.path.isabs(self.url) else self.root
            if base.startswith(".." + os.sep + ".."):
                base = self.root
            return os.path.join(base, *rel.split("/")) if rel else base
        return self.url.rstrip("/") + ("/" + rel if rel else "")

    def exists(self, rel: str = "") -> bool:
        if self.local:
            return os.path.exists(self.path(rel))
        return self.fs.exists(self.path(rel))

    def makedirs(self, rel: str = "") -> None:
        if self.local:
            os.makedirs(self.path(rel), exist_ok=True)
        else:
            self.fs.makedirs(self.path(rel), exist_ok=True)

    def listdir(self, rel: str = "") -> list[str]:
        """Names (not paths) in folder ``rel``; [] if it does not exist."""
        if self.local:
            try:
                return sorted(os.listdir(self.path(rel)))
            except FileNotFoundError:
                return []
        if not self.fs.exists(self.path(rel)):
            return []
        return sorted(
            posixpath.basename(p.rstrip("/")) for p in self.fs.ls(self.path(rel), detail=False)
        )

    def read_bytes(self, rel: str) -> bytes:
        if self.local:
            with open(self.path(rel), "rb") as f:
                return f.read()
        return self.fs.cat_file(self.path(rel))

    def size(self, rel: str) -> int:
        if self.local:
            return os.path.getsize(self.path(rel))
        return int(self.fs.size(self.path(rel)))

    def remove(self, rel: str) -> None:
        try:
            if self.local:
                os.remove(self.path(rel))
            else:
                self.fs.rm(self.path(rel))
        except FileNotFoundError:
            pass

    def write_atomic(self, rel: str, data: bytes) -> None:
        """Write ``data`` to ``rel`` so that ``rel`` is either absent/old or complete: a hidden
        temporary name in the same folder, flushed to disk, then renamed over ``rel``."""
        folder, name = posixpath.split(rel)
        tmp = posixpath.join(folder, f".{name}.{uuid.uuid4().hex[:12]}.tmp")
        if self.local:
            tmp_path = self.path(tmp)
            try:
                with open(tmp_path, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp_path, self.path(rel))
            except BaseException:
                try:
                    os.remove(tmp_path)
                except OSError:
                    pass
                raise
        else:
            with self.fs.open(self.path(tmp), "wb") as f:
                f.write(data)
            self.fs.mv(self.path(tmp), self.path(rel))


# --------------------------------------------------------------------------------------------
# Parts


@dataclass(frozen=True)
class PartInfo:
    """What the manifest records of one part."""

    rows: int
    bytes: int
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "bytes": self.bytes, "sha256": self.sha256}


def encode_part(table: pa.Table) -> bytes:
    """The Parquet bytes of one part: zstd, dictionary columns kept, statistics on."""
    sink = io.BytesIO()
    pq.write_table(
        table,
        sink,
        compression=COMPRESSION,
        compression_level=1,  # measured: faster than 3 and no larger on these tables
        use_dictionary=True,
        write_statistics=True,
    )
    return sink.getvalue()


def write_part(storage: Storage, table_name: str, batch: int, table: pa.Table) -> PartInfo:
    """Encode and atomically write one part; return its manifest entry."""
    data = encode_part(table)
    storage.write_atomic(f"{table_name}/{part_name(batch)}", data)
    return PartInfo(rows=table.num_rows, bytes=len(data), sha256=hashlib.sha256(data).hexdigest())


def write_batch(
    storage: Storage, batch: int, tables: Mapping[str, pa.Table]
) -> dict[str, PartInfo]:
    """Write every table of one batch; the batch counts as finished only once the manifest
    records it, so a crash between two parts just means the batch is computed again."""
    unknown = set(tables) - set(TABLES)
    if unknown:
        raise ValueError(f"unknown table(s) {sorted(unknown)}; expected some of {TABLES}")
    out = {}
    for name in TABLES:
        if name in tables:
            storage.makedirs(name)
            out[name] = write_part(storage, name, batch, tables[name])
    return out


# --------------------------------------------------------------------------------------------
# Manifest


def read_manifest(storage: Storage) -> dict[str, Any]:
    """The run's manifest; DatasetError (one line) if it is missing, unreadable, not a fastsheng
    run, or a field has the wrong shape (a hand edit)."""
    where = storage.display(MANIFEST)
    try:
        raw = storage.read_bytes(MANIFEST)
    except FileNotFoundError:
        raise DatasetError(f"{where}: no manifest; this folder is not a fastsheng run") from None
    except IsADirectoryError:
        raise DatasetError(f"{where} is a folder, not a manifest") from None
    try:
        manifest = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{where}: unreadable manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise DatasetError(f"{where}: not a fastsheng run manifest")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise DatasetError(
            f"{where}: manifest format version {manifest.get('format_version')!r}; this fastsheng "
            f"reads version {FORMAT_VERSION}"
        )
    problem = manifest_problem(manifest)
    if problem:
        raise DatasetError(f"{where}: {problem} (was it edited by hand?)")
    return manifest


def _is_int(value: Any, minimum: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


#: The shape of each configuration field of run.json: (check, what it must be).
_FIELDS: dict[str, tuple[Any, str]] = {
    "rules_name": (lambda v: isinstance(v, str), "a name"),
    "rules": (lambda v: isinstance(v, dict), "a table of switches"),
    "bots": (
        lambda v: isinstance(v, list) and len(v) == 4 and all(isinstance(b, str) for b in v),
        "a list of 4 bot names",
    ),
    "seed": (lambda v: _is_int(v, 0), "a whole number >= 0"),
    "n": (lambda v: _is_int(v, 1), "a whole number >= 1"),
    "batch_size": (lambda v: _is_int(v, 1), "a whole number >= 1"),
    "n_batches": (lambda v: _is_int(v, 1), "a whole number >= 1"),
    "mode": (lambda v: v in ("hands", "matches"), "hands or matches"),
    "level": (lambda v: v in LEVELS, "a level 2..A or random"),
    "tricks": (lambda v: isinstance(v, bool), "true or false"),
    "complete": (lambda v: isinstance(v, bool), "true or false"),
    "tables": (
        lambda v: isinstance(v, list) and "hands" in v and set(v) <= set(TABLES),
        f"a list of tables among {', '.join(TABLES)}",
    ),
    "batches": (lambda v: isinstance(v, dict), "a table of finished batches"),
}


def manifest_problem(manifest: Mapping[str, Any]) -> str | None:
    """What is wrong with the shape of a manifest's fields (those present), or None."""
    for key, (ok, what) in _FIELDS.items():
        if key in manifest and not ok(manifest[key]):
            return f"{key} is {_clip(manifest[key])}, not {what}"
    if "batches" not in manifest:
        return "no batches field"
    n, size, n_batches = (manifest.get(k) for k in ("n", "batch_size", "n_batches"))
    if _is_int(n, 1) and _is_int(size, 1) and _is_int(n_batches) and n_batches != -(-n // size):
        return f"n_batches is {n_batches}, but n {n} in batches of {size} makes {-(-n // size)}"
    for key, entry in manifest["batches"].items():
        if not key.isdigit() or (_is_int(n_batches) and int(key) >= n_batches):
            return f"batches has an entry {key!r}, not a batch number below {n_batches}"
        parts = entry.get("parts") if isinstance(entry, dict) else None
        if not isinstance(parts, dict) or not parts:
            return f"batch {key} has no parts"
        for table, info in parts.items():
            if (
                table not in TABLES
                or not isinstance(info, dict)
                or not _is_int(info.get("rows"))
                or not _is_int(info.get("bytes"))
                or not re.fullmatch(r"[0-9a-f]{64}", str(info.get("sha256")))
            ):
                return f"batch {key}'s {table} part is {_clip(info)}, not rows, bytes and sha256"
        stats = entry.get("stats", {})
        if not isinstance(stats, dict):
            return f"batch {key}'s stats are {_clip(stats)}, not a table"
        for name, value in stats.items():  # counts, or histograms of counts (runner.summarize)
            counts = value.values() if isinstance(value, dict) else [value]
            if not all(_is_int(c) for c in counts):
                return f"batch {key}'s stats {name!r} is {_clip(value)}, not a count"
    return None


def _clip(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def write_manifest(storage: Storage, manifest: Mapping[str, Any]) -> None:
    """Atomically replace the manifest (temporary file + rename)."""
    data = json.dumps(manifest, indent=1, sort_keys=False).encode() + b"\n"
    storage.write_atomic(MANIFEST, data)


def check_parts(storage: Storage, manifest: Mapping[str, Any]) -> tuple[list[int], list[str]]:
    """Check every part the manifest lists against its size and SHA-256.

    Returns ``(missing, corrupt)``: the batches with a part missing on disk (they will simply be
    computed again), and a description of each part present but different from its record."""
    missing: set[int] = set()
    corrupt: list[str] = []
    listing: dict[str, set[str]] = {}
    for key, entry in sorted(manifest.get("batches", {}).items(), key=lambda kv: int(kv[0])):
        batch = int(key)
        for table_name, info in entry.get("parts", {}).items():
            names = listing.get(table_name)
            if names is None:
                names = listing[table_name] = set(storage.listdir(table_name))
            rel = f"{table_name}/{part_name(batch)}"
            if part_name(batch) not in names:
                missing.add(batch)
                continue
            size = storage.size(rel)
            if size != info["bytes"]:
                corrupt.append(
                    f"{storage.display(rel)} has {size} bytes, run.json says {info['bytes']}"
                )
                continue
            digest = hashlib.sha256(storage.read_bytes(rel)).hexdigest()
            if digest != info["sha256"]:
                corrupt.append(f"{storage.display(rel)}: checksum differs from run.json")
    return sorted(missing), corrupt


def progress_notice(manifest: Mapping[str, Any]) -> str | None:
    """``"incomplete: 3 of 10 batches"`` for a run that is not finished, else None."""
    done = len(manifest.get("batches", {}))
    total = manifest.get("n_batches")
    if manifest.get("complete") and (not _is_int(total) or done == total):
        return None
    return f"incomplete: {done} of {total if _is_int(total) else '?'} batches"


@dataclass
class RunData:
    """A run folder read back: its manifest and, per table, the parts run.json records (verified
    against their size and SHA-256), in batch order."""

    path: str
    manifest: dict[str, Any]
    tables: dict[str, pa.Table]

    @property
    def notice(self) -> str | None:
        return progress_notice(self.manifest)


def read_verified(storage: Storage, rel: str, info: Mapping[str, Any], run: str) -> bytes:
    """The bytes of part ``rel`` if they have the size and SHA-256 run.json records; else
    DatasetError naming the part. One read: the same bytes are hashed and then decoded."""
    where = storage.display(rel)
    fix = f"recompute it: delete it and run fastsheng sim --out {run} --resume"
    try:
        size = storage.size(rel)
    except FileNotFoundError:
        raise DatasetError(f"{where} is missing (run.json records it); {fix}") from None
    if size != info["bytes"]:
        raise DatasetError(f"{where} has {size} bytes, run.json says {info['bytes']}; {fix}")
    data = storage.read_bytes(rel)
    if hashlib.sha256(data).hexdigest() != info["sha256"]:
        raise DatasetError(f"{where}: SHA-256 differs from run.json (corrupt); {fix}")
    return data


def verified_parts(
    root: str | os.PathLike[str], manifest: Mapping[str, Any], table: str
) -> Iterator[bytes]:
    """The bytes of each part of ``table`` that run.json records, in batch order, each verified
    (:func:`read_verified`); one part in memory at a time."""
    storage = Storage(root)
    for key, entry in sorted(manifest["batches"].items(), key=lambda kv: int(kv[0])):
        info = entry["parts"].get(table)
        if info is None:
            raise DatasetError(f"{storage.display(MANIFEST)}: batch {key} records no {table} part")
        yield read_verified(storage, f"{table}/{part_name(int(key))}", info, storage.display())


def read_run(root: str | os.PathLike[str], tables: tuple[str, ...] | None = None) -> RunData:
    """Read a run folder: only the parts its run.json records, each verified first (a part on
    disk that run.json does not record, e.g. written after its last save, is never read)."""
    storage = Storage(root)
    if not storage.exists():
        raise DatasetError(f"{storage.display()}: no such run folder")
    manifest = read_manifest(storage)
    names = tuple(t for t in manifest.get("tables", ["hands"]) if tables is None or t in tables)
    out: dict[str, pa.Table] = {}
    for name in names:
        pieces = []
        for data in verified_parts(root, manifest, name):
            try:
                pieces.append(pq.read_table(pa.BufferReader(data)))
            except (pa.ArrowException, OSError) as exc:  # hash agrees: written corrupt
                raise DatasetError(f"{storage.display(name)}: unreadable Parquet ({exc})") from None
        if pieces:
            out[name] = pa.concat_tables(pieces, promote_options="default")
    return RunData(storage.display(), manifest, out)


def clean_temporaries(storage: Storage) -> int:
    """Remove temporary files left by an interrupted or killed writer; return how many."""
    removed = 0
    for folder in ("", *TABLES):
        for name in storage.listdir(folder):
            if name.startswith(".") and name.endswith(".tmp"):
                storage.remove(f"{folder}/{name}" if folder else name)
                removed += 1
    return removed


# --------------------------------------------------------------------------------------------
# The schema table (docs/sim.md): name, type, meaning of every column.

#: Meaning of each column, per table. ``fastsheng.engine.hands`` may attach a ``doc`` entry to a
#: field's metadata; these entries are the fallback and cover the columns every table shares.
COLUMN_DOCS: dict[str, dict[str, str]] = {
    "*": {
        "hand_id": "hand number in the run: batch * batch_size + index in the batch",
        "match_id": "match number in the run: batch * batch_size + index in the batch",
        "batch": "batch the row comes from (its part file number)",
        "rules": "rules preset name (or rules file name) of the run",
        "bots": "the four seats' bots, comma-separated, seat 0 first",
    },
}


def _type_name(t: pa.DataType) -> str:
    if pa.types.is_dictionary(t):
        return f"dictionary<{_type_name(t.value_type)}>"
    if pa.types.is_list(t):
        return f"list<{_type_name(t.value_type)}>"
    return str(t)


def _engine_docs(table_name: str) -> dict[str, str]:
    """The engine's own column meanings (fastsheng.engine.hands.*_COLUMNS: "type: meaning")."""
    try:
        from fastsheng.engine import hands
    except ImportError:
        return {}
    docs = {"hands": "HAND_COLUMNS", "matches": "MATCH_COLUMNS", "tricks": "TRICK_COLUMNS"}
    raw = getattr(hands, docs.get(table_name, ""), {}) or {}
    type_prefix = re.compile(r"^(u?int\d+|float\d+|bool|dictionary string|list<\w+>)(: |, |$)")
    return {name: type_prefix.sub("", text) for name, text in raw.items()}


def _field_doc(table_name: str, field: pa.Field) -> str:
    meta = field.metadata or {}
    for key in (b"doc", b"description", b"meaning"):
        if key in meta:
            return meta[key].decode()
    docs = COLUMN_DOCS.get(table_name, {})
    if field.name in docs:
        return docs[field.name]
    return _engine_docs(table_name).get(field.name) or COLUMN_DOCS["*"].get(field.name, "")


def schema_rows(table_name: str, schema: pa.Schema) -> list[tuple[str, str, str]]:
    """``(name, type, meaning)`` of every column of one table's schema."""
    return [(f.name, _type_name(f.type), _field_doc(table_name, f)) for f in schema]


def engine_schemas() -> dict[str, pa.Schema]:
    """The schemas of the engine's tables: ``hands`` (with the matches-mode columns appended),
    ``matches`` and ``tricks``, from a tiny batch of each mode."""
    from fastsheng.engine.hands import play_batch
    from fastsheng.rules import get_rules

    rules = get_rules("standard")
    hands_mode = play_batch(rules, ("random",) * 4, 0, 0, 1, tricks=True)
    matches_mode = play_batch(rules, ("random",) * 4, 0, 0, 1, mode="matches")
    hands = hands_mode["hands"].schema
    for f in matches_mode["hands"].schema:
        if f.name not in hands.names:
            hands = hands.append(f)
    return {
        "hands": hands,
        "matches": matches_mode["matches"].schema,
        "tricks": hands_mode["tricks"].schema,
    }


def schema_markdown(schemas: Mapping[str, pa.Schema]) -> str:
    """The Markdown schema tables of docs/sim.md, one per table."""
    out = []
    for name in TABLES:
        if name not in schemas:
            continue
        out.append(f"#### `{name}`\n")
        out.append("| column | type | meaning |")
        out.append("|---|---|---|")
        for col, typ, doc in schema_rows(name, schemas[name]):
            out.append(f"| `{col}` | {typ} | {doc} |")
        out.append("")
    return "\n".join(out)
