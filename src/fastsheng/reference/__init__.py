"""Plain-Python reference implementation of the rules (docs/rules.md): the oracle the Cython
core is tested against. Clarity over speed."""

from fastsheng.reference.declare import (
    Call,
    available_shows,
    can_declare,
    describe_call,
    show_action,
    standing_call,
)
from fastsheng.reference.handflow import Hand, HandResult, Match, fallback_trump
from fastsheng.reference.levels import (
    advance,
    cap_winner,
    hand_levels,
    level_outcome,
    match_won,
    next_dealer,
)
from fastsheng.reference.tricks import TRUMP, Context, Shape, Unit

__all__ = ["TRUMP", "Context", "Shape", "Unit"]
__all__ += ["Call", "available_shows", "can_declare", "describe_call", "show_action"]
__all__ += ["standing_call", "Hand", "HandResult", "Match", "fallback_trump"]
__all__ += ["advance", "cap_winner", "hand_levels", "level_outcome", "match_won", "next_dealer"]
