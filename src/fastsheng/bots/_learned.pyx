# cython: language_level=3
"""`learned-v1`: expert-v4 with a learned choice among the search's candidates (docs/bots.md).

At a lead or follow it builds the candidates the search would (fastsheng.bots._search.candidates
with expert-v4 as the base: expert-v4's play first, basic-v1's second, then legal plays drawn from
the bot stream), computes each one's features (fastsheng.bots._features) and scores it with a
small MLP that predicts the search's gain of that candidate over expert-v4's play, in net levels. It
plays the best candidate when its predicted gain clears the model's margin, else expert-v4's
play. Burial and calls are expert-v4's. Inference is plain C without the GIL; the weights are
arrays of a .npz shipped in the package (fastsheng/bots/models/), checked by SHA-256 when
fastsheng.bots._lineup loads them into the struct its line-up's learned row points to.

The learned decisions are called by the game loop on a game's own table (`&g.t`, the first
member of game_t), as every bot decision is: that is how they reach the trick and the bot
stream the candidates need.
"""

cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    /* the same sums on every build (FASTSHENG_NATIVE's -march=native would fuse them into FMAs
       and could move a near-tie decision): the frozen play must not depend on the CPU */
    #if defined(__GNUC__) && !defined(__clang__)
    #pragma GCC optimize("fp-contract=off")
    #endif
    """


from fastsheng._bitboard cimport hand_empty, hand_t
from fastsheng._game cimport game_t
from fastsheng._table cimport plan_t, table_t, trick_t
from fastsheng.bots._features cimport NFEAT, cand_features
from fastsheng.bots._heuristic cimport BOT_EXPERT4, bot_lead, bot_row
from fastsheng.bots._models cimport learned_t, mlp_forward
from fastsheng.bots._search cimport MAX_CANDS, candidates

cdef enum:
    BASE = BOT_EXPERT4       # the bot whose play learned-v1 starts from

# analysis counters (never read by the play): decisions with a choice, deviations
cdef long long NDEC = 0, NDEV = 0


cdef int predict_gains(game_t* g, int seat, const learned_t* m, const hand_t* cands, int n,
                       float* y) noexcept nogil:
    """y[i]: the model's predicted gain of cands[i] over cands[0] (y[0] = 0); 0 without a model
    (nothing is written then)."""
    cdef float x[NFEAT]
    cdef float xs[NFEAT]
    cdef int i
    if m == NULL:
        return 0
    y[0] = 0
    for i in range(1, n):
        cand_features(g, seat, cands[i], cands[0], i == 1, n, x)
        y[i] = mlp_forward(&m.net, x, xs, NFEAT)
    return 1


cdef hand_t choose(game_t* g, int seat, const learned_t* m) noexcept nogil:
    """The base bot's play unless a candidate's predicted gain clears the margin."""
    global NDEC, NDEV
    cdef hand_t cands[MAX_CANDS]
    cdef float x[NFEAT]
    cdef float xs[NFEAT]
    cdef int saved = g.t.bots[seat], n, i, best = 0
    cdef float y, best_y = m.margin
    g.t.bots[seat] = BASE
    n = candidates(g, seat, cands, m.want)
    g.t.bots[seat] = saved
    if n == 0:
        return hand_empty()
    if n == 1:
        return cands[0]
    NDEC += 1
    for i in range(1, n):
        cand_features(g, seat, cands[i], cands[0], i == 1, n, x)
        y = mlp_forward(&m.net, x, xs, NFEAT)
        if y > best_y:
            best_y = y
            best = i
    NDEV += best != 0
    return cands[best]


cdef hand_t learned_lead(table_t* t, int seat, const plan_t* p) noexcept nogil:
    # the game's table is the first member of game_t: the candidates read the game around it
    cdef hand_t play = choose(<game_t*>t, seat, bot_row(t, seat).learned), base
    cdef int saved = t.bots[seat]
    # the throw_risk column: expert-v4's own failure estimate when its lead is the one played
    # (its lead draws nothing from the bot stream, so asking it again changes no play); the
    # other candidates are plain leads that cannot fail
    t.bots[seat] = BASE
    base = bot_lead(t, seat)
    t.bots[seat] = saved
    if not (base.one == play.one and base.two == play.two):
        t.lead_risk = 0.0
    return play


cdef hand_t learned_follow(table_t* t, int seat, const trick_t* tr, const plan_t* p) noexcept nogil:
    return choose(<game_t*>t, seat, bot_row(t, seat).learned)


# ---------------------------------------------------------------------------------------------
# The Python face

def counts(reset=False):
    """Analysis only: learned-v1's decisions with a choice and its deviations in this process."""
    global NDEC, NDEV
    out = {"decisions": NDEC, "deviations": NDEV}
    if reset:
        NDEC = NDEV = 0
    return out
