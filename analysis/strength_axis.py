"""The headline figures along the strength axis: which have converged by the strongest bot?

Question: the figures users come for (dealer side wins, the defenders' total and its quantiles,
kitty capture and the hands it decides, failed throws, defenders' early trump leads, and the
balance between `standard` and `super`) move with the strength of the bots. Along the axis
expert-v1 < expert-v2 < expert-v3 < expert-v4 < search:k=8 < search-v3 < search:k=32 < STRONG
<= search:k=128 < ONE_CHAIN < STRONGEST (STRONG: the search-v3 setting that beats search:k=32
by about +0.05 net levels a hand at about its CPU, with the calls searched too, the one bot of
the axis whose burial and calls are searched; ONE_CHAIN: the largest race reading play, burial
and cards, the first setting aimed at beating search:k=128 by +0.05; STRONGEST: the same race
with its worlds from four chains), how far does each figure move, and has it stopped moving by the
strongest bot?

Method: every bot plays all four seats on the same deals (one seed, one batch size, random
levels: hand i is dealt the same cards in every run, whatever the bots or rules). The search
bots play only the first deals (they are thousands of times slower; DEALS gives the sizes). Per
bot: each figure with its 95% interval (`fastsheng.studies.realism` for the panel's shares and
means: Wilson, Student t; `fastsheng.studies.stats.quantile_ci` for the quantiles). Then, paired
over the deals both played, each bot's difference from the strongest bot (`stats.paired_diff`, the
t interval of the per-deal differences, or its rate bound when fewer than 10 deals differ; for
a quantile, a paired bootstrap over deals), and the
last step (the second strongest against the strongest). The balance figure is the dealer side's net
levels per hand under `standard` minus under `super`, over the same deals; its difference between
two bots is a paired difference of differences.

Verdict per figure: "still moving" when the last step's interval excludes 0; otherwise "no move
detected in the last step", with the interval that bounds the move.

Run: python analysis/strength_axis.py [OUT] [--plot PNG]   (runs kept in OUT, default
     runs/analysis-strength-axis, and reused or resumed; --read-only summarizes what exists)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from fastsheng.rules import get_rules
from fastsheng.studies import ranges, stats
from fastsheng.studies.realism import kitty_flips_side

SEED = 2026
BATCH = 50  # small batches: an unfinished search run still gives its first deals
# search-v3's setting aimed at beating search:k=32 by +0.05 at about its CPU (+0.056 over it,
# docs/bots.md "search-v3"; the "(b)" of its short name below) with the calls searched too: the
# one bot of the axis whose burial and calls are searched; head to head a little below
# search:k=128 (search-v3's largest settings tie it or trail it within noise), so it comes before
STRONG = "search-v3:k=1024,close=31,early=0,top=7,bury=1,call=1"
# the largest race reading the play, the burial and each card (+0.045 over search:k=128 over
# 24 seeds, docs/bots.md "A per-card belief"): the first setting aimed at beating search:k=128
# by +0.05 net levels a hand (the "(c)" of its short name below)
ONE_CHAIN = "search-v3:k=1024,close=31,early=0,top=7,infer=10,kitty=5,belief=1,cards=1"
# the same race with its worlds from four chains (+0.060 over search:k=128 on eight seeds,
# +0.023 a seed over ONE_CHAIN on the same eight seeds, docs/bots.md "Four chains"): the
# strongest, so the last
STRONGEST = ONE_CHAIN + ",chains=4"
# how the tables and the plot name a bot whose name is too long for a column
SHORT = {
    STRONG: "search-v3 (b)+calls",
    ONE_CHAIN: "search-v3 (c)",
    STRONGEST: "search-v3 (c) 4 chains",
}


def label(bot: str) -> str:
    return SHORT.get(bot, bot)


AXIS = (
    "expert-v1",
    "expert-v2",
    "expert-v3",
    "expert-v4",
    "search:k=8",
    "search-v3",
    "search:k=32",
    STRONG,
    "search:k=128",
    ONE_CHAIN,
    STRONGEST,
)
# deals per bot (the first ones): sized to the shared 2-core machine (see docs/analysis.md)
DEALS = {
    "expert-v1": 20_000,
    "expert-v2": 20_000,
    "expert-v3": 20_000,
    "expert-v4": 20_000,
    "search:k=8": 600,
    "search-v3": 600,
    "search:k=32": 400,
    "search:k=128": 300,
    STRONG: 300,
    ONE_CHAIN: 300,
    STRONGEST: 300,
}
# the balance needs each bot once more under `super`: fewer deals for the slowest
SUPER_DEALS = DEALS | {"search:k=32": 200}
SMOKE_AXIS = ("expert-v1", "expert-v4", "search:k=2")
SMOKE_DEALS = {"expert-v1": 200, "expert-v4": 200, "search:k=2": 50}
SMOKE_SUPER_DEALS = SMOKE_DEALS | {"search:k=2": 30}
QUANTILES = (0.10, 0.25, 0.50, 0.75, 0.90)
N_BOOT = 2000
BALANCE = "standard - super: dealer side net levels"

# key -> (label, unit, per-hand value of a standard run)
FIGURES = {
    "dealer_wins": ("dealer side wins", "share", lambda h, r: h["winner"] == "dealer"),
    "defenders_total": ("defenders' mean total", "points", lambda h, r: h["defenders_total"]),
    "kitty_captured": ("kitty captured", "share", lambda h, r: h["kitty_captured"]),
    "kitty_decides": ("the kitty decides the hand", "share", lambda h, r: kitty_flips_side(h, r)),
    "kitty_buried": (
        "points buried in the kitty",
        "kitty points",
        lambda h, r: h["kitty_points_buried"],
    ),
    "failed_throw": ("hands with a failed throw", "share", lambda h, r: h["failed_throws"] > 0),
    "early_trump": (
        "a defender leads trump in tricks 1-5",
        "share",
        lambda h, r: h["defender_early_trump"],
    ),
}


def run_path(where: Path, bot: str, variant: str) -> Path:
    return where / f"{bot.replace(':', '-').replace('=', '')}-{variant}"


def play(where: Path, bot: str, variant: str, n: int, workers: int = 0) -> None:
    """One run, resumed when it is already there (standard runs keep the tricks table)."""
    from fastsheng.sim.runner import RunSpec, run

    spec = RunSpec(
        rules=get_rules(variant),
        bots=(bot,) * 4,
        seed=SEED,
        n=n,
        batch_size=BATCH,
        level="random",
        tricks=variant == "standard",
    )
    path = run_path(where, bot, variant)
    run(spec, str(path), workers=workers, resume=(path / "run.json").is_file())


def load(where: Path, bot: str, variant: str) -> tuple[pd.DataFrame, str] | None:
    """The hands of a run (what finished of it, by hand_id) and the bots run.json records."""
    from fastsheng.sim.dataset import DatasetError
    from fastsheng.studies.report.runs import load_run

    path = run_path(where, bot, variant)
    if not (path / "run.json").is_file():
        return None
    try:
        r = load_run(path)
    except DatasetError:
        return None
    h = r.hands.set_index("hand_id", drop=False)
    h["winner"] = h["winner"].astype(str)
    return h, r.manifest["bots"][0]


def per_hand(h: pd.DataFrame, rules) -> pd.DataFrame:
    """The per-hand values of every figure (a standard run's hands)."""
    return pd.DataFrame(
        {k: np.asarray(f(h, rules), np.float64) for k, (_, _, f) in FIGURES.items()},
        index=h.index,
    )


def net_levels(h: pd.DataFrame) -> pd.Series:
    """The dealer side's net levels per hand: levels it gains, minus the defenders' gain."""
    lv = h["levels"].astype(np.float64)
    return lv.where(h["winner"] == "dealer", -lv)


# the range one hand's value of a figure can take under the standard rules, from the game
# (fastsheng.studies.ranges): in points the defenders' total's; the points buried in the kitty
# within the kitty's (8 cards of at most 10 points); in levels the balance's (standard's net
# levels minus super's, each within the level table's values of either side); a share 0..1.
# A mean without variation is bounded by it (stats.mean_t), and a difference few deals show by
# the range of a difference (stats.paired_diff), never by the range the deals happen to show
_STANDARD = get_rules("standard")
POINTS_RANGE = (0.0, ranges.defenders_total_max(_STANDARD))
_STD_UP, _SUPER_UP = ranges.level_max(_STANDARD), ranges.level_max(get_rules("super"))
BALANCE_RANGE = (-(_STD_UP[1] + _SUPER_UP[0]), _STD_UP[0] + _SUPER_UP[1])
KITTY_RANGE = (0.0, float(ranges.KITTY_POINTS))
RANGE = {
    "share": (0.0, 1.0),
    "points": POINTS_RANGE,
    "kitty points": KITTY_RANGE,
    "levels": BALANCE_RANGE,
}


def estimate(x: np.ndarray, unit: str) -> stats.Estimate:
    if unit == "share":
        return stats.wilson(int(np.count_nonzero(x)), len(x))
    return stats.mean_t(x, support=RANGE[unit] if unit in ("points", "kitty points") else None)


# the smallest nonzero step of a per-hand value: a share 1, card points 5, levels 1
STEP = {"share": 1.0, "points": 5.0, "kitty points": 5.0, "levels": 1.0}


def paired_diff(a: np.ndarray, b: np.ndarray, unit: str) -> stats.PairedDiff:
    """`stats.paired_diff` of a figure in ``unit``: a difference few deals show (none, when two
    bots play a figure alike) is bounded by its rate, each deal's value within the range the
    rules allow (``RANGE``, widened to the values seen; never the zero-width [0, 0])."""
    span = ranges.widened(*RANGE[unit], a, b)
    return stats.paired_diff(a, b, support=span, step=STEP[unit])


def paired_quantile_diff(a: np.ndarray, b: np.ndarray, q: float, seed: int) -> tuple:
    """q-quantile of a minus that of b over the same deals, with a paired percentile bootstrap
    (deals resampled together, so the deal-to-deal variance cancels as in paired_diff)."""
    rng = np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=(seed,)))
    idx = rng.integers(0, len(a), size=(N_BOOT, len(a)))
    boot = np.quantile(a[idx], q, axis=1, method="inverted_cdf") - np.quantile(
        b[idx], q, axis=1, method="inverted_cdf"
    )
    d = np.quantile(a, q, method="inverted_cdf") - np.quantile(b, q, method="inverted_cdf")
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return float(d), float(lo), float(hi)


def figures(data: dict[str, pd.DataFrame], balance: dict[str, pd.Series]) -> pd.DataFrame:
    """One row per (figure, bot): the estimate with its interval and n, the paired difference
    from the strongest bot (the last one of the axis) over the deals both played."""
    bots = list(data)
    top = bots[-1]
    rows = []

    def row(key, label, bot, est, n, diff):
        rows.append(
            {
                "key": key,
                "figure": label,
                "bot": bot,
                "n": n,
                "estimate": est[0],
                "lo": est[1],
                "hi": est[2],
                "vs_strongest": diff[0],
                "vs_lo": diff[1],
                "vs_hi": diff[2],
                "n_paired": diff[3],
            }
        )

    def paired(x: pd.Series, y: pd.Series, unit: str) -> tuple:
        common = x.index.intersection(y.index)
        d = paired_diff(x.loc[common].to_numpy(), y.loc[common].to_numpy(), unit)
        return d.diff, d.ci.lo, d.ci.hi, len(common)

    for key, (label, unit, _) in FIGURES.items():
        for bot in bots:
            x = data[bot][key]
            e = estimate(x.to_numpy(), unit)
            row(key, label, bot, (e.estimate, e.lo, e.hi), e.n, paired(x, data[top][key], unit))
    for i, q in enumerate(QUANTILES):
        key, label = f"defenders_q{round(q * 100)}", f"defenders' total, q{round(q * 100)}"
        for bot in bots:
            x, y = data[bot]["defenders_total"], data[top]["defenders_total"]
            e = stats.quantile_ci(x.to_numpy(), q)
            common = x.index.intersection(y.index)
            d = paired_quantile_diff(x.loc[common].to_numpy(), y.loc[common].to_numpy(), q, i)
            row(key, label, bot, (e.estimate, e.lo, e.hi), e.n, (*d, len(common)))
    # the balance against the strongest bot that has a super run (the slowest may have none)
    for bot, x in balance.items():
        e = stats.mean_t(x.to_numpy())
        btop = balance[list(balance)[-1]]
        row("balance", BALANCE, bot, (e.estimate, e.lo, e.hi), e.n, paired(x, btop, "levels"))
    return pd.DataFrame(rows)


def last_steps(data: dict[str, pd.DataFrame], balance: dict[str, pd.Series]) -> pd.DataFrame:
    """Per figure: the move from the first bot to the strongest and the last step (the second
    strongest to the strongest), paired over common deals, and the verdict."""
    series = {k: {b: data[b][k] for b in data} for k in FIGURES}
    if len(balance) >= 2:
        series["balance"] = dict(balance)
    labels = {k: v[0] for k, v in FIGURES.items()} | {"balance": BALANCE}
    units = {k: v[1] for k, v in FIGURES.items()} | {"balance": "levels"}
    rows = []
    for key, by_bot in series.items():
        bots = list(by_bot)
        first, prev, top = bots[0], bots[-2], bots[-1]
        out = {"key": key, "figure": labels[key], "strongest": top}
        for name, a in (("total", first), ("last", prev)):
            if a not in by_bot:
                out |= {name: np.nan, f"{name}_lo": np.nan, f"{name}_hi": np.nan}
                continue
            x, y = by_bot[top], by_bot[a]
            common = x.index.intersection(y.index)
            d = paired_diff(x.loc[common].to_numpy(), y.loc[common].to_numpy(), units[key])
            out |= {name: d.diff, f"{name}_lo": d.ci.lo, f"{name}_hi": d.ci.hi}
            out[f"{name}_n"] = len(common)
        moving = out["last_lo"] > 0 or out["last_hi"] < 0
        out["verdict"] = (
            f"still moving ({label(prev)} -> {label(top)})"
            if moving
            else f"no move detected from {label(prev)} to {label(top)}"
        )
        rows.append(out)
    return pd.DataFrame(rows)


def each_step(data: dict[str, pd.DataFrame], balance: dict[str, pd.Series]) -> str:
    """Markdown: per figure, the paired move of each step along the axis (bot to the next one,
    over the deals both played): where along the axis a figure moves."""
    units = {k: v[1] for k, v in FIGURES.items()} | {"balance": "levels"}
    labels = {k: v[0] for k, v in FIGURES.items()} | {"balance": BALANCE}
    series = {k: {b: data[b][k] for b in data} for k in FIGURES} | {"balance": balance}
    bots = list(data)
    steps = list(zip(bots, bots[1:], strict=False))
    lines = ["| figure | " + " | ".join(f"{label(a)} → {label(b)}" for a, b in steps) + " |\n"]
    lines.append("|---" * (len(steps) + 1) + "|\n")
    for key, by_bot in series.items():
        cells = []
        for a, b in steps:
            if a not in by_bot or b not in by_bot:
                cells.append("n/a")
                continue
            x, y = by_bot[b], by_bot[a]
            common = x.index.intersection(y.index)
            d = paired_diff(x.loc[common].to_numpy(), y.loc[common].to_numpy(), units[key])
            cells.append(_fmt_diff(d.diff, d.ci.lo, d.ci.hi, units[key]))
        lines.append(f"| {labels[key]} | " + " | ".join(cells) + " |\n")
    return "".join(lines)


def _fmt(v, lo, hi, unit) -> str:
    from fastsheng.studies.numfmt import fmt_interval

    if not np.isfinite(v):
        return "n/a"
    return fmt_interval(v, lo, hi, pct=unit == "share")


def _fmt_diff(v, lo, hi, unit) -> str:
    """A difference: of shares in percentage points."""
    from fastsheng.studies.numfmt import fmt_interval

    if not np.isfinite(v):
        return "n/a"
    if unit != "share":
        return fmt_interval(v, lo, hi)
    return fmt_interval(100 * v, 100 * lo, 100 * hi) + " pp"


def markdown(table: pd.DataFrame, steps: pd.DataFrame, deals: dict[str, int]) -> str:
    """The table of docs/analysis.md: per figure, each bot's estimate [95%], then the last step
    and the whole move, each paired."""
    bots = list(dict.fromkeys(table["bot"]))
    units = {k: v[1] for k, v in FIGURES.items()} | {"balance": "levels"}
    head = "| figure | " + " | ".join(f"`{label(b)}` ({deals[b]:,})" for b in bots)
    head += " | last step | expert-v1 → strongest |\n"
    lines = [head, "|---" * (len(bots) + 3) + "|\n"]
    steps = steps.set_index("key")
    for key in dict.fromkeys(table["key"]):
        part = table[table["key"] == key].set_index("bot")
        unit = units.get(key, "points")
        cells = [
            _fmt(*part.loc[b, ["estimate", "lo", "hi"]], unit) if b in part.index else "n/a"
            for b in bots
        ]
        if key in steps.index:
            s = steps.loc[key]
            cells += [
                _fmt_diff(s["last"], s["last_lo"], s["last_hi"], unit),
                _fmt_diff(s["total"], s["total_lo"], s["total_hi"], unit),
            ]
        else:  # quantiles: the paired bootstrap differences from the strongest, top minus bot
            for b in (bots[-2], bots[0]):
                d, lo, hi = part.loc[b, ["vs_strongest", "vs_lo", "vs_hi"]]
                cells.append(_fmt_diff(-d, -hi, -lo, unit))
        lines.append(f"| {part['figure'].iloc[0]} | " + " | ".join(cells) + " |\n")
    return "".join(lines)


def plot(table: pd.DataFrame, path: Path) -> None:
    """One panel per figure: each bot's difference from the strongest, 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(dict.fromkeys(table["key"]))
    cols = 4
    rows = -(-len(keys) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 2.8 * rows), squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=False):
        part = table[table["key"] == key]
        scale = 100.0 if FIGURES.get(key, ("", ""))[1] == "share" else 1.0
        y = np.arange(len(part))
        d = part["vs_strongest"].to_numpy() * scale
        err = np.vstack([d - part["vs_lo"] * scale, part["vs_hi"] * scale - d])
        ax.errorbar(d, y, xerr=err, fmt="o", capsize=3)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_yticks(y, [label(b) for b in part["bot"]], fontsize=7)
        ax.invert_yaxis()
        unit = "pp" if scale == 100.0 else ("levels" if key == "balance" else "points")
        ax.set_title(part["figure"].iloc[0], fontsize=8)
        ax.set_xlabel(f"minus the strongest ({unit})", fontsize=7)
    for ax in list(axes.flat)[len(keys) :]:
        ax.set_visible(False)
    fig.suptitle(
        f"difference from {label(table['bot'].iloc[-1])} on the same deals, 95% intervals",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv: list[str] | None = None, axis=AXIS, workers: int = 0):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", nargs="?", default="runs/analysis-strength-axis")
    p.add_argument("--plot", help="write the plot to this PNG")
    p.add_argument("--read-only", action="store_true", help="summarize the runs that exist")
    p.add_argument("--smoke", action="store_true", help="three quick bots on a few deals")
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    deals = {"standard": DEALS, "super": SUPER_DEALS}
    if a.smoke:
        axis, deals = SMOKE_AXIS, {"standard": SMOKE_DEALS, "super": SMOKE_SUPER_DEALS}
    where = Path(a.out)
    if not a.read_only:
        # every standard run first (the headline), then super for the balance
        for variant in ("standard", "super"):
            for bot in axis:
                play(where, bot, variant, deals[variant][bot], workers)
    rules = get_rules("standard")
    data, balance, names, sizes = {}, {}, {}, {}
    for bot in axis:
        std = load(where, bot, "standard")
        if std is None:
            continue
        h, names[bot] = std
        data[bot] = per_hand(h, rules)
        sizes[bot] = len(h)
        sup = load(where, bot, "super")
        if sup is not None:
            common = h.index.intersection(sup[0].index)
            balance[bot] = net_levels(h).loc[common] - net_levels(sup[0]).loc[common]
    table = figures(data, balance)
    steps = last_steps(data, balance)
    print(
        f"seed {SEED}, batch size {BATCH}, random levels, all four seats one bot; deals: "
        + ", ".join(f"{b} (= {names[b]}) {sizes[b]:,}" for b in data)
    )
    if balance:
        print(
            "balance (standard - super) deals: "
            + ", ".join(f"{b} {len(s):,}" for b, s in balance.items())
        )
    print()
    print(markdown(table, steps, sizes))
    print("Each step along the axis (the next bot minus this one, paired over common deals):\n")
    print(each_step(data, balance))
    for _, s in steps.iterrows():
        print(f"{s['figure']}: {s['verdict']}")
    if a.plot:
        plot(table, Path(a.plot))
    return table, steps


if __name__ == "__main__":
    main()
