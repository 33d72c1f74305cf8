"""The canonical tables: the simulator's hands/matches columns turned into the few stable names the
metrics use. :data:`HAND_COLUMNS` / :data:`MATCH_COLUMNS` are the one place that knows the
simulator's names (canonical name -> candidates, first present wins).

What each canonical hands column holds (a column is absent when the run did not record it):

* ``declarer``: the standing caller when the calls closed with the deal (before burial and any
  炒底); ``final_caller``: the seat whose call set the final trump (the last 炒底 overcaller,
  else the declarer; NaN when trump was not called);
  ``burier``: the seat that buried the final kitty (the dealer, or the last 炒底 overcaller).
* ``kitty_buried``: points in the final kitty, buried by ``burier``.
* ``level_change``: the raw level-table value (``levels``) for the winning side, before the end
  rank and must-play ranks; ``levels_climbed``: the levels that side actually climbs.
  ``signed_change`` / ``signed_climbed``: the same, + for the dealer side, - for the defenders.
* ``kitty_decides`` / ``kitty_flips_side`` (with the rules): whether the level outcome at
  ``max(0, total - kitty bonus)`` differs from the outcome at the total / in its winning side.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from fastsheng.cards import RANKS

__all__ = [
    "HAND_COLUMNS",
    "MATCH_COLUMNS",
    "RANK_ORDER",
    "LEAD_KIND_ORDER",
    "resolve_columns",
    "pick_column",
    "canonical_hands",
    "canonical_matches",
    "team_codes",
]

HAND_COLUMNS: dict[str, tuple[str, ...]] = {
    "hand_id": ("hand_id",),
    "match_id": ("match_id",),
    "hand_no": ("hand_no", "hand_index", "hand_in_match", "hand_number"),
    "level": ("level", "level_rank"),
    "dealer": ("dealer",),
    "declarer": ("declarer",),
    "final_caller": ("final_caller",),
    "burier": ("burier",),
    "trump": ("trump", "trump_suit"),
    "trump_source": ("trump_set", "trump_source", "trump_set_by", "trump_how", "trump_from"),
    "declarations": ("n_shows", "declarations", "n_declarations", "calls", "shows"),
    "overcalls": ("n_overcalls", "overcalls"),
    "chaodi": ("n_chaodi",),
    "kitty_points": ("kitty_points_dealt", "kitty_points", "kitty_dealt_points"),
    "kitty_buried": ("kitty_points_buried", "kitty_buried_points", "buried_points", "buried"),
    "trick_points": (
        "defender_trick_points",
        "defenders_trick_points",
        "trick_points",
        "defender_points",
        "defenders_points",
    ),
    "last_winner": ("last_trick_winner", "last_winner"),
    "last_lead_kind": ("last_lead_kind", "last_trick_lead_kind", "last_trick_kind"),
    "kitty_captured": ("kitty_captured", "kitty_capture", "defenders_took_kitty"),
    "kitty_multiplier": ("kitty_mult", "kitty_multiplier", "multiplier"),
    "kitty_bonus": ("kitty_bonus", "bonus"),
    "throws": ("throws", "n_throws"),
    "failed_throws": ("failed_throws", "n_failed_throws", "throws_failed"),
    "penalty": ("penalty", "throw_penalty", "penalties", "penalty_points"),
    "throw_risk": ("throw_risk",),  # failed throws the leading bots expected (0.3 on)
    "defenders_total": ("defenders_total", "defender_total"),
    "dealer_won": ("dealer_won", "dealer_side_won", "dealer_wins"),
    "winner": ("winner", "winning_side", "winner_side", "side_up", "advancing_side"),
    "level_change": ("levels", "level_change", "level_delta", "levels_up"),
    "levels_climbed": ("levels_climbed",),
    "next_dealer": ("next_dealer",),
    "defender_early_trump": ("defender_early_trump",),  # from the tricks table (load_run)
}

MATCH_COLUMNS: dict[str, tuple[str, ...]] = {
    "match_id": ("match_id",),
    "winner": ("winner", "winning_team", "winner_team"),
    "hands": ("hands", "hands_played", "n_hands"),
    "first_dealer": ("first_dealer",),
    "level_team0": ("level_team0", "final_level_0", "level_0", "final_level_team0"),
    "level_team1": ("level_team1", "final_level_1", "level_1", "final_level_team1"),
    "capped": ("capped",),
}

RANK_ORDER = RANKS  # the ranks low to high (fastsheng.cards)
LEAD_KIND_ORDER = ("single", "pair", "tractor", "throw")
_NO_TRUMP = ["NT", "N", "NONE", "NO TRUMP", "NO_TRUMP", "NOTRUMP", ""]


def pick_column(df: pd.DataFrame, candidates: Iterable[str]) -> str | None:
    for name in candidates:
        if name in df.columns:
            return name
    return None


def resolve_columns(df: pd.DataFrame, spec: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """canonical name -> the column of ``df`` that holds it (only those present)."""
    out = {}
    for canon, cands in spec.items():
        name = pick_column(df, cands)
        if name is not None:
            out[canon] = name
    return out


def _as_str(s: pd.Series) -> pd.Series:
    if isinstance(s.dtype, pd.CategoricalDtype):
        s = s.astype(object)
    return s.map(
        lambda v: None if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
    )


def _side_is_dealer(s: pd.Series) -> pd.Series:
    """A winner column -> True where the dealer side advanced: strings 'dealer'/'defenders', or
    the engine's code (0 = dealer side advances, 1 = defenders take over)."""
    if s.dtype == bool:
        return ~s  # a boolean 'winner' column can only mean "the defenders won"
    if pd.api.types.is_numeric_dtype(s.dtype):
        return pd.Series(s.to_numpy() == 0)
    st = _as_str(s).str.lower()
    return st.str.startswith("dealer") | st.str.startswith("declarer") | st.eq("attack")


def _decode_codes(df: pd.DataFrame) -> None:
    """Engine integer codes -> the strings the tables show (level, trump, lead kind, source)."""
    if "level" in df:
        if pd.api.types.is_numeric_dtype(df["level"].dtype):  # 0..12 = 2..A
            df["level"] = [RANK_ORDER[int(v)] for v in df["level"]]
        df["level"] = _as_str(df["level"])
    if "trump" in df:
        t = df["trump"]
        if pd.api.types.is_numeric_dtype(t.dtype):  # 0..3 = S H C D, 4 = NT
            t = pd.Series(["SHCD"[int(v)] if 0 <= v < 4 else "NT" for v in t])
        t = _as_str(t)
        nt = t.str.upper().isin(_NO_TRUMP) | t.isna()
        df["trump"] = t.fillna("NT")
        df["trump_kind"] = np.where(nt, "no trump", "suit")
    if "last_lead_kind" in df and pd.api.types.is_numeric_dtype(df["last_lead_kind"].dtype):
        df["last_lead_kind"] = [
            LEAD_KIND_ORDER[int(v)] if 0 <= v < 4 else str(v) for v in df["last_lead_kind"]
        ]
    if "trump_source" in df and pd.api.types.is_numeric_dtype(df["trump_source"].dtype):
        names = ("declared", "overcall", "kitty", "none")
        df["trump_source"] = [names[int(v)] if 0 <= v < 4 else str(v) for v in df["trump_source"]]
    for c in ("trump_source", "last_lead_kind"):
        if c in df:
            df[c] = _as_str(df[c]).fillna("none")


def _add_outcome(df: pd.DataFrame) -> None:
    if "dealer_won" in df:
        df["dealer_won"] = df["dealer_won"].astype(bool)
    elif "winner" in df:
        df["dealer_won"] = _side_is_dealer(df["winner"]).to_numpy()
    elif "defenders_total" in df:
        df["dealer_won"] = df["defenders_total"].to_numpy() < 80
    if "dealer_won" not in df:
        return
    sign = np.where(df["dealer_won"], 1, -1)
    if "level_change" in df:
        lc = np.abs(df["level_change"].to_numpy().astype(int))
        side = np.where(df["dealer_won"], "dealer", "defenders")
        df["outcome"] = [
            f"{s} +{k}" if (s == "dealer" or k > 0) else "defenders take over"
            for s, k in zip(side, lc, strict=True)
        ]
        df["signed_change"] = sign * lc
    if "levels_climbed" in df:
        df["signed_climbed"] = sign * df["levels_climbed"].to_numpy().astype(int)


def seat_role(seat: pd.Series, dealer: pd.Series) -> np.ndarray:
    """A seat column (NaN/255 = nobody) -> its role relative to the dealer."""
    s = pd.to_numeric(seat, errors="coerce")
    has = (s.notna() & s.fillna(-1).between(0, 3)).to_numpy()
    rel = (s.fillna(-1).to_numpy().astype(int) - dealer.to_numpy().astype(int)) % 4
    role = np.full(len(s), "nobody", dtype=object)
    role[has & (rel == 0)] = "dealer"
    role[has & (rel == 2)] = "dealer's partner"
    role[has & (rel % 2 == 1)] = "defender"
    return role


def _add_kitty_decides(df: pd.DataFrame, rules: Any) -> None:
    outcome = _level_outcome_fn()
    if rules is None or outcome is None or not {"defenders_total", "kitty_bonus"} <= set(df):
        return
    total = df["defenders_total"].to_numpy().astype(int)
    without = np.maximum(0, total - df["kitty_bonus"].to_numpy().astype(int))
    cache: dict[int, tuple] = {}

    def oc(t: int) -> tuple:
        if t not in cache:
            cache[t] = tuple(outcome(rules, int(t)))
        return cache[t]

    with_b = [oc(t) for t in total]
    without_b = [oc(t) for t in without]
    df["kitty_decides"] = [a != b for a, b in zip(with_b, without_b, strict=True)]
    df["kitty_flips_side"] = [a[0] != b[0] for a, b in zip(with_b, without_b, strict=True)]


def canonical_hands(raw: pd.DataFrame, rules: Any = None) -> pd.DataFrame:
    """The hands table with canonical columns (see the module docstring) plus derived ones:
    ``trump_kind``, ``dealer_won``, ``outcome`` (e.g. 'dealer +2', from the level-table value),
    ``signed_change``, ``signed_climbed``, ``declarer_role``, ``final_caller_role``,
    ``burier_role`` and, with ``rules``, ``kitty_decides`` / ``kitty_flips_side``."""
    cols = resolve_columns(raw, HAND_COLUMNS)
    df = pd.DataFrame({canon: raw[name].to_numpy() for canon, name in cols.items()})
    if "hand_id" not in df:
        df["hand_id"] = np.arange(len(df))
    _decode_codes(df)
    if "kitty_captured" in df:
        df["kitty_captured"] = df["kitty_captured"].astype(bool)
    _add_outcome(df)
    if "dealer" in df:
        for seat in ("declarer", "final_caller", "burier"):
            if seat in df:
                df[f"{seat}_role"] = seat_role(df[seat], df["dealer"])
    if "kitty_bonus" not in df and {"kitty_captured", "kitty_multiplier", "kitty_buried"} <= set(
        df
    ):
        df["kitty_bonus"] = np.where(
            df["kitty_captured"], df["kitty_multiplier"] * df["kitty_buried"], 0
        )
    _add_kitty_decides(df, rules)
    return df


def canonical_matches(raw: pd.DataFrame) -> pd.DataFrame:
    cols = resolve_columns(raw, MATCH_COLUMNS)
    df = pd.DataFrame({canon: raw[name].to_numpy() for canon, name in cols.items()})
    if "match_id" not in df:
        df["match_id"] = np.arange(len(df))
    return df


def team_codes(s: pd.Series) -> pd.Series:
    """A match winner column -> 0 (seats 0/2), 1 (seats 1/3), anything else (draw) -> -1."""
    if pd.api.types.is_numeric_dtype(s.dtype):
        v = pd.to_numeric(s, errors="coerce").fillna(-1).astype(int)
    else:
        st = _as_str(s).fillna("").str.lower()
        v = pd.Series(np.where(st.str.contains("0"), 0, np.where(st.str.contains("1"), 1, -1)))
    return v.where(v.isin([0, 1]), -1).reset_index(drop=True)


def _level_outcome_fn() -> Callable | None:
    from fastsheng._core import level_outcome

    return level_outcome
