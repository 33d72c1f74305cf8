"""Matches-mode tables of the one-run report: one row per match, never per hand (the hands of a
match are dependent)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from fastsheng.studies import stats
from fastsheng.studies.report import plots
from fastsheng.studies.report.columns import RANK_ORDER, canonical_matches, team_codes
from fastsheng.studies.report.metrics import CONF
from fastsheng.studies.report.model import Context, Figure, Table

__all__ = ["match_section", "first_dealer_meaning"]

_HAND1 = {
    "final": "hand 1 is dealt by the final caller, so this measures hand-1 calling strength "
    "(rules: hand1_dealer = final), not an advantage of dealing first",
    "first": "hand 1 is dealt by the first declarer (rules: hand1_dealer = first): this measures "
    "calling first in hand 1",
    "random": "hand 1 is dealt by a random seat (rules: hand1_dealer = random): this measures the "
    "advantage of dealing first",
}


def first_dealer_meaning(manifest: dict) -> str:
    how = (manifest.get("rules") or {}).get("hand1_dealer", "final")
    return _HAND1.get(str(how), f"rules: hand1_dealer = {how}")


def _row(metric: str, e: stats.Estimate, unit: str, detail: str) -> dict:
    return {
        "metric": metric,
        "unit": unit,
        "estimate": e.estimate,
        "estimate_lo": e.lo,
        "estimate_hi": e.hi,
        "n": e.n,
        "interval": e.method,
        "detail": detail,
    }


def _match_rows(mt: pd.DataFrame, manifest: dict) -> list[dict]:
    rows = []
    if "hands" in mt:
        x = mt["hands"].to_numpy(float)
        # a match has at least 1 hand and at most hand_cap (none: no known limit)
        limit = (manifest.get("rules") or {}).get("hand_cap")
        cap = float(limit) if isinstance(limit, int) and limit > 0 else math.inf
        q = np.quantile(x, [0.1, 0.5, 0.9], method="inverted_cdf")
        rows.append(
            _row(
                "hands per match (mean)",
                stats.mean_t(x, CONF, support=(1.0, cap)),
                "hands",
                f"q10 {q[0]:.0f}, median {q[1]:.0f}, q90 {q[2]:.0f}",
            )
        )
    if not {"winner", "first_dealer"} <= set(mt):
        return rows
    w = team_codes(mt["winner"]).to_numpy()
    decided = w >= 0
    nd, nm = int(decided.sum()), len(mt)
    fd_team = mt["first_dealer"].to_numpy().astype(int) % 2
    k = int((w[decided] == fd_team[decided]).sum())
    rows.append(
        _row(
            "first dealer's team wins the match",
            stats.wilson(k, nd, CONF),
            "share",
            "among decided matches; 0.5 = no advantage; " + first_dealer_meaning(manifest),
        )
    )
    if nd < nm:
        rows.append(
            _row("drawn / undecided matches", stats.wilson(nm - nd, nm, CONF), "share", "Wilson")
        )
    k0 = int((w[decided] == 0).sum())
    rows.append(
        _row(
            "team 0 (seats 0, 2) wins the match",
            stats.wilson(k0, nd, CONF),
            "share",
            "among decided matches; seat/bot advantage",
        )
    )
    return rows


def first_hand_per_level(h: pd.DataFrame) -> pd.DataFrame:
    """For each match and level, the match's first hand dealt at that level (by either team):
    match_id, level, team (of its dealer)."""
    hh = h[["match_id", "dealer", "level"]].copy()
    hh["order"] = h["hand_no"].to_numpy() if "hand_no" in h else h["hand_id"].to_numpy()
    hh["team"] = hh["dealer"].astype(int) % 2
    hh = hh.sort_values(["match_id", "order"], kind="stable")
    return hh.drop_duplicates(["match_id", "level"])[["match_id", "level", "team"]]


WIN_BY_LEVEL_NOTE = (
    "Estimand: P(the team that deals a match's first hand at level L goes on to win the match), "
    "among decided matches. One observation per match and level (that first hand), so the "
    "observations in a row come from different matches and are independent: Wilson 95%. Rows "
    "share matches, so they are dependent on each other. The start rank's row is hand 1: {hand1}."
)


def win_by_level(h: pd.DataFrame, mt: pd.DataFrame, manifest: dict) -> Table | None:
    if not ({"match_id", "dealer", "level"} <= set(h) and {"match_id", "winner"} <= set(mt)):
        return None
    firsts = first_hand_per_level(h)
    win = pd.Series(team_codes(mt["winner"]).to_numpy(), index=mt["match_id"].to_numpy())
    firsts = firsts.assign(winner=firsts["match_id"].map(win).to_numpy())
    firsts = firsts[firsts["winner"] >= 0]
    rows = []
    for lv in sorted(firsts["level"].unique(), key=RANK_ORDER.index):
        sub = firsts[firsts["level"] == lv]
        e = stats.wilson(int((sub["winner"] == sub["team"]).sum()), len(sub), CONF)
        rows.append({"level": lv, "n": e.n, "p": e.estimate, "p_lo": e.lo, "p_hi": e.hi})
    note = WIN_BY_LEVEL_NOTE.format(hand1=first_dealer_meaning(manifest))
    title = "Match win probability of the team dealing first at each level"
    return Table("win_prob_by_level", title, pd.DataFrame(rows), note, percent=("p",))


def match_section(ctx: Context) -> list[Table | Figure]:
    if ctx.matches is None or not len(ctx.matches):
        return []
    mt = canonical_matches(ctx.matches)
    out: list[Table | Figure] = []
    rows = _match_rows(mt, ctx.manifest)
    if rows:
        note = "n = matches. Proportions: Wilson 95%; mean: Student t 95%."
        out.append(Table("matches", "Matches", pd.DataFrame(rows), note))
    t = win_by_level(ctx.hands, mt, ctx.manifest)
    if t is not None:
        out.append(t)
        if ctx.figures and len(t.df):
            tab = t.df
            fig = plots.bars_figure(
                tab["level"].tolist(),
                tab["p"],
                tab["p_lo"],
                tab["p_hi"],
                "P(team dealing first at L wins)",
                "Match win probability by level",
            )
            out.append(
                Figure(
                    "win_prob_by_level",
                    "Match win probability by level",
                    plots.png(fig),
                    section="win_prob_by_level",
                )
            )
    return out
