"""The sweep, worked: which kitty multiplier of the seeds, and where the take-over line, keeps
the dealer side near 50%?

Question: under `standard` (kitty multiplier plus_two, take-over line 80), how do the other
kitty multipliers the seed documents use (linear, powers, cards) and the take-over lines 60, 70,
90 and 100 (level_table = {threshold = T}) move the dealer side's win rate, its net levels per
hand and the defenders' total?

Method: two calls of `fastsheng.sweep`, each a baseline and its variants played on the same
deals (seed 16, expert bots, 20,000 hands per run); every effect is variant - baseline, paired
hand by hand, with Bonferroni simultaneous 95% intervals over the variants of the sweep and
Holm-adjusted p-values; an effect on fewer than 10 differing hands bounded by their rate;
control variates where they are on by default. docs/analysis.md quotes this output and
tests/test_sweep.py checks the quote.

Run: python analysis/sweep_example.py [N] [OUT]   (default 20,000 hands per run, about 20 s;
     the sweeps are kept in OUT, default runs/analysis-sweep, and reused)
"""

from __future__ import annotations

import sys
from pathlib import Path

import fastsheng as fs
from fastsheng.studies.report import display_frame
from fastsheng.studies.sweep import CONSOLE


def show(rep, metric: str) -> str:
    """The table as the sweep's console prints it (the same columns, warnings included)."""
    t = rep.table(f"metric_{metric}")
    return display_frame(t, CONSOLE).to_string(index=False)


def main(argv: list[str] | None = None, workers=None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    n = int(float(argv[0])) if argv else 20_000
    out = Path(argv[1]) if len(argv) > 1 else Path("runs/analysis-sweep")
    kitty = fs.sweep(
        "standard",
        set=[f"kitty_multiplier={k}" for k in ("linear", "powers", "cards")],
        metrics=["dealer_won", "defenders_total", "signed_change"],
        n=n,
        seed=16,
        out=out / "kitty",
        workers=workers,
    )
    line = fs.sweep(
        "standard",
        grid={"level_table": {"threshold": [60, 70, 90, 100]}},
        metrics=["dealer_won", "signed_change"],
        n=n,
        seed=16,
        out=out / "takeover",
        workers=workers,
    )
    print(f"kitty multiplier under standard (baseline plus_two), {n:,} hands per run:")
    for m in ("dealer_won", "defenders_total"):
        print(f"\n{m}:\n{show(kitty, m)}")
    print(f"\ntake-over line under standard (baseline 80), {n:,} hands per run:")
    for m in ("dealer_won", "signed_change"):
        print(f"\n{m}:\n{show(line, m)}")
    return {"kitty": kitty, "takeover": line}


if __name__ == "__main__":
    main()
