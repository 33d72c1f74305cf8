"""Aggregates for the end-of-run summary, kept per batch in the manifest so that a resumed run
can still summarize the whole dataset without reading it back. Columns of fastsheng.engine.hands:
defenders_total, winner ("dealer"/"defenders"), levels, kitty_captured; matches: winner."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["merge_stats", "summarize"]


def _as_numpy(column: pa.ChunkedArray):
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    return column.to_numpy(zero_copy_only=False)


def summarize(tables: Mapping[str, pa.Table]) -> dict[str, Any]:
    """Small additive aggregates of one batch (merged with :func:`merge_stats`):
    hand and match counts, the defenders' points, dealer-side wins, kitty captures and the
    level changes (``"dealer+2"``, ``"defenders+0"`` = take over ...), and in an isolated run
    the hands forfeited by a bot's failure."""
    import numpy as np

    hands = tables["hands"]
    stats: dict[str, Any] = {"hands": hands.num_rows}
    names = set(hands.column_names)
    if hands.num_rows:
        if "defenders_total" in names:
            stats["defender_points_sum"] = int(pc.sum(hands["defenders_total"]).as_py() or 0)
        if "kitty_captured" in names:
            stats["kitty_captures"] = int(pc.sum(hands["kitty_captured"].cast(pa.int64())).as_py())
        if "forfeit" in names:  # an isolated run: hands a bot's failure forfeited
            stats["forfeits"] = hands.num_rows - hands["forfeit"].null_count
        if "winner" in names:
            dealer = _as_numpy(hands["winner"]) == "dealer"
            stats["dealer_wins"] = int(dealer.sum())
            if "levels" in names:
                levels = _as_numpy(hands["levels"]).astype(np.int64)
                code = np.where(dealer, levels, -1 - levels)
                values, counts = np.unique(code, return_counts=True)
                stats["level_change"] = {
                    (f"dealer+{v}" if v >= 0 else f"defenders+{-1 - v}"): int(c)
                    for v, c in zip(values.tolist(), counts.tolist(), strict=True)
                }
    if "matches" in tables:
        matches = tables["matches"]
        stats["matches"] = matches.num_rows
        if matches.num_rows and "winner" in matches.column_names:
            values, counts = np.unique(_as_numpy(matches["winner"]), return_counts=True)
            stats["match_winner"] = {
                str(v): int(c) for v, c in zip(values.tolist(), counts.tolist(), strict=True)
            }
    return stats


def merge_stats(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Sum per-batch aggregates (histograms key by key)."""
    total: dict[str, Any] = {}
    for stats in records:
        for key, value in stats.items():
            if isinstance(value, Mapping):
                hist = total.setdefault(key, {})
                for k, v in value.items():
                    hist[k] = hist.get(k, 0) + v
            else:
                total[key] = total.get(key, 0) + value
    return total
