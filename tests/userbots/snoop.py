"""Hostile bots that try to read the cards their seat may not see (tests/test_isolation.py).

Each one tries one route from inside ``act`` to the real game (``fastsheng.Game``) of the
process it runs in, or to the run's seed (which deals every hand again), and writes what it found
to a JSON file in ``$FASTSHENG_SNOOP_DIR`` once per bot instance. A game found counts only when
it is the very game this seat is playing (its hand is the observation's hand, and it is this
seat's turn in it): then the cards of the three other seats were there to be read. In process
every route finds them; in an isolated bot's own process none may.
"""

from __future__ import annotations

import ctypes
import gc
import inspect
import json
import os
import sys
import types

from fastsheng.engine.game import Game

REPORT_DIR = "FASTSHENG_SNOOP_DIR"


def _hidden(candidates, observation) -> dict[int, list[int]]:
    """The other seats' cards in the first candidate that is this seat's real game."""
    seat = observation.seat
    for g in candidates:
        if not isinstance(g, Game):
            continue
        try:
            if sorted(g.hand(seat)) == sorted(observation.hand) and g.to_act == seat:
                return {s: sorted(g.hand(s)) for s in range(4) if s != seat}
        except Exception:  # a half-made game: not this one
            continue
    return {}


def _frame_games(frame) -> list:
    """Games held by the locals of `frame` and every frame that called it."""
    out = []
    while frame is not None:
        out.extend(v for v in list(frame.f_locals.values()) if isinstance(v, Game))
        frame = frame.f_back
    return out


def _referrer_games(start, depth: int = 5, width: int = 300) -> list:
    """Games reachable from `start` by following gc.get_referrers a few steps (a frame met on the
    way is searched through its locals). One heap scan per step (get_referrers of the whole
    layer at once), at most `width` objects followed per step."""
    seen = {id(start)}
    layer = [start]
    out: list = []
    for _ in range(depth):
        found = gc.get_referrers(*layer)
        nxt = []
        for r in found:
            if id(r) in seen or r is layer or r is found:
                continue
            seen.add(id(r))
            if isinstance(r, Game):
                out.append(r)
            elif isinstance(r, types.FrameType):
                out.extend(_frame_games(r))
            elif isinstance(r, dict | list | tuple) and len(nxt) < width:
                nxt.append(r)
        if out or not nxt:
            return out
        layer = nxt
    return out


class _Snoop:
    """Plays the lowest legal cards; at its first decision tries its route once and reports."""

    route = ""

    def reset(self, seat, rules, rng):
        self.seat = seat

    def act(self, observation, legal_actions):
        if not getattr(self, "_reported", False):
            self._reported = True
            self._report(self.look(observation))
        for kind in ("pass", "done"):
            for a in legal_actions:
                if a.kind == kind:
                    return a
        return min(legal_actions, key=lambda a: a.cards)

    def look(self, observation) -> dict:
        return {"cards": _hidden(self.candidates(observation), observation)}

    def candidates(self, observation) -> list:
        return []

    def _report(self, found: dict) -> None:
        where = os.environ.get(REPORT_DIR)
        if not where:
            return
        record = {"route": self.route, "seat": observation_seat(self), "pid": os.getpid()}
        record.update({k: v for k, v in found.items()})
        record["cards"] = {str(k): v for k, v in record.get("cards", {}).items()}
        name = f"{self.route}-{record['seat']}-{os.getpid()}-{id(self)}.json"
        with open(os.path.join(where, name), "w") as f:
            json.dump(record, f)


def observation_seat(bot) -> int:
    return getattr(bot, "seat", -1)


class CallerFrame(_Snoop):
    """sys._getframe(1).f_locals["game"], and every frame above."""

    route = "frame"

    def candidates(self, observation):
        frame = sys._getframe(1)
        direct = frame.f_locals.get("game")
        return ([direct] if direct is not None else []) + _frame_games(frame)


class InspectStack(_Snoop):
    """inspect.stack(): every caller's locals."""

    route = "inspect"

    def candidates(self, observation):
        out = []
        for info in inspect.stack(0):
            out.extend(v for v in list(info.frame.f_locals.values()) if isinstance(v, Game))
        return out


class CtypesFrame(_Snoop):
    """The current frame through the C API (PyEval_GetFrame), then f_back."""

    route = "ctypes"

    def candidates(self, observation):
        get = ctypes.pythonapi.PyEval_GetFrame
        get.restype = ctypes.py_object
        get.argtypes = []
        return _frame_games(get())


class RulesReferrers(_Snoop):
    """gc.get_referrers(observation._rules): the Rules object the real game holds too."""

    route = "referrers-rules"

    def candidates(self, observation):
        return _referrer_games(observation._rules)


class TricksReferrers(_Snoop):
    """gc.get_referrers(observation.tricks): the game caches the tuple it hands out."""

    route = "referrers-tricks"

    def candidates(self, observation):
        return _referrer_games(observation.tricks)


class ObservationReferrers(_Snoop):
    """gc.get_referrers(observation), then of everything the observation holds: whoever shares
    an object with it (Python 3.11 does not count an executing frame as a referrer of its
    locals; the game does hold some of the observation's tuples)."""

    route = "referrers-observation"

    def candidates(self, observation):
        out = _referrer_games(observation)
        for part in gc.get_referents(observation):
            out.extend(_referrer_games(part))
        return out


class OfferReferrers(_Snoop):
    """gc.get_referrers(legal_actions): the game keeps the offer it made, to trust it."""

    route = "referrers-offer"

    def act(self, observation, legal_actions):
        self._offer = legal_actions
        return super().act(observation, legal_actions)

    def candidates(self, observation):
        return _referrer_games(self._offer)


class LiveGames(_Snoop):
    """gc.get_objects() filtered to live fastsheng.Game objects."""

    route = "gc-objects"

    def candidates(self, observation):
        return [o for o in gc.get_objects() if isinstance(o, Game)]


class RunSeed(_Snoop):
    """The run's seed (it deals every hand again): in sys.argv, or in a caller's locals (an int
    named seed, or an object with a seed attribute: the batch's plan)."""

    route = "seed"

    def look(self, observation):
        seeds = set()
        argv = list(sys.argv)
        for i, arg in enumerate(argv[:-1]):
            if arg in ("--seed", "-s") and argv[i + 1].isdigit():
                seeds.add(int(argv[i + 1]))
        frame = sys._getframe(1)
        while frame is not None:
            for name, v in list(frame.f_locals.items()):
                if name == "seed" and isinstance(v, int) and not isinstance(v, bool):
                    seeds.add(v)
                s = getattr(v, "seed", None) if not isinstance(v, type) else None
                if isinstance(s, int) and not isinstance(s, bool):
                    seeds.add(s)
            frame = frame.f_back
        return {"seeds": sorted(seeds)}


ROUTES = (
    CallerFrame,
    InspectStack,
    CtypesFrame,
    RulesReferrers,
    TricksReferrers,
    ObservationReferrers,
    LiveGames,
    OfferReferrers,
)
