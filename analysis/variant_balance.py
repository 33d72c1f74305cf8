"""Variant balance: does a rule variant shift the balance between the dealer side and the
defenders?

Question: with rules B instead of rules A (default: `super` vs `standard`), how much more (or less)
often does the dealer side win a hand, how many more levels does it gain, and how big a
difference could this study have detected?

Method: common random numbers. Both variants are simulated with the same seed, n and batch size,
so hand i is dealt the same cards under A and B (the simulator seeds batch b from
SeedSequence(seed, spawn_key=(b,)) and deals first). Every per-hand metric is then compared
hand by hand: the mean paired difference A - B with a paired Student t 95% interval
(fastsheng.stats.paired_diff), and the minimum detectable effect (80% power, 5% level) at this n.
Pairing removes the deal-to-deal variance that two independent runs would carry, so the same n
detects much smaller differences (the printout shows the unpaired MDE for comparison).

It also prints which rule switches differ and the deal check. docs/analysis.md quotes this output
(python analysis/variant_balance.py, defaults) and tests/test_report.py checks the quote.

Run: python analysis/variant_balance.py                 (simulates standard vs super, 20,000 each)
     python analysis/variant_balance.py RUN_A RUN_B     (two runs made with the same seed)
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from fastsheng import stats
from fastsheng.numfmt import fmt_p
from fastsheng.report import canonical_hands, deal_check, load_run


def hands(run: Path) -> pd.DataFrame:
    return canonical_hands(pd.read_parquet(run / "hands")).sort_values("hand_id")


def setup_lines(run_a: Path, run_b: Path) -> list[str]:
    """What differs between the two runs' rules, and whether they dealt the same cards from the
    same dealer (the report's deal check)."""
    ra, rb = load_run(run_a), load_run(run_b)
    rules_a, rules_b = ra.manifest.get("rules") or {}, rb.manifest.get("rules") or {}
    switches = sorted(k for k in set(rules_a) | set(rules_b) if k != "name" and
                      rules_a.get(k) != rules_b.get(k))  # fmt: skip
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
    else:
        from fastsheng.report import simulate_run

        run_a, run_b = (
            simulate_run(
                out / f"analysis-balance-{r}", rules=r, bots=None, n=n, seed=11, workers=workers
            )
            for r in ("standard", "super")
        )
    a, b = hands(run_a), hands(run_b)
    a, b = a.merge(b[["hand_id"]], on="hand_id"), b.merge(a[["hand_id"]], on="hand_id")
    metrics = {
        "dealer side wins the hand": lambda h: h["dealer_won"].astype(float),
        "levels gained by the dealer side": lambda h: np.maximum(h["signed_change"], 0),
        "levels gained by the defenders": lambda h: np.maximum(-h["signed_change"], 0),
        "defenders' total": lambda h: h["defenders_total"].astype(float),
        "kitty captured": lambda h: h["kitty_captured"].astype(float),
    }
    rows = []
    for name, f in metrics.items():
        xa, xb = np.asarray(f(a), float), np.asarray(f(b), float)
        d = stats.paired_diff(xa, xb)
        unpaired = stats.mde(math.sqrt(xa.var(ddof=1) + xb.var(ddof=1)), d.n)
        rows.append(
            {
                "metric": name,
                "A": d.mean_a,
                "B": d.mean_b,
                "A - B": d.diff,
                "lo95": d.ci.lo,
                "hi95": d.ci.hi,
                "p": fmt_p(d.p_value),
                "MDE paired": d.mde,
                "MDE if unpaired": unpaired,
                # independent runs need (unpaired MDE / paired MDE)^2 times more hands
                "variance ratio": (unpaired / d.mde) ** 2 if d.mde > 0 else float("nan"),
            }
        )
    table = pd.DataFrame(rows)
    print(f"A = {run_a}\nB = {run_b}")
    print("\n".join(setup_lines(run_a, run_b)))
    print(f"{len(a):,} paired hands\n")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(
        "\nResult: a difference is established when its interval excludes 0; a difference "
        "smaller than the MDE may exist but this n would usually miss it. The variance ratio is "
        "how many times more hands two independent runs would need for the same MDE."
    )
    return table


if __name__ == "__main__":
    main()
