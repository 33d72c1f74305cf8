"""Bots that fail in every way a user's bot can (tests/test_hostile.py): each failure must be
one line naming the bot, never a traceback or a batch blamed on fastsheng."""

from __future__ import annotations

import sys

from fastsheng.engine.game import Action


class _Plays:
    def act(self, observation, legal_actions):
        return legal_actions[0]


class RaisesInInit(_Plays):
    def __init__(self):
        raise RuntimeError("no config file")


class RefusesInInit(_Plays):
    def __init__(self):
        raise ValueError("bad setting")


class RaisesInReset(_Plays):
    def reset(self, seat, rules, rng):
        raise KeyError("seat table")


class Exits(_Plays):
    def act(self, observation, legal_actions):
        if observation.decision == "follow":
            sys.exit(3)
        return legal_actions[0]


class FloatCode(_Plays):
    """Returns a whole play with a code nudged off its integer: never rounded into a card."""

    def act(self, observation, legal_actions):
        a = legal_actions[0]
        if observation.decision == "follow" and a.kind in ("follow", "card"):
            return [a.cards[0] + 0.4]
        return a


class OverwritesItsOffer(_Plays):
    """Replaces an entry of the offered actions with a revoke (a card the rules forbid) and
    returns that entry: it must be checked, not trusted as offered."""

    def act(self, observation, legal_actions):
        trick = observation.current_trick
        if observation.decision == "follow" and len(trick[0][1]) == 1:
            legal = {c for a in legal_actions for c in a.cards}
            bad = [c for c in observation.hand if c not in legal]
            if bad:
                a = legal_actions[0]
                revoke = Action(a.kind, (bad[0],), a.id)
                try:
                    legal_actions[a.id] = revoke  # refused when the offer is immutable
                except TypeError:
                    pass
                return revoke
        return legal_actions[0]
