"""Could this world have happened? Its whole public history replayed through the rules.

A world from ``Game.sample_world`` / ``Observation.sample_world`` must honour every public fact
(docs/game.md). :func:`impossible` says why one does not (an empty list: it could have
happened), in two parts:

* **the play**: from the world's hands now, back through the trick in progress and every
  finished trick: each lead held by its leader, each throw checked against the other hands as
  they were with the same result (a throw that stood stands, a failed one fails to the same
  cards), every follow legal (suit, pairs, tractors), the same winner;
* **its own history** (``own=True``): the deck in its trace deals every call's cards to the
  caller by the time it called, each burial comes from its burier's hand and the kitty, the
  tricks take their cards from the hands that leaves, ending in the world's hands now; and the
  result's dealt columns are those of its own deal.

The play part reads only the world's hands, its trace's tricks and the trick in progress, so it
also measures worlds drawn by older samplers. The rules are the core's (``Context``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from fastsheng._core import Context
from fastsheng.cards import RANKS, points_of

__all__ = ["impossible"]

_SUITS = ("S", "H", "C", "D", None)


def _has(hand: Counter, cards) -> bool:
    return not Counter(cards) - hand


def _context(world: Any) -> Context | None:
    o = world.observation(0)
    if o.trump is None:
        return None
    return Context(world.rules, RANKS[o.level], _SUITS[o.trump])


def _trick_problems(ctx, rules, dealer, hands, leader, attempted, failed, plays, winner, where):
    """Problems of one trick, `hands` the seats' hands as it began (Counters)."""
    out = []
    seats = [(leader + i) % 4 for i in range(len(plays))]
    if not _has(hands[leader], attempted):
        return [f"{where}: seat {leader} did not hold its lead"]
    if failed or ctx.lead_kind(list(attempted)) == "throw":
        others = [list(hands[(leader + i) % 4].elements()) for i in (1, 2, 3)]
        actual = sorted(ctx.check_throw(list(attempted), others))
        if bool(actual != sorted(attempted)) != bool(failed):
            out.append(f"{where}: the throw would have {'stood' if failed else 'failed'}")
        elif sorted(plays[0]) != actual:
            out.append(f"{where}: the failed throw would have left other cards")
    for s, p in zip(seats[1:], plays[1:], strict=True):
        if not _has(hands[s], p):
            out.append(f"{where}: seat {s} did not hold its play")
        elif not ctx.is_legal_follow(list(hands[s].elements()), list(plays[0]), list(p)):
            out.append(f"{where}: seat {s}'s follow would have been illegal")
    if winner is not None and len(plays) == 4:
        barred = ()
        if failed and (leader - dealer) % 2 == 0 and rules.partner_no_trump_after_failed_throw:
            i = ((dealer + 2) - leader) % 4
            barred = (i,) if i else ()
        w = ctx.trick_winner([list(p) for p in plays], barred)
        if seats[w] != winner:
            out.append(f"{where}: another seat would have won it")
    return out


def _play_problems(world, ctx, events) -> list[str]:
    dealer = next(e["dealer"] for e in events if e["type"] == "trump")
    hands = [Counter(world.hand(s)) for s in range(4)]
    out: list[str] = []
    leader, plays = world._core.trick()
    if plays:
        o = world.observation(leader)
        attempted = getattr(o, "lead_attempt", ()) or tuple(plays[0])
        failed = getattr(o, "lead_failed", False)
        for i, p in enumerate(plays):
            hands[(leader + i) % 4].update(p)
        out += _trick_problems(
            ctx, world.rules, dealer, hands, leader, attempted, failed, plays, None, "trick now"
        )
    tricks = [e for e in events if e["type"] == "trick"]
    for k in range(len(tricks) - 1, -1, -1):
        t = tricks[k]
        for i, p in enumerate(t["plays"]):
            hands[(t["leader"] + i) % 4].update(p)
        out += _trick_problems(
            ctx,
            world.rules,
            dealer,
            hands,
            t["leader"],
            t["attempted"],
            t["failed"],
            t["plays"],
            t["winner"],
            f"trick {k + 1}",
        )
    return out


def _own_problems(world, ctx, events) -> list[str]:
    """The world's own deal, calls and burials lead to its hands now."""
    deals = [i for i, e in enumerate(events) if e["type"] == "deal"]
    if not deals:
        return []  # a position started mid-hand (Game.from_position) has no deal
    out: list[str] = []
    start = deals[-1]
    deck, first = events[start]["deck"], events[start]["first_seat"]
    if sorted(deck) != sorted(list(range(54)) * 2):
        return ["the deal is not a deck of two packs"]
    for e in events[start:]:
        if e["type"] == "show":
            got = Counter(deck[i] for i in range(e["dealt"]) if (first + i) % 4 == e["seat"])
            if not _has(got, e["cards"]):
                out.append(f"seat {e['seat']} called with cards it was not dealt yet")
    o = world.observation(0)
    if o.phase == "declare":
        return out
    hands = [Counter(deck[i] for i in range(100) if (first + i) % 4 == s) for s in range(4)]
    dealt = [Counter(h) for h in hands]
    kitty = Counter(deck[100:])
    for e in events[start:]:
        if e["type"] == "chaodi" and not _has(hands[e["seat"]], e["cards"]):
            out.append(f"seat {e['seat']} overcalled with cards it did not hold")
        if e["type"] == "bury":
            pool = hands[e["seat"]] + kitty
            if not _has(pool, e["cards"]):
                out.append(f"seat {e['seat']} buried cards it did not hold")
                return out
            hands[e["seat"]] = pool - Counter(e["cards"])
            kitty = Counter(e["cards"])
        if e["type"] == "trick":
            for i, p in enumerate(e["plays"]):
                hands[(e["leader"] + i) % 4] -= Counter(p)
    leader, plays = world._core.trick()
    for i, p in enumerate(plays):
        hands[(leader + i) % 4] -= Counter(p)
    for s in range(4):
        if hands[s] != Counter(world.hand(s)):
            out.append(f"seat {s}'s hand now is not what its deal leaves")
    if o.phase != "bury" and kitty != Counter(world._core.kitty()):
        out.append("the kitty now is not what the burials leave")
    if o.phase == "done" and ctx is not None:
        row = world.result()
        for s in range(4):
            pts = sum(points_of(c) for c in dealt[s].elements())
            if row[f"points_{s}"] != pts:
                out.append(f"the result's points_{s} are not those of the world's deal")
    return out


def impossible(world: Any, own: bool = True) -> list[str]:
    """Why `world` could not have happened (empty: it could have). `own`: check its own deal,
    calls and burials too, not only the play."""
    events = world.trace()
    ctx = _context(world)
    out = _own_problems(world, ctx, events) if own else []
    if ctx is not None and world.observation(0).phase in ("play", "done"):
        out += _play_problems(world, ctx, events)
    return out
