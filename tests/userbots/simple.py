"""Small user bots: a 20-line heuristic, one that plays as the built-in expert from its
observation, and broken ones (an exception, an illegal action)."""

from __future__ import annotations


class LowCards:
    """Plays the lowest legal cards: whole plays by their first code, else card by card."""

    def reset(self, seat, rules, rng):
        self.rng = rng

    def act(self, observation, legal_actions):
        passes = [a for a in legal_actions if a.kind == "pass"]
        if passes:
            return passes[0]
        done = [a for a in legal_actions if a.kind == "done"]
        if done:
            return done[0]
        return min(legal_actions, key=lambda a: (a.cards, self.rng.random()))


class AsExpert:
    """The C expert's choice, from the observation alone (a consistent world)."""

    def act(self, observation, legal_actions):
        choice = observation.sample_world(0).bot_action("expert")
        for a in legal_actions:
            if a.kind == choice.kind and a.cards == choice.cards:
                return a
        return list(choice.cards)


class Crashes:
    def act(self, observation, legal_actions):
        if observation.decision == "follow":
            raise RuntimeError("oops")
        return legal_actions[0]


class Cheats:
    def act(self, observation, legal_actions):
        if observation.decision == "lead":
            h = observation.hand
            other = [c for c in h if observation.eff[c] != observation.eff[h[0]]]
            if other:
                return [h[0], other[0]]  # two effective suits
        return legal_actions[0]
