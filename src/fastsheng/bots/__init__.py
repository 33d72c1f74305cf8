"""The bots: their names, their typed specifications and the C code that plays them.

A bot is named (``expert``, ``learned-v1``, ``search-v4``, ...); :func:`resolve_bot` turns a name
into the versioned name it plays as, and :func:`bot_spec` into its typed specification.
"""

from fastsheng.bots.names import (
    ALIASES,
    BOTS,
    BotRef,
    is_python_bot,
    resolve_bot,
    resolve_bots,
    split_bots,
)

__all__ = ["ALIASES", "BOTS", "BotRef", "is_python_bot", "resolve_bot", "resolve_bots", "split_bots"]
