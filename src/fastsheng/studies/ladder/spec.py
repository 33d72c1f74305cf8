"""A ladder's spec: the bots (names that resolve to one bot rated once), the deals, the
seed, the rules, and the --max-deals caps of slow bots."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from fastsheng.errors import FastshengError

__all__ = ["LadderError", "LadderSpec", "bot_label", "resolve_bot_name"]


class LadderError(FastshengError):
    """A ladder that cannot be played or read back as asked."""


def resolve_bot_name(name: str) -> str:
    """The name a bot plays as (``"expert"`` -> its current version); ValueError if unknown."""
    from fastsheng.bots.names import resolve_bot

    return resolve_bot(name)


def bot_label(bot: Any) -> str:
    """The name a bot is shown and filed under: a name as given; a bot class or object by its
    ``module:Class`` (or its ``name`` attribute, when it has one)."""
    if isinstance(bot, str):  # a name, or a BotRef whose text is its module:Class
        return str(bot).strip()
    name = getattr(bot, "name", None)
    if isinstance(name, str) and name:
        return name
    cls = bot if isinstance(bot, type) else type(bot)
    return f"{cls.__module__}:{cls.__qualname__}"


def _resolved_label(bot: Any) -> str:
    resolved = resolve_bot_name(bot)
    return resolved if isinstance(resolved, str) else bot_label(resolved)


def _names(key: str, bot: str) -> bool:
    """Whether a --max-deals key names a listed bot: the same name, or its base name (a
    built-in's name in any case; a module path exactly)."""
    from fastsheng.bots.names import is_python_bot

    if key == bot or key == bot.partition(":")[0]:
        return True
    if is_python_bot(bot):
        return False
    return key.lower() in (bot.lower(), bot.partition(":")[0].lower())


@dataclass(frozen=True)
class LadderSpec:
    """Everything a ladder's figures depend on (with the bots' code)."""

    bots: tuple[str, ...]
    n: int
    seed: int
    rules: Any  # fastsheng.rules.Rules
    level: str = "2"
    batch_size: int = 10_000
    # (bot, deals): the pairs of a slow bot play only the first `deals` of the n deals; the bot
    # is named as listed, or by its base name before ":" (`search` caps `search:k=8` too)
    max_deals: tuple[tuple[str, int], ...] = ()

    # (name, the listed name it was merged into): names that resolve to one bot, rated once
    merged: tuple[tuple[str, str], ...] = ()
    # every Python bot in a process of its own, in every pair (fastsheng.engine.isolation). None:
    # when the listed Python bots come from two or more authors (a ladder rates them against
    # each other: in process each could read the others' cards), or when bot_limits are given
    isolate: bool | None = None
    bot_limits: Any = None  # an isolated bot's limits (fastsheng.engine.isolation.BotLimits)

    def __post_init__(self) -> None:
        # plain names trimmed; a bot object, class or BotRef (a str carrying one) as given
        bots = tuple(b.strip() if type(b) is str else b for b in self.bots)
        labels = [bot_label(b) for b in bots]
        dup = sorted({b for b in labels if labels.count(b) > 1})
        if dup:
            raise LadderError(f"bot {dup[0]!r} is listed twice")
        kept: list[Any] = []
        merged = list(self.merged)
        first: dict[str, str] = {}  # resolved bot -> the first name it was listed under
        for b, label in zip(bots, labels, strict=True):
            resolved = _resolved_label(b)  # raises ValueError naming the known bots
            if resolved in first:
                merged.append((label, first[resolved]))
                continue
            first[resolved] = label
            kept.append(b)
        if len(kept) < 2:
            what = f"{len(kept)}" + (" (the names given are one bot)" if merged else "")
            raise LadderError(f"a ladder needs at least two bots, not {what}")
        into = dict(merged)
        listed = [bot_label(b) for b in kept]
        caps = []
        for b, k in self.max_deals:
            b, k = b.strip(), int(k)
            b = into.get(b, b)
            if not any(_names(b, x) for x in listed):
                raise LadderError(f"--max-deals names {b!r}, which is not in --bots")
            if k < 1:
                raise LadderError(f"--max-deals {b}={k}: need at least 1 deal")
            caps.append((b, k))
        object.__setattr__(self, "bots", tuple(kept))
        object.__setattr__(self, "max_deals", tuple(caps))
        object.__setattr__(self, "merged", tuple(merged))
        from fastsheng.sim.spec import isolation_of

        try:
            isolate, limits = isolation_of(kept, self.isolate, self.bot_limits)
        except ValueError as exc:
            raise LadderError(str(exc)) from None
        object.__setattr__(self, "isolate", isolate)
        object.__setattr__(self, "bot_limits", limits)

    @property
    def labels(self) -> tuple[str, ...]:
        """The bots' names as shown (in the order listed)."""
        return tuple(bot_label(b) for b in self.bots)

    def deals(self, x: Any, y: Any) -> int:
        """Deals the pair (x, y) plays: n, or fewer for a bot with a cap (the first ones)."""
        x, y = bot_label(x), bot_label(y)
        return min([self.n, *(k for b, k in self.max_deals if _names(b, x) or _names(b, y))])

    @property
    def pairs(self) -> list[tuple[Any, Any]]:
        """Every unordered pair of bots (as given), in the order the bots are listed."""
        return list(itertools.combinations(self.bots, 2))

    def run_spec(self, team0: Any, team1: Any):
        """The run with ``team0`` at seats 0/2 and ``team1`` at seats 1/3."""
        from fastsheng.sim.runner import RunSpec

        return RunSpec(
            rules=self.rules,
            bots=(team0, team1, team0, team1),
            seed=self.seed,
            n=self.deals(team0, team1),
            batch_size=self.batch_size,
            level=self.level,
            isolate=self.isolate,
            bot_limits=self.bot_limits,
        )

    def config(self) -> dict[str, Any]:
        return {
            "bots": list(self.labels),
            "resolved": [_resolved_label(b) for b in self.bots],
            "merged": {name: into for name, into in self.merged},
            "n": self.n,
            "seed": self.seed,
            "rules_name": self.rules.name,
            "rules": self.rules.to_dict(),
            "level": self.level,
            "batch_size": self.batch_size,
            "max_deals": dict(self.max_deals),
            "isolate": self.isolate,
            **({"bot_limits": self.bot_limits.to_dict()} if self.bot_limits else {}),
        }
