"""The strength-speed frontier of the shipped bots: hands/s against strength.

For each bot: its speed, hands per second of CPU on one core with the bot at all four seats
(``profile_batch``, `standard`, random levels, the same deals for every bot), and its strength,
net levels per hand over ``expert-v1`` on paired deals with the seats swapped
(``fs.evaluate``: each deal played twice, the bot at seats 0/2 then 1/3; the Student t 95%
interval over deals). Slow bots get fewer deals (``DEALS``; their interval says so). Printed as
a Markdown table and drawn to ``docs/frontier.png``: hands/s on a log scale against net levels
per hand, with the intervals as error bars.

    python analysis/frontier.py [SCALE] [SEED] [BOT...]
    python analysis/frontier.py show     (the stored points' table and plot, nothing measured)

SCALE multiplies every bot's number of deals (default 1.0: about 10 minutes of CPU; 0.1 for a
quick look). SEED defaults to 2030 (a seed the bots' labels and margins never saw). Every point
is kept in ``docs/frontier.json`` with its scale and seed, and the same file in the package
(``src/fastsheng/bots/frontier.json``, which ``fastsheng bots`` reads); naming BOTs (of
``DEALS``) measures only those and keeps the others' stored points, so a new bot joins the
frontier without measuring the rest again (the table and the plot are made from all the points).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import fastsheng as fs  # noqa: E402
from fastsheng.engine.hands import profile_batch  # noqa: E402

# the largest race reading the play, the burial and each card (the first setting aimed at beating
# search:k=128 by +0.05 net levels a hand), and the strongest bot: the same race with its worlds
# from four chains
ONE_CHAIN = "search-v3:k=1024,close=31,early=0,top=7,infer=10,kitty=5,belief=1,cards=1"
FOUR_CHAINS = ONE_CHAIN + ",chains=4"
# bot -> (paired deals for its strength, hands timed for its speed): the search settings cost
# 20 ms to 350 ms a hand, the heuristic and learned bots well under 1 ms
DEALS = {
    "random": (20_000, 4_000),
    "basic-v1": (20_000, 4_000),
    "expert-v4": (20_000, 4_000),
    "learned-v1": (20_000, 2_000),
    "search:k=8": (1_000, 40),
    "search-v2": (1_000, 24),
    "search-v3": (1_000, 48),
    "search-v3:k=1024,close=31,early=0,top=7,bury=1": (1_000, 12),
    "search:k=32": (1_000, 16),
    "search:k=128": (300, 8),
    ONE_CHAIN: (1_000, 12),
    FOUR_CHAINS: (1_000, 12),
}
# long names shortened on the plot
SHORT = {
    "search-v3:k=1024,close=31,early=0,top=7,bury=1": "search-v3:k=1024,...,bury=1",
    ONE_CHAIN: "search-v3:k=1024,...,cards=1",
    FOUR_CHAINS: "search-v3:k=1024,...,chains=4",
}
# labels moved off their neighbour's (points offset, from the point)
OFFSET = {FOUR_CHAINS: (6, -14)}
BASELINE = "expert-v1"
ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "frontier.png"
POINTS = OUT.with_suffix(".json")
# the same points shipped with the package: fastsheng.list_bots() and `fastsheng bots` read them
# (an install has no docs/); written with POINTS, the same bytes
PACKAGED = ROOT / "src" / "fastsheng" / "bots" / "frontier.json"


def measure(bot: str, deals: int, timed: int, seed: int, scale: float) -> dict:
    """One point of the frontier: speed (all four seats) and strength over the baseline."""
    hands_per_s = profile_batch("standard", bot, seed, timed, level="random")["hands_per_s"]
    r = fs.evaluate(bot, deals, opponent=BASELINE, level="random", seed=seed)
    return {
        "bot": bot,
        "hands_per_s": hands_per_s,
        **{k: r[k] for k in ("deals", "net", "net_lo", "net_hi")},
        "timed": timed,
        "scale": scale,
        "seed": seed,
    }


def plot(points: list[dict], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for p in points:
        err = [[p["net"] - p["net_lo"]], [p["net_hi"] - p["net"]]]
        ax.errorbar(p["hands_per_s"], p["net"], yerr=err, fmt="o", capsize=4)
        ax.annotate(
            SHORT.get(p["bot"], p["bot"]),
            (p["hands_per_s"], p["net"]),
            textcoords="offset points",
            xytext=OFFSET.get(p["bot"], (6, 4)),
            fontsize=9,
        )
    ax.set_xscale("log")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("hands per second of CPU, one core, the bot at all four seats (log scale)")
    ax.set_ylabel(f"net levels / hand over {BASELINE} [95%]")
    ax.set_title("fastsheng bots: strength against speed (standard, paired deals)")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def speed(hands_per_s: float) -> str:
    # the slowest searches play about one hand a second: two digits, not a rounded 0 or 1
    return f"{hands_per_s:,.0f}" if hands_per_s >= 10 else f"{hands_per_s:.2g}"


def table(points: list[dict]) -> str:
    rows = [
        f"| bot | hands/s (one core, four seats) | net levels / hand over {BASELINE} [95%] "
        "| deals |",
        "|---|---|---|---|",
    ]
    for p in points:
        rows.append(
            f"| {p['bot']} | {speed(p['hands_per_s'])} | {p['net']:+.3f} "
            f"[{p['net_lo']:+.3f}, {p['net_hi']:+.3f}] | {p['deals']:,} |"
        )
    return "\n".join(rows)


def main(argv: list[str]) -> None:
    if argv[1:] == ["show"]:
        # the stored points only: print the table and draw the plot again, measuring nothing
        points = json.loads(POINTS.read_text())
        print(table(points))
        plot(points, OUT)
        print(f"\nwrote {OUT}")
        return
    scale = float(argv[1]) if len(argv) > 1 else 1.0
    seed = int(argv[2]) if len(argv) > 2 else 2030
    only = argv[3:]
    unknown = [b for b in only if b not in DEALS]
    if unknown:
        sys.exit(f"frontier: not a bot of DEALS: {', '.join(unknown)}")
    stored = json.loads(POINTS.read_text()) if only and POINTS.exists() else []
    kept = {p["bot"]: p for p in stored if p["bot"] in DEALS and p["bot"] not in only}
    for bot, (deals, timed) in DEALS.items():
        if only and bot not in only:
            continue
        p = measure(bot, max(2, round(deals * scale)), max(4, round(timed * scale)), seed, scale)
        kept[bot] = p
        print(
            f"{bot}: {speed(p['hands_per_s'])} hands/s, {p['net']:+.3f} "
            f"[{p['net_lo']:+.3f}, {p['net_hi']:+.3f}] over {p['deals']:,} deals",
            flush=True,
        )
    points = [kept[b] for b in DEALS if b in kept]
    text = json.dumps(points, indent=1) + "\n"
    POINTS.write_text(text)
    PACKAGED.write_text(text)
    print()
    print(table(points))
    plot(points, OUT)
    print(f"\nwrote {OUT}, {POINTS} and {PACKAGED}")


if __name__ == "__main__":
    main(sys.argv)
