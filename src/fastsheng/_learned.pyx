# cython: language_level=3
"""`learned-v1`: expert-v4 with a learned choice among the search's candidates (docs/bots.md).

At a lead or follow it builds the candidates the search would (fastsheng._search.candidates with
expert-v4 as the base: expert-v4's play first, basic-v1's second, then legal plays drawn from
the bot stream), computes each one's features (fastsheng._features) and scores it with a small
MLP that predicts the search's gain of that candidate over expert-v4's play, in net levels. It
plays the best candidate when its predicted gain clears the model's margin, else expert-v4's
play. Burial and calls are expert-v4's. Inference is plain C without the GIL; the weights are
arrays of a .npz shipped in the package (fastsheng/models/), checked by SHA-256 when `load`
copies them in (fastsheng.engine.registry.bot_spec loads them before a learned seat plays).

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


import numpy as np

from fastsheng._model_file import read_checked

from fastsheng._bitboard cimport hand_empty, hand_t
from fastsheng._bots cimport (
    BOT_EXPERT4, BOT_LEARNED1, bot_lead, follow_fn, lead_fn, plan_t, set_play_decisions,
)
from fastsheng._features cimport NFEAT, cand_features
from fastsheng._game cimport game_t
from fastsheng._infer cimport judge_fn, set_judge
from fastsheng._search cimport MAX_CANDS, candidates
from fastsheng._table cimport table_t, trick_t

cdef enum:
    MAX_HIDDEN = 128

# the model (load): x -> (x - mu) / sd -> relu(W1 x + b1) -> w2 . h + b2, in net levels
cdef int HIDDEN = 0
cdef int WANT = 8            # candidates per decision (the search's default)
cdef float MU[NFEAT]
cdef float SD[NFEAT]
cdef float W1[MAX_HIDDEN][NFEAT]
cdef float B1[MAX_HIDDEN]
cdef float W2[MAX_HIDDEN]
cdef float B2 = 0
cdef float MARGIN = 0        # predicted gain (net levels) a candidate must clear
cdef int BASE = BOT_EXPERT4

# analysis counters (never read by the play): decisions with a choice, deviations
cdef long long NDEC = 0, NDEV = 0


cdef float predict(const float* x) noexcept nogil:
    cdef int i, j
    cdef float z, y = B2
    cdef float xs[NFEAT]
    for j in range(NFEAT):
        xs[j] = (x[j] - MU[j]) / SD[j]
    for i in range(HIDDEN):
        z = B1[i]
        for j in range(NFEAT):
            z += W1[i][j] * xs[j]
        if z > 0:
            y += W2[i] * z
    return y


cdef int predict_gains(game_t* g, int seat, const hand_t* cands, int n, float* y) noexcept nogil:
    """y[i]: the model's predicted gain of cands[i] over cands[0] (y[0] = 0); 0 when no model
    is loaded (nothing is written then)."""
    cdef float x[NFEAT]
    cdef int i
    if HIDDEN == 0:
        return 0
    y[0] = 0
    for i in range(1, n):
        cand_features(g, seat, cands[i], cands[0], i == 1, n, x)
        y[i] = predict(x)
    return 1


cdef float model_margin() noexcept nogil:
    return MARGIN


cdef hand_t choose(game_t* g, int seat) noexcept nogil:
    """The base bot's play unless a candidate's predicted gain clears the margin."""
    global NDEC, NDEV
    cdef hand_t cands[MAX_CANDS]
    cdef float x[NFEAT]
    cdef int saved = g.t.bots[seat], n, i, best = 0
    cdef float y, best_y = MARGIN
    g.t.bots[seat] = BASE
    n = candidates(g, seat, cands, WANT)
    g.t.bots[seat] = saved
    if n == 0:
        return hand_empty()
    if n == 1:
        return cands[0]
    NDEC += 1
    for i in range(1, n):
        cand_features(g, seat, cands[i], cands[0], i == 1, n, x)
        y = predict(x)
        if y > best_y:
            best_y = y
            best = i
    NDEV += best != 0
    return cands[best]


cdef float judge_gain(const game_t* g, int seat, hand_t played, hand_t model_play) noexcept nogil:
    """The inference's learned judgement (fastsheng._infer, screening): the predicted gain of
    `played` over `model_play`."""
    cdef float x[NFEAT]
    cand_features(g, seat, played, model_play, 0, WANT, x)
    return predict(x)


cdef hand_t learned_lead(table_t* t, int seat, const plan_t* p) noexcept nogil:
    cdef hand_t play = choose(<game_t*>t, seat), base
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
    return choose(<game_t*>t, seat)


# ---------------------------------------------------------------------------------------------
# The Python face

MODEL_KEYS = ("mu", "sd", "w1", "b1", "w2", "b2", "margin", "want")
_loaded = None


def load(path, sha256: str):
    """Copy the model of `path` (a .npz of MODEL_KEYS) into the C arrays and set learned-v1's
    decisions; refuses a file whose SHA-256 is not `sha256` (a retrained model is a new
    version, never a silent change). Loading the same file again does nothing."""
    global HIDDEN, B2, MARGIN, WANT, _loaded
    if _loaded == (str(path), sha256):
        return
    m = read_checked(path, sha256, MODEL_KEYS, "model")
    w1 = m["w1"].astype(np.float32)
    h = w1.shape[0]
    if w1.shape != (h, NFEAT) or h > MAX_HIDDEN or m["mu"].shape != (NFEAT,):
        raise ValueError(f"model {path}: shapes do not fit {NFEAT} features, <= {MAX_HIDDEN} units")
    for j in range(NFEAT):
        MU[j] = m["mu"][j]
        SD[j] = m["sd"][j] if m["sd"][j] > 0 else 1.0
    for i in range(h):
        B1[i] = m["b1"][i]
        W2[i] = m["w2"][i]
        for j in range(NFEAT):
            W1[i][j] = w1[i, j]
    B2 = float(m["b2"])
    MARGIN = float(m["margin"])
    WANT = min(int(m["want"]), MAX_CANDS)
    HIDDEN = h
    set_play_decisions(BOT_LEARNED1, <lead_fn>learned_lead, <follow_fn>learned_follow)
    set_judge(<judge_fn>judge_gain)
    _loaded = (str(path), sha256)


def counts(reset=False):
    """Analysis only: learned-v1's decisions with a choice and its deviations in this process."""
    global NDEC, NDEV
    out = {"decisions": NDEC, "deviations": NDEV}
    if reset:
        NDEC = NDEV = 0
    return out
