"""A run's identity: :class:`RunSpec` (everything its data depends on), from the CLI's options or
a run.json, and the checks of a bot line-up every entry point shares."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fastsheng.bots.names import is_python_bot, resolve_bots
from fastsheng.cards import parse_level
from fastsheng.engine.isolation import BotLimits, mixed_authors
from fastsheng.sim.limits import check_size, n_batches

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "MODES",
    "PYTHON_BATCH_SIZE",
    "RunSpec",
    "check_bots",
    "check_portable",
    "check_python_bots",
    "default_batch_size",
    "known_bots",
    "isolation_of",
    "lineup_label",
    "lineup_names",
]

MODES = ("hands", "matches")
#: Default batch size per mode (hands per batch, matches per batch): part of a run's identity,
#: so it never depends on the machine or the number of workers.
DEFAULT_BATCH_SIZE = {"hands": 10_000, "matches": 500}
#: The default when a seat runs Python code (about 700 hands/s against 50,000 for the C bots):
#: smaller batches, so that a run of 1e4 hands still spreads over every worker. Chosen from the
#: line-up alone, never from timing, since the batch size is part of the run's identity.
PYTHON_BATCH_SIZE = {"hands": 1_000, "matches": 50}


def default_batch_size(bots: Any, mode: str = "hands") -> int:
    """The batch size a run of this line-up gets when none is given: DEFAULT_BATCH_SIZE, or
    PYTHON_BATCH_SIZE when any seat is a Python bot (``module:Class``, ``py-random``, an
    object)."""
    from fastsheng.bots.names import is_python_bot

    python = any(is_python_bot(b) for b in resolve_bots(bots))
    return (PYTHON_BATCH_SIZE if python else DEFAULT_BATCH_SIZE)[mode]


def known_bots() -> tuple[str, ...]:
    """The bot names a user may give (fastsheng.bots.names.BOTS)."""
    from fastsheng.bots.names import BOTS

    return tuple(BOTS)


def check_bots(
    bots: Any, *, isolate: bool = False, imports: bool = True
) -> tuple[str, str, str, str]:
    """The one place a bot line-up is validated (the CLI, RunSpec and compare all call it):
    one bot, two (the teams: seats 0/2, 1/3) or four, each a known name or a bot object or
    class, returned as the four versions they play (fastsheng.bots.names.resolve_bots:
    ``expert`` -> ``expert-v4``). ValueError naming the bad one. With `imports`, each Python
    bot is also made now (check_python_bots: in this process, or with `isolate` in a bot
    process of its own); a caller that does not know yet whether the bots will be isolated
    passes ``imports=False`` and leaves that to RunSpec."""
    # the versioned names are what the data depends on (run.json records them)
    resolved = resolve_bots(bots)
    if imports:
        check_python_bots(resolved, isolate=isolate)
    check_models(resolved)
    return resolved


def check_models(names: Iterable[str]) -> None:
    """Load the models the C bots of a line-up read, here, before any batch: a damaged or
    missing model file is one ValueError naming it (fastsheng.bots.lineup checks each file's
    SHA-256), not a traceback in every worker."""
    from fastsheng.bots.lineup import make_lineup
    from fastsheng.bots.spec import HeuristicSpec, bot_spec

    specs = [HeuristicSpec("expert-v1") if is_python_bot(n) else bot_spec(n) for n in names]
    make_lineup(specs)


def isolation_of(
    bots: Iterable[Any], isolate: bool | None, limits: BotLimits | None, mode: str = "hands"
) -> tuple[bool, BotLimits | None]:
    """Whether a run of these bots (every line-up of a study) isolates its Python bots, and
    with which limits: as asked; by default when the Python bots come from two or more authors
    or limits are given (they hold for isolated bots only). Never without a Python seat (then
    no limits). ValueError for limits with ``isolate=False``, or a forfeit in matches mode."""
    bots = list(bots)
    if limits is not None and not isinstance(limits, BotLimits):
        raise ValueError(f"bot limits must be a BotLimits, not {limits!r}")
    if not any(is_python_bot(b) for b in bots):
        return False, None
    if isolate is None:
        isolate = limits is not None or mixed_authors(bots)
    if not isolate:
        if limits is not None:
            raise ValueError(
                "--bot-timeout, --bot-memory and --on-bot-error hold for isolated bots only, and "
                "these bots play in this process (--no-isolate, or a run made so)"
            )
        return False, None
    limits = limits or BotLimits()
    limits.error_mode(mode)
    return True, limits


def lineup_names(b: Any) -> tuple[str, str, str, str]:
    """A line-up (1 bot, 2 = team 0, team 1, or 4; names, a comma-separated string, or bot
    objects) as the four versioned names it plays."""
    return check_bots(("expert",) if b is None else b, imports=False)


def lineup_label(b: Any) -> str:
    """``expert`` -> ``expert-v4``; ``expert,basic`` -> ``expert-v4,basic-v1``: the label of a
    line-up names the versions that played."""
    names = lineup_names(b)
    if len(set(names)) == 1:
        return names[0]
    if names[0] == names[2] and names[1] == names[3]:
        return f"{names[0]},{names[1]}"
    return ",".join(names)


def check_python_bots(names: Iterable[str], *, isolate: bool = False, limits: Any = None) -> None:
    """Make every Python bot (module.path:Class, a bot object) now, so a typo fails before any
    work: in this process (the current folder is importable, and the workers inherit sys.path,
    as for `python -m`), or with `isolate` in a bot process of its own, so that the bot's
    module never runs where the game will be (fastsheng.engine.isolation.probe_bot; `limits`:
    its BotLimits)."""
    from fastsheng.bots.names import PY_RANDOM, BotRef, is_python_bot

    todo = [n for n in names if is_python_bot(n) and n != PY_RANDOM]
    if not todo:
        return
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    if isolate:
        from fastsheng.engine.isolation import probe_bot
        from fastsheng.engine.plan import check_isolable

        check_isolable(todo)
        for name in dict.fromkeys(todo):
            probe_bot(name, limits)
        return
    from fastsheng.engine.agents import load_bot

    for name in todo:  # (bot objects of one class share a name: check each)
        name.make() if isinstance(name, BotRef) else load_bot(name)


def check_portable(bots: Iterable[str], *, dask: bool = False) -> None:
    """ValueError in one line when a bot object cannot reach a worker process (it does not
    pickle, or its class lives in an interactive session, which a spawned worker cannot import;
    Dask pickles such classes by value): workers=0 plays it in process."""
    from fastsheng.bots.names import BotRef

    for name in bots:
        problem = name.worker_problem(dask=dask) if isinstance(name, BotRef) else None
        if problem:
            raise ValueError(
                f"bot {name} cannot be sent to worker processes: {problem}; run it in this "
                "process (workers=0, --workers 0) or put it in a module and name it module:Class"
            )


@dataclass(frozen=True)
class RunSpec:
    """Everything a run's data depends on. ``rules`` is a :class:`fastsheng.rules.Rules`."""

    rules: Any
    bots: tuple[str, str, str, str]
    seed: int
    n: int
    batch_size: int
    mode: str = "hands"
    level: str = "2"
    tricks: bool = False
    # how the bots' random stream is seeded: "hand" (each hand its own; fastsheng 0.2 on) or
    # "batch" (runs made before, whose run.json has no such field): only random bots draw
    bot_stream: str = "hand"
    # each Python bot in a process of its own (fastsheng.engine.isolation). None: when the
    # Python bots come from two or more authors (mixed_authors), or when bot_limits are given;
    # always False without a Python seat. Part of the data: an isolated bot's random stream is
    # seeded from the batch and seat alone, and its failure can forfeit a hand
    isolate: bool | None = None
    bot_limits: BotLimits | None = None  # an isolated run's limits (None: the defaults)

    def __post_init__(self):
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"n must be a positive whole number, not {self.n!r}")
        if (
            isinstance(self.batch_size, bool)
            or not isinstance(self.batch_size, int)
            or self.batch_size < 1
        ):
            raise ValueError(f"batch size must be a positive whole number, not {self.batch_size!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a whole number >= 0, not {self.seed!r}")
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; expected one of {', '.join(MODES)}")
        object.__setattr__(self, "level", parse_level(self.level))
        check_size(self.n, self.batch_size, self.mode)
        if self.bot_stream not in ("hand", "batch"):
            raise ValueError(f"bot_stream must be 'hand' or 'batch', not {self.bot_stream!r}")
        bots = check_bots(self.bots, imports=False)
        object.__setattr__(self, "bots", bots)
        isolate, limits = isolation_of(bots, self.isolate, self.bot_limits, self.mode)
        object.__setattr__(self, "isolate", isolate)
        object.__setattr__(self, "bot_limits", limits)
        check_python_bots(bots, isolate=isolate, limits=limits)

    @property
    def n_batches(self) -> int:
        return n_batches(self.n, self.batch_size)

    def batch_rows(self, batch: int) -> int:
        """Hands (matches) in batch ``batch``: ``batch_size``, less for a truncated last one."""
        if not 0 <= batch < self.n_batches:
            raise IndexError(f"batch {batch} out of range 0..{self.n_batches - 1}")
        return min(self.batch_size, self.n - batch * self.batch_size)

    @property
    def tables(self) -> tuple[str, ...]:
        names = ["hands"]
        if self.mode == "matches":
            names.append("matches")
        if self.tricks:
            names.append("tricks")
        return tuple(names)

    @property
    def rules_name(self) -> str:
        return getattr(self.rules, "name", "custom")

    def config(self) -> dict[str, Any]:
        """The manifest's description of the run (everything the data depends on)."""
        return {
            "rules_name": self.rules_name,
            "rules": self.rules.to_dict(),
            "bots": list(self.bots),
            "seed": self.seed,
            "n": self.n,
            "batch_size": self.batch_size,
            "n_batches": self.n_batches,
            "mode": self.mode,
            "level": self.level,
            "tricks": self.tricks,
            "tables": list(self.tables),
            "bot_stream": self.bot_stream,
            "isolate": self.isolate,
            **({"bot_limits": self.bot_limits.to_dict()} if self.bot_limits else {}),
        }

    def disagreements(self, manifest: Mapping[str, Any]) -> list[str]:
        """``["seed 3 (run.json: 5)", ...]``: where this spec and a manifest differ."""
        mine = self.config()
        out = []
        # runs made before 0.2 (bot_stream) and before the isolated mode (isolate)
        theirs_all = {"bot_stream": "batch", "isolate": False, **manifest}
        for key in (
            "rules_name",
            "bots",
            "seed",
            "n",
            "batch_size",
            "mode",
            "level",
            "tricks",
            "bot_stream",
            "isolate",
        ):
            if theirs_all.get(key) != mine[key]:
                out.append(f"{key} {_show(mine[key])} (run.json: {_show(theirs_all.get(key))})")
        if manifest.get("rules") != mine["rules"]:
            theirs = manifest.get("rules") or {}
            fields = sorted(
                k for k in set(theirs) | set(mine["rules"]) if theirs.get(k) != mine["rules"].get(k)
            )
            out.append(
                "rules switches " + ", ".join(fields[:5]) + (" ..." if len(fields) > 5 else "")
            )
        return out

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> RunSpec:
        """The spec a run.json records; ValueError when a field is missing (not a run)."""
        return cls(**_fields_of_manifest(manifest))

    @classmethod
    def from_options(
        cls,
        *,
        n: int | None = None,
        rules: Any = None,
        bots: Any = None,
        seed: int | None = None,
        mode: str | None = None,
        level: str | None = None,
        tricks: bool = False,
        batch_size: int | None = None,
        base: Mapping[str, Any] | None = None,
        isolate: bool | None = None,
        bot_limits: BotLimits | None = None,
    ) -> RunSpec:
        """The spec of ``fastsheng sim``'s options: those given (None: not given) over the run
        ``base`` (a run.json being resumed), over the defaults (standard rules, expert bots,
        level 2, the line-up's batch size, a seed drawn at random, isolated bots by the line-up's
        authors). ValueError naming the option for a mistake."""
        given: dict[str, Any] = {
            k: v
            for k, v in (("n", n), ("bots", bots), ("seed", seed), ("batch_size", batch_size))
            if v is not None
        }
        if rules is not None:
            from fastsheng.rules import rules_from_spec

            given["rules"] = rules_from_spec(rules) if isinstance(rules, str) else rules
        if mode is not None:
            if mode not in MODES:
                raise ValueError(f"unknown --mode {mode!r}; modes: {', '.join(MODES)}")
            given["mode"] = mode
        if level is not None:
            given["level"] = parse_level(level, "--level")
        if tricks:
            given["tricks"] = True
        if isolate is not None:
            given["isolate"] = isolate
        if bot_limits is not None:
            given["bot_limits"] = bot_limits
        kw = {**(_fields_of_manifest(base) if base is not None else {}), **given}
        if "n" not in kw:
            raise ValueError("missing -n: how many hands to play, e.g. -n 1e6")
        kw.setdefault("mode", "hands")
        if kw["mode"] == "matches" and given.get("level", "2") != "2":
            raise ValueError(
                "--level applies to --mode hands (matches start at the rules' start rank)"
            )
        if "rules" not in kw:
            from fastsheng.rules import get_rules

            kw["rules"] = get_rules("standard")
        kw.setdefault("bots", ("expert",) * 4)
        if "batch_size" not in kw:  # smaller for Python bots (a rule of the line-up)
            kw["batch_size"] = default_batch_size(kw["bots"], kw["mode"])
        if "seed" not in kw:  # drawn, then printed and recorded: the run stays reproducible
            import secrets

            kw["seed"] = secrets.randbelow(2**32)
        return cls(**kw)


def _fields_of_manifest(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """RunSpec's fields as run.json records them."""
    from fastsheng.rules import Rules

    try:
        return {
            "rules": Rules.from_dict(manifest["rules"]),
            "bots": tuple(manifest["bots"]),
            "seed": manifest["seed"],
            "n": manifest["n"],
            "batch_size": manifest["batch_size"],
            "mode": manifest["mode"],
            "level": manifest["level"],
            "tricks": manifest["tricks"],
            # runs made before fastsheng 0.2 drew random bots from one stream per batch
            "bot_stream": manifest.get("bot_stream", "batch"),
            # runs made before the isolated mode played every bot in process
            "isolate": manifest.get("isolate", False),
            "bot_limits": (
                BotLimits.from_dict(manifest["bot_limits"]) if manifest.get("bot_limits") else None
            ),
        }
    except (KeyError, TypeError) as exc:
        raise ValueError(f"run.json lacks the field {exc}; is it a fastsheng run?") from None


def _show(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)
