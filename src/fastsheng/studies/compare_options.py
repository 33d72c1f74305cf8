"""``compare --precision`` and ``compare --check-bots``: the sweep's precision planning and
robustness check for a pair of variants (``compare``'s intervals are 95% each, without control
variates, so the pilot plans for those)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from fastsheng.studies.effects import Check, effect_table, values
from fastsheng.studies.folders import run_folder, variant_folder
from fastsheng.studies.pilot import pilot_cleanup, reuse_pilot
from fastsheng.studies.precision import PRECISION_TEXT, pilot_size, planned_n
from fastsheng.studies.report.columns import canonical_hands
from fastsheng.studies.report.compare import PAIRED
from fastsheng.studies.report.metrics import METRICS
from fastsheng.studies.report.model import Report, Table
from fastsheng.studies.report.runs import Run, load_run
from fastsheng.studies.robustness import (
    CHECK_COLUMNS,
    DEFAULT_CHECK_N,
    FLIP,
    ROBUSTNESS_TEXT,
    mark_flips,
)
from fastsheng.studies.runplan import RunPlan
from fastsheng.studies.variants import SweepError, Variant, check_bot_names

__all__ = [
    "COMPARE_PRIMARY",
    "CompareOptions",
    "compare_precision_n",
    "compare_check",
    "add_precision",
]

COMPARE_PRIMARY = "dealer_won"
CONF = 0.95


def _plan(seed, batch_size, mode, level, workers, batch_fn, isolate, bot_limits) -> RunPlan:
    from fastsheng.sim.runner import DEFAULT_BATCH_SIZE

    return RunPlan(
        seed=seed,
        batch_size=batch_size or DEFAULT_BATCH_SIZE[mode],
        mode=mode,
        level=level,
        workers=workers,
        batch_fn=batch_fn,
        isolate=isolate,
        bot_limits=bot_limits,
    )


def compare_precision_n(
    variants: Sequence[tuple[str, str | None]],
    labels: Sequence[str],
    target: float,
    cap: int,
    where: Path,
    *,
    seed: int,
    batch_size: int | None,
    mode: str,
    level: str,
    workers=None,
    batch_fn=None,
    isolate: bool = False,
    bot_limits=None,
) -> tuple[int, dict[str, Any]]:
    """The n that makes the paired 95% interval of ``A - B`` on the dealer side's win rate at
    most ``target`` wide on each side, from a pilot in ``where/<label>``; SweepError when it
    exceeds ``cap`` (-n)."""
    from fastsheng.rules import rules_from_spec

    if not target > 0:
        raise SweepError(f"--precision must be a positive half-width, not {target!r}")
    plan = _plan(seed, batch_size, mode, level, workers, batch_fn, isolate, bot_limits)
    n0 = pilot_size(cap)
    m = METRICS[COMPARE_PRIMARY]
    xs = []
    for (rules, bots), label in zip(variants, labels, strict=True):
        path = plan.play(where / variant_folder(label), rules_from_spec(rules), bots, n0, label)
        r = load_run(path)
        xs.append(values(m, canonical_hands(r.hands, r.rules)))
    need = planned_n(xs[0] - xs[1], target, CONF)
    if need > cap:
        raise SweepError(
            f"--precision {target:g} on {COMPARE_PRIMARY} needs about {need:,} hands per run, "
            f"more than -n's cap of {cap:,}; raise -n or ask for a wider half-width"
        )
    return need, {"metric": COMPARE_PRIMARY, "target": target, "pilot": n0, "n": need}


def add_precision(rep: Report, row: dict[str, Any]) -> None:
    """The precision table and the method line on a compare page."""
    head = rep.table("headline").df
    achieved = head.loc[head["key"] == row["metric"], ["diff_lo", "diff_hi"]]
    row["achieved"] = float((achieved["diff_hi"] - achieved["diff_lo"]).iloc[0] / 2)
    text = PRECISION_TEXT.format(**{**row, "achieved": f"{row['achieved']:.4g}"})
    rep.conventions.insert(0, text)
    rep.tables.append(
        Table("precision", "Precision: pilot and chosen n", pd.DataFrame([row]), text)
    )


def compare_check(
    rep: Report,
    run_a: Run,
    run_b: Run,
    rules: Sequence[str],
    labels: Sequence[str],
    lineup: str,
    check_n: int,
    where: Path,
    *,
    seed: int,
    batch_size: int | None,
    mode: str,
    level: str,
    workers=None,
    batch_fn=None,
    isolate: bool = False,
    bot_limits=None,
) -> list[str]:
    """Replay A and B with ``lineup`` on the first ``check_n`` deals (``where/<label>``); add
    the robustness table (A - B per metric, under both line-ups, and the verdict) to ``rep``
    and return the console lines (every flip, or that none flips)."""
    from fastsheng.rules import rules_from_spec

    plan = _plan(seed, batch_size, mode, level, workers, batch_fn, isolate, bot_limits)
    check_n = min(check_n, len(run_a.hands))
    ha = canonical_hands(run_a.hands, run_a.rules)
    hb = canonical_hands(run_b.hands, run_b.rules)
    chk = []
    for r, label in zip(rules, labels, strict=True):
        path = plan.play(where / variant_folder(label), rules_from_spec(r), lineup, check_n, label)
        c = load_run(path)
        chk.append(canonical_hands(c.hands, c.rules))
    rows = []
    for key in PAIRED:
        m = METRICS[key]
        if not (m.available(ha) and m.available(chk[0])):
            continue
        # A - B as "variant A against baseline B"
        t = effect_table(
            m,
            hb,
            [(Variant(labels[0], run_a.rules), ha)],
            None,
            Check(lineup, chk[1], [chk[0]]),
            base_rules=run_b.rules,
        )
        rows.append(t.iloc[0])
    df = pd.DataFrame(rows).reset_index(drop=True)
    text = ROBUSTNESS_TEXT.format(lineup=lineup, n=check_n)
    show = ("key", "metric", "unit", "diff", "diff_lo", "diff_hi", *CHECK_COLUMNS)
    rep.tables.append(
        Table(
            "robustness", f"Robustness: A - B with {lineup}", df, "A - B here; " + text, show=show
        )
    )
    rep.conventions.insert(0, text)
    flips = df[df["robustness"] == FLIP]
    return [
        f"FLIPS SIGN with {lineup}: {r['key']}: {r['diff']:+.4g} [{r['diff_lo']:+.4g}, "
        f"{r['diff_hi']:+.4g}] vs {r['check_diff']:+.4g} [{r['check_diff_lo']:+.4g}, "
        f"{r['check_diff_hi']:+.4g}]"
        for _, r in flips.iterrows()
    ] or [f"no effect flips sign with {lineup} (first {check_n:,} deals)"]


class CompareOptions:
    """What ``compare_command`` asks of this module: checked at once (``runs``: comparing two
    run folders, which cannot be replayed or resized), then ``plan_n`` before the two runs,
    ``finish`` after computing the page and ``mark`` after writing it."""

    def __init__(
        self,
        precision: float | None,
        check_bots: str | None,
        check_n: int | None,
        *,
        runs: bool,
        rules: Sequence[str] = (),
    ):
        self.precision, self.check_bots = precision, check_bots
        self.check_n = check_n
        self.rules = list(rules)
        self.row: dict[str, Any] | None = None
        self.context: dict[str, Any] = {}
        if check_n is not None and check_bots is None:
            raise SweepError(
                "--check-n sets how many deals --check-bots replays: give --check-bots too"
            )
        if runs and (precision is not None or check_bots is not None):
            raise SweepError("--precision and --check-bots simulate: give --rules, not run folders")
        if check_bots is not None and len(self.rules) != 2:
            raise SweepError(
                "mixed modes: --check-bots replays two --rules with another line-up; it does "
                "not apply to a comparison of line-ups"
            )
        if precision is not None and not precision > 0:
            raise SweepError(f"--precision must be a positive half-width, not {precision!r}")
        if check_bots is not None:
            check_bot_names([check_bots], "--check-bots")

    def plan_n(self, variants, labels, n: int, where: Path, **common) -> int:
        """``n`` itself, or with ``precision`` the pilot's choice (at most ``n``)."""
        self.context = {"labels": list(labels), "where": Path(where), **common}
        if self.precision is None:
            return n
        with pilot_cleanup(Path(where)):
            n, self.row = compare_precision_n(
                variants, labels, self.precision, n, Path(where) / "pilot", **common
            )
        if n == self.row["pilot"]:  # the pilot's runs are the runs: not played twice
            for label in labels:
                reuse_pilot(
                    Path(where) / "pilot" / variant_folder(label),
                    Path(where) / "runs" / run_folder(label),
                )
        return n

    def finish(self, rep: Report, run_a: Run, run_b: Run) -> list[str]:
        """Add the precision and robustness tables; the console lines of the check."""
        if self.row is not None:
            add_precision(rep, self.row)
        if self.check_bots is None:
            return []
        ctx = dict(self.context)
        labels, where = ctx.pop("labels"), ctx.pop("where")
        return compare_check(
            rep,
            run_a,
            run_b,
            self.rules,
            labels,
            self.check_bots,
            self.check_n or DEFAULT_CHECK_N,
            where / "check",
            **ctx,
        )

    def mark(self, index: Path) -> None:
        if self.check_bots is not None:
            mark_flips(index)
