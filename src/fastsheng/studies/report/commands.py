"""The ``report`` and ``compare`` commands: read or simulate runs, compute, write the outputs and
print the headline (called by :mod:`fastsheng.apps.cli`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fastsheng.sim.runner import default_batch_size, isolation_of, lineup_label, lineup_names
from fastsheng.studies.folders import run_folder
from fastsheng.studies.report.compare import compute_compare, team_view
from fastsheng.studies.report.model import Report, lineup_text
from fastsheng.studies.report.render import print_headline, print_table, write_report
from fastsheng.studies.report.runs import Run, load_run
from fastsheng.studies.report.single import compute_report

__all__ = ["report_command", "compare_command", "simulate_run"]


def report_command(
    run: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    quiet: bool = False,
    console: Any = None,
    notice: str | None = None,
) -> Report:
    """``fastsheng report RUN [--out DIR]``: write ``RUN/report/`` (or DIR) and print the
    headline. ``notice`` (e.g. "incomplete: 3 of 10 batches") is shown on every output."""
    r = load_run(run)
    rep = compute_report(r, notice=notice)
    where = Path(out) if out else Path(run) / "report"
    index = write_report(rep, where)
    if not quiet:
        print_headline(rep, console)
        _say(console, f"wrote {index} and {len(rep.tables)} CSV tables")
    return rep


def _say(console: Any, text: str) -> None:
    if console is not None:
        console.print(text)
    else:
        print(text)


def compare_command(
    runs: Sequence[str | os.PathLike[str]] = (),
    *,
    rules: Sequence[str] = (),
    bots: Sequence[Any] = (),
    n: int = 20_000,
    seed: int = 0,
    batch_size: int | None = None,
    mode: str = "hands",
    level: str = "2",
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    quiet: bool = False,
    console: Any = None,
    batch_fn: Any = None,
    notice: str | None = None,
    precision: float | None = None,
    check_bots: str | None = None,
    check_n: int | None = None,
    isolate: bool | None = None,
    bot_limits: Any = None,
) -> Report:
    """``fastsheng compare``: either two existing runs (``runs=[A, B]``), or simulate two variants
    that differ in rules (``rules=[a, b]``) or bots (``bots=[a, b]``) over the same deals
    (same seed, n and batch size: common random numbers) into ``OUT/a`` and ``OUT/b``, then
    compare. Writes ``OUT/index.html`` + CSVs (default ``OUT``: ``compare-<a>-vs-<b>``).
    ``notice`` is shown on every output. ``precision``, ``check_bots``, ``check_n``:
    :class:`fastsheng.studies.compare_options.CompareOptions`. ``isolate``: each Python bot in
    a process of its own (fastsheng.engine.isolation; None: when the Python bots of both
    variants and ``check_bots`` come from two or more authors: a comparison of two authors'
    bots is a contest); ``bot_limits``: an isolated bot's limits (BotLimits)."""
    from fastsheng.studies.compare_options import CompareOptions

    runs = [str(r) for r in runs]
    teams: list[tuple[str, Path, Path]] = []
    opts = CompareOptions(precision, check_bots, check_n, runs=bool(runs), rules=rules)
    if runs:
        if len(runs) != 2 or rules or bots:
            raise ValueError("give exactly two run folders, or two --rules / two --bots")
        run_a, run_b = load_run(runs[0]), load_run(runs[1])
        la, lb = _short_label(run_a, run_b)
        pair = f"compare-{Path(runs[0]).name}-vs-{Path(runs[1]).name}"
        where = Path(out) if out else Path(runs[0]).parent / pair
    else:
        variants, labels = _variants(rules, bots)
        folders = [run_folder(lab) for lab in labels]
        where = Path(out) if out else Path(f"compare-{folders[0]}-vs-{folders[1]}")
        if batch_size is None:  # one batch size for both, or the deals would differ
            batch_size = min(default_batch_size(lineup_names(bt), mode) for _, bt in variants)
        iso = _isolation(variants, check_bots, isolate, bot_limits, mode)
        n = opts.plan_n(variants, labels, n, where, seed=seed, batch_size=batch_size, mode=mode,
                        level=level, workers=workers, batch_fn=batch_fn, **iso)  # fmt: skip
        common = dict(n=n, seed=seed, batch_size=batch_size, mode=mode, level=level,
                      workers=workers, batch_fn=batch_fn, quiet=quiet, **iso)  # fmt: skip
        paths, teams = _play_variants(
            variants, labels, [where / "runs" / f for f in folders], common
        )
        run_a, run_b = load_run(paths[0]), load_run(paths[1])
        la, lb = labels
    rep = compute_compare(run_a, run_b, label_a=la, label_b=lb, notice=notice)
    if teams:
        rep.tables.insert(1, team_view([(lab, load_run(a), load_run(b)) for lab, a, b in teams]))
    lines = opts.finish(rep, run_a, run_b)
    index = write_report(rep, where)
    opts.mark(index)
    if not quiet:
        print_headline(rep, console)
        if teams:
            print_table(rep.table("teams"), console)
        for line in lines:
            _say(console, line)
        _say(console, f"wrote {index} and {len(rep.tables)} CSV tables")
    return rep


def _isolation(variants, check_bots, isolate, bot_limits, mode) -> dict[str, Any]:
    """Whether the comparison isolates its Python bots: decided once over both variants'
    line-ups and ``check_bots`` (fastsheng.sim.runner.isolation_of)."""
    everyone = [b for _, bt in variants for b in lineup_names(bt)]
    everyone += lineup_names(check_bots) if check_bots else []
    isolate, bot_limits = isolation_of(everyone, isolate, bot_limits, mode)
    return {"isolate": isolate, "bot_limits": bot_limits}


def _variants(rules: Sequence[str], bots: Sequence[Any]) -> tuple[list[tuple], list[str]]:
    """The two variants, (rules, bots) each, and their labels: two --rules (at most one --bots)
    or two --bots (at most one --rules). A bad rules set is refused before either is played."""
    from fastsheng.rules import rules_from_spec

    rules = list(rules) or []
    bots = list(bots) or []
    for spec in rules:
        rules_from_spec(spec)
    if len(rules) == 2 and len(bots) <= 1:
        variants = [(r, bots[0] if bots else None) for r in rules]
        labels = list(rules)
    elif len(bots) == 2 and len(rules) <= 1:
        variants = [(rules[0] if rules else "standard", b) for b in bots]
        labels = [lineup_label(b) for b in bots]
    else:
        raise ValueError(
            "give two --rules (and at most one --bots), or two --bots (and at "
            "most one --rules), or two run folders"
        )
    if labels[0] == labels[1]:
        labels = [f"{labels[0]}-A", f"{labels[1]}-B"]
    return variants, labels


def _play_variants(
    variants: list[tuple], labels: list[str], paths: list[Path], common: dict[str, Any]
) -> tuple[list[Path], list[tuple[str, Path, Path]]]:
    """Each variant simulated into its folder; a line-up of two teams also with the seats
    swapped (the ladder's view of the teams). The folders, and (label, run, swapped run) per
    team line-up."""
    teams = []
    for (rl, bt), lab, p in zip(variants, labels, paths, strict=True):
        simulate_run(p, rules=rl, bots=bt, **common)
        lineup = lineup_names(bt)
        if common["mode"] == "hands" and lineup[0] != lineup[1] and lineup[:2] == lineup[2:]:
            # two teams: the same deals with the seats swapped give the ladder's view
            swapped = p.with_name(f"{p.name}-seats-swapped")
            simulate_run(swapped, rules=rl, bots=(lineup[1], lineup[0]), **common)
            teams.append((lab, p, swapped))
    return paths, teams


def _short_label(a: Run, b: Run) -> tuple[str, str]:
    ma, mb = a.manifest, b.manifest
    if ma.get("rules_name") != mb.get("rules_name") or ma.get("rules") != mb.get("rules"):
        if ma.get("bots") == mb.get("bots"):
            return str(ma.get("rules_name")), str(mb.get("rules_name"))
    if ma.get("bots") != mb.get("bots") and ma.get("rules") == mb.get("rules"):
        # said as the footer says them: a search name holds commas, so a comma-joined line-up
        # of four such names cannot be read back
        return lineup_text(ma.get("bots")), lineup_text(mb.get("bots"))
    return Path(a.path).name, Path(b.path).name


def simulate_run(
    out: str | os.PathLike[str],
    *,
    rules: str,
    bots: Any,
    n: int,
    seed: int,
    batch_size: int | None = None,
    mode: str = "hands",
    level: str = "2",
    workers: int | None = None,
    batch_fn: Any = None,
    quiet: bool = True,
    isolate: bool | None = None,
    bot_limits: Any = None,
) -> Path:
    """Simulate one run into ``out`` with :func:`fastsheng.sim.runner.run` (reusing a finished run
    with the same configuration), with a progress bar on a terminal unless ``quiet``;
    ``isolate``, ``bot_limits``: fastsheng.sim.runner.RunSpec's."""
    from fastsheng.rules import rules_from_spec
    from fastsheng.sim import progress
    from fastsheng.sim.runner import RunSpec, default_batch_size, run

    spec = RunSpec(
        rules=rules_from_spec(rules),
        bots=lineup_names(bots),
        seed=seed,
        n=n,
        batch_size=batch_size or default_batch_size(lineup_names(bots), mode),
        mode=mode,
        level=level,
        isolate=isolate,
        bot_limits=bot_limits,
    )
    p = Path(out)
    resume = (p / "run.json").is_file()
    reporter = progress.make_reporter(quiet=quiet)
    try:  # a rerun with other options is told to give another --out (runner's message)
        run(spec, str(p), workers=workers, resume=resume, batch_fn=batch_fn, on_event=reporter)
    finally:
        reporter.close()
    return p
