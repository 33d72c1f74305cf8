"""The runs of a sweep (and of compare's --precision / --check-bots): :class:`RunPlan` makes
every run with one seed, batch size, mode and level (common random numbers: hand i is dealt the
same cards from the same dealer in every run), reusing a finished run and resuming an
interrupted one; :func:`play_all` plays a baseline and its variants, :func:`same_deals` checks
that their deals agree."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from fastsheng.studies.folders import variant_folder
from fastsheng.studies.report.columns import canonical_hands
from fastsheng.studies.report.runs import Run, load_run
from fastsheng.studies.variants import SweepError, Variant

__all__ = ["RunPlan", "DEAL_COLUMNS", "play_all", "same_deals", "canonical"]

DEAL_COLUMNS = ("dealer", "first_seat", "kitty_points_dealt") + tuple(
    f"{f}_{s}" for f in ("points", "jokers", "pairs", "level_cards") for s in range(4)
)


class RunPlan:
    """How the sweep's runs are made: the shared seed, batch size, mode and level, the
    backend (local ``workers`` or a Dask ``scheduler``; ``batch_fn`` for tests), and whether
    the Python bots play isolated (``isolate``, ``bot_limits``: fastsheng.sim.spec.isolation_of,
    decided once for every line-up of the study)."""

    def __init__(
        self,
        *,
        seed: int,
        batch_size: int,
        mode: str,
        level: str,
        workers=None,
        scheduler=None,
        batch_fn=None,
        say: Callable[[str], None] | None = None,
        isolate: bool = False,
        bot_limits=None,
    ):
        self.seed, self.batch_size, self.mode, self.level = seed, batch_size, mode, level
        self.workers, self.scheduler, self.batch_fn = workers, scheduler, batch_fn
        self.isolate, self.bot_limits = isolate, bot_limits
        self.say = say or (lambda text: None)

    def spec(self, rules, bots: str | None, n: int):
        from fastsheng.sim.runner import RunSpec, lineup_names

        return RunSpec(
            rules=rules,
            bots=lineup_names(bots),
            seed=self.seed,
            n=n,
            batch_size=self.batch_size,
            mode=self.mode,
            level=self.level,
            isolate=self.isolate,
            bot_limits=self.bot_limits,
        )

    def play(self, path: Path, rules, bots: str | None, n: int, what: str) -> Path:
        """One run into ``path``: reused when finished, resumed when interrupted."""
        from fastsheng.sim.dataset import Storage
        from fastsheng.sim.runner import finished_run, run

        spec = self.spec(rules, bots, n)
        storage = Storage(path)
        if finished_run(spec, storage) is not None:
            self.say(f"{what}: {n:,} hands, finished before (reused)")
            return path
        if (path / "run.json").is_file():
            _check_parts(storage, path)
        t = time.perf_counter()
        run(
            spec,
            str(path),
            workers=self.workers,
            scheduler=self.scheduler,
            resume=(path / "run.json").is_file(),
            batch_fn=self.batch_fn,
        )
        self.say(f"{what}: {n:,} hands in {time.perf_counter() - t:.1f} s")
        return path


def _check_parts(storage, path: Path) -> None:
    """A corrupt part of an unfinished run, said as a sweep resumes: by the same command (sim's
    message would say --resume, which sweep does not have)."""
    from fastsheng.sim.dataset import DatasetError, check_parts, read_manifest

    try:
        _, corrupt = check_parts(storage, read_manifest(storage))
    except DatasetError:  # an unreadable manifest: the runner's own message says it
        return
    if corrupt:
        more = f" (and {len(corrupt) - 1} more)" if len(corrupt) > 1 else ""
        exc = SweepError(
            f"{path}: corrupt part {corrupt[0]}{more}; delete it, then run the same sweep "
            "again (it recomputes that batch and reuses every finished one)"
        )
        exc.rerun = True  # the command line adds the command to run
        raise exc


def play_all(
    plan: RunPlan,
    where: Path,
    base: Variant,
    variants: Sequence[Variant],
    n: int,
    bots: str | None = None,
    stage: str = "",
) -> list[Run]:
    """The baseline's and every variant's runs under ``where`` (``bots`` overrides the line-up),
    read back in order (baseline first)."""
    runs = []
    allv = [base, *variants]
    for i, v in enumerate(allv):
        lineup = bots if bots is not None else v.bots
        what = f"{stage}[{i}/{len(allv) - 1}] {v.label}"
        path = plan.play(where / variant_folder(v.label), v.rules, lineup, n, what)
        runs.append(load_run(path))
    return runs


def same_deals(a: pd.DataFrame, b: pd.DataFrame) -> float:
    """Share of hands (in order) whose deal-only columns all agree (1.0: common random numbers
    held for every hand)."""
    k = min(len(a), len(b))
    if not k:
        return float("nan")
    same = np.ones(k, bool)
    for c in DEAL_COLUMNS:
        if c in a and c in b:
            same &= a[c].to_numpy()[:k] == b[c].to_numpy()[:k]
    return float(same.mean())


def canonical(runs: Sequence[Run]) -> list[pd.DataFrame]:
    """Each run's hands as the canonical table the metrics read."""
    return [canonical_hands(r.hands, r.rules) for r in runs]
