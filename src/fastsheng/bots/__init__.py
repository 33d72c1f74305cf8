"""The bots: which one to pick for what (:func:`list_bots`, ``fastsheng bots``)."""

from fastsheng.bots.menu import BotInfo, list_bots

__all__ = ["BotInfo", "list_bots"]
