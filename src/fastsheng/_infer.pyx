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
from fastsheng._bots cimport bot_bury, bot_follow, bot_lead, points_of
from fastsheng._card_belief cimport card_lambda, card_logq, card_name_lambda, shown_unplayed
from fastsheng._core cimport lead_shape
from fastsheng._features cimport NFEAT, cand_features
from fastsheng._game cimport LOG_TRICKS, PH_FOLLOW, PH_LEAD, game_t, trick_public
from fastsheng._rng cimport rng_below, rng_next, rng_split, rng_t
from fastsheng._table cimport trick_add, trick_start
from fastsheng._worlds cimport kitty_known, trick_ok

cdef enum:
    KITTY = 4


# screening knobs (module settings, never set by a published name): SOFT > 0 judges a past play
# that differs from the model bot's by the learned model's predicted gain of it over the model's
# play (JUDGE, when a model is loaded): a play it predicts to gain SOFT net levels or more is no
# misfit, one it predicts to gain nothing a whole one; MODEL_BOT >= 0 replaces the seat's base bot as
# the model of the chain (the learned model is trained against expert-v4's play)
cdef float SOFT = 0
cdef int MODEL_BOT = -1
cdef int KINDS = 3          # screening: bit 0 count leads, bit 1 follows


cdef judge_fn JUDGE = NULL   # the learned judgement, set by fastsheng._learned's load

# The learned belief (screening: BELIEF = 1 or 2 with a model set by _set_belief), trained on
# hands of the bots the search meets (analysis/train_belief.py), in two forms:
# 1: a per-decision classifier of the real deal against uniform consistent worlds. Its logit
#    f(x) of a past decision's features x (the played move against the model bot's, from the
#    acting seat's cards of the world, and whether they differ) estimates log p(x | the real
#    deal) / p(x | a uniform world). Units: 100 (BCLIP - f) per decision, clipped to [0, BSPAN]
#    (the logit's range in training), so that odds exp(-infer/10) weigh a world by
#    exp(infer/10 * sum f).
# 2: a model of when the player leaves the model bot's play: its logit f(x) of the features of
#    the model's play in the world's cards is log P(another play) / P(the model's). A strong
#    player reads the odds of a deviation from the position: a searching player keeps the
#    obvious plays and leaves the close ones, so a world where a seat left an obvious play is
#    less likely than one where it left a close one. Units: 100 (-log P(what was played: the
#    model's or another)), clipped to BSPAN; the odds weigh a world by P(record)^(infer/10).
cdef enum:
    MAX_BH = 64
cdef int BELIEF = 0
cdef int BH = 0
cdef float BCLIP = 4         # the logit's bound above
cdef float BSPAN = 800       # 100 times its range (the units' bound)
cdef float BMU[NB_IN]
cdef float BSD[NB_IN]
cdef float BW1[MAX_BH][NB_IN]
cdef float BB1[MAX_BH]
cdef float BW2[MAX_BH]
cdef float BB2 = 0


cdef float belief_logit(const float* x) noexcept nogil:
    cdef int i, j
    cdef float z, y = BB2
    cdef float xs[NB_IN]
    for j in range(NB_IN):
        xs[j] = (x[j] - BMU[j]) / BSD[j]
    for i in range(BH):
        z = BB1[i]
        for j in range(NB_IN):
            z += BW1[i][j] * xs[j]
        if z > 0:
            y += BW2[i] * z
    return y


cdef void set_judge(judge_fn f) noexcept nogil:
    global JUDGE
    JUDGE = f


cdef inline int judged(game_t* r, int s, hand_t model_play, hand_t played, float soft,
                       int belief, rows_t* rows) noexcept nogil:
    """One past decision's misfit in hundredths (0: the model plays as was played); with
    `rows`, its features are written instead of the belief's judgement (its training rows)."""
    cdef float y
    cdef float x[NB_IN]
    cdef bint same = hand_equal(model_play, played)
    cdef int kind = rows.kind if rows != NULL else belief
    if (rows != NULL and rows.n < rows.cap) or (rows == NULL and belief and BH):
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
            y = belief_logit(x)
            y = 100 * (log1p(exp(-y)) if not same else log1p(exp(y)))
            return <int>BSPAN if y >= BSPAN else <int>(y + 0.5)
        else:
            y = 100 * (BCLIP - belief_logit(x))
            return 0 if y <= 0 else (<int>BSPAN if y >= BSPAN else <int>(y + 0.5))
    if same:
        return 0
    if soft <= 0 or JUDGE == NULL:
        return 100
    y = 1.0 - JUDGE(r, s, played, model_play) / soft
    if y <= 0:
        return 0
    if y >= 1:
        return 100
    return <int>(100 * y + 0.5)


cdef inline bint reads_burial(const game_t* world, int seat, int kitty) noexcept nogil:
    """Is there a burial for `seat` to read (kitty > 0: one burial by another seat, no 炒底)?"""
    return (kitty > 0 and 0 <= world.t.burier < 4 and world.t.burier != seat
            and world.n_chaodi == 0 and hand_count(world.kitty) == 8)


cdef int fit_units(const game_t* world, int seat, int bot, const rng_t* rng, int cap,
                   float soft, int kitty, int belief) noexcept nogil:
    return fit_rows(world, seat, bot, rng, cap, soft, kitty, belief, NULL)


cdef int fit_rows(const game_t* world, int seat, int bot, const rng_t* rng, int cap,
                  float soft, int kitty, int belief, rows_t* rows) noexcept nogil:
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
    if world.phase < PH_LEAD:
        return 0
    if belief < 0:
        belief = BELIEF
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
    if reads_burial(world, seat, kitty):
        b = world.t.burier
        # the model's burial from the burier's 33 cards of the world
        p = hand_union(r.t.hands[b], world.kitty)
        miss += 100 * kitty * hand_count(hand_minus(world.kitty, bot_bury(&r.t, b, p)))
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
            if KINDS & 1:
                miss += judged(&r, leader, p, att, soft, belief, rows)
        lead_shape(&r.t.ctx, plays[0], &r.tr.shape)
        trick_start(&r.t.ctx, &r.tr, leader, plays[0], barred)
        r.t.hands[leader] = hand_minus(r.t.hands[leader], plays[0])
        r.phase = PH_FOLLOW
        for i in range(1, n):
            s = (leader + i) & 3
            if s != seat:
                p = bot_follow(&r.t, s, &r.tr)
                if KINDS & 2:
                    miss += judged(&r, s, p, plays[i], soft, belief, rows)
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
    cdef int m = fit_units(world, seat, bot, rng, cap * 100 if cap < (1 << 20) else 1 << 30, 0,
                          0, -1)
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
                      int kitty, int belief, int cards, rng_t* rng) noexcept nogil:
    cdef int s, b
    cdef float lam
    cdef hand_t now, kb
    cdef game_t* w2
    memcpy(&c.w, first, sizeof(game_t))
    c.seat = seat
    c.bot = g.t.bots[seat] if MODEL_BOT < 0 else MODEL_BOT
    c.soft = SOFT
    c.kitty = kitty
    # the name's belief is the model of deviations; the screening setting overrides it
    c.belief = BELIEF if BELIEF else (2 if belief else 0)
    # reading the burial: start from the world with the kitty the model buries from the
    # burier's cards (those it holds now, has played and the kitty), when the record allows it
    if reads_burial(first, seat, kitty) and not kitty_known(g, seat):
        b = first.t.burier
        now = hand_union(first.t.hands[b], first.kitty)
        w2 = <game_t*>malloc(sizeof(game_t))
        if w2 != NULL:
            memcpy(w2, first, sizeof(game_t))
            w2.t.bots[b] = c.bot
            kb = bot_bury(&w2.t, b, hand_union(now, first.t.played_by[b]))
            if hand_count(kb) == 8 and hand_equal(hand_minus(kb, now), hand_empty()) and \
                    not hand_equal(kb, first.kitty):
                w2.t.bots[b] = first.t.bots[b]
                w2.kitty = kb
                w2.t.buried = kb
                w2.t.hands[b] = hand_minus(now, kb)
                if fit_units(w2, seat, c.bot, rng, 1 << 30, c.soft, kitty, c.belief) >= 0:
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
    c.m = fit_units(&c.w, seat, c.bot, &c.fit_rng, 1 << 30, c.soft, c.kitty, c.belief)
    # the per-card belief (the name's `cards=`, or the screening setting over it), read once
    # from the record (it does not depend on the world), weighs the worlds by the product over
    # their free cards of P(card lies there) to the power lam
    c.lam = 0
    lam = card_lambda() if card_lambda() > 0 else card_name_lambda(cards)
    if lam > 0 and card_logq(g, seat, lam, c.lq):
        c.lam = lam


cdef void chain_run(chain_t* c, int n, rng_t* rng) noexcept nogil:
    cdef int step, a, b, x, y, m
    cdef hand_t* ha
    cdef hand_t* hb
    cdef hand_t ma, mb, sa, sb
    cdef double u, d, lo = log(c.odds) if c.odds > 0 else 0
    cdef int pa, pb
    cdef bint accept
    if c.nloc < 2:
        return
    for step in range(n):
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
        m = fit_units(&c.w, c.seat, c.bot, &c.fit_rng, c.m + 4000 if c.m >= 0 else 1 << 30,
                      c.soft, c.kitty, c.belief)
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


def _set_belief(mu, sd, w1, b1, w2, b2, hi=4.0, lo=-4.0):
    """Screening: the learned belief's weights (analysis/train_belief.py; w1: hidden x NB_IN)
    and its logit's range; None clears it."""
    global BH, BB2, BCLIP, BSPAN, _loaded
    _loaded = None
    if mu is None:
        BH = 0
        return
    h = len(b1)
    if h > MAX_BH or len(mu) != NB_IN or len(w1) != h or any(len(r) != NB_IN for r in w1):
        raise ValueError(f"belief model: {NB_IN} inputs and at most {MAX_BH} hidden units")
    for j in range(NB_IN):
        BMU[j] = mu[j]
        BSD[j] = sd[j] if sd[j] > 0 else 1.0
    for i in range(h):
        BB1[i] = b1[i]
        BW2[i] = w2[i]
        for j in range(NB_IN):
            BW1[i][j] = w1[i][j]
    BB2 = b2
    BCLIP = hi
    BSPAN = 100 * (hi - lo)
    BH = h


_loaded = None


def load_belief(path, sha256: str):
    """Copy the shipped belief of `path` (a .npz of analysis/train_belief.py: mu, sd, w1, b1,
    w2, b2, hi, lo, kind 2) into the C arrays; refuses a file whose SHA-256 is not `sha256` (a
    retrained belief is a new version). Loading the same file again does nothing."""
    global _loaded
    from fastsheng._model_file import read_checked

    if _loaded == (str(path), sha256):
        return
    keys = ("mu", "sd", "w1", "b1", "w2", "b2", "hi", "lo", "kind")
    m = read_checked(path, sha256, keys, "belief")
    if int(m["kind"]) != 2:
        raise ValueError(f"belief {path}: kind {int(m['kind'])}, the names read kind 2")
    _set_belief(m["mu"].tolist(), m["sd"].tolist(), m["w1"].tolist(), m["b1"].tolist(),
                m["w2"].tolist(), float(m["b2"]), float(m["hi"]), float(m["lo"]))
    _loaded = (str(path), sha256)


def _tune(soft=None, model=None, kinds=None, belief=None):
    """Screening only: the learned judgement's scale (net levels, 0 off), the model bot (a C
    bot id, -1: the seat's base bot), the decisions counted (bit 0 leads, bit 1 follows) and
    the learned belief (1: on, when _set_belief gave it weights) of the chains started after;
    returns all four as they were."""
    global SOFT, MODEL_BOT, KINDS, BELIEF
    was = dict(soft=SOFT, model=MODEL_BOT, kinds=KINDS, belief=BELIEF)
    if belief is not None:
        BELIEF = belief
    if kinds is not None:
        KINDS = kinds
    if soft is not None:
        SOFT = soft
    if model is not None:
        MODEL_BOT = model
    return was
NB_IN_ = NB_IN
assert NB_IN == NFEAT + 1
