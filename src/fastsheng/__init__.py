"""fastsheng: a fast, faithful simulator of 双升 (Shengji / Tractor / 80分).

The flat public API. Rules are in docs/rules.md; the engine is a Cython core (``fastsheng._core``)
checked against a plain-Python reference (``fastsheng.reference``).
"""

from fastsheng._core import Context
from fastsheng._core import level_outcome as _core_level_outcome
from fastsheng._declare import can_declare
from fastsheng._version import __version__
from fastsheng.bots import list_bots
from fastsheng.cards import format_cards, parse_cards
from fastsheng.engine.agents import Bot, bot
from fastsheng.engine.game import Action, Game
from fastsheng.engine.hands import BOTS, format_trace, simulate_hands, simulate_matches, trace_hand
from fastsheng.engine.isolation import BotLimits
from fastsheng.engine.observation import Observation
from fastsheng.errors import BotError, FastshengError, IllegalPlay, RulesError
from fastsheng.rules import Rules, get_rules, list_presets, load_rules
from fastsheng.studies.evaluation import evaluate
from fastsheng.vec import VecEnv

__all__ = [
    "Action",
    "BOTS",
    "Bot",
    "BotError",
    "BotLimits",
    "Context",
    "FastshengError",
    "Game",
    "IllegalPlay",
    "Rules",
    "RulesError",
    "__version__",
    "bot",
    "can_declare",
    "evaluate",
    "format_cards",
    "format_trace",
    "get_rules",
    "level_outcome",
    "list_bots",
    "list_presets",
    "load_rules",
    "Observation",
    "parse_cards",
    "simulate_hands",
    "simulate_matches",
    "sweep",
    "trace_hand",
    "VecEnv",
]


def level_outcome(rules: Rules, defender_points: int) -> tuple[str, int]:
    """``("dealer", n)`` or ``("defenders", n)`` for the defenders' total; ``("defenders", 0)``
    means the defenders only take over the deal (docs/rules.md §11)."""
    if isinstance(defender_points, bool) or not isinstance(defender_points, int):
        raise TypeError(f"defender_points must be an int, not {type(defender_points).__name__}")
    return _core_level_outcome(rules, defender_points)


def sweep(*args, **kwargs):
    """A baseline and many rule variants (or line-ups) on the same deals, each compared with the
    baseline, paired, with intervals adjusted for the number of variants: see
    ``fastsheng.studies.sweep.sweep`` (imported on first use: it needs pandas and the
    report)."""
    from fastsheng.studies.sweep import sweep as _sweep

    return _sweep(*args, **kwargs)
