"""``fastsheng compare``: two runs of the same deals, every pairable metric of
:mod:`fastsheng.studies.report.metrics` compared hand by hand (paired t interval, or the exact
rate bound when fewer than 10 hands differ; p-value, MDE, standardized difference), plus the
level-change distribution, per-match differences in matches mode and a check that the deals
really were the same."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from fastsheng.studies import ranges, stats
from fastsheng.studies.report import plots
from fastsheng.studies.report.columns import (
    canonical_hands,
    canonical_matches,
    pick_column,
    team_codes,
)
from fastsheng.studies.report.matches import first_dealer_meaning
from fastsheng.studies.report.metrics import (
    CONF,
    METRICS,
    Metric,
    clustered_paired,
    interval,
    paired_row,
)
from fastsheng.studies.report.model import Figure, Report, Table, lineup_text
from fastsheng.studies.report.runs import Run
from fastsheng.studies.report.sections import outcome_key
from fastsheng.studies.report.single import compute_report, mode_conventions

__all__ = ["compute_compare", "deal_check", "PAIRED", "pairing_text", "team_view"]

# compared hand by hand, in this order (each must be a pairable metric)
PAIRED = (
    "defenders_total",
    "trick_points",
    "dealer_won",
    "signed_change",
    "dealer_gain",
    "defender_gain",
    "signed_climbed",
    "dealer_climbed",
    "defender_climbed",
    "kitty_captured",
    "kitty_bonus",
    "kitty_decides",
    "no_trump",
    "overcall",
    "throws",
    "failed_throws",
    "kitty_buried",
)

# columns that depend on the shuffle only (not on rules or bots): the dealer (hands mode: drawn
# from the cards' stream), the first seat dealt, the kitty as dealt, per-seat deal features
_DEAL_ONLY = ("kitty_points_dealt", "kitty_points", "first_seat", "dealer", "deal_hash")
_DEAL_FEATURES = ("points", "jokers", "pairs", "level_cards")


def _is_deal_column(c: str) -> bool:
    if c in _DEAL_ONLY or c.startswith("deal_"):
        return True
    return any(c.startswith(f"{p}_") and c[len(p) + 1 :].isdigit() for p in _DEAL_FEATURES)


def deal_check(a: pd.DataFrame, b: pd.DataFrame) -> dict[str, Any]:
    """Whether two paired raw hands tables dealt the same cards from the same dealer: the share
    of pairs where every deal-only column agrees (``same_share``) and where the dealer agrees
    (``same_dealer_share``). In matches mode only hand 1 of each match is checked (``scope``)."""
    scope = "all paired hands"
    if "hand_no" in a and "hand_no" in b:
        first = (a["hand_no"].to_numpy() == 1) & (b["hand_no"].to_numpy() == 1)
        a, b = a[first], b[first]
        scope = "hand 1 of each paired match"
    cols = [c for c in a.columns if c in b.columns and _is_deal_column(c)]
    nan = float("nan")
    if not cols or not len(a):
        return {"columns": [], "same_share": nan, "same_dealer_share": nan, "scope": scope}
    same = np.ones(len(a), dtype=bool)
    for c in cols:
        same &= a[c].astype(str).to_numpy() == b[c].astype(str).to_numpy()
    dealer = nan
    if "dealer" in cols:
        dealer = float(np.mean(a["dealer"].to_numpy() == b["dealer"].to_numpy()))
    return {
        "columns": cols,
        "same_share": float(same.mean()),
        "same_dealer_share": dealer,
        "scope": scope,
    }


def _pair_frames(a: pd.DataFrame, b: pd.DataFrame, key: str | None):
    if key and key in a and key in b:
        common = np.intersect1d(a[key].to_numpy(), b[key].to_numpy())
        a = a.set_index(key).loc[common].reset_index()
        b = b.set_index(key).loc[common].reset_index()
    else:
        k = min(len(a), len(b))
        a, b = a.iloc[:k].reset_index(drop=True), b.iloc[:k].reset_index(drop=True)
    return a, b


MATCHES_PAIRING = (
    "matches mode: hands are paired by hand_id (match, hand number), so only hand numbers both "
    "matches reached are compared (early hands weigh more). Hand k of match i gets the same "
    "shuffle in both runs, but once the two matches' dealers differ it is dealt from another "
    "seat: the same cards, rotated, so later pairs are correlated, neither identical nor "
    "independent. The hands of one match are dependent: the intervals here are cluster-robust "
    "with the match as the cluster; the per-match table answers per-match questions"
)


def pairing_text(deal: dict, same_seed: bool, matches_mode: bool) -> str:
    share = deal["same_share"]
    if deal["columns"] and share == 1.0:
        text = "identical deals and dealers (common random numbers)"
    elif same_seed:
        text = "same seed"
        if deal["columns"]:
            text += (
                f", but only {share:.2%} of {deal['scope']} have the same cards and dealer "
                f"(same dealer: {deal['same_dealer_share']:.2%}): the pairing is weaker there"
            )
    else:
        text = "different seeds: pairs are independent"
    return text + ("; " + MATCHES_PAIRING if matches_mode else "")


def _headline(ha, hb, la, lb, pairing: str, cluster: str | None, rules) -> Table:
    rows = [paired_row(m, ha, hb, cluster, rules=rules) for m in _pairable(ha, hb)]
    k = len(rows)
    note = (
        f"A = {la}; B = {lb}. Pairing: {pairing}. diff = mean over hands of (A - B) with the "
        "paired Student t 95% interval (warning: when the differences are too skewed for it to "
        "hold); when fewer than 10 pairs differ (none: the same play twice) the exact rate "
        "bound instead, each differing hand worth at most the range a value can take under the "
        "rules of the two runs (n/a where that range is not known; never the zero-width "
        "[0, 0]: n hands that agree bound an effect, they do not rule it out); p_value: "
        "two-sided z-test of no difference (the rate bound's own when it is used); mde: the "
        "smallest true difference this n detects with 80% power at the 5% level, "
        "(1.96 + 0.84) sd_diff / sqrt(n), n/a when no pair differs; std_diff: diff in standard "
        "deviations of the per-hand values. Shares are differences of proportions in percentage "
        "points. Multiple comparisons: " + plots.multiple_comparisons(k)
    )
    show = (
        "metric",
        "unit",
        "n",
        "mean_a",
        "mean_b",
        "diff",
        "diff_lo",
        "diff_hi",
        "p_value",
        "mde",
        "warning",
    )
    console = ("metric", "mean_a", "mean_b", "diff", "diff_lo", "diff_hi", "mde")
    return Table(
        "headline", "Paired differences A - B", pd.DataFrame(rows), note, show=show, console=console
    )


def _pairable(ha: pd.DataFrame, hb: pd.DataFrame) -> list[Metric]:
    ms = [METRICS[k] for k in PAIRED]
    return [m for m in ms if m.pairable and m.available(ha) and m.available(hb)]


def _level_change(ha: pd.DataFrame, hb: pd.DataFrame, cluster: str | None) -> Table | None:
    if "outcome" not in ha or "outcome" not in hb:
        return None
    n = len(ha)
    c = ha[cluster].to_numpy() if cluster else None
    rows = []
    for o in sorted(set(ha["outcome"]) | set(hb["outcome"]), key=outcome_key):
        xa, xb = (ha["outcome"] == o).to_numpy(), (hb["outcome"] == o).to_numpy()
        if cluster:
            d = clustered_paired(xa, xb, c, (0.0, 1.0), 1.0)
        else:
            d = stats.paired_diff(xa, xb, CONF, support=(0.0, 1.0), step=1.0)
        ea, eb = interval("proportion", xa, clusters=c), interval("proportion", xb, clusters=c)
        rows.append(
            {
                "outcome": o,
                "n": n,
                "p_a": ea.estimate,
                "p_a_lo": ea.lo,
                "p_a_hi": ea.hi,
                "p_b": eb.estimate,
                "p_b_lo": eb.lo,
                "p_b_hi": eb.hi,
                "diff": d.diff,
                "diff_lo": d.ci.lo,
                "diff_hi": d.ci.hi,
                "mde": d.mde,
                "warning": d.ci.warning,
            }
        )
    note = (
        "Outcomes by the level-table value (column levels). p_a, p_b: Wilson 95%; diff: paired "
        "t 95% (percentage points), or the exact rate bound when fewer than 10 pairs differ."
    )
    return Table(
        "level_change",
        "Level-change distribution, A vs B",
        pd.DataFrame(rows),
        note,
        percent=("p_a", "p_b", "diff", "mde"),
    )


_PER_MATCH = (
    ("hands per match", "hands", lambda m: m["hands"]),
    ("team 0 (seats 0, 2) wins", "share", lambda m: team_codes(m["winner"]) == 0),
    (
        "first dealer's team wins",
        "share",
        lambda m: (
            team_codes(m["winner"]).to_numpy() == m["first_dealer"].to_numpy().astype(int) % 2
        ),
    ),
    ("drawn", "share", lambda m: team_codes(m["winner"]) < 0),
)


def _hands_range(xa: np.ndarray, xb: np.ndarray, rules) -> tuple[float, float]:
    """The range of the hands a match can take under the ``rules`` of both runs: 1 to the
    largest ``hand_cap`` (no cap, or rules not known: no upper end, so no bound of a difference
    few pairs show), widened to the values seen."""
    caps = [getattr(r, "hand_cap", None) for r in rules]
    return ranges.widened(1.0, max(float(c) if c else math.inf for c in caps), xa, xb)


def _match_differences(run_a: Run, run_b: Run) -> Table | None:
    if run_a.matches is None or run_b.matches is None:
        return None
    mta, mtb = canonical_matches(run_a.matches), canonical_matches(run_b.matches)
    mta, mtb = _pair_frames(mta, mtb, "match_id")
    rules = (run_a.rules, run_b.rules)
    rows = []
    for metric, unit, fn in _PER_MATCH:
        try:
            xa, xb = np.asarray(fn(mta), float), np.asarray(fn(mtb), float)
        except KeyError:
            continue
        span = (0.0, 1.0) if unit == "share" else _hands_range(xa, xb, rules)
        d = stats.paired_diff(xa, xb, CONF, support=span, step=1.0)
        rows.append(
            {
                "metric": metric,
                "unit": unit,
                "n": d.n,
                "mean_a": d.mean_a,
                "mean_b": d.mean_b,
                "diff": d.diff,
                "diff_lo": d.ci.lo,
                "diff_hi": d.ci.hi,
                "p_value": d.p_value,
                "mde": d.mde,
                "warning": d.ci.warning,
            }
        )
    if not rows:
        return None
    note = (
        "Matches paired by match_id: match i of A and match i of B start from the same first "
        "shuffle; later hands get the same shuffles but diverge with the play (dealt from other "
        "seats once the dealers differ). One row per match: paired t 95% intervals (the exact "
        "rate bound when fewer than 10 matches differ). First "
        f"dealer's team: {first_dealer_meaning(run_a.manifest)}."
    )
    return Table(
        "match_differences", "Paired differences per match, A - B", pd.DataFrame(rows), note
    )


def _rules_diff(ma: dict, mb: dict) -> list[str]:
    ra, rb = ma.get("rules") or {}, mb.get("rules") or {}
    return sorted(
        f"{k}: {ra.get(k)} / {rb.get(k)}"
        for k in set(ra) | set(rb)
        if k != "name" and ra.get(k) != rb.get(k)
    )


def _setup(ma: dict, mb: dict, deal: dict) -> Table:
    def row(what, a, b=""):
        return {"": what, "A": a, "B": b}

    checked = (
        f"{deal['same_share']:.4%} of {deal['scope']} (same dealer: "
        f"{deal['same_dealer_share']:.4%})"
        if deal["columns"]
        else "not checked"
    )
    rows = [
        row("rules", ma.get("rules_name"), mb.get("rules_name")),
        row("bots", ",".join(ma.get("bots", [])), ",".join(mb.get("bots", []))),
        row("seed", ma.get("seed"), mb.get("seed")),
        row("n", ma.get("n"), mb.get("n")),
        row("batch size", ma.get("batch_size"), mb.get("batch_size")),
        row(
            "mode / level",
            f"{ma.get('mode')} / {ma.get('level')}",
            f"{mb.get('mode')} / {mb.get('level')}",
        ),
        row("switches that differ", ", ".join(_rules_diff(ma, mb)) or "none"),
        row("same cards and dealer (columns checked)", checked, ", ".join(deal["columns"])[:200]),
    ]
    return Table("setup", "The two runs", pd.DataFrame(rows), "")


def _figures(diffs: pd.DataFrame, ha, hb, la: str, lb: str) -> list[Figure]:
    out = [
        Figure(
            "paired_diffs",
            "Paired differences (standardized)",
            plots.png(plots.forest_figure(diffs, "A - B, paired (95% CI)")),
            note=plots.multiple_comparisons(len(diffs)),
            section="headline",
        )
    ]
    if "defenders_total" in ha:
        groups = {
            f"A: {la}": ha["defenders_total"].to_numpy(float),
            f"B: {lb}": hb["defenders_total"].to_numpy(float),
        }
        fig = plots.points_hist_figure(groups, "defenders' total points", "Defenders' total")
        out.append(
            Figure(
                "points_hist", "Defenders' total, A and B", plots.png(fig), section="level_change"
            )
        )
    return out


TEAM_NOTE = (
    "The team view of a line-up of two teams X (seats 0/2) and Y (seats 1/3), as fastsheng "
    "ladder measures it: the same deals are played again with the seats swapped (Y at 0/2, in "
    "runs/<line-up>-seats-swapped), and per deal X's net levels (levels X's team gains minus "
    "levels Y's team gains) are averaged over the two seatings, so the luck of the cards and the "
    "seat cancel; won: the share of hands X's team wins (goes up as the dealer side, or takes "
    "the deal). Student t 95% intervals over deals, the deal being the unit."
)


def team_view(teams: list[tuple[str, Run, Run]]) -> Table:
    """Per line-up of two teams (label, its run, the seat-swapped run of the same deals): X's
    net levels per hand and share of hands won against Y, by fastsheng.studies.ladder's pair
    rows."""
    from fastsheng.studies.ladder import pair_outcome, pair_row

    rows = []
    for label, run, swapped in teams:
        x, y = run.manifest["bots"][:2]
        r = pair_row(pair_outcome(x, y, run.hands, swapped.hands))
        rows.append(
            {
                "line-up": label,
                "X vs Y": f"{x} vs {y}",
                **{k: r[k] for k in ("deals", "net", "net_lo", "net_hi")},
                **{k: r[k] for k in ("won", "won_lo", "won_hi", "warning")},
            }
        )
    return Table(
        "teams",
        "Team view: X's team against Y's, seats swapped on the same deals",
        pd.DataFrame(rows),
        TEAM_NOTE,
        percent=("won",),
        console=(
            "X vs Y",
            "deals",
            "net",
            "net_lo",
            "net_hi",
            "won",
            "won_lo",
            "won_hi",
            "warning",
        ),
    )


def compute_compare(
    run_a: Run,
    run_b: Run,
    *,
    label_a: str | None = None,
    label_b: str | None = None,
    figures: bool = True,
    notice: str | None = None,
) -> Report:
    """Paired comparison of two runs of the same deals (same seed, n and batch size)."""
    la, lb = label_a or run_a.label, label_b or run_b.label
    ha, hb = _pair_frames(
        canonical_hands(run_a.hands, run_a.rules),
        canonical_hands(run_b.hands, run_b.rules),
        "hand_id",
    )
    raw_a, raw_b = _pair_frames(run_a.hands, run_b.hands, pick_column(run_a.hands, ["hand_id"]))
    ma, mb = run_a.manifest, run_b.manifest
    same_seed = ma.get("seed") == mb.get("seed") and ma.get("batch_size") == mb.get("batch_size")
    deal = deal_check(raw_a, raw_b)
    matches_mode = "matches" in (ma.get("mode"), mb.get("mode"))
    notices = [x for x in (notice, run_a.notice, run_b.notice) if x]
    rep = Report(
        title=f"fastsheng compare: A = {la} vs B = {lb}",
        subtitle=f"{len(ha):,} paired hands (by hand_id); seed A {ma.get('seed')}, seed B "
        f"{mb.get('seed')}; batch size {ma.get('batch_size')} / {mb.get('batch_size')}",
        meta={
            "run_a": run_a.path,
            "run_b": run_b.path,
            "label_a": la,
            "label_b": lb,
            "n_pairs": len(ha),
            "same_seed_and_batches": bool(same_seed),
            "deal_check": deal,
        },
        notice="; ".join(dict.fromkeys(notices)) or None,
        conventions=mode_conventions(ma),
        bots=_bots_of_both(ma, mb),
    )
    cluster = "match_id" if matches_mode and "match_id" in ha and "match_id" in hb else None
    pairing = pairing_text(deal, same_seed, matches_mode)
    head = _headline(ha, hb, la, lb, pairing, cluster, (run_a.rules, run_b.rules))
    rep.tables.append(head)
    for t in (_level_change(ha, hb, cluster), _match_differences(run_a, run_b)):
        if t is not None:
            rep.tables.append(t)
    for tag, run, label in (("a", run_a, la), ("b", run_b, lb)):
        t = compute_report(run, figures=False).table("headline")
        rep.tables.append(
            Table(
                f"headline_{tag}",
                f"Headline of {tag.upper()} = {label}",
                t.df.drop(columns="bots", errors="ignore"),
                t.note,
                show=t.show,
                bots=lineup_text(run.manifest.get("bots")),
            )
        )
    rep.tables.append(_setup(ma, mb, deal))
    if figures and len(head.df):
        rep.figures += _figures(head.df, ha, hb, la, lb)
    rep.name_bots()
    return rep


def _bots_of_both(ma: dict, mb: dict) -> str:
    """Who played A and B (one phrase when the same bots played both)."""
    a, b = lineup_text(ma.get("bots")), lineup_text(mb.get("bots"))
    return f"A and B: {a}" if a == b else f"A: {a}; B: {b}"
