"""The menu of bots: every public bot with what it is for, how it plays, how strong and how
fast it is. ``fastsheng.list_bots()`` returns it, ``fastsheng bots`` prints it, the README's
"Bots" table is it.

Strength and speed are the stored frontier, this package's ``frontier.json`` (written by
``python analysis/frontier.py`` together with docs/frontier.json, and equal to it): strength is
net levels per hand over ``expert-v1`` on paired, seat-swapped deals with its Student t 95%
interval (``fastsheng.evaluate``), speed is hands per second of CPU on one core with the bot at
all four seats (``profile_batch``), both under ``standard`` rules at random levels. A bot with no
point on the frontier gets None, never a figure from elsewhere.

Pure data, no engine import (the package's layers: this sits below the engine). The names,
what each resolves to and which frontier point is whose are spelled out here once;
tests/test_bot_menu.py checks each against ``fastsheng.bots.names.resolve_bot``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib.resources import files

from fastsheng.errors import FastshengError

__all__ = [
    "BASELINE",
    "FRONTIER",
    "NOT_MEASURED",
    "BotInfo",
    "format_speed",
    "format_strength",
    "frontier_points",
    "list_bots",
]

#: the bot every strength is measured over
BASELINE = "expert-v1"
#: the stored frontier, a data file of this package
FRONTIER = "frontier.json"
#: what the menu says of a figure the frontier does not hold
NOT_MEASURED = "not measured on the frontier"
# what the menu reads of each point of the frontier
_FIELDS = {"bot", "hands_per_s", "net", "net_lo", "net_hi"}


@dataclass(frozen=True)
class BotInfo:
    """One bot of the menu. ``strength`` (and its 95% interval ``strength_lo`` ..
    ``strength_hi``) is net levels per hand over ``expert-v1``; ``hands_per_s`` is hands per
    second of CPU on one core, the bot at all four seats; each None when the frontier has not
    measured the bot."""

    name: str  # the name to give (a bot name wherever one goes)
    plays_as: str  # what it resolves to: what run.json and the `bots` column record
    how: str  # how it plays, in a line
    strength: float | None
    strength_lo: float | None
    strength_hi: float | None
    hands_per_s: float | None
    use: str  # what to use it for


# name, what it resolves to, the `bot` of its frontier point (None: not on the frontier), what
# to use it for, how it plays (docs/bots.md, "The bots" and each search's section)
_MENU = (
    (
        "random",
        "random",
        "random",
        "a baseline (chance play); tests",
        "Uniformly random legal leads and follows, random calls, a random burial.",
    ),
    (
        "basic",
        "basic-v1",
        "basic-v1",
        "a baseline (casual play); tests",
        "basic-v1, a casual player: leads sure winners, wins cheaply, feeds its partner; no "
        "memory of the cards played.",
    ),
    (
        "expert",
        "expert-v4",
        "expert-v4",
        "studies at scale",
        "expert-v4: basic plus memory of every card seen; counts voids, keeps the lead, weighs "
        "throw risks against the penalty.",
    ),
    (
        "learned-v1",
        "learned-v1",
        "learned-v1",
        "learned play at scale",
        "expert-v4 with a small neural network (MLP) choosing among the search's candidate plays.",
    ),
    (
        "search",
        "search:k=32,cands=8,base=expert-v3",
        "search:k=32",
        "reproducing the published search figures",
        "Monte Carlo: plays 8 candidates out with expert-v3 over 32 consistent worlds (frozen on "
        "expert-v3, as published).",
    ),
    (
        "search-v2",
        "search-v2:k=32,cands=8,base=expert-v3",
        "search-v2",
        "reproducing its published figures",
        "search racing its candidates over common consistent worlds, dropping the ones behind "
        "early.",
    ),
    (
        "search-v3",
        "search-v3:k=64,cands=8,base=expert-v3,close=20,late=10,early=5,top=3,bury=0",
        "search-v3",
        "search-level figures",
        "search guided by learned-v1's model: it races only the contested decisions, over up to "
        "64 worlds.",
    ),
    (
        "search-v4",
        "search-v3:k=1024,cands=8,base=expert-v3,close=31,late=10,early=0,top=7,bury=0,"
        "infer=10,kitty=5,belief=1,cards=1,chains=4",
        "search-v3:k=1024,close=31,early=0,top=7,infer=10,kitty=5,belief=1,cards=1,chains=4",
        "the strongest play we have",
        "search-v3 racing most decisions over up to 1,024 worlds weighed by the play, the burial "
        "and two learned beliefs.",
    ),
)


def frontier_points() -> list[dict]:
    """The stored frontier: one dict per measured bot (``bot``, ``hands_per_s``, ``deals``,
    ``net``, ``net_lo``, ``net_hi``, ...), as analysis/frontier.py wrote it."""
    path = files("fastsheng.bots") / FRONTIER
    try:
        points = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise FastshengError(
            f"cannot read the stored frontier {path}: {e}; reinstall fastsheng"
        ) from None
    if not isinstance(points, list) or not all(
        isinstance(p, dict) and _FIELDS <= p.keys() for p in points
    ):
        raise FastshengError(
            f"the stored frontier {path} is not a list of points with {', '.join(sorted(_FIELDS))}"
            "; reinstall fastsheng"
        )
    return points


def list_bots() -> tuple[BotInfo, ...]:
    """Every public bot (``expert``, not its frozen older versions): what it is for, how it
    plays, its strength over ``expert-v1`` and its hands/s from the stored frontier (None where
    it has no point there)."""
    points = {p["bot"]: p for p in frontier_points()}
    out = []
    for name, plays_as, key, use, how in _MENU:
        # its own name first: a frontier measured again may list it by its short name
        p = (points.get(name) or points.get(key)) if key else None
        net = (p["net"], p["net_lo"], p["net_hi"]) if p else (None, None, None)
        speed = p["hands_per_s"] if p else None
        out.append(BotInfo(name, plays_as, how, *net, speed, use))
    return tuple(out)


def format_strength(info: BotInfo) -> str:
    """``+0.136 [+0.127, +0.144]``, or that the frontier has not measured it."""
    if info.strength is None:
        return NOT_MEASURED
    return f"{info.strength:+.3f} [{info.strength_lo:+.3f}, {info.strength_hi:+.3f}]"


def format_speed(info: BotInfo) -> str:
    """Hands/s as analysis/frontier.py prints them: whole numbers from 10 up, two digits below
    (the slowest searches play about one hand a second); a dash when not measured."""
    if info.hands_per_s is None:
        return "-"
    v = info.hands_per_s
    return f"{v:,.0f}" if v >= 10 else f"{v:.2g}"
