"""A card-play policy learned from scratch with fastsheng.vec: REINFORCE with a learned baseline
(or PPO with GAE), in numpy, against `random`, then against `basic` (docs/learning.md).

    python training/train_policy.py [--minutes-random 8] [--minutes-basic 16] [--envs 256]
        [--hidden 256] [--lr 1e-3] [--eval-deals 500] [--seed 0] [--out runs/policy.npz]
        [--curve runs/policy-curve.csv]

The learner plays seats 0/2 of a VecEnv; its calls, 炒底 and burial are handed to `basic`
(``auto_*``), so it learns card play alone, one card at a time (the Discrete(68) ids). The
policy is a one-hidden-layer ReLU MLP over the observation (the 21 x 54 tensor) with two heads:
the action's logits (masked to the legal ids, a softmax) and a value. Each hand's reward is the
learner team's net levels (+ the levels it gains, - those the others gain; ``--points W`` adds
W x its points / 40). The envs run ``--rollout`` steps (each step one decision of the learner in
every env); each decision's advantage is its return minus the value head's estimate (``--lam
1``, the default: the hand's reward, REINFORCE with a baseline; ``--lam`` < 1: GAE over the
learner's decisions of the hand), normalised over the rollout; the decisions of a hand still
open when the rollout ends count by the value's estimate there. The loss, PPO's clipped
objective (with ``--epochs 1`` the plain policy gradient -advantage x log pi(action)) + the
value's squared error - 0.01 x the entropy, is fit by Adam in minibatches.

Every `--eval-every` seconds (and at each stage's end) the greedy policy (its most likely legal
id) is scored against basic-v1 on paired deals: the same `--eval-deals` deals (hand 0 of batches
0..deals-1 of seed 99, the same every time) played with the learner at seats 0/2 and again at
1/3, its team's net levels per hand averaged over the two seatings, with a 95% interval over the
deals. The curve is printed and written to --curve (CSV); the weights to --out (.npz).
"""

from __future__ import annotations

if __package__ in (None, ""):
    import _root  # noqa: F401  (the repo root on the path, run as a script)

import argparse
import csv
import os
import sys
import time
from pathlib import Path

# one BLAS thread: OpenBLAS's threads spin while they wait, which on a shared machine makes its
# matrix products ten times slower (set OPENBLAS_NUM_THREADS yourself to override)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from fastsheng.vec import N_ACTIONS, OBS_DIVISOR, VecEnv  # noqa: E402

N_IN = OBS_DIVISOR.size
SCALE = (1.0 / OBS_DIVISOR).reshape(-1).astype(np.float32)  # uint8 counts -> to_tensor values
AUTO = "basic"  # the learner's calls, 炒底 and burial
EVAL_SEED = 99


class Policy:
    """x -> h = relu(x W1 + b1) -> logits h W2 + b2 (68), value h wv + bv."""

    def __init__(self, hidden: int, rng: np.random.Generator):
        self.p = {
            "w1": (rng.standard_normal((N_IN, hidden)) * np.sqrt(2 / N_IN)).astype(np.float32),
            "b1": np.zeros(hidden, np.float32),
            "w2": (rng.standard_normal((hidden, N_ACTIONS)) * 0.01).astype(np.float32),
            "b2": np.zeros(N_ACTIONS, np.float32),
            "wv": np.zeros(hidden, np.float32),
            "bv": np.zeros(1, np.float32),
        }
        self.m = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.t = 0

    def forward(self, obs: np.ndarray, mask: np.ndarray):
        """(hidden, masked log-probabilities, value) of uint8 observations (n, 21, 54)."""
        x = obs.reshape(len(obs), -1) * SCALE  # float32
        h = np.maximum(x @ self.p["w1"] + self.p["b1"], 0)
        logits = h @ self.p["w2"] + self.p["b2"]
        logits = np.where(mask, logits, -1e9)
        logits -= logits.max(1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
        return x, h, logp, h @ self.p["wv"] + self.p["bv"][0]

    def act(self, obs, mask, rng: np.random.Generator | None):
        """(a sampled action per row (rng) or the most likely legal one (None), its
        log-probability, the value)."""
        _, _, logp, v = self.forward(obs, mask)
        if rng is None:
            a = logp.argmax(1)
        else:
            g = rng.gumbel(size=logp.shape).astype(np.float32)
            a = (logp + np.where(mask, g, -1e9)).argmax(1)
        return a, logp[np.arange(len(a)), a], v

    def update(self, obs, mask, actions, adv, ret, old_logp, lr, clip=0.2, ent=0.01) -> None:
        """One Adam step on PPO's clipped objective (advantages `adv`, already normalised), the
        value's squared error to `ret` and an entropy bonus."""
        x, h, logp, v = self.forward(obs, mask)
        n = len(obs)
        p = np.exp(logp)
        rows = np.arange(n)
        ratio = np.exp(logp[rows, actions] - old_logp)
        clipped = ((adv > 0) & (ratio > 1 + clip)) | ((adv < 0) & (ratio < 1 - clip))
        coef = np.where(clipped, 0, adv * ratio).astype(np.float32)
        onehot = np.zeros_like(p)
        onehot[rows, actions] = 1
        # d/dlogits of -coef log p(a) - ent * entropy (entropy = -sum p log p over legal ids)
        plogp = np.where(mask, p * logp, 0)
        dent = p * (logp - plogp.sum(1, keepdims=True))  # d(sum p log p)/dlogits
        dlogits = (coef[:, None] * (p - onehot) + ent * dent) * mask / n
        dv = (v - ret) / n
        g = {
            "w2": h.T @ dlogits,
            "b2": dlogits.sum(0),
            "wv": h.T @ dv,
            "bv": np.array([dv.sum()], np.float32),
        }
        dh = dlogits @ self.p["w2"].T + dv[:, None] * self.p["wv"][None, :]
        dh *= h > 0
        g["w1"] = x.T @ dh
        g["b1"] = dh.sum(0)
        self.t += 1
        for k, grad in g.items():  # Adam (0.9, 0.999, 1e-8)
            self.m[k] = 0.9 * self.m[k] + 0.1 * grad
            self.v[k] = 0.999 * self.v[k] + 0.001 * grad * grad
            mh = self.m[k] / (1 - 0.9**self.t)
            vh = self.v[k] / (1 - 0.999**self.t)
            self.p[k] -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)


def evaluate(policy: Policy, deals: int, threads: int) -> tuple[float, float, float]:
    """The greedy policy against basic-v1 on `deals` paired deals: its team's mean net levels
    per hand over both seatings, and the 95% interval's ends."""
    nets = []
    for seats, team in (((None, "basic"), 0), (("basic", None), 1)):
        env = VecEnv(
            deals,
            "standard",
            seats,
            seed=EVAL_SEED,
            auto_calls=AUTO,
            auto_chaodi=AUTO,
            auto_burial=AUTO,
            threads=threads,
        )
        step = env.reset()
        net = np.full(deals, np.nan)
        while np.isnan(net).any():
            step = env.step(policy.act(step.obs, step.mask, None)[0])
            first = step.terminated & np.isnan(net)
            net[first] = step.reward[first, team]
        nets.append(net)
    per_deal = (nets[0] + nets[1]) / 2
    half = 1.96 * per_deal.std(ddof=1) / np.sqrt(deals)
    return float(per_deal.mean()), float(per_deal.mean() - half), float(per_deal.mean() + half)


def train(args: argparse.Namespace) -> list[dict]:
    rng = np.random.default_rng(args.seed)
    policy = Policy(args.hidden, rng)
    curve: list[dict] = []
    t0 = time.perf_counter()
    hands = decisions = 0
    out = Path(args.curve)
    out.parent.mkdir(parents=True, exist_ok=True)

    def point(stage: str) -> None:
        net, lo, hi = evaluate(policy, args.eval_deals, args.threads)
        row = {
            "minutes": round((time.perf_counter() - t0) / 60, 2),
            "stage": stage,
            "hands": hands,
            "decisions": decisions,
            "net": round(net, 3),
            "lo": round(lo, 3),
            "hi": round(hi, 3),
        }
        curve.append(row)
        print(
            f"{row['minutes']:6.1f} min  {stage:<11} {hands:>8,} hands {decisions:>11,} "
            f"decisions   vs basic-v1: {net:+.3f} net levels/hand [{lo:+.3f}, {hi:+.3f}]",
            flush=True,
        )
        with out.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(row))
            w.writeheader()
            w.writerows(curve)

    point("start")
    stages = (
        ("vs random", "random", args.minutes_random),
        ("vs basic", "basic", args.minutes_basic),
    )
    for stage, opponent, minutes in stages:
        env = VecEnv(
            args.envs,
            "standard",
            (None, opponent),
            seed=args.seed + 1 + len(curve),
            auto_calls=AUTO,
            auto_chaodi=AUTO,
            auto_burial=AUTO,
            threads=args.threads,
        )
        step = env.reset()
        n, steps = args.envs, args.rollout
        obs_b = np.empty((steps, n, *step.obs.shape[1:]), np.uint8)
        mask_b = np.empty((steps, n, N_ACTIONS), np.bool_)
        act_b = np.empty((steps, n), np.int64)
        logp_b = np.empty((steps, n), np.float32)
        val_b = np.empty((steps + 1, n), np.float32)
        term_b = np.empty((steps, n), np.bool_)
        rew_b = np.empty((steps, n), np.float32)
        end = time.perf_counter() + 60 * minutes
        last_eval = time.perf_counter()
        while time.perf_counter() < end:
            for t in range(steps):
                act_b[t], logp_b[t], val_b[t] = policy.act(step.obs, step.mask, rng)
                obs_b[t], mask_b[t] = step.obs, step.mask
                step = env.step(act_b[t])
                term_b[t], rew_b[t] = step.terminated, step.reward[:, 0]
                if args.points:  # the search's score: net levels x 40 + the team's points
                    row = step.info["row"]
                    defends = (row["dealer"] & 1) == 1  # the other team deals: seats 0/2 defend
                    pts = np.where(defends, row["defenders_total"], -row["defenders_total"])
                    rew_b[t] += args.points * pts / 40
            val_b[steps] = policy.forward(step.obs, step.mask)[3]
            decisions += steps * n
            hands += int(term_b.sum())
            # advantages by GAE over each env's sequence of the learner's decisions (the reward
            # at a hand's end, nothing carried across hands), the value's targets from them
            adv = np.empty((steps, n), np.float32)
            last = np.zeros(n, np.float32)
            for t in range(steps - 1, -1, -1):
                go = ~term_b[t]
                delta = rew_b[t] + go * val_b[t + 1] - val_b[t]
                last = delta + args.lam * go * last
                adv[t] = last
            ret = (adv + val_b[:steps]).reshape(-1)
            adv = adv.reshape(-1)
            adv = (adv - adv.mean()) / (adv.std() + 1e-6)
            o, m = obs_b.reshape(steps * n, -1), mask_b.reshape(steps * n, -1)
            a, old = act_b.reshape(-1), logp_b.reshape(-1)
            for _epoch in range(args.epochs):
                order = rng.permutation(steps * n)
                for lo in range(0, len(order), args.minibatch):
                    k = np.sort(order[lo : lo + args.minibatch])
                    policy.update(o[k], m[k], a[k], adv[k], ret[k], old[k], args.lr)
            if time.perf_counter() - last_eval > args.eval_every:
                point(stage)
                last_eval = time.perf_counter()
        point(stage)
    np.savez(args.out, **policy.p)
    return curve


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes-random", type=float, default=8.0)
    ap.add_argument("--minutes-basic", type=float, default=16.0)
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument(
        "--points",
        type=float,
        default=0.0,
        help="weight of the team's points / 40 added to the return (0: levels alone)",
    )
    ap.add_argument("--rollout", type=int, default=128, help="steps of the envs per update")
    ap.add_argument("--lam", type=float, default=1.0, help="GAE's lambda (1: Monte Carlo returns)")
    ap.add_argument("--epochs", type=int, default=1, help="passes over each rollout")
    ap.add_argument("--minibatch", type=int, default=2048)
    ap.add_argument("--eval-deals", type=int, default=500)
    ap.add_argument("--eval-every", type=float, default=120.0, help="seconds")
    ap.add_argument("--threads", type=int, default=1, help="the VecEnv's threads")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/policy.npz")
    ap.add_argument("--curve", default="runs/policy-curve.csv")
    ap.add_argument("--plot", default=None, help="also draw the curve into this PNG")
    args = ap.parse_args(argv)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    print(
        f"train_policy: {args.envs} envs, hidden {args.hidden}, lr {args.lr}, "
        f"{args.minutes_random} + {args.minutes_basic} minutes, eval on {args.eval_deals} "
        f"paired deals; {os.cpu_count()} CPUs",
        flush=True,
    )
    curve = train(args)
    if args.plot:
        plot(curve, args.plot)
    return 0


def plot(curve: list[dict], path: str) -> None:
    """The learning curve: net levels per hand against basic-v1 (95% band) by hands trained."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["hands"] / 1000 for r in curve]
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    ax.fill_between(x, [r["lo"] for r in curve], [r["hi"] for r in curve], alpha=0.25)
    ax.plot(x, [r["net"] for r in curve], marker="o")
    switch = max((r["hands"] / 1000 for r in curve if r["stage"] == "vs random"), default=None)
    if switch is not None:
        ax.axvline(switch, color="grey", ls=":", label="opponent: random -> basic")
        ax.legend(loc="lower right")
    ax.axhline(0, color="black", lw=0.5)
    ax.set_xlabel("thousands of training hands")
    ax.set_ylabel("net levels / hand vs basic-v1")
    ax.set_title("train_policy.py: greedy policy on paired deals")
    fig.tight_layout()
    fig.savefig(path)


if __name__ == "__main__":
    sys.exit(main())
