"""The calls searched (`search-v3`'s call=1) on expert play: its gain, its cost, what it changes.

Question: what does searching the calls (declare, reinforce, overcall, 炒底) gain over the base
bot's own calls, how does it move who sets the trump and its length, and at what CPU cost?

Method: X = `search-v3:k=K,cands=8,base=BASE,call=1` with its play search off (the research
setting `play=0`: a call-searching seat leads, follows and buries as BASE; `call_every` and
`call_z` set which questions it searches and its gate, `played_name`), so X differs from Y = BASE
only in its calls. Each deal is played twice (RULES, random
levels), X at seats 0/2 then the seats swapped; net levels per hand per deal as in
research/search_strength.py (fastsheng.studies.ladder.pair_outcome), t interval over deals. The
call figures compare, deal by deal, X's side in one seating with Y's side in the other (the same
seats, the same cards): the share of hands whose final trump X's side called, and the trumps
that side held when the calls closed. Cost: CPU of the X-vs-Y seatings minus two all-BASE runs
of the same deals, per hand.

Run: python research/call_search.py [BASE] [N] [SEED[,SEED...]] [K] [RULES] [EVERY] [Z]
     (default: expert-v3 4000 2024 32 standard 0, the published gate; EVERY 1: every question
     searched; Z the gate in standard errors)
"""

from __future__ import annotations

if not __package__:  # run as `python research/NAME.py`: the repo root on the path
    import _root  # noqa: F401

import sys

import numpy as np
import pandas as pd

from fastsheng.bots import _call_search, bot_spec
from fastsheng.studies import stats
from fastsheng.studies.ladder import pair_outcome
from research.common import iv, timed_hands


def name_of(base: str, k: int) -> str:
    return f"search-v3:k={k},cands=8,base={base},call=1"


def played_name(base: str, k: int, every: int = 0, z: float | None = None) -> str:
    """X as it plays: name_of's with its play search off, every question searched when
    `every`, and the calls' gate `z` (None: the published one)."""
    x = f"{name_of(base, k)},play=0,call_every={every}"
    return x if z is None else f"{x},call_z={z}"


def _side_figures(h: pd.DataFrame, team: int) -> tuple[np.ndarray, np.ndarray]:
    """Per hand: did `team` make the final call, and the trumps it held when calls closed."""
    caller = h["final_caller"].to_numpy()
    called = (caller < 4) & ((caller & 1) == team)
    trumps = h[f"trumps_{team}"].to_numpy() + h[f"trumps_{team + 2}"].to_numpy()
    return called.astype(float), trumps.astype(float)


def measure(
    base: str,
    n: int,
    seeds,
    k: int = 32,
    rules: str = "standard",
    every: int = 0,
    z: float | None = None,
):
    """The figures of the module docstring for X = name_of(base, k) vs base."""
    x, y = played_name(base, k, every, z), base
    spec = bot_spec(x)
    _call_search._call_counts(reset=True)
    nets, cpu_x, cpu_y = [], 0.0, 0.0
    called_x, called_y, trumps_x, trumps_y = [], [], [], []
    for seed in seeds:
        a, ca = timed_hands(rules, (x, y, x, y), seed, n)
        b, cb = timed_hands(rules, (y, x, y, x), seed, n)
        cpu_x += ca + cb
        cpu_y += timed_hands(rules, y, seed, n)[1] * 2
        nets.append(pair_outcome(x, y, a, b).net)
        # X is team 0 in a, team 1 in b; Y's side in the other seating holds the same seats
        for h_x, h_y, team in ((a, b, 0), (b, a, 1)):
            cx, tx = _side_figures(h_x, team)
            cy, ty = _side_figures(h_y, team)
            called_x.append(cx)
            called_y.append(cy)
            trumps_x.append(tx)
            trumps_y.append(ty)
    counts = _call_search._call_counts()
    figures = {}
    for key, fx, fy in (
        ("the side set the final trump", called_x, called_y),
        ("the side's trumps when calls closed", trumps_x, trumps_y),
    ):
        fx, fy = np.concatenate(fx), np.concatenate(fy)
        figures[key] = tuple(stats.mean_t(v) for v in (fx, fy, fx - fy))
    hands = 2 * n * len(seeds)
    return {
        "x": name_of(base, k),
        "played": x,
        "y": y,
        "rules": rules,
        "deals": n * len(seeds),
        "net": stats.mean_t(np.concatenate(nets)),
        "counts": counts,
        "figures": figures,
        "ms_per_hand": 1000 * (cpu_x - cpu_y) / hands,
        "worlds": min(k * spec.call_kmul, spec.call_maxw),
        "z": spec.call_z,
    }


def report(m: dict, seeds) -> None:
    c = m["counts"]
    print(
        f"{m['rules']}, random levels, seed {','.join(map(str, seeds))}: {m['x']} (play search "
        f"off; {m['worlds']} worlds, gate {m['z']:g} SE) vs {m['y']} over {m['deals']:,} "
        f"paired deals: {iv(m['net'])} net levels/hand; "
        f"questions {c['asked']:,}, searched {c['searched']:,}, answers changed {c['changed']:,} "
        f"({100 * c['changed'] / max(1, c['searched']):.1f}% of those searched); CPU added "
        f"{m['ms_per_hand']:.2f} ms/hand",
        flush=True,
    )
    print("| figure (per hand, a side's seats) | X's side (searched) | Y's side (base) | diff. |")
    print("|---|---|---|---|")
    for key, (fx, fy, d) in m["figures"].items():
        print(f"| {key} | {iv(fx, '.3f')} | {iv(fy, '.3f')} | {iv(d, '+.3f')} |")


def main(argv: list[str]) -> None:
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    base = argv[0] if len(argv) > 0 else "expert-v3"
    n = int(float(argv[1])) if len(argv) > 1 else 4000
    seeds = [int(s) for s in argv[2].split(",")] if len(argv) > 2 else [2024]
    k = int(argv[3]) if len(argv) > 3 else 32
    rules = argv[4] if len(argv) > 4 else "standard"
    every = int(argv[5]) if len(argv) > 5 else 0
    z = float(argv[6]) if len(argv) > 6 else None
    report(measure(base, n, seeds, k, rules, every, z), seeds)


if __name__ == "__main__":
    main(sys.argv[1:])
