# cython: language_level=3
"""The burial searched (`search-v3`'s `bury=1`, docs/bots.md), in C without the GIL.

The burier (the dealer, or a 炒底 caller) compares a few candidate burials: its base bot's own
(the very bot_bury call the game makes without the search) first, then basic-v1's and
expert-v1's, then the base burial with one card swapped for one it keeps, by named rules and
then at random (bot stream). Every candidate is played out in the same k worlds consistent with
what the burier knows (fastsheng._worlds.world_from_game: the other three hands redealt, its own
25 cards and the kitty known), the rest of the hand played by the base bot at all four seats
with the same bot stream per world (common random numbers), and scored by fastsheng.bots._search's
outcome (net levels x 40, then points). A candidate replaces the base burial only when its mean
gain over it clears Z standard errors of the paired differences: the gate that keeps the play
search from losing to its base. The calls stay the base bot's.

A seat whose spec sets `bury=1` is given `bury_decide` by its line-up (fastsheng.bots._lineup);
fastsheng._game calls it through the seat.
"""

cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    """


from fastsheng._bitboard cimport (
    hand_add_card, hand_count, hand_empty, hand_mask, hand_minus, hand_remove_card, hand_t,
    hand_union, lsb, points_of, popcount, u64,
)
from fastsheng.bots._heuristic cimport BOT_BASIC, BOT_EXPERT1, bot_bury
from fastsheng._core cimport TRUMP, ctx_t
from fastsheng._game cimport DEC_BURY, game_t
from fastsheng._rng cimport rng_below
from fastsheng.bots._search cimport MAX_CANDS, add_distinct, gate_best, race_worlds
from fastsheng.bots._seat cimport search_t
from fastsheng._table cimport table_t

cdef enum:
    NRANDOM_TRIES = 64       # random swaps drawn before giving up on filling the candidates

# The seat's settings (fastsheng.bots._seat.search_t) size the search: worlds per burial = its k
# x bury_kmul (published 4), at most bury_maxw (128): a burial is one decision a hand, 128 worlds
# gained more than 32 or 64 and 256 no more (docs/research/burial.md's screen); they cost about
# 18 ms a burial.

# analysis counters (never read by the play): burials searched, replaced, by candidate index
cdef long long B_NDEC = 0, B_NDEV = 0, B_NPLAY = 0
cdef long long B_BEST[MAX_CANDS]


cdef inline int add_burial(hand_t* out, int n, hand_t h) noexcept nogil:
    """Append h unless it is not a burial of 8 or is already there; the new count."""
    if hand_count(h) != 8:
        return n
    return add_distinct(out, n, h)


cdef inline hand_t swap(hand_t buried, int out_code, int in_code) noexcept nogil:
    """The burial with out_code taken back into the hand and in_code buried instead."""
    return hand_add_card(hand_remove_card(buried, out_code), in_code)


cdef inline int card_points(int code) noexcept nogil:
    return points_of(hand_add_card(hand_empty(), code))


cdef int pick(const table_t* t, u64 bits, int want_high) noexcept nogil:
    """The code of `bits` the bots value most (want_high) or least (t.kv); -1 if none."""
    cdef int code, best = -1
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        if best < 0 or (t.kv[code] > t.kv[best] if want_high else t.kv[code] < t.kv[best]):
            best = code
    return best


cdef int rule_swaps(const table_t* t, hand_t full, hand_t base, hand_t* out, int n,
                    int want) noexcept nogil:
    """The base burial with one card swapped by rules a player weighs when burying."""
    cdef const ctx_t* c = &t.ctx
    cdef hand_t kept = hand_minus(full, base), ke
    cdef u64 side = ~c.suit_bb[TRUMP], pts_bits = 0, nopts_bits = 0, loose
    cdef int code, e, take, give, shortest = -1, slen = 99, cnt
    cdef u64 bits = full.one
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        if card_points(code):
            pts_bits |= (<u64>1) << code
        else:
            nopts_bits |= (<u64>1) << code
    # points in: a kept side 5/10/K that is not part of a pair (the one the defenders catch
    # when its suit is led) buried instead of the buried non-point card worth most to keep
    # (docs/bots.md: expert-v2 measured points buried with 10+ trumps as a gain)
    loose = kept.one & ~kept.two & side & pts_bits
    give = pick(t, loose, 0)
    take = pick(t, base.one & nopts_bits, 1)
    if n < want and give >= 0 and take >= 0:
        n = add_burial(out, n, swap(base, take, give))
    # points out: the buried card with the most points taken back, the kept side single worth
    # least buried instead (a captured kitty counts its points twice or more)
    take = -1
    bits = base.one & pts_bits
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        if take < 0 or card_points(code) > card_points(take) or (
                card_points(code) == card_points(take) and t.kv[code] > t.kv[take]):
            take = code
    give = pick(t, kept.one & ~kept.two & side & nopts_bits, 0)
    if n < want and give >= 0 and take >= 0:
        n = add_burial(out, n, swap(base, take, give))
    # a void: the last kept card of the shortest side suit buried, the buried card worth most
    # to keep taken back (a void lets the burier ruff that suit)
    for e in range(4):
        ke = hand_mask(kept, c.suit_bb[e])
        cnt = hand_count(ke)
        if cnt == 1 and cnt < slen:
            slen = cnt
            shortest = lsb(ke.one)
    take = pick(t, base.one & side, 1)
    if n < want and shortest >= 0 and take >= 0 and c.eff[take] != c.eff[shortest]:
        n = add_burial(out, n, swap(base, take, shortest))
    # a low trump buried for the buried side card worth most to keep (a long side suit kept)
    give = pick(t, kept.one & ~kept.two & c.suit_bb[TRUMP] & nopts_bits, 0)
    if n < want and give >= 0 and take >= 0:
        n = add_burial(out, n, swap(base, take, give))
    return n


cdef int bury_candidates(game_t* g, int seat, hand_t* out, int want, int rules) noexcept nogil:
    """The base bot's burial first, basic-v1's and expert-v1's, the rule swaps, then random
    one-card swaps of the base burial (bot stream); at most `want`, returns how many."""
    cdef table_t* t = &g.t
    cdef hand_t full = hand_union(t.hands[seat], g.kitty), base, kept
    cdef int bot = t.bots[seat], n = 0, tries, take, give, nb, nk
    base = bot_bury(t, seat, full)
    n = add_burial(out, n, base)
    if n == 0:
        return 0
    t.bots[seat] = BOT_BASIC
    if n < want:
        n = add_burial(out, n, bot_bury(t, seat, full))
    t.bots[seat] = BOT_EXPERT1
    if n < want:
        n = add_burial(out, n, bot_bury(t, seat, full))
    t.bots[seat] = bot
    if rules:
        n = rule_swaps(t, full, base, out, n, want)
    kept = hand_minus(full, base)
    nb = popcount(base.one)         # distinct codes: a swap moves one copy
    nk = popcount(kept.one)
    tries = 0
    while n < want and tries < NRANDOM_TRIES and nb and nk:
        tries += 1
        take = nth_code(base.one, rng_below(t.rng, nb))
        give = nth_code(kept.one, rng_below(t.rng, nk))
        if take != give:
            n = add_burial(out, n, swap(base, take, give))
    return n


cdef inline int nth_code(u64 bits, int i) noexcept nogil:
    """The i-th set bit's code (0-based, lowest first)."""
    while i > 0:
        bits &= bits - 1
        i -= 1
    return lsb(bits)


cdef hand_t bury_decide(game_t* g, int seat) noexcept nogil:
    """The searching seat's burial (the game stopped in run_bury, or a step DEC_BURY)."""
    global B_NDEC, B_NDEV, B_NPLAY
    cdef hand_t cands[MAX_CANDS]
    cdef double sum_d[MAX_CANDS]
    cdef double sum_d2[MAX_CANDS]
    cdef const search_t* o = &g.b.seats[seat].search
    cdef int k = o.k * o.bury_kmul, want = o.cands
    cdef int n, best = 0, pend_kind = g.pend_kind, pend_seat = g.pend_seat
    if want > MAX_CANDS:
        want = MAX_CANDS
    if want < 1:
        want = 1
    n = bury_candidates(g, seat, cands, want, o.bury_rules)
    if n == 0:
        return hand_empty()     # no burial of 8 at all: the game loop reports and repairs it
    if k > o.bury_maxw:
        k = o.bury_maxw
    B_NDEC += 1
    if n == 1 or k < 2:
        return cands[0]
    # the worlds are the burier's: it knows the kitty (fastsheng._worlds.kitty_known reads the
    # pending decision, which the simulator's own loop does not set)
    g.pend_kind = DEC_BURY
    g.pend_seat = seat
    race_worlds(g, seat, k, n, cands, NULL, sum_d, sum_d2)
    B_NPLAY += <long long>k * n
    g.pend_kind = pend_kind
    g.pend_seat = pend_seat
    best = gate_best(sum_d, sum_d2, n, k, o.bury_z)
    B_BEST[best] += 1
    B_NDEV += best != 0
    return cands[best]


# ---------------------------------------------------------------------------------------------
# The Python face: analysis only (the counters never decide a play)

def _bury_counts(reset=False):
    """Screening only: (burials searched, replaced, playouts, how often each candidate won)."""
    global B_NDEC, B_NDEV, B_NPLAY
    out = dict(decisions=B_NDEC, deviations=B_NDEV, playouts=B_NPLAY,
               best=[B_BEST[i] for i in range(MAX_CANDS)])
    if reset:
        B_NDEC = B_NDEV = B_NPLAY = 0
        for i in range(MAX_CANDS):
            B_BEST[i] = 0
    return out
