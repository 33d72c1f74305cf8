"""Evaluate your own policy against the `expert` bot on paired deals.

Question: how many levels per hand does my bot win (or lose) against `expert`?

Method (``fastsheng.evaluate``, the ladder's for one pair): the first N hands of the run with the
seed are played twice, your bot at seats 0/2 against `expert` at 1/3, then the same cards with
the seats swapped. Per deal, your team's net levels (the levels it gains minus the levels the
other team gains; a take-over without levels counts 0) are averaged over the two seatings, which
cancels the luck of the cards and the seat; the mean over deals gets a Student t 95% interval,
as does the share of hands your team wins. A pure function of (policy, rules, seed, N).

Your bot is any object or class with ``act(observation, legal_actions)`` and optionally
``reset(seat, rules, rng)`` (fastsheng.engine.agents.Bot); replace ``HighLowBot`` below, or call
``fastsheng.evaluate(MyBot, n=..., rules=..., seed=...)``. The same class runs in
``fastsheng sim/compare --bots mypkg.mod:HighLowBot``.

Run: python analysis/evaluate_policy.py [N] [RULES] [random]   (default 200 deals, standard;
     "random" evaluates fastsheng.engine.agents.RandomBot instead of HighLowBot)
"""

from __future__ import annotations

import sys

import fastsheng as fs
from fastsheng.cards import points_of, rank_of
from fastsheng.engine.agents import RandomBot
from fastsheng.studies.evaluation import evaluation_text


# --- the policy: a 20-line heuristic bot -------------------------------------------------------
class HighLowBot:
    """Calls only with a pair, leads its highest side-suit card, follows and buries cheap."""

    def reset(self, seat, rules, rng):
        self.rng = rng

    def act(self, obs, legal):
        def trump(c):
            return bool(obs.eff) and obs.eff[c] == 4

        def keep(cards):  # what the cards are worth keeping: trumps, then points, then rank
            return sum(100 * trump(c) + 5 * points_of(c) + rank_of(c) for c in cards)

        if obs.decision == "declare":
            pairs = [a for a in legal if a.kind == "show" and len(set(a.cards)) < len(a.cards)]
            return pairs[0] if pairs else legal[0]  # legal[0] is "pass"
        if obs.decision == "lead":
            done = [a for a in legal if a.kind == "done"]
            if done:  # card by card: one card picked is the whole lead
                return done[0]
            singles = [a for a in legal if len(a.cards) == 1]
            return max(singles, key=lambda a: rank_of(a.cards[0]) - 100 * trump(a.cards[0]))
        return min(legal, key=lambda a: keep(a.cards))  # follow / bury, whole or card by card


def main(argv: list[str] | None = None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    n = int(float(argv[0])) if argv else 200
    rules = argv[1] if len(argv) > 1 else "standard"
    policy = RandomBot if len(argv) > 2 and argv[2] == "random" else HighLowBot
    r = fs.evaluate(policy, n, rules=rules)
    print(evaluation_text(r, rules))
    return r


if __name__ == "__main__":
    main()
