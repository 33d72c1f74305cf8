"""Property tests (hypothesis) of the follow rules, on the core and the reference alike:
legal_follows is never empty, every entry has the lead's card count and comes from the hand, and
is_legal_follow agrees with membership in legal_follows."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from positions import LEVELS, TRUMPS, multiset_choose_count

import fastsheng
from fastsheng import reference
from fastsheng.rules import get_rules, list_presets

IMPLS = {"core": fastsheng.Context, "reference": reference.Context}


@st.composite
def follow_positions(draw):
    preset = draw(st.sampled_from(list_presets()))
    level = draw(st.sampled_from(LEVELS))
    trump = draw(st.sampled_from(TRUMPS))
    seed = draw(st.integers(0, 2**32 - 1))
    size = draw(st.integers(1, 25))
    rng = np.random.default_rng(seed)
    deck = np.repeat(np.arange(54), 2)
    rng.shuffle(deck)
    leader = sorted(int(c) for c in deck[:size])
    follower = sorted(int(c) for c in deck[25 : 25 + size])
    ctx = reference.Context(get_rules(preset), level=level, trump=trump)
    units = ctx.units(leader)
    # a lead: one unit, or a throw of a whole effective suit's cards
    if draw(st.booleans()):
        lead = units[draw(st.integers(0, len(units) - 1))][1]
    else:
        suit = ctx.effective_suit(leader[0])
        lead = [c for c in leader if ctx.effective_suit(c) == suit][:6]
    return preset, level, trump, follower, lead


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(follow_positions(), st.sampled_from(sorted(IMPLS)))
def test_legal_follows_invariants(position, impl):
    preset, level, trump, hand, lead = position
    if multiset_choose_count(hand, len(lead)) > 5000:
        return  # enumeration too large to list here; the differential test samples such cases
    ctx = IMPLS[impl](get_rules(preset), level=level, trump=trump)
    legal = ctx.legal_follows(hand, lead)
    assert legal, "a player can always follow"
    held = np.bincount(hand, minlength=54)
    for play in legal:
        assert len(play) == len(lead)
        assert play == sorted(play)
        assert (np.bincount(play, minlength=54) <= held).all()
        assert ctx.is_legal_follow(hand, lead, play)
    assert len({tuple(p) for p in legal}) == len(legal), "no play listed twice"
    # every sub-multiset of the right size not listed is illegal (checked on a sample)
    listed = {tuple(p) for p in legal}
    rng = np.random.default_rng(len(hand) * 1000 + len(lead))
    for _ in range(20):
        idx = rng.choice(len(hand), size=len(lead), replace=False)
        play = sorted(hand[i] for i in idx)
        assert ctx.is_legal_follow(hand, lead, play) == (tuple(play) in listed)
