"""Train the learned belief of search-v3's inference: which worlds explain the past plays.

Question: the inference chain (fastsheng.bots._infer) weighs a world by the past plays of the other
seats that its model bot (expert-v3) would not have made, a 0/1 count per decision. A player
who searches plays otherwise than expert-v3 often, and how it plays otherwise still tells of its
cards: can a classifier of the real deal against uniform consistent worlds, fed every past
decision's features, read the play better than that count, and does a search whose chain
weighs its worlds by it play better?

Method:
1. `rows`: BOT plays every seat of HANDS hands (`standard`, random levels, the step API); at
   one decision in EVERY (drawn from the batch's own stream) the seat to act takes the features
   of every past decision of the other seats (fastsheng.bots._infer.fit_rows: the learned bot's
   features of the play made against expert-v3's, from the acting seat's cards in the world,
   and whether they differ) in the real deal (label 1) and in WORLDS worlds of
   `Game.sample_world` (uniform over the consistent deals, label 0). One .npz per batch of 50
   hands in OUT, each batch seeded from SeedSequence(seed, spawn_key=(batch,)), so reruns add
   files and `--workers` processes share them.
2. `fit`: a one-hidden-layer ReLU MLP (training/mlp.py, the log loss) on those rows,
   split by batch (1 in 5 held out), its logit f(x) an estimate of log p(x | real deal) /
   p(x | uniform world) up to a constant. Held-out figures: the log loss, and how often the
   real deal scores above a world (summed over the decision's record) by f and by the 0/1
   count (ties count half). Writes MODEL (.npz: mu, sd, w1, b1, w2, b2, and hi, lo: the
   logit's range) and its SHA-256.
3. Play: `python research/read_the_play.py strength X Y N SEEDS belief=MODEL` reads the play of
   X's races by it (the name's research settings `belief_path=MODEL,belief_kind=K`,
   :func:`belief_setting`; infer=10 weighs the worlds by the classifier's own odds).

Run:
    python training/train_belief.py rows OUT [--hands 600] [--bot search:k=32] [--worlds 3]
                                             [--every 6] [--seed 2160] [--workers 2]
    python training/train_belief.py fit OUT MODEL [--hidden 16] [--epochs 8] [--seed 1]
    python training/train_belief.py reproduce OUT MODEL [--workers 2]
        (the shipped belief-v1's recipe: rows of 2,000 hands, --worlds 1 --every 6 --kind 2,
        then fit --hidden 16 --epochs 8; OUT a new folder)
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
MODEL_BOT = "expert-v3"


def _rows_one(args):
    out, seed, batch, bot, worlds, every, kind = args
    import random

    from fastsheng.bots._infer import NB_IN_

    from fastsheng.bots import _reading
    from fastsheng.bots.names import BOT_INDEX
    from fastsheng.engine.game import Game

    path = os.path.join(out, f"belief-s{seed}-b{batch:05d}.npz")
    if os.path.exists(path):
        return path, 0.0
    t0 = time.process_time()
    ss = np.random.SeedSequence(seed, spawn_key=(batch,))
    pick = np.random.default_rng(ss)
    rng = random.Random(int(ss.generate_state(1)[0]))
    model = BOT_INDEX[MODEL_BOT]
    xs, ys, points, mis, recs = [], [], [], [], []
    point = rec = 0
    for hand_id in range(batch * BATCH, (batch + 1) * BATCH):
        g = Game("standard", seed=seed, hand_id=hand_id, level="random")
        while g.phase != "done":
            if g.phase == "play" and pick.random() < 1.0 / every:
                seat = g.to_act
                seen = [(1, g)] + [(0, g.sample_world(seat, rng)) for _ in range(worlds)]
                for label, game in seen:
                    x = np.frombuffer(
                        _reading.decision_rows(game._core, seat, model, kind), np.float32
                    )
                    x = x.reshape(-1, NB_IN_)
                    xs.append(x)
                    ys.append(np.full(len(x), label, np.int8))
                    points.append(np.full(len(x), point, np.int32))
                    mis.append(np.full(len(x), _reading.misfits(game._core, seat, model), np.int16))
                    recs.append(np.full(len(x), rec, np.int32))
                    rec += 1
                point += 1
            g.apply(g.bot_action(bot))
    mlp.save_rows(path, x=xs, y=ys, point=points, misfits=mis, record=recs, kind=np.int8(kind))
    return path, time.process_time() - t0


def rows(
    out: str, hands: int, bot: str, worlds: int, every: int, seed: int, workers: int, kind: int
):
    os.makedirs(out, exist_ok=True)
    jobs = [(out, seed, b, bot, worlds, every, kind) for b in range(-(-hands // BATCH))]
    with ProcessPoolExecutor(workers) as ex:
        for path, cpu in ex.map(_rows_one, jobs):
            print(f"{path}: {cpu:.0f} s of CPU", flush=True)


def load(out: str):
    files = sorted(glob.glob(os.path.join(out, "belief-*.npz")))
    if not files:
        sys.exit(f"error: no rows in {out}")
    keys = ("x", "y", "point", "misfits", "record")
    parts = {k: [] for k in keys + ("batch",)}
    records = 0
    kinds = set()
    for i, f in enumerate(files):
        with np.load(f) as z:
            kinds.add(int(z["kind"]) if "kind" in z else 1)
            for k in keys:
                parts[k].append(z[k] + records if k == "record" else z[k])
            parts["batch"].append(np.full(len(z["y"]), i, np.int32))
            records += int(z["record"].max()) + 1 if len(z["record"]) else 0
    if len(kinds) != 1:
        sys.exit(f"error: rows of kinds {sorted(kinds)} in {out}: one kind per folder")
    d = {k: np.concatenate(v) for k, v in parts.items()}
    d["kind"] = kinds.pop()
    return d


def ranking(d: dict, score: np.ndarray, mask: np.ndarray) -> tuple[float, float]:
    """How often the real deal ranks above a world of its decision: by the summed score and by
    the 0/1 misfit count (lower is better), ties half."""
    rec = d["record"][mask]
    sums = np.bincount(rec, weights=score[mask])
    first = np.unique(rec, return_index=True)[1]
    ids = rec[first]
    point = (d["batch"][mask][first].astype(np.int64) << 32) + d["point"][mask][first]
    label = d["y"][mask][first]
    mis = d["misfits"][mask][first]
    by_f, by_m, n = 0.0, 0.0, 0
    recs = list(zip(point, sums[ids], mis, label, strict=True))
    real = {p: (s, m) for p, s, m, lab in recs if lab == 1}
    for p, s, m, lab in recs:
        if lab == 1 or p not in real:
            continue
        rs, rm = real[p]
        by_f += 1.0 if rs > s else 0.5 if rs == s else 0.0
        by_m += 1.0 if rm < m else 0.5 if rm == m else 0.0
        n += 1
    return by_f / max(n, 1), by_m / max(n, 1)


def fit(out: str, model: str, hidden: int, epochs: int, seed: int, lr: float) -> None:
    d = load(out)
    held = d["batch"] % 5 == 0
    if d["kind"] == 2:
        # the model of deviations learns from the real deals alone: the label is whether the
        # model's play was left, and the input leaves that column out (0)
        x = d["x"].copy()
        y = x[:, -1].copy()
        x[:, -1] = 0
        real = d["y"] == 1
        train, held = ~held & real, held
    else:
        x, y = d["x"], d["y"].astype(np.float32)
        train = ~held
    mu, sd = mlp.standardise(x[train])
    xs = (x - mu) / sd
    if not train.any():
        sys.exit(f"error: no rows to train on in {out} (batch 0 of every 5 is held out)")
    rng = np.random.default_rng(seed)
    net = mlp.MLP(x.shape[1], hidden, rng)
    print(f"{len(x):,} rows, {y.mean():.0%} of the real deal; {held.mean():.0%} held out")
    net.fit(xs[train], mlp.LogLoss(y[train]), epochs, rng, lr=lr)
    f = net.forward(xs)[0]
    scored = held & (d["y"] == 1) if d["kind"] == 2 else held
    p = 1 / (1 + np.exp(-np.clip(f[scored], -30, 30)))
    yh, yt = y[scored], y[train].mean()
    loss = -np.mean(np.where(yh > 0.5, np.log(p + 1e-12), np.log(1 - p + 1e-12)))
    base = -np.mean(np.where(yh > 0.5, np.log(yt), np.log(1 - yt)))
    if d["kind"] == 2:
        # a record's score: its log-likelihood, sum of log P(what was played)
        pall = 1 / (1 + np.exp(-np.clip(f, -30, 30)))
        by_f, by_m = ranking(d, np.log(np.where(y > 0.5, pall, 1 - pall) + 1e-12), held)
    else:
        by_f, by_m = ranking(d, f, held)
    print(
        f"held out: log loss {loss:.4f} (the base rate's {base:.4f}); the real deal ranks above "
        f"a world {100 * by_f:.1f}% of the time by the summed logit, {100 * by_m:.1f}% by the "
        f"0/1 misfits of {MODEL_BOT}"
    )
    # kind 1: the belief's units per decision are 100 (hi - f), clipped to [0, 100 (hi - lo)];
    # kind 2: 100 (-log P), clipped to 100 (hi - lo) = 800 (a probability of e^-8)
    hi, lo = float(np.quantile(f, 0.9995)), float(np.quantile(f, 0.0005))
    if d["kind"] == 2:
        hi, lo = 8.0, 0.0
    digest = mlp.save(
        model, net, mu, sd, hi=np.float32(hi), lo=np.float32(lo), kind=np.int8(d["kind"])
    )
    print(f"wrote {model} (logits {lo:.2f} to {hi:.2f}): sha256 {digest}")


def belief_setting(model: str) -> str:
    """The research settings of a search-v3 name that read the play by MODEL (a file of `fit`)
    in place of the shipped belief: ``belief_path=MODEL,belief_kind=K``, K the file's kind
    (its chain reads it only with ``infer=N``)."""
    try:
        with np.load(model) as z:
            kind = int(z["kind"])
    except (OSError, KeyError, ValueError) as e:
        sys.exit(f"error: belief {model}: cannot read its kind ({e})")
    if kind not in (1, 2):
        sys.exit(f"error: {model}: belief kind {kind}, not 1 or 2")
    return f"belief_path={model},belief_kind={kind}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("rows")
    r.add_argument("out")
    r.add_argument("--hands", type=int, default=600)
    r.add_argument("--bot", default="search:k=32")
    r.add_argument("--worlds", type=int, default=3)
    r.add_argument("--every", type=int, default=6)
    r.add_argument("--seed", type=int, default=2160)
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--kind", type=int, default=2, choices=(1, 2))
    mlp.add_fit_command(sub, hidden=16, epochs=8, lr=1e-3)
    p = sub.add_parser("reproduce")
    p.add_argument("out")
    p.add_argument("model")
    p.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    if a.what == "rows":
        rows(a.out, a.hands, a.bot, a.worlds, a.every, a.seed, a.workers, a.kind)
    elif a.what == "reproduce":
        # the shipped belief-v1 (fastsheng/bots/models/belief-v1.npz): these rows, then this fit
        rows(a.out, 2000, "search:k=32", 1, 6, 2160, a.workers, 2)
        fit(a.out, a.model, 16, 8, 1, 1e-3)
    else:
        fit(a.out, a.model, a.hidden, a.epochs, a.seed, a.lr)


if __name__ == "__main__":
    main()
