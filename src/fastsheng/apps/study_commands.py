"""The studies' commands, from parsed options to the studies layer: ``fastsheng report``,
``compare`` (two runs, or two variants played on the same deals) and ``sweep``. An interrupted
study says that the same command finishes it."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import typer

from fastsheng.apps.args import check_workers, parse_isolation, study_options
from fastsheng.sim.counts import UserError

__all__ = ["check_comparable", "finish_hint", "run_compare", "run_report", "run_sweep"]


@contextmanager
def finish_hint(text: str):
    """An interrupted study (compare, sweep) says that the same command finishes it."""
    from fastsheng.sim.runner import RunInterrupted

    try:
        yield
    except RunInterrupted as exc:
        exc.finish = text
        raise


def run_report(run: Path, out: Path | None) -> None:
    """The report of one run; an unfinished run's report says it covers the finished batches."""
    from fastsheng.studies.report import report_command

    notice = _run_notice(run)
    report_command(run, out)
    if notice:  # until the page carries it too
        typer.echo(f"warning: {run}: {notice}; the report covers those only", err=True)


def _run_notice(run: Path) -> str | None:
    """ "incomplete: k of n batches" for an unfinished run (reads only its run.json)."""
    from fastsheng.sim.dataset import Storage, progress_notice, read_manifest

    storage = Storage(run)
    if not storage.exists():
        raise UserError(f"{run}: no such run folder")
    return progress_notice(read_manifest(storage))


def check_comparable(run_a: Path, run_b: Path) -> None:
    """UserError unless two runs pair hand by hand: the same mode, and the same batch size (a
    hand's deal comes from its batch's seed, so other batch sizes deal other hands)."""
    from fastsheng.sim.dataset import Storage, read_manifest

    ma, mb = (read_manifest(Storage(r)) for r in (run_a, run_b))
    if ma.get("mode") != mb.get("mode"):
        raise UserError(
            f"{run_a} is a {ma.get('mode')} run and {run_b} a {mb.get('mode')} run; compare "
            "pairs runs of one mode"
        )
    if ma.get("batch_size") != mb.get("batch_size"):
        raise UserError(
            f"{run_a} has batches of {ma.get('batch_size')} and {run_b} of {mb.get('batch_size')}"
            "; their hands are not dealt alike, so they do not pair: make both with one "
            "--batch-size"
        )


def run_compare(
    *,
    runs,
    rules,
    bots,
    n,
    seed,
    batch_size,
    level,
    workers,
    out,
    precision,
    check_bots,
    check_n,
    isolate=None,
    bot_timeout=None,
    bot_memory=None,
    on_bot_error=None,
) -> None:
    """compare's options, as typed, checked and parsed; then the comparison."""
    from fastsheng.studies.report import compare_command

    check_workers(workers)
    isolation = parse_isolation(isolate, bot_timeout, bot_memory, on_bot_error)
    if runs and len(runs) == 2 and not rules and not bots:
        check_comparable(*runs)
    study = study_options(n, seed, batch_size, level, precision, check_n)
    with finish_hint("the same compare command finishes its runs"):
        compare_command(
            runs or (),
            rules=rules or (),
            bots=bots or (),
            workers=workers,
            out=out,
            check_bots=check_bots,
            **study,
            **isolation,
        )


def run_sweep(
    *,
    rules,
    sets,
    grid,
    variants,
    bots,
    metrics,
    n,
    seed,
    batch_size,
    level,
    precision,
    check_bots,
    check_n,
    controls,
    force,
    workers,
    scheduler,
    out,
    quiet,
    isolate=None,
    bot_timeout=None,
    bot_memory=None,
    on_bot_error=None,
) -> None:
    """sweep's options, as typed, checked and parsed; then the sweep."""
    from fastsheng.studies.sweep import sweep

    check_workers(workers)
    isolation = parse_isolation(isolate, bot_timeout, bot_memory, on_bot_error)
    study = study_options(n, seed, batch_size, level, precision, check_n)
    with finish_hint("the same sweep command resumes (finished variants are not played again)"):
        sweep(
            rules,
            set=sets or (),
            grid=grid,
            variants=variants or (),
            bots=bots or (),
            metrics=metrics or (),
            check_bots=check_bots,
            controls=controls,
            force=force,
            workers=workers,
            scheduler=scheduler,
            out=out,
            quiet=quiet,
            **study,
            **isolation,
        )
