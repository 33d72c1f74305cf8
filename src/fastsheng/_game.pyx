# cython: language_level=3
"""Whole hands and matches in C (docs/rules.md §10-§11), without the GIL.

`run_batch` plays a batch of hands (or matches) with one RNG stream: shuffle, deal card by card
with calls after every card, the no-call fallback, the kitty and its burial, 炒底, the tricks
(throws checked against the real hands, penalties, the barred partner), the kitty bonus, the
level table, the next dealer and the match rules. Every decision is a bot's (fastsheng._bots).
Results go into preallocated rows (fastsheng.hands owns the arrays).
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
    BIG_JOKER, SMALL_JOKER, hand_add_card, hand_contains, hand_count, hand_empty, hand_mask,
    hand_minus, hand_t, hand_union, lsb, popcount, u64, u8,
)
from fastsheng._bots cimport (
    BOT_EXPERT, bot_bury, bots_prepare, count_tractors, points_of, bot_declare, bot_follow, bot_lead, table_t, trick_add, trick_start,
    trick_t,
)
from fastsheng._core cimport (
    ND_KITTY1, ND_KITTY3, ND_KITTY3_SKIP, ND_NO_TRUMP, ND_FLIP_LEVEL, ND_RANDOM_KITTY, H1_FINAL, H1_FIRST, OAB_YES, OAB_IF_DECLARED, CLOSES_DEAL, BONUS_LEVEL, BONUS_STAKE, PEN_PER_CARD, PEN_FLAT, PEN_HALF_STAKE, TIE_DEALER,
    KIND_THROW, KIND_TRACTOR, MAXUNITS, NO_TRUMP, TRUMP, ctx_init, follow_ok, hand_points,
    kitty_mult, lead_shape, level_change, rules_t, shape_t, split_units, throw_check,
    trick_winner, unit_t,
)
from fastsheng._declare cimport (
    DECL_NONE, DECL_OVERCALL, NSHOWCODES, SEAT_NONE, decl_kitty, decl_reset, decl_t, decl_trump, show_apply,
    show_code_denom, show_code_kind, show_hand, show_ok, shows_available,
)
from fastsheng._rng cimport (
    fs_rng_below, rng_below, rng_jump, rng_next, rng_shuffle_u8, rng_split, rng_t,
)

cdef enum:
    MAX_REDEALS = 200
    MAX_MATCH_HANDS = 65535


cdef struct game_t:
    table_t t
    batch_t* b
    rng_t deal_rng            # the cards' stream: shuffles, dealer, level, kitty draws
    rng_t bot_rng             # the bots' stream (so a deal does not depend on the bots)
    rng_t* master             # the batch's stream: one sub-stream per hand (or match)
    u8 deck[108]
    hand_t kitty
    decl_t decl
    int n_shows
    int n_chaodi
    u64 declarable            # codes that can take part in a show (level cards, jokers)
    int last_nopts            # shows the last seat asked could make
    int trump
    int trump_set
    int tracing
    u64 hand_id


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


cdef int ask(game_t* g, int seat, int dealt, int after_burial, int total_dealt) noexcept nogil:
    """Offer `seat` the shows the rules allow now; apply the bot's choice. Returns the action
    (DECL_NONE when the seat passed)."""
    cdef int avail[NSHOWCODES]
    cdef int options[NSHOWCODES]
    cdef int acts[NSHOWCODES]
    cdef int n = 0, navail, i, choice, kind, denom, act, standing
    cdef hand_t h = g.t.hands[seat]
    g.last_nopts = 0
    if (h.one & g.declarable) == 0:
        return DECL_NONE
    navail = shows_available(&g.b.r, g.t.level, h, g.t.first_hand, avail)
    for i in range(navail):
        act = show_ok(&g.b.r, &g.decl, seat, show_code_kind(avail[i]), show_code_denom(avail[i]),
                      g.t.first_hand)
        if act != DECL_NONE:
            options[n] = avail[i]
            acts[n] = act
            n += 1
    g.last_nopts = n
    if n == 0:
        return DECL_NONE
    standing = g.decl.seat if 0 <= g.decl.seat < 4 else -1
    choice = bot_declare(&g.t, seat, options, n, dealt, standing, after_burial)
    if choice < 0 or choice >= n:
        return DECL_NONE
    kind = show_code_kind(options[choice])
    denom = show_code_denom(options[choice])
    show_apply(&g.decl, seat, kind, denom, acts[choice])
    g.n_shows += 1
    tr_put(g, EV_CHAODI if after_burial else EV_SHOW)
    tr_put(g, seat)
    tr_put(g, total_dealt)
    tr_put(g, acts[choice])
    tr_cards(g, show_hand(&g.b.r, g.t.level, kind, denom))
    return acts[choice]


cdef bint deal_and_call(game_t* g, int first, int level, int first_hand) noexcept nogil:
    """Shuffle, deal from `first` with calls after each card, then the closing rounds.
    Returns True when some call stands."""
    cdef int i, j, seat, s, passes, asks, version, act
    cdef int seen[4]
    cdef int nopts[4]
    cdef int dirty[4]
    cdef table_t* t = &g.t
    for i in range(108):
        g.deck[i] = <u8>(i >> 1)
    rng_shuffle_u8(&g.deal_rng, g.deck, 108)
    for s in range(4):
        t.hands[s] = hand_empty()
        seen[s] = -1
        dirty[s] = 0
    decl_reset(&g.decl)
    g.n_shows = 0
    g.declarable = (<u64>3) << SMALL_JOKER
    for s in range(4):
        g.declarable |= (<u64>1) << (s * 13 + level)
    tr_put(g, EV_DEAL)
    tr_put(g, first)
    for i in range(108):
        tr_put(g, g.deck[i])
    version = 0
    for s in range(4):
        nopts[s] = 0
    for i in range(100):
        seat = (first + i) & 3
        t.hands[seat] = hand_add_card(t.hands[seat], g.deck[i])
        # a seat's options change only with a show or a declarable card; with none, no question
        dirty[seat] = 1 if nopts[seat] > 0 or (g.declarable >> g.deck[i]) & 1 else 0
        for j in range(4):
            s = (seat + j) & 3
            if dirty[s] or seen[s] != version:
                dirty[s] = 0
                seen[s] = version
                act = ask(g, s, hand_count(t.hands[s]), 0, i + 1)
                nopts[s] = g.last_nopts
                if act != DECL_NONE:
                    version += 1
                    seen[s] = version
    g.kitty = hand_empty()
    for i in range(100, 108):
        g.kitty = hand_add_card(g.kitty, g.deck[i])
    if g.b.r.declaring_closes != CLOSES_DEAL:
        passes = 0
        asks = 0
        seat = first
        while passes < 4 and asks < 400:
            if ask(g, seat, 25, 0, 100) != DECL_NONE:
                passes = 0
            else:
                passes += 1
            asks += 1
            seat = (seat + 1) & 3
    return 0 <= g.decl.seat < 4


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


# ---------------------------------------------------------------------------------------------
# Kitty

cdef void bury(game_t* g, int seat) noexcept nogil:
    """`seat` adds the kitty to its hand and buries 8."""
    cdef table_t* t = &g.t
    cdef hand_t full = hand_union(t.hands[seat], g.kitty)
    cdef hand_t b = bot_bury(t, seat, full)
    if hand_count(b) != 8 or not hand_contains(full, b):
        g.b.errors += 1
        b = hand_empty()
        # fall back to the first 8 cards in code order
        while hand_count(b) < 8:
            b = hand_add_card(b, lsb(hand_minus(full, b).one))
    t.hands[seat] = hand_minus(full, b)
    g.kitty = b
    t.buried = b
    t.burier = seat
    tr_put(g, EV_BURY)
    tr_put(g, seat)
    tr_cards(g, b)


cdef void chaodi(game_t* g) noexcept nogil:
    """Overcalls after burial (炒底, docs/rules.md §10.4)."""
    cdef int seat = (g.t.dealer + 1) & 3, passes = 0, asks = 0, act
    while passes < 3 and asks < 64:
        asks += 1
        act = ask(g, seat, 25, 1, 100)
        if act != DECL_NONE and act != DECL_OVERCALL:
            passes = 0
        elif act == DECL_OVERCALL:
            g.n_chaodi += 1
            g.trump = decl_trump(&g.decl)
            g.trump_set = SET_OVERCALL
            ctx_init(&g.t.ctx, &g.b.r, g.t.level, g.trump)
            bots_prepare(&g.t)
            tr_put(g, EV_TRUMP)
            tr_put(g, g.t.dealer)
            tr_put(g, g.trump)
            tr_put(g, g.trump_set)
            tr_put(g, seat)
            bury(g, seat)
            passes = 0
        else:
            passes += 1
        seat = (seat + 1) & 3


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
    cdef const table_t* t = &g.t
    cdef unit_t units[MAXUNITS]
    cdef int s, n, i, ntr
    cdef u64 lv = 0
    for s in range(4):
        lv |= (<u64>1) << (s * 13 + t.level)
    for s in range(4):
        row.trumps[s] = <u8>hand_count(hand_mask(t.hands[s], t.ctx.suit_bb[TRUMP]))
        row.pairs[s] = <u8>popcount(t.hands[s].two)
        row.tractors[s] = <u8>count_tractors(&t.ctx, t.hands[s])
        row.jokers[s] = <u8>hand_count(hand_mask(t.hands[s], (<u64>3) << SMALL_JOKER))
        row.points[s] = <u8>hand_points(&t.ctx, t.hands[s])
        row.level_cards[s] = <u8>hand_count(hand_mask(t.hands[s], lv))


cdef int play_hand(game_t* g, int level, int dealer, int first_hand, hand_row_t* row) noexcept nogil:
    """Play one hand. `dealer`: the dealer of a later hand, or the seat dealt first in hand 1.
    Fills `row`; returns 0, or -1 when no hand could be dealt (never in practice)."""
    cdef table_t* t = &g.t
    cdef batch_t* b = g.b
    cdef const rules_t* r = &b.r
    cdef int first = dealer, redeals = 0, called, i, s, leader, seat, w, wseat, pts, failed
    cdef int att, tn = 0, pen_total = 0, defenders, total, side, levels, mult, bonus = 0
    cdef int amount, trick_pts = 0, pen_stakes = 0
    cdef hand_t others[3]
    cdef hand_t attempt, actual, p
    cdef trick_t tr
    cdef trick_row_t* trow
    cdef u8 buf[32]

    cdef double t0 = 0.0, t1 = 0.0
    if b.profile:
        t0 = now()
    memset(row, 0, sizeof(hand_row_t))
    t.level = level
    t.first_hand = first_hand
    t.dealer = dealer
    g.n_chaodi = 0
    # --- deal and calls (hand 1: redeal while nobody calls) ---
    while True:
        called = deal_and_call(g, first, level, first_hand)
        if called or not first_hand or redeals >= MAX_REDEALS:
            break
        redeals += 1
        tr_put(g, EV_REDEAL)
    row.kitty_points_dealt = <u8>hand_points(&t.ctx, g.kitty)
    # --- dealer and trump ---
    if first_hand:
        if r.hand1_dealer == H1_FINAL and called:
            t.dealer = g.decl.seat
        elif r.hand1_dealer == H1_FIRST and called:
            t.dealer = g.decl.first_seat
        else:
            t.dealer = first
    if called:
        g.trump = decl_trump(&g.decl)
        g.trump_set = SET_OVERCALL if g.decl.overcalls > 0 else SET_DECLARED
        row.declarer = <u8>g.decl.seat
    else:
        fallback_trump(g, level)
        row.declarer = 255
    ctx_init(&t.ctx, r, level, g.trump)
    bots_prepare(t)
    tr_put(g, EV_TRUMP)
    tr_put(g, t.dealer)
    tr_put(g, g.trump)
    tr_put(g, g.trump_set)
    tr_put(g, g.decl.seat if called else -1)
    deal_features(g, row)
    if b.profile:
        t1 = now()
        b.t_deal += t1 - t0
        t0 = t1
    # --- kitty ---
    t.played = hand_empty()
    for s in range(4):
        t.played_by[s] = hand_empty()
        t.void_mask[s] = 0
    t.def_points = 0
    t.tricks_done = 0
    bury(g, t.dealer)
    if not first_hand and r.declaring_closes != CLOSES_DEAL:
        if r.overcall_after_burial == OAB_YES or (
                r.overcall_after_burial == OAB_IF_DECLARED and called):
            if not called:
                decl_kitty(&g.decl, g.trump)
            chaodi(g)
    row.kitty_points_buried = <u8>hand_points(&t.ctx, g.kitty)
    if b.profile:
        t1 = now()
        b.t_kitty += t1 - t0
        t0 = t1
    # --- tricks ---
    leader = t.dealer
    tr.shape.ncards = 0
    while t.hands[leader].one:
        tr.leader = leader
        tr.barred = 0
        attempt = bot_lead(t, leader)
        if attempt.one == 0 or not hand_contains(t.hands[leader], attempt) or \
                lead_shape(&t.ctx, attempt, &tr.shape) < 0:
            b.errors += 1
            attempt = hand_empty()
            attempt = hand_add_card(attempt, lsb(t.hands[leader].one))
            lead_shape(&t.ctx, attempt, &tr.shape)
        for i in range(3):
            others[i] = t.hands[(leader + 1 + i) & 3]
        failed = 0
        if tr.shape.kind == KIND_THROW:
            actual = throw_check(&t.ctx, attempt, others, 3, &failed)
            if failed:
                lead_shape(&t.ctx, actual, &tr.shape)
        else:
            actual = attempt
        att = hand_count(attempt)
        if tr.shape.kind == KIND_THROW or failed:
            row.throws += 1
        if failed:
            row.failed_throws += 1
            if r.throw_penalty == PEN_PER_CARD:
                amount = r.throw_penalty_points * (att - tr.shape.ncards)
            elif r.throw_penalty == PEN_FLAT:
                amount = r.throw_penalty_points
            else:
                amount = 0
                if r.throw_penalty == PEN_HALF_STAKE:
                    pen_stakes += 1
            if (leader & 1) == (t.dealer & 1):
                row.failed_throws_dealer += 1
                pen_total += amount
                if r.partner_no_trump_after_failed_throw:
                    i = ((t.dealer + 2) - leader) & 3
                    if i:
                        tr.barred |= 1 << i
            else:
                pen_total -= amount
        trick_start(&t.ctx, &tr, leader, actual, tr.barred)
        t.hands[leader] = hand_minus(t.hands[leader], actual)
        for i in range(1, 4):
            seat = (leader + i) & 3
            p = bot_follow(t, seat, &tr)
            if b.check and not follow_ok(&t.ctx, &tr.shape, t.hands[seat], p):
                b.errors += 1
            if hand_count(p) != tr.shape.ncards or not hand_contains(t.hands[seat], p):
                b.errors += 1
                p = hand_empty()
                while hand_count(p) < tr.shape.ncards:
                    p = hand_add_card(p, lsb(hand_minus(t.hands[seat], p).one))
            trick_add(&t.ctx, &tr, p)
            t.hands[seat] = hand_minus(t.hands[seat], p)
        w = tr.win
        if b.check and w != trick_winner(&t.ctx, tr.plays, 4, tr.barred):
            b.errors += 1
            w = trick_winner(&t.ctx, tr.plays, 4, tr.barred)
        wseat = (leader + w) & 3
        pts = 0
        for i in range(4):
            seat = (leader + i) & 3
            pts += points_of(tr.plays[i])
            t.played = hand_union(t.played, tr.plays[i])
            t.played_by[seat] = hand_union(t.played_by[seat], tr.plays[i])
            if i and hand_count(hand_mask(tr.plays[i], t.ctx.suit_bb[tr.shape.eff])) < \
                    tr.shape.ncards:
                t.void_mask[seat] |= 1 << tr.shape.eff
        if (wseat & 1) != (t.dealer & 1):
            trick_pts += pts
            t.def_points += pts
        t.tricks_done += 1
        # --- records ---
        if b.tricks != NULL:
            if b.ntricks < b.tricks_cap and b.ncodes + 4 * tr.shape.ncards <= b.codes_cap:
                trow = &b.tricks[b.ntricks]
                b.ntricks += 1
                trow.hand_id = g.hand_id
                trow.codes_at = <u32>b.ncodes
                trow.trick_no = <u8>tn
                trow.leader = <u8>leader
                trow.ncards = <u8>tr.shape.ncards
                trow.attempted = <u8>att
                trow.winner = <u8>wseat
                trow.points = <u8>pts
                trow.lead_kind = <u8>tr.shape.kind
                trow.failed = <u8>failed
                for s in range(4):
                    b.ncodes += codes_of(tr.plays[(s - leader) & 3], b.codes + b.ncodes)
            else:
                b.overflow = 1
        if g.tracing:
            tr_put(g, EV_TRICK)
            tr_put(g, leader)
            tr_cards(g, attempt)
            tr_put(g, failed)
            for i in range(4):
                tr_cards(g, tr.plays[i])
            tr_put(g, wseat)
            tr_put(g, pts)
        tn += 1
        leader = wseat
    # --- score ---
    defenders = 1 - (t.dealer & 1)
    row.n_tricks = <u8>tn
    row.last_winner = <u8>leader
    row.last_lead_kind = <u8>tr.shape.kind
    mult = kitty_mult(&t.ctx, &tr.shape)
    row.kitty_mult = <u8>mult
    if (leader & 1) == defenders:
        row.kitty_captured = 1
        bonus = hand_points(&t.ctx, g.kitty) * mult
    row.trick_points = <short>trick_pts
    row.kitty_bonus = <short>bonus
    row.penalty = <short>pen_total
    row.penalty_stakes = <u8>pen_stakes
    total = trick_pts + bonus + pen_total
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
    row.next_dealer = <u8>((t.dealer + 2) & 3 if side == 0 else (t.dealer + 1) & 3)
    row.level = <u8>level
    row.dealer = <u8>t.dealer
    row.first_seat = <u8>first
    row.trump = <u8>g.trump
    row.trump_set = <u8>g.trump_set
    row.n_shows = <u8>(g.n_shows if g.n_shows < 255 else 255)
    row.n_overcalls = <u8>(g.decl.overcalls if g.decl.overcalls < 255 else 255)
    row.n_chaodi = <u8>g.n_chaodi
    row.n_redeals = <u8>redeals
    if g.tracing:
        tr_put(g, EV_RESULT)
        tr_put(g, trick_pts)
        tr_put(g, mult)
        tr_put(g, bonus)
        tr_put(g, pen_total)
        tr_put(g, total)
        tr_put(g, side)
        tr_put(g, levels)
        tr_put(g, row.next_dealer)
        tr_put(g, EV_END)
    if b.profile:
        b.t_tricks += now() - t0
    return 0


# ---------------------------------------------------------------------------------------------
# Matches

cdef int advance(const rules_t* r, int rank, int n, int won) noexcept nogil:
    """`rank` moved up n levels, stopping at the end rank and at unplayed must-play ranks."""
    cdef int i
    for i in range(n):
        if rank >= r.end_rank:
            break
        if (r.must_play_mask >> rank) & 1 and not (won >> rank) & 1:
            break
        rank += 1
    return rank


cdef int play_match(game_t* g, long m, match_row_t* mrow) noexcept nogil:
    """Play match m of the batch; returns -1 when the hand rows ran out (overflow)."""
    cdef batch_t* b = g.b
    cdef const rules_t* r = &b.r
    cdef int lv[2]
    cdef int won[2]
    cdef int dealer, hand_no = 0, dteam, winner = -1, capped = 0, first_hand = 1
    cdef hand_row_t* row
    lv[0] = r.start_rank
    lv[1] = r.start_rank
    won[0] = 0
    won[1] = 0
    rng_split(g.master, &g.deal_rng)
    dealer = rng_below(&g.deal_rng, 4)
    mrow.match_id = b.id_base + <u64>m
    mrow.first_hand_id = mrow.match_id * 65536 + 1
    while winner < 0:
        if b.nhands >= b.hands_cap:
            b.overflow = 1
            return -1
        hand_no += 1
        row = &b.hands[b.nhands]
        b.nhands += 1
        g.hand_id = mrow.match_id * 65536 + <u64>hand_no
        g.tracing = b.trace_item == -2 or (b.trace_item == m and b.trace_hand_no == hand_no)
        if b.trace_item == -2 and b.trace_at != NULL:
            b.trace_at[b.nhands - 1] = <u32>b.trace_len
        play_hand(g, lv[dealer & 1] if not first_hand else r.start_rank, dealer, first_hand, row)
        row.hand_id = g.hand_id
        row.match_id = mrow.match_id
        row.hand_no = <unsigned short>hand_no
        row.level_team0 = <u8>lv[0]
        row.level_team1 = <u8>lv[1]
        if first_hand:
            mrow.first_dealer = row.dealer
        first_hand = 0
        if g.tracing and b.trace_item >= 0:
            return 0
        dteam = row.dealer & 1
        if row.winner == 0:
            if lv[dteam] >= r.end_rank:
                winner = dteam
            won[dteam] |= 1 << lv[dteam]
            lv[dteam] = advance(r, lv[dteam], row.levels, won[dteam])
        else:
            lv[1 - dteam] = advance(r, lv[1 - dteam], row.levels, won[1 - dteam])
        dealer = row.next_dealer
        if winner < 0 and ((r.hand_cap > 0 and hand_no >= r.hand_cap) or
                           hand_no >= MAX_MATCH_HANDS):
            capped = 1
            if lv[0] != lv[1]:
                winner = 0 if lv[0] > lv[1] else 1
            elif r.cap_tie == TIE_DEALER:
                winner = dealer & 1
            else:
                winner = 2
    mrow.hands = <unsigned short>hand_no
    mrow.winner = <u8>winner
    mrow.level_team0 = <u8>lv[0]
    mrow.level_team1 = <u8>lv[1]
    mrow.capped = <u8>capped
    return 0


# ---------------------------------------------------------------------------------------------
# The batch

cdef int run_batch(batch_t* b, rng_t* rng) noexcept nogil:
    cdef game_t g
    cdef long i
    cdef int level, dealer
    memset(&g, 0, sizeof(game_t))
    g.b = b
    # two streams: `rng` hands out one sub-stream per hand (or match) for the cards; its jump
    # (2^128 draws ahead) drives the bots. Paired deals stay paired whatever the bots draw.
    g.bot_rng = rng[0]
    rng_jump(&g.bot_rng)
    g.t.rng = &g.bot_rng
    g.master = rng
    for i in range(4):
        g.t.bots[i] = b.bots[i]
    b.nhands = 0
    b.ntricks = 0
    b.ncodes = 0
    b.trace_len = 0
    b.overflow = 0
    b.errors = 0
    for i in range(b.size):
        if b.mode == 0:
            if b.nhands >= b.hands_cap:
                b.overflow = 1
                return -1
            rng_split(rng, &g.deal_rng)
            level = b.level if b.level >= 0 else rng_below(&g.deal_rng, 13)
            dealer = rng_below(&g.deal_rng, 4)
            g.hand_id = b.id_base + <u64>i
            g.tracing = b.trace_item == -2 or b.trace_item == i
            if b.trace_item == -2 and b.trace_at != NULL:
                b.trace_at[b.nhands] = <u32>b.trace_len
            play_hand(&g, level, dealer, b.first_hand, &b.hands[b.nhands])
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
# The Python face (fastsheng.hands validates and owns the arrays)

def _struct_sizes():
    """sizeof of the row structs (fastsheng.hands checks its numpy dtypes against them)."""
    return {"hand": sizeof(hand_row_t), "match": sizeof(match_row_t),
            "trick": sizeof(trick_row_t)}


cdef inline void* _ptr(unsigned char[::1] v) noexcept:
    return <void*>&v[0] if v is not None and v.shape[0] > 0 else NULL


def _run(rules_fields, bots, int mode, int level, int first_hand, unsigned long long id_base,
         int size, hands, matches, tricks, codes, int trace_item, int trace_hand_no, trace,
         trace_at, state, int check, int profile=0):
    """Play one batch into the given arrays (raw bytes views of numpy arrays) with ONE nogil
    call. `state`: the 4 uint64 words of the RNG. Returns the counts written."""
    cdef batch_t b
    cdef rng_t rng
    cdef unsigned char[::1] hv = hands
    cdef unsigned char[::1] mv = matches
    cdef unsigned char[::1] tv = tricks
    cdef unsigned char[::1] cv = codes
    cdef unsigned char[::1] trv = trace
    cdef unsigned char[::1] tav = trace_at
    cdef int i, rc
    memset(&b, 0, sizeof(batch_t))
    b.r = rules_fields
    for i in range(4):
        b.bots[i] = bots[i]
    b.mode = mode
    b.level = level
    b.first_hand = first_hand
    b.id_base = id_base
    b.size = size
    b.hands = <hand_row_t*>_ptr(hv)
    b.hands_cap = hv.shape[0] // sizeof(hand_row_t) if hv is not None else 0
    b.matches = <match_row_t*>_ptr(mv)
    b.tricks = <trick_row_t*>_ptr(tv)
    b.tricks_cap = tv.shape[0] // sizeof(trick_row_t) if tv is not None else 0
    b.codes = <u8*>_ptr(cv)
    b.codes_cap = cv.shape[0] if cv is not None else 0
    b.trace_item = trace_item
    b.trace_hand_no = trace_hand_no
    b.trace = <short*>_ptr(trv)
    b.trace_cap = trv.shape[0] // sizeof(short) if trv is not None else 0
    b.trace_at = <u32*>_ptr(tav)
    b.check = check
    b.profile = profile
    rng.s[0] = state[0]
    rng.s[1] = state[1]
    rng.s[2] = state[2]
    rng.s[3] = state[3]
    with nogil:
        rc = run_batch(&b, &rng)
    return {"nhands": b.nhands, "ntricks": b.ntricks, "ncodes": b.ncodes,
            "trace_len": b.trace_len, "overflow": b.overflow, "errors": b.errors,
            "t_deal": b.t_deal, "t_kitty": b.t_kitty, "t_tricks": b.t_tricks}


# trace event codes and limits, for fastsheng.hands
EV_END_ = EV_END
MAX_TRACE_ = MAX_TRACE
EVENTS = {"end": EV_END, "deal": EV_DEAL, "show": EV_SHOW, "redeal": EV_REDEAL,
          "trump": EV_TRUMP, "bury": EV_BURY, "chaodi": EV_CHAODI, "trick": EV_TRICK,
          "result": EV_RESULT}


def _rng_draws(state, unsigned long long bound, int n, bint jump=False):
    """n draws of the core's RNG from a 4-word state: raw 64-bit words (bound 0) or uniform
    integers below `bound` (tests pin the generator against a plain-Python xoshiro256**)."""
    cdef rng_t r
    cdef int i
    r.s[0] = state[0]
    r.s[1] = state[1]
    r.s[2] = state[2]
    r.s[3] = state[3]
    if jump:
        rng_jump(&r)
    out = []
    for i in range(n):
        out.append(rng_next(&r) if bound == 0 else fs_rng_below(&r, bound))
    return out
