"""The burial searched (`search-v3`'s bury=1) on expert play: its gain and the kitty figures.

Question: what does searching the burial gain over the base bot's own burial, how does it move
the kitty (points buried, kitty captured, hands the kitty decides), and at what CPU cost?

Method: X = `search-v3:k=K,cands=C,base=BASE,bury=1` with its play search off (the research
setting `play=0`: its leads and follows are BASE's; `bury_kmul`, `bury_maxw`, `bury_rules` and
`bury_z` set its burial's worlds, named swaps and gate, `played_name`), so X differs from
Y = BASE only in the burials it makes. Each deal is played twice (`standard`, random levels), X
at seats 0/2 then the seats swapped; net levels per hand per deal as in
research/search_strength.py (fastsheng.studies.ladder.pair_outcome), t interval over deals.
Both seatings deal the same cards and, X calling as BASE, make the same calls, so the same seat
buries in both: in one of them X's side buries, in the other Y's. The kitty figures compare
those two hands of each deal (studies/realism.py's definitions: points in the final kitty, the
defenders capture it, the kitty bonus flips the side that goes up), paired per deal, with the t
interval of the difference. Cost: CPU of the X-vs-Y seatings minus that of two all-BASE runs of
the same deals, per hand and per burial searched.

Run: python research/bury_search.py [BASE] [N] [SEED[,SEED...]] [K] [CANDS] [KMUL] [RULES]
     (default: expert-v4 2000 2024 32 8, the published worlds per burial (KMUL x K, KMUL = 4,
     at most 128), RULES 1; RULES 0: no named swaps)
     python research/bury_search.py --screen [BASE] [N] [SEED] [FIRST LAST]
     (the screen of k, candidates and gate: SCREEN's variants FIRST..LAST-1, default all)
"""

from __future__ import annotations

if not __package__:  # run as `python research/NAME.py`: the repo root on the path
    import _root  # noqa: F401

import sys

import numpy as np
import pandas as pd

from fastsheng.bots import _bury_search, bot_spec
from fastsheng.rules import get_rules
from fastsheng.studies import stats
from fastsheng.studies.ladder import pair_outcome
from fastsheng.studies.realism import kitty_flips_side
from research.common import iv, timed_hands

RULES = "standard"


def name_of(base: str, k: int, cands: int) -> str:
    return f"search-v3:k={k},cands={cands},base={base},bury=1"


def played_name(
    base: str, k: int, cands: int, kmul: int | None = None, rules_on: int = 1, z: float = 1.0
) -> str:
    """X as it plays: name_of's with its play search off and the burial's research settings
    (kmul None: the published worlds per burial, k x 4 at most 128; else k x kmul, unbounded)."""
    x = f"{name_of(base, k, cands)},play=0,bury_rules={rules_on},bury_z={z}"
    return x if kmul is None else f"{x},bury_kmul={kmul},bury_maxw=4096"


def measure(
    base: str,
    n: int,
    seeds,
    k: int = 16,
    cands: int = 8,
    kmul: int | None = None,
    rules_on: int = 1,
    cost: bool = True,
    z: float = 1.0,
) -> dict:
    """The figures of the module docstring for X = name_of(base, k, cands) vs base."""
    x, y = played_name(base, k, cands, kmul, rules_on, z), base
    spec = bot_spec(x)
    worlds = min(k * spec.bury_kmul, spec.bury_maxw)
    _bury_search._bury_counts(reset=True)
    nets, searched, plain, cpu_x, cpu_y = [], [], [], 0.0, 0.0
    for seed in seeds:
        a, ca = timed_hands(RULES, (x, y, x, y), seed, n)
        b, cb = timed_hands(RULES, (y, x, y, x), seed, n)
        cpu_x += ca + cb
        if cost:
            cpu_y += timed_hands(RULES, y, seed, n)[1] * 2
        nets.append(pair_outcome(x, y, a, b).net)
        same = a["burier"].to_numpy() == b["burier"].to_numpy()
        x_buries_a = (a["burier"].to_numpy() & 1) == 0  # X is team 0 in a, team 1 in b
        pick_a = same & x_buries_a
        pick_b = same & ~x_buries_a
        searched.append(pd.concat([a[pick_a], b[pick_b]]))
        plain.append(pd.concat([b[pick_a], a[pick_b]]))
    counts = _bury_search._bury_counts()
    s, p = pd.concat(searched), pd.concat(plain)
    rules = get_rules(RULES)
    kitty = {}
    for key, fs, fp in (
        ("points buried", s["kitty_points_buried"], p["kitty_points_buried"]),
        ("kitty captured", s["kitty_captured"].astype(float), p["kitty_captured"].astype(float)),
        (
            "kitty decides",
            kitty_flips_side(s, rules).astype(float),
            kitty_flips_side(p, rules).astype(float),
        ),
    ):
        fs, fp = np.asarray(fs, float), np.asarray(fp, float)
        kitty[key] = (
            stats.mean_t(fs),
            stats.mean_t(fp),
            stats.mean_t(fs - fp),
        )
    hands = 2 * n * len(seeds)
    return {
        "x": name_of(base, k, cands),
        "played": x,
        "worlds": worlds,
        "y": y,
        "deals": n * len(seeds),
        "net": stats.mean_t(np.concatenate(nets)),
        "paired_burials": len(s),
        "kitty": kitty,
        "counts": counts,
        "ms_per_hand": 1000 * (cpu_x - cpu_y) / hands if cost else float("nan"),
        "ms_per_burial": 1000 * (cpu_x - cpu_y) / max(1, counts["decisions"])
        if cost
        else float("nan"),
    }


def report(m: dict, seeds) -> None:
    c = m["counts"]
    print(
        f"{RULES}, random levels, seed {','.join(map(str, seeds))}: {m['x']} (play search off) "
        f"({m['worlds']} worlds per burial) vs {m['y']} over {m['deals']:,} paired deals: "
        f"{iv(m['net'])} net levels/hand; "
        f"burials searched {c['decisions']:,}, replaced {c['deviations']:,} "
        f"({100 * c['deviations'] / max(1, c['decisions']):.1f}%); "
        f"CPU added {m['ms_per_hand']:.2f} ms/hand "
        f"({m['ms_per_burial']:.1f} ms per burial searched)"
    )
    print(
        f"the {m['paired_burials']:,} deals where one seating's burier is X's side, the other "
        "Y's (the same seat, same cards, same calls):"
    )
    print("| figure | X (searched) buries | Y (base) buries | difference [95%] |")
    print("|---|---|---|---|")
    for key, (fs, fp, d) in m["kitty"].items():
        f = ".2f" if key == "points buried" else ".4f"
        print(f"| {key} | {iv(fs, f)} | {iv(fp, f)} | {iv(d, '+' + f)} |")


# the screen's variants: (k, candidates, named swaps on/off, gate in standard errors)
SCREEN = (
    (8, 8, 1, 1.0),
    (16, 8, 1, 1.0),
    (32, 8, 1, 1.0),
    (64, 8, 1, 1.0),
    (128, 8, 1, 1.0),
    (32, 4, 1, 1.0),
    (32, 16, 1, 1.0),
    (32, 8, 0, 1.0),
    (32, 8, 1, 1.64),
    (64, 8, 1, 1.64),
    (128, 8, 1, 1.64),
    (256, 8, 1, 1.0),
)


def screen(base: str, n: int, seed: int, first: int = 0, last: int = len(SCREEN)) -> None:
    """The variants tried before picking the published knobs (one line each, the same deals)."""
    for k, cands, rules_on, z in SCREEN[first:last]:
        m = measure(base, n, (seed,), k, cands, 1, rules_on, cost=False, z=z)
        c = m["counts"]
        d = m["kitty"]["points buried"][2]
        print(
            f"k={k:3d} cands={cands:2d} rules={rules_on} z={z}: {iv(m['net'])} net levels/hand, "
            f"replaced {100 * c['deviations'] / max(1, c['decisions']):.1f}%, "
            f"points buried {d.estimate:+.2f}",
            flush=True,
        )


def main(argv: list[str]) -> None:
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    if argv and argv[0] == "--screen":
        base = argv[1] if len(argv) > 1 else "expert-v4"
        n = int(float(argv[2])) if len(argv) > 2 else 4000
        seed = int(argv[3]) if len(argv) > 3 else 2031
        first, last = (int(argv[4]), int(argv[5])) if len(argv) > 5 else (0, len(SCREEN))
        screen(base, n, seed, first, last)
        return
    base = argv[0] if len(argv) > 0 else "expert-v4"
    n = int(float(argv[1])) if len(argv) > 1 else 2000
    seeds = [int(s) for s in argv[2].split(",")] if len(argv) > 2 else [2024]
    k = int(argv[3]) if len(argv) > 3 else 32
    cands = int(argv[4]) if len(argv) > 4 else 8
    kmul = int(argv[5]) if len(argv) > 5 else None
    rules_on = int(argv[6]) if len(argv) > 6 else 1
    report(measure(base, n, seeds, k, cands, kmul, rules_on), seeds)


if __name__ == "__main__":
    main(sys.argv[1:])
