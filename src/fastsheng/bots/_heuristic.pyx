# cython: language_level=3
"""The heuristic bots of fastsheng (docs/bots.md), in C without the GIL.

The public bots: ``random`` (uniformly random leads of one unit, random legal follows, random
calls and burial), ``basic-v1`` (a casual player's habits) and ``expert-v1`` .. ``expert-v4``
(``basic`` plus memory of every card played, inferred voids, safe throws, trump management,
kitty play and strength-based calling; each later version changes named decisions). Each bot is
a row of the table at the end of this file: its four decisions (lead, follow, bury, declare)
and the plan they read, so versions that decide alike share one function. Versions are frozen
(fastsheng.bots.names, tests/test_bot_versions.py): a new behaviour is a new version (a new row),
never an edit of a frozen one. Two private test bots: ``_chaos`` leads random subsets of a suit
(often failing throws) so that the tests exercise every throw rule; ``_mute`` never calls.

Plays are built, not enumerated: `build_follow` takes a preference per card code (lower =
played first) and takes, in the lead's suit, the tractors, pairs and singles the lead obliges
(docs/rules.md §5), choosing the most preferred cards at each step.
"""

# The hot loops count bits all the time: on x86-64 use the POPCNT instruction (every x86-64 CPU
# since 2008) instead of libgcc's table-driven __popcountdi2 call. Must precede every cimport so
# the pragma covers the inline helpers of _bitboard.pxd.
cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    """

from fastsheng._bitboard cimport (
    SMALL_JOKER, hand_add_card, hand_count, hand_empty, hand_mask, hand_minus, hand_remove_card,
    hand_t, lsb, msb, popcount, u64,
)
from fastsheng._core cimport (
    FILL_TRUMP_FIRST, FOLLOW_SUIT, PEN_HALF_STAKE, KIND_THROW, KIND_TRACTOR, MAXUNITS, TRUMP,
    card_key_bits, ctx_t, eff_of, hand_points, level_change, pack, pair_key_bits, play_strength,
    run_starts, rules_t, shape_t, split_units, throw_penalty_points, unit_t)
from fastsheng._rng cimport rng_below, rng_t
from fastsheng._table cimport current_winner, table_t, trick_t, would_win

cdef enum:
    BIG = 1 << 28

cdef u64 ALL_CODES = ((<u64>1) << 54) - 1


# ---------------------------------------------------------------------------------------------
# Preference helpers (the shared key and shape helpers are inline in _core.pxd)

cdef inline int pick_min(u64 bits, const int* pri) noexcept nogil:
    """The code of bits with the lowest preference (ties: lowest code); bits non-zero."""
    cdef int best = lsb(bits), code, bp = pri[best]
    bits &= bits - 1
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        if pri[code] < bp:
            bp = pri[code]
            best = code
    return best


cdef inline void take_cards(hand_t* pool, hand_t* play, int n, const int* pri) noexcept nogil:
    """Move the n most preferred card copies from pool to play."""
    cdef int code
    while n > 0 and pool.one:
        code = pick_min(pool.one, pri)
        pool[0] = hand_remove_card(pool[0], code)
        play[0] = hand_add_card(play[0], code)
        n -= 1


cdef inline void take_pairs(hand_t* pool, hand_t* play, int n, const int* pri) noexcept nogil:
    """Move the n most preferred pairs from pool to play."""
    cdef int code
    cdef u64 b
    while n > 0 and pool.two:
        code = pick_min(pool.two, pri)
        b = (<u64>1) << code
        pool.one &= ~b
        pool.two &= ~b
        play.one |= b
        play.two |= b
        n -= 1


# ---------------------------------------------------------------------------------------------
# Building a legal follow from a preference

cdef hand_t build_in_suit(const ctx_t* c, const shape_t* s, int e, hand_t hand,
                          const int* pri) noexcept nogil:
    """s.ncards cards of effective suit e (the hand holds at least that many) meeting the lead's
    shape as well as they can (docs/rules.md §5), preferring low pri."""
    cdef hand_t he = hand_mask(hand, c.suit_bb[e])
    cdef hand_t play = hand_empty()
    cdef int need, used = 0, m, nc = 0, i, j, k, L, start, best_start, cost, best_cost, nk, code
    cdef int cnt[24]
    cdef int chosen[12]
    cdef u64 b
    if s.kind == KIND_THROW and c.r.throw_follow == FOLLOW_SUIT:
        take_cards(&he, &play, s.ncards, pri)
        return play
    need = popcount(he.two)
    if need > s.npairs:
        need = s.npairs
    if s.ntractors > 0 and he.two:
        nk = c.nkeys[e]
        m = s.ntractors if s.ntractors < 12 else 12
        for k in range(nk):
            cnt[k] = popcount(he.two & c.key_bb[e][k])
        # the lexicographically largest set of lead tractors that fit (as the core's match)
        for i in range(m):
            chosen[nc] = s.tlen[i]
            if pack(cnt, nk, chosen, nc + 1):
                nc += 1
        # place them one by one: the cheapest run that leaves room for the rest
        for j in range(nc):
            L = chosen[j]
            best_start = -1
            best_cost = BIG
            for start in range(nk - L + 1):
                cost = 0
                for k in range(start, start + L):
                    if cnt[k] <= 0:
                        cost = BIG
                        break
                    cost += pri[pick_min(he.two & c.key_bb[e][k], pri)]
                if cost >= best_cost:
                    continue
                for k in range(start, start + L):
                    cnt[k] -= 1
                if pack(cnt, nk, chosen + j + 1, nc - j - 1):
                    best_start = start
                    best_cost = cost
                for k in range(start, start + L):
                    cnt[k] += 1
            if best_start < 0:
                break       # cannot happen: the set was packable
            for k in range(best_start, best_start + L):
                code = pick_min(he.two & c.key_bb[e][k], pri)
                b = (<u64>1) << code
                he.one &= ~b
                he.two &= ~b
                play.one |= b
                play.two |= b
                cnt[k] -= 1
            used += L
    if need > used:
        take_pairs(&he, &play, need - used, pri)
    take_cards(&he, &play, s.ncards - hand_count(play), pri)
    return play


cdef hand_t build_follow(const ctx_t* c, const shape_t* s, hand_t hand,
                         const int* pri) noexcept nogil:
    cdef int e = s.eff, fill, t
    cdef hand_t he = hand_mask(hand, c.suit_bb[e])
    cdef hand_t play, rest, tr
    if hand_count(he) >= s.ncards:
        return build_in_suit(c, s, e, hand, pri)
    play = he
    fill = s.ncards - hand_count(he)
    rest = hand_minus(hand, he)
    if c.r.void_fill == FILL_TRUMP_FIRST and e != TRUMP:
        tr = hand_mask(rest, c.suit_bb[TRUMP])
        t = hand_count(tr)
        if t > fill:
            t = fill
        take_cards(&tr, &play, t, pri)
        fill -= t
        rest = hand_minus(hand, play)
    take_cards(&rest, &play, fill, pri)
    return play


# ---------------------------------------------------------------------------------------------
# Card values and preferences

cdef inline int card_pts(int code) noexcept nogil:
    cdef int r
    if code >= SMALL_JOKER:
        return 0
    r = code % 13
    if r == 3:
        return 5
    if r == 8 or r == 11:
        return 10
    return 0


cdef inline int keep_value(const ctx_t* c, hand_t hand, int code) noexcept nogil:
    """How much a player wants to keep a card (higher = keep): trumps over side cards, high
    keys, points, pairs."""
    cdef int v = c.key[code] * 4
    if c.eff[code] == TRUMP:
        v += 100
    elif c.key[code] >= c.nkeys[c.eff[code]] - 1:
        v += 30         # a side-suit ace
    v += card_pts(code) * 5
    if (hand.two >> code) & 1:
        v += 12
    return v


cdef void bots_prepare(table_t* t) noexcept nogil:
    cdef int code, p
    cdef hand_t none = hand_empty()
    for code in range(54):
        t.kv[code] = keep_value(&t.ctx, none, code)
        p = card_pts(code)
        t.fv[code] = -20 * p + (100 if t.ctx.eff[code] == TRUMP else 0) + t.ctx.key[code]


cdef inline void pri_dump_t(const table_t* t, hand_t hand, int* pri) noexcept nogil:
    """Play low, non-point, non-trump cards first (table version)."""
    cdef u64 bits = hand.one & ~hand.two
    cdef int code
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        pri[code] = t.kv[code]
    bits = hand.two
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        pri[code] = t.kv[code] + 12


cdef inline void pri_feed_t(const table_t* t, hand_t hand, int* pri) noexcept nogil:
    """Give points first (10s and Ks, then 5s), side-suit before trump, else low cards."""
    cdef u64 bits = hand.one & t.ctx.point_bb
    cdef int code
    pri_dump_t(t, hand, pri)
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        pri[code] = t.fv[code]


cdef void pri_random(rng_t* rng, hand_t hand, int* pri) noexcept nogil:
    cdef u64 bits = hand.one
    cdef int code
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        pri[code] = rng_below(rng, 1 << 20)


# ---------------------------------------------------------------------------------------------
# Trick helpers

cdef inline int partner_of(int seat) noexcept nogil:
    return (seat + 2) & 3


cdef inline int trick_pts(const ctx_t* c, const trick_t* tr) noexcept nogil:
    cdef int i, p = 0
    for i in range(tr.n):
        p += points_of(tr.plays[i])
    return p


cdef hand_t min_beating(const ctx_t* c, const shape_t* s, int e, hand_t pool, int thr,
                        const int* pri) noexcept nogil:
    """The lowest decisive unit (single, pair or run of the lead's first tractor length) of
    suit e in pool whose strength exceeds thr; empty when there is none."""
    cdef hand_t u = hand_empty()
    cdef u64 bits, r, cards
    cdef int k, start, L, code
    pool = hand_mask(pool, c.suit_bb[e])
    if s.ntractors > 0:
        L = s.tlen[0]
        r = run_starts(pair_key_bits(c, e, pool), L)
        while r:
            start = lsb(r)
            r &= r - 1
            if start + L - 1 > thr:
                for k in range(start, start + L):
                    code = pick_min(pool.two & c.key_bb[e][k], pri)
                    u.one |= (<u64>1) << code
                    u.two |= (<u64>1) << code
                return u
        return u
    # a pair (the lowest pair key above thr) or a single
    if s.npairs > 0:
        bits = pair_key_bits(c, e, pool)
        cards = pool.two
    else:
        bits = card_key_bits(c, e, pool)
        cards = pool.one
    while bits:
        k = lsb(bits)
        bits &= bits - 1
        if k > thr:
            u.one = (<u64>1) << pick_min(cards & c.key_bb[e][k], pri)
            if s.npairs > 0:
                u.two = u.one
            return u
    return u


cdef inline hand_t try_win(const ctx_t* c, const trick_t* tr, hand_t hand, int* pri,
                           bint allow_trump) noexcept nogil:
    """The cheapest play found that takes the trick so far, or an empty hand."""
    return try_win_thr(c, tr, hand, pri, allow_trump, -1)


cdef hand_t try_win_thr(const ctx_t* c, const trick_t* tr, hand_t hand, int* pri,
                        bint allow_trump, int at_least) noexcept nogil:
    """The cheapest play found that takes the trick so far with a decisive unit stronger than
    `at_least` too (a sure win when that is the best unseen answer), or an empty hand."""
    cdef const shape_t* s = &tr.shape
    cdef int w = current_winner(c, tr)
    cdef int weff = tr.win_eff
    cdef int thr, e
    cdef hand_t he = hand_mask(hand, c.suit_bb[s.eff])
    cdef hand_t unit, play
    cdef shape_t st
    cdef int saved[54]
    cdef u64 bits
    cdef int code
    if hand_count(he) >= s.ncards:
        if weff != s.eff:
            return hand_empty()         # trumped: a follow in suit cannot win
        e = s.eff
    elif hand_count(he) == 0 and allow_trump and s.eff != TRUMP:
        if hand_count(hand_mask(hand, c.suit_bb[TRUMP])) < s.ncards:
            return hand_empty()
        e = TRUMP
    else:
        return hand_empty()
    if weff == e:
        thr = tr.win_str if not tr.every else play_strength(c, s, e, tr.plays[w])
    else:
        thr = -1
    if at_least > thr:
        thr = at_least
    unit = min_beating(c, s, e, hand, thr, pri)
    if unit.one == 0:
        return hand_empty()
    # prefer the beating unit, then the usual preference
    bits = unit.one
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        saved[code] = pri[code]
        pri[code] = -BIG
    if e == s.eff:
        play = build_in_suit(c, s, e, hand, pri)
    else:
        st = s[0]
        st.eff = TRUMP
        play = build_in_suit(c, &st, TRUMP, hand, pri)
    bits = unit.one
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        pri[code] = saved[code]
    if would_win(c, tr, play):
        return play
    return hand_empty()


# ---------------------------------------------------------------------------------------------
# What a seat knows: the cards it has not seen and the voids shown

cdef inline hand_t unseen_of(const table_t* t, int seat) noexcept nogil:
    """Cards `seat` has not seen: the deck minus its hand, the cards played and (when it buried
    the kitty) the kitty. Every other hand is inside this set."""
    cdef hand_t full, u
    full.one = ALL_CODES
    full.two = ALL_CODES
    u = hand_minus(full, t.hands[seat])
    u = hand_minus(u, t.played)
    if t.burier == seat:
        u = hand_minus(u, t.buried)
    return u


cdef inline bint ruff_risk(const table_t* t, const plan_t* p, int seat, int e, hand_t unseen,
                           int first_after, int nafter) noexcept nogil:
    """Could an opponent among the next `nafter` seats from `first_after` trump suit e? A void is
    known when shown. V2 counting voids (PLAN_COUNT_VOIDS): it is inferred for everyone when no
    card of e is left outside our hand (the unseen set is exact): a strong player counts the
    suit and does not cash a 'sure' winner into a ruff."""
    cdef int i, s
    cdef bint all_void
    if e == TRUMP or hand_mask(unseen, t.ctx.suit_bb[TRUMP]).one == 0:
        return False
    all_void = p.flags & PLAN_COUNT_VOIDS and hand_mask(unseen, t.ctx.suit_bb[e]).one == 0
    for i in range(nafter):
        s = (first_after + i) & 3
        if (s & 1) == (seat & 1) or (t.void_mask[s] >> TRUMP) & 1:
            continue
        if all_void or (t.void_mask[s] >> e) & 1:
            return True
    return False


cdef hand_t safe_set(const ctx_t* c, int e, hand_t h, hand_t unseen) noexcept nogil:
    """The cards of suit e in h that no unseen single or pair can beat: singles at or above the
    highest unseen card, pairs at or above the highest unseen pair (docs/rules.md §4, so a throw
    of them cannot fail)."""
    cdef hand_t he = hand_mask(h, c.suit_bb[e]), ue = hand_mask(unseen, c.suit_bb[e])
    cdef hand_t out = hand_empty()
    cdef u64 u1 = card_key_bits(c, e, ue), u2 = pair_key_bits(c, e, ue), bits
    cdef int m1 = msb(u1) if u1 else -1, m2 = msb(u2) if u2 else -1, code
    bits = he.one & ~he.two
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        if c.key[code] >= m1:
            out.one |= (<u64>1) << code
    bits = he.two
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        if c.key[code] >= m2:
            out.one |= (<u64>1) << code
            out.two |= (<u64>1) << code
    return out


cdef inline int threat_of(const ctx_t* c, const shape_t* s, int e, hand_t unseen) noexcept nogil:
    """Strength of the best unseen answer in suit e to the lead's decisive unit, or -1."""
    return play_strength(c, s, e, hand_mask(unseen, c.suit_bb[e]))


# ---------------------------------------------------------------------------------------------
# random and the test bots (_chaos, _mute)

cdef hand_t lead_random(table_t* t, int seat, const plan_t* p) noexcept nogil:
    """A uniformly random single, pair or tractor of the hand."""
    cdef const ctx_t* c = &t.ctx
    cdef hand_t h = t.hands[seat]
    cdef unit_t units[MAXUNITS]
    cdef int nsingle = popcount(h.one), npair = popcount(h.two), ntr = 0, n = 0, i, _i, pick
    cdef hand_t out = hand_empty()
    cdef u64 bits
    if npair >= 2:
        n = split_units(c, h, units)
        for i in range(n):
            if units[i].kind == KIND_TRACTOR:
                ntr += 1
    pick = rng_below(t.rng, nsingle + npair + ntr)
    if pick < nsingle:
        bits = h.one
        for _i in range(pick):
            bits &= bits - 1
        out.one = bits & (~bits + 1)
        return out
    pick -= nsingle
    if pick < npair:
        bits = h.two
        for _i in range(pick):
            bits &= bits - 1
        out.one = bits & (~bits + 1)
        out.two = out.one
        return out
    pick -= npair
    for i in range(n):
        if units[i].kind == KIND_TRACTOR:
            if pick == 0:
                return units[i].cards
            pick -= 1
    return out


cdef hand_t lead_chaos(table_t* t, int seat, const plan_t* p) noexcept nogil:
    """A random non-empty subset of one effective suit (often a throw)."""
    cdef const ctx_t* c = &t.ctx
    cdef hand_t h = t.hands[seat], he, out = hand_empty()
    cdef int code, i, _i, n
    cdef u64 bits
    if rng_below(t.rng, 2) == 0:
        return lead_random(t, seat, p)
    code = lsb(h.one)
    n = rng_below(t.rng, popcount(h.one))
    bits = h.one
    for _i in range(n):
        bits &= bits - 1
    code = lsb(bits)
    he = hand_mask(h, c.suit_bb[c.eff[code]])
    bits = he.one
    while bits:
        i = lsb(bits)
        bits &= bits - 1
        if rng_below(t.rng, 3) == 0:
            out = hand_add_card(out, i)
            if (he.two >> i) & 1 and rng_below(t.rng, 2) == 0:
                out = hand_add_card(out, i)
    if out.one == 0:
        out.one = (<u64>1) << code
    return out


cdef hand_t follow_random(table_t* t, int seat, const trick_t* tr, const plan_t* p) noexcept nogil:
    """A legal follow built from a random preference over the hand."""
    cdef int pri[54]
    pri_random(t.rng, t.hands[seat], pri)
    return build_follow(&t.ctx, &tr.shape, t.hands[seat], pri)


cdef hand_t bury_random(table_t* t, int seat, hand_t hand, const plan_t* p) noexcept nogil:
    """8 random cards."""
    cdef int pri[54]
    cdef hand_t out = hand_empty(), pool = hand
    pri_random(t.rng, hand, pri)
    take_cards(&pool, &out, 8, pri)
    return out


cdef int declare_random(table_t* t, int seat, const int* options, int n, int dealt,
                        int standing_seat, int after_burial, const plan_t* p) noexcept nogil:
    """A coin flip, then a random allowed show."""
    if rng_below(t.rng, 2) == 0:
        return rng_below(t.rng, n)
    return -1


cdef int declare_never(table_t* t, int seat, const int* options, int n, int dealt,
                       int standing_seat, int after_burial, const plan_t* p) noexcept nogil:
    """_mute: never calls (so the tests reach every no-call fallback)."""
    return -1


# ---------------------------------------------------------------------------------------------
# basic-v1

cdef inline int longest_run(u64 bits, int* start) noexcept nogil:
    """Length and start of the longest (then highest) run of set bits."""
    cdef int best = 0, k, n
    while bits:
        k = lsb(bits)
        n = 0
        while (bits >> (k + n)) & 1:
            n += 1
        if n >= best:
            best = n
            start[0] = k
        bits &= ~((((<u64>1) << n) - 1) << k)
    return best


cdef hand_t best_side_tractor(const ctx_t* c, hand_t h) noexcept nogil:
    """The longest (then highest) tractor of a side suit, or an empty hand."""
    cdef int e, n, st = 0, best = 1, best_e = -1, best_st = 0, k
    cdef u64 bits
    cdef hand_t out = hand_empty()
    for e in range(4):
        bits = pair_key_bits(c, e, h)
        if popcount(bits) < 2:
            continue
        n = longest_run(bits, &st)
        if n > best or (n == best and best_e >= 0 and st + n > best_st + best):
            best = n
            best_e = e
            best_st = st
    if best_e < 0:
        return out
    for k in range(best_st, best_st + best):
        out.one |= h.two & c.key_bb[best_e][k]
    out.two = out.one
    return out


cdef int count_tractors(const ctx_t* c, hand_t h) noexcept nogil:
    """Tractors of the greedy split (docs/rules.md §3) of a hand."""
    cdef unit_t units[MAXUNITS]
    cdef int e, n = 0, i, k, n2
    cdef u64 bits
    for e in range(5):
        bits = pair_key_bits(c, e, h)
        if popcount(bits) < 2:
            continue
        if e == TRUMP:
            # several pairs can share a key (副级): let the core split
            for k in range(c.nkeys[e]):
                if popcount(h.two & c.key_bb[e][k]) > 1:
                    n2 = split_units(c, hand_mask(h, c.suit_bb[TRUMP]), units)
                    for i in range(n2):
                        if units[i].kind == KIND_TRACTOR:
                            n += 1
                    bits = 0
                    break
        # one pair per key: every maximal run of 2+ keys is one tractor
        n += popcount(bits & (bits >> 1) & ~(bits << 1))
    return n


cdef hand_t top_leads(table_t* t, const plan_t* p, int seat, hand_t h, hand_t unseen,
                      bint guarded) noexcept nogil:
    """Sure winners of a casual player: a side tractor, an ace pair, else an ace of the longest
    suit; an empty hand when there is none. `guarded`: only in a suit no opponent can ruff
    (ruff_risk). V2 keep the lead: expert-v2 cashes these, guarded, before a low lead: cashing a
    top card keeps the initiative; a low lead hands it to the opponents, who then lead their own
    winners (measured: the largest single gain)."""
    cdef const ctx_t* c = &t.ctx
    cdef hand_t he, out = hand_empty()
    cdef int e, top, cnt, best_cnt = -1, best_e = -1
    if popcount(h.two & ~c.suit_bb[TRUMP]) >= 2:
        out = best_side_tractor(c, h)
        if out.one and not (guarded and ruff_risk(t, p, seat, eff_of(c, out), unseen, seat + 1, 3)):
            return out
        out = hand_empty()
    for e in range(4):
        he = hand_mask(h, c.suit_bb[e])
        if he.one == 0 or (guarded and ruff_risk(t, p, seat, e, unseen, seat + 1, 3)):
            continue
        top = c.nkeys[e] - 1
        if he.two & c.key_bb[e][top]:
            out.one = he.two & c.key_bb[e][top]
            out.one &= ~out.one + 1
            out.two = out.one
            return out
        if he.one & c.key_bb[e][top]:
            cnt = hand_count(he)
            if cnt > best_cnt:
                best_cnt = cnt
                best_e = e
    if best_e >= 0:
        out.one = h.one & c.key_bb[best_e][c.nkeys[best_e] - 1]
        out.one &= ~out.one + 1
    return out


cdef hand_t lead_basic(table_t* t, int seat, const plan_t* p) noexcept nogil:
    """Sure winners first (side-suit tractors, ace pairs, aces), else a low card of the
    shortest side suit, else trumps from the bottom."""
    cdef const ctx_t* c = &t.ctx
    cdef hand_t h = t.hands[seat], he, out
    cdef unit_t units[MAXUNITS]
    cdef int n, e, best_len, best_e, code, cnt
    cdef int pri[54]
    out = top_leads(t, p, seat, h, h, False)
    if out.one:
        return out
    # a low card of the shortest side suit
    best_e = -1
    best_len = 99
    for e in range(4):
        cnt = hand_count(hand_mask(h, c.suit_bb[e]))
        if cnt > 0 and cnt < best_len:
            best_len = cnt
            best_e = e
    if best_e >= 0:
        he = hand_mask(h, c.suit_bb[best_e])
        pri_dump_t(t, h, pri)
        code = pick_min(he.one, pri)
        out.one = (<u64>1) << code
        return out
    # only trumps: a tractor, the lowest pair, the lowest single
    if popcount(h.two) >= 2:
        n = split_units(c, h, units)
        if n > 0 and units[0].kind == KIND_TRACTOR:
            return units[0].cards
    pri_dump_t(t, h, pri)
    if h.two:
        code = pick_min(h.two, pri)
        out.one = (<u64>1) << code
        out.two = out.one
        return out
    code = pick_min(h.one, pri)
    out.one = (<u64>1) << code
    return out


cdef hand_t follow_basic(table_t* t, int seat, const trick_t* tr, const plan_t* p) noexcept nogil:
    cdef const ctx_t* c = &t.ctx
    cdef hand_t h = t.hands[seat], play, hp
    cdef int pri[54]
    cdef int w = current_winner(c, tr)
    cdef int wseat = (tr.leader + w) & 3
    cdef int pts = trick_pts(c, tr)
    cdef int e = tr.shape.eff, weff, top
    cdef bint partner_wins = wseat == partner_of(seat)
    cdef bint strong
    # the cards that can be played: the lead's suit when it is enough (trumps too, to ruff)
    hp = hand_mask(h, c.suit_bb[e])
    if hand_count(hp) < tr.shape.ncards:
        hp = h
    if partner_wins:
        strong = tr.n == 3
        if not strong:
            weff = tr.win_eff
            top = tr.win_str if not tr.every else play_strength(c, &tr.shape, weff, tr.plays[w])
            strong = (weff == TRUMP and e != TRUMP) or top >= c.nkeys[weff] - 1
        if strong:
            pri_feed_t(t, hp, pri)
        else:
            pri_dump_t(t, hp, pri)
        return build_follow(c, &tr.shape, h, pri)
    pri_dump_t(t, hp, pri)
    if pts > 0 or tr.n == 3:
        play = try_win(c, tr, h, pri, pts >= 10 or (pts >= 5 and tr.n == 3))
        if play.one:
            return play
    return build_follow(c, &tr.shape, h, pri)


cdef hand_t bury_cheap(table_t* t, int seat, hand_t hand, const plan_t* p) noexcept nogil:
    """The cheapest cards: low, not trump, no points, no pairs, of short side suits. The expert
    makes voids (PLAN_BURY_VOIDS): whole short side suits without aces, pairs or many points
    first. V2 the kitty as a system (PLAN_BURY_POINTS): with 10+ trumps the dealer side usually
    controls the last trick, so a side 10 or K is safer in the kitty than in a hand where it
    would be caught (v1 always kept its points out of the kitty)."""
    cdef const ctx_t* c = &t.ctx
    cdef int pri[54]
    cdef int slen[5]
    cdef int order[4]
    cdef int e, i, j, code, left = 8, tmp, point_cost = 15
    cdef u64 bits
    cdef hand_t out = hand_empty(), pool = hand, he
    for e in range(5):
        slen[e] = hand_count(hand_mask(hand, c.suit_bb[e]))
    if p.flags & PLAN_BURY_POINTS and slen[TRUMP] >= 10:
        point_cost = 0
    bits = hand.one
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        e = c.eff[code]
        pri[code] = t.kv[code] + (12 if (hand.two >> code) & 1 else 0) + \
            point_cost * card_pts(code) + 8 * slen[e]
    if p.flags & PLAN_BURY_VOIDS:
        for e in range(4):
            order[e] = e
        for i in range(4):
            for j in range(i + 1, 4):
                if slen[order[j]] < slen[order[i]]:
                    tmp = order[i]
                    order[i] = order[j]
                    order[j] = tmp
        for i in range(4):
            e = order[i]
            he = hand_mask(hand, c.suit_bb[e])
            if slen[e] == 0 or slen[e] > left or he.two or \
                    he.one & c.key_bb[e][c.nkeys[e] - 1] or hand_points(c, he) > 10:
                continue
            bits = he.one
            while bits:
                code = lsb(bits)
                bits &= bits - 1
                pri[code] -= 100000
            left -= slen[e]
    take_cards(&pool, &out, 8, pri)
    return out


# Declaring: options are show codes of fastsheng._declare (kind * 6 + denom; kind 1 = pair;
# denom 0..3 a suit, 4/5 the jokers)

cdef inline int suit_len(hand_t h, int suit, int level) noexcept nogil:
    """Cards of a printed suit held, level cards excluded."""
    cdef u64 m = ((<u64>1) << 13) - 1
    m = (m << (13 * suit)) & ~((<u64>1) << (13 * suit + level))
    return popcount(h.one & m) + popcount(h.two & m)


cdef int declare_basic(table_t* t, int seat, const int* options, int n, int dealt,
                       int standing_seat, int after_burial, const plan_t* p) noexcept nogil:
    """The longest suit, reinforce own calls, never overcall the partner."""
    cdef int i, denom, best = -1, best_len = -1, L, need
    cdef bint pair
    cdef hand_t h = t.hands[seat]
    if standing_seat >= 0 and standing_seat != seat and partner_of(seat) == standing_seat:
        return -1
    for i in range(n):
        denom = options[i] % 6
        pair = options[i] >= 6
        if denom >= 4:
            continue            # no-trump calls: not a casual player's habit
        L = suit_len(h, denom, t.level)
        if standing_seat == seat:
            if pair:
                return i        # reinforce
            continue
        need = (dealt * 3 + 9) // 10       # about 30% of the cards held
        if need < 3:
            need = 3
        if standing_seat >= 0:
            need += 1
        if after_burial:
            need = 9
        if dealt >= 25 and standing_seat < 0 and not after_burial:
            need = 0            # the last round: call anything rather than nothing
        if L >= need and L > best_len:
            best_len = L
            best = i
    return best


# =============================================================================================
# expert-v1 .. expert-v4: basic plus memory of every card played (docs/bots.md). One lead, one
# follow, one burial and one call for the four versions; a decision a later version changed is a
# plan flag or parameter (_bots.pxd), named in the code by its version (`V2`, `V3`, `V4`
# comments) with why a strong player makes it; each was measured on paired deals against the
# version before and kept only when it won (analysis/paired_bots.py).
# =============================================================================================

# V4 calculated risk, in points (risky_throw_v4): what a throw's risky pair wins when the throw
# stands, what a failure costs besides the penalty (the lead handed over), and the weight of the
# penalty of the rules in force. Measured on paired deals against expert-v3 (docs/bots.md): with
# no penalty, risking at a cost of 25 lost, 40 and 60 won; under 10 per card risky throws lost at
# every penalty weight tried up to 4, so the penalty weighs 8 and the bot risks throws only where
# penalties are absent.
cdef enum:
    RISK_GAIN = 10
    RISK_COST = 40
    RISK_PENALTY_WEIGHT = 8


cdef hand_t lead_expert(table_t* t, int seat, const plan_t* p) noexcept nogil:
    """Sure winners (thrown together), trumps cashed or drawn, a suit the partner can ruff, then
    (v2 on) the top leads and a low pair, else basic's lead."""
    cdef const ctx_t* c = &t.ctx
    cdef hand_t h = t.hands[seat], unseen = unseen_of(t, seat), he, sf, best = hand_empty()
    cdef hand_t out = hand_empty()
    cdef int e, score, best_score = -1, n = hand_count(h), nt, partner = partner_of(seat)
    cdef int pri[54]
    cdef int unseen_trumps = hand_count(hand_mask(unseen, c.suit_bb[TRUMP]))
    cdef double q, best_q = 1.0
    # sure winners of the side suits, thrown together when there are several; v4 adds a risky
    # pair where the rules make the risk worth it
    for e in range(4):
        he = hand_mask(h, c.suit_bb[e])
        if he.one == 0:
            continue
        sf = safe_set(c, e, h, unseen)
        if sf.one == 0 or ruff_risk(t, p, seat, e, unseen, seat + 1, 3):
            continue
        q = 1.0
        if p.flags & PLAN_RISK:
            sf = risky_throw_v4(t, seat, e, h, sf, unseen, &q)
        score = 10 * hand_count(sf) + hand_points(c, sf)
        if score > best_score:
            best_score = score
            best = sf
            best_q = q
    if best.one:
        t.lead_risk = 1.0 - best_q     # the bot's own estimate that its throw fails
        return best
    nt = hand_count(hand_mask(h, c.suit_bb[TRUMP]))
    if nt:
        sf = safe_set(c, TRUMP, h, unseen)
        if sf.one and (unseen_trumps == 0 or nt == n):
            return sf       # every trump left is ours, or nothing else: cash them
        if unseen_trumps > 0:
            out = draw_trumps(t, p, seat, h, sf)
            if out.one:
                return out
    # a suit the partner can trump
    if not (t.void_mask[partner] >> TRUMP) & 1 and unseen_trumps > 0:
        for e in range(4):
            he = hand_mask(h, c.suit_bb[e])
            if he.one and (t.void_mask[partner] >> e) & 1 and \
                    not ruff_risk(t, p, seat, e, unseen, seat + 1, 1):
                pri_dump_t(t, he, pri)
                out.one = (<u64>1) << pick_min(he.one, pri)
                return out
    if p.flags & PLAN_TOP_LEADS:
        out = top_leads(t, p, seat, h, unseen, True)
        if out.one:
            return out
    if p.flags & PLAN_LOW_PAIRS:
        out = low_pair_lead_v2(t, p, seat, h, unseen)
        if out.one:
            return out
    return lead_basic(t, seat, p)


cdef hand_t draw_trumps(table_t* t, const plan_t* p, int seat, hand_t h, hand_t sf) noexcept nogil:
    """The dealer side, long in trump (4+ and 40% of its hand), draws trumps: a sure trump pair
    (of sf, its sure trumps), a sure trump, else its lowest trump; an empty hand when it does not
    draw. V2 drawing trump with a purpose (PLAN_DRAW_SURE): with a sure trump pair or a sure
    trump only. Leading a low trump to draw gives the lead and a trump trick away for nothing
    (measured: a large loss in v1)."""
    cdef const ctx_t* c = &t.ctx
    cdef hand_t ht = hand_mask(h, c.suit_bb[TRUMP]), out = hand_empty()
    cdef int nt = hand_count(ht), n = hand_count(h)
    cdef int pri[54]
    if (seat & 1) != (t.dealer & 1) or nt < 4 or nt * 5 < n * 2:
        return out
    if sf.one == 0 and p.flags & PLAN_DRAW_SURE:
        return out
    pri_dump_t(t, ht, pri)
    if sf.two:
        out.one = (<u64>1) << pick_min(sf.two, pri)
        out.two = out.one
    elif sf.one:
        out.one = (<u64>1) << pick_min(sf.one, pri)
    else:
        out.one = (<u64>1) << pick_min(ht.one & ~ht.two if ht.one & ~ht.two else ht.one, pri)
    return out


cdef hand_t low_pair_lead_v2(table_t* t, const plan_t* p, int seat, hand_t h,
                             hand_t unseen) noexcept nogil:
    """V2 pairs below the top: the lowest side pair (below the ace) of a suit nobody can ruff.
    A strong player leads a low pair rather than a single broken off it: the opponents must
    answer with a pair or break theirs, the pair's partner card is not wasted, and the pair
    often holds the trick (pair leads are rarely beaten)."""
    cdef const ctx_t* c = &t.ctx
    cdef hand_t out = hand_empty()
    cdef int e, code, best = -1, best_key = 99
    cdef u64 bits
    for e in range(4):
        bits = h.two & c.suit_bb[e]
        if bits == 0 or ruff_risk(t, p, seat, e, unseen, seat + 1, 3):
            continue
        while bits:
            code = lsb(bits)
            bits &= bits - 1
            if c.key[code] < c.nkeys[e] - 1 and c.key[code] < best_key:
                best_key = c.key[code]
                best = code
    if best >= 0:
        out.one = (<u64>1) << best
        out.two = out.one
    return out


cdef hand_t follow_expert(table_t* t, int seat, const trick_t* tr, const plan_t* p) noexcept nogil:
    """Feed a partner who surely wins, else win surely or cheaply when it is worth it, else
    discard from the short side suits. The plan: v1's endgame (contest every trick of its last
    `p.endgame` cards), where defenders keep their trump pairs (`p.keep_trump_pairs`), and the
    V2, V3 (PLAN_SECURE) and V4 (PLAN_STAKES) decisions named below."""
    cdef const ctx_t* c = &t.ctx
    cdef hand_t h = t.hands[seat], play, hp, unseen = unseen_of(t, seat)
    cdef int pri[54]
    cdef int slen[5]
    cdef int w = tr.win
    cdef int wseat = (tr.leader + w) & 3
    cdef int pts = trick_pts(c, tr)
    cdef int e = tr.shape.eff, nafter = 3 - tr.n, thr, code, k
    cdef bint partner_wins = wseat == partner_of(seat)
    cdef bint ruffing, worth, secure = p.flags & PLAN_SECURE
    cdef bint endgame = hand_count(h) <= p.endgame
    cdef u64 bits
    if p.flags & PLAN_STAKES:
        pts = stakes_v4(t, seat, pts)
    hp = hand_mask(h, c.suit_bb[e])
    ruffing = hp.one == 0
    if hand_count(hp) < tr.shape.ncards:
        hp = h
    if partner_wins:
        return follow_partner(t, p, seat, tr, hp, unseen, pts, ruffing)
    pri_dump_t(t, hp, pri)
    if hand_count(h) <= p.keep_trump_pairs and (seat & 1) != (t.dealer & 1):
        # defenders keep their trump pairs for the last trick (the kitty's multiplier). V2 the
        # kitty as a system: from mid-hand on (15 cards), so the last trick can be won with a
        # pair (the kitty counts 4x instead of 2x); v1 started only in its last 6 cards, too
        # late to keep them
        bits = hp.two & c.suit_bb[TRUMP]
        while bits:
            code = lsb(bits)
            bits &= bits - 1
            pri[code] += 60
    # an opponent is winning: a sure win when it is worth its cost, else a cheap one
    if nafter > 0:
        thr = threat_of(c, &tr.shape, TRUMP if ruffing else e, unseen)
        if ruffing or not ruff_risk(t, p, seat, e, unseen, seat + 1, nafter):
            play = try_win_thr(c, tr, h, pri, ruffing and (pts >= 5 or endgame), thr)
            if p.flags & PLAN_SPARE_TRUMPS:
                # V2 no top trumps on empty tricks: a sure win over a trump lead costs a top
                # trump (a joker), worth it only with points on the trick; a sure ruff (over
                # every trump unseen) only from 10 points. v1 spent jokers on 0-point tricks and
                # contested every trick of its last 6 cards, which measured as a loss
                worth = pts >= 10 if ruffing else (pts > 0 or e != TRUMP)
            else:
                worth = pts > 0 or endgame or not ruffing
            if play.one and worth:
                return play
    # V3 contest every trick in suit: when an opponent is winning and a cheap card beats it,
    # play it whatever the points (v1, v2: from 5 points, or last). Winning takes the lead, and
    # the lead is worth more than the low card; ruffing still needs 5 points
    if secure or pts >= 5 or nafter == 0:
        play = try_win_thr(c, tr, h, pri, pts >= 5 or endgame, -1)
        if play.one:
            return play
    if hp.one == h.one:
        # filling: discard from the shortest side suits (to make voids), low cards first
        for k in range(5):
            slen[k] = hand_count(hand_mask(h, c.suit_bb[k]))
        bits = h.one
        while bits:
            code = lsb(bits)
            bits &= bits - 1
            if c.eff[code] != TRUMP and c.eff[code] != e:
                pri[code] += 3 * slen[c.eff[code]]
    return build_follow(c, &tr.shape, h, pri)


cdef hand_t follow_partner(table_t* t, const plan_t* p, int seat, const trick_t* tr, hand_t hp,
                           hand_t unseen, int pts, bint ruffing) noexcept nogil:
    """follow_expert when the partner is winning (hp: the cards it may play). Point flow: feed
    points when the partner surely wins, else discard low or take over."""
    cdef const ctx_t* c = &t.ctx
    cdef hand_t h = t.hands[seat], play
    cdef int pri[54]
    cdef int e = tr.shape.eff, nafter = 3 - tr.n
    cdef bint strong = nafter == 0
    if not strong:
        if tr.win_eff == e:
            strong = threat_of(c, &tr.shape, e, unseen) <= tr.win_str and \
                not ruff_risk(t, p, seat, e, unseen, seat + 1, nafter)
        else:   # the partner trumped
            strong = threat_of(c, &tr.shape, TRUMP, unseen) <= tr.win_str or \
                not ruff_risk(t, p, seat, e, unseen, seat + 1, nafter)
    if strong:
        pri_feed_t(t, hp, pri)
    else:
        pri_dump_t(t, hp, pri)
        if (p.flags & PLAN_SECURE or pts >= 10) and not ruffing and \
                hand_count(hand_mask(h, c.suit_bb[e])) >= tr.shape.ncards and \
                not ruff_risk(t, p, seat, e, unseen, seat + 1, nafter):
            # points at stake and the partner may be overtaken: take over with a sure winner.
            # V3 secure the trick: whatever the points (v1, v2: from 10 points), so the trick
            # and the next lead stay on our side
            play = try_win_thr(c, tr, h, pri, False, threat_of(c, &tr.shape, e, unseen))
            if play.one:
                return play
    return build_follow(c, &tr.shape, h, pri)


cdef int declare_expert(table_t* t, int seat, const int* options, int n, int dealt,
                        int standing_seat, int after_burial, const plan_t* p) noexcept nogil:
    """By hand strength: a suit's length, its pairs and high cards, once the best suit holds
    `p.call_share` percent of the cards; no trump with a joker pair when no suit is long and the
    side suits are strong. V2 call early (10%, v1: 15%): in hands mode the side that names trump
    wins far more often (dealer side: 46% with its own trump, 29% with the defenders')."""
    cdef hand_t h = t.hands[seat]
    cdef int i, denom, s, best = -1, best_score = -BIG, score, need, maxlen = 0, aces = 0
    cdef int sc[4]
    cdef bint pair
    cdef u64 m
    for s in range(4):
        m = (((<u64>1) << 13) - 1) << (13 * s)
        m &= ~((<u64>1) << (13 * s + t.level))
        sc[s] = 4 * (popcount(h.one & m) + popcount(h.two & m)) + 2 * popcount(h.two & m)
        sc[s] += 2 * hand_count(hand_mask(h, m & (((<u64>1) << (13 * s + 12)) |
                                                  ((<u64>1) << (13 * s + 11)))))
        if popcount(h.one & m) + popcount(h.two & m) > maxlen:
            maxlen = popcount(h.one & m) + popcount(h.two & m)
        if t.level != 12 and (h.one >> (13 * s + 12)) & 1:
            aces += 1
    if standing_seat >= 0 and standing_seat != seat and partner_of(seat) == standing_seat:
        return -1
    need = (dealt * 4 * p.call_share + 99) // 100 + 6    # the share of the cards, in score units
    if after_burial:
        need = 36
    if dealt >= 25 and standing_seat < 0 and not after_burial:
        need = -BIG
    for i in range(n):
        denom = options[i] % 6
        pair = options[i] >= 6
        if standing_seat == seat:
            if pair and denom < 4:
                return i        # reinforce the own call
            continue
        if denom >= 4:
            if not pair or dealt < 20 or maxlen * 10 > dealt * 3 or aces < 2:
                continue
            score = need + 1    # no trump: long side aces, no long suit
        else:
            score = sc[denom]
        if score >= need and score > best_score:
            best_score = score
            best = i
    return best


cdef double throw_odds(const table_t* t, int seat, int e, hand_t unseen, int code) noexcept nogil:
    """V4 the chance that no other hand holds a pair of side suit e above the pair at `code`:
    each pair above it with both cards unseen must be split between two hands. Both cards are
    placed at random among the hands of the players not known to be void in e, by their sizes
    (public), as a player reckons who knows only the public record; a hand known to hold no
    pair of e (it answered a pair lead of e with singles) cannot hold them together. The kitty
    is left out: a strong burier keeps its high cards, so it rarely holds a card of a higher
    pair (measured: 0.99 failures per expected failure, docs/bots.md)."""
    cdef const ctx_t* c = &t.ctx
    cdef u64 above = unseen.two & c.suit_bb[e] & ~((((<u64>1) << code) << 1) - 1)
    cdef int m = popcount(above), room = 0, n, s
    cdef double same = 0.0
    if m == 0:
        return 1.0
    for s in range(4):
        if s != seat and not (t.void_mask[s] >> e) & 1:
            room += hand_count(t.hands[s])
    if room < 2:
        return 1.0
    for s in range(4):
        if s != seat and not ((t.void_mask[s] | t.nopair_mask[s]) >> e) & 1:
            n = hand_count(t.hands[s])
            same += <double>(n * (n - 1)) / <double>(room * (room - 1))
    return (1.0 - same) ** m


cdef inline int throw_penalty_of(const rules_t* r, int back) noexcept nogil:
    """The penalty in points of a failed throw that takes `back` cards back, under the rules in
    force (half the stake, which the game counts in stakes: weighed as 40 points, what half a
    level is worth)."""
    if r.throw_penalty == PEN_HALF_STAKE:
        return 40
    return throw_penalty_points(r, back)


cdef hand_t risky_throw_v4(const table_t* t, int seat, int e, hand_t h, hand_t sf,
                           hand_t unseen, double* p_out) noexcept nogil:
    """V4 calculated risk: throw the sure winners of side suit e together with its highest other
    pair when that pair is probably (not surely) unbeaten: the higher pairs still out are
    likely split between hands. A strong player takes the risk when the chance of success
    times what the pair wins (a trick it would likely lose later, and its points) beats the
    chance of failure times its cost: the penalty of the rules in force for the cards taken
    back, and the lead handed over. With no penalty it throws freely; with 10 per card it
    throws only near certainty. (Singles are not risked: their beaters are high cards, which
    the burier keeps, so the kitty rarely saves them.)"""
    cdef const ctx_t* c = &t.ctx
    cdef u64 pairs = h.two & c.suit_bb[e] & ~sf.two
    cdef int code, gain, cost
    cdef double p
    cdef hand_t out = sf
    if pairs == 0:
        return sf
    code = msb(pairs)
    p = throw_odds(t, seat, e, unseen, code)
    gain = RISK_GAIN + 2 * card_pts(code)
    cost = RISK_COST + RISK_PENALTY_WEIGHT * throw_penalty_of(&c.r, hand_count(sf))
    if p < 1.0 and p * gain > (1.0 - p) * cost:
        p_out[0] = p
        out.one |= (<u64>1) << code
        out.two |= (<u64>1) << code
    return out


cdef int stakes_v4(const table_t* t, int seat, int pts) noexcept nogil:
    """V4 the level table in force: late in the hand, points that would carry the defenders'
    total across a line of the table (a level more or less, the take-over) are contested as if
    they were 10, whatever their face value; a strong player counts the score against the
    table, not the points on one trick."""
    cdef int la, lb, a, b
    if pts == 0 or pts >= 10 or hand_count(t.hands[seat]) > 8:
        return pts
    a = level_change(&t.ctx.r, t.def_points, &la)
    b = level_change(&t.ctx.r, t.def_points + pts, &lb)
    if a != b or la != lb:
        return 10
    return pts


# =============================================================================================
# The table: each bot is a row of four decisions and the plan they read (_bots.pxd), so a
# decision is one indirect call, as numpy.random's generators call through bitgen_t. Versions
# that make the same decision share its function and differ by their plan (docs/bots.md, "How
# to add a bot version").

# the decisions expert-v2 changed (docs/bots.md, "expert-v2"); v3 and v4 keep them
cdef int PLAN_V2 = PLAN_COUNT_VOIDS | PLAN_DRAW_SURE | PLAN_TOP_LEADS | PLAN_LOW_PAIRS | \
    PLAN_SPARE_TRUMPS | PLAN_BURY_VOIDS | PLAN_BURY_POINTS

cdef bot_t BOT_TABLE[NBOTS]
BOT_TABLE[BOT_RANDOM] = bot_t(
    lead_random, follow_random, bury_random, declare_random, plan_t(0, 0, 0, 0), NULL)
BOT_TABLE[BOT_BASIC] = bot_t(
    lead_basic, follow_basic, bury_cheap, declare_basic, plan_t(0, 0, 0, 0), NULL)
BOT_TABLE[BOT_EXPERT1] = bot_t(
    lead_expert, follow_expert, bury_cheap, declare_expert, plan_t(PLAN_BURY_VOIDS, 15, 6, 6), NULL)
BOT_TABLE[BOT_CHAOS] = bot_t(
    lead_chaos, follow_random, bury_random, declare_random, plan_t(0, 0, 0, 0), NULL)
BOT_TABLE[BOT_MUTE] = bot_t(
    lead_basic, follow_basic, bury_cheap, declare_never, plan_t(0, 0, 0, 0), NULL)
BOT_TABLE[BOT_EXPERT2] = bot_t(
    lead_expert, follow_expert, bury_cheap, declare_expert, plan_t(PLAN_V2, 10, 15, 0), NULL)
BOT_TABLE[BOT_EXPERT3] = bot_t(
    lead_expert, follow_expert, bury_cheap, declare_expert,
    plan_t(PLAN_V2 | PLAN_SECURE, 10, 15, 0), NULL)
BOT_TABLE[BOT_EXPERT4] = bot_t(
    lead_expert, follow_expert, bury_cheap, declare_expert,
    plan_t(PLAN_V2 | PLAN_SECURE | PLAN_RISK | PLAN_STAKES, 10, 15, 0), NULL)
# learned-v1: expert-v4's burial and calls; its lead and follow (a model over the search's
# candidates, fastsheng.bots._learned) and its model are given to the row by the line-up that
# plays it (fastsheng.bots._lineup), in that line-up's own copy of this table
BOT_TABLE[BOT_LEARNED1] = bot_t(
    lead_expert, follow_expert, bury_cheap, declare_expert,
    plan_t(PLAN_V2 | PLAN_SECURE | PLAN_RISK | PLAN_STAKES | PLAN_LEARNED, 10, 15, 0), NULL)


cdef const bot_t* heuristic_rows() noexcept nogil:
    return BOT_TABLE


def table_rows():
    """The C table of bots, a dict per bot index: its plan's fields and the address of each of
    its four decisions (0: not set). tests/test_bots_table.py checks it against
    fastsheng.bots.names.BOT_INDEX."""
    cdef const bot_t* b
    rows = []
    for i in range(NBOTS):
        b = &BOT_TABLE[i]
        rows.append({
            "flags": b.plan.flags, "call_share": b.plan.call_share,
            "keep_trump_pairs": b.plan.keep_trump_pairs, "endgame": b.plan.endgame,
            "lead": <size_t><void*>b.lead, "follow": <size_t><void*>b.follow,
            "bury": <size_t><void*>b.bury, "declare": <size_t><void*>b.declare,
        })
    return rows


cdef const bot_t* bot_row(const table_t* t, int seat) noexcept nogil:
    cdef unsigned int bot = <unsigned int>t.bots[seat]
    cdef const bot_t* rows = t.rows if t.rows != NULL else BOT_TABLE
    return &rows[bot if bot < NBOTS else BOT_BASIC]


cdef hand_t bot_lead(table_t* t, int seat) noexcept nogil:
    cdef const bot_t* b = bot_row(t, seat)
    t.lead_risk = 0.0
    return b.lead(t, seat, &b.plan)


cdef hand_t bot_follow(table_t* t, int seat, const trick_t* tr) noexcept nogil:
    cdef const bot_t* b = bot_row(t, seat)
    return b.follow(t, seat, tr, &b.plan)


cdef hand_t bot_bury(table_t* t, int seat, hand_t hand) noexcept nogil:
    cdef const bot_t* b = bot_row(t, seat)
    return b.bury(t, seat, hand, &b.plan)


cdef int bot_declare(table_t* t, int seat, const int* options, int n, int dealt,
                     int standing_seat, int after_burial) noexcept nogil:
    cdef const bot_t* b = bot_row(t, seat)
    if n == 0:
        return -1
    return b.declare(t, seat, options, n, dealt, standing_seat, after_burial, &b.plan)
