"""Variant balance: does a rule variant shift the balance between the dealer side and the
defenders?

Question: with rules B instead of rules A (default: `super` vs `standard`), how much more (or less)
often does the dealer side win a hand, how many more levels does it gain, and how big a
difference could this study have detected?

Method: common random numbers, through the sweep API. `fastsheng.sweep` plays B as the baseline
and A as its one variant with the same seed, n and batch size, so hand i is dealt the same cards
under A and B (the simulator seeds batch b from SeedSequence(seed, spawn_key=(b,)) and deals
first); `fastsheng.studies.paired_effects` compares every per-hand metric hand by hand: the mean
paired difference A - B with a paired Student t 95% interval (one variant: nothing to adjust;
control variates off, so the figures are the plain paired ones), and the minimum detectable
effect (80% power, 5% level) at this n. Pairing removes the deal-to-deal variance that two
independent runs would carry, so the same n detects much smaller differences (the printout shows
the unpaired MDE for comparison).

It also prints which rule switches differ and the deal check. docs/analysis.md quotes this output
(python analysis/variant_balance.py, defaults) and tests/test_report.py checks the quote.

Run: python analysis/variant_balance.py                 (simulates standard vs super, 20,000 each)
     python analysis/variant_balance.py RUN_A RUN_B     (two runs made with the same seed)
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd

import fastsheng as fs
from fastsheng.studies import paired_effects, stats
from fastsheng.studies.numfmt import fmt_p
from fastsheng.studies.report import deal_check, load_run

METRICS = {
    "dealer side wins the hand": "dealer_won",
    "levels gained by the dealer side": "dealer_gain",
    "levels gained by the defenders": "defender_gain",
    "defenders' total": "defenders_total",
    "kitty captured": "kitty_captured",
}


def setup_lines(run_a: Path, run_b: Path) -> list[str]:
    """What differs between the two runs' rules, and whether they dealt the same cards from the
    same dealer (the report's deal check)."""
    ra, rb = load_run(run_a), load_run(run_b)
    rules_a, rules_b = ra.manifest.get("rules") or {}, rb.manifest.get("rules") or {}
    switches = sorted(
        k for k in set(rules_a) | set(rules_b) if k != "name" and rules_a.get(k) != rules_b.get(k)
    )
    a, b = ra.hands.merge(rb.hands[["hand_id"]]), rb.hands.merge(ra.hands[["hand_id"]])
    deal = deal_check(a, b)
    return [
        f"switches that differ: {len(switches)} ({', '.join(switches)})",
        f"same cards and dealer: {deal['same_share']:.2%} of {deal['scope']}",
    ]


def main(
    argv: list[str] | None = None, n: int = 20_000, out: Path = Path("runs"), workers=None
) -> pd.DataFrame:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 2:
        run_a, run_b = Path(argv[0]), Path(argv[1])
    else:  # B = super is the sweep's baseline, A = standard its variant: A - B = the effect
        where = out / "analysis-balance"
        fs.sweep(
            "super",
            variants=["standard"],
            metrics=list(METRICS.values()),
            n=n,
            seed=11,
            out=where,
            workers=workers,
            controls=False,
            figures=False,
        )
        run_a, run_b = where / "runs" / "standard", where / "runs" / "baseline=super"
    effects = paired_effects(run_b, [run_a], metrics=list(METRICS.values()), controls=False)
    rows = []
    for name, key in METRICS.items():
        e = effects[key].iloc[0]
        paired = stats.mde(e["sd_diff"], e["n"]) if e["sd_diff"] > 0 else float("nan")
        sd_a = e["sd_variant"]
        sd_b = e["sd_baseline"]
        unpaired = stats.mde(math.sqrt(sd_a**2 + sd_b**2), e["n"])
        rows.append(
            {
                "metric": name,
                "A": e["mean_variant"],
                "B": e["mean_baseline"],
                "A - B": e["diff"],
                "lo95": e["diff_lo"],
                "hi95": e["diff_hi"],
                "p": fmt_p(e["p_value"]),
                "MDE paired": paired,
                "MDE if unpaired": unpaired,
                # independent runs need (unpaired MDE / paired MDE)^2 times more hands
                "variance ratio": (unpaired / paired) ** 2 if paired > 0 else float("nan"),
            }
        )
    table = pd.DataFrame(rows)
    print(f"A = {run_a}\nB = {run_b}")
    print("\n".join(setup_lines(run_a, run_b)))
    print(f"{int(effects['dealer_won']['n'].iloc[0]):,} paired hands\n")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(
        "\nResult: a difference is established when its interval excludes 0; a difference "
        "smaller than the MDE may exist but this n would usually miss it. The variance ratio is "
        "how many times more hands two independent runs would need for the same MDE."
    )
    return table


if __name__ == "__main__":
    main()
