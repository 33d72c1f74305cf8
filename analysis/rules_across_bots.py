"""Rule comparisons across bot line-ups: does a balance conclusion survive stronger play?

Question: a rule comparison (standard vs super; the kitty multiplier; the throw penalty) gives a
difference in the balance between the dealer side and the defenders. Does that difference keep
its sign and its size when the bots get stronger (random, basic-v1, expert-v1, expert, and
`search` on a subsample when it exists)? A conclusion that flips with bot strength is a
statement about the bots, not about the rules, and is reported as such.

Method: one `fastsheng.sweep` per line-up (the bot at all four seats): standard as the baseline
and the four variants, n hands each with the same seed, batch size and random levels, so hand i
is dealt the same cards in every run of every line-up (the cards' random stream depends on
neither rules nor bots). Per line-up, each comparison A - B (standard - variant, the sweep's
effect with its sign turned) is a paired difference over the same deals: the t interval of the
per-hand differences, 95% each (adjust=False: the verdicts below make their own family, and the
published table replays), control variates off. Whether the size changes between two
line-ups is itself a paired question over the same deals: the per-hand difference of
differences (A - B under one line-up minus A - B under the other), with its own paired interval.
Metrics: the dealer side's win rate and its net levels per hand (levels it gains minus levels
the defenders gain), and the defenders' total points (which moves with the kitty multiplier
even when no side flips).

Verdicts: "FLIPS" when one line-up's interval is above 0 and another's below; "holds" when the
sign is the same wherever the interval excludes 0; "size changes" when the difference of
differences between two line-ups excludes 0.

Run: python analysis/rules_across_bots.py [N] [OUT]   (default 50,000 hands per run, `search`
     on a fiftieth; each line-up's sweep is kept in OUT/<bot>, default
     runs/analysis-rules-across-bots, and reused)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

import fastsheng as fs
from fastsheng.rules import get_rules
from fastsheng.studies import stats
from fastsheng.studies.report import metrics as fs_metrics

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
# metric -> its key in the report's registry (fastsheng.studies.report.metrics)
METRICS = {
    "dealer side wins": "dealer_won",
    "dealer side net levels": "signed_change",
    "defenders' total": "defenders_total",
}
METRICS_BY_KEY = {k: fs_metrics.METRICS[k] for k in METRICS.values()}
# weakest first: random, every frozen version in order (basic-v1, expert-v1, expert-v2, ...),
# then the current names and `search`; an alias of a bot already listed is skipped
WANTED = ("random", "versions", "basic", "expert", "search")
SUBSAMPLE = {"search": 50}  # slow bots play n / 50 hands: the first ones, the same deals


def lineups() -> list[str]:
    """The wanted bots that exist, once per bot that plays differently."""
    from fastsheng.bots.names import BOTS
    from fastsheng.studies.ladder import resolve_bot_name

    names = [
        v
        for w in WANTED
        # the heuristic bots' frozen versions (a search's versions are searches, not steps)
        for v in (
            [b for b in BOTS if "-v" in b and not b.startswith("search")]
            if w == "versions"
            else [w]
        )
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
    from fastsheng.studies.ladder import resolve_bot_name

    return resolve_bot_name(name)


def sweep_lineup(where: Path, bot: str, n: int, workers=None, batch_fn=None):
    """One sweep of the variants with ``bot`` at every seat (its runs reused when there):
    the sweep's report and, per variant, its per-hand metric values in hand_id order."""
    from fastsheng.studies.report.columns import canonical_hands
    from fastsheng.studies.report.runs import load_run

    variants = [r for name, r in VARIANTS.items() if name != "standard"]
    out = where / bot
    rep = fs.sweep(
        STANDARD,
        variants=variants,
        bots=[bot],
        n=n,
        seed=SEED,
        batch_size=min(n, 10_000),
        level="random",
        metrics=list(METRICS.values()),
        controls=False,
        adjust=False,
        out=out,
        workers=workers,
        batch_fn=batch_fn,
        figures=False,
    )
    per_hand = {}
    for name, r in VARIANTS.items():
        run = load_run(out / "runs" / ("baseline=standard" if name == "standard" else r.name))
        h = canonical_hands(run.hands, run.rules)
        per_hand[name] = {
            k: np.asarray(METRICS_BY_KEY[k].value(h), float) for k in METRICS.values()
        }
    return rep, per_hand


def verdict(rows: pd.DataFrame, unchanged: bool = False) -> str:
    """Sign verdict over the line-ups of one comparison and metric (rows: diff, lo, hi);
    `unchanged`: the variant changed no hand's value in any line-up."""
    above = rows.loc[rows["lo"] > 0, "lineup"].tolist()
    below = rows.loc[rows["hi"] < 0, "lineup"].tolist()
    zero = rows.loc[(rows["lo"] <= 0) & (rows["hi"] >= 0), "lineup"].tolist()
    if above and below:
        return f"FLIPS with bot strength: > 0 for {', '.join(above)}; < 0 for {', '.join(below)}"
    if not above and not below:
        if unchanged or (rows["lo"] == rows["hi"]).all():
            return "no hand differs in any line-up (the variant never changes this outcome)"
        return "no line-up shows a difference"
    sign = "> 0" if above else "< 0"
    if zero:
        return f"holds ({sign}) where measurable; indistinguishable from 0 for {', '.join(zero)}"
    return f"holds: {sign} for every line-up"


def size_changes(
    per_hand: dict[str, np.ndarray], key: str = "dealer_won", rules=(STANDARD,)
) -> list[dict]:
    """Consecutive line-ups: the difference of their paired differences over common deals
    (per-hand differences of metric ``key`` between runs under ``rules``; a change few deals
    show is bounded by the range a difference can take under those rules, widened to the
    differences seen)."""
    m = fs_metrics.METRICS[key]
    arrays = [d[np.isfinite(d)] for d in per_hand.values()]
    span = fs_metrics.diff_support(fs_metrics.support(m, [], rules))
    if span is not None:
        seen = np.concatenate([*arrays, np.zeros(1)])
        span = (min(span[0], float(seen.min())), max(span[1], float(seen.max())))
    names = list(per_hand)
    out = []
    for a, b in zip(names, names[1:], strict=False):
        k = min(len(per_hand[a]), len(per_hand[b]))
        d = stats.paired_diff(per_hand[b][:k], per_hand[a][:k], support=span, step=m.step)
        out.append({"from": a, "to": b, "change": d.diff, "lo": d.ci.lo, "hi": d.ci.hi, "n": k})
    return out


def main(argv: list[str] | None = None, workers=None, batch_fn=None, bots=None) -> pd.DataFrame:
    argv = sys.argv[1:] if argv is None else argv
    n = int(float(argv[0])) if argv else 50_000
    where = Path(argv[1]) if len(argv) > 1 else Path("runs/analysis-rules-across-bots")
    bots = bots or lineups()
    sweeps = {
        bot: sweep_lineup(where, bot, max(1, n // SUBSAMPLE.get(bot, 1)), workers, batch_fn)
        for bot in bots
    }
    rows, lines = [], []
    for va, vb in COMPARISONS:
        label = VARIANTS[vb].name
        for metric, key in METRICS.items():
            per_hand, part = {}, []
            for bot in bots:
                rep, hands = sweeps[bot]
                e = rep.table(f"metric_{key}").df.set_index("variant").loc[label]
                per_hand[bot] = hands[va][key] - hands[vb][key]
                part.append(
                    {
                        "comparison": f"{va} - {vb}",
                        "metric": metric,
                        "lineup": bot,
                        "n": int(e["n"]),
                        "A": e["mean_baseline"],
                        "B": e["mean_variant"],
                        # the sweep's effect is variant - standard: A - B turns its sign
                        "diff": -e["diff"] + 0.0,
                        "lo": -e["diff_hi"] + 0.0,
                        "hi": -e["diff_lo"] + 0.0,
                    }
                )
            table = pd.DataFrame(part)
            rows += part
            unchanged = not any(np.any(d) for d in per_hand.values())
            lines.append(f"{va} - {vb}, {metric}: {verdict(table, unchanged)}")
            for s in size_changes(per_hand, key, (VARIANTS[va], VARIANTS[vb])):
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
