"""Training labels from the search: the table the learned bots are trained on (docs/game.md,
"Labels"; docs/bots.md, "learned-v1").

:func:`label_batch` plays one batch of hands with C bots in ONE nogil call
(``fastsheng.bots._labels``) and returns a table with one row per candidate play of every lead and
follow that had more than one candidate: the candidate's features (``f_<name>``, the view of
``fastsheng.bots._features``), its cards, the search's value of it and its gain over the base bot's
play. Like every run, a batch is a pure function of (rules, bots, seed, batch, size, k, cands).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from fastsheng.bots import _features, _labels
from fastsheng.bots.lineup import make_lineup
from fastsheng.bots.names import bot_spec, resolve_bots
from fastsheng.engine.checks import as_rules, core_level, seed_state
from fastsheng.engine.schema import HAND_DTYPE

__all__ = ["FEATURES", "LABEL_COLUMNS", "label_batch", "label_tensors"]

FEATURES = tuple(_features.FEATURE_NAMES)

# every column, its type and meaning (docs/game.md, "Labels")
LABEL_COLUMNS = {
    "decision": ("int64", "decision number, unique in a seed's labels (batch * 10**7 + index)"),
    "hand_id": ("uint64", "the hand, numbered as in the hands table"),
    "seat": ("uint8", "the deciding seat"),
    "trick": ("uint8", "tricks finished before this decision (0..24)"),
    "lead": ("bool", "a lead (else a follow)"),
    "cand": ("uint8", "index among the decision's candidates; 0 is the base bot's play"),
    "ncands": ("uint8", "candidates of the decision (2..cands)"),
    "cards_one": ("uint64", "the candidate's cards as a hand: bit c set when it holds code c"),
    "cards_two": ("uint64", "bit c set when it holds both copies of code c"),
    "value": ("float32", "search: mean score over k worlds (net levels x 40 + points)"),
    "gain": ("float32", "search: mean gain of this candidate over the base play (same units)"),
    "gain_se": ("float32", "standard error of that gain over the k worlds"),
    "hand_outcome": ("float32", "the hand as played (the base line-up), same score, seat's team"),
    **{f"f_{name}": ("float32", "feature (fastsheng.bots._features)") for name in FEATURES},
}

# no hand has more than 25 tricks x 4 seats decisions
_DECISIONS_PER_HAND = 100


def label_batch(
    rules,
    bots: str | Sequence[str],
    seed: int,
    batch: int,
    size: int,
    *,
    k: int = 16,
    cands: int = 8,
    level: str = "random",
    consistent: bool = True,
) -> pa.Table:
    """Label `size` hands of batch `batch` (seed `seed`): C bots only (the search's base is
    each seat's own bot); `k` worlds per decision, `cands` candidates; `consistent`: the worlds
    of fastsheng._worlds (else the frozen search's sampler)."""
    r = as_rules(rules)
    names = resolve_bots(bots)
    specs = [bot_spec(n) for n in names]
    if any(s.searches for s in specs):
        raise ValueError("label generation plays C bots that do not search (the search labels)")
    cap = size * _DECISIONS_PER_HAND * cands
    cols = {
        "decision": np.zeros(cap, np.int64),
        "hand_id": np.zeros(cap, np.uint64),
        "seat": np.zeros(cap, np.uint8),
        "trick": np.zeros(cap, np.uint8),
        "lead": np.zeros(cap, np.uint8),
        "cand": np.zeros(cap, np.uint8),
        "ncands": np.zeros(cap, np.uint8),
        "cards_one": np.zeros(cap, np.uint64),
        "cards_two": np.zeros(cap, np.uint64),
        "value": np.zeros(cap, np.float32),
        "gain": np.zeros(cap, np.float32),
        "gain_se": np.zeros(cap, np.float32),
        "hand_outcome": np.zeros(cap, np.float32),
        "features": np.zeros((cap, len(FEATURES)), np.float32),
    }
    hands = np.zeros(size, dtype=HAND_DTYPE)
    state = [int(x) for x in seed_state(seed, batch)]
    out = _labels._run_labels(
        r.core_fields(),
        make_lineup(specs),
        core_level(level),
        batch * size,
        size,
        hands.view(np.uint8),
        state,
        k,
        cands,
        int(consistent),
        cols,
    )
    n = out["rows"]
    data = {}
    for name in LABEL_COLUMNS:
        if name.startswith("f_"):
            continue
        a = cols[name][:n]
        data[name] = a.astype(bool) if name == "lead" else a
    data["decision"] = data["decision"] + batch * 10**7
    feats = cols["features"][:n]
    for j, name in enumerate(FEATURES):
        data[f"f_{name}"] = feats[:, j]
    return pa.table(data)


def label_tensors(
    table: pa.Table,
    rules,
    bots: str | Sequence[str],
    seed: int,
    batch: int,
    size: int,
    *,
    level: str = "random",
) -> tuple[np.ndarray, np.ndarray]:
    """The position of every decision of a label table as ``Observation.to_tensor()``: the
    table's hands (batch `batch` of `seed`, as `label_batch` played them) replayed through
    fs.Game with the same bots, and the deciding seat's observation taken at each labelled
    decision. Returns ``(decision, tensors)``: the decision numbers (the table's `decision`
    column) and a float32 array of shape ``(len(decision), *TENSOR_SHAPE)`` in that order.

    Generation stays one C call per batch (`label_batch`); this replay makes a Python call per
    decision, so it is run afterwards, only by whoever wants the tensor (docs/game.md)."""
    from fastsheng.engine.game import Game
    from fastsheng.engine.observation import TENSOR_SHAPE

    names = resolve_bots(bots)
    cols = table.select(["decision", "hand_id", "seat", "trick"]).to_pydict()
    # one row per decision (its candidates share the key): (hand, seat, tricks done) -> decision
    want: dict[tuple[int, int, int], int] = {}
    for d, h, s, t in zip(
        cols["decision"], cols["hand_id"], cols["seat"], cols["trick"], strict=True
    ):
        want[(h, s, t)] = d
    hands = sorted({h for h, _, _ in want})
    found: dict[int, np.ndarray] = {}
    for h in hands:
        g = Game(rules, seed=seed, hand_id=int(h), level=level, batch_size=size)
        while g.phase != "done":
            s = g.to_act
            if g.phase == "play":
                o = g.observation(s)
                d = want.get((h, s, len(o.tricks)))
                if d is not None and d not in found:
                    found[d] = o.to_tensor()
            g.apply(g.bot_action(names[s]))
    order = np.array(sorted(set(want.values())), np.int64)
    missing = [int(d) for d in order if d not in found]
    if missing:
        raise ValueError(
            f"{len(missing)} labelled decisions not met in the replay (first {missing[0]})"
        )
    out = np.zeros((len(order), *TENSOR_SHAPE), np.float32)
    for i, d in enumerate(order):
        out[i] = found[d]
    return order, out
