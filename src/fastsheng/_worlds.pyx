# cython: language_level=3
"""Worlds that honour every public fact, rebuilt from a seat's sealed public state.

`public_scrub` turns a copy of a game into what one seat may know: the hidden cards are laid
out canonically (a function of the hidden set alone), the deck positions and burials it did not
see are blanked, the streams and pointers zeroed. From that alone `world_deal` deals the hidden
cards again, uniformly over the deals consistent with the public record:

* voids, shows-out in the trick in progress included, and pair obligations (a seat that
  answered a pair lead without all the pairs it asked holds no pair of that suit);
* every past play replayed against the world's hands: each follow legal (tractors too), each
  throw checked with the same result (one that stood still stands, a failed one fails alike);
* cards taken back after a failed throw stay with the thrower, shown and unplayed cards with
  their seat (or in the kitty it buried), a kitty the seat saw with the seat that took it.

Proposals uniform over the deals that keep the voids (the cards grouped by the places they may
go, the grouping drawn by the number of deals it gives) are kept only when consistent, so the
accepted worlds are uniform over the consistent deals. After `max_tries` proposals a
constrained deal by matching, mixed by swaps and checked the same way, is used: consistent but
not exactly uniform (the world's `sample_exact` is then False). `world_history` then gives the
world a history of its own cards: the deck of its deal (shown cards first in each seat's
sequence, so every call could be made), the dealt hands, the burials and the row's deal
features; nothing of the real deal survives the scrub.
"""

cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    """

from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from fastsheng._bitboard cimport (
    hand_add_card, hand_contains, hand_copies, hand_count, hand_empty, hand_equal, hand_mask,
    hand_minus, hand_t, hand_union, lsb, popcount, u64, u8,
)
from fastsheng._core cimport (
    FOLLOW_SUIT, KIND_THROW, ctx_t, follow_ok, hand_points, lead_shape, shape_t, throw_check)
from fastsheng._game cimport (
    DEC_BURY, DEC_DECLARE, EV_BURY, EV_CHAODI, EV_DEAL, EV_END, EV_REDEAL, EV_RESULT, EV_SHOW,
    EV_TRICK, EV_TRUMP, PH_BURY, PH_CLOSE, PH_DEAL, PH_DONE, PH_FOLLOW, PH_LEAD, PH_SETUP,
    ask_prepare, deal_features, game_t, hand_row_t,
)
from fastsheng._rng cimport rng_below, rng_next, rng_shuffle_u8, rng_split, rng_t

cdef enum:
    LOC_REST = 3             # the location of unseen undealt / kitty cards
    MAX_PINS = 160
    FIX_SWAPS = 20000        # fallback: swaps tried to reach a deal consistent with the plays
    HIDDEN = 255             # a deck position the seat did not see


# ---------------------------------------------------------------------------------------------
# The public record

cdef bint kitty_known(const game_t* g, int seat) noexcept nogil:
    """Does `seat` know the kitty now? Its burier does; so does a seat about to bury."""
    if g.phase == PH_DEAL or g.phase == PH_CLOSE:
        return False
    if g.t.burier == seat:
        return True
    return g.phase == PH_BURY and g.pend_kind == DEC_BURY and g.bury_seat == seat


cdef int read_cards(const short* t, int i, int n, hand_t* out) noexcept nogil:
    """A trace card list (count, then codes; -1 for a blanked code) at i; the next offset."""
    cdef int k, c, m
    out[0] = hand_empty()
    if i >= n:
        return n
    m = t[i]
    for k in range(m):
        if i + 1 + k < n:
            c = t[i + 1 + k]
            if 0 <= c < 54 and hand_copies(out[0], c) < 2:
                out[0] = hand_add_card(out[0], c)
    return i + 1 + m


cdef void hist_parse(const short* t, int n, hist_t* h) noexcept nogil:
    cdef int i = 0, ev, k
    cdef hand_t dummy
    h.ntricks = 0
    h.nbury = 0
    h.ndeal = 0
    while i < n:
        ev = t[i]
        i += 1
        if ev == EV_END:
            break
        if ev == EV_DEAL:
            if h.ndeal < HIST_DEALS:
                h.d_at[h.ndeal] = i
                h.ndeal += 1
            i += 109
        elif ev == EV_SHOW or ev == EV_CHAODI:
            i = read_cards(t, i + 3, n, &dummy)
        elif ev == EV_REDEAL:
            pass
        elif ev == EV_TRUMP:
            i += 4
        elif ev == EV_BURY:
            if h.nbury < HIST_BURIES:
                h.b_seat[h.nbury] = t[i]
                h.b_at[h.nbury] = i + 1
                i = read_cards(t, i + 1, n, &h.b_cards[h.nbury])
                h.nbury += 1
            else:
                i = read_cards(t, i + 1, n, &dummy)
        elif ev == EV_TRICK:
            k = h.ntricks if h.ntricks < HIST_TRICKS else HIST_TRICKS - 1
            h.t_leader[k] = t[i]
            i = read_cards(t, i + 1, n, &h.t_attempt[k])
            h.t_failed[k] = t[i] if i < n else 0
            i += 1
            for ev in range(4):
                i = read_cards(t, i, n, &h.t_plays[k][ev])
            i += 2
            if h.ntricks < HIST_TRICKS:
                h.ntricks += 1
        elif ev == EV_RESULT:
            i += 8
        else:
            break


cdef inline bint bury_seen(const game_t* g, const hist_t* h, int j, int seat) noexcept nogil:
    """Did `seat` see the cards of burial j? Its burier did, and the seat that took them up;
    the final kitty is turned up when the hand is over."""
    if g.phase == PH_DONE and j == h.nbury - 1:
        return True
    if h.b_seat[j] == seat:
        return True
    if j + 1 < h.nbury:
        return h.b_seat[j + 1] == seat
    return g.phase == PH_BURY and g.pend_kind == DEC_BURY and g.bury_seat == seat


cdef inline bint first_kitty_seen(const game_t* g, const hist_t* h, int seat) noexcept nogil:
    """Did `seat` see the kitty as dealt? Only the first burier (or the one about to bury)."""
    if h.nbury:
        return h.b_seat[0] == seat
    return g.phase == PH_BURY and g.pend_kind == DEC_BURY and g.bury_seat == seat


# ---------------------------------------------------------------------------------------------
# The sealed public state

cdef int hidden_layout(const game_t* g, int seat, int* loc_seat, int* cap,
                       hand_t* pool) noexcept nogil:
    """The places of the hidden cards: the three other seats and the rest (undealt cards or an
    unseen kitty), their sizes and their cards. Returns the size of the rest."""
    cdef int j = 0, s, i, nrest = 0
    for s in range(4):
        if s != seat:
            loc_seat[j] = s
            cap[j] = hand_count(g.t.hands[s])
            pool[j] = g.t.hands[s]
            j += 1
    pool[LOC_REST] = hand_empty()
    if g.phase == PH_DEAL:
        nrest = 108 - g.di
        for i in range(g.di, 108):
            pool[LOC_REST] = hand_add_card(pool[LOC_REST], g.deck[i])
    elif not kitty_known(g, seat) and g.phase != PH_DONE:
        nrest = 8
        pool[LOC_REST] = g.kitty
    cap[LOC_REST] = nrest
    return nrest


cdef void public_scrub(game_t* p, hand_row_t* row, short* trace, int trace_len,
                       int seat) noexcept nogil:
    cdef int loc_seat[3]
    cdef int cap[4]
    cdef hand_t pool[4]
    cdef hand_t rest
    cdef hist_t h
    cdef int nrest, L, code, k, _k, cnt, s, i, j, d, first, upto, r
    cdef bint in_deal = p.phase == PH_DEAL, k0_seen
    hist_parse(trace, trace_len, &h)
    nrest = hidden_layout(p, seat, loc_seat, cap, pool)
    k0_seen = first_kitty_seen(p, &h, seat)
    # the hidden cards, canonically: in code order, to the other seats in turn, then the rest
    for L in range(3):
        p.t.hands[loc_seat[L]] = hand_empty()
    rest = hand_empty()
    L = 0
    for code in range(54):
        cnt = 0
        for k in range(4):
            cnt += hand_copies(pool[k], code)
        for _k in range(cnt):
            while L < 3 and hand_count(p.t.hands[loc_seat[L]]) >= cap[L]:
                L += 1
            if L < 3:
                p.t.hands[loc_seat[L]] = hand_add_card(p.t.hands[loc_seat[L]], code)
            else:
                rest = hand_add_card(rest, code)
    if in_deal:
        r = p.di
        for code in range(54):
            for _k in range(hand_copies(rest, code)):
                p.deck[r] = <u8>code
                r += 1
    elif nrest:
        p.kitty = rest
        if p.t.burier >= 0:
            p.t.buried = rest
    # the deck: only the seat's own positions (and the kitty it took up) stay
    upto = p.di if in_deal else 100
    for i in range(108):
        if i < upto:
            if ((p.first + i) & 3) != seat:
                p.deck[i] = HIDDEN
        elif not in_deal and not k0_seen:
            p.deck[i] = HIDDEN
    for s in range(4):
        if s != seat:
            p.dealt[s] = hand_empty()
            p.seen[s] = 0
            p.nopts[s] = 0
            p.dirty[s] = 0
    # streams, pointers, and what the last decisions of other seats computed from their cards
    memset(&p.deal_rng, 0, sizeof(rng_t))
    memset(&p.bot_rng, 0, sizeof(rng_t))
    p.t.rng = NULL
    p.b = NULL
    p.master = NULL
    p.row = NULL
    p.mrow = NULL
    p.t0 = 0
    p.t.lead_risk = 0
    p.bot_lead_cards = hand_empty()
    p.bot_lead_risk = 0
    p.dec_cards = hand_empty()
    p.dec_choice = 0
    p.dec_ready = 0
    p.last_nopts = 0
    if not (p.pend_kind == DEC_DECLARE and p.pend_seat == seat):
        p.nopt = 0
        memset(p.opts, 0, sizeof(p.opts))
        memset(p.opt_acts, 0, sizeof(p.opt_acts))
    # the row: what the deal and the leaders' private estimates put there
    if not k0_seen:
        row.kitty_points_dealt = 0
    if not kitty_known(p, seat) and p.phase != PH_DONE:
        row.kitty_points_buried = 0
    row.throw_risk = 0
    for s in range(4):
        row.trumps[s] = 0
        row.pairs[s] = 0
        row.tractors[s] = 0
        row.jokers[s] = 0
        row.points[s] = 0
        row.level_cards[s] = 0
    # the trace: deals and burials as the seat saw them
    for d in range(h.ndeal):
        first = trace[h.d_at[d]]
        upto = (p.di if in_deal else 100) if d == h.ndeal - 1 else 100
        for i in range(108):
            if i < upto and ((first + i) & 3) == seat:
                continue
            if i >= 100 and d == h.ndeal - 1 and not in_deal and k0_seen:
                continue
            if h.d_at[d] + 1 + i < trace_len:
                trace[h.d_at[d] + 1 + i] = -1
    for j in range(h.nbury):
        if bury_seen(p, &h, j, seat) or h.b_at[j] >= trace_len:
            continue
        for i in range(trace[h.b_at[j]]):
            if h.b_at[j] + 1 + i < trace_len:
                trace[h.b_at[j] + 1 + i] = -1


# ---------------------------------------------------------------------------------------------
# Consistency with the plays

cdef bint trick_ok(const ctx_t* c, const hand_t* cur, int leader, hand_t attempt, int failed,
                   const hand_t* plays, int n) noexcept nogil:
    """With `cur` the hands as the trick began: its lead held, its throw check alike, every
    follow legal."""
    cdef shape_t s, sa
    cdef hand_t others[3]
    cdef hand_t actual
    cdef int i, f = 0
    if lead_shape(c, plays[0], &s) < 0:
        return False
    if failed or (lead_shape(c, attempt, &sa) == 0 and sa.kind == KIND_THROW):
        if not hand_contains(cur[leader], attempt):
            return False
        for i in range(3):
            others[i] = cur[(leader + 1 + i) & 3]
        actual = throw_check(c, attempt, others, 3, &f)
        if f != failed or not hand_equal(actual, plays[0]):
            return False
    for i in range(1, n):
        if not follow_ok(c, &s, cur[(leader + i) & 3], plays[i]):
            return False
    return True


cdef bint play_consistent(const game_t* g, const hand_t* hands, const hist_t* h) noexcept nogil:
    cdef hand_t cur[4]
    cdef int k, i, s, leader
    if g.phase < PH_LEAD:
        return True
    for s in range(4):
        cur[s] = hands[s]
    if g.phase == PH_FOLLOW:
        for i in range(g.tr.n):
            s = (g.tr.leader + i) & 3
            cur[s] = hand_union(cur[s], g.tr.plays[i])
        if not trick_ok(&g.t.ctx, cur, g.tr.leader, g.attempt, g.failed, g.tr.plays, g.tr.n):
            return False
    for k in range(h.ntricks - 1, -1, -1):
        leader = h.t_leader[k]
        for i in range(4):
            s = (leader + i) & 3
            cur[s] = hand_union(cur[s], h.t_plays[k][i])
        if not trick_ok(&g.t.ctx, cur, leader, h.t_attempt[k], h.t_failed[k], h.t_plays[k], 4):
            return False
    return True


# ---------------------------------------------------------------------------------------------
# Dealing a world

cdef struct pins_t:
    int n
    int code[MAX_PINS]
    int need[MAX_PINS]
    int loc[MAX_PINS]        # bit mask of the locations that may hold the pinned copies


cdef void pin(pins_t* p, int code, int need, int loc) noexcept nogil:
    if need > 0 and p.n < MAX_PINS:
        p.code[p.n] = code
        p.need[p.n] = need
        p.loc[p.n] = loc
        p.n += 1


cdef void pin_hand(pins_t* p, hand_t cards, hand_t gone, int loc) noexcept nogil:
    """Pin the copies of `cards` not in `gone` to `loc`."""
    cdef u64 bits = cards.one
    cdef int code
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        pin(p, code, hand_copies(cards, code) - hand_copies(gone, code), loc)


cdef void build_pins(const game_t* g, int seat, const int* loc_seat, int nrest,
                     const hist_t* h, pins_t* p) noexcept nogil:
    """Cards known to be with a seat: shown and unplayed ones (or in the kitty it buried), cards
    taken back after its failed throws and not played since, and a kitty the observer saw that
    this seat took up (minus what it played)."""
    cdef int j, s, i, k, jb, rest_bit
    cdef hand_t gone, later, back
    cdef bint in_deal = g.phase == PH_DEAL
    p.n = 0
    for j in range(3):
        s = loc_seat[j]
        gone = g.t.played_by[s] if g.phase >= PH_LEAD else hand_empty()
        if g.phase == PH_FOLLOW:
            for i in range(g.tr.n):
                if ((g.tr.leader + i) & 3) == s:
                    gone = hand_union(gone, g.tr.plays[i])
        rest_bit = (1 << LOC_REST) if (g.t.burier == s and nrest and not in_deal) else 0
        pin_hand(p, g.shown[s], gone, (1 << j) | rest_bit)
        if g.phase < PH_LEAD:
            continue
        # taken back after a failed throw: held since, unless played later
        later = hand_empty()
        if g.phase == PH_FOLLOW:
            if g.tr.leader == s and g.failed:
                pin_hand(p, hand_minus(g.attempt, g.tr.plays[0]), hand_empty(), 1 << j)
            for i in range(g.tr.n):
                if ((g.tr.leader + i) & 3) == s:
                    later = hand_union(later, g.tr.plays[i])
        for k in range(h.ntricks - 1, -1, -1):
            if h.t_failed[k] and h.t_leader[k] == s and \
                    hand_contains(h.t_attempt[k], h.t_plays[k][0]):
                back = hand_minus(h.t_attempt[k], h.t_plays[k][0])
                pin_hand(p, back, hand_mask(later, back.one), 1 << j)
            for i in range(4):
                if ((h.t_leader[k] + i) & 3) == s:
                    later = hand_union(later, h.t_plays[k][i])
        # a burial the observer saw, taken up by s
        for jb in range(h.nbury - 1):
            if h.b_seat[jb + 1] == s and bury_seen(g, h, jb, seat):
                pin_hand(p, h.b_cards[jb], hand_mask(g.t.played_by[s], h.b_cards[jb].one),
                         (1 << j) | rest_bit)


cdef bint pins_hold(const pins_t* p, const int* card, const int* where, int n) noexcept nogil:
    cdef int k, i, cnt
    for k in range(p.n):
        cnt = 0
        for i in range(n):
            if card[i] == p.code[k] and (p.loc[k] >> where[i]) & 1:
                cnt += 1
        if cnt < p.need[k]:
            return False
    return True


cdef bint deal_ok(const game_t* g, int seat, const int* loc_seat, const int* card,
                  const int* where, int n, const pins_t* p, const int* nopair,
                  const hist_t* h, hand_t* hands) noexcept nogil:
    """Pins, pair obligations and every past play, for the deal card[i] -> where[i]."""
    cdef int i, j, e
    if not pins_hold(p, card, where, n):
        return False
    for j in range(3):
        hands[loc_seat[j]] = hand_empty()
    hands[seat] = g.t.hands[seat]
    for i in range(n):
        if where[i] < 3:
            j = loc_seat[where[i]]
            hands[j] = hand_add_card(hands[j], card[i])
    if g.phase >= PH_LEAD:
        for j in range(3):
            if nopair[j]:
                for e in range(5):
                    if (nopair[j] >> e) & 1 and hands[loc_seat[j]].two & g.t.ctx.suit_bb[e]:
                        return False
    return play_consistent(g, hands, h)


cdef bint kuhn(int c, const int* allowed, const int* slot, int nslot, int* slot_card,
               int* visited) noexcept nogil:
    cdef int s
    for s in range(nslot):
        if (allowed[c] >> slot[s]) & 1 and not visited[s]:
            visited[s] = 1
            if slot_card[s] < 0 or kuhn(slot_card[s], allowed, slot, nslot, slot_card, visited):
                slot_card[s] = c
                return True
    return False


cdef bint match_slots(int n, const int* allowed, const int* slot, int nslot,
                      int* card_slot) noexcept nogil:
    """A slot for every card within its allowed locations (Kuhn's augmenting paths)."""
    cdef int slot_card[108]
    cdef int visited[108]
    cdef int c, s
    for s in range(nslot):
        slot_card[s] = -1
    for c in range(n):
        for s in range(nslot):
            visited[s] = 0
        if not kuhn(c, allowed, slot, nslot, slot_card, visited):
            return False
    for s in range(nslot):
        if slot_card[s] >= 0:
            card_slot[slot_card[s]] = s
    return True


# ---------------------------------------------------------------------------------------------
# Proposals that keep the voids, uniform over the deals that do

cdef enum:
    MAX_GROUPINGS = 20000    # more ways to split the groups among the places: plain permutations


cdef struct genum_t:
    int n
    int G                    # groups of cards with the same allowed places
    int gmask[16]
    int gn[16]
    int goff[16]             # group g's cards are memb[goff[g] .. goff[g] + gn[g])
    int memb[108]
    int cap[4]
    int x[16][4]             # the grouping being enumerated: cards of group g to place L
    int later[16][4]         # cards of the groups after g that may go to place L
    int count
    bint store
    double total
    double* cum              # cumulative weights of the groupings (store pass)
    u8* mats                 # the groupings, G * 4 counts each
    double inv_fact[109]


cdef void genum_rec(genum_t* e, int g, int L, int left, double w) noexcept nogil:
    cdef int k, lo, hi, i, j, room
    if e.count > MAX_GROUPINGS:
        return
    if g == e.G:
        for k in range(4):
            if e.cap[k]:
                return
        e.total += w
        if e.store:
            e.cum[e.count] = e.total
            for i in range(e.G):
                for j in range(4):
                    e.mats[(e.count * e.G + i) * 4 + j] = <u8>e.x[i][j]
        e.count += 1
        return
    if L == 4:
        if left == 0:
            genum_rec(e, g + 1, 0, e.gn[g + 1] if g + 1 < e.G else 0, w)
        return
    if not (e.gmask[g] >> L) & 1:
        e.x[g][L] = 0
        genum_rec(e, g, L + 1, left, w)
        return
    hi = left if left < e.cap[L] else e.cap[L]
    lo = 0
    if not (e.gmask[g] >> (L + 1)):         # the group's last place takes the rest
        if left > e.cap[L]:
            return
        lo = left
    # prune: what the later groups can still put here, and what this group's later places hold
    if lo < e.cap[L] - e.later[g][L]:
        lo = e.cap[L] - e.later[g][L]
    room = 0
    for i in range(L + 1, 4):
        if (e.gmask[g] >> i) & 1:
            room += e.cap[i]
    if lo < left - room:
        lo = left - room
    for k in range(lo, hi + 1):
        e.x[g][L] = k
        e.cap[L] -= k
        genum_rec(e, g, L + 1, left - k, w * e.inv_fact[k])
        e.cap[L] += k


cdef bint group_setup(genum_t* e, const int* card, const int* allowed, int n,
                      const int* cap) noexcept nogil:
    """Group the cards by their allowed places and list every grouping (two passes: count,
    then store). False when there are too many (or none)."""
    cdef int i, g, k
    e.n = n
    e.G = 0
    e.cum = NULL
    e.mats = NULL
    for i in range(n):
        for g in range(e.G):
            if e.gmask[g] == allowed[i]:
                break
        else:
            g = e.G
            e.gmask[g] = allowed[i]
            e.gn[g] = 0
            e.G += 1
        e.gn[g] += 1
    if e.G == 0:
        return False
    k = 0
    for g in range(e.G):
        e.goff[g] = k
        k += e.gn[g]
        e.gn[g] = 0
    for i in range(n):
        for g in range(e.G):
            if e.gmask[g] == allowed[i]:
                e.memb[e.goff[g] + e.gn[g]] = i
                e.gn[g] += 1
                break
    for g in range(e.G):
        for i in range(4):
            e.later[g][i] = 0
            for k in range(g + 1, e.G):
                if (e.gmask[k] >> i) & 1:
                    e.later[g][i] += e.gn[k]
    e.inv_fact[0] = 1.0
    for k in range(1, 109):
        e.inv_fact[k] = e.inv_fact[k - 1] / k
    for k in range(2):
        for i in range(4):
            e.cap[i] = cap[i]
        e.count = 0
        e.total = 0
        e.store = k == 1
        genum_rec(e, 0, 0, e.gn[0], 1.0)
        if e.count == 0 or e.count > MAX_GROUPINGS or e.total <= 0:
            group_free(e)
            return False
        if k == 0:
            e.cum = <double*>malloc(e.count * sizeof(double))
            e.mats = <u8*>malloc(e.count * e.G * 4)
            if e.cum == NULL or e.mats == NULL:
                group_free(e)
                return False
    return True


cdef void group_free(genum_t* e) noexcept nogil:
    free(e.cum)
    free(e.mats)
    e.cum = NULL
    e.mats = NULL


cdef void group_propose(genum_t* e, rng_t* rng, int* where) noexcept nogil:
    """A grouping drawn by its weight, then which cards of each group go where."""
    cdef double u = (rng_next(rng) >> 11) * (1.0 / 9007199254740992.0) * e.total
    cdef int lo = 0, hi = e.count - 1, mid, g, L, _t, pos, i, j, tmp
    cdef int* m
    while lo < hi:
        mid = (lo + hi) >> 1
        if e.cum[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    for g in range(e.G):
        m = &e.memb[e.goff[g]]
        for i in range(e.gn[g] - 1, 0, -1):
            j = rng_below(rng, i + 1)
            tmp = m[i]
            m[i] = m[j]
            m[j] = tmp
        pos = 0
        for L in range(4):
            for _t in range(e.mats[(lo * e.G + g) * 4 + L]):
                where[m[pos]] = L
                pos += 1


cdef struct setup_t:
    # what world_deal works out from the public state once, before any draw
    const game_t* pub
    const hist_t* h
    int seat, n, nslot, grouped
    int loc_seat[3]
    int cap[4]
    int card[108]            # the hidden cards in code order
    int allowed[108]         # the places each may go (voids)
    int slot[108]
    int nopair[3]
    int memb0[108]           # ge.memb as set up: each world's draws start from it
    pins_t pins
    genum_t ge


cdef void deal_prepare(const game_t* pub, int seat, const hist_t* h, setup_t* s) noexcept nogil:
    """Everything world_deal reads of the public state: the hidden cards, their places, the
    pins and the groupings (no draw)."""
    cdef int voids[3]
    cdef hand_t pool[4]
    cdef hand_t play
    cdef int i, j, k, _k, L, code, cnt, nrest, e
    cdef const shape_t* sh = &pub.tr.shape
    s.pub = pub
    s.h = h
    s.seat = seat
    s.n = 0
    s.nslot = 0
    nrest = hidden_layout(pub, seat, s.loc_seat, s.cap, pool)
    # voids and pair obligations, those shown in the trick in progress included
    for j in range(3):
        k = s.loc_seat[j]
        voids[j] = pub.t.void_mask[k] if pub.phase >= PH_LEAD else 0
        s.nopair[j] = pub.t.nopair_mask[k] if pub.phase >= PH_LEAD else 0
        if pub.phase == PH_FOLLOW:
            for i in range(1, pub.tr.n):
                if ((pub.tr.leader + i) & 3) != k:
                    continue
                play = pub.tr.plays[i]
                e = sh.eff
                if hand_count(hand_mask(play, pub.t.ctx.suit_bb[e])) < sh.ncards:
                    voids[j] |= 1 << e
                elif sh.npairs and (sh.kind != KIND_THROW or
                                    pub.t.ctx.r.throw_follow != FOLLOW_SUIT) and \
                        popcount(play.two & pub.t.ctx.suit_bb[e]) < sh.npairs:
                    s.nopair[j] |= 1 << e
    # the hidden cards in code order (the draws depend on the hidden set, never on its layout)
    for code in range(54):
        cnt = 0
        for L in range(4):
            cnt += hand_copies(pool[L], code)
        for _k in range(cnt):
            s.card[s.n] = code
            s.allowed[s.n] = (1 << LOC_REST) if nrest else 0
            for j in range(3):
                if not (voids[j] >> pub.t.ctx.eff[code]) & 1 or pub.phase < PH_LEAD:
                    s.allowed[s.n] |= 1 << j
            s.n += 1
    build_pins(pub, seat, s.loc_seat, nrest, h, &s.pins)
    for L in range(4):
        for _k in range(s.cap[L]):
            s.slot[s.nslot] = L
            s.nslot += 1
    s.grouped = group_setup(&s.ge, s.card, s.allowed, s.n, s.cap)
    if s.grouped:
        memcpy(s.memb0, s.ge.memb, s.n * sizeof(int))


cdef int deal_draw(setup_t* s, game_t* dst, rng_t* rng, int max_tries) noexcept nogil:
    """One world from a prepared setup (the same draws world_deal makes from a fresh one)."""
    cdef const game_t* pub = s.pub
    cdef int card[108]
    cdef int allowed[108]
    cdef int where[108]
    cdef hand_t hands[4]
    cdef int i, _tries, n = s.n, exact = 0
    memcpy(dst, pub, sizeof(game_t))
    memcpy(card, s.card, n * sizeof(int))
    memcpy(allowed, s.allowed, n * sizeof(int))
    # rejection among proposals that keep the voids, drawn uniformly over the deals that keep
    # them (the voids group the cards by the places they may go: draw how many of each group go
    # to each place, weighted by the deals it gives, then which): uniform over the consistent
    # deals once the rest of the checks are passed
    if s.grouped:
        memcpy(s.ge.memb, s.memb0, n * sizeof(int))
        for _tries in range(max_tries):
            group_propose(&s.ge, rng, where)
            if deal_ok(pub, s.seat, s.loc_seat, card, where, n, &s.pins, s.nopair, s.h, hands):
                exact = 1
                break
        max_tries = 0 if exact else max_tries
    # (too many groupings to list: uniform permutations of all the hidden cards)
    for _tries in range(max_tries):
        shuffle_cards(card, allowed, n, rng)
        if slots_allowed(allowed, s.slot, n) and deal_ok(
                pub, s.seat, s.loc_seat, card, s.slot, n, &s.pins, s.nopair, s.h, hands):
            exact = 1
            for i in range(n):
                where[i] = s.slot[i]
            break
    if not exact:
        fallback(pub, s.seat, s.loc_seat, card, allowed, s.slot, s.nslot, where, n, &s.pins,
                 s.nopair, s.h, hands, rng)
    write_deal(pub, dst, s.seat, s.loc_seat, card, where, n)
    # while dealing, the undealt cards come out of write_deal in code order: in the world they
    # are dealt in a random order (each seat's next cards and the kitty uniform among them)
    if pub.phase == PH_DEAL and pub.di < 108:
        rng_shuffle_u8(rng, &dst.deck[pub.di], 108 - pub.di)
    # while calling, the other seats' calling state came from their real cards (whether they
    # could show, when they were last asked): in the world they are asked afresh at their turn
    if pub.phase == PH_DEAL or pub.phase == PH_CLOSE:
        for i in range(4):
            if i != s.seat:
                dst.dirty[i] = 1
                dst.seen[i] = -1
                dst.nopts[i] = 0
    rng_split(rng, &dst.deal_rng)
    rng_split(rng, &dst.bot_rng)
    return exact


cdef inline void deal_release(setup_t* s) noexcept nogil:
    if s.grouped:
        group_free(&s.ge)
        s.grouped = 0


cdef int world_deal(const game_t* pub, game_t* dst, int seat, rng_t* rng, int max_tries,
                    const hist_t* h) noexcept nogil:
    cdef setup_t s
    cdef int exact
    deal_prepare(pub, seat, h, &s)
    exact = deal_draw(&s, dst, rng, max_tries)
    deal_release(&s)
    return exact


cdef void fallback(const game_t* pub, int seat, const int* loc_seat, const int* card,
                   int* allowed, const int* slot, int nslot, int* where, int n,
                   const pins_t* pins, const int* nopair, const hist_t* h, hand_t* hands,
                   rng_t* rng) noexcept nogil:
    """Pin specific copies, find a deal by bipartite matching (cards to slots), mix it with
    random swaps that keep voids and pins (a symmetric chain), then keep swapping until the deal
    passes every check (consistent, not exactly uniform)."""
    cdef int i, j, k, cnt, tmp
    cdef int fixed[108]
    for i in range(n):
        fixed[i] = allowed[i]
    for k in range(pins.n):
        cnt = pins.need[k]
        for i in range(n):
            if cnt and card[i] == pins.code[k] and fixed[i] & pins.loc[k]:
                fixed[i] &= pins.loc[k]
                cnt -= 1
    if not match_slots(n, fixed, slot, nslot, where):
        # no deal keeps the voids (cannot happen for a real game): deal in order
        for i in range(n):
            where[i] = slot[i]
        return
    for i in range(n):
        where[i] = slot[where[i]]
    for k in range(200 * n + FIX_SWAPS):
        if k >= 200 * n and deal_ok(pub, seat, loc_seat, card, where, n, pins, nopair, h, hands):
            return
        i = rng_below(rng, n)
        j = rng_below(rng, n)
        if where[i] != where[j] and (fixed[i] >> where[j]) & 1 and (fixed[j] >> where[i]) & 1:
            tmp = where[i]
            where[i] = where[j]
            where[j] = tmp


cdef void write_deal(const game_t* src, game_t* dst, int seat, const int* loc_seat,
                     const int* card, const int* where, int n) noexcept nogil:
    """Put the hidden cards where `where` says: a seat's hand, or the rest (the undealt deck
    while dealing, else the kitty)."""
    cdef int i, L, r = src.di
    cdef bint in_deal = src.phase == PH_DEAL, rest = False
    for i in range(n):
        if where[i] == LOC_REST:
            rest = True
    for L in range(3):
        dst.t.hands[loc_seat[L]] = hand_empty()
    if rest and not in_deal:
        dst.kitty = hand_empty()
    for i in range(n):
        L = where[i]
        if L < 3:
            dst.t.hands[loc_seat[L]] = hand_add_card(dst.t.hands[loc_seat[L]], card[i])
        elif in_deal:
            dst.deck[r] = <u8>card[i]
            r += 1
        else:
            dst.kitty = hand_add_card(dst.kitty, card[i])
    if rest and not in_deal and dst.t.burier >= 0:
        dst.t.buried = dst.kitty


# ---------------------------------------------------------------------------------------------
# The world's own history

cdef int hand_codes(hand_t hd, int* out) noexcept nogil:
    cdef u64 bits = hd.one
    cdef int code, n = 0
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        out[n] = code
        n += 1
        if (hd.two >> code) & 1:
            out[n] = code
            n += 1
    return n


cdef void shuffle_ints(rng_t* rng, int* a, int n) noexcept nogil:
    cdef int i, j, t
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


cdef hand_t draw_kitty(rng_t* rng, hand_t pool, hand_t keep) noexcept nogil:
    """8 cards of `pool` drawn at random, avoiding the copies in `keep` when it can."""
    cdef int codes[108]
    cdef int n, i
    cdef hand_t k = hand_empty(), avail = pool, kept
    kept = hand_empty()
    n = hand_codes(keep, codes)
    for i in range(n):
        if hand_copies(avail, codes[i]) > 0 and \
                hand_copies(kept, codes[i]) < hand_copies(keep, codes[i]):
            kept = hand_add_card(kept, codes[i])
    avail = hand_minus(pool, kept)
    n = hand_codes(avail, codes)
    if n < 8:
        n = hand_codes(pool, codes)
    shuffle_ints(rng, codes, n)
    for i in range(8 if n >= 8 else n):
        k = hand_add_card(k, codes[i])
    return k


cdef void write_cards(short* trace, int tlen, int at, hand_t cards) noexcept nogil:
    """Overwrite a blanked trace card list at `at` with `cards` (code order)."""
    cdef int codes[108]
    cdef int n = hand_codes(cards, codes), i
    if at >= tlen or at + 1 + trace[at] > tlen:
        return
    for i in range(trace[at]):
        trace[at + 1 + i] = codes[i] if i < n else -1


cdef void seat_sequence(const game_t* g, int s, hand_t cards, short* trace, int trace_len,
                        rng_t* rng, int* out, int* nout) noexcept nogil:
    """The order `s` got `cards` in: the cards of its calls first, call by call, so each call
    could be made when it was; the rest at random."""
    cdef int codes[108]
    cdef int i = 0, ev, seat, k, n, m = 0, c
    cdef hand_t placed = hand_empty(), show, rest
    while i < trace_len:
        ev = trace[i]
        i += 1
        if ev == EV_END:
            break
        if ev == EV_DEAL:
            placed = hand_empty()
            m = 0
            i += 109
        elif ev == EV_SHOW or ev == EV_CHAODI:
            seat = trace[i]
            i = read_cards(trace, i + 3, trace_len, &show)
            if seat != s or ev == EV_CHAODI:
                continue
            n = hand_codes(show, codes)
            for k in range(n):
                c = codes[k]
                if hand_copies(placed, c) < hand_copies(show, c) and \
                        hand_copies(placed, c) < hand_copies(cards, c):
                    placed = hand_add_card(placed, c)
                    out[m] = c
                    m += 1
        elif ev == EV_TRUMP:
            i += 4
        elif ev == EV_BURY:
            i = read_cards(trace, i + 1, trace_len, &show)
        elif ev == EV_TRICK or ev == EV_RESULT:
            break
    rest = hand_minus(cards, placed)
    n = hand_codes(rest, codes)
    shuffle_ints(rng, codes, n)
    for k in range(n):
        out[m] = codes[k]
        m += 1
    nout[0] = m


cdef void world_history(game_t* g, int seat, rng_t* rng, const hist_t* h) noexcept nogil:
    cdef short* trace = g.b.trace
    cdef int tlen = g.b.trace_len
    cdef hand_t cur[4]
    cdef hand_t k, took
    cdef int seq[108]
    cdef int codes[108]
    cdef int counts[54]
    cdef int s, i, _i, j, d, m, n, at, first, upto, b, c
    cdef bint in_deal = g.phase == PH_DEAL, setup_done = g.phase > PH_SETUP
    cdef bint have_k0 = False
    k = g.kitty
    for s in range(4):
        cur[s] = g.t.hands[s]
        if setup_done and g.phase >= PH_LEAD:
            cur[s] = hand_union(cur[s], g.t.played_by[s])
    if g.phase == PH_FOLLOW:
        for i in range(g.tr.n):
            s = (g.tr.leader + i) & 3
            cur[s] = hand_union(cur[s], g.tr.plays[i])
    if not in_deal:
        # the burials, last first: each burier gets back what it buried and gives back what it
        # took up (seen by this seat, or drawn from its cards, keeping those it showed)
        for j in range(h.nbury - 1, -1, -1):
            b = h.b_seat[j]
            if h.b_at[j] + 1 < tlen and trace[h.b_at[j] + 1] < 0:
                write_cards(trace, tlen, h.b_at[j], k)
            cur[b] = hand_union(cur[b], k)
            if j > 0 and h.b_at[j - 1] + 1 < tlen and trace[h.b_at[j - 1] + 1] >= 0:
                took = h.b_cards[j - 1]
            elif j == 0 and g.deck[100] != HIDDEN:
                took = hand_empty()
                for i in range(100, 108):
                    took = hand_add_card(took, g.deck[i])
            else:
                took = draw_kitty(rng, cur[b], g.shown[b])
            if hand_contains(cur[b], took):
                cur[b] = hand_minus(cur[b], took)
            k = took
        have_k0 = h.ndeal > 0
        if setup_done:
            for s in range(4):
                g.dealt[s] = cur[s]
    # the deck of the deal: each other seat's cards in its positions, the kitty after them
    if h.ndeal and h.d_at[h.ndeal - 1] + 109 <= tlen:
        at = h.d_at[h.ndeal - 1]
        first = trace[at]
        upto = g.di if in_deal else 100
        for s in range(4):
            if s == seat:
                continue
            seat_sequence(g, s, cur[s], trace, tlen, rng, seq, &n)
            m = 0
            for i in range(upto):
                if ((first + i) & 3) == s and m < n:
                    g.deck[i] = <u8>seq[m]
                    m += 1
        if have_k0 and g.deck[100] == HIDDEN:
            n = hand_codes(k, codes)
            shuffle_ints(rng, codes, n)
            for i in range(8):
                g.deck[100 + i] = <u8>codes[i] if i < n else 0
        for i in range(108):
            trace[at + 1 + i] = g.deck[i]
        if setup_done:
            g.row.kitty_points_dealt = <u8>hand_points(&g.t.ctx, k)
    # earlier deals (a hand 1 nobody called): the cards this seat did not see, at random
    for d in range(h.ndeal - 1):
        at = h.d_at[d]
        for c in range(54):
            counts[c] = 2
        for i in range(108):
            c = trace[at + 1 + i]
            if 0 <= c < 54 and counts[c] > 0:
                counts[c] -= 1
        n = 0
        for c in range(54):
            for _i in range(counts[c]):
                codes[n] = c
                n += 1
        shuffle_ints(rng, codes, n)
        m = 0
        for i in range(108):
            if trace[at + 1 + i] < 0 and m < n:
                trace[at + 1 + i] = codes[m]
                m += 1
    if g.phase >= PH_LEAD:
        g.row.kitty_points_buried = <u8>hand_points(&g.t.ctx, g.kitty)
        deal_features(g, g.row)
    # the other seats' calling state came from their cards: they are asked afresh
    if g.phase == PH_DEAL or g.phase == PH_CLOSE:
        for s in range(4):
            if s != seat:
                g.dirty[s] = 1
        if g.pend_kind == DEC_DECLARE and g.pend_seat != seat:
            ask_prepare(g, g.pend_seat)


# ---------------------------------------------------------------------------------------------
# The search's entry point

cdef int world_from_game(const game_t* g, game_t* dst, int seat, rng_t* rng,
                         int max_tries) noexcept nogil:
    """world_deal from the live game with an empty record of past tricks: world_deal reads the
    hidden set in code order only, so the draws depend on what `seat` may know alone."""
    cdef hist_t h
    h.ntricks = 0
    h.nbury = 0
    h.ndeal = 0
    return world_deal(g, dst, seat, rng, max_tries, &h)


cdef struct maker_t:
    hist_t h                 # the empty record of world_from_game
    setup_t s


cdef void* worlds_open(const game_t* g, int seat) noexcept nogil:
    cdef maker_t* m = <maker_t*>malloc(sizeof(maker_t))
    if m == NULL:
        return NULL
    m.h.ntricks = 0
    m.h.nbury = 0
    m.h.ndeal = 0
    deal_prepare(g, seat, &m.h, &m.s)
    return m


cdef int worlds_draw(void* m, game_t* dst, rng_t* rng, int max_tries) noexcept nogil:
    return deal_draw(&(<maker_t*>m).s, dst, rng, max_tries)


cdef void worlds_close(void* m) noexcept nogil:
    if m != NULL:
        deal_release(&(<maker_t*>m).s)
        free(m)
