"""The bots: their names, their typed specifications, the menu and the C code that plays them.

A bot is named (``expert``, ``learned-v1``, ``search-v4``, ...): :func:`resolve_bot` turns a name
into the versioned name it plays as, :func:`bot_spec` into its typed specification (one frozen
dataclass per family), and :func:`list_bots` says which bot to use for what.
"""

from fastsheng.bots.menu import BotInfo, list_bots
from fastsheng.bots.names import (
    ALIASES,
    BOTS,
    BotRef,
    is_python_bot,
    resolve_bot,
    resolve_bots,
    split_bots,
)
from fastsheng.bots.spec import (
    BotSpec,
    GuidedSearchSpec,
    HeuristicSpec,
    LearnedSpec,
    SearchSpec,
    SearchV2Spec,
    bot_spec,
)

__all__ = [
    "ALIASES",
    "BOTS",
    "BotInfo",
    "BotRef",
    "BotSpec",
    "GuidedSearchSpec",
    "HeuristicSpec",
    "LearnedSpec",
    "SearchSpec",
    "SearchV2Spec",
    "bot_spec",
    "is_python_bot",
    "list_bots",
    "resolve_bot",
    "resolve_bots",
    "split_bots",
]
