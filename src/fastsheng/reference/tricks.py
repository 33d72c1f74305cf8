"""The play rules in plain Python, straight from docs/rules.md §2–§6.

This is the oracle the Cython core (``fastsheng.Context``) is tested against, so it is written for
clarity, not speed: cards are handled as ``Counter`` multisets of codes, and every rule is a short
function whose docstring names the section it implements.

A card's **key** (§2) is its position in the low-to-high order of its effective suit; equal cards
share a key. Two keys are *adjacent* for tractors when they differ by exactly 1, so the switches
that break the chain (``tractor_chain = "limited"``, ``nt_level_tractor = False``) are expressed by
leaving a gap in the keys:

* side suits, and the trump-suit cards: 2 … A without L → 0 … 11;
* trump suit, full chain: 副级 12, 主级 13, SJ 14, BJ 15;
* trump suit, limited chain: 副级 13, 主级 15, SJ 16, BJ 17 (trump A, 副级, 主级 not adjacent to
  each other; 主级–SJ–BJ adjacent);
* no trump: every L card 0, SJ 1, BJ 2 (with ``nt_level_tractor = False``: SJ 2, BJ 3).
  ``tractor_chain`` does not apply in no trump (reading: there is no 主级 there; the NT chain is
  the business of ``nt_level_tractor`` alone).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from fastsheng.cards import (
    BIG_JOKER,
    NUM_CODES,
    RANKS,
    SMALL_JOKER,
    SUITS,
    level_index,
    points_of,
    suit_index,
)
from fastsheng.errors import IllegalPlay, RulesError
from fastsheng.tables import MAX_TRACTOR, check_kitty_multiplier, kitty_multiplier_data

__all__ = ["Context", "TRUMP", "Unit", "Shape"]

TRUMP = 4
"""Effective suit of every trump card (0..3 are the side suits S, H, C, D)."""

# Listing order of effective suits (§3): trump first, then S, H, C, D.
_SUIT_LISTING = {TRUMP: 0, 0: 1, 1: 2, 2: 3, 3: 4}
_KIND_LISTING = {"tractor": 0, "pair": 1, "single": 2}

# The switch values this module reads (docs/rules.md §7).
_SWITCHES = {
    "tractor_chain": ("full", "limited"),
    "nt_level_tractor": (False, True),
    "throw_follow": ("shape", "suit"),
    "void_fill": ("any", "trump_first"),
    "overtrump_throw": ("decisive", "every"),
    "throw_kitty": ("at_least_3", "largest", "pair_4"),
}


@dataclass(frozen=True)
class Unit:
    """One unit of a split (§3): a single, a pair or a tractor of ``length`` pairs."""

    kind: str  # "single", "pair" or "tractor"
    eff: int  # effective suit, 0..3 or TRUMP
    top: int  # key of the unit's highest card
    length: int  # pairs in a tractor; 1 for a pair; 0 for a single
    cards: tuple[int, ...]  # sorted by code

    @property
    def low(self) -> int:
        """Lowest code of the unit (the last tie-break)."""
        return self.cards[0]


@dataclass(frozen=True)
class Shape:
    """The structure of a lead (§3): its effective suit, card count, tractor lengths (longest
    first), pair count P (pairs inside tractors included), and its units."""

    eff: int
    ncards: int
    tractors: tuple[int, ...]
    npairs: int
    units: tuple[Unit, ...]

    @property
    def kind(self) -> str:
        return self.units[0].kind if len(self.units) == 1 else "throw"

    @property
    def lone_pairs(self) -> int:
        return sum(1 for u in self.units if u.kind == "pair")

    @property
    def singles(self) -> int:
        return sum(1 for u in self.units if u.kind == "single")


# ---------------------------------------------------------------------------------------------
# Input checking


def _multiset(cards: Iterable[int]) -> Counter[int]:
    """Count the copies of each code; ValueError for a bad code or more than two copies."""
    counts: Counter[int] = Counter()
    for x in cards:
        code = int(x)
        if code != x or not 0 <= code < NUM_CODES:
            raise ValueError(f"not a card code: {x!r}")
        counts[code] += 1
        if counts[code] > 2:
            raise ValueError(f"card code {code} appears more than twice")
    return counts


def _sorted_cards(counts: Counter[int]) -> list[int]:
    return sorted(counts.elements())


def _contains(big: Counter[int], small: Counter[int]) -> bool:
    return all(big[c] >= n for c, n in small.items())


def _trump_index(trump: str | None) -> int | None:
    """0..3 for a trump suit, None for no trump (None, "NT" or "")."""
    if trump is None or (isinstance(trump, str) and trump.strip().upper() in ("", "NT", "NONE")):
        return None
    return suit_index(str(trump))


def _check_rules(rules: object) -> None:
    for field, values in _SWITCHES.items():
        if not hasattr(rules, field):
            raise RulesError(f"rules has no field {field!r}")
        value = getattr(rules, field)
        if value not in values:
            expected = ", ".join(map(str, values))
            raise RulesError(f"{field} = {value!r}; expected one of {expected}")
    if not hasattr(rules, "kitty_multiplier"):
        raise RulesError("rules has no field 'kitty_multiplier'")
    check_kitty_multiplier(rules.kitty_multiplier)


# ---------------------------------------------------------------------------------------------
# Runs of pairs and tractor packing (§3, §5)


def _run_tops(pair_keys: Counter[int], n: int) -> list[int]:
    """Top keys t such that every key t-n+1 .. t holds at least one pair (n >= 1)."""
    return sorted(t for t in pair_keys if all(pair_keys[k] > 0 for k in range(t - n + 1, t + 1)))


def _maximal_runs(pair_keys: Counter[int]) -> list[tuple[int, int]]:
    """(length, top) of every maximal run of consecutive keys that hold at least one pair."""
    keys = sorted(k for k, n in pair_keys.items() if n > 0)
    runs = []
    for k in keys:
        if pair_keys[k + 1] > 0:
            continue  # not the top of its run
        length = 1
        while pair_keys[k - length] > 0:
            length += 1
        runs.append((length, k))
    return runs


@lru_cache(maxsize=65536)
def _can_pack(capacity: tuple[tuple[int, int], ...], lengths: tuple[int, ...]) -> bool:
    """Can runs of these lengths be placed disjointly on pairs, ``capacity`` listing
    (key, number of pairs at that key)? Each run takes one pair at each of its keys.

    Backtracking over the start key of the first run, memoised; leads have at most a handful of
    tractors and a suit at most 18 keys, so this stays tiny.
    """
    if not lengths:
        return True
    cap = dict(capacity)
    n, rest = lengths[0], lengths[1:]
    for top in sorted(cap):
        window = range(top - n + 1, top + 1)
        if all(cap.get(k, 0) > 0 for k in window):
            left = dict(cap)
            for k in window:
                left[k] -= 1
            remaining = tuple(sorted((k, v) for k, v in left.items() if v > 0))
            if _can_pack(remaining, rest):
                return True
    return False


# ---------------------------------------------------------------------------------------------
# The context


class Context:
    """The play rules of one hand: a rules configuration, the level rank and the trump suit.

    ``Context(rules, level="6", trump="C")``: ``level`` is a rank "2".."A" (or 0..12), ``trump``
    a suit "S", "H", "C", "D" or None for no trump. Cards are lists of codes (fastsheng.cards) in
    any order; every play returned is sorted by code.
    """

    def __init__(self, rules: object, level: str | int = "2", trump: str | None = None) -> None:
        _check_rules(rules)
        self.rules = rules
        self._level = level_index(level)
        self._trump = _trump_index(trump)
        self.level = RANKS[self._level]
        self.trump = None if self._trump is None else SUITS[self._trump]
        self._eff = [self._compute_eff(code) for code in range(NUM_CODES)]
        self._key = [self._compute_key(code) for code in range(NUM_CODES)]

    def __repr__(self) -> str:
        name = getattr(self.rules, "name", self.rules)
        return f"reference.Context(rules={name!r}, level={self.level!r}, trump={self.trump!r})"

    # --- §2: trump and the order of cards -------------------------------------------------------

    def _compute_eff(self, code: int) -> int:
        if code >= SMALL_JOKER:
            return TRUMP
        suit, rank = divmod(code, 13)
        if rank == self._level or suit == self._trump:
            return TRUMP
        return suit

    def _compute_key(self, code: int) -> int:
        if self._trump is None:
            # NT: the four L cards (all equal), SJ, BJ
            level_keys = {"fu": 0, "zhu": 0}
            sj_key = 1 if self.rules.nt_level_tractor else 2
        elif self.rules.tractor_chain == "limited":
            # gaps: trump A 11, 副级 13, 主级 15, SJ 16, BJ 17
            level_keys = {"fu": 13, "zhu": 15}
            sj_key = 16
        else:
            # full chain: trump A 11, 副级 12, 主级 13, SJ 14, BJ 15
            level_keys = {"fu": 12, "zhu": 13}
            sj_key = 14
        if code == SMALL_JOKER:
            return sj_key
        if code == BIG_JOKER:
            return sj_key + 1
        suit, rank = divmod(code, 13)
        if rank == self._level:
            return level_keys["zhu" if suit == self._trump else "fu"]
        return rank - 1 if rank > self._level else rank  # 2 … A without L

    def effective_suit(self, code: int) -> int:
        """0..3 for a side suit S, H, C, D; 4 (TRUMP) for trump."""
        return self._eff[code]

    def is_trump(self, code: int) -> bool:
        return self._eff[code] == TRUMP

    def key(self, code: int) -> int:
        """Order key of a card inside its effective suit; adjacent keys differ by 1."""
        return self._key[code]

    # --- small helpers on multisets ---------------------------------------------------------

    def _of_suit(self, counts: Counter[int], e: int) -> Counter[int]:
        return Counter({c: n for c, n in counts.items() if n > 0 and self._eff[c] == e})

    def _pair_keys(self, counts: Counter[int], e: int) -> Counter[int]:
        """Number of pairs (both copies of one code) at each key of effective suit e."""
        out: Counter[int] = Counter()
        for c, n in counts.items():
            if n == 2 and self._eff[c] == e:
                out[self._key[c]] += 1
        return out

    @staticmethod
    def _npairs(counts: Counter[int]) -> int:
        return sum(1 for n in counts.values() if n == 2)

    def _suits_of(self, counts: Counter[int]) -> set[int]:
        return {self._eff[c] for c, n in counts.items() if n > 0}

    # --- §3: splitting into units -------------------------------------------------------------

    def _split(self, counts: Counter[int]) -> list[Unit]:
        """The units of a set of cards, in listing order (§3)."""
        unused_pairs = sorted(c for c, n in counts.items() if n == 2)
        units: list[Unit] = []
        # 1. tractors: the longest run of keys where every key still has an unused pair;
        #    ties: the highest top key, then trump before S, H, C, D
        while True:
            best = None  # (length, top, suit) maximising (length, top, -listing(suit))
            for e in sorted(self._suits_of(counts), key=_SUIT_LISTING.__getitem__):
                pair_keys = Counter(self._key[c] for c in unused_pairs if self._eff[c] == e)
                for length, top in _maximal_runs(pair_keys):
                    cand = (length, top, -_SUIT_LISTING[e])
                    if best is None or cand > best[0]:
                        best = (cand, e)
            if best is None or best[0][0] < 2:
                break
            (length, top, _), e = best
            taken = []
            for k in range(top - length + 1, top + 1):
                code = min(c for c in unused_pairs if self._eff[c] == e and self._key[c] == k)
                unused_pairs.remove(code)
                taken += [code, code]
            units.append(Unit("tractor", e, top, length, tuple(sorted(taken))))
        # 2. every remaining pair is a pair, every remaining card a single
        for c in unused_pairs:
            units.append(Unit("pair", self._eff[c], self._key[c], 1, (c, c)))
        for c, n in counts.items():
            if n == 1:
                units.append(Unit("single", self._eff[c], self._key[c], 0, (c,)))
        # 3. listing order
        units.sort(
            key=lambda u: (
                _KIND_LISTING[u.kind],
                -u.length,
                _SUIT_LISTING[u.eff],
                -u.top,
                u.low,
            )
        )
        return units

    def units(self, cards: Iterable[int]) -> list[tuple[str, list[int]]]:
        """Split cards (of any suits) into units: ``[(kind, sorted cards), ...]`` (§3)."""
        return [(u.kind, list(u.cards)) for u in self._split(_multiset(cards))]

    def _shape(self, counts: Counter[int]) -> Shape:
        """Structure of a lead; IllegalPlay when empty or of two effective suits (§4)."""
        if sum(counts.values()) == 0:
            raise IllegalPlay("a lead needs at least one card")
        suits = self._suits_of(counts)
        if len(suits) != 1:
            raise IllegalPlay("a lead must be of one effective suit")
        units = tuple(self._split(counts))
        tractors = tuple(sorted((u.length for u in units if u.kind == "tractor"), reverse=True))
        return Shape(
            eff=suits.pop(),
            ncards=sum(counts.values()),
            tractors=tractors,
            npairs=self._npairs(counts),
            units=units,
        )

    def shape(self, lead: Iterable[int]) -> Shape:
        """The structure of a lead (§3), with its units."""
        return self._shape(_multiset(lead))

    def lead_kind(self, cards: Iterable[int]) -> str:
        """The kind of a lead: "single", "pair", "tractor" or "throw" (§4); IllegalPlay if it is
        empty or of two effective suits."""
        return self._shape(_multiset(cards)).kind

    # --- §4: throws ---------------------------------------------------------------------------

    def _beats_unit(self, unit: Unit, hand: Counter[int]) -> bool:
        """Does this other hand hold, in the unit's suit, something strictly higher? (§4)"""
        if unit.kind == "single":
            return any(self._key[c] > unit.top for c in self._of_suit(hand, unit.eff))
        pair_keys = self._pair_keys(hand, unit.eff)
        if unit.kind == "pair":
            return any(k > unit.top for k, n in pair_keys.items() if n > 0)
        return any(t > unit.top for t in _run_tops(pair_keys, unit.length))

    def check_throw(self, cards: Iterable[int], others: Iterable[Iterable[int]]) -> list[int]:
        """The cards actually led (§4): all of them, or the forced unit of a failed throw."""
        counts = _multiset(cards)
        shape = self._shape(counts)
        hands = [_multiset(h) for h in others]
        if len(shape.units) == 1:
            return _sorted_cards(counts)
        beaten = [u for u in shape.units if any(self._beats_unit(u, h) for h in hands)]
        if not beaten:
            return _sorted_cards(counts)
        # the forced unit: fewest cards, then lowest key, then lowest code
        forced = min(beaten, key=lambda u: (len(u.cards), u.top, u.low))
        return list(forced.cards)

    # --- §5: following ------------------------------------------------------------------------

    def _match(self, shape: Shape, counts: Counter[int], e: int) -> tuple[int, ...]:
        """Tractor match of a set of cards of effective suit e (§5): the lexicographically
        largest 0/1 vector over the lead's tractors (longest first) whose chosen tractors fit
        disjointly into its pairs. Fitting is closed under taking fewer tractors, so choosing
        greedily in order gives the largest vector."""
        pair_keys = self._pair_keys(counts, e)
        capacity = tuple(sorted((k, n) for k, n in pair_keys.items() if n > 0))
        chosen: list[int] = []
        vector = []
        for length in shape.tractors:
            if _can_pack(capacity, tuple(chosen + [length])):
                chosen.append(length)
                vector.append(1)
            else:
                vector.append(0)
        return tuple(vector)

    def _follow_ok(self, shape: Shape, hand: Counter[int], play: Counter[int]) -> bool:
        """Is ``play`` a legal follow from ``hand`` to a lead of this shape? (§5)"""
        if sum(play.values()) != shape.ncards or not _contains(hand, play):
            return False
        e = shape.eff
        hand_e = self._of_suit(hand, e)
        n_e = sum(hand_e.values())
        if n_e < shape.ncards:
            # void or short: all of the suit, then any fill (trump first under the switch)
            if self._of_suit(play, e) != hand_e:
                return False
            if self.rules.void_fill == "trump_first" and e != TRUMP:
                trumps_held = sum(self._of_suit(hand, TRUMP).values())
                need = min(shape.ncards - n_e, trumps_held)
                if sum(self._of_suit(play, TRUMP).values()) < need:
                    return False
            return True
        # enough cards: N cards of the suit, meeting the shape as far as the hand allows
        if self._suits_of(play) != {e}:
            return False
        if shape.kind == "throw" and self.rules.throw_follow == "suit":
            return True
        if self._npairs(play) < min(shape.npairs, self._npairs(hand_e)):
            return False
        return self._match(shape, play, e) == self._match(shape, hand_e, e)

    def is_legal_follow(
        self, hand: Iterable[int], lead: Iterable[int], play: Iterable[int]
    ) -> bool:
        """True when ``play`` may follow ``lead`` from ``hand`` (§5). A play that is not a
        sub-multiset of the hand (or not a valid multiset of codes at all), or has the wrong card
        count, is simply not legal (False)."""
        shape = self._shape(_multiset(lead))
        hand_counts = _multiset(hand)
        try:
            play_counts = _multiset(play)
        except ValueError:
            return False
        return self._follow_ok(shape, hand_counts, play_counts)

    def legal_follows(self, hand: Iterable[int], lead: Iterable[int]) -> list[list[int]]:
        """Every legal play from ``hand`` to ``lead``, each sorted by code, the list sorted (§5).

        Plays are enumerated as sub-multisets by distinct code (how many copies of each code), so
        no play appears twice. A hand with fewer cards than the lead has no legal play."""
        shape = self._shape(_multiset(lead))
        hand_counts = _multiset(hand)
        e, n = shape.eff, shape.ncards
        hand_e = self._of_suit(hand_counts, e)
        n_e = sum(hand_e.values())
        if sum(hand_counts.values()) < n:
            return []
        out: list[list[int]] = []
        if n_e >= n:
            required_pairs = 0
            if not (shape.kind == "throw" and self.rules.throw_follow == "suit"):
                required_pairs = min(shape.npairs, self._npairs(hand_e))
            for play in _sub_multisets(hand_e, n, required_pairs):
                if self._follow_ok(shape, hand_counts, play):
                    out.append(_sorted_cards(play))
        else:
            base = _sorted_cards(hand_e)
            rest = hand_counts - hand_e
            fill = n - n_e
            if self.rules.void_fill == "trump_first" and e != TRUMP:
                trumps = self._of_suit(rest, TRUMP)
                others = rest - trumps
                t = min(fill, sum(trumps.values()))
                for part_t in _sub_multisets(trumps, t):
                    for part_o in _sub_multisets(others, fill - t):
                        out.append(sorted(base + list(part_t.elements()) + list(part_o.elements())))
            else:
                for part in _sub_multisets(rest, fill):
                    out.append(sorted(base + list(part.elements())))
        out.sort()
        return out

    # --- §6: winning a trick, points, kitty ---------------------------------------------------

    def _strength(self, shape: Shape, counts: Counter[int], e: int) -> int:
        """Key of the unit of a play (all of suit e) that answers the lead's decisive unit:
        the top of its highest run of t1 pair keys / its highest pair / its highest card; -1 if
        it has none."""
        if shape.tractors:
            tops = _run_tops(self._pair_keys(counts, e), shape.tractors[0])
            return max(tops, default=-1)
        if shape.npairs:
            return max((k for k, m in self._pair_keys(counts, e).items() if m > 0), default=-1)
        return max((self._key[c] for c in counts if counts[c] > 0), default=-1)

    def _has_shape(self, shape: Shape, counts: Counter[int], e: int) -> bool:
        """match(X) is all ones and pairs(X) >= P, X all of suit e (§6 "qualifies")."""
        if self._npairs(counts) < shape.npairs:
            return False
        return all(self._match(shape, counts, e))

    def _assign(self, shape: Shape, counts: Counter[int], e: int) -> list[int]:
        """Keys of a play's units answering the lead's units one by one (§6, ``every``): for each
        lead tractor in turn (longest first) the highest run of its length, then the highest
        remaining pairs for the lead's stand-alone pairs, then the highest remaining cards for its
        singles. A unit that cannot be found gets key -1 and takes nothing (reading)."""
        pairs = self._pair_keys(counts, e)
        cards: Counter[int] = Counter()
        for c, m in counts.items():
            cards[self._key[c]] += m
        keys = []
        for length in shape.tractors:
            top = max(_run_tops(pairs, length), default=-1)
            keys.append(top)
            if top >= 0:
                for k in range(top - length + 1, top + 1):
                    pairs[k] -= 1
                    cards[k] -= 2
        for _ in range(shape.lone_pairs):
            top = max((k for k, m in pairs.items() if m > 0), default=-1)
            keys.append(top)
            if top >= 0:
                pairs[top] -= 1
                cards[top] -= 2
        for _ in range(shape.singles):
            top = max((k for k, m in cards.items() if m > 0), default=-1)
            keys.append(top)
            if top >= 0:
                cards[top] -= 1
        return keys

    def trick_winner(self, plays: list[Iterable[int]], barred: Iterable[int] = ()) -> int:
        """Index of the winning play (§6). ``plays[0]`` is the lead; the others follow in play
        order. ``barred``: indices of plays that may not win by trumping (将吃 of a side-suit
        lead); they can still win by following a trump lead."""
        if not plays:
            raise IllegalPlay("a trick needs a lead")
        counted = [_multiset(p) for p in plays]
        shape = self._shape(counted[0])
        barred = {int(i) for i in barred}
        every = shape.kind == "throw" and self.rules.overtrump_throw == "every"
        winner, win_eff = 0, shape.eff
        win_strength = self._strength(shape, counted[0], shape.eff)
        win_units = self._assign(shape, counted[0], shape.eff) if every else []
        for i in range(1, len(counted)):
            play = counted[i]
            suits = self._suits_of(play)
            if len(suits) != 1:
                continue  # empty, or a discard of several suits
            (e,) = suits
            following = e == shape.eff
            trumping = shape.eff != TRUMP and e == TRUMP and i not in barred
            if not (following or trumping) or not self._has_shape(shape, play, e):
                continue
            if e != win_eff:
                better = e == TRUMP  # trump beats side suit
            elif every:
                units = self._assign(shape, play, e)
                better = all(a > b for a, b in zip(units, win_units, strict=True))
            else:
                better = self._strength(shape, play, e) > win_strength
            if better:
                winner, win_eff = i, e
                win_strength = self._strength(shape, play, e)
                if every:
                    win_units = self._assign(shape, play, e)
        return winner

    def trick_points(self, plays: Iterable[Iterable[int]]) -> int:
        """Points of every card in the trick (5s: 5, 10s and Ks: 10)."""
        return sum(points_of(c) for p in plays for c in _multiset(p).elements())

    def _unit_multiplier(self, kind: str, length: int) -> int:
        # a preset name or data (fastsheng.tables), whatever form the rules object holds
        table = kitty_multiplier_data(check_kitty_multiplier(self.rules.kitty_multiplier))
        if kind == "single":
            return table.single
        if kind == "pair":
            return table.pair
        return table.tractor[min(length, MAX_TRACTOR) - 2]

    def kitty_multiplier(self, lead: Iterable[int]) -> int:
        """Multiplier of the kitty's points when the defenders win the last trick (§6); ``lead``
        is the cards actually led."""
        shape = self._shape(_multiset(lead))
        if shape.tractors:
            decisive = self._unit_multiplier("tractor", shape.tractors[0])
        elif shape.npairs:
            decisive = self._unit_multiplier("pair", 1)
        else:
            decisive = self._unit_multiplier("single", 0)
        if shape.kind != "throw":
            return decisive
        if self.rules.throw_kitty == "at_least_3":
            return max(3, decisive)
        if self.rules.throw_kitty == "pair_4":
            return 4 if shape.npairs else 2
        return decisive  # largest


def _sub_multisets(counts: Counter[int], k: int, min_pairs: int = 0) -> Iterator[Counter[int]]:
    """Every sub-multiset of ``counts`` with k cards and at least ``min_pairs`` pairs, each once:
    we choose how many copies (0, 1 or 2) of each distinct code to take."""
    codes = sorted(c for c, n in counts.items() if n > 0)

    def rec(i: int, left: int, pairs: int, chosen: Counter[int]) -> Iterator[Counter[int]]:
        if left == 0:
            if pairs >= min_pairs:
                yield Counter(chosen)
            return
        if i == len(codes):
            return
        rest = codes[i:]
        if sum(counts[c] for c in rest) < left:
            return
        pairs_possible = sum(1 for c in rest if counts[c] == 2)
        if pairs + min(pairs_possible, left // 2) < min_pairs:
            return
        code = codes[i]
        for take in range(min(counts[code], left), -1, -1):
            if take:
                chosen[code] = take
            yield from rec(i + 1, left - take, pairs + (take == 2), chosen)
            if take:
                del chosen[code]

    yield from rec(0, k, 0, Counter())
