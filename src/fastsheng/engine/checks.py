"""The arguments a batch of hands takes, checked once at the Python surface: rules (a Rules or a
preset name), a level, a seed and batch number (their SeedSequence state), positive counts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fastsheng.bots.names import resolve_bots
from fastsheng.cards import RANKS, parse_level
from fastsheng.rules import Rules, get_rules

__all__ = ["as_rules", "as_bots", "core_level", "seed_state", "positive"]


def as_rules(rules: Rules | str) -> Rules:
    if isinstance(rules, str):
        return get_rules(rules)
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a fastsheng.Rules or a preset name, not {rules!r}")
    return rules


def as_bots(bots: str | Sequence[str]) -> tuple[str, ...]:
    return resolve_bots(bots)


def core_level(level: str | int) -> int:
    """The C core's level: a rank index 0..12, or -1 for "random"."""
    text = parse_level(str(level))
    return -1 if text == "random" else RANKS.index(text)


def seed_state(seed: int, batch: int) -> np.ndarray:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, not {seed!r}")
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 0:
        raise ValueError(f"batch must be a non-negative int, not {batch!r}")
    ss = np.random.SeedSequence(int(seed), spawn_key=(int(batch),))
    return ss.generate_state(4, np.uint64)


def positive(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, not {value!r}")
    return int(value)
