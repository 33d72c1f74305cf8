"""The small ReLU MLP the three training scripts fit in numpy, and its model file.

    out = w2 . relu(w1 x + b1) + b2        (one hidden layer; no b2 for the per-card belief)

train_learned.py regresses the search's gain of a candidate on its features (`MSE`),
train_belief.py tells the real deal from uniform worlds (`LogLoss`, the output its logit) and
train_card_belief.py scores every place a card may lie in (a softmax over the places, its loss
in the script). Each hands `MLP.fit` the gradient of its loss with respect to the output; the fit
does the rest the same way for all three: minibatches, backpropagation, Adam (0.9, 0.999, 1e-8).
`save` writes the model file, an .npz of the inputs' standardisation (mu, sd), the weights (w1,
b1, w2, and b2 when the net has one) and whatever the script adds (margin, hi, lo, kind...), and
returns its SHA-256 (np.savez stamps the file with the time, so the hash of two fits with equal
weights differs).

A script's model reproduces from its seed: the initialisation, the order of the random draws,
the minibatches and every floating-point operation are the ones the scripts made before they
shared this module (the per-card belief's own ways, kept: `init="lecun"`, rows that hold
several scored inputs, `carry_order`).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os

import numpy as np


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean and the standard deviation of each feature (the last axis) over the training
    rows x; 1 for a feature that does not vary."""
    flat = x.reshape(-1, x.shape[-1])
    mu = flat.mean(axis=0)
    sd = flat.std(axis=0)
    sd[sd == 0] = 1
    return mu, sd


def forward(w, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The output for standardised rows x (features on the last axis) and the hidden layer.
    `w` holds w1, b1, w2 and b2 if the net has one: an MLP's `weights()` or a model file
    (np.load)."""
    h = np.maximum(x @ w["w1"].T + w["b1"], 0)
    out = h @ w["w2"]
    if "b2" in w:
        out = out + w["b2"]
    return out, h


class MSE:
    """Mean squared error of the output against y (a regression)."""

    name = "mse"

    def __init__(self, y: np.ndarray):
        self.y = y

    def __call__(self, out: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, float]:
        yb = self.y[idx]
        return (out - yb) / len(idx), float(((out - yb) ** 2).sum())


class LogLoss:
    """Log loss of y in {0, 1}, the output its logit (a classifier)."""

    name = "log loss"

    def __init__(self, y: np.ndarray):
        self.y = y

    def __call__(self, out: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, float]:
        yb = self.y[idx]
        p = 1 / (1 + np.exp(-np.clip(out, -30, 30)))
        return (p - yb) / len(idx), -float(np.log(np.where(yb > 0.5, p, 1 - p) + 1e-12).sum())


class MLP:
    """One hidden layer of ReLUs; its weights float32.

    init "he" (train_learned, train_belief): w1 ~ N(0, 2 / inputs), w2 ~ N(0, 1 / hidden);
    "lecun" (train_card_belief): w1 ~ N(0, 1 / inputs), w2 ~ N(0, 1 / hidden). out_bias: whether
    the output has a bias b2 (the per-card belief's scores do not: a softmax ignores it)."""

    def __init__(
        self,
        nin: int,
        hidden: int,
        rng: np.random.Generator,
        init: str = "he",
        out_bias: bool = True,
    ):
        if init == "he":
            self.w1 = (rng.standard_normal((hidden, nin)) * np.sqrt(2.0 / nin)).astype(np.float32)
            self.b1 = np.zeros(hidden, np.float32)
            self.w2 = (rng.standard_normal(hidden) * np.sqrt(1.0 / hidden)).astype(np.float32)
        elif init == "lecun":
            self.w1 = (rng.standard_normal((hidden, nin)) / np.sqrt(nin)).astype(np.float32)
            self.b1 = np.zeros(hidden, np.float32)
            self.w2 = (rng.standard_normal(hidden) / np.sqrt(hidden)).astype(np.float32)
        else:
            raise ValueError(f"init {init!r}: he or lecun")
        self.b2 = np.float32(0) if out_bias else None

    def weights(self) -> dict:
        """w1, b1, w2 (and b2 when the net has one), the arrays themselves."""
        w = {"w1": self.w1, "b1": self.b1, "w2": self.w2}
        if self.b2 is not None:
            w["b2"] = np.float32(self.b2)
        return w

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return forward(self.weights(), x)

    def _grads(self, xb: np.ndarray, h: np.ndarray, err: np.ndarray) -> list:
        """d loss / d (w1, b1, w2[, b2]) from err = d loss / d output. Rows of one input (2-D x)
        by matrix products; rows of several scored inputs (3-D x: the per-card belief's
        places) summed over both axes."""
        if xb.ndim == 2:
            g_w2 = h.T @ err
            dh = np.outer(err, self.w2) * (h > 0)
            g_w1 = dh.T @ xb
            g_b1 = dh.sum(axis=0)
        else:
            g_w2 = (h * err[:, :, None]).sum((0, 1))
            dh = err[:, :, None] * self.w2 * (h > 0)
            g_w1 = np.einsum("rph,rpf->hf", dh, xb)
            g_b1 = dh.sum((0, 1))
        grads = [g_w1, g_b1, g_w2]
        if self.b2 is not None:
            grads.append(err.sum())
        return grads

    def fit(
        self,
        x: np.ndarray,
        loss,
        epochs: int,
        rng: np.random.Generator,
        lr: float = 1e-3,
        batch: int = 4096,
        rows: np.ndarray | None = None,
        carry_order: bool = False,
        report=None,
    ) -> None:
        """Adam on minibatches of `batch` rows of x. `loss(out, idx)`: the gradient of the loss
        with respect to the output of rows idx, and their summed loss (or 0). `rows`: the rows
        of x to train on (default all), drawn each epoch in a fresh random order, or with
        `carry_order` in the previous epoch's order shuffled again. `report(epoch, loss)` after
        each epoch (default: print the mean loss per row)."""
        rows = np.arange(len(x)) if rows is None else rows
        params = [self.w1, self.b1, self.w2]
        m = [np.zeros_like(p) for p in params] + [0.0]
        v = [np.zeros_like(p) for p in params] + [0.0]
        step = 0
        for ep in range(epochs):
            if carry_order:
                rng.shuffle(rows)
                order = rows
            else:
                order = rows[rng.permutation(len(rows))]
            total = 0.0
            for s in range(0, len(order), batch):
                idx = order[s : s + batch]
                xb = x[idx]
                out, h = self.forward(xb)
                err, part = loss(out, idx)
                total += part
                grads = self._grads(xb, h, err)
                step += 1
                for i, g in enumerate(grads):  # Adam (0.9, 0.999, 1e-8), as literals: 1 - 0.9
                    m[i] = 0.9 * m[i] + 0.1 * g  # is not 0.1 in floating point
                    v[i] = 0.999 * v[i] + 0.001 * g * g
                    d = lr * (m[i] / (1 - 0.9**step)) / (np.sqrt(v[i] / (1 - 0.999**step)) + 1e-8)
                    if i < 3:
                        params[i] -= d.astype(np.float32)
                    else:
                        self.b2 = np.float32(self.b2 - d)
            if report is None:
                print(f"epoch {ep + 1}: {loss.name} {total / len(order):.4f}", flush=True)
            else:
                report(ep, total)


def save(path: str, net: MLP, mu: np.ndarray, sd: np.ndarray, **extra) -> str:
    """Write the model file (.npz: mu, sd, w1, b1, w2[, b2], then `extra`) to `path` as it is
    named, and return its SHA-256."""
    buf = io.BytesIO()
    np.savez(buf, mu=mu.astype(np.float32), sd=sd.astype(np.float32), **net.weights(), **extra)
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return hashlib.sha256(buf.getvalue()).hexdigest()


def save_rows(path: str, **columns) -> None:
    """Write one shard of training rows: each list of arrays concatenated into one column
    (a scalar stays as it is), to a temporary name first so a killed worker leaves no half
    file where the rows' resumable loop would take it for done."""
    arrays = {k: np.concatenate(v) if isinstance(v, list) else v for k, v in columns.items()}
    np.savez(path + ".tmp.npz", **arrays)
    os.replace(path + ".tmp.npz", path)


def add_fit_command(sub, hidden: int, epochs: int, lr: float) -> argparse.ArgumentParser:
    """The `fit` subcommand every script has (rows in, model file out), with its defaults."""
    f = sub.add_parser("fit")
    f.add_argument("out")
    f.add_argument("model")
    f.add_argument("--hidden", type=int, default=hidden)
    f.add_argument("--epochs", type=int, default=epochs)
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--lr", type=float, default=lr)
    return f


def load(path: str) -> dict:
    """A model file's arrays, by name."""
    with np.load(path) as z:
        return {k: z[k] for k in z.files}
