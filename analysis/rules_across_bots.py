"""Rule comparisons across bot line-ups: does a balance conclusion survive stronger play?

Question: a rule comparison (standard vs super; the kitty multiplier; the throw penalty) gives a
difference in the balance between the dealer side and the defenders. Does that difference keep
its sign and its size when the bots get stronger (random, basic-v1, expert-v1, expert, and
`search` on a subsample when it exists)? A conclusion that flips with bot strength is a
statement about the bots, not about the rules, and is reported as such.

Method: for every line-up (the bot at all four seats) and every rule variant, one run of n hands
with the same seed, batch size and random levels, so hand i is dealt the same cards in every
run (the cards' random stream depends on neither rules nor bots). Per line-up, each comparison
A - B is a paired difference over the same deals (fastsheng.stats.paired_diff: the t interval
of the per-hand differences). Whether the size changes between two line-ups is itself a paired
question over the same deals: the per-hand difference of differences (A - B under one line-up
minus A - B under the other), with its own paired interval. Metrics: the dealer side's win rate
and its net levels per hand (levels it gains minus levels the defenders gain), and the
defenders' total points (which moves with the kitty multiplier even when no side flips).

Verdicts: "FLIPS" when one line-up's interval is above 0 and another's below; "holds" when the
sign is the same wherever the interval excludes 0; "size changes" when the difference of
differences between two line-ups excludes 0.

Run: python analysis/rules_across_bots.py [N] [OUT]   (default 50,000 hands per run, `search`
     on a fiftieth; runs are kept in OUT, default runs/analysis-rules-across-bots, and reused)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from fastsheng import stats
from fastsheng.rules import get_rules

SEED = 909
STANDARD = get_rules("standard")
# name -> rules; every comparison below is standard (A) against one of the others (B)
VARIANTS = {
    "standard": STANDARD,
    "super": get_rules("super"),
    "kitty powers": STANDARD.replace(kitty_multiplier="powers", name="standard-kitty-powers"),
    "kitty cards": STANDARD.replace(kitty_multiplier="cards", name="standard-kitty-cards"),
    "no throw penalty": STANDARD.replace(throw_penalty="none", name="standard-no-penalty"),
}
COMPARISONS = [("standard", b) for b in VARIANTS if b != "standard"]
METRICS = {
    "dealer side wins": lambda h: h["dealer_won"].astype(float),
    "dealer side net levels": lambda h: h["signed"].astype(float),
    "defenders' total": lambda h: h["defenders_total"].astype(float),
}
# weakest first: random, every frozen version in order (basic-v1, expert-v1, expert-v2, ...),
# then the current names and `search`; an alias of a bot already listed is skipped
WANTED = ("random", "versions", "basic", "expert", "search")
SUBSAMPLE = {"search": 50}  # slow bots play n / 50 hands: the first ones, the same deals


def lineups() -> list[str]:
    """The wanted bots that exist, once per bot that plays differently."""
    from fastsheng.bots import BOTS
    from fastsheng.ladder import resolve_bot_name

    names = [
        v for w in WANTED for v in ([b for b in BOTS if "-v" in b] if w == "versions" else [w])
    ]
    out, seen = [], set()
    for name in names:
        try:
            resolved = resolve_bot_name(name)
        except ValueError:
            continue
        if resolved not in seen:
            seen.add(resolved)
            out.append(name)
    return out


def _resolved(name: str) -> str:
    from fastsheng.ladder import resolve_bot_name

    return resolve_bot_name(name)


def play(where: Path, bot: str, variant: str, n: int, workers=None, batch_fn=None) -> pd.DataFrame:
    """One run (reused when it is already there): per hand, whether the dealer side won and its
    net levels, in hand_id order."""
    from fastsheng.runner import RunSpec, run

    spec = RunSpec(
        rules=VARIANTS[variant],
        bots=(bot,) * 4,
        seed=SEED,
        n=n,
        batch_size=min(n, 10_000),
        level="random",
    )
    path = where / f"{bot}-{variant.replace(' ', '-')}"
    run(spec, str(path), workers=workers, resume=(path / "run.json").is_file(), batch_fn=batch_fn)
    h = pq.read_table(
        path / "hands", columns=["hand_id", "winner", "levels", "defenders_total"]
    ).to_pandas()
    h = h.sort_values("hand_id").reset_index(drop=True)
    h["dealer_won"] = h["winner"].astype(str) == "dealer"
    h["signed"] = np.where(h["dealer_won"], h["levels"], -h["levels"].astype(int))
    return h


def verdict(rows: pd.DataFrame) -> str:
    """Sign verdict over the line-ups of one comparison and metric (rows: diff, lo, hi)."""
    above = rows.loc[rows["lo"] > 0, "lineup"].tolist()
    below = rows.loc[rows["hi"] < 0, "lineup"].tolist()
    zero = rows.loc[(rows["lo"] <= 0) & (rows["hi"] >= 0), "lineup"].tolist()
    if above and below:
        return f"FLIPS with bot strength: > 0 for {', '.join(above)}; < 0 for {', '.join(below)}"
    if not above and not below:
        if (rows["lo"] == rows["hi"]).all():
            return "no hand differs in any line-up (the variant never changes this outcome)"
        return "no line-up shows a difference"
    sign = "> 0" if above else "< 0"
    if zero:
        return f"holds ({sign}) where measurable; indistinguishable from 0 for {', '.join(zero)}"
    return f"holds: {sign} for every line-up"


def size_changes(per_hand: dict[str, np.ndarray]) -> list[dict]:
    """Consecutive line-ups: the difference of their paired differences over common deals."""
    names = list(per_hand)
    out = []
    for a, b in zip(names, names[1:], strict=False):
        k = min(len(per_hand[a]), len(per_hand[b]))
        d = stats.paired_diff(per_hand[b][:k], per_hand[a][:k])
        out.append({"from": a, "to": b, "change": d.diff, "lo": d.ci.lo, "hi": d.ci.hi, "n": k})
    return out


def main(argv: list[str] | None = None, workers=None, batch_fn=None, bots=None) -> pd.DataFrame:
    argv = sys.argv[1:] if argv is None else argv
    n = int(float(argv[0])) if argv else 50_000
    where = Path(argv[1]) if len(argv) > 1 else Path("runs/analysis-rules-across-bots")
    bots = bots or lineups()
    hands = {
        (bot, v): play(where, bot, v, max(1, n // SUBSAMPLE.get(bot, 1)), workers, batch_fn)
        for bot in bots
        for v in VARIANTS
    }
    rows, lines = [], []
    for va, vb in COMPARISONS:
        for metric, f in METRICS.items():
            per_hand, part = {}, []
            for bot in bots:
                a, b = hands[(bot, va)], hands[(bot, vb)]
                assert (a["hand_id"].to_numpy() == b["hand_id"].to_numpy()).all()
                xa, xb = f(a).to_numpy(), f(b).to_numpy()
                per_hand[bot] = xa - xb
                d = stats.paired_diff(xa, xb)
                part.append(
                    {
                        "comparison": f"{va} - {vb}",
                        "metric": metric,
                        "lineup": bot,
                        "n": d.n,
                        "A": d.mean_a,
                        "B": d.mean_b,
                        "diff": d.diff,
                        "lo": d.ci.lo,
                        "hi": d.ci.hi,
                    }
                )
            table = pd.DataFrame(part)
            rows += part
            lines.append(f"{va} - {vb}, {metric}: {verdict(table)}")
            for s in size_changes(per_hand):
                if s["lo"] > 0 or s["hi"] < 0:
                    lines.append(
                        f"    size changes from {s['from']} to {s['to']}: {s['change']:+.4f} "
                        f"[{s['lo']:+.4f}, {s['hi']:+.4f}] over {s['n']:,} common deals"
                    )
    out = pd.DataFrame(rows)
    print(
        f"{n:,} hands per run (standard rules as A, random levels, seed {SEED}); line-ups: "
        + ", ".join(
            f"{b} (= {_resolved(b)}, {max(1, n // SUBSAMPLE.get(b, 1)):,} hands)" for b in bots
        )
        + "\n"
    )
    print(out.to_string(index=False, float_format=lambda v: f"{v:+.4f}"))
    print("\nVerdicts (95% intervals; paired over the same deals):")
    print("\n".join(lines))
    return out


if __name__ == "__main__":
    main()
