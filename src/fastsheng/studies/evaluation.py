"""``fastsheng.evaluate``: your bot against another on paired, seat-swapped deals, in process
(each Python bot in a process of its own with ``isolate``: fastsheng.engine.isolation).

The same method as ``fastsheng ladder`` for one pair, and the same code (fastsheng.studies.ladder's
``pair_outcome`` / ``pair_row``): the first ``n`` hands of the run with ``seed`` are played
twice, your bot at seats 0/2 against the opponent at 1/3, then with the seats swapped on the same
cards. Per deal, your team's net levels (levels it gains minus levels the other team gains; a
take-over without levels is 0) are averaged over the two seatings, so the luck of the cards and
the seat cancel; the mean over deals gets a Student t 95% interval, as does the share of hands
your team wins. A pure function of (bot, opponent, rules, seed, n, level): the batch size is the
one ``fastsheng sim`` picks for the line-up (fastsheng.sim.runner.default_batch_size), so the deals
are those of ``fastsheng compare --bots BOT,OPPONENT --seed SEED``.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["evaluate", "evaluation_text"]

# the columns fastsheng.studies.ladder.pair_outcome reads (outcome, and the deal it checks both
# agree on)
_COLUMNS = ("hand_id", "winner", "levels", "dealer", "kitty_points_dealt") + tuple(
    f"points_{s}" for s in range(4)
)


def evaluate(
    bot: Any,
    n: int = 200,
    *,
    opponent: Any = "expert",
    rules: Any = "standard",
    seed: int = 1,
    level: str = "2",
    batch_size: int | None = None,
    isolate: bool | None = None,
    bot_limits: Any = None,
) -> dict[str, Any]:
    """``bot`` (a name, or a Python bot object or class) against ``opponent`` over ``n``
    paired deals. ``isolate``: each Python bot in a process of its own, which cannot read the
    hidden cards (fastsheng.engine.isolation; None: when the two are Python bots of two
    authors); ``bot_limits``: an isolated bot's limits (BotLimits). Returns the ladder's pair
    row (``x``, ``y``, ``deals``, ``net``, ``net_lo``, ``net_hi``, ``won``, ``won_lo``,
    ``won_hi``, ``warning``) plus ``per_deal_net`` and ``per_deal_won`` (numpy arrays, one
    value per deal)."""
    from fastsheng.bots.names import resolve_bot
    from fastsheng.engine.hands import simulate_hands
    from fastsheng.sim.runner import default_batch_size, isolation_of
    from fastsheng.studies.ladder import pair_outcome, pair_row

    mine, theirs = resolve_bot(bot), resolve_bot(opponent)
    size = batch_size or default_batch_size((mine, theirs))
    isolate, bot_limits = isolation_of((mine, theirs), isolate, bot_limits)

    def seating(team0: str, team1: str):
        t = simulate_hands(rules, [team0, team1], seed, n, level=level, batch_size=size,
                           isolate=isolate, bot_limits=bot_limits)  # fmt: skip
        return t.select(list(_COLUMNS)).to_pandas()

    p = pair_outcome(mine, theirs, seating(mine, theirs), seating(theirs, mine))
    return {**pair_row(p), "per_deal_net": p.net, "per_deal_won": p.wins / 2.0}


def evaluation_text(r: dict[str, Any], rules: str = "standard") -> str:
    """The result in three lines (a fourth with the interval's caution, if any)."""

    def interval(lo: float, hi: float, spec: str) -> str:
        # too few deals (or no variation) give no interval: say so rather than print nan
        if math.isnan(lo) or math.isnan(hi):
            return "[n/a]"
        return f"[{lo:{spec}}, {hi:{spec}}]"

    lines = [
        f"{r['x']} vs {r['y']}, {rules}, {r['deals']:,} paired deals ({2 * r['deals']:,} hands):",
        f"  net levels / hand  {r['net']:+.3f}  95% {interval(r['net_lo'], r['net_hi'], '+.3f')}",
        f"  hands won          {r['won']:.1%}  95% {interval(r['won_lo'], r['won_hi'], '.1%')}",
    ]
    if r["warning"]:
        lines.append(f"  caution: {r['warning']}")
    return "\n".join(lines)
