"""Reading a run folder back: its manifest and its tables, raw as in the Parquet."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fastsheng.studies.report.columns import HAND_COLUMNS, pick_column
from fastsheng.studies.report.model import lineup_text

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
        return f"{m.get('rules_name', '?')} / {lineup_text(m.get('bots'))}"

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


def _add_early_trump_leads(hands: pd.DataFrame, run: Path, manifest: dict[str, Any]) -> None:
    """With a tricks table (``sim --tricks``), the column ``defender_early_trump`` of
    :func:`fastsheng.studies.realism.early_trump_lead_by_defenders`, read part by part (only the
    parts run.json records, each verified) and only the first tricks' leads (the whole table is
    about 800 bytes a hand)."""
    if "tricks" not in manifest.get("tables", []) or not {
        "hand_id",
        "dealer",
        "trump",
        "level",
    } <= set(hands):
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    from fastsheng.sim.dataset import verified_parts
    from fastsheng.studies.realism import EARLY_TRICKS, early_trump_lead_by_defenders

    columns = ["hand_id", "trick", "leader", *(f"cards_{s}" for s in range(4))]
    flags = np.zeros(len(hands), bool)
    for data in verified_parts(run, manifest, "tricks"):
        t = pq.read_table(
            pa.BufferReader(data), columns=columns, filters=[("trick", "<", EARLY_TRICKS)]
        )
        flags |= early_trump_lead_by_defenders(hands, t)
    hands["defender_early_trump"] = flags


def load_run(path: str | os.PathLike[str], notice: str | None = None) -> Run:
    """Read a run folder written by ``fastsheng sim``: only the parts its run.json records, each
    checked against its recorded size and SHA-256 first (:func:`fastsheng.sim.dataset.read_run`).
    ``notice`` defaults to "incomplete: k of n batches" for an unfinished run."""
    from fastsheng.sim.dataset import DatasetError, read_run

    p = Path(path)
    data = read_run(p, tables=("hands", "matches"))
    if "hands" not in data.tables:
        raise DatasetError(f"{p}: no finished batch yet ({data.notice})")
    hands = data.tables["hands"].to_pandas()
    sort = pick_column(hands, HAND_COLUMNS["hand_id"])
    if sort is not None:
        hands = hands.sort_values(sort, kind="stable").reset_index(drop=True)
    _add_early_trump_leads(hands, p, data.manifest)
    matches = data.tables["matches"].to_pandas() if "matches" in data.tables else None
    if matches is not None and "match_id" in matches:
        matches = matches.sort_values("match_id", kind="stable").reset_index(drop=True)
    return Run(str(p), data.manifest, hands, matches, notice or data.notice)
