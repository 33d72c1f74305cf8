"""A second author's bot module (tests/test_isolation.py): top-level module `rivalbots`, not
`userbots`, so a line-up of both mixes two authors and is isolated by default."""

from __future__ import annotations


class HighCards:
    """Plays the highest legal cards (passes every call, closes a lead at once)."""

    def act(self, observation, legal_actions):
        for kind in ("pass", "done"):
            for a in legal_actions:
                if a.kind == kind:
                    return a
        return max(legal_actions, key=lambda a: a.cards)
