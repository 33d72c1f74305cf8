"""The studies' commands, from parsed options to the studies layer: ``fastsheng report``,
``compare`` (two runs, or two variants played on the same deals) and ``sweep``. An interrupted
study says that the same command finishes it."""

from __future__ import annotations

import shlex
from contextlib import contextmanager
from pathlib import Path

import typer

from fastsheng.apps.args import check_workers, parse_isolation, study_options
from fastsheng.sim.counts import UserError

__all__ = ["check_comparable", "finish_hint", "run_compare", "run_report", "run_sweep"]


#: each study's options as typed, in the order a command line gives them: (name, flag)
_FLAGS = {
    "compare": (
        ("rules", "--rules"), ("bots", "--bots"), ("n", "-n"), ("seed", "--seed"),
        ("batch_size", "--batch-size"), ("level", "--level"), ("precision", "--precision"),
        ("check_bots", "--check-bots"), ("check_n", "--check-n"), ("workers", "--workers"),
        ("isolate", "--isolate"), ("bot_timeout", "--bot-timeout"),
        ("bot_memory", "--bot-memory"), ("on_bot_error", "--on-bot-error"), ("out", "--out"),
    ),
    "sweep": (
        ("rules", "--rules"), ("sets", "--set"), ("grid", "--grid"), ("variants", "--variant"),
        ("bots", "--bots"), ("metrics", "--metric"), ("n", "-n"), ("seed", "--seed"),
        ("batch_size", "--batch-size"), ("level", "--level"), ("precision", "--precision"),
        ("check_bots", "--check-bots"), ("check_n", "--check-n"), ("controls", "--controls"),
        ("force", "--force"), ("workers", "--workers"), ("scheduler", "--scheduler"),
        ("isolate", "--isolate"), ("bot_timeout", "--bot-timeout"),
        ("bot_memory", "--bot-memory"), ("on_bot_error", "--on-bot-error"), ("out", "--out"),
        ("quiet", "--quiet"),
    ),
}  # fmt: skip


def command_line(study: str, options: dict, positional=()) -> str:
    """The command that runs ``study`` again with ``options`` (as parsed by the CLI): what an
    interrupted study prints, since the same command finishes it."""
    words = ["fastsheng", study, *(str(p) for p in positional or ())]
    for name, flag in _FLAGS[study]:
        value = options.get(name)
        if name == "isolate" and value is False:
            words.append("--no-isolate")
            continue
        if value is None or value is False or value == []:
            continue
        if name == "controls":
            words.append("--controls" if value else "--no-controls")
        elif value is True:
            words.append(flag)
        elif isinstance(value, list | tuple):
            for v in value:
                words += [flag, str(v)]
        else:
            words += [flag, str(value)]
    return shlex.join(words)


@contextmanager
def finish_hint(text: str, again: str | None = None):
    """An interrupted study (compare, sweep) says that the same command finishes it; with
    ``again`` (that command) it prints it, as ``sim`` prints its --resume command, and a
    corrupt part says to run it (not ``--resume``, which the studies do not have)."""
    from fastsheng.sim.dataset import DatasetError
    from fastsheng.sim.runner import RunInterrupted

    try:
        yield
    except RunInterrupted as exc:
        exc.finish = f"{text}; finish with: {again}" if again else text
        raise
    except DatasetError as exc:
        message = str(exc)
        if again and "run --resume again" in message:
            raise UserError(message.replace("run --resume again", f"run {again}")) from None
        raise
    except Exception as exc:
        if again and getattr(exc, "rerun", False):
            raise UserError(f"{exc}: {again}") from None
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
    from fastsheng.studies.variants import check_bot_names

    options = dict(locals())
    check_workers(workers)
    if check_n is not None and check_bots is None:
        raise UserError("--check-n sets how many deals --check-bots replays: give --check-bots too")
    check_bot_names(bots or ())
    check_bot_names([check_bots], "--check-bots")
    isolation = parse_isolation(isolate, bot_timeout, bot_memory, on_bot_error)
    if runs and len(runs) == 2 and not rules and not bots:
        check_comparable(*runs)
    study = study_options(n, seed, batch_size, level, precision, check_n)
    again = command_line("compare", options, runs)
    with finish_hint("the same compare command finishes its runs", again):
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

    options = dict(locals())
    check_workers(workers)
    if check_n is not None and check_bots is None:
        raise UserError("--check-n sets how many deals --check-bots replays: give --check-bots too")
    isolation = parse_isolation(isolate, bot_timeout, bot_memory, on_bot_error)
    study = study_options(n, seed, batch_size, level, precision, check_n)
    again = command_line("sweep", options)
    hint = "the same sweep command resumes (finished variants are not played again)"
    with finish_hint(hint, again):
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
