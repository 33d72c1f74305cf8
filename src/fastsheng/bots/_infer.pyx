# cython: language_level=3
"""Inference from play: how many of the other seats' past plays a player model explains.

A world honours every public fact (fastsheng._worlds), but it counts as much as any other
consistent world even where its cards make the plays that were seen unlikely: a seat that led
a small club holding, in this world, the two top clubs a player of its style leads first.
Strong card players read the play: they weigh the deals by how well each explains what the
others did. `misfits` measures that for one world: it replays the hand from the first lead with
the world's cards (each seat's cards now plus the cards it has played), checks every past play
against the rules (fastsheng._worlds.trick_ok) and asks the model bot at every past decision of
another seat what it would have played, counting the decisions where it would have played
otherwise. The chain moves among the consistent worlds by swapping two hidden cards between two
places and keeps a swap with probability min(1, odds ** (misfits after - misfits before)):
Metropolis, so in the long run each world is visited in proportion to odds ** misfits (uniform
over the deals among worlds that fit alike).
"""

cdef extern from *:
    """
    /* the same sums on every build (FASTSHENG_NATIVE's -march=native would fuse the learned
       belief's into FMAs and could move a chain's step): the frozen play must not depend on
       the CPU */
    #if defined(__GNUC__) && !defined(__clang__)
    #pragma GCC optimize("fp-contract=off")
    #endif
    """

from libc.math cimport exp, log, log1p, pow
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from fastsheng._bitboard cimport (
    hand_add_card, hand_copies, hand_count, hand_empty, hand_equal, hand_minus, hand_t,
    hand_union, lsb,
)
from fastsheng.bots._heuristic cimport NBOTS, bot_bury, bot_follow, bot_lead, points_of
from fastsheng.bots._card_belief cimport card_logq, shown_unplayed
from fastsheng._core cimport lead_shape
from fastsheng.bots._features cimport NFEAT, cand_features
from fastsheng._game cimport LOG_TRICKS, PH_FOLLOW, PH_LEAD, game_t, seat_t, trick_public
from fastsheng._table cimport bot_t
from fastsheng.bots._models cimport belief_t, mlp_forward
from fastsheng.bots._seat cimport search_t
from fastsheng._rng cimport rng_below, rng_next, rng_split, rng_t
from fastsheng._table cimport trick_add, trick_start
from fastsheng._worlds cimport kitty_known, trick_ok

cdef enum:
    KITTY = 4


# The learned belief (a seat's `belief`: fastsheng.bots._models.belief_t), trained on hands of
# the bots the search meets (training/train_belief.py), in two forms:
# 1: a per-decision classifier of the real deal against uniform consistent worlds. Its logit
#    f(x) of a past decision's features x (the played move against the model bot's, from the
#    acting seat's cards of the world, and whether they differ) estimates log p(x | the real
#    deal) / p(x | a uniform world). Units: 100 (clip - f) per decision, clipped to [0, span]
#    (the logit's range in training), so that odds exp(-infer/10) weigh a world by
#    exp(infer/10 * sum f).
# 2: a model of when the player leaves the model bot's play: its logit f(x) of the features of
#    the model's play in the world's cards is log P(another play) / P(the model's). A strong
#    player reads the odds of a deviation from the position: a searching player keeps the
#    obvious plays and leaves the close ones, so a world where a seat left an obvious play is
#    less likely than one where it left a close one. Units: 100 (-log P(what was played: the
#    model's or another)), clipped to span; the odds weigh a world by P(record)^(infer/10).


cdef void fit_from(fit_t* f, const bot_t* rows, const seat_t* st, int bot) noexcept nogil:
    cdef const search_t* o = &st.search
    f.bot = bot
    f.soft = o.soft
    f.kitty = o.kitty
    f.belief = o.belief
    f.kinds = o.kinds
    f.bm = st.belief
    f.judge = NULL
    if rows != NULL and 0 <= o.guide < NBOTS:
        f.judge = rows[o.guide].learned


cdef void fit_of(fit_t* f, const game_t* g, int seat, const seat_t* st) noexcept nogil:
    """How `seat`'s inference reads the play, from its seat's settings: the model bot (its base
    bot unless the seat names one), the learned judgement (soft, the model of its line-up's
    guiding learned row), the burial, the belief and its model, the decisions read."""
    fit_from(f, g.t.rows, st, st.search.model if st.search.model >= 0 else g.t.bots[seat])


cdef void fit_plain(fit_t* f, int bot) noexcept nogil:
    """The plain count: 0/1 misfits of every past lead and follow against bot `bot`."""
    f.bot = bot
    f.soft = 0
    f.kitty = 0
    f.belief = 0
    f.kinds = 3
    f.bm = NULL
    f.judge = NULL


cdef inline int judged(game_t* r, int s, hand_t model_play, hand_t played, const fit_t* f,
                       rows_t* rows) noexcept nogil:
    """One past decision's misfit in hundredths (0: the model plays as was played); with
    `rows`, its features are written instead of the belief's judgement (its training rows)."""
    cdef float y
    cdef float x[NB_IN]
    cdef float xs[NB_IN]
    cdef bint same = hand_equal(model_play, played)
    cdef int kind = rows.kind if rows != NULL else f.belief
    cdef const belief_t* bm = f.bm
    if (rows != NULL and rows.n < rows.cap) or (rows == NULL and f.belief and bm != NULL):
        if kind == 2:
            # the model's own play, in this world's cards (whether it was played: the label)
            cand_features(r, s, model_play, model_play, 0, 8, x)
        else:
            cand_features(r, s, played, model_play, 0, 8, x)
        x[NFEAT] = 0 if same else 1
        if rows != NULL:
            memcpy(rows.x + rows.n * NB_IN, x, NB_IN * sizeof(float))
            rows.n += 1
        elif kind == 2:
            # -log P(what was seen): the model's play kept or left, at the learned odds
            x[NFEAT] = 0
            y = mlp_forward(&bm.net, x, xs, NB_IN)
            y = 100 * (log1p(exp(-y)) if not same else log1p(exp(y)))
            return <int>bm.span if y >= bm.span else <int>(y + 0.5)
        else:
            y = 100 * (bm.clip - mlp_forward(&bm.net, x, xs, NB_IN))
            return 0 if y <= 0 else (<int>bm.span if y >= bm.span else <int>(y + 0.5))
    if same:
        return 0
    if f.soft <= 0 or f.judge == NULL:
        return 100
    # the learned judgement: the predicted gain of the play made over the model bot's
    cand_features(r, s, played, model_play, 0, f.judge.want, x)
    y = 1.0 - mlp_forward(&f.judge.net, x, xs, NFEAT) / f.soft
    if y <= 0:
        return 0
    if y >= 1:
        return 100
    return <int>(100 * y + 0.5)


cdef inline bint reads_burial(const game_t* world, int seat, int kitty) noexcept nogil:
    """Is there a burial for `seat` to read (kitty > 0: one burial by another seat, no 炒底)?"""
    return (kitty > 0 and 0 <= world.t.burier < 4 and world.t.burier != seat
            and world.n_chaodi == 0 and hand_count(world.kitty) == 8)


cdef int fit_units(const game_t* world, int seat, const fit_t* f, const rng_t* rng,
                   int cap) noexcept nogil:
    return fit_rows(world, seat, f, rng, cap, NULL)


cdef int fit_rows(const game_t* world, int seat, const fit_t* f, const rng_t* rng, int cap,
                  rows_t* rows) noexcept nogil:
    """misfits in hundredths of a misfit (soft: the learned judgement of judged; kitty: the
    burial read too, `kitty` misfits per card of the world's kitty the model bot would not
    have buried from the burier's 33 cards), -1 when the record contradicts the world;
    counting stops above cap (hundredths)."""
    # the replay is a game (its table, trick and phase), so that every bot can be asked,
    # learned ones included (they read the game around the table), and the learned model
    # can judge a play
    cdef game_t r
    cdef rng_t br
    cdef const hand_t* plays
    cdef hand_t att, p
    cdef int s, i, j, n, ntricks, leader, barred, pts, b, miss = 0
    cdef int bot = f.bot
    if world.phase < PH_LEAD:
        return 0
    memcpy(&r, world, sizeof(game_t))
    memcpy(&br, rng, sizeof(rng_t))
    r.t.rng = &br
    # every seat's cards at the first lead: those it holds now and those it has played
    for s in range(4):
        r.t.bots[s] = bot
        r.t.hands[s] = hand_union(world.t.hands[s], world.t.played_by[s])
        r.t.played_by[s] = hand_empty()
        r.t.void_mask[s] = 0
        r.t.nopair_mask[s] = 0
    if world.phase == PH_FOLLOW:
        for i in range(world.tr.n):
            s = (world.tr.leader + i) & 3
            r.t.hands[s] = hand_union(r.t.hands[s], world.tr.plays[i])
    r.t.played = hand_empty()
    r.t.def_points = 0
    r.t.tricks_done = 0
    if reads_burial(world, seat, f.kitty):
        b = world.t.burier
        # the model's burial from the burier's 33 cards of the world
        p = hand_union(r.t.hands[b], world.kitty)
        miss += 100 * f.kitty * hand_count(hand_minus(world.kitty, bot_bury(&r.t, b, p)))
    ntricks = world.tn if world.tn < LOG_TRICKS else LOG_TRICKS
    for j in range(ntricks + (1 if world.phase == PH_FOLLOW else 0)):
        if j < ntricks:
            leader = world.log_leader[j]
            barred = world.log_barred[j]
            att = world.log_attempt[j]
            plays = world.log_plays[j]
            n = 4
        else:
            leader = world.tr.leader
            barred = world.tr.barred
            att = world.attempt
            plays = world.tr.plays
            n = world.tr.n
        if not trick_ok(&r.t.ctx, r.t.hands, leader, att, not hand_equal(att, plays[0]), plays, n):
            return -1
        r.phase = PH_LEAD
        if leader != seat:
            p = bot_lead(&r.t, leader)
            if f.kinds & 1:
                miss += judged(&r, leader, p, att, f, rows)
        lead_shape(&r.t.ctx, plays[0], &r.tr.shape)
        trick_start(&r.t.ctx, &r.tr, leader, plays[0], barred)
        r.t.hands[leader] = hand_minus(r.t.hands[leader], plays[0])
        r.phase = PH_FOLLOW
        for i in range(1, n):
            s = (leader + i) & 3
            if s != seat:
                p = bot_follow(&r.t, s, &r.tr)
                if f.kinds & 2:
                    miss += judged(&r, s, p, plays[i], f, rows)
            trick_add(&r.t.ctx, &r.tr, plays[i])
            r.t.hands[s] = hand_minus(r.t.hands[s], plays[i])
        if miss > cap:
            return miss
        if n == 4:
            pts = 0
            for i in range(4):
                pts += points_of(plays[i])
            trick_public(&r.t, &r.tr, (leader + r.tr.win) & 3, pts)
    return miss


cdef int misfits(const game_t* world, int seat, int bot, const rng_t* rng, int cap) noexcept nogil:
    cdef fit_t f
    fit_plain(&f, bot)
    cdef int m = fit_units(world, seat, &f, rng, cap * 100 if cap < (1 << 20) else 1 << 30)
    return m if m < 0 else m // 100


cdef inline hand_t* place(chain_t* c, int L) noexcept nogil:
    return &c.w.kitty if L == KITTY else &c.w.t.hands[L]


cdef int pick_copy(hand_t h, rng_t* rng) noexcept nogil:
    """A card code of h, each copy alike likely (h not empty)."""
    cdef int j = rng_below(rng, hand_count(h)), code
    cdef unsigned long long bits = h.one
    while True:
        code = lsb(bits)
        bits &= bits - 1
        j -= hand_copies(h, code)
        if j < 0:
            return code


cdef void chain_start(chain_t* c, const game_t* g, const game_t* first, int seat, double odds,
                      rng_t* rng) noexcept nogil:
    cdef int s, b
    cdef const seat_t* st = &g.b.seats[seat]
    cdef float lam = st.search.lam
    cdef hand_t now, kb
    cdef game_t* w2
    memcpy(&c.w, first, sizeof(game_t))
    c.seat = seat
    fit_of(&c.fit, g, seat, st)
    # reading the burial: start from the world with the kitty the model buries from the
    # burier's cards (those it holds now, has played and the kitty), when the record allows it
    if reads_burial(first, seat, c.fit.kitty) and not kitty_known(g, seat):
        b = first.t.burier
        now = hand_union(first.t.hands[b], first.kitty)
        w2 = <game_t*>malloc(sizeof(game_t))
        if w2 != NULL:
            memcpy(w2, first, sizeof(game_t))
            w2.t.bots[b] = c.fit.bot
            kb = bot_bury(&w2.t, b, hand_union(now, first.t.played_by[b]))
            if hand_count(kb) == 8 and hand_equal(hand_minus(kb, now), hand_empty()) and \
                    not hand_equal(kb, first.kitty):
                w2.t.bots[b] = first.t.bots[b]
                w2.kitty = kb
                w2.t.buried = kb
                w2.t.hands[b] = hand_minus(now, kb)
                if fit_units(w2, seat, &c.fit, rng, 1 << 30) >= 0:
                    memcpy(&c.w, w2, sizeof(game_t))
            free(w2)
    c.odds = odds
    c.steps = 0
    c.accepted = 0
    rng_split(rng, &c.fit_rng)
    c.nloc = 0
    c.pinned[seat] = hand_empty()
    for s in range(4):
        if s == seat:
            continue
        c.loc[c.nloc] = s
        c.nloc += 1
        # a card it showed and has not played is known to be with it
        c.pinned[s] = shown_unplayed(g, s)
    c.pinned[KITTY] = hand_empty()
    if not kitty_known(g, seat) and hand_count(g.kitty) and c.nloc < 4:
        c.loc[c.nloc] = KITTY
        c.nloc += 1
        # the burier's shown cards may lie in its hand or the kitty: pin them where they are
        if 0 <= g.t.burier < 4 and g.t.burier != seat:
            c.pinned[KITTY] = hand_minus(c.pinned[g.t.burier], c.w.t.hands[g.t.burier])
            c.pinned[g.t.burier] = hand_minus(c.pinned[g.t.burier], c.pinned[KITTY])
    c.m = fit_units(&c.w, seat, &c.fit, &c.fit_rng, 1 << 30)
    # the per-card belief (the seat's `cards=` model to its power `lam`), read once from the
    # record (it does not depend on the world), weighs the worlds by the product over their
    # free cards of P(card lies there) to the power lam
    c.lam = 0
    if lam > 0 and card_logq(g, seat, st.cards, lam, c.lq):
        c.lam = lam


cdef void chain_run(chain_t* c, int n, rng_t* rng) noexcept nogil:
    cdef int _step, a, b, x, y, m
    cdef hand_t* ha
    cdef hand_t* hb
    cdef hand_t ma, mb, sa, sb
    cdef double u, d, lo = log(c.odds) if c.odds > 0 else 0
    cdef int pa, pb
    cdef bint accept
    if c.nloc < 2:
        return
    for _step in range(n):
        a = rng_below(rng, c.nloc)
        b = rng_below(rng, c.nloc - 1)
        if b >= a:
            b += 1
        ha = place(c, c.loc[a])
        hb = place(c, c.loc[b])
        ma = hand_minus(ha[0], c.pinned[c.loc[a]])
        mb = hand_minus(hb[0], c.pinned[c.loc[b]])
        c.steps += 1
        if not hand_count(ma) or not hand_count(mb):
            continue
        x = pick_copy(ma, rng)
        y = pick_copy(mb, rng)
        if x == y:
            continue
        sa = ha[0]
        sb = hb[0]
        ha[0] = hand_add_card(hand_minus(sa, hand_add_card(hand_empty(), x)), y)
        hb[0] = hand_add_card(hand_minus(sb, hand_add_card(hand_empty(), y)), x)
        m = fit_units(&c.w, c.seat, &c.fit, &c.fit_rng, c.m + 4000 if c.m >= 0 else 1 << 30)
        u = (rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)
        if c.lam > 0:
            # x moves from a to b, y from b to a: four terms of the per-card belief change
            pa = c.loc[a]
            pb = c.loc[b]
            d = c.lq[pb][x] + c.lq[pa][y] - c.lq[pa][x] - c.lq[pb][y]
            accept = m >= 0 and (c.m < 0 or log(u) < (m - c.m) / 100.0 * lo + d)
        else:
            # from a world the record contradicts, any consistent one is taken (the walk out)
            accept = m >= 0 and (c.m < 0 or m <= c.m or u < pow(c.odds, (m - c.m) / 100.0))
        if accept:
            c.m = m
            c.accepted += 1
            if c.loc[a] == KITTY or c.loc[b] == KITTY:
                if c.w.t.burier >= 0:
                    c.w.t.buried = c.w.kitty
        else:
            ha[0] = sa
            hb[0] = sb


NB_IN_ = NB_IN
assert NB_IN == NFEAT + 1
