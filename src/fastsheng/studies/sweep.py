"""``fastsheng sweep`` / :func:`fastsheng.sweep`: a baseline and many variants on the same deals.

Every run (the baseline and each variant) is its own run folder ``OUT/runs/<variant>/`` made by
:func:`fastsheng.sim.runner.run` with one seed, n and batch size (common random numbers: hand i is
dealt the same cards from the same dealer in every run, which is checked). A finished run is
reused, an interrupted one resumed: running the same sweep again finishes it and never plays a
finished variant again (:mod:`~fastsheng.studies.runplan`). Local workers or a Dask scheduler,
as ``sim``.

Options on top, checked before anything is played (:mod:`~fastsheng.studies.sweep_options`):
``precision`` (:mod:`~fastsheng.studies.precision`: a pilot in ``OUT/pilot/`` fixes n, see
:mod:`~fastsheng.studies.pilot`), ``check_bots`` (:mod:`~fastsheng.studies.robustness`: replays
in ``OUT/check/``), control variates (:mod:`~fastsheng.studies.controls`; by default in hands
mode where they measurably help, see ``SINGLE_DEFAULT`` / ``PAIRED_DEFAULT``).
The page: ``OUT/index.html`` and one CSV per table (``metric_<key>.csv``: one row per variant),
made by :mod:`~fastsheng.studies.sweep_page`; the console's lines by
:mod:`~fastsheng.studies.sweep_console`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from fastsheng.studies.controls import deal_x, x_for
from fastsheng.studies.effects import Check, check_available, effect_table, pick_metrics
from fastsheng.studies.folders import variant_folder
from fastsheng.studies.multiplicity import simultaneous_conf
from fastsheng.studies.pilot import precision_n
from fastsheng.studies.report.model import Report
from fastsheng.studies.report.render import write_report
from fastsheng.studies.report.runs import load_run
from fastsheng.studies.robustness import DEFAULT_CHECK_N, mark_flips
from fastsheng.studies.runplan import DEAL_COLUMNS, RunPlan, canonical, play_all, same_deals
from fastsheng.studies.sweep_console import print_summary, progress
from fastsheng.studies.sweep_options import check_mode, check_numbers, check_size
from fastsheng.studies.sweep_page import CONSOLE, build_report
from fastsheng.studies.variants import SweepError, Variant, build_variants

__all__ = [
    "sweep",
    "paired_effects",
    "RunPlan",
    "DEFAULT_CHECK_N",
    "DEAL_COLUMNS",
    "same_deals",
    "CONSOLE",
]


def sweep(
    baseline: str | Any = "standard",
    *,
    set: Sequence[str | Mapping[str, Any]] = (),  # noqa: A002 - the CLI's --set
    grid: Mapping[str, Any] | str | os.PathLike[str] | None = None,
    variants: Sequence[str | Any] = (),
    bots: Sequence[str] | str = (),
    metrics: Sequence[str] = (),
    n: int = 20_000,
    seed: int = 0,
    batch_size: int | None = None,
    mode: str = "hands",
    level: str = "2",
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    precision: float | None = None,
    check_bots: str | None = None,
    check_n: int | None = None,
    controls: bool | None = None,
    adjust: bool = True,
    force: bool = False,
    quiet: bool = True,
    console: Any = None,
    batch_fn: Any = None,
    figures: bool = True,
    isolate: bool | None = None,
    bot_limits: Any = None,
) -> Report:
    """Play ``baseline`` and every variant on the same deals and compare each variant with the
    baseline, paired, for ``metrics`` (default: the report's headline metrics; the first is
    the primary one, default the dealer side's win rate). Variants: ``set`` (``"switch=value"``
    strings or dicts, one variant each), ``grid`` (a ``[grid]`` table or a TOML file holding
    one), ``variants`` (presets, rules files or Rules), or several ``bots`` line-ups.
    ``n``: hands per run (with ``precision``: the most it may choose). ``adjust=False``: 95%
    intervals each (a study that makes its own family). ``isolate``, ``bot_limits``: RunSpec's,
    for every line-up. Writes ``out`` (default ``sweep-<baseline>-<k>-variants``)."""
    bots = [bots] if isinstance(bots, str) else list(bots)
    check_mode(mode)
    notes: list[str] = []
    base, vs = build_variants(
        baseline, sets=set, grid=grid, rules=variants, bots=bots, force=force, notes=notes
    )
    ms = pick_metrics(metrics)
    primary = ms[0]
    n = check_numbers(bots, check_bots, n, precision, check_n)
    # one batch size for every run (or the deals would differ): sim's, the smallest
    batch_size = batch_size or _batch_size([base, *vs], mode)
    where = Path(out) if out else _default_out(base, vs)
    say = (lambda text: progress(console, text)) if not quiet else None
    plan = RunPlan(seed=seed, batch_size=batch_size, mode=mode, level=level, workers=workers,
                   scheduler=scheduler, batch_fn=batch_fn, say=say,
                   **_isolation(base, vs, check_bots, isolate, bot_limits, mode))  # fmt: skip
    for note in notes:
        plan.say(f"note: {note}")
    conf = simultaneous_conf(len(vs)) if adjust else 0.95
    n_run, precision_row = n, None
    if precision is not None:
        n_run, precision_row = precision_n(
            plan, where, base, vs, primary, n, float(precision), conf, controls
        )
    if check_bots is not None:
        check_n = check_size(check_n, n_run)
    runs = play_all(plan, where / "runs", base, vs, n_run)
    hands = canonical(runs)
    check_available(ms, hands[0])
    x = deal_x(runs[0].hands, controls)
    deal_share = [same_deals(runs[0].hands, r.hands) for r in runs[1:]]
    check = None
    if check_bots is not None:
        check, shares = _play_check(plan, where / "check", base, vs, check_bots, check_n, runs[0])
        deal_share += shares
    tables = _effects(ms, hands, base, vs, x, check, controls, None if adjust else conf)
    if precision_row is not None:
        precision_row["achieved"] = float(tables[primary.key]["half_width"].max())
    used_controls = controls if x is not None else False
    rep = build_report(where, base, vs, runs, tables, primary.key, conf, used_controls, check,
                       precision_row, deal_share, figures)  # fmt: skip
    _publish(rep, where, notes, check, quiet, console)
    return rep


def _isolation(base, vs, check_bots, isolate, bot_limits, mode) -> dict[str, Any]:
    """Whether the study isolates its Python bots: decided once over every line-up it plays."""
    from fastsheng.sim.runner import isolation_of, lineup_names

    lineups = [v.bots or "expert" for v in (base, *vs)] + ([check_bots] if check_bots else [])
    bots = [b for lineup in lineups for b in lineup_names(lineup)]
    isolate, bot_limits = isolation_of(bots, isolate, bot_limits, mode)
    return {"isolate": isolate, "bot_limits": bot_limits}


def _default_out(base: Variant, vs: Sequence[Variant]) -> Path:
    """The folder of a sweep without --out: ``sweep-<baseline>-<k>-variants``."""
    return Path(f"sweep-{variant_folder(base.rules.name)}-{len(vs)}-variants")


def _publish(rep: Report, where: Path, notes, check, quiet: bool, console: Any) -> None:
    """The notes added to the page, the page and its CSVs written (flips in red) and, unless
    ``quiet``, the summary printed."""
    rep.conventions += [f"Note: {note}." for note in notes]
    rep.meta["notes"] = notes
    index = write_report(rep, where)
    mark_flips(index)
    if not quiet:
        print_summary(rep, index, check, console)


def _batch_size(runs: Sequence[Variant], mode: str) -> int:
    """The batch size every run shares when none is given: the smallest of sim's defaults for
    the runs' line-ups."""
    from fastsheng.sim.runner import default_batch_size

    return min(default_batch_size(v.bots or "expert", mode) for v in runs)


def _play_check(plan, where, base, vs, lineup, check_n, baseline) -> tuple[Check, list[float]]:
    """--check-bots: every run replayed with ``lineup`` on its first ``check_n`` deals; the
    Check, and each replay's share of deals dealt as the baseline's."""
    cruns = play_all(plan, where, base, vs, check_n, bots=lineup, stage="check ")
    ch = canonical(cruns)
    shares = [same_deals(baseline.hands.iloc[:check_n], r.hands) for r in cruns]
    return Check(lineup, ch[0], ch[1:]), shares


def _effects(ms, hands, base, vs, x, check, controls, conf) -> dict[str, pd.DataFrame]:
    """Per metric, every variant's paired effect against the baseline ``base`` (``conf`` None:
    the simultaneous intervals of the family)."""
    pairs = list(zip(vs, hands[1:], strict=True))
    return {
        m.key: effect_table(
            m,
            hands[0],
            pairs,
            x_for(x, m.key, controls, True),
            check,
            x_for(x, m.key, controls, False),
            conf,
            base_rules=base.rules,
        )
        for m in ms
    }


def paired_effects(
    baseline: str | os.PathLike[str],
    variants: Sequence[str | os.PathLike[str]],
    *,
    metrics: Sequence[str] = (),
    controls: bool | None = None,
    labels: Sequence[str] = (),
) -> dict[str, pd.DataFrame]:
    """The sweep's effect tables (metric key -> one row per variant) for existing run folders
    made with one seed, n and batch size: each variant run against the ``baseline`` run."""
    base_run = load_run(baseline)
    runs = [load_run(v) for v in variants]
    for r in runs:
        if len(r.hands) != len(base_run.hands) or same_deals(base_run.hands, r.hands) < 1.0:
            raise SweepError(
                f"{r.path} and {base_run.path} do not deal the same cards to every hand; a "
                "sweep pairs runs of one seed, n and batch size"
            )
    ms = pick_metrics(metrics)
    hands = canonical([base_run, *runs])
    check_available(ms, hands[0])
    x = deal_x(base_run.hands, controls)
    names = list(labels) or [Path(r.path).name for r in runs]
    pairs = [
        (Variant(label, r.rules), h) for label, r, h in zip(names, runs, hands[1:], strict=True)
    ]
    return {
        m.key: effect_table(
            m,
            hands[0],
            pairs,
            x_for(x, m.key, controls, True),
            None,
            x_for(x, m.key, controls, False),
            base_rules=base_run.rules,
        )
        for m in ms
    }
