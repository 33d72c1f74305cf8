"""Kitty-capture odds (抠底).

Question: how often do the defenders capture the kitty (win the last trick), how much is it worth,
and how does that depend on the kind of lead in the last trick and on the points the dealer buried?

Method: one row per hand from RUN/hands/*.parquet (read with pandas). A capture is a Bernoulli
outcome per hand, so each probability gets a Wilson 95% interval (fastsheng.studies.stats.wilson);
means get a Student t 95% interval, cut at 0 (a bonus is never negative), and only from 28 hands
on: fewer, and a normal-theory interval of a mean is not to be trusted (the floor of Cochran's
rule, as fastsheng.studies.stats.skew_check has it), so the script says "too few hands for an
interval" instead of printing bounds such as [-58.5, 68.5] or [-inf, inf]. Hands are independent
(each has its own shuffle), so no clustering is needed.

Run: python analysis/kitty_odds.py RUN        (RUN: a folder written by `fastsheng sim`)
     python analysis/kitty_odds.py            (simulates 20,000 hands of `standard` first)
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd

from fastsheng.studies import ranges, stats
from fastsheng.studies.report import canonical_hands

# fewer hands than this, and a mean's interval is "too few hands for an interval"
MIN_HANDS = 28
TOO_FEW = "too few hands for an interval"


def bonus_interval(e: stats.Estimate, digits: int) -> str:
    """``[lo, hi]`` of a mean bonus, cut at 0; or why there is none."""
    if e.n < MIN_HANDS or not (math.isfinite(e.lo) and math.isfinite(e.hi)):
        return TOO_FEW
    return f"[{max(e.lo, 0.0):.{digits}f}, {e.hi:.{digits}f}]"


def load_hands(run: Path) -> pd.DataFrame:
    """The hands table, with fastsheng's canonical column names (kitty_captured, kitty_bonus,
    kitty_buried, last_lead_kind, defenders_total, ...)."""
    raw = pd.read_parquet(run / "hands")
    return canonical_hands(raw)


def simulate(out: Path, rules: str = "standard", n: int = 20_000, seed: int = 1) -> Path:
    from fastsheng.studies.report import simulate_run

    return simulate_run(out, rules=rules, bots=None, n=n, seed=seed)


def main(argv: list[str] | None = None) -> pd.DataFrame:
    argv = sys.argv[1:] if argv is None else argv
    run = Path(argv[0]) if argv else simulate(Path("runs/analysis-kitty"))
    h = load_hands(run)
    n = len(h)
    cap = h["kitty_captured"]

    overall = stats.wilson(int(cap.sum()), n)
    top = ranges.kitty_bonus_max(ranges.run_rules(run))  # the largest bonus the rules allow
    bonus = stats.mean_t(h.loc[cap, "kitty_bonus"], support=(0.0, top)) if cap.any() else None
    print(f"Run: {run} ({n:,} hand{'s' if n != 1 else ''})")
    print(f"P(defenders capture the kitty) = {overall.fmt(4)}   (Wilson 95%)")
    if bonus is not None:
        interval = bonus_interval(bonus, 1)
        how = f"({TOO_FEW})" if interval == TOO_FEW else f"{interval}   (Student t 95%)"
        print(f"Bonus when captured (points)  = {bonus.estimate:.1f} {how}")

    rows = []
    for kind, g in h.groupby("last_lead_kind"):
        e = stats.wilson(int(g["kitty_captured"].sum()), len(g))
        rows.append(
            {
                "last lead": kind,
                "hands": len(g),
                "P(capture)": e.estimate,
                "lo95": e.lo,
                "hi95": e.hi,
                "mean bonus if captured": g.loc[g["kitty_captured"], "kitty_bonus"].mean(),
            }
        )
    by_kind = pd.DataFrame(rows).sort_values("hands", ascending=False)
    print("\nBy the last trick's lead kind:")
    print(by_kind.to_string(index=False, float_format=lambda v: f"{v:.4f}"))

    if "kitty_buried" in h:
        rows = []
        for buried, g in h.groupby("kitty_buried"):
            e = stats.wilson(int(g["kitty_captured"].sum()), len(g))
            eb = stats.mean_normal(g["kitty_bonus"])
            rows.append(
                {
                    "points buried": buried,
                    "hands": len(g),
                    "P(capture)": e.estimate,
                    "lo95": e.lo,
                    "hi95": e.hi,
                    "expected bonus per hand": eb.estimate,
                    "bonus 95% interval": bonus_interval(eb, 3),
                }
            )
        print("\nBy the points the dealer buried:")
        print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(
        "\nResult: read P(capture) with its interval; rows with few hands have wide intervals "
        "and should not be compared by their point estimates alone."
    )
    return by_kind


if __name__ == "__main__":
    main()
