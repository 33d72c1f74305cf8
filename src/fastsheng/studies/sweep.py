"""``fastsheng sweep`` / :func:`fastsheng.sweep`: a baseline and many variants on the same deals.

Every run (the baseline and each variant) is its own run folder ``OUT/runs/<variant>/`` made by
:func:`fastsheng.sim.runner.run` with one seed, n and batch size (common random numbers: hand i is
dealt the same cards from the same dealer in every run, which is checked). A finished run is
reused, an interrupted one resumed: running the same sweep again finishes it and never plays a
finished variant again. Local workers or a Dask scheduler, as ``sim``.

Options on top: ``precision`` (:mod:`~fastsheng.studies.precision`: a pilot in ``OUT/pilot/``
fixes n), ``check_bots`` (:mod:`~fastsheng.studies.robustness`: replays in ``OUT/check/``),
control variates (:mod:`~fastsheng.studies.controls`; by default in hands mode where they
measurably help, see ``SINGLE_DEFAULT`` / ``PAIRED_DEFAULT``).
The page: ``OUT/index.html`` and one CSV per table (``metric_<key>.csv``: one row per variant).
"""

from __future__ import annotations

import numbers
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fastsheng.studies import figures as figs
from fastsheng.studies.controls import (
    CONTROLS_NAME,
    PAIRED_DEFAULT,
    SINGLE_DEFAULT,
    adjusted_values,
    centred,
    controlled,
    covariates,
    has_covariates,
)
from fastsheng.studies.effects import Check, check_available, effect_table, pick_metrics, values
from fastsheng.studies.multiplicity import ADJUSTMENT_TEXT, simultaneous_conf
from fastsheng.studies.precision import PRECISION_TEXT, pilot_size, planned_n
from fastsheng.studies.report.columns import canonical_hands
from fastsheng.studies.report.model import Figure, Report, Table
from fastsheng.studies.report.plots import png
from fastsheng.studies.report.render import print_headline, write_report
from fastsheng.studies.report.runs import Run, load_run
from fastsheng.studies.report.single import mode_conventions
from fastsheng.studies.robustness import CHECK_COLUMNS, FLIP, ROBUSTNESS_TEXT
from fastsheng.studies.variants import SweepError, Variant, build_variants

__all__ = ["sweep", "paired_effects", "RunPlan", "DEFAULT_CHECK_N", "DEAL_COLUMNS", "same_deals"]

DEFAULT_CHECK_N = 10_000
DEAL_COLUMNS = ("dealer", "first_seat", "kitty_points_dealt") + tuple(
    f"{f}_{s}" for f in ("points", "jokers", "pairs", "level_cards") for s in range(4)
)


def _safe(s: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_.=" else "_" for ch in s)


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


def _play_all(
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
        path = plan.play(where / _safe(v.label), v.rules, lineup, n, what)
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


def _canonical(runs: Sequence[Run]) -> list[pd.DataFrame]:
    return [canonical_hands(r.hands, r.rules) for r in runs]


def _controls_x(raw: pd.DataFrame, on: bool | None) -> np.ndarray | None:
    """The centred covariates of the deals, unless control variates are off or impossible."""
    return centred(covariates(raw)) if on is not False and has_covariates(raw) else None


def _x_for(x, key: str, controls: bool | None, paired: bool):
    return x if x is not None and controlled(key, controls, paired) else None


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
    intervals each instead of simultaneous ones (a study that makes its own family).
    ``isolate``: each Python bot in a process of its own (fastsheng.engine.isolation; None: when
    the study's Python bots, every line-up and ``check_bots`` together, come from two or more
    authors); ``bot_limits``: an isolated bot's limits (fastsheng.engine.isolation.BotLimits).
    Writes
    ``out`` (default ``sweep-<baseline>-<k>-variants``); returns the
    :class:`~fastsheng.studies.report.Report`."""
    from fastsheng.sim.runner import default_batch_size

    bots = [bots] if isinstance(bots, str) else list(bots)
    _check_mode(mode)
    base, vs = build_variants(baseline, sets=set, grid=grid, rules=variants, bots=bots, force=force)
    ms = pick_metrics(metrics)
    primary = ms[0]
    n = _check_numbers(bots, check_bots, n, precision)
    if not batch_size:  # one for every run (or the deals would differ): sim's, the smallest
        batch_size = min(default_batch_size(v.bots or "expert", mode) for v in (base, *vs))
    where = Path(out) if out else Path(f"sweep-{_safe(base.rules.name)}-{len(vs)}-variants")
    say = (lambda text: _say(console, text)) if not quiet else None
    isolate, bot_limits = _isolation(base, vs, check_bots, isolate, bot_limits, mode)
    plan = RunPlan(seed=seed, batch_size=batch_size, mode=mode, level=level, workers=workers,
                   scheduler=scheduler, batch_fn=batch_fn, say=say, isolate=isolate,
                   bot_limits=bot_limits)  # fmt: skip
    conf = simultaneous_conf(len(vs)) if adjust else 0.95
    n_run, precision_row = n, None
    if precision is not None:
        n_run, precision_row = _plan_precision(
            plan, where / "pilot", base, vs, primary, n, float(precision), conf, controls
        )
    if check_bots is not None:
        check_n = _check_size(check_n, n_run)
    runs = _play_all(plan, where / "runs", base, vs, n_run)
    hands = _canonical(runs)
    check_available(ms, hands[0])
    x = _controls_x(runs[0].hands, controls)
    deal_share = [same_deals(runs[0].hands, r.hands) for r in runs[1:]]
    check = None
    if check_bots is not None:
        check, shares = _play_check(plan, where / "check", base, vs, check_bots, check_n, runs[0])
        deal_share += shares
    tables = _effects(ms, hands, vs, x, check, controls, None if adjust else conf)
    if precision_row is not None:
        precision_row["achieved"] = float(tables[primary.key]["half_width"].max())
    used_controls = controls if x is not None else False
    rep = _report(where, base, vs, runs, tables, primary.key, conf, used_controls, check,
                  precision_row, deal_share, figures)  # fmt: skip
    index = write_report(rep, where)
    mark_flips(index)
    if not quiet:
        _print_summary(rep, index, check, console)
    return rep


def _isolation(base, vs, check_bots, isolate, bot_limits, mode):
    """Whether the study isolates its Python bots: decided once over every line-up it plays."""
    from fastsheng.sim.runner import isolation_of, lineup_names

    lineups = [v.bots or "expert" for v in (base, *vs)] + ([check_bots] if check_bots else [])
    bots = [b for lineup in lineups for b in lineup_names(lineup)]
    return isolation_of(bots, isolate, bot_limits, mode)


def _play_check(plan, where, base, vs, lineup, check_n, baseline) -> tuple[Check, list[float]]:
    """--check-bots: every run replayed with ``lineup`` on its first ``check_n`` deals; the
    Check, and each replay's share of deals dealt as the baseline's."""
    cruns = _play_all(plan, where, base, vs, check_n, bots=lineup, stage="check ")
    ch = _canonical(cruns)
    shares = [same_deals(baseline.hands.iloc[:check_n], r.hands) for r in cruns]
    return Check(lineup, ch[0], ch[1:]), shares


def _print_summary(rep: Report, index: Path, check: Check | None, console: Any) -> None:
    print_headline(rep, console)
    for line in flip_lines(rep, check):
        _say(console, line)
    _say(console, f"wrote {index} and {len(rep.tables)} CSV tables")


def _check_mode(mode: str) -> None:
    """A sweep pairs hands one to one: hands mode only (matches diverge after their hand 1)."""
    from fastsheng.sim.runner import MODES

    if mode not in MODES:
        raise SweepError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    if mode != "hands":
        raise SweepError(
            "sweep pairs hands one to one, which holds in hands mode only; compare two "
            "matches-mode runs with fastsheng compare RUN_A RUN_B"
        )


def _check_numbers(bots: list, check_bots: str | None, n: Any, precision: Any) -> int:
    """n (returned as an int), --precision and --check-bots, checked before anything is played."""
    if check_bots is not None and len(bots) > 1:
        raise SweepError(
            "mixed modes: --check-bots replays rule variants with another line-up; this sweep "
            "varies the line-up itself"
        )
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise SweepError(f"n must be a positive whole number, not {n!r}")
    if precision is not None and not (isinstance(precision, int | float) and precision > 0):
        raise SweepError(f"--precision must be a positive half-width, not {precision!r}")
    return int(n)


def _check_size(check_n: int | None, n_run: int) -> int:
    """The deals --check-bots replays: --check-n (default DEFAULT_CHECK_N), at most the runs' n."""
    check_n = min(DEFAULT_CHECK_N if check_n is None else check_n, n_run)
    if check_n < 2:
        raise SweepError(f"--check-n must be at least 2, not {check_n}")
    return check_n


def _effects(ms, hands, vs, x, check, controls, conf) -> dict[str, pd.DataFrame]:
    """Per metric, every variant's paired effect against the baseline (``conf`` None: the
    simultaneous intervals of the family)."""
    pairs = list(zip(vs, hands[1:], strict=True))
    return {
        m.key: effect_table(
            m,
            hands[0],
            pairs,
            _x_for(x, m.key, controls, True),
            check,
            _x_for(x, m.key, controls, False),
            conf,
        )
        for m in ms
    }


def _say(console: Any, text: str) -> None:
    if console is not None:
        console.print(text, markup=False, highlight=False)
    else:
        print(text, flush=True)


def _plan_precision(plan, where, base, vs, primary, cap, target, conf, controls):
    n0 = pilot_size(cap)
    runs = _play_all(plan, where, base, vs, n0, stage="pilot ")
    hands = _canonical(runs)
    check_available([primary], hands[0])
    x = _controls_x(runs[0].hands, controls)
    xb = values(primary, hands[0])
    need = max(
        planned_n(
            adjusted_values(values(primary, h) - xb, _x_for(x, primary.key, controls, True)),
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


def flip_lines(rep: Report, check: Check | None) -> list[str]:
    """The console summary of the check line-up: every effect that flips sign, or none."""
    if check is None:
        return []
    out = []
    for t in rep.tables:
        if not t.name.startswith("metric_") or "robustness" not in t.df:
            continue
        for _, r in t.df[t.df["robustness"] == FLIP].iterrows():
            out.append(
                f"FLIPS SIGN with {check.lineup}: {r['variant']}, {r['key']}: {r['diff']:+.4g} "
                f"[{r['diff_lo']:+.4g}, {r['diff_hi']:+.4g}] vs {r['check_diff']:+.4g} "
                f"[{r['check_diff_lo']:+.4g}, {r['check_diff_hi']:+.4g}]"
            )
    return out or [f"no effect flips sign with {check.lineup} (first {check.n:,} deals)"]


_FLIP_CELL = re.compile(r"<td>flips sign</td>")


def mark_flips(index: Path) -> None:
    """A flip is shown in red on the page."""
    text = index.read_text(encoding="utf-8")
    marked = _FLIP_CELL.sub(
        '<td class="flip" style="color:#c00;font-weight:700">flips sign</td>', text
    )
    if marked != text:
        index.write_text(marked, encoding="utf-8")


_SHOW = (
    "variant",
    "n",
    "mean_baseline",
    "mean_variant",
    "diff",
    "diff_lo",
    "diff_hi",
    "p_holm",
    "std_diff",
    "std_diff_lo",
    "std_diff_hi",
    "variance_reduction",
    "warning",
)
_CONSOLE = ("variant", "mean_variant", "diff", "diff_lo", "diff_hi", "p_holm")


def _report(
    where,
    base,
    vs,
    runs,
    tables,
    primary,
    conf,
    controls,
    check,
    precision_row,
    deal_share,
    figures,
) -> Report:
    k = len(vs)
    m0 = runs[0].manifest
    adjust = (
        ADJUSTMENT_TEXT.format(k=k, each=conf)
        if conf > 0.95 or k == 1
        else "Intervals: 95% each, not adjusted for the number of variants (adjust=False)."
    )
    share = min(deal_share) if deal_share else float("nan")
    rep = Report(
        title=f"fastsheng sweep: {k} variants against {base.label}",
        subtitle=f"{len(runs[0].hands):,} paired hands per run; seed {m0.get('seed')}, batch "
        f"size {m0.get('batch_size')}; bots {','.join(m0.get('bots', []))}; same deals: "
        f"{share:.2%} of hands (least over the runs)",
        headline=f"metric_{primary}",
        meta={
            "baseline": base.label,
            "variants": [v.label for v in vs],
            "primary": primary,
            "simultaneous_conf": conf,
            "controls": controls,
            "same_deals": deal_share,
            "precision": precision_row,
            "check_bots": None if check is None else {"lineup": check.lineup, "n": check.n},
        },
        conventions=_conventions(adjust, controls, m0, precision_row, check),
    )
    rep.tables += _metric_tables(tables, adjust, check)
    rep.tables.append(_variants_table(base, vs, runs, deal_share, where))
    if precision_row is not None:
        rep.tables.append(
            Table(
                "precision",
                "Precision: pilot and chosen n",
                pd.DataFrame([precision_row]),
                PRECISION_TEXT.format(
                    achieved=f"{precision_row['achieved']:.4g}",
                    **{k_: precision_row[k_] for k_ in ("target", "pilot", "n")},
                    metric=precision_row["metric"],
                ),
            )
        )
    if figures:
        rep.figures += _figures(base, vs, tables)
    return rep


def _conventions(adjust: str, controls, m0, precision_row, check) -> list[str]:
    """The page's conventions: the design, the intervals' adjustment, precision and check."""
    conventions = [
        "Sweep: the baseline and every variant played on the same deals (one seed, n and batch "
        "size: common random numbers); every effect is variant - baseline, paired hand by hand.",
        adjust,
        _controls_text(controls),
        *mode_conventions(m0),
    ]
    if precision_row is not None:
        conventions.insert(
            2,
            PRECISION_TEXT.format(
                target=precision_row["target"],
                metric=precision_row["metric"],
                pilot=precision_row["pilot"],
                n=precision_row["n"],
                achieved=f"{precision_row['achieved']:.4g} (largest over the variants)",
            ),
        )
    if check is not None:
        conventions.insert(2, ROBUSTNESS_TEXT.format(lineup=check.lineup, n=check.n))
    return conventions


def _metric_tables(tables, adjust: str, check) -> list[Table]:
    """One table per metric: every variant's effect against the baseline."""
    show = _SHOW + (CHECK_COLUMNS if check is not None else ())
    out = []
    for key, df in tables.items():
        title = f"{df['metric'].iloc[0]}: variant - baseline"
        note = f"Unit: {df['unit'].iloc[0]}. {adjust}"
        out.append(
            Table(
                f"metric_{key}",
                title,
                df,
                note,
                show=show,
                console=_CONSOLE,
                percent=("variance_reduction",)
                + (("mean_baseline", "mean_variant") if df["unit"].iloc[0] == "share" else ()),
            )
        )
    return out


def _controls_text(controls: bool | None) -> str:
    if controls is False:
        return "Control variates off: plain t intervals."
    what = (
        "every metric's paired effects and each run's mean"
        if controls
        else f"the paired effects of {', '.join(PAIRED_DEFAULT)} and each run's mean of "
        f"{', '.join(SINGLE_DEFAULT)} (where they measurably shrink the variance on standard "
        "and super; plain t intervals elsewhere)"
    )
    return (
        f"Control variates on {what}: {CONTROLS_NAME}. variance_reduction is the share of the "
        "per-hand variance of the differences they remove; interval / mean_interval say which "
        "estimate each number is."
    )


def _variants_table(base, vs, runs, deal_share, where: Path) -> Table:
    rows = []
    for i, (v, r) in enumerate(zip([base, *vs], runs, strict=True)):
        rows.append(
            {
                "variant": v.label,
                "role": "baseline" if i == 0 else "variant",
                "rules": r.manifest.get("rules_name"),
                "bots": ",".join(r.manifest.get("bots", [])),
                "n": len(r.hands),
                "folder": os.path.relpath(r.path, where),
                "same_deals": 1.0 if i == 0 else deal_share[i - 1],
            }
        )
    return Table(
        "variants",
        "The runs",
        pd.DataFrame(rows),
        "same_deals: share of hands dealt the same cards from the same dealer as the "
        "baseline's (every deal-only column equal).",
        percent=("same_deals",),
    )


def _numeric(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _base_value(rules, key: str) -> Any:
    head, _, rest = key.partition(".")
    value = getattr(rules, head, None)
    if rest:  # a key of a data-valued switch: a named table's data (standard: threshold 80)
        value = _table_data(head, value)
    for part in rest.split(".") if rest else ():
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _table_data(switch: str, value: Any) -> Any:
    try:
        from fastsheng import tables
    except ImportError:  # rules without data-valued switches
        return value
    lookup = {
        "level_table": getattr(tables, "level_table_data", None),
        "kitty_multiplier": getattr(tables, "kitty_multiplier_data", None),
    }.get(switch)
    try:
        value = lookup(value) if lookup is not None else value
    except KeyError:
        return value
    return value.to_value() if hasattr(value, "to_value") else value


def ordered_keys(vs: Sequence[Variant]) -> list[str]:
    """The switches (or data keys) that every variant setting them sets to a number."""
    keys: dict[str, bool] = {}
    for v in vs:
        for key, value in v.settings.items():
            keys[key] = keys.get(key, True) and _numeric(value)
    return [k for k, ok in keys.items() if ok]


def _figures(base, vs, tables) -> list[Figure]:
    out = []
    limits = figs.common_limits(list(tables.values()))
    for key, df in tables.items():
        note = "common standardised axis for every metric of this sweep"
        fig = figs.forest(df, f"{df['metric'].iloc[0]}: variant - baseline", limits, note)
        out.append(
            Figure(
                f"forest_{key}",
                f"Effects on {key}, standardised",
                png(fig),
                note=note,
                section=f"metric_{key}",
            )
        )
    first = next(iter(tables))
    for sk in ordered_keys(vs):  # one figure per ordered switch, a panel per metric
        panels = [
            (df["metric"].iloc[0], df["unit"].iloc[0], _points(base, vs, df, sk))
            for df in tables.values()
        ]
        fig = figs.against_value(panels, sk)
        out.append(
            Figure(
                f"by_{_safe(sk)}", f"The metrics against {sk}", png(fig), section=f"metric_{first}"
            )
        )
    return out


def _points(base, vs, df, key) -> pd.DataFrame:
    rows = []
    mb = float(df["mean_baseline"].iloc[0])
    for v, (_, r) in zip(vs, df.iterrows(), strict=True):
        if key not in v.settings:
            continue
        rest = ";".join(f"{k}={val}" for k, val in v.settings.items() if k != key)
        rows.append(
            {
                "value": v.settings[key],
                "estimate": mb + r["diff"],
                "lo": mb + r["diff_lo"],
                "hi": mb + r["diff_hi"],
                "group": rest,
                "baseline": False,
            }
        )
    bv = _base_value(base.rules, key)
    if _numeric(bv):
        rows.append(
            {"value": bv, "estimate": mb, "lo": mb, "hi": mb, "group": "", "baseline": True}
        )
    return pd.DataFrame(rows)


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
    hands = _canonical([base_run, *runs])
    check_available(ms, hands[0])
    x = _controls_x(base_run.hands, controls)
    names = list(labels) or [Path(r.path).name for r in runs]
    pairs = [
        (Variant(label, r.rules), h) for label, r, h in zip(names, runs, hands[1:], strict=True)
    ]
    return {
        m.key: effect_table(
            m,
            hands[0],
            pairs,
            _x_for(x, m.key, controls, True),
            None,
            _x_for(x, m.key, controls, False),
        )
        for m in ms
    }
