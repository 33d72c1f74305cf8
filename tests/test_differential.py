"""The Cython core against the plain-Python reference on many random positions.

Each position (tests/positions.py) is rebuilt from (seed, index): a failure message prints both
and the position in card notation. FASTSHENG_DIFF_SEED picks another base seed;
FASTSHENG_DIFF_N the number of positions (default 20,000, in chunks so progress is visible).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from positions import multiset_choose_count, random_position, random_subplay

import fastsheng
from fastsheng import reference
from fastsheng.errors import IllegalPlay

SEED = int(os.environ.get("FASTSHENG_DIFF_SEED", "20261129"))
N_POSITIONS = int(os.environ.get("FASTSHENG_DIFF_N", "20000"))
CHUNKS = 20
ENUM_LIMIT = 3000  # compare full legal_follows lists when at most this many candidates


def _both(fn_ref, fn_core):
    """Results of both, exceptions normalised to their type."""
    out = []
    for fn in (fn_ref, fn_core):
        try:
            out.append(fn())
        except IllegalPlay:
            out.append(IllegalPlay)
    return out


def check_position(pos) -> int:
    """Compare every rule function on one position; returns the number of comparisons."""
    ref = reference.Context(pos.rules, level=pos.level, trump=pos.trump)
    core = fastsheng.Context(pos.rules, level=pos.level, trump=pos.trump)
    rng = np.random.default_rng(np.random.SeedSequence(pos.seed, spawn_key=(pos.index, 1)))
    n = 0

    def same(what, a, b):
        assert a == b, f"{what} differs: reference={a!r} core={b!r}\n{pos.describe()}"

    for cards in pos.extra + [pos.hands[0]]:
        same("units", ref.units(cards), core.units(cards))
        n += 1

    lead_kind = _both(lambda: ref.lead_kind(pos.lead), lambda: core.lead_kind(pos.lead))
    same("lead_kind", *lead_kind)
    n += 1
    if lead_kind[0] is IllegalPlay:
        return n

    others = pos.hands[1:]
    led = ref.check_throw(pos.lead, others)
    same("check_throw", led, core.check_throw(pos.lead, others))
    same("kitty_multiplier", ref.kitty_multiplier(led), core.kitty_multiplier(led))
    n += 2

    plays = [led]
    for hand in others:
        count = multiset_choose_count(hand, len(led)) if len(hand) >= len(led) else 0
        if count <= ENUM_LIMIT:
            legal = ref.legal_follows(hand, led)
            same("legal_follows", legal, core.legal_follows(hand, led))
            n += 1
        else:
            legal = []
        # legality of random candidate plays, and of the listed ones
        for _ in range(3):
            if len(hand) < len(led):
                break
            play = random_subplay(rng, hand, len(led))
            same(
                "is_legal_follow",
                ref.is_legal_follow(hand, led, play),
                core.is_legal_follow(hand, led, play),
            )
            n += 1
        trumps = [c for c in hand if core.is_trump(c)]
        if len(trumps) >= len(led) and rng.random() < 0.3:
            # trump in with structure: whole trump units first (may or may not be legal)
            play = []
            for _, unit in ref.units(trumps):
                if len(play) + len(unit) <= len(led):
                    play += unit
            rest = [c for c in trumps]
            for c in play:
                rest.remove(c)
            play = sorted(play + rest[: len(led) - len(play)])
            plays.append(play)
        elif legal:
            play = legal[int(rng.integers(len(legal)))]
            assert core.is_legal_follow(hand, led, play), pos.describe()
            plays.append(play)
        elif len(hand) >= len(led):
            plays.append(random_subplay(rng, hand, len(led)))
        else:
            plays.append(sorted(hand))

    barred = tuple(i for i in (1, 2, 3) if rng.random() < 0.15)
    same("trick_winner", ref.trick_winner(plays), core.trick_winner(plays))
    same("trick_winner barred", ref.trick_winner(plays, barred), core.trick_winner(plays, barred))
    same("trick_points", ref.trick_points(plays), core.trick_points(plays))
    return n + 3


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_core_matches_reference(chunk):
    per = -(-N_POSITIONS // CHUNKS)
    lo, hi = chunk * per, min(N_POSITIONS, (chunk + 1) * per)
    comparisons = 0
    for index in range(lo, hi):
        pos = random_position(SEED, index, reference.Context)
        comparisons += check_position(pos)
    assert comparisons >= 5 * (hi - lo)
