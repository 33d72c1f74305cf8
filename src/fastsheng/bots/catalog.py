"""What bots there are: the rows of the C table of bots, the shipped models and the short names.

Pure data, imported by the specifications (:mod:`fastsheng.bots.spec`) and the names
(:mod:`fastsheng.bots.names`). Adding a bot version is one row here plus its C row
(docs/bots.md, "How to add a bot version"); a retrained model is a new entry, never a changed one.
"""

from __future__ import annotations

__all__ = ["ALIASES", "BELIEF_MODELS", "BOT_INDEX", "CARD_MODELS", "LEARNED_MODELS", "ModelFile"]

from typing import NamedTuple


class ModelFile(NamedTuple):
    """A model shipped in fastsheng/bots/models/ and the SHA-256 its loader checks."""

    file: str
    sha256: str


# the row of each versioned bot in the C table of bots (ids in fastsheng/bots/_heuristic.pxd,
# rows at the end of _heuristic.pyx); `_chaos` leads random subsets of a suit (throws that fail),
# `_mute` plays as basic-v1 and never calls (the no-call fallbacks): test bots, not public
BOT_INDEX = {
    "random": 0,
    "basic-v1": 1,
    "expert-v1": 2,
    "_chaos": 3,
    "_mute": 4,
    "expert-v2": 5,
    "expert-v3": 6,
    "expert-v4": 7,
    "learned-v1": 8,
}

# the learned bots (fastsheng.bots._learned): name -> its model
LEARNED_MODELS = {
    "learned-v1": ModelFile(
        "learned-v1.npz", "d78c7ed1583dffb7da6e72b349b69c12e3bb42c834acabdc24dcd2d1578ddc6e"
    ),
}

# the learned beliefs of search-v3's inference (`belief` value -> its model; training/
# train_belief.py): a model of when a player leaves the base bot's play
BELIEF_MODELS = {
    1: ModelFile(
        "belief-v1.npz", "4df93e9d872152cbc79df86df76ec0c7fce319e16957986c9e112d60edbec211"
    ),
}

# the per-card beliefs (`cards` value -> its model and the power its probabilities weigh the
# chain's worlds by; training/train_card_belief.py)
CARD_MODELS = {
    1: (
        ModelFile(
            "card-belief-v1.npz", "18b29e6494d712af1cd23a93835911964aa31056cde3442841160399780c4c7d"
        ),
        0.5,
    ),
}

# short names -> the versioned name they play as today; a frozen search name -> the search-v3
# setting it plays forever (search-v4: the strongest bot on the frontier, docs/bots.md); a frozen
# search name takes parameters as search-v3 does, over its own
ALIASES = {
    "basic": "basic-v1",
    "expert": "expert-v4",
    "search-v4": "search-v3:k=1024,close=31,early=0,top=7,infer=10,kitty=5,belief=1,cards=1,"
    "chains=4",
}
