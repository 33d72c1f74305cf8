# cython: language_level=3
"""Declaring and overcalling in C (docs/rules.md §9), and its Python face.

The nogil state machine (decl_t, show_ok, show_apply, shows_available; see _declare.pxd) is
what a whole-hand loop uses. The Python functions below (can_declare, standing_call,
available_shows, parse_show) parse and validate cards in Python, then run the state machine;
they answer exactly as fastsheng.reference.declare does.
"""

from fastsheng._bitboard cimport BIG_JOKER, SMALL_JOKER, hand_empty, hand_t, u64
from fastsheng._core cimport NO_TRUMP, rules_t, to_hand

from fastsheng.cards import SUITS, level_index, parse_cards

# Choice indices (docs/rules.md §7) read here; tests/test_declare.py checks them against
# fastsheng.rules.CHOICES.
cdef enum:
    LADDER_PAIR_OVER_SINGLE = 0
    LADDER_STRICT = 1
    LADDER_ORDERED = 2
    LADDER_FIRST_PAIR = 3
    LADDER_JOKERS_OVER_PAIRS = 4
    JP_LADDER = 0
    JP_AFTER_PAIR = 1
    JP_NEVER = 2
    BJSJ_ALWAYS = 0
    BJSJ_HAND1 = 1
    BJSJ_NEVER = 2
    RF_FINAL = 0
    RF_RAISES = 1
    RF_JOKERS_ONLY = 2
    SELF_NEVER = 0
    SELF_AFTER_OTHER = 1

CHOICE_INDEX = {
    "overcall_ladder": {
        "pair_over_single": LADDER_PAIR_OVER_SINGLE,
        "strict": LADDER_STRICT,
        "ordered": LADDER_ORDERED,
        "first_pair": LADDER_FIRST_PAIR,
        "jokers_over_pairs": LADDER_JOKERS_OVER_PAIRS,
    },
    "joker_pairs": {"ladder": JP_LADDER, "after_pair": JP_AFTER_PAIR, "never": JP_NEVER},
    "bj_over_sj": {"always": BJSJ_ALWAYS, "hand1": BJSJ_HAND1, "never": BJSJ_NEVER},
    "reinforce": {"final": RF_FINAL, "raises": RF_RAISES, "jokers_only": RF_JOKERS_ONLY},
    "self_overcall": {"never": SELF_NEVER, "after_other": SELF_AFTER_OTHER},
}


# ---------------------------------------------------------------------------------------------
# The state machine

cdef void decl_reset(decl_t* d) noexcept nogil:
    d.seat = SEAT_NONE
    d.denom = 0
    d.kind = SHOW_SINGLE
    d.reinforced = 0
    d.from_kitty = 0
    d.first_seat = SEAT_NONE
    d.overcalls = 0
    d.overcallers = 0


cdef void decl_kitty(decl_t* d, int trump) noexcept nogil:
    d.seat = SEAT_KITTY
    d.denom = trump if 0 <= trump < 4 else DENOM_KITTY_NT
    d.kind = SHOW_SINGLE
    d.reinforced = 0
    d.from_kitty = 1


cdef int decl_trump(const decl_t* d) noexcept nogil:
    if d.seat == SEAT_NONE:
        return -1
    return d.denom if d.denom < 4 else NO_TRUMP


cdef inline int is_joker(int denom) noexcept nogil:
    return denom == DENOM_SJ or denom == DENOM_BJ


cdef inline int strength(const rules_t* r, int denom) noexcept nogil:
    """Place in the ladders: a suit's strength 0..3 (suit_order), SJ 4, BJ 5, kitty NT -1."""
    if denom < 4:
        return (r.suit_strength >> (2 * denom)) & 3
    if denom == DENOM_KITTY_NT:
        return -1
    return denom


cdef int ladder_beats(const rules_t* r, const decl_t* d, int denom, int first_hand) noexcept nogil:
    """Does a pair of `denom` beat the standing call by the ladder alone (§9.3)?"""
    cdef int ladder = r.overcall_ladder
    cdef int over_single = d.kind == SHOW_SINGLE
    cdef int higher = strength(r, denom) > strength(r, d.denom)
    if ladder == LADDER_STRICT:
        return over_single or higher
    if ladder == LADDER_ORDERED:
        return higher
    if ladder == LADDER_FIRST_PAIR:
        return over_single and not is_joker(denom)
    # pair_over_single, jokers_over_pairs
    if over_single:
        return 1
    if denom == DENOM_BJ and d.denom == DENOM_SJ:
        return 1                       # bj_over_sj was checked by show_ok
    if ladder == LADDER_JOKERS_OVER_PAIRS:
        return is_joker(denom) and d.denom < 4
    if is_joker(denom):
        return r.joker_pairs == JP_AFTER_PAIR and d.denom < 4
    return first_hand and r.hand1_pairs_over_pairs and d.denom < 4 and higher


cdef int show_ok(const rules_t* r, const decl_t* d, int seat, int kind, int denom,
                 int first_hand) noexcept nogil:
    cdef int joker = is_joker(denom)
    if seat < 0 or seat > 3 or kind < SHOW_SINGLE or kind > SHOW_PAIR or denom < 0 or denom > 5:
        return DECL_NONE
    if d.seat == SEAT_NONE:                                    # §9.1
        if joker and (kind == SHOW_PAIR or not (r.hand1_single_joker and first_hand)):
            return DECL_NONE
        return DECL_DECLARE
    if d.from_kitty and r.kitty_trump_final:
        return DECL_NONE
    if seat == d.seat and d.kind == SHOW_SINGLE and kind == SHOW_PAIR and denom == d.denom:
        return DECL_REINFORCE                                  # §9.2
    # §9.3: an overcall
    if kind == SHOW_SINGLE:
        return DECL_NONE
    if first_hand and not r.hand1_overcalls:
        return DECL_NONE
    if seat == d.seat:
        if r.self_overcall == SELF_NEVER or (d.overcallers & ~(1 << seat)) == 0:
            return DECL_NONE
    if joker:
        if r.joker_pairs == JP_NEVER:
            return DECL_NONE
        if first_hand and not r.hand1_joker_pairs:
            return DECL_NONE
        if r.joker_pairs == JP_AFTER_PAIR and d.kind != SHOW_PAIR:
            return DECL_NONE
    if denom == DENOM_BJ and d.denom == DENOM_SJ and d.kind == SHOW_PAIR:
        if r.bj_over_sj == BJSJ_NEVER or (r.bj_over_sj == BJSJ_HAND1 and not first_hand):
            return DECL_NONE
    if d.reinforced:
        if r.reinforce == RF_FINAL:
            return DECL_NONE
        if r.reinforce == RF_JOKERS_ONLY and not joker:
            return DECL_NONE
    return DECL_OVERCALL if ladder_beats(r, d, denom, first_hand) else DECL_NONE


cdef void show_apply(decl_t* d, int seat, int kind, int denom, int action) noexcept nogil:
    if action == DECL_DECLARE:
        d.seat = seat
        d.denom = denom
        d.kind = kind
        d.reinforced = kind == SHOW_PAIR
        d.from_kitty = 0
        if d.first_seat == SEAT_NONE:
            d.first_seat = seat
    elif action == DECL_REINFORCE:
        d.kind = SHOW_PAIR
        d.reinforced = 1
    elif action == DECL_OVERCALL:
        d.seat = seat
        d.denom = denom
        d.kind = SHOW_PAIR
        d.reinforced = 0
        d.from_kitty = 0
        d.overcalls += 1
        d.overcallers |= 1 << seat


cdef int show_make(const rules_t* r, decl_t* d, int seat, int kind, int denom,
                   int first_hand) noexcept nogil:
    cdef int action = show_ok(r, d, seat, kind, denom, first_hand)
    if action != DECL_NONE:
        show_apply(d, seat, kind, denom, action)
    return action


cdef inline int joker_of(int suit) noexcept nogil:
    """The joker of a suit's colour: SJ for S and C, BJ for H and D."""
    return SMALL_JOKER if suit == 0 or suit == 2 else BIG_JOKER


cdef inline int copies(hand_t h, int c) noexcept nogil:
    return <int>((h.one >> c) & 1) + <int>((h.two >> c) & 1)


cdef int shows_available(const rules_t* r, int level, hand_t hand, int first_hand,
                         int* out) noexcept nogil:
    cdef int n = 0, s, k
    for s in range(4):
        k = copies(hand, s * 13 + level)
        if r.declare_needs_joker and copies(hand, joker_of(s)) == 0:
            k = 0
        if k >= 1:
            out[n] = show_code(SHOW_SINGLE, s)
            n += 1
        if k >= 2:
            out[n] = show_code(SHOW_PAIR, s)
            n += 1
    if copies(hand, SMALL_JOKER) == 2:
        out[n] = show_code(SHOW_PAIR, DENOM_SJ)
        n += 1
    if copies(hand, BIG_JOKER) == 2:
        out[n] = show_code(SHOW_PAIR, DENOM_BJ)
        n += 1
    if r.hand1_single_joker and first_hand:
        if copies(hand, SMALL_JOKER) >= 1:
            out[n] = show_code(SHOW_SINGLE, DENOM_SJ)
            n += 1
        if copies(hand, BIG_JOKER) >= 1:
            out[n] = show_code(SHOW_SINGLE, DENOM_BJ)
            n += 1
    return n


cdef hand_t show_hand(const rules_t* r, int level, int kind, int denom) noexcept nogil:
    cdef hand_t h = hand_empty()
    cdef int code
    cdef u64 b, j
    if is_joker(denom):
        code = SMALL_JOKER if denom == DENOM_SJ else BIG_JOKER
    else:
        code = denom * 13 + level
        if r.declare_needs_joker:
            j = (<u64>1) << joker_of(denom)
            h.one |= j
    b = (<u64>1) << code
    h.one |= b
    if kind == SHOW_PAIR:
        h.two |= b
    return h


# ---------------------------------------------------------------------------------------------
# The Python face: cards are parsed and checked here, the state machine above decides.

cdef rules_t _rules_struct(object rules) except *:
    cdef rules_t r = rules.core_fields()
    return r


def _level(level):
    return level_index(level)


def _seat(seat):
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 4:
        raise ValueError(f"seat must be 0..3, not {seat!r}")
    return seat


def _card_counts(cards):
    """{code: copies} of the cards, or None when some int is not a card code."""
    counts = {}
    if isinstance(cards, str):
        cards = parse_cards(cards)
    for c in cards:
        if isinstance(c, str):
            for x in parse_cards(c):
                counts[x] = counts.get(x, 0) + 1
            continue
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 54:
            return None
        counts[c] = counts.get(c, 0) + 1
    return counts


cdef int _parse(const rules_t* r, int level, object cards, int first_hand, int* kind,
                int* denom) except -1:
    """1 and (kind, denom) when the cards make a show, else 0."""
    counts = _card_counts(cards)
    if not counts:
        return 0
    nsj = counts.pop(SMALL_JOKER, 0)
    nbj = counts.pop(BIG_JOKER, 0)
    if not counts:                                   # jokers only
        if nsj + nbj == 2 and (nsj == 2 or nbj == 2):
            kind[0], denom[0] = SHOW_PAIR, (DENOM_SJ if nsj else DENOM_BJ)
            return 1
        if nsj + nbj == 1 and r.hand1_single_joker and first_hand:
            kind[0], denom[0] = SHOW_SINGLE, (DENOM_SJ if nsj else DENOM_BJ)
            return 1
        return 0
    if len(counts) != 1:
        return 0
    (code, n), = counts.items()
    if code % 13 != level or n > 2:
        return 0
    suit = code // 13
    if r.declare_needs_joker:
        if joker_of(suit) == SMALL_JOKER:
            if (nsj, nbj) != (1, 0):
                return 0
        elif (nsj, nbj) != (0, 1):
            return 0
    elif nsj or nbj:
        return 0
    kind[0], denom[0] = (SHOW_SINGLE if n == 1 else SHOW_PAIR), suit
    return 1


cdef int _kitty(object kitty_trump) except -2:
    """-1 for no kitty call, else 0..3 or NO_TRUMP."""
    if kitty_trump is None:
        return -1
    if isinstance(kitty_trump, str):
        text = kitty_trump.strip().upper()
        if text in ("NT", "NONE", ""):
            return NO_TRUMP
        if text in SUITS:
            return SUITS.index(text)
    elif isinstance(kitty_trump, int) and not isinstance(kitty_trump, bool):
        if 0 <= kitty_trump <= 4:
            return kitty_trump if kitty_trump < 4 else NO_TRUMP
    raise ValueError("kitty_trump must be None, 0..3, 4 (no trump), S/H/C/D or NT: "
                     f"{kitty_trump!r}")


cdef int _replay(const rules_t* r, decl_t* d, int level, object history, int first_hand,
                 object kitty_trump) except -1:
    cdef int kind = 0, denom = 0, seat, k
    decl_reset(d)
    k = _kitty(kitty_trump)
    if k >= 0:
        decl_kitty(d, k)
    for i, (s, cards) in enumerate(history):
        seat = _seat(s)
        if not _parse(r, level, cards, first_hand, &kind, &denom) or \
                show_make(r, d, seat, kind, denom, first_hand) == DECL_NONE:
            raise ValueError(f"history[{i}] = ({s}, {cards!r}) is not a legal show")
    return 0


def can_declare(rules, level, history, seat, cards, first_hand=False, *, kitty_trump=None):
    """May ``seat`` show ``cards`` now? Same contract as fastsheng.reference.declare.can_declare."""
    cdef rules_t r = _rules_struct(rules)
    cdef decl_t d
    cdef int lv = _level(level), fh = bool(first_hand), kind = 0, denom = 0
    _replay(&r, &d, lv, history, fh, kitty_trump)
    cdef int st = _seat(seat)
    if not _parse(&r, lv, cards, fh, &kind, &denom):
        return False
    return show_ok(&r, &d, st, kind, denom, fh) != DECL_NONE


_KIND_NAMES = {DENOM_SJ: "sj", DENOM_BJ: "bj"}


def standing_call(rules, level, history, first_hand=False, *, kitty_trump=None):
    """The standing call as a tuple (seat, trump, kind, reinforced, overcalls, first_seat), the
    fields of fastsheng.reference.declare.Call; None when nothing stands."""
    cdef rules_t r = _rules_struct(rules)
    cdef decl_t d
    _replay(&r, &d, _level(level), history, bool(first_hand), kitty_trump)
    if d.seat == SEAT_NONE:
        return None
    trump = decl_trump(&d)
    if d.seat == SEAT_KITTY:
        kind = "kitty"
    elif is_joker(d.denom):
        kind = _KIND_NAMES[d.denom] + ("_pair" if d.kind == SHOW_PAIR else "")
    else:
        kind = "pair" if d.kind == SHOW_PAIR else "single"
    return (
        None if d.seat == SEAT_KITTY else d.seat,
        None if trump == NO_TRUMP else trump,
        kind,
        bool(d.reinforced),
        d.overcalls,
        None if d.first_seat == SEAT_NONE else d.first_seat,
    )


def parse_show(rules, level, cards, first_hand=False):
    """(kind, denom) of the show the cards make (kind 0 single, 1 pair; denom 0..3 suit,
    4 SJ, 5 BJ), or None."""
    cdef rules_t r = _rules_struct(rules)
    cdef int kind = 0, denom = 0
    if _parse(&r, _level(level), cards, bool(first_hand), &kind, &denom):
        return (kind, denom)
    return None


def available_shows(rules, level, hand, first_hand=False):
    """Every show the cards of ``hand`` can make, each as its sorted cards (the order of
    shows_available in _declare.pxd)."""
    cdef rules_t r = _rules_struct(rules)
    cdef int lv = _level(level), n, i, c
    cdef int out[NSHOWCODES]
    cdef hand_t h = to_hand(hand), sh
    n = shows_available(&r, lv, h, bool(first_hand), out)
    result = []
    for i in range(n):
        sh = show_hand(&r, lv, show_code_kind(out[i]), show_code_denom(out[i]))
        cards = []
        for c in range(54):
            if (sh.one >> c) & 1:
                cards.append(c)
            if (sh.two >> c) & 1:
                cards.append(c)
        result.append(cards)
    return result
