"""A hand's trace: the C loop's event stream decoded into dicts, and printed."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from fastsheng import _game
from fastsheng.bots.names import split_bots
from fastsheng.cards import SUITS, format_cards
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


class _Reader:
    """The event stream read from the front: plain numbers, or a card list (its length first)."""

    def __init__(self, trace):
        self.t = [int(x) for x in trace]
        self.i = 0

    def more(self) -> bool:
        return self.i < len(self.t)

    def take(self, n: int) -> list[int]:
        out = self.t[self.i : self.i + n]
        self.i += n
        return out

    def one(self) -> int:
        return self.take(1)[0]

    def cards(self) -> list[int]:
        return self.take(self.one())


def _deal(r: _Reader) -> dict[str, Any]:
    first = r.one()
    return {"type": "deal", "first_seat": first, "deck": r.take(108)}


def _show(kind: str):
    def read(r: _Reader) -> dict[str, Any]:
        seat, dealt, action = r.take(3)
        action = ACTION_NAMES.get(action, str(action))
        return {"type": kind, "seat": seat, "dealt": dealt, "action": action, "cards": r.cards()}

    return read


def _trump(r: _Reader) -> dict[str, Any]:
    dealer, trump, how, declarer = r.take(4)
    return {
        "type": "trump",
        "dealer": dealer,
        "trump": None if trump == 4 else SUITS[trump],
        "set": TRUMP_SET_NAMES[how],
        "declarer": None if declarer < 0 else declarer,
    }


def _bury(r: _Reader) -> dict[str, Any]:
    seat = r.one()
    return {"type": "bury", "seat": seat, "cards": r.cards()}


def _trick(r: _Reader) -> dict[str, Any]:
    leader = r.one()
    attempted = r.cards()
    failed = bool(r.one())
    plays = [r.cards() for _ in range(4)]
    winner, points = r.take(2)
    return {
        "type": "trick",
        "leader": leader,
        "attempted": attempted,
        "failed": failed,
        "plays": plays,
        "winner": winner,
        "points": points,
    }


_RESULT_KEYS = (
    "trick_points",
    "kitty_mult",
    "kitty_bonus",
    "penalty",
    "defenders_total",
    "winner",
    "levels",
    "next_dealer",
)


def _result(r: _Reader) -> dict[str, Any]:
    d = dict(zip(_RESULT_KEYS, r.take(8), strict=True))
    d["winner"] = SIDE_NAMES[d["winner"]]
    return {"type": "result", **d}


# event code -> its reader (the C loop's layout of each event, docs/bots.md)
_READERS = {
    _EV["deal"]: _deal,
    _EV["show"]: _show("show"),
    _EV["chaodi"]: _show("chaodi"),
    _EV["redeal"]: lambda r: {"type": "redeal"},
    _EV["trump"]: _trump,
    _EV["bury"]: _bury,
    _EV["trick"]: _trick,
    _EV["result"]: _result,
}


def decode_trace(trace) -> list[dict[str, Any]]:
    """A hand's raw event codes as a list of event dicts (`trace_hand`'s "events")."""
    r = _Reader(trace)
    events: list[dict[str, Any]] = []
    while r.more():
        ev = r.one()
        if ev == _EV["end"]:
            break
        read = _READERS.get(ev)
        if read is None:  # pragma: no cover
            raise ValueError(f"corrupt trace: event {ev} at {r.i - 1}")
        events.append(read(r))
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
