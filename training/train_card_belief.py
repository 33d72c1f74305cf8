"""Train the per-card belief: where each card a seat has not seen lies, given the public record.

Question: search-v3's inference chain weighs a world by how many past decisions its model bot
explains with the world's cards (a count per decision). Can a model that reads the record card by
card (fastsheng.bots._card_belief: a seat that let an opponent's card take the trick as last to
play, a seat that led below a card, a seat that keeps ruffing...) say where the hidden cards lie
better than uniform worlds do, and does a chain that weighs its worlds by it play better?

Method:
1. `rows`: BOT plays every seat of HANDS hands (`standard`, random levels, the step API); at one
   decision in EVERY (drawn from the batch's own stream) the seat to act takes the features of
   every (free card code, place) pair (GameCore.card_rows) and where the real deal's free copies
   lie. One .npz per batch of 50 hands in OUT, each batch seeded from
   SeedSequence(seed, spawn_key=(batch,)), so reruns add files and `--workers` share them.
2. `fit`: a one-hidden-layer ReLU MLP (training/mlp.py) scoring each (code, place) pair, a
   softmax over the places a copy may lie in, the log loss of where the free copies lie;
   batches split 1 in 5 held out.
   Held out: the log loss per free copy against that of uniform worlds (each place in proportion
   to its cards), in bits. Writes MODEL (.npz: mu, sd, w1, b1, w2) and its SHA-256.
3. `score`: the held-out bits per free copy of saved MODELs on OUT's held-out split (the same
   split and loss as `fit`), so that models fit on other rows compare on the same rows.
4. Play: `python research/read_the_play.py strength X Y N SEEDS cards=MODEL lam=L` weighs the
   chains' worlds by the model's probabilities to the power L (the name's research settings
   `cards_path=MODEL,lam=L`, :func:`cards_setting`).

Run:
    python training/train_card_belief.py rows OUT [--hands 2000] [--bot search:k=32]
                                                  [--every 8] [--seed 2190] [--workers 2]
    python training/train_card_belief.py fit OUT MODEL [--hidden 32] [--epochs 6] [--seed 1]
    python training/train_card_belief.py score OUT MODEL [MODEL...]
    python training/train_card_belief.py reproduce OUT MODEL [--workers 2]
        (the shipped card-belief-v1's recipe: rows of 2,000 hands of search:k=128, then fit
        --epochs 6; OUT a new folder)
    python training/train_card_belief.py sharp [MODEL] [--hands 20] [--bot search:k=32]
        [--every 8] [--seed 2195] [--worlds 100] [--lam 0.5 1] [--steps 20] [--burn 400]
        [--chain INFER KITTY LAM]...
"""

from __future__ import annotations

if not __package__:  # run as `python training/NAME.py`: the repo root on the path
    import _root  # noqa: F401

import argparse
import glob
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from training import mlp

BATCH = 50


def _rows_one(args):
    out, seed, batch, bot, every = args
    from fastsheng.bots._card_belief import NCF_, NPLACE_

    from fastsheng.bots import _reading
    from fastsheng.engine.game import Game

    path = os.path.join(out, f"cards-s{seed}-b{batch:05d}.npz")
    if os.path.exists(path):
        return path, 0.0
    t0 = time.process_time()
    pick = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(batch,)))
    xs, oks, ats, snaps = [], [], [], []
    snap = 0
    for hand_id in range(batch * BATCH, (batch + 1) * BATCH):
        g = Game("standard", seed=seed, hand_id=hand_id, level="random")
        while g.phase != "done":
            if g.phase == "play" and pick.random() < 1.0 / every:
                xb, fb, okb, atb = _reading.card_rows(g._core, g.to_act)
                free = np.frombuffer(fb, np.int32)
                keep = free > 0
                at = np.frombuffer(atb, np.int32).reshape(54, NPLACE_)[keep]
                assert (at.sum(1) == free[keep]).all(), "the free copies lie somewhere"
                xs.append(np.frombuffer(xb, np.float32).reshape(54, NPLACE_, NCF_)[keep])
                oks.append(np.frombuffer(okb, np.int32).reshape(54, NPLACE_)[keep].astype(np.int8))
                ats.append(at.astype(np.int8))
                snaps.append(np.full(int(keep.sum()), snap, np.int32))
                snap += 1
            g.apply(g.bot_action(bot))
    mlp.save_rows(path, x=xs, ok=oks, at=ats, snap=snaps)
    return path, time.process_time() - t0


def rows(out: str, hands: int, bot: str, every: int, seed: int, workers: int) -> None:
    os.makedirs(out, exist_ok=True)
    jobs = [(out, seed, b, bot, every) for b in range(-(-hands // BATCH))]
    with ProcessPoolExecutor(workers) as ex:
        for path, cpu in ex.map(_rows_one, jobs):
            print(f"{path}: {cpu:.0f} s of CPU", flush=True)


def load(out: str) -> dict:
    files = sorted(glob.glob(os.path.join(out, "cards-*.npz")))
    if not files:
        sys.exit(f"error: no rows in {out}")
    parts: dict[str, list] = {"x": [], "ok": [], "at": [], "batch": []}
    for i, f in enumerate(files):
        with np.load(f) as z:
            for k in ("x", "ok", "at"):
                parts[k].append(z[k])
            parts["batch"].append(np.full(len(z["ok"]), i, np.int32))
    return {k: np.concatenate(v) for k, v in parts.items()}


def scores(p, xs: np.ndarray):
    """The MLP's score of each (row, place) pair and its hidden layer (p: w1, b1, w2)."""
    return mlp.forward(p, xs)


def log_softmax(s: np.ndarray, ok: np.ndarray) -> np.ndarray:
    s = np.where(ok, s, -1e9)
    s = s - s.max(1, keepdims=True)
    return s - np.log(np.exp(s).sum(1, keepdims=True))


def loss_bits(p: dict, xs, ok, at) -> float:
    lp = log_softmax(scores(p, xs)[0], ok)
    return float(-(at * np.where(ok, lp, 0)).sum() / at.sum() / np.log(2))


def uniform_bits(d: dict, mask: np.ndarray) -> float:
    """The same loss for uniform worlds: each place a copy may lie in in proportion to its cards
    (the size feature, slot 14)."""
    size = d["x"][mask][:, :, 14] * d["ok"][mask]
    lp = np.log(np.where(size > 0, size, 1) / size.sum(1, keepdims=True))
    at = d["at"][mask]
    return float(-(at * lp).sum() / at.sum() / np.log(2))


def held_out(d: dict) -> np.ndarray:
    """The rows `fit` holds out: one batch file in five."""
    return d["batch"] % 5 == 4


def score(out: str, models: list[str]) -> dict:
    """Held-out bits per free copy of each saved model (and of uniform worlds) on OUT's split."""
    d = load(out)
    held = held_out(d)
    ok, at = d["ok"][held].astype(bool), d["at"][held].astype(np.float32)
    got = {"uniform worlds": uniform_bits(d, held)}
    for m in models:
        with np.load(m) as z:
            xs = ((d["x"][held] - z["mu"]) / z["sd"]).astype(np.float32)
            got[m] = loss_bits({k: z[k] for k in ("w1", "b1", "w2")}, xs, ok, at)
    print(f"{int(held.sum()):,} held-out rows of {out}: bits per free copy (lower: sharper)")
    for name, bits in got.items():
        print(f"  {name}: {bits:.4f}")
    return got


def fit(out: str, model: str, hidden: int, epochs: int, seed: int, lr: float) -> dict:
    d = load(out)
    held = held_out(d)
    tr = ~held
    x = d["x"]
    mu, sd = mlp.standardise(x[tr])
    mu[0], sd[0] = 0, 1  # the bias slot stays 1
    xs = ((x - mu) / sd).astype(np.float32)
    ok = d["ok"].astype(bool)
    at = d["at"].astype(np.float32)
    rng = np.random.default_rng(seed)
    net = mlp.MLP(x.shape[2], hidden, rng, init="lecun", out_bias=False)
    idx = np.flatnonzero(tr)
    uniform = uniform_bits(d, held)
    print(
        f"{len(idx):,} training rows, {int(held.sum()):,} held out; held-out bits per free copy: "
        f"uniform worlds {uniform:.4f}",
        flush=True,
    )

    def loss(s, b):
        # d loss / d score: softmax * (copies) - copies, per row (places it may lie in)
        okb, atb = ok[b], at[b]
        lp = log_softmax(s, okb)
        n = atb.sum(1, keepdims=True)
        return (np.exp(lp) * n - atb) * okb / atb.sum(), 0.0

    bits = float("nan")

    def report(ep, _):
        nonlocal bits
        bits = loss_bits(net.weights(), xs[held], ok[held], at[held])
        print(f"epoch {ep + 1}: held-out bits per free copy {bits:.4f}", flush=True)

    net.fit(xs, loss, epochs, rng, lr=lr, batch=2048, rows=idx, carry_order=True, report=report)
    digest = mlp.save(model, net, mu, sd)
    print(f"wrote {model}: sha256 {digest}")
    return dict(uniform=uniform, model=bits, sha256=digest)


def cards_setting(model: str, lam: float) -> str:
    """The research settings of a search-v3 name whose chains weigh their worlds by MODEL's
    per-card probabilities to the power `lam` (in place of the shipped per-card belief; its
    chain reads it only with ``infer=N``): ``cards_path=MODEL,lam=LAM``, or only the path when
    lam is 0 (the model read by the step API's card_logq, no chain weighed by it)."""
    return f"cards_path={model}" + (f",lam={lam:g}" if lam else "")


# the chain of (c): the search-v3 settings aimed at beating search:k=128 by +0.05 net levels
CHAIN_C = "search-v3:infer=10,kitty=5,belief=1"


def sharp(
    model: str | None,
    hands: int,
    bot: str,
    every: int,
    seed: int,
    worlds: int,
    lams: list[float],
    steps: int = 20,
    burn: int = 400,
    chains: list[tuple[int, int, float]] = (),
) -> dict:
    """How sharp each reading of the record is: held-out bits per free copy of the real deal
    (lower is sharper) under uniform consistent worlds (the chain at odds 1), the chain of the
    search-v3 settings aimed at beating search:k=128 by +0.05 net levels a hand (infer=10,
    kitty=5, belief=1; "the chain of (c)" in the printout, the letter docs/bots.md names that aim
    by), the same weighing its worlds by the per-card belief of MODEL to the power lam, and that
    belief alone; at one decision in EVERY of BOT's play, from the seat to act, WORLDS worlds of
    each chain (STEPS swaps apart after BURN: the race's 20 and 400 by default). CHAINS adds
    chains of that kind with other (infer, kitty, lam). Each chain is the one a search-v3 name
    runs (GameCore.chain_marginals of the name's line-up: its infer, kitty, belief, kinds and
    models); its seed depends on the decision alone, so a setting's figure does not depend on
    which others run beside it."""
    from fastsheng.bots._card_belief import NPLACE_

    from fastsheng.bots import _reading
    from fastsheng.bots.lineup import lineup_for
    from fastsheng.engine.game import Game

    # (printed name, the search-v3 name whose chain it is)
    settings = [("uniform worlds", "search-v3"), ("the chain of (c)", CHAIN_C)]
    if model:
        settings += [
            (
                f"the chain of (c) with the cards, lam={lam:g}",
                f"{CHAIN_C},{cards_setting(model, lam)}",
            )
            for lam in lams
        ]
        # the cards alone: no past decision read (kinds=0), no burial, no belief
        settings += [
            (
                f"a chain of the cards alone, lam={lam:g}",
                f"search-v3:infer=10,kinds=0,{cards_setting(model, lam)}",
            )
            for lam in lams
        ]
        settings += [
            (
                f"the chain of (c) at infer={i}, kitty={k}, lam={lam:g}",
                f"search-v3:infer={i},kitty={k},belief=1,{cards_setting(model, lam)}",
            )
            for i, k, lam in chains
        ]
    # a line-up per setting, made once (a name reading a file is loaded anew each time)
    lineups = [(name, lineup_for(spec)) for name, spec in settings]
    cards_alone = lineup_for(f"search-v3:infer=10,{cards_setting(model, 0)}") if model else None
    bits = {name: [0.0, 0] for name, _ in settings}
    if model:
        bits["the per-card belief alone"] = [0.0, 0]
    pick = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    point = 0
    for hand_id in range(hands):
        g = Game("standard", seed=seed, hand_id=hand_id, level="random")
        while g.phase != "done":
            if g.phase == "play" and pick.random() < 1.0 / every:
                seat = g.to_act
                _, fb, okb, atb = _reading.card_rows(g._core, seat)
                free = np.frombuffer(fb, np.int32)
                ok = np.frombuffer(okb, np.int32).reshape(54, NPLACE_).astype(bool)
                at = np.frombuffer(atb, np.int32).reshape(54, NPLACE_).astype(float)
                place = [4 if p == 3 else (seat + 1 + p) % 4 for p in range(NPLACE_)]
                keep = free > 0
                for name, lineup in lineups:
                    cnt = _reading.chain_marginals(
                        g._core, lineup, seat, worlds, steps, burn, [seed, point]
                    )
                    c = np.frombuffer(cnt, np.int32).reshape(5, 54)[place].T.astype(float)
                    q = np.where(ok, c + 0.5, 0)
                    q = q / q.sum(1, keepdims=True).clip(1e-12)
                    lp = np.log2(np.where(ok, q, 1))
                    bits[name][0] -= float((at * lp)[keep].sum())
                    bits[name][1] += int(at[keep].sum())
                if model:
                    lq = np.frombuffer(_reading.card_logq(g._core, seat, cards_alone), np.float32)
                    lp = lq.reshape(5, 54)[place].T / np.log(2)
                    bits["the per-card belief alone"][0] -= float((at * lp)[keep].sum())
                    bits["the per-card belief alone"][1] += int(at[keep].sum())
                point += 1
            g.apply(g.bot_action(bot))
    out = {name: b / max(1, n) for name, (b, n) in bits.items()}
    print(
        f"{bot} at every seat, {hands} hands (seed {seed}), {point} decisions, {worlds} worlds "
        f"each ({steps} swaps apart after {burn}): bits per free copy of the real deal "
        "(lower: sharper)"
    )
    for name, b in out.items():
        print(f"  {name}: {b:.4f}")
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("rows")
    r.add_argument("out")
    r.add_argument("--hands", type=int, default=2000)
    r.add_argument("--bot", default="search:k=32")
    r.add_argument("--every", type=int, default=8)
    r.add_argument("--seed", type=int, default=2190)
    r.add_argument("--workers", type=int, default=2)
    mlp.add_fit_command(sub, hidden=32, epochs=6, lr=3e-3)
    p = sub.add_parser("reproduce")
    p.add_argument("out")
    p.add_argument("model")
    p.add_argument("--workers", type=int, default=2)
    c = sub.add_parser("score")
    c.add_argument("out")
    c.add_argument("models", nargs="+")
    h = sub.add_parser("sharp")
    h.add_argument("model", nargs="?")
    h.add_argument("--hands", type=int, default=20)
    h.add_argument("--bot", default="search:k=32")
    h.add_argument("--every", type=int, default=8)
    h.add_argument("--seed", type=int, default=2195)
    h.add_argument("--worlds", type=int, default=100)
    h.add_argument("--lam", type=float, nargs="*", default=[0.5, 1.0])
    h.add_argument("--steps", type=int, default=20)
    h.add_argument("--burn", type=int, default=400)
    h.add_argument(
        "--chain", nargs=3, action="append", default=[], metavar=("INFER", "KITTY", "LAM")
    )
    a = ap.parse_args(argv)
    if a.what == "sharp":
        chains = [(int(i), int(k), float(lam)) for i, k, lam in a.chain]
        sharp(a.model, a.hands, a.bot, a.every, a.seed, a.worlds, a.lam, a.steps, a.burn, chains)
    elif a.what == "rows":
        rows(a.out, a.hands, a.bot, a.every, a.seed, a.workers)
    elif a.what == "reproduce":
        # the shipped card-belief-v1 (fastsheng/bots/models/card-belief-v1.npz): these rows and
        # this fit
        rows(a.out, 2000, "search:k=128", 8, 2190, a.workers)
        fit(a.out, a.model, 32, 6, 1, 3e-3)
    elif a.what == "score":
        score(a.out, a.models)
    else:
        fit(a.out, a.model, a.hidden, a.epochs, a.seed, a.lr)


if __name__ == "__main__":
    main()
