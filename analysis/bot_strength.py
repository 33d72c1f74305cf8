"""Bot strength table.

Question: which bot is stronger, and by how much, measured in levels per hand?

Method: for each pair of bots (X, Y), two runs over the same deals (same seed: common random
numbers): X at seats 0/2 against Y at seats 1/3, then the seats swapped. For each deal, X's net
levels per hand is the average over the two seatings of (levels X's team gains - levels the other
team gains). Averaging the two seatings cancels both the luck of the cards and any seat effect;
the mean over deals gets a Student t 95% interval, and so does the share of hands in which X's
team goes up (0.5 = even). The deal and the bots draw from separate random streams, so both
seatings see exactly the same cards whatever the bots (the report's deal check confirms it).

Run: python analysis/bot_strength.py [N]   (every pair of fastsheng.engine.hands.BOTS, N hands each,
                                             default 5,000)
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from fastsheng.rules import get_rules
from fastsheng.studies import ranges, stats
from fastsheng.studies.report import canonical_hands, simulate_run


def team0_net(run: Path) -> tuple[np.ndarray, np.ndarray]:
    """Per hand (sorted by hand_id): levels team 0 (seats 0, 2) gains minus levels team 1
    gains, and whether team 0 went up."""
    h = canonical_hands(pd.read_parquet(run / "hands")).sort_values("hand_id")
    dealer_team0 = h["dealer"].to_numpy(int) % 2 == 0
    change = h["signed_change"].to_numpy(float)  # + dealer side, - defenders
    net0 = np.where(dealer_team0, change, -change)
    up0 = np.where(dealer_team0, h["dealer_won"], ~h["dealer_won"].astype(bool))
    return net0, up0.astype(float)


def compare_bots(x: str, y: str, n: int, seed: int, where: Path, batch_fn=None) -> dict:
    one = simulate_run(
        where / f"{x}-vs-{y}", rules="standard", bots=f"{x},{y}", n=n, seed=seed, batch_fn=batch_fn
    )
    two = simulate_run(
        where / f"{y}-vs-{x}", rules="standard", bots=f"{y},{x}", n=n, seed=seed, batch_fn=batch_fn
    )
    net1, up1 = team0_net(one)  # X is team 0
    net2, up2 = team0_net(two)  # X is team 1
    per_deal = (net1 - net2) / 2  # X's net levels per hand, both seatings averaged
    up = (up1 + (1 - up2)) / 2  # share of the two seatings in which X's team went up
    most = max(ranges.level_max(get_rules("standard")))  # levels either side gains in a hand
    e = stats.mean_t(per_deal, support=(-most, most))
    w = stats.mean_t(up, support=(0.0, 1.0))
    return {
        "X": x,
        "Y": y,
        "deals": e.n,
        "X net levels/hand": e.estimate,
        "lo95": e.lo,
        "hi95": e.hi,
        "X goes up": w.estimate,
        "up lo95": w.lo,
        "up hi95": w.hi,
    }


def main(argv: list[str] | None = None, batch_fn=None, bots: list[str] | None = None):
    argv = sys.argv[1:] if argv is None else argv
    n = int(float(argv[0])) if argv else 5_000
    where = Path(argv[1]) if len(argv) > 1 else Path("runs/analysis-bots")
    if bots is None:
        from fastsheng.engine.hands import BOTS

        bots = list(BOTS)
    rows = [
        compare_bots(x, y, n, 5, where, batch_fn)  # batch_fn: tests only
        for x, y in itertools.combinations(bots, 2)
    ]
    table = pd.DataFrame(rows)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print("\nResult: X is stronger than Y where the interval of 'X net levels/hand' is above 0.")
    return table


if __name__ == "__main__":
    main()
