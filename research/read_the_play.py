"""Reading the play (`search-v3`'s infer=): how well worlds fit the past plays, and its worth.

Question: the worlds a search plays out honour every public fact, but they are uniform over the
consistent deals: does the real deal explain the other seats' past plays better than such a
world does, what does a search gain by playing out the worlds that explain them, and how much
could it gain at most (the worth of knowing the cards)?

Method, `fit`: BOT plays every seat of HANDS hands (the step API, fastsheng.engine.game.Game,
playing as the simulator); at every lead and follow of the play the seat to act counts the
misfits (fastsheng.bots._infer: the other seats' past plays that expert-v3 would not have made,
replaying the hand with a deal's cards) of the real deal and of WORLDS worlds of
`Game.sample_world` (uniform over the consistent deals), the past leads and the past follows
apart, and the burial alone (`kitty=1`: the cards of the kitty the model would not have buried
from the burier's cards, 0 when there is no burial to read); soft=S judges the leads and follows
by the learned model (the `soft` knob below), model=NAME sets the model bot. Each count is
GameCore.misfits read as a search-v3 seat reads the play (`reader`: its kinds, soft and kitty).
A world the record contradicts counts as -1 (none should: tests/test_infer.py). Printed: mean
misfits of each, and the share of decisions where the real deal fits strictly better than
the worlds' mean.

Method, `strength`: X against Y on paired deals (research/common.py's paired_seeds,
seats swapped, t interval over deals); also printed the chain's figures over X's races: misfits
of the worlds played out, the share of swaps kept. Screening knobs, as KEY=VALUE after the
seeds: each is a research setting of the search-v3 names among X and Y (fastsheng.bots.spec,
`with_knobs`; the label prints X's and Y's names as given and the knobs apart); those of the
chain (steps, burn, soft, model, kinds, belief, chains, cards, lam) reach the names that read
the play (`infer=`) only:
- steps, burn: the inference chain's steps per world and to burn in (the published 20, 400;
  the settings `steps=`, `burn=`);
- soft: judge a past play other than the model's by the learned model's predicted gain of it
  (net levels for no misfit; 0 off), model: the chain's model bot (a bot name; default the
  seat's base bot), kinds: 1 count the past leads only, 2 the follows only, 3 both, 0 neither
  (the settings `soft=`, `model=`, `kinds=`; the burial is read by the name's own `kitty=`);
- belief=MODEL: the chains weigh their worlds by the learned belief of MODEL (a file of
  training/train_belief.py) in place of the 0/1 misfits (the settings `belief_path=MODEL,
  belief_kind=K`, K the file's kind); infer=10 takes its odds as they are;
- oracle=K: the races of the names whose k is K play every world on the real deal (a cheat, for
  this measurement only: the worth of knowing the cards to the same search; the setting
  `oracle=1` of those names);
- chains=N: a race's worlds come in turn from N independent chains, each burnt in (the
  published 1: one chain, whose consecutive worlds are `steps` swaps apart; a name's own
  `chains=` takes precedence); z=Z: the race's gate, its winner's mean gain above Z standard
  errors (the published 1; a name's own `gate=G`, G/10 standard errors, takes precedence:
  `gate=5` plays as z=0.5);
- cards=MODEL lam=L: the chains also weigh their worlds by the per-card belief of MODEL (a file
  of training/train_card_belief.py: where each hidden card lies given the record), its
  probabilities to the power L (default 1), on top of the name's own reading (the settings
  `cards_path=MODEL,lam=L`, in place of the name's own `cards=`).

Run: python research/read_the_play.py fit [HANDS] [SEED] [BOT] [WORLDS] [soft=S] [model=NAME]
         (default: 20 2024 search-v3 4, soft=0, model=expert-v3)
     python research/read_the_play.py strength X Y N SEED[,SEED...] [KEY=VALUE...]
"""

from __future__ import annotations

if not __package__:  # run as `python research/NAME.py`: the repo root on the path
    import _root  # noqa: F401

import random
import sys
import time

import numpy as np

from fastsheng.bots import _guided_search, _reading
from fastsheng.bots.lineup import lineup_for
from fastsheng.bots.names import BOT_INDEX, bot_spec, resolve_bot
from fastsheng.bots.spec import search_family
from fastsheng.engine.game import Game
from research.common import paired_seeds
from training.train_belief import belief_setting

MODEL = BOT_INDEX["expert-v3"]
# the search-v3 seat whose reading `fit` asks for (GameCore.misfits of its line-up: its soft,
# kitty and kinds; the model bot is `fit`'s, its infer is a chain's odds and moves no count)
READER = "search-v3:infer=10"


def reader(kinds: int, soft: float = 0.0, kitty: int = 0):
    """The line-up whose seat 0 reads the play: the decisions `kinds` (1 the past leads, 2 the
    follows, 0 neither), judged by the learned model at `soft` (0: the 0/1 count), and the
    burial at `kitty` misfits per card."""
    name = f"{READER},kinds={kinds}"
    name += f",soft={soft!r}" if soft > 0 else ""
    name += f",kitty={kitty}" if kitty else ""
    return lineup_for(name)


def fit(
    hands: int, seed: int, bot: str, worlds: int, soft: float = 0.0, model: int = MODEL
) -> dict:
    """Mean misfits of the real deal and of uniform worlds, the past leads and follows apart,
    and the burial's (the kitty cards the model would not have buried)."""
    rng = random.Random(seed)
    real, world, better = [], [], []
    # leads, follows (soft: the learned judgement), the burial alone
    readers = [reader(1, soft), reader(2, soft), reader(0, kitty=1)]
    for hand_id in range(hands):
        g = Game("standard", seed=seed, hand_id=hand_id, level="random")
        while g.phase != "done":
            if g.phase == "play":
                seat = g.to_act
                ws = [g.sample_world(seat, rng) for _ in range(worlds)]
                r, w = [], []
                for lineup in readers:
                    r.append(_reading.misfits(g._core, seat, model, lineup))
                    w.append(
                        float(np.mean([_reading.misfits(x._core, seat, model, lineup) for x in ws]))
                    )
                real.append(r)
                world.append(w)
                better.append(sum(r[:2]) < sum(w[:2]))
            g.apply(g.bot_action(bot))
    real_, world_ = np.array(real), np.array(world)
    return dict(
        decisions=len(real),
        real=float(real_[:, :2].sum(1).mean()),
        worlds=float(world_[:, :2].sum(1).mean()),
        real_leads=float(real_[:, 0].mean()),
        worlds_leads=float(world_[:, 0].mean()),
        real_follows=float(real_[:, 1].mean()),
        worlds_follows=float(world_[:, 1].mean()),
        real_burial=float(real_[:, 2].mean()),
        worlds_burial=float(world_[:, 2].mean()),
        better=float(np.mean(better)),
        contradicted=int((real_ < 0).any(1).sum()),
    )


KNOBS = (
    "steps",
    "burn",
    "soft",
    "model",
    "kinds",
    "oracle",
    "belief",
    "chains",
    "z",
    "cards",
    "lam",
)
FIT_KNOBS = ("soft", "model")


def knobs(args: list[str], allowed: tuple[str, ...] = KNOBS) -> dict:
    """KEY=VALUE screening knobs (the module docstring), each checked."""
    out = {}
    for a in args:
        key, _, value = a.partition("=")
        if key not in allowed or not value or (key == "model" and value not in BOT_INDEX):
            raise SystemExit(f"unknown knob {a!r}: {', '.join(allowed)}")
        if key not in ("model", "belief", "cards"):
            try:
                float(value)
            except ValueError:
                raise SystemExit(f"knob {a!r}: {key} takes a number") from None
        out[key] = value
    return out


def with_knobs(name: str, k: dict) -> str:
    """The name a seat plays with the knobs `k` (the module docstring) set as the research
    settings of its name: a search-v3 seat takes z (and oracle=1 when its k is the knob's), and
    one that reads the play (infer) the chain's knobs too; any other name is kept as it is. A
    name's own chains and gate win over the knobs, as they did over the process's settings."""
    if search_family(name.lower()) != "search-v3":
        return name
    spec = bot_spec(name)
    add = []
    if "z" in k:
        add.append(f"z={k['z']}")
    if "oracle" in k and int(k["oracle"]) and int(k["oracle"]) == spec.k:
        add.append("oracle=1")
    if spec.infer:
        for key in ("steps", "burn", "soft", "model", "kinds"):
            if key in k:
                add.append(f"{key}={k[key]}")
        if "chains" in k and spec.chains == 1:
            add.append(f"chains={k['chains']}")
        if "belief" in k:
            add.append(belief_setting(k["belief"]))
        if "cards" in k:
            add.append(f"cards_path={k['cards']},lam={k.get('lam', 1)}")
    if not add:
        return name
    return name + ("," if ":" in name else ":") + ",".join(add)


def main(argv: list[str]) -> None:
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    what = argv[0] if argv else "fit"
    if what == "fit":
        # a knob is KEY=VALUE; a bot name may hold "=" too, after its ":" (search:k=32)
        is_knob = [("=" in a and ":" not in a.partition("=")[0]) for a in argv[1:]]
        pos = [a for a, kn in zip(argv[1:], is_knob, strict=True) if not kn]
        k = knobs([a for a, kn in zip(argv[1:], is_knob, strict=True) if kn], FIT_KNOBS)
        hands = int(pos[0]) if len(pos) > 0 else 20
        seed = int(pos[1]) if len(pos) > 1 else 2024
        bot = pos[2] if len(pos) > 2 else "search-v3"
        worlds = int(pos[3]) if len(pos) > 3 else 4
        soft = float(k.get("soft", 0))
        name = k.get("model", "expert-v3")
        f = fit(hands, seed, bot, worlds, soft, BOT_INDEX[name])
        judged = f", judged by the learned model at soft={soft:g}" if soft > 0 else ""
        print(
            f"{resolve_bot(bot)} at every seat, {hands} hands (seed {seed}), "
            f"{f['decisions']:,} leads and follows: misfits ({name} as the model{judged}) of "
            f"the real deal {f['real']:.2f}, of uniform consistent worlds {f['worlds']:.2f} "
            f"(mean of {worlds}; past leads {f['real_leads']:.2f} against "
            f"{f['worlds_leads']:.2f}, follows {f['real_follows']:.2f} against "
            f"{f['worlds_follows']:.2f}); the real deal fits better at "
            f"{100 * f['better']:.0f}% of them; kitty cards the model would not have buried "
            f"(kitty=1, the burial alone): {f['real_burial']:.2f} against "
            f"{f['worlds_burial']:.2f}; real deals contradicted: {f['contradicted']}"
        )
        return
    x, y, n = argv[1], argv[2], int(argv[3])
    seeds = [int(s) for s in argv[4].split(",")]
    k = knobs(argv[5:])
    x_, y_ = with_knobs(x, k), with_knobs(y, k)
    _guided_search._infer_counts(reset=True)
    t0 = time.perf_counter()
    net, won, _, cpu = paired_seeds(x_, y_, n, seeds)
    c = _guided_search._infer_counts()
    set_ = ", ".join(f"{a}={b}" for a, b in k.items()) or "published knobs"
    print(
        f"{resolve_bot(x)} ({set_}) vs {resolve_bot(y)}"
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
