"""Reading the play (`search-v3`'s infer=): how well worlds fit the past plays, and its worth.

Question: the worlds a search plays out honour every public fact, but they are uniform over the
consistent deals: does the real deal explain the other seats' past plays better than such a
world does, and what does a search gain by playing out the worlds that explain them?

Method, `fit`: BOT plays every seat of HANDS hands (the step API, fastsheng.engine.game.Game,
playing as the simulator); at every lead and follow of the play the seat to act counts the
misfits (fastsheng._infer: the other seats' past plays that expert-v3 would not have made,
replaying the hand with a deal's cards) of the real deal and of WORLDS worlds of
`Game.sample_world` (uniform over the consistent deals). A world the record contradicts counts
as -1 (none should: tests/test_infer.py). Printed: mean misfits of each, and the share of
decisions where the real deal fits strictly better than the worlds' mean.

Method, `strength`: X against Y on paired deals (analysis/search_strength.py's paired_seeds,
seats swapped, t interval over deals), with the inference chain's steps per world and burn-in
set to STEPS and BURN for this process (fastsheng._guided_search._tune); also printed the
chain's figures over X's races: misfits of the worlds played out, the share of swaps kept.

Run: python analysis/read_the_play.py fit [HANDS] [SEED] [BOT] [WORLDS]
         (default: 20 2024 search-v3 4)
     python analysis/read_the_play.py strength X Y N SEED[,SEED...] [STEPS] [BURN]
         (default STEPS and BURN: the published 20 and 400)
"""

from __future__ import annotations

import random
import sys
import time

import numpy as np

from fastsheng import _guided_search
from fastsheng.engine.game import Game
from fastsheng.engine.registry import BOT_INDEX, resolve_bot

MODEL = BOT_INDEX["expert-v3"]


def fit(hands: int, seed: int, bot: str, worlds: int) -> dict:
    rng = random.Random(seed)
    real, world, better = [], [], []
    for hand_id in range(hands):
        g = Game("standard", seed=seed, hand_id=hand_id, level="random")
        while g.phase != "done":
            if g.phase == "play":
                seat = g.to_act
                r = g._core.misfits(seat, MODEL)
                w = [g.sample_world(seat, rng)._core.misfits(seat, MODEL) for _ in range(worlds)]
                real.append(r)
                world.append(float(np.mean(w)))
                better.append(r < np.mean(w))
            g.apply(g.bot_action(bot))
    return dict(
        decisions=len(real),
        real=float(np.mean(real)),
        worlds=float(np.mean(world)),
        better=float(np.mean(better)),
        contradicted=int(sum(m < 0 for m in real)),
    )


def main(argv: list[str]) -> None:
    what = argv[0] if argv else "fit"
    if what == "fit":
        hands = int(argv[1]) if len(argv) > 1 else 20
        seed = int(argv[2]) if len(argv) > 2 else 2024
        bot = argv[3] if len(argv) > 3 else "search-v3"
        worlds = int(argv[4]) if len(argv) > 4 else 4
        f = fit(hands, seed, bot, worlds)
        print(
            f"{resolve_bot(bot)} at every seat, {hands} hands (seed {seed}), "
            f"{f['decisions']:,} leads and follows: misfits (expert-v3 as the model) of the real "
            f"deal {f['real']:.2f}, of uniform consistent worlds {f['worlds']:.2f} "
            f"(mean of {worlds}); the real deal fits better at {100 * f['better']:.0f}% "
            f"of them; real deals contradicted: {f['contradicted']}"
        )
        return
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from search_strength import paired_seeds

    x, y, n = argv[1], argv[2], int(argv[3])
    seeds = [int(s) for s in argv[4].split(",")]
    steps = int(argv[5]) if len(argv) > 5 else 20
    burn = int(argv[6]) if len(argv) > 6 else 400
    _guided_search._tune(steps=steps, burn=burn)
    _guided_search._infer_counts(reset=True)
    t0 = time.perf_counter()
    net, won, _, cpu = paired_seeds(x, y, n, seeds)
    c = _guided_search._infer_counts()
    print(
        f"{resolve_bot(x)} (chain: {steps} steps a world, {burn} to burn in) vs {resolve_bot(y)}"
        f" over {n * len(seeds):,} paired deals (seed {', '.join(map(str, seeds))}): "
        f"{net.estimate:+.3f} [{net.lo:+.3f}, {net.hi:+.3f}] net levels/hand, hands won "
        f"{100 * won:.1f}%, {1000 * cpu:.0f} ms of CPU per hand (both sides), "
        f"{time.perf_counter() - t0:.0f} s; chains {c['chains']:,}, worlds {c['worlds']:,} "
        f"with {c['kept'] / max(1, c['worlds']):.2f} misfits on average (their first worlds "
        f"{c['start'] / max(1, c['chains']):.2f}), swaps kept "
        f"{100 * c['accepted'] / max(1, c['steps']):.0f}%"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
