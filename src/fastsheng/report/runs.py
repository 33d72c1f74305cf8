"""Reading a run folder back: its manifest and its tables, raw as in the Parquet."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fastsheng.report.columns import HAND_COLUMNS, pick_column

__all__ = ["Run", "load_run"]


@dataclass
class Run:
    """A run folder read back. ``notice`` (e.g. "incomplete: 3 of 10 batches") is shown on every
    output made from it."""

    path: str
    manifest: dict[str, Any]
    hands: pd.DataFrame
    matches: pd.DataFrame | None = None
    notice: str | None = None

    @property
    def label(self) -> str:
        m = self.manifest
        return f"{m.get('rules_name', '?')} / {','.join(m.get('bots', []) or ['?'])}"

    @property
    def rules(self) -> Any:
        spec = self.manifest.get("rules")
        if not spec:
            return None
        try:
            from fastsheng.rules import Rules

            return Rules.from_dict(spec)
        except Exception:  # an older/foreign manifest: the report still works without it
            return None


def _read_table(path: Path) -> pd.DataFrame | None:
    if not path.is_dir():
        return None
    parts = sorted(p for p in path.glob("part-*.parquet"))
    if not parts:
        return None
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = [pq.read_table(p) for p in parts]
    return pa.concat_tables(tables, promote_options="default").to_pandas()


def _add_early_trump_leads(hands: pd.DataFrame, tricks: Path) -> None:
    """With a tricks table (``sim --tricks``), the column ``defender_early_trump`` of
    :func:`fastsheng.realism.early_trump_lead_by_defenders`, read part by part and only the
    first tricks' leads (the whole table is about 800 bytes a hand)."""
    parts = sorted(tricks.glob("part-*.parquet")) if tricks.is_dir() else []
    if not parts or not {"hand_id", "dealer", "trump", "level"} <= set(hands):
        return
    import pyarrow.parquet as pq

    from fastsheng.realism import EARLY_TRICKS, early_trump_lead_by_defenders

    columns = ["hand_id", "trick", "leader", *(f"cards_{s}" for s in range(4))]
    flags = np.zeros(len(hands), bool)
    for part in parts:
        t = pq.read_table(part, columns=columns, filters=[("trick", "<", EARLY_TRICKS)])
        flags |= early_trump_lead_by_defenders(hands, t)
    hands["defender_early_trump"] = flags


def load_run(path: str | os.PathLike[str], notice: str | None = None) -> Run:
    """Read a run folder written by ``fastsheng sim`` (or any folder with ``hands/part-*.parquet``
    and a ``run.json``)."""
    p = Path(path)
    manifest_path = p / "run.json"
    if not manifest_path.is_file():
        raise FileNotFoundError(f"{p}: no run.json; is this a fastsheng run folder?")
    manifest = json.loads(manifest_path.read_text())
    hands = _read_table(p / "hands")
    if hands is None:
        raise FileNotFoundError(f"{p}: no hands/part-*.parquet")
    sort = pick_column(hands, HAND_COLUMNS["hand_id"])
    if sort is not None:
        hands = hands.sort_values(sort, kind="stable").reset_index(drop=True)
    _add_early_trump_leads(hands, p / "tricks")
    matches = _read_table(p / "matches")
    if matches is not None and "match_id" in matches:
        matches = matches.sort_values("match_id", kind="stable").reset_index(drop=True)
    return Run(str(p), manifest, hands, matches, notice)
