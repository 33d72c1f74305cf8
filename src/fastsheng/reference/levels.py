"""Levels and the match in plain Python, straight from docs/rules.md §10–§11.

* ``level_outcome(rules, total)``: the result of one hand from the defenders' total.
* ``hand_levels(rules, total, overcalls)``: the same with ``overcall_bonus = "level"`` applied.
* ``advance(rank, n, rules, won=0, dealer=False)``: a team's new rank after gaining n levels,
  honouring ``end_rank`` and ``must_play``; ``won`` is the team's bitmask of must-play ranks it
  has already won as the dealer side (bit r for rank index r). The whole-match simulator mirrors
  this signature with ints (rank index 0..12, the mask, 0/1).
* ``match_won``, ``next_dealer``, ``cap_winner``: the rest of §11.

Ranks are indices 0..12 (``"2"`` = 0, ``"A"`` = 12) as in ``fastsheng.cards``.
"""

from __future__ import annotations

from fastsheng.cards import RANKS, level_index
from fastsheng.tables import LEVEL_TABLES, check_level_table, level_table_data

__all__ = [
    "LEVEL_THRESHOLDS",
    "level_outcome",
    "hand_levels",
    "advance",
    "match_won",
    "next_dealer",
    "cap_winner",
]

# The tables are data (fastsheng.tables): rows (lowest total, side, levels), lowest totals
# increasing from 0; a total falls in the last row it reaches; past the last row the defenders
# gain one more level per `step` points (0: no more). A named table is looked up by name.


def _rows(rules: object) -> tuple[tuple[tuple[int, str, int], ...], int]:
    table = level_table_data(check_level_table(rules.level_table))  # any form
    return table.bands, table.step


LEVEL_THRESHOLDS: dict[str, tuple[int, ...]] = {
    name: tuple(row[0] for row in table.bands) for name, table in LEVEL_TABLES.items()
}
"""The lowest total of every row of each named table (for tests and docs)."""


def level_outcome(rules: object, total: int) -> tuple[str, int]:
    """``("dealer", n)`` or ``("defenders", n)`` for the defenders' total (docs/rules.md §11).

    ``("defenders", 0)``: the defenders only take over the deal. ``defender_cap`` limits n for
    the defenders. ``total`` is an int >= 0 (ValueError otherwise).
    """
    if isinstance(total, bool) or not isinstance(total, int):
        raise ValueError(f"the defenders' total must be an int, not {total!r}")
    if total < 0:
        raise ValueError(f"the defenders' total cannot be negative: {total}")
    rows, step = _rows(rules)
    low, side, n = max((row for row in rows if row[0] <= total), key=lambda row: row[0])
    if step and low == rows[-1][0]:
        n += (total - low) // step
    cap = rules.defender_cap
    if side == "defenders" and cap is not None and n > cap:
        n = cap
    return side, n


def hand_levels(rules: object, total: int, overcalls: int = 0) -> tuple[str, int]:
    """``level_outcome`` plus the overcall bonus: with ``overcall_bonus = "level"`` every overcall
    of the hand adds one level to the side the outcome names (the defenders too when they only
    take over: reading of 对局 "每反一次升一级"); ``defender_cap`` still limits the defenders."""
    side, n = level_outcome(rules, total)
    if overcalls < 0:
        raise ValueError(f"overcalls cannot be negative: {overcalls}")
    if rules.overcall_bonus == "level":
        n += overcalls
        cap = rules.defender_cap
        if side == "defenders" and cap is not None and n > cap:
            n = cap
    return side, n


def _rank(rank: int | str) -> int:
    return level_index(rank, "rank")


def _mask(rules: object) -> int:
    return sum(1 << RANKS.index(r) for r in rules.must_play)


def advance(
    rank: int, n: int, rules: object, won: int = 0, dealer: bool = False
) -> tuple[int, int]:
    """A team at rank index ``rank`` gains ``n`` >= 0 levels: ``(new_rank, new_won)``.

    ``won``: bitmask of the must-play ranks the team has won as the dealer side. ``dealer``:
    the team gains as the dealer side that just won a hand at ``rank`` (so ``rank`` is won now).
    The team never goes past ``end_rank``, nor past (or away from) a must-play rank it has not
    won: it stops on the first such rank in ``rank .. rank + n``. ``n = 0`` keeps the rank.
    """
    rank = _rank(rank)
    if n < 0:
        raise ValueError(f"levels gained cannot be negative: {n}")
    must = _mask(rules)
    if dealer:
        won |= (1 << rank) & must
    target = min(rank + n, RANKS.index(rules.end_rank))
    if target < rank:  # a team above end_rank (only when rules changed mid-match) stays
        target = rank
    for r in range(rank, target):
        if must >> r & 1 and not won >> r & 1:
            target = r
            break
    return target, won


def match_won(rules: object, rank: int, side: str) -> bool:
    """Does a team at rank index ``rank`` win the match with this hand's outcome ``side``?

    It must be the dealer side (the team dealt at ``rank``) and win the hand
    (``side == "dealer"``) at ``end_rank`` (docs/rules.md §11)."""
    return side == "dealer" and _rank(rank) >= RANKS.index(rules.end_rank)


def next_dealer(dealer: int, side: str) -> int:
    """The next hand's dealer seat: the dealer's partner when the dealer side advanced, else the
    dealer's next seat in play order."""
    return (dealer + 2) % 4 if side == "dealer" else (dealer + 1) % 4


def cap_winner(rules: object, ranks: tuple[int, int], dealer_team: int) -> int | None:
    """The winning team (0 or 1) when ``hand_cap`` ends the match: the higher rank; equal ranks
    go to the dealer side's team (``cap_tie = "dealer"``) or are a draw (None)."""
    a, b = _rank(ranks[0]), _rank(ranks[1])
    if a != b:
        return 0 if a > b else 1
    return dealer_team if rules.cap_tie == "dealer" else None
