"""A played ladder printed (text or Markdown: the pair table first, the measurement, then the
ratings and the notes) and written: pairs.csv, ratings.csv, ladder.md, ladder.json."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fastsheng.studies.ladder.pairs import Ladder

__all__ = ["ladder_markdown", "ladder_text", "write_ladder"]


def _interval(v: float, lo: float, hi: float, fmt: str, pct: bool = False) -> str:
    """``v [lo, hi]``; ``v [n/a]`` without an interval, ``n/a`` without an estimate."""
    scale, unit = (100.0, "%") if pct else (1.0, "")
    if not np.isfinite(v):
        return "n/a"
    head = f"{scale * v:{fmt}}{unit}"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{head} [n/a]"
    return f"{head} [{scale * lo:{fmt}}{unit}, {scale * hi:{fmt}}{unit}]"


def _pair_display(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pair table as shown; a ``warning`` column when some interval may not hold."""
    out = pd.DataFrame(
        {
            "X vs Y": [f"{x} vs {y}" for x, y in zip(pairs["x"], pairs["y"], strict=True)],
            "deals": [f"{d:,}" for d in pairs["deals"]],
            "X net levels / hand [95%]": [
                _interval(*r, "+.3f")
                for r in zip(pairs["net"], pairs["net_lo"], pairs["net_hi"], strict=True)
            ],
            "hands X's team wins [95%]": [
                _interval(*r, ".1f", pct=True)
                for r in zip(pairs["won"], pairs["won_lo"], pairs["won_hi"], strict=True)
            ],
        }
    )
    if pairs["warning"].fillna("").astype(bool).any():
        out["warning"] = pairs["warning"].fillna("").tolist()
    return out


def _rating_display(ratings: pd.DataFrame, resolved: Mapping[str, str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "bot": [
                b if resolved.get(b, b) == b else f"{b} (= {resolved[b]})" for b in ratings["bot"]
            ],
            "rating, log-odds [95%]": [
                _interval(*r, "+.3f")
                for r in zip(
                    ratings["rating"], ratings["rating_lo"], ratings["rating_hi"], strict=True
                )
            ],
            "Elo scale [95%]": [
                _interval(*r, "+.0f")
                for r in zip(ratings["elo"], ratings["elo_lo"], ratings["elo_hi"], strict=True)
            ],
        }
    )


def _setup_line(lad: Ladder) -> str:
    s = lad.spec
    caps = "".join(f", {b}'s pairs the first {k:,}" for b, k in s.max_deals)
    return (
        f"{s.n:,} deals per pair{caps}, each played twice with the seats swapped; rules "
        f"{s.rules.name}, level {s.level}, seed {s.seed}, batch size {s.batch_size:,}"
    )


def _notes(lad: Ladder) -> list[str]:
    """What the reader must know beside the ratings: names rated once, why there is no rating
    or interval, and the model's fit to the pair shares."""
    out = [f"{a} is the same bot as {b}: rated once, as {b}" for a, b in lad.spec.merged]
    if lad.ratings.attrs.get("note"):
        out.append(lad.ratings.attrs["note"])
    if lad.fit is not None and np.all(np.isfinite(lad.ratings["rating"])):
        out.append(lad.fit.text())
    return out


def _resolved(lad: Ladder) -> dict[str, str]:
    return dict(zip(lad.spec.labels, lad.spec.config()["resolved"], strict=True))


def ladder_text(lad: Ladder) -> str:
    """The printed tables: the pair table (the measurement) first, then the ratings."""
    return "\n".join(
        [
            f"ladder: {_setup_line(lad)}",
            "",
            _text(_pair_display(lad.pairs)),
            "",
            "Bradley–Terry rating on hands won, mean 0, bootstrap over deals:",
            _text(_rating_display(lad.ratings, _resolved(lad))),
            *(f"note: {n}" for n in _notes(lad)),
        ]
    )


def _text(df: pd.DataFrame) -> str:
    """A plain table, text left-aligned (pandas right-aligns strings)."""
    cols = [df[c].astype(str).tolist() for c in df.columns]
    widths = [max(len(c), *(len(v) for v in vs)) for c, vs in zip(df.columns, cols, strict=True)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(df.columns, widths, strict=True))]
    for row in zip(*cols, strict=True):
        lines.append("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))
    return "\n".join(line.rstrip() for line in lines)


def _markdown(df: pd.DataFrame) -> str:
    head = "| " + " | ".join(df.columns) + " |"
    rule = "|" + "---|" * len(df.columns)
    rows = ["| " + " | ".join(str(v) for v in r) + " |" for r in df.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def ladder_markdown(lad: Ladder, command: str = "") -> str:
    """The two tables in Markdown, for the README and docs/bots.md."""
    notes = "".join(f"; {n}" for n in _notes(lad))
    text = [
        _markdown(_pair_display(lad.pairs)),
        "",
        _markdown(_rating_display(lad.ratings, _resolved(lad))),
        "",
        f"({_setup_line(lad)}{'; `' + command + '`' if command else ''}{notes})",
    ]
    return "\n".join(text)


def _json_number(v: Any) -> Any:
    """NaN and infinities as null: JSON has no such numbers."""
    return None if isinstance(v, float) and not math.isfinite(v) else v


def write_ladder(lad: Ladder, command: str = "") -> list[Path]:
    """``OUT/pairs.csv``, ``OUT/ratings.csv``, ``OUT/ladder.md`` and ``OUT/ladder.json``."""
    out = lad.out
    out.mkdir(parents=True, exist_ok=True)
    files = [out / "pairs.csv", out / "ratings.csv", out / "ladder.md", out / "ladder.json"]
    lad.pairs.to_csv(files[0], index=False)
    lad.ratings.to_csv(files[1], index=False)
    files[2].write_text(ladder_markdown(lad, command) + "\n")
    fit = {} if lad.fit is None else dataclasses.asdict(lad.fit)
    meta = {
        **lad.spec.config(),
        "command": command,
        "elapsed_seconds": round(lad.elapsed, 3),
        "fit": {k: _json_number(v) for k, v in fit.items()},
        "notes": _notes(lad),
    }
    files[3].write_text(json.dumps(meta, indent=1) + "\n")
    return files
