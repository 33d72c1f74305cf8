"""An example bot module: copy it, change `act`, and name the class wherever a bot goes.

    cd examples && fastsheng sim -n 1e3 --bots mybot:LowCards,expert     # your team vs expert
    fastsheng compare --bots mybot:LowCards,expert --bots expert -n 2000  # (PYTHONPATH=examples)

or from Python, the class itself (or an object of it):

    import fastsheng as fs
    from mybot import LowCards
    fs.simulate_hands("standard", [LowCards, "expert"], seed=1, n=100)
    fs.evaluate(LowCards, n=200)                                          # vs expert, paired

A bot is any object with ``act(observation, legal_actions)``; ``reset(seat, rules, rng)`` is
called before every hand with its seat, the rules and a ``random.Random`` seeded from the run.
Each batch of a run gets fresh instances (made with no arguments), so keep a bot's state in the
instance, never in the module: a module-level variable would differ between 1 and 2 workers.
"""

from __future__ import annotations


class LowCards:
    """Passes at the calls, leads its lowest single card, follows and buries with the lowest
    legal cards: a weak but legal baseline (fastsheng.evaluate puts it far below expert)."""

    def reset(self, seat, rules, rng):
        self.seat = seat
        self.rng = rng  # the run's randomness: use it, never the clock, to stay reproducible

    def act(self, observation, legal_actions):
        for a in legal_actions:
            if a.kind in ("pass", "done"):  # pass a call; close a lead after one card
                return a
        # whole plays are sorted by code, card-by-card offers too: the first is the lowest
        return min(legal_actions, key=lambda a: a.cards)
