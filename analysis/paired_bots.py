"""Paired strength of two bots: net levels per hand with a 95% interval.

Question: does bot X beat bot Y, by how many levels per hand?

Method: each deal is played twice under the same rules (the deal's random stream does not depend
on the bots): X at seats 0/2 against Y at 1/3, then the seats swapped. Per deal, X's net levels =
(levels X's team gains - levels Y's team gains) averaged over the two seatings, which cancels the
luck of the cards and any seat effect. The table gives the mean over deals, its 95% interval
(normal, 1.96 standard errors) and the share of hands X's team wins. This is the figure of
docs/bots.md for expert vs expert-v1 and the gate of tests/test_bots.py.

Run: python analysis/paired_bots.py [X] [Y] [N] [RULES] [SEED]
     (default: expert expert-v1 100000 standard 2024)
"""

from __future__ import annotations

import sys

import numpy as np

from fastsheng.bots.names import resolve_bot
from fastsheng.engine.hands import simulate_hands


def team0_net(t) -> tuple[np.ndarray, np.ndarray]:
    """Per hand: levels team 0 (seats 0/2) gains minus levels team 1 gains; whether team 0 won
    the hand (its dealer side advanced, or as defenders it took over)."""
    d = t.column("dealer").to_numpy().astype(int) % 2
    dealer_won = np.asarray(t.column("winner").to_pylist()) == "dealer"
    win_team = np.where(dealer_won, d, 1 - d)
    levels = t.column("levels").to_numpy().astype(int)
    return np.where(win_team == 0, levels, -levels), win_team == 0


def paired(x: str, y: str, n: int, seed: int = 2024, rules: str = "standard", level="2"):
    """(mean, low, high, share won) of X's net levels per hand over n paired deals."""
    a = simulate_hands(rules, (x, y, x, y), seed, n, level=level)
    b = simulate_hands(rules, (y, x, y, x), seed, n, level=level)
    for col in ("dealer", "kitty_points_dealt", "points_0", "pairs_2"):  # the same deals
        assert a.column(col).equals(b.column(col)), col
    net_a, won_a = team0_net(a)
    net_b, won_b = team0_net(b)
    per_deal = (net_a - net_b) / 2
    mean = float(per_deal.mean())
    half = 1.96 * float(per_deal.std(ddof=1)) / np.sqrt(n)
    return mean, mean - half, mean + half, float((won_a.mean() + (1 - won_b).mean()) / 2)


def main(argv: list[str]) -> None:
    x = argv[0] if len(argv) > 0 else "expert"
    y = argv[1] if len(argv) > 1 else "expert-v1"
    n = int(float(argv[2])) if len(argv) > 2 else 100_000
    rules = argv[3] if len(argv) > 3 else "standard"
    seed = int(argv[4]) if len(argv) > 4 else 2024
    mean, lo, hi, won = paired(x, y, n, seed, rules)
    d = 3 if abs(mean) >= 0.01 else 4  # two close versions differ in the fourth decimal
    print(
        f"{rules}: {resolve_bot(x)} vs {resolve_bot(y)} over {n:,} paired deals (seed {seed}): "
        f"{mean:+.{d}f} net levels/hand [{lo:+.{d}f}, {hi:+.{d}f}], "
        f"hands won {100 * won:.{d - 2}f}%"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
