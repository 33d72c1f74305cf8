"""The report of one run: the page header (title, subtitle, how to read it) and the sections of
:data:`fastsheng.studies.report.sections.REPORT_SECTIONS` in order."""

from __future__ import annotations

from fastsheng.studies.report.columns import canonical_hands
from fastsheng.studies.report.model import Context, Report, lineup_text
from fastsheng.studies.report.runs import Run
from fastsheng.studies.report.sections import REPORT_SECTIONS

__all__ = ["compute_report", "mode_conventions"]

HANDS_MODE = (
    "Hands mode: every hand is an independent later hand, not a match's hand 1: the dealer is a "
    "random seat (drawn from the cards' random stream), the later-hand rules apply (the calls do "
    "not choose the dealer; nobody calling → the rules' no_declaration fallback), and the level "
    "is fixed by --level ({level}) for both teams, with no earlier must-play ranks."
)
MATCHES_MODE = (
    "Matches mode: whole matches from the rules' start rank ({start}); hand 1 follows the "
    "hand-1 rules (hand1_dealer = {hand1}), later hands the later-hand rules. The hands of a "
    "match are dependent: per-match tables have one row per match, and every interval over "
    "hands is cluster-robust with the match as the cluster."
)
LEVEL_COLUMNS = (
    "Level columns: levels = the raw level-table value for the winning side (overcall bonus "
    "included), before the end rank and must-play caps; levels_climbed = the levels that side "
    "actually climbs (hands mode: from the hand's level, no earlier must-play ranks known). "
    "Each table says which it uses."
)
SEAT_COLUMNS = (
    "Seats after chaodi 炒底 (an overcall after the burial): declarer = the standing caller "
    "when the calls closed with the deal (before burial); final_caller = whose call set the "
    "final trump (the last chaodi 炒底 overcaller, else the declarer); burier = who buried the "
    "final kitty (the dealer, or the last chaodi 炒底 overcaller); kitty_points_buried = points "
    "in that final kitty; trumps_s etc. under the final trump."
)


def mode_conventions(manifest: dict) -> list[str]:
    """How to read the numbers of a run: the conventions of its mode and of the level and seat
    columns (shown at the top of the report page)."""
    rules = manifest.get("rules") or {}
    if manifest.get("mode") == "matches":
        mode = MATCHES_MODE.format(
            start=rules.get("start_rank", "2"), hand1=rules.get("hand1_dealer", "final")
        )
    else:
        mode = HANDS_MODE.format(level=manifest.get("level", "2"))
    return [mode, LEVEL_COLUMNS, SEAT_COLUMNS]


def _subtitle(run: Run, n: int) -> str:
    m = run.manifest
    if m.get("mode") == "matches":
        where = f"levels from the start rank {(m.get('rules') or {}).get('start_rank', '2')}"
    else:
        where = f"level {m.get('level', '?')}"
    return (
        f"{n:,} hands; rules {m.get('rules_name', '?')}; bots {lineup_text(m.get('bots'))}; "
        f"seed {m.get('seed', '?')}; mode {m.get('mode', '?')}; {where}"
    )


def compute_report(run: Run, *, figures: bool = True, notice: str | None = None) -> Report:
    """Every table and plot of ``fastsheng report`` for one run. ``notice`` (default: the run's
    own) is shown on every output."""
    h = canonical_hands(run.hands, run.rules)
    m = run.manifest
    keys = ("rules_name", "bots", "seed", "n", "batch_size", "mode", "level")
    rep = Report(
        title=f"fastsheng report: {m.get('rules_name', '?')}",
        subtitle=_subtitle(run, len(h)),
        meta={"run": run.path, "n_hands": len(h), **{k: m.get(k) for k in keys}},
        conventions=mode_conventions(m),
        notice=notice or run.notice,
        bots=lineup_text(m.get("bots")),
    )
    ctx = Context(h, m, run.rules, run.matches, figures)
    for section in REPORT_SECTIONS:
        rep.add(section(ctx))
    rep.name_bots()
    return rep
