# cython: language_level=3
"""`search-v3`'s play: the search guided by the learned model (docs/bots.md), in C without the GIL.

At a lead or follow with more than one candidate (fastsheng.bots._search.candidates) the learned
model (fastsheng.bots._learned, the model of learned-v1) predicts every candidate's gain over the
base bot's play. Its pick (learned-v1's play: the best prediction when it clears the model's
margin, else the base play) is the reference. Only when some challenger's prediction comes
close to the reference's (the decision is contested) are the best-predicted few raced against
it over common consistent worlds (fastsheng._worlds), as search-v2 races: rounds that double
the worlds, dropping those not ahead of the reference, those off course to clear the gate at k
worlds and the worse half; the last one standing replaces the reference when its mean gain
clears the gate: one standard error, or the name's `gate` in tenths of one. So most decisions
cost one model evaluation, not k playouts.

A `search-v3` seat is given `guided_decide` by its line-up (fastsheng.bots._lineup) and reads
every setting from its own seat (fastsheng.bots._seat.search_t), the guiding model from its
line-up's table of bots.
"""

cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    /* the same sums on every build (see fastsheng.bots._learned) */
    #if defined(__GNUC__) && !defined(__clang__)
    #pragma GCC optimize("fp-contract=off")
    #endif
    """

from libc.math cimport exp
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from fastsheng._bitboard cimport hand_empty, hand_t
from fastsheng._rng cimport rng_split
from fastsheng._game cimport batch_t, game_t, hand_row_t
from fastsheng.bots._heuristic cimport NBOTS
from fastsheng.bots._infer cimport chain_run, chain_start, chain_t
from fastsheng.bots._learned cimport predict_gains
from fastsheng.bots._models cimport learned_t
from fastsheng.bots._search cimport (
    MAX_CANDS, candidates, outcome, playout, race_run, race_t, scratch_batch,
)
from fastsheng.bots._seat cimport search_t
from fastsheng._worlds cimport world_from_game, worlds_close, worlds_draw, worlds_open

cdef enum:
    WORLD_TRIES = 64
    MAX_CHAINS = 16          # the chains setting's bound (a race's chains live on its stack)

# the chain's counters (analysis only): chains, their starts' misfits and starts the record
# contradicts, worlds taken and their misfits, steps and swaps kept
cdef long long NCHAIN = 0, MISS_START = 0, NBAD = 0, NWORLD = 0, MISS_KEPT = 0
cdef long long NSTEP = 0, NACC = 0

# analysis counters (never read by the play)
cdef long long NDEC = 0, NRACE = 0, NPLAY = 0, NDEV = 0, NMODEL = 0


cdef inline void swap(hand_t* c, float* y, int i, int j) noexcept nogil:
    cdef hand_t h = c[i]
    cdef float f = y[i]
    c[i] = c[j]
    y[i] = y[j]
    c[j] = h
    y[j] = f


cdef int rank_challengers(game_t* g, int seat, const learned_t* m, hand_t* cands, int n,
                          float* y) noexcept nogil:
    """Put the learned pick first (the reference) and the challengers after it, best predicted
    first; y becomes each one's predicted gain over the reference. Returns 0 without a model
    (the base play is the reference then, every challenger raced in candidate order)."""
    cdef int i, j, pick = 0
    cdef float ref
    if not predict_gains(g, seat, m, cands, n, y):
        for i in range(n):
            y[i] = 0
        return 0
    for i in range(1, n):
        if y[i] > m.margin and y[i] > y[pick]:
            pick = i
    swap(cands, y, 0, pick)
    ref = y[0]
    for i in range(n):
        y[i] -= ref
    # insertion sort of the challengers by predicted gain, descending (n <= MAX_CANDS)
    for i in range(2, n):
        j = i
        while j > 1 and y[j] > y[j - 1]:
            swap(cands, y, j, j - 1)
            j -= 1
    return 1


# what a race's rounds deal their worlds from (race_round's ctx)
cdef struct dealer_t:
    void* maker              # the decision's world dealer (NULL: each world dealt alone)
    chain_t** chs            # the inference chains, taken in turn (nch = 0: none)
    int nch
    const search_t* o


cdef void race_round(game_t* g, int seat, const hand_t* cands, const int* alive, int n, int nw,
                     int w0, double* sum_d, double* sum_d2, batch_t* pb,
                     void* ctx) noexcept nogil:
    """nw more common worlds (from the chains, the decision's world dealer, or the real deal
    with `oracle`): the reference and every live challenger played out in each."""
    global NPLAY, MISS_KEPT, NWORLD
    cdef const dealer_t* d = <const dealer_t*>ctx
    cdef game_t world, play
    cdef hand_row_t prow
    cdef long long base_x, x
    cdef int w, i
    cdef chain_t* ch
    for w in range(nw):
        ch = d.chs[(w0 + w) % d.nch] if d.nch > 0 else NULL
        if d.o.oracle:
            memcpy(&world, g, sizeof(game_t))
            rng_split(g.t.rng, &world.deal_rng)
            rng_split(g.t.rng, &world.bot_rng)
        elif ch != NULL:
            chain_run(ch, d.o.steps, g.t.rng)
            memcpy(&world, &ch.w, sizeof(game_t))
            MISS_KEPT += ch.m
            NWORLD += 1
        elif d.maker != NULL:
            worlds_draw(d.maker, &world, g.t.rng, WORLD_TRIES)
        else:
            world_from_game(g, &world, seat, g.t.rng, WORLD_TRIES)
        playout(&world, &play, pb, &prow, seat, cands[0])
        NPLAY += 1
        base_x = outcome(&play, &prow, seat)
        for i in range(1, n):
            if alive[i]:
                playout(&world, &play, pb, &prow, seat, cands[i])
                NPLAY += 1
                x = outcome(&play, &prow, seat) - base_x
                sum_d[i] += x
                sum_d2[i] += <double>x * x


cdef chain_t* open_chain(game_t* g, int seat, void* maker, double odds) noexcept nogil:
    """The inference chain of one race, burnt in (NULL when out of memory). It starts from a
    world the whole record allows when one of 16 dealt comes out so (the dealer honours what
    the live game keeps, not every past follow: the chain's first steps walk out otherwise)."""
    global NCHAIN, MISS_START, NBAD
    cdef chain_t* ch = <chain_t*>malloc(sizeof(chain_t))
    cdef game_t first
    cdef int _tries
    if ch == NULL:
        return NULL
    for _tries in range(16):
        if maker != NULL:
            worlds_draw(maker, &first, g.t.rng, WORLD_TRIES)
        else:
            world_from_game(g, &first, seat, g.t.rng, WORLD_TRIES)
        chain_start(ch, g, &first, seat, odds, g.t.rng)
        if ch.m >= 0:
            break
    NCHAIN += 1
    MISS_START += ch.m
    NBAD += ch.m < 0
    chain_run(ch, g.b.seats[seat].search.burn, g.t.rng)
    return ch


cdef int race(game_t* g, int seat, const hand_t* cands, int n, int k, double odds, double z,
              const search_t* o) noexcept nogil:
    """The index of the challenger that wins the race against cands[0], or 0 (the race of
    fastsheng.bots._search.race_run). odds > 0: the worlds come in turn from the seat's
    inference chains (fastsheng.bots._infer) with these odds per misfit; z: the gate, the
    winner's mean gain above z standard errors."""
    global NSTEP, NACC
    cdef double sum_d[MAX_CANDS]
    cdef double sum_d2[MAX_CANDS]
    cdef double mean_of[MAX_CANDS]
    cdef int alive[MAX_CANDS]
    cdef batch_t pb
    cdef int best, w
    cdef chain_t* chs[MAX_CHAINS]
    cdef int c, _c
    cdef race_t r = race_t(k, o.k0, z, o.zdrop, 1, 0)
    cdef dealer_t d
    # the public state's setup once for all the race's worlds (the same worlds, far cheaper)
    d.maker = worlds_open(g, seat) if o.maker else NULL
    d.chs = chs
    d.nch = 0
    d.o = o
    if odds > 0:
        for _c in range(o.chains if o.chains <= MAX_CHAINS else MAX_CHAINS):
            chs[d.nch] = open_chain(g, seat, d.maker, odds)
            if chs[d.nch] != NULL:
                d.nch += 1
    scratch_batch(g.b, &pb)
    best = race_run(g, seat, cands, n, &r, race_round, <void*>&d, &pb, alive, sum_d, sum_d2,
                    mean_of, &w)
    worlds_close(d.maker)
    for c in range(d.nch):
        # (analysis counters)
        NSTEP += chs[c].steps
        NACC += chs[c].accepted
        free(chs[c])
    g.b.errors += pb.errors
    return best


cdef hand_t guided_decide(game_t* g, int seat) noexcept nogil:
    """search-v3's lead or follow (the game stopped in run_lead / run_follow)."""
    global NDEC, NRACE, NDEV, NMODEL
    cdef const search_t* o = &g.b.seats[seat].search
    cdef const learned_t* model = NULL
    cdef hand_t cands[MAX_CANDS]
    cdef float y[MAX_CANDS]
    cdef int k = o.k
    cdef int n, guided, m, best
    cdef float close = o.close / 100.0
    n = candidates(g, seat, cands, o.cands)
    if n == 0:
        return hand_empty()
    if n == 1:
        return cands[0]
    NDEC += 1
    if g.t.rows != NULL and 0 <= o.guide < NBOTS:
        model = g.t.rows[o.guide].learned
    guided = rank_challengers(g, seat, model, cands, n, y)
    NMODEL += guided
    if k < 2:
        return cands[0]
    # raced when contested (some challenger predicted within `close` of the reference) or late
    # in the hand, never early
    if guided and ((y[1] < -close and g.t.tricks_done < o.late) or g.t.tricks_done < o.early):
        return cands[0]
    NRACE += 1
    m = n if n <= o.top + 1 else o.top + 1
    # the gate in tenths of a standard error; the published 10 is `z` (1 unless researched)
    best = race(g, seat, cands, m, k, exp(-o.infer / 10.0) if o.infer else 0.0,
                o.gate / 10.0 if o.gate != 10 else o.z, o)
    NDEV += best != 0
    return cands[best]


# ---------------------------------------------------------------------------------------------
# The Python face: analysis only (the counters never decide a play)

def _infer_counts(reset=False):
    """Screening only: the inference chains of search-v3's races (`infer`): chains, the summed
    misfits of their first worlds and how many the record contradicted, worlds taken and their
    summed misfits, steps and swaps kept."""
    global NCHAIN, MISS_START, NBAD, NWORLD, MISS_KEPT, NSTEP, NACC
    # the chains count misfits in hundredths
    out = dict(chains=NCHAIN, start=MISS_START / 100, bad=NBAD, worlds=NWORLD, kept=MISS_KEPT / 100,
               steps=NSTEP, accepted=NACC)
    if reset:
        NCHAIN = MISS_START = NBAD = NWORLD = MISS_KEPT = NSTEP = NACC = 0
    return out


def _counts(reset=False):
    """Screening only: search-v3's decisions with a choice, races, playouts, deviations."""
    global NDEC, NRACE, NPLAY, NDEV, NMODEL
    out = dict(decisions=NDEC, races=NRACE, playouts=NPLAY, deviations=NDEV, model=NMODEL)
    if reset:
        NDEC = NRACE = NPLAY = NDEV = NMODEL = 0
    return out
