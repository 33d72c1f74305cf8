"""Declaring and overcalling in plain Python, straight from docs/rules.md §9.

``can_declare(rules, level, history, seat, cards, first_hand=False)``: may ``seat`` show
``cards`` now, given the earlier shows ``history`` (a list of ``(seat, cards)`` in order, each a
legal show)? ``standing_call(...)`` replays a history and returns the standing ``Call``.

A **show** is one of (L = the level rank; "+J" = with ``declare_needs_joker`` the joker of the
suit's colour, BJ for H/D and SJ for S/C, is shown with it):

* a single L card of suit s (+J);
* a pair of L cards of suit s (+J);
* a joker pair, SJ SJ or BJ BJ (no trump);
* with ``hand1_single_joker``, in hand 1, a single joker (no trump).

Cards are codes (``fastsheng.cards``) or card text (``"2H BJ"``). Cards that are no show (wrong
rank, mixed suits, a joker of the wrong colour, ...) give False, never an exception; text that is
not cards raises ValueError, and so does a history entry that is not a legal show.

Readings beyond §9 (docs/rules.md §12):

* the seat whose unreinforced single joker stands (hand 1, ``hand1_single_joker``) reinforces it
  with the pair of the same joker, as with a single L card;
* ``kitty_trump`` (trump set from the kitty, for 炒底): that call stands as an unreinforced single
  of no seat (no trump ranks below every suit in ``ordered``); with ``kitty_trump_final``
  nothing may be shown over it. Whether showing is allowed at all after the kitty
  (``overcall_after_burial``) is the caller's business.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from fastsheng.cards import BIG_JOKER, SMALL_JOKER, SUITS, level_index, parse_cards

__all__ = [
    "Call",
    "Show",
    "parse_show",
    "can_declare",
    "show_action",
    "standing_call",
    "describe_call",
    "available_shows",
    "show_cards",
]

SJ, BJ = 4, 5  # denominations of joker shows (0..3 are the suits)
KITTY_NT = 6  # denomination of no trump set from the kitty
_KIND_NAMES = {SJ: "sj", BJ: "bj"}


@dataclass(frozen=True)
class Show:
    """A show: ``kind`` "single" or "pair" of ``denom`` (0..3 the suit of L, 4 SJ, 5 BJ)."""

    kind: str
    denom: int

    @property
    def joker(self) -> bool:
        return self.denom in (SJ, BJ)


class Call(NamedTuple):
    """The standing call.

    seat: the caller (None: trump set from the kitty); trump: 0..3, or None for no trump;
    kind: "single", "pair" (of L cards), "sj_pair", "bj_pair", "sj", "bj" (single jokers) or
    "kitty"; reinforced: a single reinforced by its caller, or a pair that declared;
    overcalls: overcalls so far; first_seat: the first declarer (None: nobody declared).
    """

    seat: int | None
    trump: int | None
    kind: str
    reinforced: bool
    overcalls: int
    first_seat: int | None


def _joker_of(suit: int) -> int:
    """The joker of a suit's colour: SJ for the black suits S, C; BJ for the red H, D."""
    return SMALL_JOKER if suit in (0, 2) else BIG_JOKER


def _codes(cards: str | Iterable[int | str]) -> list[int] | None:
    """Card codes, None when some int is not a card code (ValueError for text that is no card)."""
    if isinstance(cards, str):
        return parse_cards(cards)
    out = []
    for c in cards:
        if isinstance(c, str):
            out.extend(parse_cards(c))
        elif isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 54:
            return None
        else:
            out.append(int(c))
    return out


def parse_show(
    rules: object, level: int | str, cards: str | Iterable[int | str], first_hand: bool = False
) -> Show | None:
    """The show that ``cards`` make, or None when they make none."""
    lv = level_index(level)
    codes = _codes(cards)
    if codes is None or not codes:
        return None
    jokers = sorted(c for c in codes if c >= SMALL_JOKER)
    plain = sorted(c for c in codes if c < SMALL_JOKER)
    if not plain:  # jokers only
        if len(jokers) == 2 and jokers[0] == jokers[1]:
            return Show("pair", SJ if jokers[0] == SMALL_JOKER else BJ)
        if len(jokers) == 1 and rules.hand1_single_joker and first_hand:
            return Show("single", SJ if jokers[0] == SMALL_JOKER else BJ)
        return None
    if len(plain) > 2 or len(set(plain)) != 1 or plain[0] % 13 != lv:
        return None
    suit = plain[0] // 13
    if rules.declare_needs_joker:
        if jokers != [_joker_of(suit)]:
            return None
    elif jokers:
        return None
    return Show("single" if len(plain) == 1 else "pair", suit)


def show_cards(rules: object, level: int | str, show: Show) -> list[int]:
    """The cards a show displays, sorted by code."""
    lv = level_index(level)
    if show.joker:
        code = SMALL_JOKER if show.denom == SJ else BIG_JOKER
        return [code] * (2 if show.kind == "pair" else 1)
    cards = [show.denom * 13 + lv] * (2 if show.kind == "pair" else 1)
    if rules.declare_needs_joker:
        cards.append(_joker_of(show.denom))
    return sorted(cards)


def available_shows(
    rules: object, level: int | str, hand: Iterable[int], first_hand: bool = False
) -> list[list[int]]:
    """Every show the cards of ``hand`` can make (ignoring what stands), each as its cards.

    Order: for S, H, C, D the single then the pair; the SJ pair, the BJ pair; then (hand 1 with
    ``hand1_single_joker``) the single SJ, the single BJ."""
    lv = level_index(level)
    held = list(hand)
    out: list[Show] = []
    for s in range(4):
        n = held.count(s * 13 + lv)
        if rules.declare_needs_joker and _joker_of(s) not in held:
            n = 0
        if n >= 1:
            out.append(Show("single", s))
        if n >= 2:
            out.append(Show("pair", s))
    for denom, code in ((SJ, SMALL_JOKER), (BJ, BIG_JOKER)):
        if held.count(code) >= 2:
            out.append(Show("pair", denom))
    if rules.hand1_single_joker and first_hand:
        for denom, code in ((SJ, SMALL_JOKER), (BJ, BIG_JOKER)):
            if code in held:
                out.append(Show("single", denom))
    return [show_cards(rules, lv, s) for s in out]


# ---------------------------------------------------------------------------------------------
# The state of the calls and the rules of §9


@dataclass
class _State:
    standing: Show | None = None  # None: nothing stands
    seat: int | None = None  # None with a standing show: set from the kitty
    kind: str = "single"  # "single" (unreinforced) or "pair" (reinforced or a pair)
    reinforced: bool = False
    overcalls: int = 0
    overcallers: set[int] = field(default_factory=set)
    first_seat: int | None = None
    from_kitty: bool = False


def _strength(rules: object, denom: int) -> int:
    """Place in the ladders: suits by suit_order (0 weakest .. 3 strongest), SJ 4, BJ 5, no
    trump from the kitty -1."""
    if denom == KITTY_NT:
        return -1
    if denom in (SJ, BJ):
        return denom
    return 3 - rules.suit_order.index(SUITS[denom])


def _ladder_beats(rules: object, st: _State, show: Show, first_hand: bool) -> bool:
    """§9 step 3, the ladder part: does the pair ``show`` beat what stands?"""
    ladder = rules.overcall_ladder
    over_single = st.kind == "single"  # an unreinforced single stands
    higher = _strength(rules, show.denom) > _strength(rules, st.standing.denom)
    if ladder == "strict":
        return over_single or higher
    if ladder == "ordered":
        return higher
    if ladder == "first_pair":
        return over_single and not show.joker
    if over_single:  # pair_over_single and jokers_over_pairs
        return True
    if show.denom == BJ and st.standing.denom == SJ:  # allowed by bj_over_sj (checked before)
        return True
    if ladder == "jokers_over_pairs":
        return show.joker and st.standing.denom < 4
    # pair_over_single, a pair stands
    if show.joker:
        return rules.joker_pairs == "after_pair" and st.standing.denom < 4
    return first_hand and rules.hand1_pairs_over_pairs and st.standing.denom < 4 and higher


def _action(rules: object, st: _State, seat: int, show: Show, first_hand: bool) -> str | None:
    """ "declare", "reinforce", "overcall", or None when the show is not allowed."""
    if st.standing is None:  # §9.1
        if show.joker and show.kind == "pair":
            return None  # 常主不可报主
        if show.joker and not (rules.hand1_single_joker and first_hand):
            return None
        return "declare"
    if st.from_kitty and rules.kitty_trump_final:
        return None
    if (  # §9.2
        seat == st.seat
        and st.kind == "single"
        and show.kind == "pair"
        and show.denom == st.standing.denom
    ):
        return "reinforce"
    # §9.3: an overcall
    if show.kind == "single":
        return None
    if first_hand and not rules.hand1_overcalls:
        return None
    if seat == st.seat:
        if rules.self_overcall == "never" or not (st.overcallers - {seat}):
            return None
    if show.joker:
        if rules.joker_pairs == "never":
            return None
        if first_hand and not rules.hand1_joker_pairs:
            return None
        if rules.joker_pairs == "after_pair" and st.kind != "pair":
            return None
    if show.denom == BJ and st.standing.denom == SJ and st.kind == "pair":
        if rules.bj_over_sj == "never" or (rules.bj_over_sj == "hand1" and not first_hand):
            return None
    if st.reinforced:
        if rules.reinforce == "final":
            return None
        if rules.reinforce == "jokers_only" and not show.joker:
            return None
    return "overcall" if _ladder_beats(rules, st, show, first_hand) else None


def _apply(st: _State, seat: int, show: Show, action: str) -> None:
    if action == "declare":
        st.standing, st.seat = show, seat
        st.kind = show.kind
        st.reinforced = show.kind == "pair"
        if st.first_seat is None:
            st.first_seat = seat
    elif action == "reinforce":
        st.kind, st.reinforced = "pair", True
        st.standing = Show("pair", st.standing.denom)
    else:
        st.standing, st.seat = show, seat
        st.kind, st.reinforced = "pair", False
        st.overcalls += 1
        st.overcallers.add(seat)


def _kitty_denom(kitty_trump: int | str | None) -> int | None:
    if kitty_trump is None:
        return None
    if isinstance(kitty_trump, str):
        text = kitty_trump.strip().upper()
        if text in ("NT", "NONE", ""):
            return KITTY_NT
        return SUITS.index(text) if text in SUITS else _bad_kitty(kitty_trump)
    if kitty_trump in (0, 1, 2, 3):
        return int(kitty_trump)
    if kitty_trump == 4:
        return KITTY_NT
    return _bad_kitty(kitty_trump)


def _bad_kitty(value: object) -> int:
    raise ValueError(f"kitty_trump must be None, 0..3, 4 (no trump), S/H/C/D or NT: {value!r}")


def _check_seat(seat: object) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 4:
        raise ValueError(f"seat must be 0..3, not {seat!r}")
    return seat


def _replay(
    rules: object,
    level: int | str,
    history: Sequence[tuple[int, str | Iterable[int | str]]],
    first_hand: bool,
    kitty_trump: int | str | None,
) -> _State:
    st = _State()
    denom = _kitty_denom(kitty_trump)
    if denom is not None:
        st.standing = Show("single", denom)
        st.from_kitty = True
    for i, (seat, cards) in enumerate(history):
        seat = _check_seat(seat)
        show = parse_show(rules, level, cards, first_hand)
        action = None if show is None else _action(rules, st, seat, show, first_hand)
        if action is None:
            raise ValueError(f"history[{i}] = ({seat}, {cards!r}) is not a legal show")
        _apply(st, seat, show, action)
    return st


def can_declare(
    rules: object,
    level: int | str,
    history: Sequence[tuple[int, str | Iterable[int | str]]],
    seat: int,
    cards: str | Iterable[int | str],
    first_hand: bool = False,
    *,
    kitty_trump: int | str | None = None,
) -> bool:
    """May ``seat`` show ``cards`` now? (docs/rules.md §9; module docstring for the details.)"""
    action = show_action(rules, level, history, seat, cards, first_hand, kitty_trump=kitty_trump)
    return action is not None


def show_action(
    rules: object,
    level: int | str,
    history: Sequence[tuple[int, str | Iterable[int | str]]],
    seat: int,
    cards: str | Iterable[int | str],
    first_hand: bool = False,
    *,
    kitty_trump: int | str | None = None,
) -> str | None:
    """What showing ``cards`` now is: "declare", "reinforce" or "overcall" (§9 steps 1–3), or
    None when it is not allowed (``can_declare`` is False)."""
    st = _replay(rules, level, history, first_hand, kitty_trump)
    seat = _check_seat(seat)
    show = parse_show(rules, level, cards, first_hand)
    return None if show is None else _action(rules, st, seat, show, first_hand)


def standing_call(
    rules: object,
    level: int | str,
    history: Sequence[tuple[int, str | Iterable[int | str]]],
    first_hand: bool = False,
    *,
    kitty_trump: int | str | None = None,
) -> Call | None:
    """The call standing after ``history`` (None when nothing stands)."""
    st = _replay(rules, level, history, first_hand, kitty_trump)
    if st.standing is None:
        return None
    d = st.standing.denom
    if st.from_kitty and st.seat is None:
        kind = "kitty"
    elif d in (SJ, BJ):
        kind = _KIND_NAMES[d] + ("_pair" if st.standing.kind == "pair" else "")
    else:
        kind = st.standing.kind
    return Call(
        st.seat,
        d if d < 4 else None,
        kind,
        st.reinforced,
        st.overcalls,
        st.first_seat,
    )


def describe_call(call: Call | None) -> str:
    """A line of text for a standing call, e.g. "seat 2: pair of H (reinforced), 1 overcall"."""
    if call is None:
        return "nothing stands"
    trump = "no trump" if call.trump is None else f"trump {SUITS[call.trump]}"
    who = "the kitty" if call.seat is None else f"seat {call.seat}"
    what = {
        "single": "single",
        "pair": "pair",
        "sj_pair": "SJ pair",
        "bj_pair": "BJ pair",
        "sj": "single SJ",
        "bj": "single BJ",
        "kitty": "kitty card",
    }[call.kind]
    extra = " (reinforced)" if call.reinforced else ""
    n = call.overcalls
    return f"{who}: {what}, {trump}{extra}; {n} overcall{'s' if n != 1 else ''}"
