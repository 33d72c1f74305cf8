"""Evaluate your own policy against the `expert` bot on paired deals.

Question: how many levels per hand does my bot win (or lose) against `expert`?

Method: deal k is ``fastsheng.Game(rules, seed, hand_id=k)`` (hand k of ``simulate_hands`` with
that seed). Each deal is played twice: your bot at seats 0/2 against `expert` at 1/3, then the
same cards with the seats swapped. Per hand, your team's net levels are the levels it gains
(+) or the other team gains (−) (the ``levels`` column; a defenders' take-over with 0 levels
counts 0); per deal, the mean of the two seatings, which cancels the luck of the cards and the
seat. The mean over deals gets a Student t 95% interval (fastsheng.stats.mean_t); so does the
share of hands your team wins (goes up, or takes the deal). Your bot gets a ``random.Random``
per deal, seating and seat from ``SeedSequence(seed, spawn_key=...)``: a run is a pure function
of (policy, rules, seed, n).

Your bot is any object with ``act(observation, legal_actions)`` and optionally ``reset(seat,
rules, rng)`` (fastsheng.agents.Bot); replace ``HighLowBot`` below, or pass ``bot=...`` to
:func:`evaluate`. The same class runs in ``fastsheng sim/compare --bots mypkg.mod:HighLowBot``.

Run: python analysis/evaluate_policy.py [N] [RULES] [random]   (default 200 deals, standard;
     "random" evaluates fastsheng.agents.RandomBot instead of HighLowBot)
"""

from __future__ import annotations

import random
import sys

import numpy as np

from fastsheng import stats
from fastsheng.agents import RandomBot
from fastsheng.bots import resolve_bot
from fastsheng.cards import points_of, rank_of
from fastsheng.game import Game


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


# --- paired deals --------------------------------------------------------------------------------
def _rng(seed: int, deal: int, seating: int, seat: int) -> random.Random:
    ss = np.random.SeedSequence(seed, spawn_key=(deal, seating, seat))
    return random.Random(int.from_bytes(ss.generate_state(4, np.uint32).tobytes(), "little"))


def play_hand(make_bot, rules, seed, deal, seating, level="2", opponent="expert"):
    """One hand of deal `deal`, your bot at seats `seating`, `seating` + 2. Returns (your team's
    net levels, whether your team won the hand, the hand's row)."""
    g = Game(rules, seed=seed, hand_id=deal, level=level)
    bots = {s: make_bot() for s in (seating, seating + 2)}
    for s, b in bots.items():
        if hasattr(b, "reset"):
            b.reset(s, g.rules, _rng(seed, deal, seating, s))
    while g.phase != "done":
        s = g.to_act
        if s in bots:
            g.apply(bots[s].act(g.observation(s), g.legal_actions()))
        else:
            g.apply(g.bot_action(opponent))
    row = g.result()
    won = (row["dealer"] % 2 == seating) == (row["winner"] == "dealer")
    return (row["levels"] if won else -row["levels"]), won, row


def evaluate(make_bot=HighLowBot, n=200, rules="standard", seed=1, level="2", opponent="expert"):
    """Your bot's net levels per hand and share of hands won against `opponent` over `n` paired
    deals: a dict of the estimates, their 95% intervals, and the per-deal values."""
    net = np.zeros(n)
    won = np.zeros(n)
    for k in range(n):
        a, won_a, _ = play_hand(make_bot, rules, seed, k, 0, level, opponent)
        b, won_b, _ = play_hand(make_bot, rules, seed, k, 1, level, opponent)
        net[k] = (a + b) / 2
        won[k] = (won_a + won_b) / 2
    e, w = stats.mean_t(net), stats.mean_t(won)
    return {
        "deals": n,
        "net": e.estimate,
        "net_lo": e.lo,
        "net_hi": e.hi,
        "net_warning": e.warning,
        "won": w.estimate,
        "won_lo": w.lo,
        "won_hi": w.hi,
        "per_deal_net": net,
        "per_deal_won": won,
    }


def main(argv: list[str] | None = None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    n = int(float(argv[0])) if argv else 200
    rules = argv[1] if len(argv) > 1 else "standard"
    make_bot = RandomBot if len(argv) > 2 and argv[2] == "random" else HighLowBot
    r = evaluate(make_bot, n, rules)
    versus = resolve_bot("expert")  # the version that played: "expert" names the newest
    print(f"{make_bot.__name__} vs {versus}, {rules}, {n} paired deals ({2 * n} hands):")
    print(f"  net levels / hand  {r['net']:+.3f}  95% [{r['net_lo']:+.3f}, {r['net_hi']:+.3f}]")
    print(f"  hands won          {r['won']:.1%}  95% [{r['won_lo']:.1%}, {r['won_hi']:.1%}]")
    if r["net_warning"]:
        print(f"  caution: {r['net_warning']}")
    return r


if __name__ == "__main__":
    main()
