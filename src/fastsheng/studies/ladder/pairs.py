"""Every pair of a ladder played, both seatings, into run folders under ``OUT/runs/`` (one
progress bar over them all), then the pair table and the ratings."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from fastsheng.studies.ladder.outcomes import OUTCOME_COLUMNS, PairOutcome, pair_outcome, pair_row
from fastsheng.studies.ladder.ratings import N_BOOT, BTFit, bt_fit, bt_ratings
from fastsheng.studies.ladder.spec import LadderSpec, bot_label

__all__ = ["Ladder", "play_ladder", "run_path", "safe_name"]


@dataclass
class Ladder:
    """A played ladder: its spec, the pair table, the ratings, and where its runs are."""

    spec: LadderSpec
    pairs: pd.DataFrame
    ratings: pd.DataFrame
    out: Path
    outcomes: list[PairOutcome] = field(default_factory=list, repr=False)
    elapsed: float = 0.0
    fit: BTFit | None = None


def safe_name(name: str) -> str:
    """A name as a folder name: letters, digits and -_. kept, anything else an underscore."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def run_path(out: Path, team0: Any, team1: Any) -> Path:
    """The run folder of one seating: ``OUT/runs/<team0>_vs_<team1>`` (team0 at seats 0/2)."""
    return Path(out) / "runs" / f"{safe_name(bot_label(team0))}_vs_{safe_name(bot_label(team1))}"


def _read_outcome_columns(path: Path) -> pd.DataFrame:
    """The outcome columns of a finished pair run: only the parts run.json records, each
    verified against its checksum (a corrupt part stops the ladder in one line)."""
    from fastsheng.sim.dataset import read_run

    hands = read_run(path, tables=("hands",)).tables["hands"]
    return hands.select(list(OUTCOME_COLUMNS)).to_pandas()


class _OneBar:
    """The runner reports run by run; this shows one progress over all the ladder's runs."""

    def __init__(self, reporter: Any, total: int):
        self.reporter = reporter
        self.total = total
        self.started = False

    def __call__(self, kind: str, info: Mapping[str, Any]) -> None:
        r = self.reporter
        if kind == "start":
            if not self.started:
                r.unit, r.total, r.done = "hands", self.total, 0
                r.t0 = r.last = time.perf_counter()
                r.begin()
                self.started = True
            # hands finished by an earlier, interrupted ladder count as done, not as speed
            r.done += info["done_rows"]
            r.done_at_start += info["done_rows"]
            if hasattr(r, "progress"):
                r.progress.update(r.task, completed=r.done)
        elif kind in ("batch", "worker_died", "note"):
            r(kind, info)


def play_ladder(
    spec: LadderSpec,
    out: str | Path,
    *,
    workers: int | None = None,
    reporter: Any = None,
    batch_fn: Callable | None = None,
    n_boot: int = N_BOOT,
) -> Ladder:
    """Play (or finish) every pair of ``spec`` into ``out`` and compute the tables."""
    from fastsheng.sim import runner

    out = Path(out)
    t0 = time.perf_counter()
    total = sum(2 * spec.deals(x, y) for x, y in spec.pairs)
    on_event = _OneBar(reporter, total) if reporter is not None else None
    outcomes = []
    for x, y in spec.pairs:
        paths = []
        for team0, team1 in ((x, y), (y, x)):
            p = run_path(out, team0, team1)
            runner.run(
                spec.run_spec(team0, team1),
                str(p),
                workers=workers,
                resume=(p / "run.json").is_file(),
                on_event=on_event,
                batch_fn=batch_fn,
            )
            paths.append(p)
        labels = bot_label(x), bot_label(y)
        outcomes.append(pair_outcome(*labels, *map(_read_outcome_columns, paths)))
    ratings = bt_ratings(spec.labels, outcomes, n_boot=n_boot, seed=spec.seed)
    rank = {b: i for i, b in enumerate(ratings["bot"])}
    # the table reads best with the higher-rated bot as X, strongest pairs first
    outcomes = sorted(
        (o if rank[o.x] < rank[o.y] else o.swapped() for o in outcomes),
        key=lambda o: (rank[o.x], rank[o.y]),
    )
    fit, model = bt_fit(ratings, outcomes)
    pairs = pd.DataFrame([{**pair_row(o), **m} for o, m in zip(outcomes, model, strict=True)])
    return Ladder(spec, pairs, ratings, out, outcomes, time.perf_counter() - t0, fit)
