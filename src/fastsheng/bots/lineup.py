"""Line-ups: four bot specifications made into what the C loop plays (fastsheng.bots._lineup).

:func:`make_lineup` loads the models the seats read, each from the package's models folder with
its SHA-256 checked (a research file named by a spec's ``*_path`` setting is read as it is), and
hands the C loop a :class:`~fastsheng.bots._lineup.Lineup`: the table of bots, the seats' rows,
search settings and decisions. A shipped model is loaded once per process: it is read-only data
that no setting can change, so every line-up reading it plays alike.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib.resources import files

from fastsheng.bots._lineup import BeliefModel, CardModel, LearnedModel, Lineup
from fastsheng.bots._model_file import read_checked, read_unchecked
from fastsheng.bots.catalog import LEARNED_MODELS
from fastsheng.bots.spec import GUIDE, BotSpec, bot_spec

__all__ = ["Lineup", "lineup_for", "make_lineup"]

_BELIEF_KEYS = ("mu", "sd", "w1", "b1", "w2", "b2", "hi", "lo", "kind")
_CARD_KEYS = ("mu", "sd", "w1", "b1", "w2")
_LEARNED_KEYS = ("mu", "sd", "w1", "b1", "w2", "b2", "margin", "want")


def _package_file(name: str) -> str:
    return str(files("fastsheng.bots") / "models" / name)


@functools.cache
def _shipped(kind: type, file: str, sha256: str, keys: tuple[str, ...], what: str):
    return _model(kind, read_checked(_package_file(file), sha256, keys, what), file, what)


def _model(kind: type, arrays: dict, where: str, what: str):
    try:
        return kind(arrays)
    except (KeyError, ValueError) as e:
        raise ValueError(f"{what} {where}: {e}") from None


def _load(kind: type, source: tuple[str, str | None] | None, keys: tuple[str, ...], what: str):
    """A shipped model (file, SHA-256) or a research file (path, None); None for no model."""
    if source is None:
        return None
    where, sha256 = source
    if sha256 is not None:
        return _shipped(kind, where, sha256, keys, what)
    arrays = read_unchecked(where, keys, what)
    if what == "belief" and "kind" in arrays and int(arrays["kind"]) not in (1, 2):
        raise ValueError(f"belief {where}: kind {int(arrays['kind'])}, not 1 or 2")
    return _model(kind, arrays, where, what)


def make_lineup(specs: Sequence[BotSpec]) -> Lineup:
    """The C line-up of four specifications, seat 0 first."""
    if len(specs) != 4:
        raise ValueError(f"a line-up has four seats, not {len(specs)}")
    learned = None
    if any(s.needs_learned for s in specs):
        model = LEARNED_MODELS[GUIDE]
        learned = _shipped(LearnedModel, model.file, model.sha256, _LEARNED_KEYS, "model")
    return Lineup(
        [(s.row, s.core_fields()) for s in specs],
        learned,
        [_load(BeliefModel, s.belief_model(), _BELIEF_KEYS, "belief") for s in specs],
        [_load(CardModel, s.cards_model(), _CARD_KEYS, "card belief") for s in specs],
    )


def lineup_for(name: str) -> Lineup:
    """One C bot at all four seats (the step API's ``Game.bot_action``, analysis); a line-up is
    read-only, so one per name serves every game (a name reading a research file is made anew:
    the file may change)."""
    if "_path=" in name:
        return make_lineup([bot_spec(name)] * 4)
    return _lineup_for(name)


@functools.lru_cache(maxsize=256)
def _lineup_for(name: str) -> Lineup:
    return make_lineup([bot_spec(name)] * 4)
