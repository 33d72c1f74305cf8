"""Checks shared by the bots' tests: a digest that freezes a line-up's play, and the test that a
bot decides from what its seat may know."""

from __future__ import annotations

import hashlib
import json

from fastsheng.engine.game import Game
from fastsheng.engine.hands import simulate_hands


def play_digest(preset: str, lineup, seed: int = 20261201, n: int = 12) -> str:
    """SHA-256 of every column but `bots` of the hands and tricks of n hands (random levels)."""
    out = simulate_hands(preset, lineup, seed, n, level="random", tricks=True)
    h = hashlib.sha256()
    for name in ("hands", "tricks"):
        table = out[name]
        for col in sorted(c for c in table.column_names if c != "bots"):
            h.update(col.encode())
            h.update(json.dumps(table.column(col).to_pylist(), default=str).encode())
    return h.hexdigest()


def same_decisions_in_worlds(name: str, seed: int, hand_id: int) -> int:
    """Play a hand with `name` at every seat; at every lead and follow, a world that differs
    from the game only in cards the deciding seat cannot see, with the same bot stream, must get
    the same decision. Returns how many of those worlds differed from the game."""
    g = Game("standard", seed=seed, hand_id=hand_id, level="random")
    differed = 0
    while g.phase != "done":
        if g.decision in ("lead", "follow"):
            seat = g.to_act
            world = g.sample_world(seat, rng=hand_id)
            differed += any(world.hand(s) != g.hand(s) for s in range(4) if s != seat)
            world._core.set_bot_stream(g._core.bot_stream())
            assert world.bot_action(name) == g.bot_action(name), (hand_id, g.decision)
        g.apply(g.bot_action(name))
    return differed
