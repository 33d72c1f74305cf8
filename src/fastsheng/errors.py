"""Exceptions of the public API."""

__all__ = ["BotError", "FastshengError", "IllegalPlay", "RulesError"]


class FastshengError(Exception):
    """Base class of every error fastsheng raises on purpose."""


class IllegalPlay(FastshengError, ValueError):
    """A lead or follow that the rules do not allow (e.g. a lead spanning two effective suits)."""


class RulesError(FastshengError, ValueError):
    """A rules configuration, preset name or rules file that is not valid; the message names
    the field (and, for files, the line)."""


class BotError(FastshengError):
    """A Python bot raised or made an illegal action; the message names the bot, its seat, the
    hand and the action."""
