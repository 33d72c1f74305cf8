"""A bot module that records which process imported it (tests/test_isolation.py): with
isolated bots, the process that holds the game must never run a bot module's code."""

import os

_where = os.environ.get("FASTSHENG_SNOOP_DIR")
if _where:
    with open(os.path.join(_where, f"imported-{os.getpid()}"), "w") as f:
        f.write(str(os.getpid()))


class Bot:
    def reset(self, seat, rules, rng):
        where = os.environ.get("FASTSHENG_SNOOP_DIR")
        if where:  # the process that plays, for the test to check it is gone afterwards
            with open(os.path.join(where, f"plays-{seat}-{os.getpid()}"), "w") as f:
                f.write(str(os.getpid()))
        self.rng = rng

    def act(self, observation, legal_actions):
        for kind in ("pass", "done"):
            for a in legal_actions:
                if a.kind == kind:
                    return a
        return min(legal_actions, key=lambda a: a.cards)


class Draws(Bot):
    """Records the first number of its random stream at each reset."""

    def reset(self, seat, rules, rng):
        super().reset(seat, rules, rng)
        where = os.environ.get("FASTSHENG_SNOOP_DIR")
        if where:
            with open(os.path.join(where, f"draw-{seat}-{os.getpid()}"), "a") as f:
                f.write(f"{rng.random()!r}\n")


class SleepsThenPlays(Bot):
    """Records its pid, then thinks for a minute at its first decision."""

    def act(self, observation, legal_actions):
        import time

        time.sleep(60)
        return super().act(observation, legal_actions)
