"""A hand's trace: the C loop's event stream decoded into dicts, and printed."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from fastsheng import _game
from fastsheng.cards import SUITS, format_cards
from fastsheng.engine.registry import split_bots
from fastsheng.engine.schema import ACTION_NAMES, SIDE_NAMES, TRUMP_SET_NAMES

__all__ = ["decode_trace", "decode_traces", "format_trace"]

_EV = _game.EVENTS  # event code -> number, as the C loop writes them


def decode_traces(table: pa.Table) -> list[dict[str, Any]]:
    """The "traces" table of `play_batch(..., trace=True)` as trace dicts (see `trace_hand`)."""
    out = []
    cols = table.to_pydict()
    for k in range(table.num_rows):
        out.append(
            {
                "rules": cols["rules"][k],
                "bots": split_bots(cols["bots"][k]),
                "batch": cols["batch"][k],
                "hand_id": cols["hand_id"][k],
                "level": cols["level"][k],
                "first_hand": cols["first_hand"][k],
                "events": decode_trace(cols["events"][k]),
            }
        )
    return out


def decode_trace(trace) -> list[dict[str, Any]]:
    t = [int(x) for x in trace]
    i = 0
    events: list[dict[str, Any]] = []

    def cards() -> list[int]:
        nonlocal i
        n = t[i]
        out = t[i + 1 : i + 1 + n]
        i += 1 + n
        return out

    while i < len(t):
        ev = t[i]
        i += 1
        if ev == _EV["end"]:
            break
        if ev == _EV["deal"]:
            first = t[i]
            deck = t[i + 1 : i + 109]
            i += 109
            events.append({"type": "deal", "first_seat": first, "deck": deck})
        elif ev in (_EV["show"], _EV["chaodi"]):
            seat, dealt, action = t[i], t[i + 1], t[i + 2]
            i += 3
            events.append(
                {
                    "type": "show" if ev == _EV["show"] else "chaodi",
                    "seat": seat,
                    "dealt": dealt,
                    "action": ACTION_NAMES.get(action, str(action)),
                    "cards": cards(),
                }
            )
        elif ev == _EV["redeal"]:
            events.append({"type": "redeal"})
        elif ev == _EV["trump"]:
            dealer, trump, how, declarer = t[i : i + 4]
            i += 4
            events.append(
                {
                    "type": "trump",
                    "dealer": dealer,
                    "trump": None if trump == 4 else SUITS[trump],
                    "set": TRUMP_SET_NAMES[how],
                    "declarer": None if declarer < 0 else declarer,
                }
            )
        elif ev == _EV["bury"]:
            seat = t[i]
            i += 1
            events.append({"type": "bury", "seat": seat, "cards": cards()})
        elif ev == _EV["trick"]:
            leader = t[i]
            i += 1
            attempted = cards()
            failed = bool(t[i])
            i += 1
            plays = [cards() for _ in range(4)]
            winner, points = t[i], t[i + 1]
            i += 2
            events.append(
                {
                    "type": "trick",
                    "leader": leader,
                    "attempted": attempted,
                    "failed": failed,
                    "plays": plays,
                    "winner": winner,
                    "points": points,
                }
            )
        elif ev == _EV["result"]:
            keys = (
                "trick_points",
                "kitty_mult",
                "kitty_bonus",
                "penalty",
                "defenders_total",
                "winner",
                "levels",
                "next_dealer",
            )
            vals = t[i : i + 8]
            i += 8
            d = dict(zip(keys, vals, strict=True))
            d["winner"] = SIDE_NAMES[d["winner"]]
            events.append({"type": "result", **d})
        else:  # pragma: no cover
            raise ValueError(f"corrupt trace: event {ev} at {i - 1}")
    return events


def format_trace(trace: dict[str, Any]) -> str:
    """The hand move by move in card notation."""
    lines = [
        f"hand {trace['hand_id']}  rules {trace['rules']}  level {trace['level']}  "
        f"bots {','.join(trace['bots'])}"
    ]
    for ev in trace["events"]:
        kind = ev["type"]
        if kind == "deal":
            deck = ev["deck"]
            first = ev["first_seat"]
            lines.append(f"deal from seat {first}")
            for s in range(4):
                cards = sorted(deck[j] for j in range(100) if (first + j) % 4 == s)
                lines.append(f"  seat {s}: {format_cards(cards)}")
            lines.append(f"  kitty: {format_cards(deck[100:])}")
        elif kind in ("show", "chaodi"):
            when = "after burial" if kind == "chaodi" else f"after card {ev['dealt']}"
            cards = format_cards(ev["cards"])
            lines.append(f"  seat {ev['seat']} {ev['action']}s {cards} ({when})")
        elif kind == "redeal":
            lines.append("nobody called: redeal")
        elif kind == "trump":
            trump = ev["trump"] or "no trump"
            lines.append(f"dealer seat {ev['dealer']}, trump {trump} ({ev['set']})")
        elif kind == "bury":
            lines.append(f"seat {ev['seat']} takes the kitty, buries {format_cards(ev['cards'])}")
        elif kind == "trick":
            leader = ev["leader"]
            head = f"trick: seat {leader} leads {format_cards(ev['plays'][0])}"
            if ev["failed"]:
                head += f" (throw {format_cards(ev['attempted'])} failed)"
            lines.append(head)
            for k in range(1, 4):
                lines.append(f"    seat {(leader + k) % 4}: {format_cards(ev['plays'][k])}")
            lines.append(f"    -> seat {ev['winner']} wins {ev['points']} points")
        elif kind == "result":
            lines.append(
                f"defenders {ev['trick_points']} from tricks, kitty bonus {ev['kitty_bonus']} "
                f"(x{ev['kitty_mult']}), penalty {ev['penalty']}: total {ev['defenders_total']}; "
                f"{ev['winner']} +{ev['levels']}; next dealer seat {ev['next_dealer']}"
            )
    return "\n".join(lines)
