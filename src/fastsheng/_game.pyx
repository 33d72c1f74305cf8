# cython: language_level=3
"""Whole hands and matches in C (docs/rules.md §10-§11), without the GIL.

`run_batch` plays a batch of hands (or matches) with one RNG stream: shuffle, deal card by card
with calls after every card, the no-call fallback, the kitty and its burial, 炒底, the tricks
(throws checked against the real hands, penalties, the barred partner), the kitty bonus, the
level table, the next dealer and the match rules. Every decision is a bot's
(fastsheng.bots._heuristic). Results go into preallocated rows (fastsheng.engine.hands owns the
arrays).
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

from cpython.exc cimport PyErr_CheckSignals
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.string cimport memset

cdef extern from "<time.h>" nogil:
    ctypedef long time_t
    cdef struct timespec:
        time_t tv_sec
        long tv_nsec
    int clock_gettime(int clk, timespec* ts)
    int CLOCK_MONOTONIC


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9

from fastsheng._bitboard cimport (
    SMALL_JOKER, hand_add_card, hand_contains, hand_count, hand_empty, hand_equal, hand_mask,
    hand_minus, hand_t, hand_union, lsb, popcount, u64, u8,
)
from fastsheng.bots._heuristic cimport (
    bot_bury, bots_prepare, count_tractors, points_of, bot_declare, bot_follow, bot_lead,
)
from fastsheng._table cimport table_t, trick_add, trick_start, trick_t
from fastsheng._core cimport (
    ND_KITTY1, ND_KITTY3, ND_KITTY3_SKIP, ND_NO_TRUMP, ND_FLIP_LEVEL, H1_FINAL, H1_FIRST, OAB_YES,
    OAB_IF_DECLARED, CLOSES_DEAL, BONUS_LEVEL, BONUS_STAKE, PEN_HALF_STAKE, TIE_DEALER,
    FOLLOW_SUIT, KIND_THROW, NO_TRUMP, TRUMP, ctx_init, follow_ok, hand_points,
    kitty_mult, lead_shape, level_change, rules_t, throw_check,
    throw_penalty_points, trick_winner,
)
from fastsheng._declare cimport (
    DECL_NONE, DECL_OVERCALL, NSHOWCODES, decl_kitty, decl_reset, decl_trump, show_apply,
    show_code_denom, show_code_kind, show_hand, show_ok, shows_available,
)
from fastsheng._rng cimport (
    fs_rng_below, rng_below, rng_jump, rng_next, rng_shuffle_u8, rng_split, rng_t,
)

cdef enum:
    MAX_REDEALS = 200
    MAX_MATCH_HANDS = 65535


# A seat's searched decisions: the functions its line-up gave it (fastsheng.bots._lineup). The
# searches play out worlds with this module's game_run, so they sit above it and reach it
# through the seat, never through a module-level hook.
cdef inline bint searches(game_t* g, int seat) noexcept nogil:
    return g.b.seats[seat].play != NULL


cdef inline bint searches_bury(game_t* g, int seat) noexcept nogil:
    return g.b.seats[seat].bury != NULL


cdef inline bint searches_calls(game_t* g, int seat) noexcept nogil:
    return g.b.seats[seat].call != NULL


# ---------------------------------------------------------------------------------------------
# Trace

cdef inline void tr_put(game_t* g, int v) noexcept nogil:
    cdef batch_t* b = g.b
    if not g.tracing:
        return
    if b.trace_len < b.trace_cap:
        b.trace[b.trace_len] = <short>v
        b.trace_len += 1
    else:
        b.overflow = 1


cdef inline void tr_cards(game_t* g, hand_t h) noexcept nogil:
    """Count, then the codes in code order."""
    cdef u64 bits = h.one
    cdef int code
    tr_put(g, hand_count(h))
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        tr_put(g, code)
        if (h.two >> code) & 1:
            tr_put(g, code)


# ---------------------------------------------------------------------------------------------
# Deal and calls

cdef inline int trump_of_code(int code) noexcept nogil:
    return NO_TRUMP if code >= SMALL_JOKER else code // 13


cdef int ask_prepare(game_t* g, int seat) noexcept nogil:
    """The shows the rules allow `seat` now, into g.opts / g.opt_acts. Returns how many."""
    cdef int avail[NSHOWCODES]
    cdef int n = 0, navail, i, act
    cdef hand_t h = g.t.hands[seat]
    g.last_nopts = 0
    g.nopt = 0
    if (h.one & g.declarable) == 0:
        return 0
    navail = shows_available(&g.b.r, g.t.level, h, g.t.first_hand, avail)
    for i in range(navail):
        act = show_ok(&g.b.r, &g.decl, seat, show_code_kind(avail[i]), show_code_denom(avail[i]),
                      g.t.first_hand)
        if act != DECL_NONE:
            g.opts[n] = avail[i]
            g.opt_acts[n] = act
            n += 1
    g.last_nopts = n
    g.nopt = n
    return n


cdef int ask_finish(game_t* g, int seat, int choice, int after_burial,
                    int total_dealt) noexcept nogil:
    """Apply `seat`'s choice among the prepared shows (-1: pass). Returns the action."""
    cdef int kind, denom, act
    cdef hand_t cards
    if choice < 0 or choice >= g.nopt:
        return DECL_NONE
    kind = show_code_kind(g.opts[choice])
    denom = show_code_denom(g.opts[choice])
    act = g.opt_acts[choice]
    show_apply(&g.decl, seat, kind, denom, act)
    cards = show_hand(&g.b.r, g.t.level, kind, denom)
    g.shown[seat].one |= cards.one
    g.shown[seat].two |= cards.two
    g.n_shows += 1
    tr_put(g, EV_CHAODI if after_burial else EV_SHOW)
    tr_put(g, seat)
    tr_put(g, total_dealt)
    tr_put(g, act)
    tr_cards(g, show_hand(&g.b.r, g.t.level, kind, denom))
    return act


cdef inline bint waiting(game_t* g, int kind, int seat) noexcept nogil:
    """True when `seat` decides outside C and its decision has not been supplied yet."""
    if (g.external >> seat) & 1 and not g.dec_ready:
        g.pend_kind = kind
        g.pend_seat = seat
        return True
    return False


cdef inline bint is_external(game_t* g, int seat) noexcept nogil:
    if (g.external >> seat) & 1:
        g.dec_ready = 0
        g.pend_kind = DEC_NONE
        return True
    return False


cdef int declare_choice(game_t* g, int seat, int dealt, int after_burial) noexcept nogil:
    """The prepared question's answer: supplied from outside, or the seat's C bot's."""
    if is_external(g, seat):
        return g.dec_choice
    return bot_answer(g, seat, dealt, after_burial)


cdef inline int bot_answer(game_t* g, int seat, int dealt, int after_burial) noexcept nogil:
    """The answer in C: the calls search's for a seat that searches its calls, else its bot's."""
    if searches_calls(g, seat):
        return g.b.seats[seat].call(g, seat, dealt, after_burial)
    return bot_declare(&g.t, seat, g.opts, g.nopt, dealt, standing_of(g), after_burial)


cdef void deal_start(game_t* g) noexcept nogil:
    """Shuffle and start dealing from g.first (a new deal of the hand)."""
    cdef int i, s
    cdef table_t* t = &g.t
    for i in range(108):
        g.deck[i] = <u8>(i >> 1)
    rng_shuffle_u8(&g.deal_rng, g.deck, 108)
    for s in range(4):
        t.hands[s] = hand_empty()
        g.seen[s] = -1
        g.dirty[s] = 0
        g.nopts[s] = 0
        g.shown[s] = hand_empty()
    decl_reset(&g.decl)
    g.n_shows = 0
    g.declarable = (<u64>3) << SMALL_JOKER
    for s in range(4):
        g.declarable |= (<u64>1) << (s * 13 + g.level)
    tr_put(g, EV_DEAL)
    tr_put(g, g.first)
    for i in range(108):
        tr_put(g, g.deck[i])
    g.version = 0
    g.di = 0
    g.dj = 4
    g.asking = 0
    g.phase = PH_DEAL


cdef int run_deal(game_t* g) noexcept nogil:
    """PH_DEAL: one card to each seat in turn; after every card every seat whose options may
    have changed is asked (a show or a declarable card changes them). 1: waiting."""
    cdef table_t* t = &g.t
    cdef int s, act, seat, n
    while True:
        while g.dj < 4:
            s = (g.dseat + g.dj) & 3
            if not g.asking:
                if not (g.dirty[s] or g.seen[s] != g.version):
                    g.dj += 1
                    continue
                g.dirty[s] = 0
                g.seen[s] = g.version
                n = ask_prepare(g, s)
                g.nopts[s] = n
                if n == 0:
                    g.dj += 1
                    continue
                g.asking = 1
            if waiting(g, DEC_DECLARE, s):
                return 1
            act = ask_finish(g, s, declare_choice(g, s, hand_count(t.hands[s]), 0), 0, g.di)
            g.asking = 0
            if act != DECL_NONE:
                g.version += 1
                g.seen[s] = g.version
            g.dj += 1
        if g.di == 100:
            break
        seat = (g.first + g.di) & 3
        t.hands[seat] = hand_add_card(t.hands[seat], g.deck[g.di])
        # a seat's options change only with a show or a declarable card; with none, no question
        g.dirty[seat] = 1 if g.nopts[seat] > 0 or (g.declarable >> g.deck[g.di]) & 1 else 0
        g.di += 1
        g.dseat = seat
        g.dj = 0
    g.kitty = hand_empty()
    for s in range(100, 108):
        g.kitty = hand_add_card(g.kitty, g.deck[s])
    if g.b.r.declaring_closes != CLOSES_DEAL:
        g.phase = PH_CLOSE
        g.passes = 0
        g.asks = 0
        g.cseat = g.first
    else:
        g.phase = PH_SETUP
    return 0


cdef int run_close(game_t* g) noexcept nogil:
    """PH_CLOSE: after the deal, seats are asked in turn until four pass in a row."""
    cdef int act
    while g.passes < 4 and g.asks < 400:
        act = DECL_NONE
        if not g.asking:
            if ask_prepare(g, g.cseat) > 0:
                g.asking = 1
        if g.asking:
            if waiting(g, DEC_DECLARE, g.cseat):
                return 1
            act = ask_finish(g, g.cseat, declare_choice(g, g.cseat, 25, 0), 0, 100)
            g.asking = 0
        if act != DECL_NONE:
            g.passes = 0
        else:
            g.passes += 1
        g.asks += 1
        g.cseat = (g.cseat + 1) & 3
    g.phase = PH_SETUP
    return 0


cdef void fallback_trump(game_t* g, int level) noexcept nogil:
    """Trump of a later hand nobody called (docs/rules.md §10.3)."""
    cdef int nd = g.b.r.no_declaration, i, code, r, best, bestv, v, s, twin_holder
    cdef int order[4]
    g.trump_set = SET_KITTY
    if nd == ND_KITTY1:
        g.trump = trump_of_code(g.deck[100])
    elif nd == ND_KITTY3:
        g.trump = trump_of_code(g.deck[102])
    elif nd == ND_KITTY3_SKIP:
        g.trump = NO_TRUMP
        for i in range(102, 108):
            if g.deck[i] < SMALL_JOKER:
                g.trump = g.deck[i] // 13
                break
    elif nd == ND_NO_TRUMP:
        g.trump = NO_TRUMP
        g.trump_set = SET_NONE
    elif nd == ND_FLIP_LEVEL:
        g.trump = -1
        for i in range(100, 108):
            code = g.deck[i]
            if code < SMALL_JOKER and code % 13 == level:
                g.trump = code // 13
                break
        if g.trump < 0:
            # the highest pip card: 10 high, A = 1, J/Q/K half (doubled here); ties S>H>D>C
            order[0] = 0
            order[1] = 1
            order[2] = 3
            order[3] = 2
            best = -1
            bestv = -1
            for i in range(100, 108):
                code = g.deck[i]
                if code >= SMALL_JOKER:
                    continue
                r = code % 13
                v = 2 * (r + 2) if r <= 8 else (2 if r == 12 else 1)
                s = order[code // 13]      # position in S>H>D>C (lower = stronger)
                if v > bestv or (v == bestv and s < order[best // 13]):
                    bestv = v
                    best = code
            g.trump = best // 13 if best >= 0 else NO_TRUMP
    else:   # ND_RANDOM_KITTY
        code = g.deck[100 + rng_below(&g.deal_rng, 8)]
        g.trump = trump_of_code(code)
        # a seat holding its twin makes its side the dealer side (reading): it deals
        twin_holder = -1
        for s in range(4):
            if (g.t.hands[s].one >> code) & 1:
                twin_holder = s
        if twin_holder >= 0 and (twin_holder & 1) != (g.t.dealer & 1):
            g.t.dealer = twin_holder


cdef inline void profile_mark(game_t* g, double* acc) noexcept nogil:
    cdef double t1
    if g.b.profile:
        t1 = now()
        acc[0] += t1 - g.t0
        g.t0 = t1


cdef void run_setup(game_t* g) noexcept nogil:
    """PH_SETUP: hand 1 with no call is dealt again; otherwise the dealer and trump are fixed
    and the dealer takes the kitty."""
    cdef table_t* t = &g.t
    cdef const rules_t* r = &g.b.r
    cdef hand_row_t* row = g.row
    cdef int s
    g.called = 0 <= g.decl.seat < 4
    if not g.called and g.t.first_hand and g.redeals < MAX_REDEALS:
        g.redeals += 1
        tr_put(g, EV_REDEAL)
        deal_start(g)
        return
    row.kitty_points_dealt = <u8>hand_points(&t.ctx, g.kitty)
    if t.first_hand:
        if r.hand1_dealer == H1_FINAL and g.called:
            t.dealer = g.decl.seat
        elif r.hand1_dealer == H1_FIRST and g.called:
            t.dealer = g.decl.first_seat
        else:
            t.dealer = g.first
    if g.called:
        g.trump = decl_trump(&g.decl)
        g.trump_set = SET_OVERCALL if g.decl.overcalls > 0 else SET_DECLARED
        row.declarer = <u8>g.decl.seat
        g.final_caller = g.decl.seat
    else:
        fallback_trump(g, g.level)
        row.declarer = 255
        g.final_caller = 255
    ctx_init(&t.ctx, r, g.level, g.trump)
    bots_prepare(t)
    tr_put(g, EV_TRUMP)
    tr_put(g, t.dealer)
    tr_put(g, g.trump)
    tr_put(g, g.trump_set)
    tr_put(g, g.decl.seat if g.called else -1)
    for s in range(4):
        g.dealt[s] = t.hands[s]
    profile_mark(g, &g.b.t_deal)
    t.played = hand_empty()
    for s in range(4):
        t.played_by[s] = hand_empty()
        t.void_mask[s] = 0
        t.nopair_mask[s] = 0
    t.def_points = 0
    t.tricks_done = 0
    g.bury_seat = t.dealer
    g.bury_return = 0
    g.phase = PH_BURY


# ---------------------------------------------------------------------------------------------
# Kitty

cdef int run_bury(game_t* g) noexcept nogil:
    """PH_BURY: g.bury_seat adds the kitty to its hand and buries 8."""
    cdef table_t* t = &g.t
    cdef const rules_t* r = &g.b.r
    cdef int seat = g.bury_seat
    cdef hand_t full = hand_union(t.hands[seat], g.kitty)
    cdef hand_t b
    if waiting(g, DEC_BURY, seat):
        return 1
    if is_external(g, seat):
        b = g.dec_cards
    elif searches_bury(g, seat):
        b = g.b.seats[seat].bury(g, seat)
    else:
        b = bot_bury(t, seat, full)
    if hand_count(b) != 8 or not hand_contains(full, b):
        g.b.errors += 1
        b = hand_empty()
        # fall back to the first 8 cards in code order (bounded: the pool may hold fewer)
        while hand_count(b) < 8 and hand_minus(full, b).one:
            b = hand_add_card(b, lsb(hand_minus(full, b).one))
    t.hands[seat] = hand_minus(full, b)
    g.kitty = b
    t.buried = b
    t.burier = seat
    tr_put(g, EV_BURY)
    tr_put(g, seat)
    tr_cards(g, b)
    if g.bury_return:
        g.phase = PH_CHAODI
    elif not t.first_hand and r.declaring_closes != CLOSES_DEAL and (
            r.overcall_after_burial == OAB_YES or (
                r.overcall_after_burial == OAB_IF_DECLARED and g.called)):
        if not g.called:
            decl_kitty(&g.decl, g.trump)
        g.phase = PH_CHAODI
        g.cseat = (t.dealer + 1) & 3
        g.passes = 0
        g.asks = 0
        g.asking = 0
    else:
        g.phase = PH_PLAYSTART
    return 0


cdef int run_chaodi(game_t* g) noexcept nogil:
    """PH_CHAODI: overcalls after burial (炒底, docs/rules.md §10.4); an overcaller buries."""
    cdef int act, seat
    while g.passes < 3 and g.asks < 64:
        act = DECL_NONE
        seat = g.cseat
        if not g.asking:
            g.asks += 1
            if ask_prepare(g, seat) > 0:
                g.asking = 1
        if g.asking:
            if waiting(g, DEC_DECLARE, seat):
                return 1
            act = ask_finish(g, seat, declare_choice(g, seat, 25, 1), 1, 100)
            g.asking = 0
        g.cseat = (seat + 1) & 3
        if act != DECL_NONE and act != DECL_OVERCALL:
            g.passes = 0
        elif act == DECL_OVERCALL:
            g.n_chaodi += 1
            g.trump = decl_trump(&g.decl)
            g.trump_set = SET_OVERCALL
            g.final_caller = seat
            ctx_init(&g.t.ctx, &g.b.r, g.t.level, g.trump)
            bots_prepare(&g.t)
            tr_put(g, EV_TRUMP)
            tr_put(g, g.t.dealer)
            tr_put(g, g.trump)
            tr_put(g, g.trump_set)
            tr_put(g, seat)
            g.passes = 0
            g.bury_seat = seat
            g.bury_return = 1
            g.phase = PH_BURY
            return 0
        else:
            g.passes += 1
    g.phase = PH_PLAYSTART
    return 0


# ---------------------------------------------------------------------------------------------
# One hand

cdef inline int codes_of(hand_t h, u8* out) noexcept nogil:
    cdef u64 bits = h.one
    cdef int code, n = 0
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        out[n] = <u8>code
        n += 1
        if (h.two >> code) & 1:
            out[n] = <u8>code
            n += 1
    return n


cdef void deal_features(game_t* g, hand_row_t* row) noexcept nogil:
    """Features of the hands as dealt (g.dealt), under the final trump."""
    cdef const table_t* t = &g.t
    cdef int s
    cdef u64 lv = 0
    for s in range(4):
        lv |= (<u64>1) << (s * 13 + t.level)
    for s in range(4):
        row.trumps[s] = <u8>hand_count(hand_mask(g.dealt[s], t.ctx.suit_bb[TRUMP]))
        row.pairs[s] = <u8>popcount(g.dealt[s].two)
        row.tractors[s] = <u8>count_tractors(&t.ctx, g.dealt[s])
        row.jokers[s] = <u8>hand_count(hand_mask(g.dealt[s], (<u64>3) << SMALL_JOKER))
        row.points[s] = <u8>hand_points(&t.ctx, g.dealt[s])
        row.level_cards[s] = <u8>hand_count(hand_mask(g.dealt[s], lv))


cdef void hand_begin(game_t* g, int level, int dealer, int first_hand,
                     hand_row_t* row) noexcept nogil:
    """Start a hand. `dealer`: the dealer of a later hand, or the seat dealt first in hand 1."""
    if g.b.profile:
        g.t0 = now()
    memset(row, 0, sizeof(hand_row_t))
    g.row = row
    g.bot_lead_cards = hand_empty()
    g.level = level
    g.first = dealer
    g.redeals = 0
    g.t.level = level
    g.t.first_hand = first_hand
    g.t.dealer = dealer
    g.n_chaodi = 0
    g.dec_ready = 0
    g.pend_kind = DEC_NONE
    g.t.burier = -1
    deal_start(g)


cdef void start_play(game_t* g) noexcept nogil:
    """PH_PLAYSTART: the kitty is final; the dealer leads the first trick."""
    g.row.kitty_points_buried = <u8>hand_points(&g.t.ctx, g.kitty)
    deal_features(g, g.row)
    profile_mark(g, &g.b.t_kitty)
    g.leader = g.t.dealer
    g.tr.shape.ncards = 0
    g.tn = 0
    g.pen_total = 0
    g.pen_stakes = 0
    g.trick_pts = 0
    g.phase = PH_LEAD if g.t.hands[g.leader].one else PH_DONE


cdef int run_lead(game_t* g) noexcept nogil:
    """PH_LEAD: the leader leads; a throw is checked against the other hands (penalties)."""
    cdef table_t* t = &g.t
    cdef batch_t* b = g.b
    cdef const rules_t* r = &b.r
    cdef trick_t* tr = &g.tr
    cdef int leader = g.leader, i, amount
    cdef hand_t others[3]
    cdef hand_t attempt, actual
    if waiting(g, DEC_LEAD, leader):
        return 1
    tr.leader = leader
    tr.barred = 0
    if is_external(g, leader):
        attempt = g.dec_cards
        if hand_equal(attempt, g.bot_lead_cards):
            g.row.throw_risk += <float>g.bot_lead_risk     # the bot's own lead, applied
    elif searches(g, leader):
        attempt = g.b.seats[leader].play(g, leader)
    else:
        attempt = bot_lead(t, leader)
        g.row.throw_risk += <float>t.lead_risk
    g.bot_lead_cards = hand_empty()
    if attempt.one == 0 or not hand_contains(t.hands[leader], attempt) or \
            lead_shape(&t.ctx, attempt, &tr.shape) < 0:
        b.errors += 1
        attempt = hand_empty()
        attempt = hand_add_card(attempt, lsb(t.hands[leader].one))
        lead_shape(&t.ctx, attempt, &tr.shape)
    for i in range(3):
        others[i] = t.hands[(leader + 1 + i) & 3]
    g.failed = 0
    if tr.shape.kind == KIND_THROW:
        actual = throw_check(&t.ctx, attempt, others, 3, &g.failed)
        if g.failed:
            lead_shape(&t.ctx, actual, &tr.shape)
    else:
        actual = attempt
    g.attempt = attempt
    g.att = hand_count(attempt)
    if tr.shape.kind == KIND_THROW or g.failed:
        g.row.throws += 1
    if g.failed:
        g.row.failed_throws += 1
        amount = throw_penalty_points(r, g.att - tr.shape.ncards)
        if r.throw_penalty == PEN_HALF_STAKE:
            g.pen_stakes += 1
        if (leader & 1) == (t.dealer & 1):
            g.row.failed_throws_dealer += 1
            g.pen_total += amount
            if r.partner_no_trump_after_failed_throw:
                i = ((t.dealer + 2) - leader) & 3
                if i:
                    tr.barred |= 1 << i
        else:
            g.pen_total -= amount
    trick_start(&t.ctx, tr, leader, actual, tr.barred)
    t.hands[leader] = hand_minus(t.hands[leader], actual)
    g.fi = 1
    g.phase = PH_FOLLOW
    return 0


cdef void record_trick(game_t* g, int wseat, int pts) noexcept nogil:
    cdef batch_t* b = g.b
    cdef trick_t* tr = &g.tr
    cdef trick_row_t* trow
    cdef int s, i
    if b.tricks != NULL:
        if b.ntricks < b.tricks_cap and b.ncodes + 4 * tr.shape.ncards <= b.codes_cap:
            trow = &b.tricks[b.ntricks]
            b.ntricks += 1
            trow.hand_id = g.hand_id
            trow.codes_at = <u32>b.ncodes
            trow.trick_no = <u8>g.tn
            trow.leader = <u8>g.leader
            trow.ncards = <u8>tr.shape.ncards
            trow.attempted = <u8>g.att
            trow.winner = <u8>wseat
            trow.points = <u8>pts
            trow.lead_kind = <u8>tr.shape.kind
            trow.failed = <u8>g.failed
            for s in range(4):
                b.ncodes += codes_of(tr.plays[(s - g.leader) & 3], b.codes + b.ncodes)
        else:
            b.overflow = 1
    if g.tracing:
        tr_put(g, EV_TRICK)
        tr_put(g, g.leader)
        tr_cards(g, g.attempt)
        tr_put(g, g.failed)
        for i in range(4):
            tr_cards(g, tr.plays[i])
        tr_put(g, wseat)
        tr_put(g, pts)


cdef void trick_public(table_t* t, const trick_t* tr, int wseat, int pts) noexcept nogil:
    cdef int i, seat
    for i in range(4):
        seat = (tr.leader + i) & 3
        t.played = hand_union(t.played, tr.plays[i])
        t.played_by[seat] = hand_union(t.played_by[seat], tr.plays[i])
        if i and hand_count(hand_mask(tr.plays[i], t.ctx.suit_bb[tr.shape.eff])) < \
                tr.shape.ncards:
            t.void_mask[seat] |= 1 << tr.shape.eff
        elif i and tr.shape.npairs and (tr.shape.kind != KIND_THROW or
                                        t.ctx.r.throw_follow != FOLLOW_SUIT) and \
                popcount(tr.plays[i].two & t.ctx.suit_bb[tr.shape.eff]) < tr.shape.npairs:
            # a follower must answer a lead's pairs with its own as far as it can (rules §5)
            t.nopair_mask[seat] |= 1 << tr.shape.eff
    if (wseat & 1) != (t.dealer & 1):
        t.def_points += pts
    t.tricks_done += 1


cdef int run_follow(game_t* g) noexcept nogil:
    """PH_FOLLOW: the three others follow in turn; then the trick is scored and recorded."""
    cdef table_t* t = &g.t
    cdef batch_t* b = g.b
    cdef trick_t* tr = &g.tr
    cdef int seat, w, wseat, pts, i
    cdef hand_t p
    while g.fi < 4:
        seat = (g.leader + g.fi) & 3
        if waiting(g, DEC_FOLLOW, seat):
            return 1
        if is_external(g, seat):
            p = g.dec_cards
        elif searches(g, seat):
            p = g.b.seats[seat].play(g, seat)
        else:
            p = bot_follow(t, seat, tr)
        if b.check and not follow_ok(&t.ctx, &tr.shape, t.hands[seat], p):
            b.errors += 1
        if hand_count(p) != tr.shape.ncards or not hand_contains(t.hands[seat], p):
            b.errors += 1
            p = hand_empty()
            # bounded: a hand with fewer cards than the lead (never in a dealt game) must not
            # spin here forever with the GIL released
            while hand_count(p) < tr.shape.ncards and hand_minus(t.hands[seat], p).one:
                p = hand_add_card(p, lsb(hand_minus(t.hands[seat], p).one))
        trick_add(&t.ctx, tr, p)
        t.hands[seat] = hand_minus(t.hands[seat], p)
        g.fi += 1
    w = tr.win
    if b.check and w != trick_winner(&t.ctx, tr.plays, 4, tr.barred):
        b.errors += 1
        w = trick_winner(&t.ctx, tr.plays, 4, tr.barred)
    wseat = (g.leader + w) & 3
    pts = 0
    for i in range(4):
        pts += points_of(tr.plays[i])
    trick_public(t, tr, wseat, pts)
    if (wseat & 1) != (t.dealer & 1):
        g.trick_pts += pts
    if g.tn < LOG_TRICKS:
        g.log_leader[g.tn] = g.leader
        g.log_barred[g.tn] = tr.barred
        g.log_attempt[g.tn] = g.attempt
        for i in range(4):
            g.log_plays[g.tn][i] = tr.plays[i]
    record_trick(g, wseat, pts)
    g.tn += 1
    g.leader = wseat
    g.phase = PH_LEAD if t.hands[wseat].one else PH_DONE
    return 0


cdef int climb(const rules_t* r, int rank, int n, int won) noexcept nogil:
    """`rank` moved up n levels, stopping at the end rank and at unplayed must-play ranks."""
    cdef int _i
    for _i in range(n):
        if rank >= r.end_rank:
            break
        if (r.must_play_mask >> rank) & 1 and not (won >> rank) & 1:
            break
        rank += 1
    return rank


cdef void score_hand(game_t* g) noexcept nogil:
    """The last trick's kitty bonus, the defenders' total, the level table, the next dealer."""
    cdef table_t* t = &g.t
    cdef const rules_t* r = &g.b.r
    cdef hand_row_t* row = g.row
    cdef int defenders = 1 - (t.dealer & 1), mult, bonus = 0, total, side, levels
    row.n_tricks = <u8>g.tn
    row.last_winner = <u8>g.leader
    row.last_lead_kind = <u8>g.tr.shape.kind
    mult = kitty_mult(&t.ctx, &g.tr.shape)
    row.kitty_mult = <u8>mult
    if (g.leader & 1) == defenders:
        row.kitty_captured = 1
        bonus = hand_points(&t.ctx, g.kitty) * mult
    row.trick_points = <short>g.trick_pts
    row.kitty_bonus = <short>bonus
    row.penalty = <short>g.pen_total
    row.penalty_stakes = <u8>g.pen_stakes
    total = g.trick_pts + bonus + g.pen_total
    if total < 0:
        total = 0
    row.defenders_total = <short>total
    side = level_change(r, total, &levels)
    if r.overcall_bonus == BONUS_LEVEL:
        row.bonus_levels = <u8>g.decl.overcalls
        levels += g.decl.overcalls
        if side == 1 and r.defender_cap > 0 and levels > r.defender_cap:
            levels = r.defender_cap
    row.stake = 1
    if r.overcall_bonus == BONUS_STAKE:
        row.stake = <unsigned short>(1 << (g.decl.overcalls if g.decl.overcalls < 15 else 15))
    row.winner = <u8>side
    row.levels = <u8>levels
    # hands mode: the winner climbs from the hand's level, which counts as played (a later
    # must-play rank stops it); matches mode overwrites this with the match's real climb
    row.levels_climbed = <u8>(climb(r, g.level, levels, 1 << g.level) - g.level)
    row.next_dealer = <u8>((t.dealer + 2) & 3 if side == 0 else (t.dealer + 1) & 3)
    row.level = <u8>g.level
    row.dealer = <u8>t.dealer
    row.first_seat = <u8>g.first
    row.trump = <u8>g.trump
    row.trump_set = <u8>g.trump_set
    row.burier = <u8>t.burier
    row.final_caller = <u8>g.final_caller
    row.n_shows = <u8>(g.n_shows if g.n_shows < 255 else 255)
    row.n_overcalls = <u8>(g.decl.overcalls if g.decl.overcalls < 255 else 255)
    row.n_chaodi = <u8>g.n_chaodi
    row.n_redeals = <u8>g.redeals
    if g.tracing:
        tr_put(g, EV_RESULT)
        tr_put(g, g.trick_pts)
        tr_put(g, mult)
        tr_put(g, bonus)
        tr_put(g, g.pen_total)
        tr_put(g, total)
        tr_put(g, side)
        tr_put(g, levels)
        tr_put(g, row.next_dealer)
        tr_put(g, EV_END)
    profile_mark(g, &g.b.t_tricks)


cdef int game_run(game_t* g) noexcept nogil:
    while True:
        if g.phase == PH_DEAL:
            if run_deal(g):
                return 1
        elif g.phase == PH_CLOSE:
            if run_close(g):
                return 1
        elif g.phase == PH_SETUP:
            run_setup(g)
        elif g.phase == PH_BURY:
            if run_bury(g):
                return 1
        elif g.phase == PH_CHAODI:
            if run_chaodi(g):
                return 1
        elif g.phase == PH_PLAYSTART:
            start_play(g)
            if g.phase == PH_DONE:
                score_hand(g)
                return 0
        elif g.phase == PH_LEAD:
            if run_lead(g):
                return 1
        elif g.phase == PH_FOLLOW:
            if run_follow(g):
                return 1
            if g.phase == PH_DONE:
                score_hand(g)
                return 0
        else:
            return 0


cdef void bot_decide(game_t* g, const bot_t* rows, const seat_t* seat) noexcept nogil:
    """Supply the pending decision as `seat` of a line-up would take it (drawing from the game's
    bot stream exactly as the simulator does): its search's when it searches that decision."""
    cdef table_t* t = &g.t
    cdef int s = g.pend_seat, saved = t.bots[s], dealt
    cdef const bot_t* saved_rows = t.rows
    cdef seat_t saved_seat = g.b.seats[s]
    t.bots[s] = seat.bot
    t.rows = rows
    g.b.seats[s] = seat[0]
    if searches(g, s) and (g.pend_kind == DEC_LEAD or g.pend_kind == DEC_FOLLOW):
        g.dec_cards = seat.play(g, s)
    elif g.pend_kind == DEC_DECLARE:
        dealt = hand_count(t.hands[s]) if g.phase == PH_DEAL else 25
        g.dec_choice = bot_answer(g, s, dealt, 1 if g.phase == PH_CHAODI else 0)
    elif g.pend_kind == DEC_BURY and searches_bury(g, s):
        g.dec_cards = seat.bury(g, s)
    elif g.pend_kind == DEC_BURY:
        g.dec_cards = bot_bury(t, s, hand_union(t.hands[s], g.kitty))
    elif g.pend_kind == DEC_LEAD:
        g.dec_cards = bot_lead(t, s)
        g.bot_lead_cards = g.dec_cards
        g.bot_lead_risk = t.lead_risk
    elif g.pend_kind == DEC_FOLLOW:
        g.dec_cards = bot_follow(t, s, &g.tr)
    t.bots[s] = saved
    t.rows = saved_rows
    g.b.seats[s] = saved_seat
    g.dec_ready = 1


# ---------------------------------------------------------------------------------------------
# Matches and batches

cdef inline void seed_streams(game_t* g) noexcept nogil:
    """A new deal stream from the batch stream; the bots' stream is its jump (2^128 draws
    ahead), so paired deals stay paired whatever the bots draw, and a hand (match) can be
    replayed alone."""
    rng_split(g.master, &g.deal_rng)
    if not g.b.legacy_bot_stream:
        g.bot_rng = g.deal_rng
        rng_jump(&g.bot_rng)


cdef void batch_hand_begin(game_t* g, long i) noexcept nogil:
    cdef batch_t* b = g.b
    cdef int level, dealer
    seed_streams(g)
    level = b.level if b.level >= 0 else rng_below(&g.deal_rng, 13)
    dealer = rng_below(&g.deal_rng, 4)
    g.hand_id = b.id_base + <u64>i
    g.tracing = b.trace_item == TRACE_ALL or b.trace_item == i
    if b.trace_item == TRACE_ALL and b.trace_at != NULL:
        b.trace_at[b.nhands] = <u32>b.trace_len
    hand_begin(g, level, dealer, b.first_hand, &b.hands[b.nhands])


cdef void match_begin(game_t* g, long m, match_row_t* mrow) noexcept nogil:
    cdef const rules_t* r = &g.b.r
    g.m_lv[0] = r.start_rank
    g.m_lv[1] = r.start_rank
    g.m_won[0] = 0
    g.m_won[1] = 0
    g.m_hand_no = 0
    g.m_first_hand = 1
    g.m_winner = -1
    g.m_capped = 0
    g.mrow = mrow
    seed_streams(g)
    g.m_dealer = rng_below(&g.deal_rng, 4)
    mrow.match_id = g.b.id_base + <u64>m
    mrow.first_hand_id = mrow.match_id * 65536 + 1


cdef int match_hand_begin(game_t* g) noexcept nogil:
    """Begin the match's next hand; -1 when the hand rows ran out (overflow)."""
    cdef batch_t* b = g.b
    cdef long m = <long>(g.mrow.match_id - b.id_base)
    if b.nhands >= b.hands_cap:
        b.overflow = 1
        return -1
    g.m_hand_no += 1
    b.nhands += 1
    g.hand_id = g.mrow.match_id * 65536 + <u64>g.m_hand_no
    g.tracing = b.trace_item == TRACE_ALL or (b.trace_item == m and b.trace_hand_no == g.m_hand_no)
    if b.trace_item == TRACE_ALL and b.trace_at != NULL:
        b.trace_at[b.nhands - 1] = <u32>b.trace_len
    hand_begin(g, g.m_lv[g.m_dealer & 1] if not g.m_first_hand else b.r.start_rank,
               g.m_dealer, g.m_first_hand, &b.hands[b.nhands - 1])
    return 0


cdef int match_hand_end(game_t* g) noexcept nogil:
    """The levels after the hand just played; 1 when the match is over."""
    cdef batch_t* b = g.b
    cdef const rules_t* r = &b.r
    cdef hand_row_t* row = g.row
    cdef match_row_t* mrow = g.mrow
    cdef int dteam, side, before
    row.hand_id = g.hand_id
    row.match_id = mrow.match_id
    row.hand_no = <unsigned short>g.m_hand_no
    row.level_team0 = <u8>g.m_lv[0]
    row.level_team1 = <u8>g.m_lv[1]
    if g.m_first_hand:
        mrow.first_dealer = row.dealer
    g.m_first_hand = 0
    dteam = row.dealer & 1
    side = dteam if row.winner == 0 else 1 - dteam
    before = g.m_lv[side]
    if row.winner == 0:
        if g.m_lv[dteam] >= r.end_rank:
            g.m_winner = dteam
        g.m_won[dteam] |= 1 << g.m_lv[dteam]
    g.m_lv[side] = climb(r, g.m_lv[side], row.levels, g.m_won[side])
    row.levels_climbed = <u8>(g.m_lv[side] - before)
    g.m_dealer = row.next_dealer
    if g.m_winner < 0 and ((r.hand_cap > 0 and g.m_hand_no >= r.hand_cap) or
                           g.m_hand_no >= MAX_MATCH_HANDS):
        g.m_capped = 1
        if g.m_lv[0] != g.m_lv[1]:
            g.m_winner = 0 if g.m_lv[0] > g.m_lv[1] else 1
        elif r.cap_tie == TIE_DEALER:
            g.m_winner = g.m_dealer & 1
        else:
            g.m_winner = 2
    if g.m_winner < 0:
        return 0
    mrow.hands = <unsigned short>g.m_hand_no
    mrow.winner = <u8>g.m_winner
    mrow.level_team0 = <u8>g.m_lv[0]
    mrow.level_team1 = <u8>g.m_lv[1]
    mrow.capped = <u8>g.m_capped
    return 1


cdef int play_match(game_t* g, long m, match_row_t* mrow) noexcept nogil:
    """Play match m of the batch; returns -1 when the hand rows ran out (overflow)."""
    cdef batch_t* b = g.b
    match_begin(g, m, mrow)
    while True:
        if match_hand_begin(g) < 0:
            return -1
        game_run(g)
        if g.tracing and b.trace_item >= 0:
            g.row.hand_id = g.hand_id
            g.row.match_id = mrow.match_id
            g.row.hand_no = <unsigned short>g.m_hand_no
            g.row.level_team0 = <u8>g.m_lv[0]
            g.row.level_team1 = <u8>g.m_lv[1]
            return 0
        if match_hand_end(g):
            return 0


cdef void game_init(game_t* g, batch_t* b, rng_t* rng) noexcept nogil:
    cdef int i
    memset(g, 0, sizeof(game_t))
    g.b = b
    if b.legacy_bot_stream:
        # before 0.2: one bot stream for the batch, the jump of the batch stream
        g.bot_rng = rng[0]
        rng_jump(&g.bot_rng)
    g.t.rng = &g.bot_rng
    g.t.rows = b.rows
    g.master = rng
    for i in range(4):
        g.t.bots[i] = b.bots[i]
    b.nhands = 0
    b.ntricks = 0
    b.ncodes = 0
    b.trace_len = 0
    b.overflow = 0
    b.errors = 0


# The exception a signal handler raised during a batch (Ctrl-C: KeyboardInterrupt), raised again
# by _run once the batch loop has stopped: no batch runs uninterruptibly inside C.
_pending_signal = None


cdef int signal_raised() noexcept nogil:
    """Run Python's signal handlers now (the batch loop calls it every few hands, taking the
    GIL for a moment); 1 when one raised (kept in _pending_signal)."""
    global _pending_signal
    with gil:
        try:
            PyErr_CheckSignals()
        except BaseException as exc:
            _pending_signal = exc
            return 1
    return 0


cdef int run_batch(batch_t* b, rng_t* rng) noexcept nogil:
    cdef game_t g
    cdef long i
    cdef long every = 1023   # hands between signal checks (a mask): a check costs ~1 us
    if b.mode != MODE_HANDS:
        every = 63
    for i in range(4):
        if b.seats[i].search.family:
            every = 0        # a search hand takes ~0.1 s: check after each
    game_init(&g, b, rng)
    for i in range(b.size):
        if (i & every) == every and i and signal_raised():
            return -2
        if b.mode == MODE_HANDS:
            if b.nhands >= b.hands_cap:
                b.overflow = 1
                return -1
            batch_hand_begin(&g, i)
            game_run(&g)
            b.hands[b.nhands].hand_id = g.hand_id
            b.nhands += 1
        else:
            if play_match(&g, i, &b.matches[i]) < 0:
                return -1
        if b.overflow:
            return -1
        if b.trace_item == i:
            return 0
    return 0


# ---------------------------------------------------------------------------------------------
# The Python face (fastsheng.engine.hands validates and owns the arrays)

def _struct_sizes():
    """sizeof of the row structs (fastsheng.engine.hands checks its numpy dtypes against them)."""
    return {"hand": sizeof(hand_row_t), "match": sizeof(match_row_t),
            "trick": sizeof(trick_row_t)}


cdef inline void* _ptr(unsigned char[::1] v) noexcept:
    return <void*>&v[0] if v is not None and v.shape[0] > 0 else NULL


cdef inline long _len(unsigned char[::1] v) noexcept:
    return v.shape[0] if v is not None else 0


cdef const lineup_t* lineup_of(object lineup) except NULL:
    cdef object capsule = getattr(lineup, "capsule", lineup)
    if not PyCapsule_IsValid(capsule, lineup_capsule_name()):
        raise ValueError("a line-up is a fastsheng.bots.Lineup (or its capsule), not "
                         f"{type(lineup).__name__}")
    return <const lineup_t*>PyCapsule_GetPointer(capsule, lineup_capsule_name())


cdef void batch_fill(batch_t* b, const batch_plan_t* p, const lineup_t* L, unsigned char[::1] hands,
                     unsigned char[::1] matches, unsigned char[::1] tricks,
                     unsigned char[::1] codes, unsigned char[::1] trace,
                     unsigned char[::1] trace_at) noexcept:
    cdef int i
    memset(b, 0, sizeof(batch_t))
    b.r = p.r
    b.rows = L.rows
    for i in range(4):
        b.bots[i] = L.seats[i].bot
        b.seats[i] = L.seats[i]
    b.mode = p.mode
    b.level = p.level
    b.first_hand = p.first_hand
    b.id_base = p.id_base
    b.size = p.size
    b.trace_item = p.trace_item
    b.trace_hand_no = p.trace_hand_no
    b.check = p.check
    b.profile = p.profile
    b.legacy_bot_stream = p.legacy_bot_stream
    b.hands = <hand_row_t*>_ptr(hands)
    b.hands_cap = _len(hands) // sizeof(hand_row_t)
    b.matches = <match_row_t*>_ptr(matches)
    b.tricks = <trick_row_t*>_ptr(tricks)
    b.tricks_cap = _len(tricks) // sizeof(trick_row_t)
    b.codes = <u8*>_ptr(codes)
    b.codes_cap = _len(codes)
    b.trace = <short*>_ptr(trace)
    b.trace_cap = _len(trace) // sizeof(short)
    b.trace_at = <u32*>_ptr(trace_at)


def _run(plan, lineup, hands, matches, tricks, codes, trace, trace_at):
    """Play one batch into the given buffers (raw bytes views of numpy arrays) with ONE nogil
    call. `plan`: BatchPlan.core_fields(); `lineup`: the fastsheng.bots.Lineup that plays it.
    Returns the counts written."""
    cdef batch_plan_t p = plan
    cdef const lineup_t* L = lineup_of(lineup)
    cdef batch_t b
    cdef rng_t rng
    cdef int i, rc
    batch_fill(&b, &p, L, hands, matches, tricks, codes, trace, trace_at)
    for i in range(4):
        rng.s[i] = p.state[i]
    global _pending_signal
    with nogil:
        rc = run_batch(&b, &rng)
    if rc == -2:  # a signal handler raised (Ctrl-C): the batch is abandoned
        exc, _pending_signal = _pending_signal, None
        raise exc
    return {"nhands": b.nhands, "ntricks": b.ntricks, "ncodes": b.ncodes,
            "trace_len": b.trace_len, "overflow": b.overflow, "errors": b.errors,
            "t_deal": b.t_deal, "t_kitty": b.t_kitty, "t_tricks": b.t_tricks}


# the batch's modes and trace values, for fastsheng.engine.plan
MODE_HANDS_ = MODE_HANDS
MODE_MATCHES_ = MODE_MATCHES
TRACE_NONE_ = TRACE_NONE
TRACE_ALL_ = TRACE_ALL

# trace event codes and limits, for fastsheng.engine.hands
EV_END_ = EV_END
MAX_TRACE_ = MAX_TRACE
EVENTS = {"end": EV_END, "deal": EV_DEAL, "show": EV_SHOW, "redeal": EV_REDEAL,
          "trump": EV_TRUMP, "bury": EV_BURY, "chaodi": EV_CHAODI, "trick": EV_TRICK,
          "result": EV_RESULT}


def _rng_draws(state, unsigned long long bound, int n, bint jump=False):
    """n draws of the core's RNG from a 4-word state: raw 64-bit words (bound 0) or uniform
    integers below `bound` (tests pin the generator against a plain-Python xoshiro256**)."""
    cdef rng_t r
    cdef int _i
    r.s[0] = state[0]
    r.s[1] = state[1]
    r.s[2] = state[2]
    r.s[3] = state[3]
    if jump:
        rng_jump(&r)
    out = []
    for _i in range(n):
        out.append(rng_next(&r) if bound == 0 else fs_rng_below(&r, bound))
    return out
