"""``--precision``'s pilot on disk (``OUT/pilot/``): the pilot runs played and the n they plan
(:mod:`~fastsheng.studies.precision` has the arithmetic), the pilot removed when that n is
refused, and the pilot's runs reused as the runs when n is the pilot's own size."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

from fastsheng.studies.controls import adjusted_values, deal_x, x_for
from fastsheng.studies.effects import check_available, values
from fastsheng.studies.folders import variant_folder
from fastsheng.studies.precision import pilot_size, planned_n
from fastsheng.studies.runplan import RunPlan, canonical, play_all
from fastsheng.studies.variants import SweepError, Variant

__all__ = ["precision_n", "plan_precision", "pilot_cleanup", "reuse_pilot", "reuse_pilot_runs"]


def precision_n(plan: RunPlan, where: Path, base, vs, primary, cap, target, conf, controls):
    """:func:`plan_precision`'s n and precision row; when n is the pilot's size, the pilot's
    runs are the runs (linked into ``where/runs``, not played twice)."""
    n, row = plan_precision(plan, where, base, vs, primary, cap, target, conf, controls)
    if n == row["pilot"]:
        reuse_pilot_runs(where, [base, *vs])
    return n, row


def plan_precision(plan: RunPlan, where, base, vs, primary, cap, target, conf, controls):
    """The n for ``target`` from a pilot in ``where/pilot``; a refusal (more than the cap)
    removes the pilot (and ``where`` when it made it): the next try has another cap, and so
    another pilot."""
    with pilot_cleanup(where):
        return _pilot_n(plan, where / "pilot", base, vs, primary, cap, target, conf, controls)


def _pilot_n(plan, where, base, vs, primary, cap, target, conf, controls):
    n0 = pilot_size(cap)
    runs = play_all(plan, where, base, vs, n0, stage="pilot ")
    hands = canonical(runs)
    check_available([primary], hands[0])
    x = deal_x(runs[0].hands, controls)
    xb = values(primary, hands[0])
    need = max(
        planned_n(
            adjusted_values(values(primary, h) - xb, x_for(x, primary.key, controls, True)),
            target,
            conf,
        )
        for h in hands[1:]
    )
    if need > cap:
        raise SweepError(
            f"--precision {target:g} on {primary.key} needs about {need:,} hands per run, more "
            f"than -n's cap of {cap:,}; raise -n or ask for a wider half-width"
        )
    return need, {"metric": primary.key, "target": target, "pilot": n0, "n": need}


@contextmanager
def pilot_cleanup(where: Path):
    """Remove ``where/pilot`` (and ``where`` itself, when empty) if a SweepError leaves the block
    and this call made them: a refused --precision leaves nothing behind."""
    made_out, made_pilot = not where.exists(), not (where / "pilot").exists()
    try:
        yield
    except SweepError:
        if made_pilot:
            shutil.rmtree(where / "pilot", ignore_errors=True)
        if made_out and where.is_dir() and not any(where.iterdir()):
            where.rmdir()
        raise


def reuse_pilot(pilot: Path, run: Path) -> None:
    """The pilot's run as the run at the same n (same seed, batch size and rules: the same
    hands): its files linked (or copied) into ``run`` unless that exists already."""
    if run.exists() or not (pilot / "run.json").is_file():
        return

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    run.parent.mkdir(parents=True, exist_ok=True)
    tmp = run.with_name(run.name + ".linking")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(pilot, tmp, copy_function=link, ignore=shutil.ignore_patterns(".lock", "*.tmp"))
    tmp.rename(run)


def reuse_pilot_runs(where: Path, variants: Sequence[Variant]) -> None:
    """Every variant's pilot run (``where/pilot``) as its run (``where/runs``)."""
    for v in variants:
        reuse_pilot(
            where / "pilot" / variant_folder(v.label), where / "runs" / variant_folder(v.label)
        )
