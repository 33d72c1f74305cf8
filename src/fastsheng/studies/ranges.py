"""The range one hand's value of a metric can take, from the facts of the game and the rules.

An interval of a mean whose sample shows no variation (every hand 0: no kitty bonus, no failed
throw) rests on these ranges (:func:`fastsheng.studies.stats.mean_t`): at most a share
``1 - 0.025^(1/n)`` (about 3.689 / n) of hands differ, each by at most the range, so the range
must hold the *largest* value one hand can take. Every bound here is conservative (a larger
range only widens the interval); where the rules are not known (an old run without them) a
bound that depends on them is infinite, which the interval shows as no bound (NaN), never as
a bound that could undercover.

Facts used (docs/rules.md): two decks, 108 cards; 25 cards a seat and a kitty of 8, so 25
tricks a hand; 200 card points (every 5, 10 and K), at most 10 a card, so at most 80 in the
kitty; a kitty bonus is the kitty's points times the multiplier of the last lead (§6), a
failed-throw penalty ``throw_penalty_points`` per card taken back or flat, once per failed throw
(§7), and a level change is the level table's value (§11) plus one level per overcall with
``overcall_bonus = level``. A failed throw at trick t (1..25) takes back at most 25 - t cards
(the leader holds 26 - t and plays at least one), at most 300 cards in a hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from fastsheng import tables
from fastsheng.cards import RANKS

__all__ = [
    "TRICKS",
    "CARD_POINTS",
    "KITTY_POINTS",
    "RECORDED_COUNT",
    "CLIMB",
    "kitty_multiplier_max",
    "kitty_bonus_max",
    "penalty_max",
    "defenders_total_max",
    "level_max",
    "run_rules",
    "widened",
]

INF = math.inf
TRICKS = 25  # tricks in a hand (25 cards a seat): at most one throw (and one failure) each
CARD_POINTS = 200  # every card point of the two decks
KITTY_POINTS = 8 * 10  # 8 kitty cards, at most 10 points each
TAKEN_BACK = sum(TRICKS - t for t in range(1, TRICKS + 1))  # 300 cards: see the module doc
RECORDED_COUNT = 255  # shows and overcalls per hand are recorded as uint8, capped at 255
CLIMB = len(RANKS) - 1  # levels a side can climb in one hand: from 2 to A at most
LEVEL_COLUMN = 255  # the hands table records levels as uint8


def kitty_multiplier_max(rules: Any) -> float:
    """The largest kitty multiplier the rules allow (§6: the table's largest value, at least 3
    for a thrown last lead with ``throw_kitty = at_least_3``, 4 with ``pair_4``)."""
    if rules is None:
        return INF
    m = tables.kitty_multiplier_data(rules.kitty_multiplier)
    top = max(m.single, m.pair, *m.tractor)
    extra = {"at_least_3": 3, "pair_4": 4}.get(rules.throw_kitty, 0)
    return float(max(top, extra))


def kitty_bonus_max(rules: Any) -> float:
    """The largest kitty bonus: 80 kitty points times the largest multiplier."""
    return KITTY_POINTS * kitty_multiplier_max(rules)


def penalty_max(rules: Any) -> float:
    """The largest effect of the throw penalties of one hand on the defenders' total, either way
    (a failed throw by a defender lowers it, by the dealer side raises it): ``points`` per card
    taken back (at most 300 cards), ``points`` per failed throw (at most 25), or 0."""
    if rules is None:
        return INF
    points = float(rules.throw_penalty_points)
    if rules.throw_penalty == "per_card":
        return points * TAKEN_BACK
    if rules.throw_penalty == "flat":
        return points * TRICKS
    return 0.0  # none; half_stake is recorded as stakes, not points


def defenders_total_max(rules: Any) -> float:
    """The largest defenders' total: every card point, the largest kitty bonus and the largest
    penalty the dealer side can pay."""
    return CARD_POINTS + kitty_bonus_max(rules) + penalty_max(rules)


def level_max(rules: Any) -> tuple[float, float]:
    """The most levels the dealer side and the defenders can gain by the level table in one hand
    (the raw value, column ``levels``): the largest band of each side, the defenders' last band
    plus one per ``step`` up to the largest total; with ``overcall_bonus = level`` one more per
    overcall, so only the column's own limit (255) bounds it. ``defender_cap`` is ignored (a
    larger bound is still a bound)."""
    if rules is None:
        return INF, INF
    if rules.overcall_bonus == "level":
        return float(LEVEL_COLUMN), float(LEVEL_COLUMN)
    table = tables.level_table_data(rules.level_table)
    dealer = max((b[2] for b in table.bands if b[1] == "dealer"), default=0)
    defenders = max((b[2] for b in table.bands if b[1] == "defenders"), default=0)
    last_low, last_side, last_levels = table.bands[-1]
    if table.step and last_side == "defenders":
        top = defenders_total_max(rules)
        defenders = max(defenders, last_levels + max(0.0, top - last_low) // table.step)
    return float(min(dealer, LEVEL_COLUMN)), float(min(defenders, LEVEL_COLUMN))


def run_rules(run: str | Path) -> Any:
    """The rules a run folder's ``run.json`` records (a ``fastsheng.Rules``), or None when it
    records none that this version reads: the bounds that depend on the rules are then
    unknown."""
    try:
        from fastsheng.rules import Rules

        manifest = json.loads((Path(run) / "run.json").read_text(encoding="utf-8"))
        spec = manifest.get("rules")
        return Rules.from_dict(spec) if spec else None
    except Exception:  # no manifest, or an older/foreign one
        return None


def widened(lo: float, hi: float, *arrays) -> tuple[float, float]:
    """The range ``[lo, hi]`` the game allows, widened to the finite values of ``arrays``: a
    safety net, should a recorded value ever lie outside what the rules were read to allow."""
    vals = np.concatenate([np.asarray(a, dtype=float).ravel() for a in arrays] or [np.zeros(0)])
    vals = vals[np.isfinite(vals)]
    if vals.size:
        return min(lo, float(vals.min())), max(hi, float(vals.max()))
    return lo, hi
