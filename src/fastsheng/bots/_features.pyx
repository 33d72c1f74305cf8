# cython: language_level=3
"""The features the learned bot sees (docs/bots.md, "learned-v1"), in C without the GIL.

Per candidate play of a lead or follow, NFEAT floats: the position (trick number, seat in the
trick, side, points so far, trumps held and unseen), then the candidate and its difference from
the base bot's play (points, trumps, pairs, how high its cards are, whether it wins the trick
now, ruff threats in its suit). Everything is read from the seat's own hand and the public
record (cards played, voids shown, the trick so far, the kitty only when the seat buried it).
FEATURE_NAMES (below) names every slot; fastsheng.bots._labels writes them as columns.
"""

cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    /* the same floats on every build (no FMA contraction under -march=native) */
    #if defined(__GNUC__) && !defined(__clang__)
    #pragma GCC optimize("fp-contract=off")
    #endif
    """

from fastsheng._bitboard cimport hand_count, hand_mask, hand_minus, hand_t, lsb, popcount, u64
from fastsheng.bots._heuristic cimport points_of
from fastsheng._core cimport KIND_THROW, TRUMP, ctx_t, lead_shape, shape_t
from fastsheng._game cimport PH_LEAD
from fastsheng._table cimport table_t, would_win

cdef u64 ALL_CODES = ((<u64>1) << 54) - 1


cdef inline hand_t unseen_of(const game_t* g, int seat) noexcept nogil:
    """The cards `seat` has not seen: the deck minus its hand, the cards played (the trick in
    progress included) and the kitty when it buried it."""
    cdef const table_t* t = &g.t
    cdef hand_t u
    cdef int i
    u.one = ALL_CODES
    u.two = ALL_CODES
    u = hand_minus(u, t.hands[seat])
    u = hand_minus(u, t.played)
    if g.phase != PH_LEAD:
        for i in range(g.tr.n):
            u = hand_minus(u, g.tr.plays[i])
    if t.burier == seat:
        u = hand_minus(u, t.buried)
    return u


cdef inline int suit_of(const ctx_t* c, hand_t h) noexcept nogil:
    """The effective suit of a play's highest-ordered card group: its first card's."""
    return c.eff[lsb(h.one)] if h.one else 0


cdef inline float height(const ctx_t* c, hand_t h) noexcept nogil:
    """Mean order key of the play's cards inside their suits, scaled to [0, 1]."""
    cdef u64 bits = h.one
    cdef int code, n = 0
    cdef float s = 0
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        s += <float>c.key[code] / c.nkeys[c.eff[code]] * (2 if (h.two >> code) & 1 else 1)
        n += 2 if (h.two >> code) & 1 else 1
    return s / n if n else 0


cdef inline int higher_unseen(const ctx_t* c, hand_t h, hand_t unseen) noexcept nogil:
    """Unseen cards of the play's suit above its highest card."""
    cdef int e = suit_of(c, h), top = 0, code, n = 0
    cdef u64 bits = h.one & c.suit_bb[e]
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        if c.key[code] > top:
            top = c.key[code]
    bits = unseen.one & c.suit_bb[e]
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        if c.key[code] > top:
            n += 1 + ((unseen.two >> code) & 1)
    return n


cdef inline int trumps_in(const ctx_t* c, hand_t h) noexcept nogil:
    return hand_count(hand_mask(h, c.suit_bb[TRUMP]))


cdef void cand_features(const game_t* g, int seat, hand_t cand, hand_t base, int is_basic,
                        int ncands, float* out) noexcept nogil:
    cdef const table_t* t = &g.t
    cdef const ctx_t* c = &t.ctx
    cdef hand_t h = t.hands[seat], unseen = unseen_of(g, seat)
    cdef bint lead = g.phase == PH_LEAD
    cdef int n = hand_count(h), nc = hand_count(cand), i, e, table_pts = 0, partner
    cdef int cw = 0, bw = 0, wseat = -1, opp_void = 0, partner_void = 0, pc = points_of(cand)
    cdef int pb = points_of(base)
    cdef shape_t s
    partner = (seat + 2) & 3
    if not lead:
        for i in range(g.tr.n):
            table_pts += points_of(g.tr.plays[i])
        wseat = (g.tr.leader + g.tr.win) & 3
        cw = would_win(c, &g.tr, cand)
        bw = would_win(c, &g.tr, base)
    e = suit_of(c, cand)
    for i in range(4):
        if i != seat and (t.void_mask[i] >> e) & 1 and e != TRUMP:
            if i == partner:
                partner_void = 1
            else:
                opp_void = 1
    if nc == 0:
        nc = 1
    if n == 0:
        n = 1
    # the position
    out[0] = 1.0
    out[1] = t.tricks_done / 25.0
    out[2] = lead
    out[3] = 0 if lead else g.tr.n / 3.0
    out[4] = (seat & 1) == (t.dealer & 1)
    out[5] = t.def_points / 100.0
    out[6] = table_pts / 25.0
    out[7] = 0 if lead else wseat == partner
    out[8] = trumps_in(c, h) / <float>n
    out[9] = trumps_in(c, unseen) / 25.0
    out[10] = n / 25.0
    out[11] = ncands / 8.0
    out[12] = points_of(unseen) / 100.0
    out[13] = t.burier == seat
    # the candidate, and its difference from the base play
    out[14] = is_basic
    out[15] = nc / 4.0
    out[16] = pc / 20.0
    out[17] = (pc - pb) / 20.0
    out[18] = trumps_in(c, cand) / <float>nc
    out[19] = (trumps_in(c, cand) - trumps_in(c, base)) / <float>nc
    out[20] = cw
    out[21] = bw
    out[22] = height(c, cand)
    out[23] = height(c, cand) - height(c, base)
    out[24] = popcount(cand.two) * 2.0 / nc
    out[25] = (popcount(cand.two) - popcount(base.two)) * 2.0 / nc
    out[26] = higher_unseen(c, cand, unseen) / 10.0
    out[27] = higher_unseen(c, base, unseen) / 10.0
    out[28] = opp_void
    out[29] = partner_void
    out[30] = (table_pts + pc) / 30.0 * (cw if not lead else 1)
    out[31] = hand_count(hand_mask(h, c.suit_bb[e])) / <float>n
    if lead and lead_shape(c, cand, &s) == 0 and s.kind == KIND_THROW:
        out[15] = -out[15]      # a throw: its size, negated


NFEAT_ = NFEAT

# The slots of cand_features, in order (docs/bots.md, "learned-v1").
FEATURE_NAMES = (
    "bias", "trick", "lead", "seat_in_trick", "dealer_side", "defender_points",
    "table_points", "partner_winning", "trump_share", "unseen_trumps", "cards_left",
    "candidates", "unseen_points", "burier",
    "is_basic", "cards", "points", "points_vs_base", "trump_share_cand", "trumps_vs_base",
    "wins_now", "base_wins_now", "height", "height_vs_base", "pair_share", "pairs_vs_base",
    "higher_unseen", "base_higher_unseen", "opponent_void", "partner_void", "points_at_stake",
    "suit_share",
)
assert len(FEATURE_NAMES) == NFEAT
