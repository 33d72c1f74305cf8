# cython: language_level=3
"""Where each hidden card lies, given the public record: a per-card belief.

The inference chain (fastsheng.bots._infer) weighs a world by how well a model bot explains each
past decision with that world's cards. A strong player also reads the record card by card: the
seat that let an opponent's ten take the trick as last to play holds no ace of that suit; the
seat that led a small spade early probably does not hold the top spade (players cash their
winners first); a seat that keeps ruffing holds trumps. This module computes, for each card
code the seat has not seen and each place it may lie in, features of what the record says about
that card and that place (card_features), and a small learned model (a ReLU MLP scoring each
(code, place) pair, a softmax over the places, trained by analysis/train_card_belief.py on the
real deals of simulated hands) turns them into the probability that a copy lies there. The
chain can then weigh a world by the product of those probabilities over its hidden cards
(card_logq, the `cards` setting of a seat): a swap of two cards changes four terms only, so it
costs nothing in the chain, and the model runs once per decision, not once per chain step.
"""

cdef extern from *:
    """
    /* the same sums on every build (no FMA contraction under -march=native) */
    #if defined(__GNUC__) && !defined(__clang__)
    #pragma GCC optimize("fp-contract=off")
    #endif
    """

from libc.math cimport exp, log
from libc.string cimport memcpy, memset

from fastsheng._bitboard cimport (
    hand_add_card, hand_copies, hand_count, hand_empty, hand_minus, hand_t, hand_union, lsb,
    points_of, popcount, u64,
)
from fastsheng._core cimport KIND_PAIR, KIND_SINGLE, TRUMP, ctx_t, lead_shape
from fastsheng._game cimport LOG_TRICKS, PH_FOLLOW, game_t
from fastsheng._table cimport trick_add, trick_start, trick_t, would_win
from fastsheng._worlds cimport kitty_known
from fastsheng.bots._models cimport cards_t, mlp_forward

cdef u64 ALL_CODES = ((<u64>1) << 54) - 1

cdef inline int rel_place(int seat, int s) noexcept nogil:
    """The place index (0 left, 1 partner, 2 right) of seat s from `seat`'s side."""
    return ((s - seat) & 3) - 1


cdef void card_features(const game_t* g, int seat, float* x, int* free, int* ok) noexcept nogil:
    cdef const ctx_t* c = &g.t.ctx
    cdef trick_t tr
    cdef const hand_t* plays
    cdef hand_t unseen, pinned[3], one, two, play
    cdef int ntricks, j, i, n, leader, s, p, e, le, code, k, w, wseat, pts, lastseat
    cdef bint kitty_open, followed
    cdef u64 bits, wbits, pbits
    # per place (0..2 the seats, left, partner, right) and effective suit / code
    cdef int played_e[3][5]
    cdef int leads_e[3][5]
    cdef int last_lead[3]
    cdef int disc_e[3][5]
    cdef int pairs_e[3][5]
    cdef int shown_e[3][5]
    cdef int given[3]
    cdef int fed[3]
    cdef int size[3]
    cdef int passed[3][54]
    cdef int passed_last[3][54]
    cdef int passed_pair[3][54]
    cdef int led_below[3][54]
    cdef hand_t played_s[3]
    cdef float* o
    memset(played_e, 0, sizeof(played_e))
    memset(leads_e, 0, sizeof(leads_e))
    memset(disc_e, 0, sizeof(disc_e))
    memset(pairs_e, 0, sizeof(pairs_e))
    memset(shown_e, 0, sizeof(shown_e))
    memset(given, 0, sizeof(given))
    memset(fed, 0, sizeof(fed))
    memset(passed, 0, sizeof(passed))
    memset(passed_last, 0, sizeof(passed_last))
    memset(passed_pair, 0, sizeof(passed_pair))
    memset(led_below, 0, sizeof(led_below))
    memset(x, 0, 54 * NPLACE * NCF * sizeof(float))
    for p in range(3):
        last_lead[p] = -1
    # what the seat has not seen: the deck but its hand, the cards played (the trick in
    # progress too) and the kitty once it knows it
    unseen.one = ALL_CODES
    unseen.two = ALL_CODES
    unseen = hand_minus(unseen, g.t.hands[seat])
    unseen = hand_minus(unseen, g.t.played)
    if g.phase == PH_FOLLOW:
        for i in range(g.tr.n):
            unseen = hand_minus(unseen, g.tr.plays[i])
    kitty_open = not kitty_known(g, seat) and hand_count(g.kitty) > 0
    if not kitty_open and 0 <= g.t.burier < 4:
        unseen = hand_minus(unseen, g.kitty)
    # shown and unplayed cards are known to lie where they are: not free
    for p in range(3):
        s = (seat + 1 + p) & 3
        played_s[p] = g.t.played_by[s]
        if g.phase == PH_FOLLOW:
            for i in range(g.tr.n):
                if ((g.tr.leader + i) & 3) == s:
                    played_s[p] = hand_union(played_s[p], g.tr.plays[i])
        pinned[p] = shown_unplayed(g, s)
        size[p] = hand_count(g.t.hands[s])
        bits = pinned[p].one
        while bits:
            code = lsb(bits)
            bits &= bits - 1
            shown_e[p][c.eff[code]] += hand_copies(pinned[p], code)
    for code in range(54):
        k = hand_copies(unseen, code)
        for p in range(3):
            k -= hand_copies(pinned[p], code)
        free[code] = k if k > 0 else 0
    # the record, trick by trick, with the winner so far before each follow
    ntricks = g.tn if g.tn < LOG_TRICKS else LOG_TRICKS
    for j in range(ntricks + (1 if g.phase == PH_FOLLOW else 0)):
        if j < ntricks:
            leader = g.log_leader[j]
            plays = g.log_plays[j]
            n = 4
            lead_shape(c, plays[0], &tr.shape)
            trick_start(c, &tr, leader, plays[0], g.log_barred[j])
        else:
            leader = g.tr.leader
            plays = g.tr.plays
            n = g.tr.n
            lead_shape(c, plays[0], &tr.shape)
            trick_start(c, &tr, leader, plays[0], g.tr.barred)
        le = tr.shape.eff
        if leader != seat:
            p = rel_place(seat, leader)
            leads_e[p][le] += 1
            last_lead[p] = le
            if tr.shape.kind == KIND_SINGLE:
                # a single led below a card of its suit: a player cashes its winners first
                k = c.key[lsb(plays[0].one)]
                bits = c.suit_bb[le] & ALL_CODES
                while bits:
                    code = lsb(bits)
                    bits &= bits - 1
                    if c.key[code] > k:
                        led_below[p][code] += 1
        for i in range(1, n):
            s = (leader + i) & 3
            play = plays[i]
            if s == seat:
                trick_add(c, &tr, play)
                continue
            p = rel_place(seat, s)
            wseat = (leader + tr.win) & 3
            wbits = 0
            pbits = 0
            if (wseat & 1) != (s & 1):
                # an opponent wins so far: which free cards would have taken it from it
                followed = popcount(play.one & c.suit_bb[le]) > 0
                for code in range(54):
                    if free[code] == 0:
                        continue
                    if c.eff[code] != le and followed:
                        continue      # it followed suit: it could not ruff
                    if tr.shape.kind == KIND_SINGLE:
                        one = hand_add_card(hand_empty(), code)
                        if would_win(c, &tr, one):
                            wbits |= (<u64>1) << code
                    elif tr.shape.kind == KIND_PAIR and free[code] == 2:
                        two = hand_add_card(hand_add_card(hand_empty(), code), code)
                        if would_win(c, &tr, two):
                            pbits |= (<u64>1) << code
            w = tr.win
            trick_add(c, &tr, play)
            if tr.win == w:
                # it let the opponent keep the trick: it held none of those, or chose so
                lastseat = i == 3
                bits = wbits
                while bits:
                    code = lsb(bits)
                    bits &= bits - 1
                    if lastseat:
                        passed_last[p][code] += 1
                    else:
                        passed[p][code] += 1
                bits = pbits
                while bits:
                    code = lsb(bits)
                    bits &= bits - 1
                    passed_pair[p][code] += 1
            # the cards it played, by suit; off the led suit (discards, ruffs); pairs
            for e in range(5):
                k = popcount(play.one & c.suit_bb[e]) + popcount(play.two & c.suit_bb[e])
                played_e[p][e] += k
                if e != le:
                    disc_e[p][e] += k
                pairs_e[p][e] += popcount(play.two & c.suit_bb[e])
        if leader != seat:
            p = rel_place(seat, leader)
            for e in range(5):
                played_e[p][e] += popcount(plays[0].one & c.suit_bb[e]) + \
                    popcount(plays[0].two & c.suit_bb[e])
                pairs_e[p][e] += popcount(plays[0].two & c.suit_bb[e])
        if n == 4:
            # points given to the other side, and fed to its own
            wseat = (leader + tr.win) & 3
            for i in range(4):
                s = (leader + i) & 3
                if s == seat:
                    continue
                pts = points_of(plays[i])
                p = rel_place(seat, s)
                if (wseat & 1) == (s & 1):
                    fed[p] += pts
                else:
                    given[p] += pts
    for code in range(54):
        e = c.eff[code]
        for p in range(NPLACE):
            ok[code * NPLACE + p] = 0
        if free[code] == 0:
            continue
        # the card (the same for every place: written once, copied)
        o = x + code * NPLACE * NCF
        o[0] = 1.0
        o[1] = e == TRUMP
        o[2] = <float>c.key[code] / c.nkeys[e]
        o[3] = points_of(hand_add_card(hand_empty(), code)) / 10.0
        k = 0
        bits = unseen.one & c.suit_bb[e]
        while bits:
            i = lsb(bits)
            bits &= bits - 1
            if c.key[i] > c.key[code]:
                k += hand_copies(unseen, i)
        o[4] = k / 10.0
        o[5] = free[code] == 2
        o[6] = (popcount(unseen.one & c.suit_bb[e]) + popcount(unseen.two & c.suit_bb[e])) / 25.0
        o[7] = g.t.tricks_done / 25.0
        for p in range(NPLACE):
            o = x + (code * NPLACE + p) * NCF
            if p:
                memcpy(o, x + code * NPLACE * NCF, 8 * sizeof(float))
            # the place
            o[8 + p] = 1.0
            if p == 3:
                o[14] = hand_count(g.kitty) / 25.0
                ok[code * NPLACE + p] = kitty_open
                continue
            s = (seat + 1 + p) & 3
            ok[code * NPLACE + p] = size[p] > 0 and not ((g.t.void_mask[s] >> e) & 1)
            o[12] = (s & 1) == (g.t.dealer & 1)
            o[13] = s == g.t.burier
            o[14] = size[p] / 25.0
            o[15] = free[code] == 2 and (g.t.nopair_mask[s] >> e) & 1
            o[16] = hand_copies(played_s[p], code) > 0
            o[17] = played_e[p][e] / 10.0
            o[18] = leads_e[p][e] / 5.0
            o[19] = last_lead[p] == e
            o[20] = passed[p][code] / 3.0
            o[21] = passed_last[p][code] / 2.0
            o[22] = led_below[p][code] / 3.0
            o[23] = disc_e[p][e] / 5.0
            o[24] = disc_e[p][TRUMP] / 5.0
            o[25] = given[p] / 20.0
            o[26] = fed[p] / 20.0
            o[27] = shown_e[p][e] / 2.0
            o[28] = pairs_e[p][e] / 5.0
            o[29] = passed_pair[p][code] / 2.0


cdef int card_logq(const game_t* g, int seat, const cards_t* m, float lam,
                   float lq[5][54]) noexcept nogil:
    cdef float x[54 * NPLACE * NCF]
    cdef int free[54]
    cdef int ok[54 * NPLACE]
    cdef float xs[NCF]
    cdef float sc[NPLACE]
    cdef float y, top, tot
    cdef const float* o
    cdef int code, p, place
    if m == NULL:
        return 0
    card_features(g, seat, x, free, ok)
    memset(lq, 0, 5 * 54 * sizeof(float))
    for code in range(54):
        if free[code] == 0:
            continue
        top = -1e30
        for p in range(NPLACE):
            if not ok[code * NPLACE + p]:
                continue
            o = x + (code * NPLACE + p) * NCF
            y = mlp_forward(&m.net, o, xs, NCF)
            sc[p] = y
            if y > top:
                top = y
        tot = 0
        for p in range(NPLACE):
            if ok[code * NPLACE + p]:
                tot += exp(sc[p] - top)
        for p in range(NPLACE):
            if ok[code * NPLACE + p]:
                place = 4 if p == 3 else (seat + 1 + p) & 3
                lq[place][code] = lam * (sc[p] - top - log(tot))
    return 1


NCF_ = NCF
NPLACE_ = NPLACE

# The slots of card_features, in order (analysis/train_card_belief.py).
FEATURE_NAMES = (
    "bias", "trump", "height", "points", "unseen_above", "two_free", "unseen_in_suit", "trick",
    "left", "partner", "right", "kitty", "dealer_side", "burier", "size", "no_pair",
    "played_other_copy", "played_in_suit", "leads_of_suit", "last_lead_suit", "passed_up",
    "passed_up_last", "led_below", "off_suit_plays", "ruffs", "points_given", "points_fed",
    "shown_in_suit", "pairs_in_suit", "passed_up_pair",
)
assert len(FEATURE_NAMES) == NCF
