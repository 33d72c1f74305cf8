"""A hand and a match in plain Python, straight from docs/rules.md §10–§11.

The reference never chooses: each seat's decisions (shows, burials, leads, follows) are handed to
it. It checks each against the rules at that point of the hand and works out all the rules
decide: the deal, when a seat may show, dealer and trump when the calls close (the no-call
fallbacks of ``no_declaration``), the burial, 炒底, who leads, throw checks, trick winners, the
score (kitty multiplier, throw penalties), the level outcome and the next dealer.

* ``Hand(rules, level, deck, first_seat, first_hand=False)`` takes the decisions in the order of
  a hand: ``show`` (during the deal and the rounds after it), ``close_calls`` (``redeal`` when
  hand 1 had no call), ``bury``, ``chaodi``, ``lead`` and ``follow``; then ``result()``.
* ``replay(rules, trace)`` feeds a trace's decisions (``fastsheng.trace_hand`` /
  ``decode_traces``) to a ``Hand``. It never reads what the core decided (the "trump" and
  "result" events, winners, points): those are for the caller to compare. One exception: with
  ``no_declaration = "random_kitty"`` the kitty card drawn is the core's random draw, so the
  replay takes the first kitty card that gives the trace's trump and dealer.
* ``Match(rules, first_seat)``: ``next_hand()`` gives the next hand's level, dealer and whether
  it is hand 1; ``record(result)`` applies its outcome.

A rule broken raises ``IllegalPlay`` naming the seat and cards; malformed input ``ValueError``.

Readings, where §10–§11 leave the order of events open (each is what the simulator does):

* during the deal, after card ``dealt`` the seats are asked once each in play order from the one
  who received it, so two shows after the same card come from seats in that order (after the
  last card too when ``declaring_closes = "deal"``; otherwise the rounds that follow the deal
  may ask any seat);
* 炒底 is asked only after a later hand's first burial, never with ``declaring_closes = "deal"``;
* ``random_kitty``: the seat holding the drawn card's twin deals when it is on the other side
  (its side becomes the dealer side); the hand keeps the level it was dealt at;
* at ``hand_cap`` with equal levels, ``cap_tie = "dealer"`` gives the match to the side that would
  deal the next hand.

Bounds of the simulator, not rules (so that bots that never call or never stop end a hand):
a hand 1 is dealt again at most ``MAX_REDEALS`` times, then the seat dealt first deals with the
no-call fallback; 炒底 asks at most ``MAX_CHAODI_ASKS`` seats; a match lasts at most
``MAX_MATCH_HANDS`` hands.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from fastsheng.cards import (
    RANKS,
    SMALL_JOKER,
    SUITS,
    format_cards,
    full_deck,
    level_index,
    points_of,
)
from fastsheng.errors import IllegalPlay
from fastsheng.reference.declare import show_action, standing_call
from fastsheng.reference.levels import advance, cap_winner, hand_levels, match_won, next_dealer
from fastsheng.reference.tricks import Context

__all__ = [
    "MAX_REDEALS",
    "MAX_CHAODI_ASKS",
    "MAX_MATCH_HANDS",
    "deal",
    "fallback_trump",
    "random_kitty_dealer",
    "Show",
    "TrumpSet",
    "Trick",
    "HandResult",
    "Hand",
    "Match",
    "replay",
]

MAX_REDEALS = 200
MAX_CHAODI_ASKS = 64
MAX_MATCH_HANDS = 65535

_DOUBLE_DECK = Counter(full_deck())
_FLIP_TIES = {"S": 0, "H": 1, "D": 2, "C": 3}  # flip_level ties: S > H > D > C


def _suit(code: int) -> str | None:
    """The trump a card names: its suit, or None (no trump) for a joker."""
    return None if code >= SMALL_JOKER else SUITS[code // 13]


def _points(cards: Iterable[int]) -> int:
    return sum(points_of(c) for c in cards)


def _seat(seat: object) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 4:
        raise ValueError(f"seat must be 0..3, not {seat!r}")
    return seat


def _cards(text: str, cards: Iterable[int]) -> str:
    return f"{text} {format_cards(sorted(cards)) or '(none)'}"


# ---------------------------------------------------------------------------------------------
# §10.1 the deal, §10.3 the fallbacks


def deal(deck: Sequence[int], first_seat: int) -> tuple[list[list[int]], list[int]]:
    """§10.1: card ``j`` of the shuffled ``deck`` (108 cards) goes to seat ``(first_seat + j) % 4``
    for j < 100; the last 8 are the kitty. Returns the four hands (in deal order) and the kitty."""
    first_seat = _seat(first_seat)
    deck = [int(c) for c in deck]
    if len(deck) != 108 or Counter(deck) != _DOUBLE_DECK:
        raise ValueError("a deck is the 108 cards of the double deck, each code twice")
    hands: list[list[int]] = [[], [], [], []]
    for j in range(100):
        hands[(first_seat + j) % 4].append(deck[j])
    return hands, deck[100:]


def _pip(code: int) -> int:
    """flip_level's pip value, doubled: 2..10 their value, A = 1, J/Q/K a half."""
    r = code % 13
    return 2 * (r + 2) if r <= 8 else (2 if r == 12 else 1)


def fallback_trump(
    rules: object, level: int | str, kitty: Sequence[int], pick: int | None = None
) -> str | None:
    """The trump of a later hand nobody called (§10.3, ``no_declaration``): a suit "S".."D" or
    None (no trump). ``kitty``: the 8 cards as dealt, in order. ``pick``: with
    ``random_kitty``, the index 0..7 of the kitty card drawn at random."""
    lv = level_index(level)
    nd = rules.no_declaration
    if nd == "kitty1":
        return _suit(kitty[0])
    if nd == "kitty3":
        return _suit(kitty[2])
    if nd == "kitty3_skip_jokers":
        return next((_suit(c) for c in kitty[2:] if c < SMALL_JOKER), None)
    if nd == "no_trump":
        return None
    if nd == "flip_level":
        for c in kitty:
            if c < SMALL_JOKER and c % 13 == lv:
                return _suit(c)
        pips = [c for c in kitty if c < SMALL_JOKER]
        if not pips:
            return None
        return _suit(min(pips, key=lambda c: (-_pip(c), _FLIP_TIES[_suit(c)])))
    if nd == "random_kitty":
        if pick is None or not 0 <= pick < len(kitty):
            raise ValueError(f"random_kitty needs the drawn card's index 0..7, not {pick!r}")
        return _suit(kitty[pick])
    raise ValueError(f"no_declaration = {nd!r}")


def random_kitty_dealer(hands: Sequence[Iterable[int]], code: int, dealer: int) -> int:
    """``random_kitty``: the seat holding the twin of the drawn card ``code`` makes its side the
    dealer side and deals (reading); the dealer stays when its own side holds it, or nobody."""
    for seat, hand in enumerate(hands):
        if code in hand and seat % 2 != dealer % 2:
            return seat
    return dealer


# ---------------------------------------------------------------------------------------------
# What a hand records


class Show(NamedTuple):
    """A show made: ``dealt`` cards had been dealt (100 after the deal); ``action`` "declare",
    "reinforce" or "overcall"; ``after_burial``: a 炒底 show."""

    seat: int
    cards: tuple[int, ...]
    dealt: int
    action: str
    after_burial: bool


class TrumpSet(NamedTuple):
    """Trump fixed: when the calls close, and again at every 炒底 overcall. ``set``:
    "declared", "overcall", "kitty" (a fallback from the kitty) or "none" (the no_trump
    fallback); ``declarer``: the seat whose call it is (None for a fallback)."""

    dealer: int
    trump: str | None
    set: str
    declarer: int | None


@dataclass(frozen=True)
class Trick:
    """One trick: ``plays[0]`` the cards led (the forced unit of a failed throw), then the three
    follows in play order; ``winner`` a seat."""

    leader: int
    attempted: tuple[int, ...]
    failed: bool
    plays: tuple[tuple[int, ...], ...]
    winner: int
    points: int
    lead_kind: str


@dataclass(frozen=True)
class HandResult:
    """The outcome of a hand, one field per column of ``fastsheng.engine.hands.HAND_COLUMNS``
    that the rules decide (same names, same values: "NT" for no trump, None for no seat)."""

    level: str
    dealer: int
    first_seat: int
    declarer: int | None
    final_caller: int | None
    burier: int
    trump: str
    trump_set: str
    n_shows: int
    n_overcalls: int
    n_chaodi: int
    n_redeals: int
    stake: int
    kitty_points_dealt: int
    kitty_points_buried: int
    trick_points: int
    n_tricks: int
    last_winner: int
    last_lead_kind: str
    kitty_captured: bool
    kitty_mult: int
    kitty_bonus: int
    throws: int
    failed_throws: int
    failed_throws_dealer: int
    penalty: int
    penalty_stakes: int
    defenders_total: int
    winner: str
    levels: int
    bonus_levels: int
    levels_climbed: int
    next_dealer: int

    def columns(self) -> dict[str, Any]:
        """The fields as a dict, keyed like the hands table."""
        return dict(self.__dict__)


# ---------------------------------------------------------------------------------------------
# A hand


class Hand:
    """One hand of docs/rules.md §10, driven by the seats' decisions (module docstring).

    ``level``: the level rank ("2".."A" or 0..12); ``first_seat``: the seat dealt the first card,
    which is the dealer of a later hand (in hand 1 the calls decide the dealer, ``hand1_dealer``).
    ``phase`` is "deal", "redeal" (hand 1 without a call: ``redeal`` next), "bury", "chaodi",
    "play" or "done".
    """

    def __init__(
        self,
        rules: object,
        level: int | str,
        deck: Sequence[int],
        first_seat: int,
        first_hand: bool = False,
    ) -> None:
        self.rules = rules
        self.level = level_index(level)
        self.first_hand = bool(first_hand)
        self.first_seat = _seat(first_seat)
        self.dealer = self.first_seat
        self.redeals = 0
        self._new_deal(deck)

    def __repr__(self) -> str:
        return f"Hand(level={RANKS[self.level]}, dealer={self.dealer}, phase={self.phase})"

    # --- §10.1–10.3: the deal and the calls ----------------------------------------------------

    def _new_deal(self, deck: Sequence[int]) -> None:
        hands, kitty = deal(deck, self.first_seat)
        self.deck = [int(c) for c in deck]
        self.dealt_hands = [tuple(sorted(h)) for h in hands]
        self.hands = [Counter(h) for h in hands]
        self.kitty = Counter(kitty)
        self.shows: list[Show] = []
        self.trumps: list[TrumpSet] = []
        self.tricks: list[Trick] = []
        self._history: list[tuple[int, list[int]]] = []
        self._last_show = (0, -1)  # (dealt, place in the asking order) of the last show
        self.phase = "deal"

    def _expect(self, *phases: str) -> None:
        if self.phase not in phases:
            raise IllegalPlay(f"not now: the hand is in its {self.phase} phase")

    def _record_show(self, seat: int, cards: list[int], dealt: int, action: str | None) -> str:
        after = self.phase == "chaodi"
        if action is None:
            what = "a 炒底 show" if after else "a show"
            raise IllegalPlay(_cards(f"seat {seat} may not make {what} of", cards))
        self._history.append((seat, cards))
        self.shows.append(Show(seat, tuple(sorted(cards)), dealt, action, after))
        return action

    def show(self, seat: int, cards: Iterable[int], dealt: int) -> str:
        """A show while the calls are open, after ``dealt`` cards (1..100) were dealt; returns
        its action ("declare", "reinforce", "overcall"). §10.2: only cards already received
        count; shows after one card come in the asking order (module docstring)."""
        self._expect("deal")
        seat = _seat(seat)
        cards = [int(c) for c in cards]
        if not 1 <= dealt <= 100:
            raise ValueError(f"dealt must be 1..100, not {dealt!r}")
        place = (seat - (self.first_seat + dealt - 1)) % 4  # asked after the card's receiver
        ordered = dealt < 100 or self.rules.declaring_closes == "deal"
        last_dealt, last_place = self._last_show
        if dealt < last_dealt or (ordered and dealt == last_dealt and place <= last_place):
            raise IllegalPlay(f"seat {seat} is not asked now (after card {dealt})")
        held = Counter(self.deck[j] for j in range(dealt) if (self.first_seat + j) % 4 == seat)
        if Counter(cards) - held:
            raise IllegalPlay(_cards(f"seat {seat} does not hold (after {dealt} cards)", cards))
        action = show_action(self.rules, self.level, self._history, seat, cards, self.first_hand)
        self._last_show = (dealt, place)
        return self._record_show(seat, cards, dealt, action)

    def close_calls(self, pick: int | None = None) -> bool:
        """The calls close (the dealer takes the kitty). False when hand 1 had no call: it is
        dealt again (``redeal``). Otherwise fixes the dealer and trump (§10.3) and True.
        ``pick``: with ``random_kitty`` and no call, the index of the kitty card drawn."""
        self._expect("deal")
        call = standing_call(self.rules, self.level, self._history, self.first_hand)
        if call is None and self.first_hand and self.redeals < MAX_REDEALS:
            self.phase = "redeal"
            return False
        kitty = self.deck[100:]
        self.kitty_points_dealt = _points(kitty)
        if self.first_hand:
            how = self.rules.hand1_dealer
            if call is not None and how == "final":
                self.dealer = call.seat
            elif call is not None and how == "first":
                self.dealer = call.first_seat
            else:  # "random": the seat dealt first was drawn at random
                self.dealer = self.first_seat
        self.called = call is not None
        self._kitty_trump: str | None = None
        if call is not None:
            self.trump = None if call.trump is None else SUITS[call.trump]
            how = "overcall" if call.overcalls else "declared"
            self.declarer = self.final_caller = call.seat
            self.overcalls = call.overcalls
        else:
            self.trump = fallback_trump(self.rules, self.level, kitty, pick)
            how = "none" if self.rules.no_declaration == "no_trump" else "kitty"
            if self.rules.no_declaration == "random_kitty":
                self.dealer = random_kitty_dealer(self.hands, kitty[pick], self.dealer)
            self.declarer = self.final_caller = None
            self.overcalls = 0
            self._kitty_trump = "NT" if self.trump is None else self.trump
        self.trump_set = how
        self.trumps.append(TrumpSet(self.dealer, self.trump, how, self.declarer))
        self.ctx = Context(self.rules, level=self.level, trump=self.trump)
        self.burier = self.dealer
        self._chaodi_open = False
        self.n_chaodi = 0
        self.phase = "bury"
        return True

    def redeal(self, deck: Sequence[int]) -> None:
        """Hand 1 without a call is dealt again (§10.3, reading for every preset), from the same
        first seat."""
        self._expect("redeal")
        self.redeals += 1
        self._new_deal(deck)

    # --- §10.4: the kitty and 炒底 ---------------------------------------------------------

    def _chaodi_allowed(self) -> bool:
        r = self.rules
        if self.first_hand or r.declaring_closes == "deal":
            return False
        return r.overcall_after_burial == "yes" or (
            r.overcall_after_burial == "if_declared" and self.called
        )

    def bury(self, seat: int, cards: Iterable[int]) -> None:
        """The burier (the dealer, or the last 炒底 overcaller) adds the kitty and buries 8."""
        self._expect("bury")
        seat = _seat(seat)
        if seat != self.burier:
            raise IllegalPlay(f"seat {seat} buries, but seat {self.burier} has the kitty")
        buried = Counter(int(c) for c in cards)
        full = self.hands[seat] + self.kitty
        if buried.total() != 8 or buried - full:
            raise IllegalPlay(_cards(f"seat {seat} cannot bury", buried.elements()))
        self.hands[seat] = full - buried
        self.kitty = buried
        if self._chaodi_open:  # after a 炒底 overcall: asking resumes after the overcaller
            self.phase = "chaodi"
        elif self._chaodi_allowed():
            self._chaodi_open = True
            self._ask, self._passes, self._asks = (self.dealer + 1) % 4, 0, 0
            self.phase = "chaodi"
        else:
            self._start_play()

    def chaodi(self, seat: int, cards: Iterable[int]) -> str:
        """A show after the burial (炒底, §10.4): seats are asked in play order from the
        dealer's next seat until three pass in a row; an overcaller takes the kitty next
        (``bury``) and asking resumes after it. Returns the show's action."""
        self._expect("chaodi")
        seat = _seat(seat)
        cards = [int(c) for c in cards]
        skipped = (seat - self._ask) % 4  # the seats asked before it passed
        if self._passes + skipped >= 3 or self._asks + skipped >= MAX_CHAODI_ASKS:
            raise IllegalPlay(f"炒底 is closed: three seats passed before seat {seat}")
        if Counter(cards) - self.hands[seat]:
            raise IllegalPlay(_cards(f"seat {seat} does not hold", cards))
        kitty = self._kitty_trump
        action = show_action(self.rules, self.level, self._history, seat, cards, kitty_trump=kitty)
        self._record_show(seat, cards, 100, action)
        self._asks += skipped + 1
        self._ask, self._passes = (seat + 1) % 4, 0
        if action == "overcall":
            call = standing_call(self.rules, self.level, self._history, kitty_trump=kitty)
            self.n_chaodi += 1
            self.overcalls = call.overcalls
            self.trump = None if call.trump is None else SUITS[call.trump]
            self.trump_set = "overcall"
            self.final_caller = self.burier = seat
            self.trumps.append(TrumpSet(self.dealer, self.trump, "overcall", seat))
            self.ctx = Context(self.rules, level=self.level, trump=self.trump)
            self.phase = "bury"
        return action

    # --- §10.5: the tricks -----------------------------------------------------------------

    def _start_play(self) -> None:
        self.kitty_points_buried = _points(self.kitty.elements())
        self.leader = self.dealer
        self.trick_points = self.penalty = self.penalty_stakes = 0
        self.throws = self.failed_throws = self.failed_throws_dealer = 0
        self._plays: list[list[int]] = []
        self.phase = "play"

    def _penalty(self, back: int) -> int:
        form = self.rules.throw_penalty
        if form == "per_card":
            return self.rules.throw_penalty_points * back
        if form == "flat":
            return self.rules.throw_penalty_points
        return 0  # none; half_stake is recorded only (penalty_stakes)

    def lead(self, cards: Iterable[int]) -> list[int]:
        """The leader (the dealer, then each trick's winner) tries to lead ``cards``; returns the
        cards actually led (§4: the forced unit of a failed throw). Closes 炒底 if open."""
        if self.phase == "chaodi":
            self._start_play()  # every seat still to be asked passes
        self._expect("play")
        if self._plays:
            raise IllegalPlay("a trick is under way: the next seat follows")
        leader = self.leader
        attempted = sorted(int(c) for c in cards)
        if not attempted or Counter(attempted) - self.hands[leader]:
            raise IllegalPlay(_cards(f"seat {leader} cannot lead", attempted))
        kind = self.ctx.lead_kind(attempted)  # IllegalPlay for two effective suits
        others = [sorted(self.hands[(leader + k) % 4].elements()) for k in (1, 2, 3)]
        actual = sorted(self.ctx.check_throw(attempted, others))
        failed = len(actual) != len(attempted)
        self.throws += int(kind == "throw")
        self._barred: tuple[int, ...] = ()
        if failed:
            self.failed_throws += 1
            amount = self._penalty(len(attempted) - len(actual))
            self.penalty_stakes += int(self.rules.throw_penalty == "half_stake")
            if leader % 2 == self.dealer % 2:
                self.failed_throws_dealer += 1
                self.penalty += amount
                partner = (self.dealer + 2 - leader) % 4  # its index in the trick
                if self.rules.partner_no_trump_after_failed_throw and partner:
                    self._barred = (partner,)
            else:
                self.penalty -= amount
        self.hands[leader] -= Counter(actual)
        self._attempted, self._failed = tuple(attempted), failed
        self._lead_kind = self.ctx.lead_kind(actual) if failed else kind
        self._plays = [actual]
        return actual

    def follow(self, cards: Iterable[int]) -> Trick | None:
        """The next seat in play order follows (§5). After the third follow the trick is won
        (§6) and returned; the winner leads next, and the last trick scores the hand."""
        self._expect("play")
        if not self._plays:
            raise IllegalPlay(f"seat {self.leader} leads first")
        leader = self.leader
        seat = (leader + len(self._plays)) % 4
        play = sorted(int(c) for c in cards)
        hand = sorted(self.hands[seat].elements())
        if not self.ctx.is_legal_follow(hand, self._plays[0], play):
            raise IllegalPlay(
                _cards(f"seat {seat} may not follow", play) + _cards(" to", self._plays[0])
            )
        self.hands[seat] -= Counter(play)
        self._plays.append(play)
        if len(self._plays) < 4:
            return None
        plays = self._plays
        w = (leader + self.ctx.trick_winner(plays, barred=self._barred)) % 4
        points = self.ctx.trick_points(plays)
        if w % 2 != self.dealer % 2:
            self.trick_points += points
        trick = Trick(
            leader,
            self._attempted,
            self._failed,
            tuple(tuple(p) for p in plays),
            w,
            points,
            self._lead_kind,
        )
        self.tricks.append(trick)
        self._plays = []
        self.leader = w
        if not self.hands[w]:
            self.phase = "done"
        return trick

    # --- §10.6 and §11: the score ----------------------------------------------------------

    def result(self) -> HandResult:
        """The hand's outcome (§10.6, §11) once the last trick is played."""
        self._expect("done")
        r = self.rules
        last = self.tricks[-1]
        mult = self.ctx.kitty_multiplier(last.plays[0])
        captured = last.winner % 2 != self.dealer % 2
        bonus = self.kitty_points_buried * mult if captured else 0
        total = max(0, self.trick_points + bonus + self.penalty)
        side, levels = hand_levels(r, total, self.overcalls)
        climbed = advance(self.level, levels, r, won=1 << self.level)[0] - self.level
        return HandResult(
            level=RANKS[self.level],
            dealer=self.dealer,
            first_seat=self.first_seat,
            declarer=self.declarer,
            final_caller=self.final_caller,
            burier=self.burier,
            trump="NT" if self.trump is None else self.trump,
            trump_set=self.trump_set,
            n_shows=len(self.shows),
            n_overcalls=self.overcalls,
            n_chaodi=self.n_chaodi,
            n_redeals=self.redeals,
            stake=(1 << min(self.overcalls, 15)) if r.overcall_bonus == "stake" else 1,
            kitty_points_dealt=self.kitty_points_dealt,
            kitty_points_buried=self.kitty_points_buried,
            trick_points=self.trick_points,
            n_tricks=len(self.tricks),
            last_winner=last.winner,
            last_lead_kind=last.lead_kind,
            kitty_captured=captured,
            kitty_mult=mult,
            kitty_bonus=bonus,
            throws=self.throws,
            failed_throws=self.failed_throws,
            failed_throws_dealer=self.failed_throws_dealer,
            penalty=self.penalty,
            penalty_stakes=self.penalty_stakes,
            defenders_total=total,
            winner=side,
            levels=levels,
            bonus_levels=self.overcalls if r.overcall_bonus == "level" else 0,
            levels_climbed=climbed,
            next_dealer=next_dealer(self.dealer, side),
        )


# ---------------------------------------------------------------------------------------------
# §11: a match


class Match:
    """A match (§11): both teams start at ``start_rank``; ``first_seat`` is the seat dealt first
    in hand 1 (drawn at random). Team t is seats t and t + 2; ranks are indices 0..12."""

    def __init__(self, rules: object, first_seat: int) -> None:
        self.rules = rules
        start = level_index(rules.start_rank)
        self.levels = [start, start]
        self.won = [0, 0]  # must-play ranks each team has won as the dealer side (bit r)
        self.dealer = _seat(first_seat)
        self.hand_no = 0
        self.winner: str | None = None  # "team0", "team1" or "draw" once over
        self.capped = False

    def next_hand(self) -> tuple[int, int, bool]:
        """The next hand's ``(level, dealer, first_hand)``: the dealer side's level (hand 1: the
        start rank, its dealer decided by the calls, ``dealer`` the seat dealt first)."""
        if self.winner is not None:
            raise IllegalPlay(f"the match is over ({self.winner})")
        return self.levels[self.dealer % 2], self.dealer, self.hand_no == 0

    def record(self, result: HandResult) -> int:
        """Apply a hand's outcome (a ``HandResult``, or a hands-table row: its ``dealer``,
        ``winner``, ``levels`` and ``next_dealer``); returns the levels the winner climbed."""
        self.next_hand()
        r = self.rules
        self.hand_no += 1
        team = result.dealer % 2  # the hand's dealer side (random_kitty may have changed it)
        side = team if result.winner == "dealer" else 1 - team
        before = self.levels[side]
        if result.winner == "dealer":
            if match_won(r, self.levels[team], "dealer"):
                self.winner = f"team{team}"
            self.levels[team], self.won[team] = advance(
                self.levels[team], result.levels, r, self.won[team], dealer=True
            )
        else:
            self.levels[side], self.won[side] = advance(
                self.levels[side], result.levels, r, self.won[side]
            )
        self.dealer = result.next_dealer
        cap = r.hand_cap if r.hand_cap is not None else MAX_MATCH_HANDS
        if self.winner is None and self.hand_no >= min(cap, MAX_MATCH_HANDS):
            self.capped = True
            best = cap_winner(r, (self.levels[0], self.levels[1]), self.dealer % 2)
            self.winner = "draw" if best is None else f"team{best}"
        return self.levels[side] - before


# ---------------------------------------------------------------------------------------------
# Replaying a trace


def _random_pick(hand: Hand, trump: str | None, dealer: int) -> int | None:
    """The first kitty card whose draw gives this trump and dealer (random_kitty, no call)."""
    kitty = hand.deck[100:]
    for k, code in enumerate(kitty):
        if _suit(code) == trump and random_kitty_dealer(hand.hands, code, hand.dealer) == dealer:
            return k
    return None


def replay(
    rules: object,
    trace: dict[str, Any],
    *,
    level: int | str | None = None,
    first_seat: int | None = None,
    first_hand: bool | None = None,
) -> Hand:
    """A trace's decisions through a ``Hand``; returns it played out (``result()``, ``tricks``,
    ``shows``, ``trumps``). ``level``, ``first_seat``, ``first_hand``: the hand's settings when
    the caller knows them (a ``Match``), else the trace's. IllegalPlay at the first decision
    the rules do not allow."""
    events = trace["events"]
    if not events or events[0]["type"] != "deal":
        raise ValueError("a trace starts with its deal")
    hand = Hand(
        rules,
        trace["level"] if level is None else level,
        events[0]["deck"],
        events[0]["first_seat"] if first_seat is None else first_seat,
        trace["first_hand"] if first_hand is None else first_hand,
    )
    for ev in events[1:]:
        kind = ev["type"]
        if kind == "deal":
            hand.redeal(ev["deck"])
        elif kind == "show":
            hand.show(ev["seat"], ev["cards"], ev["dealt"])
        elif kind == "redeal":
            if hand.close_calls():
                raise IllegalPlay("hand 1 is dealt again although a seat called")
        elif kind == "trump" and hand.phase == "deal":
            pick = None
            if not hand._history and rules.no_declaration == "random_kitty":
                pick = _random_pick(hand, ev["trump"], ev["dealer"])
                if pick is None:
                    raise IllegalPlay(f"no kitty card gives the trace's trump and dealer: {ev}")
            if not hand.close_calls(pick):
                raise IllegalPlay("hand 1 without a call is played instead of dealt again")
        elif kind == "chaodi":
            hand.chaodi(ev["seat"], ev["cards"])
        elif kind == "bury":
            hand.bury(ev["seat"], ev["cards"])
        elif kind == "trick":
            hand.lead(ev["attempted"])
            for play in ev["plays"][1:]:
                hand.follow(play)
    hand.result()  # the hand must be over
    return hand
