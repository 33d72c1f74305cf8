# What other C modules use of fastsheng.bots._search: the search's candidates and its evaluation
# of them (fastsheng.bots._labels records it as training labels, fastsheng.bots._learned plays
# from the same candidates).

from libc.string cimport memcpy

from fastsheng._bitboard cimport hand_equal, hand_t
from fastsheng._game cimport batch_t, game_t, hand_row_t
from fastsheng.bots._seat cimport FAMILY_NONE, search_t

cdef enum:
    MAX_CANDS = 32           # the most candidates a decision compares (the spec checks cands)

# The base bot's own play first (t.bots[seat]), basic-v1's second, then distinct legal plays
# drawn at random (bot stream) from the pool; at most `want`, returns how many.
cdef int candidates(game_t* g, int seat, hand_t* out, int want) noexcept nogil
# The search's evaluation: k worlds (consistent: fastsheng._worlds, else the frozen sampler),
# every candidate played out in each with the seat's bot at all four seats (common random
# numbers); per candidate i the sums over worlds of its score (sum_x) and of its gain over
# cands[0] (sum_d, sum_d2). Scores are net levels x 40 + points for the seat's team.
cdef void evaluate(game_t* g, int seat, const hand_t* cands, int n, int k, int consistent,
                   double* sum_x, double* sum_d, double* sum_d2) noexcept nogil
# A finished playout's score for seat's team: net levels x 40, then points.
cdef long long outcome(const game_t* play, const hand_row_t* row, int seat) noexcept nogil
# One playout: `world` copied into `play` and played to the end with the seat's bot at all four
# seats, `cand` for the pending decision (pb/prow: a scratch batch and row, no tracing).
cdef void playout(const game_t* world, game_t* play, batch_t* pb, hand_row_t* prow, int seat,
                  hand_t cand) noexcept nogil
# The same for a pending call: `choice` an index into the prepared shows (g.opts), -1 pass.
cdef void playout_call(const game_t* world, game_t* play, batch_t* pb, hand_row_t* prow,
                       int seat, int choice) noexcept nogil
# The race of the burial and calls searches: k worlds from one world dealer (fastsheng._worlds),
# every candidate played out in each with the same bot stream (cands[i], or the call answers
# choices[i] when choices is not NULL: an index into the prepared shows, -1 pass); per candidate
# the sums over worlds of its gain over the first (sum_d) and of its square (sum_d2).
cdef void race_worlds(game_t* g, int seat, int k, int n, const hand_t* cands, const int* choices,
                      double* sum_d, double* sum_d2) noexcept nogil
# One round of a race: nw more common worlds (w0 dealt before), the reference cands[0] and every
# live challenger (alive[i]) played out in each, each one's gain over the reference added to
# sum_d and its square to sum_d2; `ctx` is the round's own state (its world dealer).
ctypedef void (*round_fn)(game_t* g, int seat, const hand_t* cands, const int* alive, int n,
                          int nw, int w0, double* sum_d, double* sum_d2, batch_t* pb,
                          void* ctx) noexcept nogil

# A race of challengers against cands[0] (search-v2's and search-v3's).
cdef struct race_t:
    int k                    # worlds at most
    int k0                   # worlds of the first round
    double z                 # the gate: the winner's mean gain above z standard errors
    double zdrop             # dropped when off course to clear the gate at k worlds
    int halve                # keep the better half after each round
    int v2                   # search-v2 as published: its drop test's arithmetic, and the
                             # halving after the last round too

# The race: rounds that double the worlds, dropping the challengers not ahead of the reference,
# those off course to clear the gate and (with halve) the worse half; the index of the last
# one standing that clears the gate, 0 if none does, -1 when the v2 race dropped them all.
# mean_of/alive are the caller's scratch (MAX_CANDS each); w_out the worlds played.
cdef int race_run(game_t* g, int seat, const hand_t* cands, int n, const race_t* r,
                  round_fn round, void* ctx, batch_t* pb, int* alive, double* sum_d,
                  double* sum_d2, double* mean_of, int* w_out) noexcept nogil

# The frozen `search`'s and `search-v2`'s decision for the seat's pending lead or follow (the
# decisions fastsheng.bots._lineup gives a seat of those families).
cdef hand_t search_decide(game_t* g, int seat) noexcept nogil
cdef hand_t search_v2_decide(game_t* g, int seat) noexcept nogil


# The scratch batch of a decision's playouts: the game's batch (its rules and its table of bots)
# with no tracing, no profile, no errors counted yet and no seat searching (the playouts play the
# base bot at every seat).
cdef inline void scratch_batch(const batch_t* src, batch_t* pb) noexcept nogil:
    cdef int i
    memcpy(pb, src, sizeof(batch_t))
    pb.tricks = NULL
    pb.trace = NULL
    pb.trace_cap = 0
    pb.profile = 0
    pb.errors = 0
    for i in range(4):
        pb.seats[i].search.family = FAMILY_NONE
        pb.seats[i].play = NULL
        pb.seats[i].bury = NULL
        pb.seats[i].call = NULL


# Append h to the candidates out[0..n) unless it is empty or already there; the new count.
cdef inline int add_distinct(hand_t* out, int n, hand_t h) noexcept nogil:
    cdef int i
    if h.one == 0:
        return n
    for i in range(n):
        if hand_equal(out[i], h):
            return n
    out[n] = h
    return n + 1


# The gate of a decision among candidates raced against cands[0] over k common worlds: the
# candidate of highest mean gain whose mean clears z standard errors of its paired differences
# (sum_d, sum_d2: the sums over worlds of its gain over cands[0] and its square); 0 if none does.
cdef inline int gate_best(const double* sum_d, const double* sum_d2, int n, int k,
                          double z) noexcept nogil:
    cdef int i, best = 0
    cdef double mean, var, best_mean = 0.0
    for i in range(1, n):
        mean = sum_d[i] / k
        var = (sum_d2[i] / k - mean * mean) * k / (k - 1)
        if mean > best_mean and mean * mean * k > z * z * var:
            best_mean = mean
            best = i
    return best
