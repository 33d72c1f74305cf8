# cython: language_level=3
"""fastsheng.vec's action ids: the legal-action masks of a pending decision, and applying an
action to the game (the ids are in the .pxd). A follow's legal cards are those that begin at
least one legal follow with the cards picked so far (fastsheng._state.enum_follows), so a
follow built card by card can always be completed."""

# POPCNT for the inline bit counts (as fastsheng._game): before every cimport
cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    """

from libc.string cimport memset

from fastsheng._bitboard cimport (
    hand_add_card, hand_empty, hand_mask, hand_minus, hand_t, hand_union, lsb, u64, u8,
)
from fastsheng._game cimport DEC_BURY, DEC_DECLARE, DEC_FOLLOW, DEC_LEAD, PH_DONE, game_t
from fastsheng._state cimport enum_follows


cdef inline void legal_add(legal_t* L, int a) noexcept nogil:
    L.mask[a] = 1
    L.ids[L.n] = <u8>a
    L.n += 1


cdef inline void legal_bits(legal_t* L, u64 bits) noexcept nogil:
    while bits:
        legal_add(L, lsb(bits))
        bits &= bits - 1


cdef void legal_fill(legal_t* L, const game_t* g, hand_t picked, int npicked,
                     int over) noexcept nogil:
    """The legal action ids of the pending decision (the PettingZoo env's action_mask) into
    L.mask, and as a list (ids in increasing order but `done` last) into L.ids."""
    cdef int i, c, kind = g.pend_kind, s = g.pend_seat
    cdef hand_t h, rest
    cdef u64 bits, suit
    memset(L.mask, 0, N_ACT)
    L.n = 0
    if g.phase == PH_DONE or over:
        return
    if kind == DEC_DECLARE:
        legal_add(L, A_PASS)
        for i in range(g.nopt):
            legal_add(L, A_SHOW + g.opts[i])
    elif kind == DEC_BURY:
        legal_bits(L, hand_minus(hand_union(g.t.hands[g.bury_seat], g.kitty), picked).one)
    elif kind == DEC_LEAD:
        rest = hand_minus(g.t.hands[s], picked)
        if npicked:
            rest = hand_mask(rest, g.t.ctx.suit_bb[g.t.ctx.eff[lsb(picked.one)]])
        legal_bits(L, rest.one)
        if npicked:
            legal_add(L, A_DONE)
    elif kind == DEC_FOLLOW:
        h = g.t.hands[s]
        if g.tr.shape.ncards == 1:
            # a single: any card of the led suit (without one, the rules' void_fill decides)
            suit = hand_mask(h, g.t.ctx.suit_bb[g.tr.shape.eff]).one
            if suit:
                legal_bits(L, suit)
                return
        bits = hand_minus(h, picked).one
        while bits:
            c = lsb(bits)
            bits &= bits - 1
            if enum_follows(g, h, hand_add_card(picked, c), NULL, 0) > 0:
                legal_add(L, c)


cdef int action_apply(game_t* g, hand_t* picked, int* npicked, int a) noexcept nogil:
    """Apply a legal action id (checked by the caller); 1 when it completed the decision."""
    cdef int i, kind = g.pend_kind
    if kind == DEC_DECLARE:
        g.dec_choice = -1
        if a != A_PASS:
            for i in range(g.nopt):
                if g.opts[i] == a - A_SHOW:
                    g.dec_choice = i
                    break
        g.dec_ready = 1
        return 1
    if a != A_DONE:
        picked[0] = hand_add_card(picked[0], a)
        npicked[0] += 1
        if not ((kind == DEC_BURY and npicked[0] == 8) or
                (kind == DEC_FOLLOW and npicked[0] == g.tr.shape.ncards)):
            return 0
    g.dec_cards = picked[0]
    g.dec_ready = 1
    picked[0] = hand_empty()
    npicked[0] = 0
    return 1
