"""A pair's outcome per deal, from X's side (both seatings averaged), and the pair's row: net
levels with a t interval and hands won with a Wilson interval over deals (the deal is the unit)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fastsheng.studies import stats
from fastsheng.studies.ladder.spec import LadderError

__all__ = ["CONF", "OUTCOME_COLUMNS", "PairOutcome", "pair_outcome", "pair_row", "seating_outcome"]

CONF = 0.95
# columns that depend on the deal only: both seatings of a deal must agree on them
_DEAL_COLUMNS = ("dealer", "kitty_points_dealt", *(f"points_{s}" for s in range(4)))
OUTCOME_COLUMNS = ("hand_id", "winner", "levels", *_DEAL_COLUMNS)


def seating_outcome(hands: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per hand (rows in hand order): levels team 0 (seats 0/2) gains minus levels team 1 gains,
    and whether team 0 won the hand (went up as the dealer side, or took the deal)."""
    dealer_won = hands["winner"].astype(str).to_numpy() == "dealer"
    team0_deals = hands["dealer"].to_numpy(np.int64) % 2 == 0
    won0 = dealer_won == team0_deals
    levels = hands["levels"].to_numpy(np.int64)
    return np.where(won0, levels, -levels), won0


@dataclass
class PairOutcome:
    """Per deal, from X's side: net levels per hand (both seatings averaged), hands won (0..2)."""

    x: str
    y: str
    net: np.ndarray
    wins: np.ndarray

    @property
    def deals(self) -> int:
        return int(self.net.size)

    def swapped(self) -> PairOutcome:
        """The same deals seen from Y's side."""
        return PairOutcome(self.y, self.x, -self.net, (2 - self.wins).astype(np.int8))


def pair_outcome(x: str, y: str, x_first: pd.DataFrame, y_first: pd.DataFrame) -> PairOutcome:
    """``x_first``: the hands with X at seats 0/2; ``y_first``: the same deals with the seats
    swapped. Raises LadderError if the two seatings were not dealt the same cards."""
    a = x_first.sort_values("hand_id", kind="stable").reset_index(drop=True)
    b = y_first.sort_values("hand_id", kind="stable").reset_index(drop=True)
    if len(a) != len(b) or not np.array_equal(a["hand_id"].to_numpy(), b["hand_id"].to_numpy()):
        raise LadderError(f"{x} vs {y}: the two seatings did not play the same hands")
    for col in _DEAL_COLUMNS:
        if col in a and col in b and not np.array_equal(a[col].to_numpy(), b[col].to_numpy()):
            raise LadderError(f"{x} vs {y}: the two seatings were dealt different cards ({col})")
    net_a, won_a = seating_outcome(a)  # X is team 0
    net_b, won_b = seating_outcome(b)  # X is team 1
    net = (net_a - net_b) / 2.0
    wins = won_a.astype(np.int8) + (~won_b).astype(np.int8)
    return PairOutcome(x, y, net, wins)


def _mean(x: np.ndarray, same_bot: bool) -> stats.Estimate:
    """Mean over deals with the Student t interval. A bot against itself has its value exactly
    (0 on every deal); for two bots a sample without variation (or of fewer than 2 deals) gives
    no interval: n/a, not a zero-width "95%"."""
    nan = float("nan")
    if x.size and np.all(x == x[0]):
        v = float(x[0])
        if same_bot:
            return stats.Estimate(v, v, v, int(x.size), CONF, "t", "")
        why = "fewer than 2 deals" if x.size < 2 else "no variation over the deals"
        return stats.Estimate(v, nan, nan, int(x.size), CONF, "t", f"{why}: no interval")
    return stats.mean_t(x, CONF)


def _share(wins: np.ndarray, same_bot: bool) -> stats.Estimate:
    """The share of hands won over deals: the Wilson interval at the deals' effective size
    (inside [0, 1]); exactly 0.5 for a bot against itself."""
    if same_bot and wins.size:
        v = float(wins.mean() / 2.0)
        return stats.Estimate(v, v, v, int(wins.size), CONF, "wilson (clustered)", "")
    e = stats.wilson_clustered(wins / 2.0, CONF)
    if wins.size < 2:
        return stats.Estimate(e.estimate, e.lo, e.hi, e.n, CONF, e.method, "fewer than 2 deals")
    return e


def pair_row(p: PairOutcome) -> dict[str, Any]:
    """X's net levels per hand (95% t interval over deals) and share of hands won (Wilson at
    the deals' effective size): the deal is the unit, its two hands are not independent."""
    same = p.x == p.y
    net = _mean(p.net, same)
    won = _share(p.wins, same)
    warnings = [f"{what}: {e.warning}" for what, e in (("net", net), ("won", won)) if e.warning]
    return {
        "x": p.x,
        "y": p.y,
        "deals": p.deals,
        "net": net.estimate,
        "net_lo": net.lo,
        "net_hi": net.hi,
        "won": won.estimate,
        "won_lo": won.lo,
        "won_hi": won.hi,
        "warning": "; ".join(warnings),
    }
