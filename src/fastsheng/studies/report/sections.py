"""The sections of the one-run report (``fastsheng report``): each a short function of a
:class:`~fastsheng.studies.report.model.Context` returning the tables and figures it adds, built
from the metric declarations of :mod:`fastsheng.studies.report.metrics`. :data:`REPORT_SECTIONS` is
their order.

To add a section (e.g. a realism panel in ``fastsheng/studies/realism.py``): write
``def my_section(ctx: Context) -> list[Table | Figure]`` (return ``[]`` when ``ctx.hands`` lacks
its columns; declare new per-hand metrics with :class:`~fastsheng.studies.report.metrics.Metric`
and use
:func:`metric_table` / :func:`grouped_table`), then add it to :data:`REPORT_SECTIONS`. Its tables
get an HTML section, a CSV and a navigation link without further code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fastsheng.studies import ranges, stats
from fastsheng.studies.report import plots
from fastsheng.studies.report.columns import LEAD_KIND_ORDER, RANK_ORDER
from fastsheng.studies.report.metrics import (
    CONF,
    METRICS,
    Metric,
    available,
    estimate_row,
    interval,
)
from fastsheng.studies.report.model import Context, Figure, Section, Table

__all__ = [
    "REPORT_SECTIONS",
    "metric_table",
    "grouped_table",
    "ordered",
    "outcome_key",
    "INTERVALS_NOTE",
]

INTERVALS_NOTE = (
    "Proportions: Wilson 95% intervals. Means: Student t 95% intervals (column warning: when the "
    "sample is too skewed or has too few events for it to hold). Ratios: cluster-robust, hands as "
    "clusters. Matches mode: every interval cluster-robust with the match as the cluster. "
    "n = hands the estimate is over."
)
_ROW_COLUMNS = ("metric", "unit", "kind", "estimate", "estimate_lo", "estimate_hi", "n")


def ordered(values: Iterable[Any], order: Sequence[str] = ()) -> list:
    vals = list(dict.fromkeys(v for v in values if v is not None))
    rank = {v: i for i, v in enumerate(order)}
    return sorted(vals, key=lambda v: (rank.get(v, len(order)), str(v)))


def outcome_key(label: str) -> tuple[int, int]:
    side, _, rest = label.partition(" +")
    if side == "dealer":
        return (0, -int(rest))
    if label == "defenders take over":
        return (1, 0)
    return (1, int(rest) if rest.isdigit() else 99)


def metric_table(
    name: str,
    title: str,
    keys: Sequence[str],
    h: pd.DataFrame,
    note: str = INTERVALS_NOTE,
    cluster: str | None = None,
    rules: Any = None,
) -> Table | None:
    """One row per available metric of ``keys``, each with its own interval (cluster-robust by
    the column ``cluster`` when given; ``rules``: the run's, which bound a mean without
    variation)."""
    rows = [estimate_row(m, h, cluster, rules=rules) for m in available(keys, h)]
    if not rows:
        return None
    df = pd.DataFrame(rows)
    return Table(name, title, df, note, show=(*_ROW_COLUMNS, "warning"), console=_ROW_COLUMNS)


def grouped_table(
    name: str,
    title: str,
    metrics: Sequence[Metric],
    h: pd.DataFrame,
    by: str,
    order=(),
    cluster: str | None = None,
    rules: Any = None,
) -> Table:
    """The metrics estimated within each value of column ``by`` (one row per group and metric)."""
    rows = []
    for g in ordered(h[by].unique(), order):
        sub = h[h[by] == g]
        rows += [
            estimate_row(m, sub, cluster, rules=rules, **{by: g}) for m in metrics if m.available(h)
        ]
    show = (by, "metric", "unit", "estimate", "estimate_lo", "estimate_hi", "n", "warning")
    return Table(name, title, pd.DataFrame(rows), INTERVALS_NOTE, show=show)


# --------------------------------------------------------------------------------------------


HEADLINE = (
    "defenders_total",
    "dealer_won",
    "signed_change",
    "signed_climbed",
    "kitty_captured",
    "kitty_bonus",
    "kitty_decides",
    "no_trump",
    "overcall",
    "throw_hand",
    "failed_hand",
)


def headline(ctx: Context) -> list[Table]:
    t = metric_table(
        "headline", "Headline", HEADLINE, ctx.hands, cluster=ctx.cluster, rules=ctx.rules
    )
    return [t] if t else []


def _points_rows(
    h: pd.DataFrame, by: str | None, label: str, cluster: str | None, rules: Any
) -> list[dict]:
    groups = [("all", h)] if by is None else [(g, h[h[by] == g]) for g in _groups(h, by)]
    span = METRICS["defenders_total"].value_range(rules)
    rows = []
    for g, sub in groups:
        x = sub["defenders_total"].to_numpy(float)
        if x.size == 0:
            continue
        c = sub[cluster].to_numpy() if cluster else None
        e = interval("mean", x, clusters=c, support=span)
        qs = np.quantile(x, [0.1, 0.25, 0.5, 0.75, 0.9], method="inverted_cdf")
        med = stats.quantile_ci(x, 0.5, CONF)
        rows.append(
            {
                label: g,
                "n": e.n,
                "mean": e.estimate,
                "mean_lo": e.lo,
                "mean_hi": e.hi,
                "sd": float(x.std(ddof=1)) if x.size > 1 else float("nan"),
                "q10": qs[0],
                "q25": qs[1],
                "median": qs[2],
                "median_lo": med.lo,
                "median_hi": med.hi,
                "q75": qs[3],
                "q90": qs[4],
                "warning": e.warning,
            }
        )
    return rows


def _groups(h: pd.DataFrame, by: str) -> list:
    return ordered(h[by].unique(), RANK_ORDER if by == "level" else ())


_POINTS_NOTE = (
    "Total = trick points + kitty bonus +- throw penalties. Mean: Student t 95% interval; median: "
    "distribution-free order-statistic interval; q10..q90: empirical quantiles (points)."
)


def points(ctx: Context) -> list[Table | Figure]:
    h = ctx.hands
    if "defenders_total" not in h:
        return []
    c = ctx.cluster
    rows = _points_rows(h, None, "trump", c, ctx.rules)
    if "trump_kind" in h:
        rows += _points_rows(h, "trump_kind", "trump", c, ctx.rules)
    out: list[Table | Figure] = [
        Table(
            "points_by_trump",
            "Defenders' total points by trump kind",
            pd.DataFrame(rows),
            _POINTS_NOTE,
            digits=0,
        )
    ]
    by_level = (
        pd.DataFrame(_points_rows(h, "level", "level", c, ctx.rules)) if "level" in h else None
    )
    if by_level is not None:
        note = "Level = the hand's level rank (the dealer side's). " + _POINTS_NOTE
        out.append(
            Table("points_by_level", "Defenders' total points by level", by_level, note, digits=0)
        )
    hist = h.groupby(["defenders_total"]).size().rename("all").to_frame()
    if "trump_kind" in h:
        hist = hist.join(h.groupby(["defenders_total", "trump_kind"]).size().unstack(fill_value=0))
    hist = hist.fillna(0).astype(int).reset_index()
    hist["share_all"] = hist["all"] / ctx.n
    note = "Counts of hands by exact total; share_all = count / all hands (sums to 1)."
    out.append(
        Table(
            "points_histogram",
            "Histogram of defenders' total points (counts)",
            hist,
            note,
            collapsed=True,
        )
    )
    if ctx.figures:
        out += _points_figures(h, by_level)
    return out


def _points_figures(h: pd.DataFrame, by_level: pd.DataFrame | None) -> list[Figure]:
    groups = {"all hands": h["defenders_total"].to_numpy(float)}
    if "trump_kind" in h:
        for g in sorted(h["trump_kind"].unique()):
            groups[g] = h.loc[h["trump_kind"] == g, "defenders_total"].to_numpy(float)
    title = "Defenders' total by trump kind (dashed: 80, take-over)"
    fig = plots.points_hist_figure(groups, "defenders' total points", title, total="all hands")
    out = [
        Figure(
            "points_hist",
            "Distribution of the defenders' total",
            plots.png(fig),
            section="points_by_trump",
        )
    ]
    if by_level is not None and len(by_level) > 1:
        fig = plots.bars_figure(
            by_level["level"].tolist(),
            by_level["mean"],
            by_level["mean_lo"],
            by_level["mean_hi"],
            "mean defenders' total (95% CI)",
            "Defenders' total by level",
        )
        out.append(
            Figure(
                "points_by_level",
                "Mean defenders' total by level",
                plots.png(fig),
                section="points_by_level",
            )
        )
    return out


def _outcome_rows(labels: pd.Series, n: int, column: str, clusters=None) -> list[dict]:
    counts = labels.value_counts()
    rows = []
    for o in sorted(counts.index, key=outcome_key):
        e = interval("proportion", (labels == o).to_numpy(), clusters=clusters)
        rows.append(
            {
                column: o,
                "n": n,
                "count": int(counts[o]),
                "p": e.estimate,
                "p_lo": e.lo,
                "p_hi": e.hi,
            }
        )
    return rows


def level_change(ctx: Context) -> list[Table | Figure]:
    h = ctx.hands
    if "outcome" not in h:
        return []
    clusters = h[ctx.cluster].to_numpy() if ctx.cluster else None
    rows = _outcome_rows(h["outcome"], ctx.n, "outcome", clusters)
    note = (
        "Which side goes up how many levels by the rules' level table: column levels, the raw "
        "level-table value before the end rank and must-play caps (hands mode: even at level A "
        "a dealer-side win records +1..+3). 'defenders take over' = they only win the deal. "
        "p: Wilson 95% interval."
    )
    out: list[Table | Figure] = [
        Table(
            "level_change",
            "Level change per hand (level-table value)",
            pd.DataFrame(rows),
            note,
            percent=("p",),
        )
    ]
    if "signed_climbed" in h:
        climbed = h["signed_climbed"].map(
            lambda k: f"dealer +{k}" if k > 0 else (f"defenders +{-k}" if k < 0 else "no climb")
        )
        note = (
            "Levels the winning side actually climbs (column levels_climbed: the level-table "
            "value capped by the end rank and the must-play ranks, from the hand's level). "
            "p: Wilson 95% interval."
        )
        out.append(
            Table(
                "levels_climbed",
                "Levels climbed per hand",
                pd.DataFrame(_outcome_rows(climbed, ctx.n, "outcome", clusters)),
                note,
                percent=("p",),
            )
        )
    if ctx.figures:
        tab = pd.DataFrame(rows)
        colors = ["#4c72b0" if o.startswith("dealer") else "#c44e52" for o in tab["outcome"]]
        fig = plots.bars_figure(
            tab["outcome"].tolist(),
            tab["p"],
            tab["p_lo"],
            tab["p_hi"],
            "share of hands (95% Wilson)",
            "Level change per hand (level-table value)",
            colors,
        )
        out.append(
            Figure(
                "level_change", "Level-change distribution", plots.png(fig), section="level_change"
            )
        )
    return out


def dealer_win(ctx: Context) -> list[Table]:
    h = ctx.hands
    if "dealer_won" not in h:
        return []
    m = METRICS["dealer_won"]
    rows = [estimate_row(m, h, ctx.cluster, rules=ctx.rules, group="all hands")]
    for by, name in (("trump_kind", "trump"), ("level", "level")):
        if by in h and (by == "trump_kind" or h[by].nunique() > 1):
            for g in _groups(h, by):
                sub = h[h[by] == g]
                rows.append(
                    estimate_row(m, sub, ctx.cluster, rules=ctx.rules, group=f"{name}: {g}")
                )
    note = (
        "The dealer side 'wins' a hand when the defenders' total is below the take-over "
        "threshold (it goes up). Wilson 95% intervals."
    )
    show = ("group", "estimate", "estimate_lo", "estimate_hi", "n")
    return [Table("dealer_win", "Dealer-side win rate", pd.DataFrame(rows), note, show=show)]


KITTY = (
    "kitty_points",
    "kitty_buried",
    "kitty_captured",
    "kitty_bonus",
    "bonus_per_capture",
    "mult_per_capture",
    "kitty_decides",
    "kitty_flips",
    "decides_per_capture",
)

_KITTY_NOTE = (
    "A capture: the defenders win the last trick and add the points of the final kitty (buried "
    "by the burier: the dealer, or the last chaodi 炒底 overcaller) x the multiplier. 'Decided "
    "by the kitty': the level outcome (side and levels, from the rules' level table) at "
    "max(0, total - bonus) differs from the one at the total; 'of which the winning side flips' "
    "is a share of those kitty-decided hands. "
)


def kitty(ctx: Context) -> list[Table | Figure]:
    h = ctx.hands
    if "kitty_captured" not in h:
        return []
    note = _KITTY_NOTE + INTERVALS_NOTE
    t = metric_table("kitty", "Kitty", KITTY, h, note, ctx.cluster, ctx.rules)
    out: list[Table | Figure] = [t] if t else []
    if "last_lead_kind" not in h:
        return out
    ms = [METRICS["kitty_captured"], METRICS["bonus_per_capture"]]
    by = grouped_table(
        "kitty_by_lead",
        "Kitty capture probability and bonus by the last trick's lead kind",
        ms,
        h,
        "last_lead_kind",
        LEAD_KIND_ORDER,
        ctx.cluster,
        ctx.rules,
    )
    by.note = "n = hands whose last trick was led with that kind (captures, for the bonus). " + (
        INTERVALS_NOTE
    )
    out.append(by)
    if ctx.figures:
        cap = by.df[by.df["key"] == "kitty_captured"]
        fig = plots.bars_figure(
            [f"{k}\n(n={c:,})" for k, c in zip(cap["last_lead_kind"], cap["n"], strict=True)],
            cap["estimate"],
            cap["estimate_lo"],
            cap["estimate_hi"],
            "P(capture) (95% Wilson)",
            "Kitty capture probability by the last trick's lead",
        )
        out.append(
            Figure(
                "kitty_by_lead",
                "Capture probability by last lead",
                plots.png(fig),
                section="kitty_by_lead",
            )
        )
    return out


THROWS = (
    "throws",
    "throw_hand",
    "failed_throws",
    "failed_hand",
    "failure_rate",
    "penalty",
)


def throws(ctx: Context) -> list[Table]:
    if "throws" not in ctx.hands:
        return []
    note = "Failure rate per throw = failed / all throws; its n is the number of throws. "
    note += INTERVALS_NOTE
    t = metric_table("throws", "Throws", THROWS, ctx.hands, note, ctx.cluster, ctx.rules)
    return [t] if t else []


_ROLES = ("dealer", "dealer's partner", "defender", "nobody")
_SEAT_QUESTIONS = (
    ("declarer_role", "standing caller at the close of the deal (before burial)"),
    (
        "final_caller_role",
        "whose call set the final trump (last chaodi 炒底 overcaller, else declarer)",
    ),
    ("burier_role", "who buried the final kitty"),
)


def _share_rows(question: str, labels: pd.Series, n: int, order=(), clusters=None) -> list[dict]:
    counts = labels.value_counts()
    rows = []
    for a in ordered(counts.index, order):
        e = interval("proportion", (labels == a).to_numpy(), clusters=clusters)
        rows.append(
            {
                "question": question,
                "answer": str(a),
                "n": n,
                "count": int(counts[a]),
                "p": e.estimate,
                "p_lo": e.lo,
                "p_hi": e.hi,
            }
        )
    return rows


def _yes_row(question: str, yes: np.ndarray, clusters) -> dict:
    e = interval("proportion", yes, clusters=clusters)
    return {"question": question, "answer": "yes", "n": e.n, "count": int(yes.sum()),
            "p": e.estimate, "p_lo": e.lo, "p_hi": e.hi}  # fmt: skip


def declarations(ctx: Context) -> list[Table]:
    h, n = ctx.hands, ctx.n
    c = h[ctx.cluster].to_numpy() if ctx.cluster else None
    rows: list[dict] = []
    for col, question in _SEAT_QUESTIONS:
        if col in h:
            rows += _share_rows(question, h[col], n, _ROLES, c)
    if "declarer" in h:
        seat = pd.to_numeric(h["declarer"], errors="coerce").fillna(-1).astype(int)
        names = seat.map(lambda s: "nobody" if s < 0 else f"seat {s}")
        rows += _share_rows("seat of the standing caller", names, n, (), c)
    if "trump_source" in h:
        rows += _share_rows("how trump was set", h["trump_source"], n, (), c)
    for key, question in (
        ("no_trump", "no-trump hand"),
        ("overcall", "at least one overcall"),
        ("chaodi", "chaodi 炒底 (overcall after burial)"),
    ):
        m = METRICS[key]
        if m.available(h):
            rows.append(_yes_row(question, np.asarray(m.value(h), bool), c))
    if not rows:
        return []
    note = "Shares of hands with Wilson 95% intervals; roles are relative to the hand's dealer."
    t = Table("declarations", "Declarations", pd.DataFrame(rows), note, percent=("p",))
    counts = metric_table(
        "declaration_counts",
        "Shows and overcalls per hand",
        ("declarations", "overcalls"),
        h,
        cluster=ctx.cluster,
        rules=ctx.rules,
    )
    return [t] + ([counts] if counts else [])


REALISM = (
    "kitty_buried",
    "kitty_captured",
    "kitty_flips_all",
    "throws",
    "throw_hand",
    "failure_rate",
    "failed_hand",
    "failed_vs_expected",
    "defender_early_trump",
    "dealer_won",
)

_REALISM_NOTE = (
    "The figures a strong player checks first to judge the bots' play (fastsheng.studies.realism; "
    "docs/bots.md has them for every bot): what the kitty holds and decides, throws and their "
    "failures, the failures seen against those the leading bots expected (their throw_risk; an "
    "exact Poisson interval, n/a for bots that risk no throw), a defender leading trump in the "
    "first five tricks (only when the run has the tricks table: sim --tricks), the dealer side's "
    "win rate. "
)


def realism(ctx: Context) -> list[Table]:
    note = _REALISM_NOTE + INTERVALS_NOTE
    t = metric_table("realism", "Realism panel", REALISM, ctx.hands, note, ctx.cluster, ctx.rules)
    return [t] if t else []


_TEAMS_NOTE = (
    "The line-up's two teams: team 0 = seats 0/2, team 1 = seats 1/3. A team wins a hand when it "
    "goes up as the dealer side or takes the deal as defenders; net levels = levels it gains "
    "minus levels the other team gains (level-table value; a take-over without levels is 0), as "
    "fastsheng ladder counts them. One seating only: the deals and the dealer are random, so "
    "this is unbiased, but the luck of the cards does not cancel as in `fastsheng compare "
    "--bots X,Y`'s seat-swapped team view. Wilson 95% for shares, Student t for means. "
)


def teams(ctx: Context) -> list[Table]:
    """A per-team split when the two teams are different bots (``expert,basic,expert,basic``)."""
    from fastsheng.studies.ladder import seating_outcome

    bots = list(ctx.manifest.get("bots") or [])
    h = ctx.hands
    if len(bots) != 4 or sorted(bots[0::2]) == sorted(bots[1::2]) or not ctx.n:
        return []
    if not ctx.has("dealer", "winner", "level_change", "defenders_total"):
        return []
    net0, won0 = seating_outcome(
        h[["dealer", "winner", "level_change"]].rename(columns={"level_change": "levels"})
    )
    team0_deals = h["dealer"].to_numpy(np.int64) % 2 == 0
    dealer_won = h["winner"].astype(str).to_numpy() == "dealer"
    clusters = h[ctx.cluster].to_numpy() if ctx.cluster else None
    total = h["defenders_total"].to_numpy(float)
    total_span = METRICS["defenders_total"].value_range(ctx.rules)
    most = max(ranges.level_max(ctx.rules))  # a team's net levels: either side's gain
    net_span = (-most, most)
    rows = []
    for team in (0, 1):
        name = ",".join(dict.fromkeys(bots[team::2]))
        sign = 1 if team == 0 else -1
        deals = team0_deals if team == 0 else ~team0_deals

        def row(
            question: str, kind: str, x, among=None, span=None, *, _name=name, _team=team
        ) -> dict:
            keep = np.ones(len(x), bool) if among is None else among
            c = clusters[keep] if clusters is not None else None
            e = interval(kind, np.asarray(x, float)[keep], clusters=c, support=span)
            unit = "share" if kind == "proportion" else "mean"
            return {
                "team": f"team {_team} ({_name})",
                "question": question,
                "unit": unit,
                "estimate": e.estimate,
                "estimate_lo": e.lo,
                "estimate_hi": e.hi,
                "n": e.n,
                "warning": e.warning,
            }

        rows += [
            row("hands the team wins", "proportion", won0 if team == 0 else ~won0),
            row("net levels per hand (+ this team)", "mean", sign * net0, span=net_span),
            row("hands it deals", "proportion", deals),
            row("dealer side wins, when it deals", "proportion", dealer_won, deals),
            row("defenders' total, when it defends", "mean", total, ~deals, total_span),
        ]
    show = ("team", "question", "estimate", "estimate_lo", "estimate_hi", "n", "warning")
    note = _TEAMS_NOTE + ("Intervals cluster-robust by match." if ctx.cluster else "")
    return [Table("teams", "The two teams", pd.DataFrame(rows), note, show=show)]


def matches(ctx: Context) -> list[Table | Figure]:
    from fastsheng.studies.report.matches import match_section

    return match_section(ctx)


REPORT_SECTIONS: tuple[Section, ...] = (
    headline,
    teams,
    points,
    level_change,
    dealer_win,
    kitty,
    throws,
    declarations,
    realism,
    matches,
)
