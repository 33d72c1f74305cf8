# cython: language_level=3
"""`search-v3`'s play: the search guided by the learned model (docs/bots.md), in C without the GIL.

At a lead or follow with more than one candidate (fastsheng._search.candidates) the learned
model (fastsheng._learned, the model of learned-v1) predicts every candidate's gain over the
base bot's play. Its pick (learned-v1's play: the best prediction when it clears the model's
margin, else the base play) is the reference. Only when some challenger's prediction comes
close to the reference's (the decision is contested) are the best-predicted few raced against
it over common consistent worlds (fastsheng._worlds), as search-v2 races: rounds that double
the worlds, dropping those not ahead of the reference, those off course to clear the gate at k
worlds and the worse half; the last one standing replaces the reference when its mean gain
clears the gate: one standard error, or the name's `gate` in tenths of one. So most decisions
cost one model evaluation, not k playouts.

It registers its own search hook when imported (fastsheng.engine.registry imports it for a
`search-v3` seat); versions 0 and 1 go on to fastsheng._search.search_any unchanged.
"""

cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    /* the same sums on every build (see fastsheng._learned) */
    #if defined(__GNUC__) && !defined(__clang__)
    #pragma GCC optimize("fp-contract=off")
    #endif
    """

from libc.math cimport exp
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from fastsheng._bitboard cimport hand_empty, hand_t
from fastsheng._rng cimport rng_split
from fastsheng._game cimport batch_t, game_t, hand_row_t, search_fn, set_search_hook
from fastsheng._infer cimport chain_run, chain_start, chain_t
from fastsheng._learned cimport model_margin, predict_gains
from fastsheng._search cimport (
    BELIEF_SHIFT, CARDS_SHIFT, CHAINS_SHIFT, GATE_SHIFT, INFER_SHIFT, K_MASK, KITTY_SHIFT,
    MAX_CANDS, candidates, outcome, playout, scratch_batch, search_any,
)
from fastsheng._worlds cimport world_from_game, worlds_close, worlds_draw, worlds_open

cdef enum:
    SHIFT = 8                # the version rides in bits 8-11 of search_cands (fastsheng._search)
    VERSION = 2
    WORLD_TRIES = 64
    MAX_CHAINS = 16          # the chains knob's bound (a race's chains live on its stack)

# the race's parameters ride in the candidates word (fastsheng.engine.registry.GUIDED_BITS)
cdef struct opts_t:
    float close              # race when a challenger is predicted within this of the reference
    int late                 # from this trick every decision with a choice is raced (short
                             # playouts, where the search's gain concentrates)
    int early                # before this trick none is (long playouts, little gain)
    int top                  # challengers raced at most (the best predicted)


cdef inline void unpack(int word, opts_t* o) noexcept nogil:
    o.close = ((word >> 13) & 31) / 100.0
    o.late = (word >> 18) & 31
    o.early = (word >> 23) & 31
    o.top = (word >> 28) & 7


# the knobs (fixed for the published version; _tune changes them for screening only)
cdef int K0 = 4              # worlds of the race's first round
cdef double Z = 1.0          # the gate: the winner's mean gain above Z standard errors (a
                             # name's `gate` sets its own)
cdef double ZDROP = 1.0      # dropped when off course: t below ZDROP * Z * sqrt(w / k)
cdef int MAKER = 1           # 0: every world by world_from_game (the same worlds, slower)
# with `infer`: the chain's steps between two worlds of a race and before its first (the
# screen of docs/bots.md, "search-v3: reading the play": 5/50 and 10/200 gained less)
cdef int STEPS = 20
# analysis only, the value of knowing the cards: the races of seats whose k is ORACLE play every
# world on the real deal (a cheat no name reaches: docs/bots.md, "search-v3: reading the play")
cdef int ORACLE = 0
cdef int BURN = 400
# screening: independent chains a race's worlds come from in turn (1: the published one chain;
# a chain's consecutive worlds are STEPS swaps apart, so the race's first rounds see one region)
cdef int NCHAINS = 1
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


cdef int rank_challengers(game_t* g, int seat, hand_t* cands, int n, float* y) noexcept nogil:
    """Put the learned pick first (the reference) and the challengers after it, best predicted
    first; y becomes each one's predicted gain over the reference. Returns 0 when no model is
    loaded (the base play is the reference then, every challenger raced in candidate order)."""
    cdef int i, j, pick = 0
    cdef float ref
    if not predict_gains(g, seat, cands, n, y):
        for i in range(n):
            y[i] = 0
        return 0
    for i in range(1, n):
        if y[i] > model_margin() and y[i] > y[pick]:
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


cdef void race_round(game_t* g, int seat, const hand_t* cands, const int* alive, int n, int nw,
                     double* sum_d, double* sum_d2, batch_t* pb, void* maker,
                     chain_t** chs, int nch, int w0, int oracle) noexcept nogil:
    """nw more common worlds (from `maker`, the decision's world dealer, when there is one; the
    real deal when `oracle`): the reference and every live challenger played out in each."""
    global NPLAY, MISS_KEPT, NWORLD
    cdef game_t world, play
    cdef hand_row_t prow
    cdef long long base_x, x
    cdef int w, i
    cdef chain_t* ch
    for w in range(nw):
        ch = chs[(w0 + w) % nch] if nch > 0 else NULL
        if oracle:
            memcpy(&world, g, sizeof(game_t))
            rng_split(g.t.rng, &world.deal_rng)
            rng_split(g.t.rng, &world.bot_rng)
        elif ch != NULL:
            chain_run(ch, STEPS, g.t.rng)
            memcpy(&world, &ch.w, sizeof(game_t))
            MISS_KEPT += ch.m
            NWORLD += 1
        elif maker != NULL:
            worlds_draw(maker, &world, g.t.rng, WORLD_TRIES)
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


cdef chain_t* open_chain(game_t* g, int seat, void* maker, double odds, int kitty,
                         int belief, int cards) noexcept nogil:
    """The inference chain of one race, burnt in (NULL when out of memory). It starts from a
    world the whole record allows when one of 16 dealt comes out so (the dealer honours what
    the live game keeps, not every past follow: the chain's first steps walk out otherwise)."""
    global NCHAIN, MISS_START, NBAD
    cdef chain_t* ch = <chain_t*>malloc(sizeof(chain_t))
    cdef game_t first
    cdef int tries
    if ch == NULL:
        return NULL
    for tries in range(16):
        if maker != NULL:
            worlds_draw(maker, &first, g.t.rng, WORLD_TRIES)
        else:
            world_from_game(g, &first, seat, g.t.rng, WORLD_TRIES)
        chain_start(ch, g, &first, seat, odds, kitty, belief, cards, g.t.rng)
        if ch.m >= 0:
            break
    NCHAIN += 1
    MISS_START += ch.m
    NBAD += ch.m < 0
    chain_run(ch, BURN, g.t.rng)
    return ch


cdef int race(game_t* g, int seat, const hand_t* cands, int n, int k, double odds,
              int kitty, int belief, int cards, double z, int nchains) noexcept nogil:
    """The index of the challenger that wins the race against cands[0], or 0. odds > 0: the
    worlds come in turn from `nchains` inference chains (fastsheng._infer) with these odds per
    misfit; z: the gate, the winner's mean gain above z standard errors."""
    global NSTEP, NACC
    cdef double sum_d[MAX_CANDS]
    cdef double sum_d2[MAX_CANDS]
    cdef double mean_of[MAX_CANDS]
    cdef int alive[MAX_CANDS]
    cdef batch_t pb
    cdef int i, j, w = 0, nw, nalive, keep, rank, best = 0
    cdef double var, mean
    # the public state's setup once for all the race's worlds (the same worlds, far cheaper)
    cdef void* maker = worlds_open(g, seat) if MAKER else NULL
    cdef chain_t* chs[MAX_CHAINS]
    cdef int c, nch = 0
    if odds > 0:
        for c in range(nchains):
            chs[nch] = open_chain(g, seat, maker, odds, kitty, belief, cards)
            if chs[nch] != NULL:
                nch += 1
    scratch_batch(g.b, &pb)
    alive[0] = 0
    for i in range(1, n):
        alive[i] = 1
        sum_d[i] = 0
        sum_d2[i] = 0
        mean_of[i] = 0
    nw = K0 if K0 < k else k
    if nw < 2:
        nw = 2
    while True:
        race_round(g, seat, cands, alive, n, nw, sum_d, sum_d2, &pb, maker, chs, nch, w,
                   ORACLE != 0 and ORACLE == k)
        w += nw
        nalive = 0
        for i in range(1, n):
            if alive[i]:
                mean_of[i] = sum_d[i] / w
                var = (sum_d2[i] / w - mean_of[i] * mean_of[i]) * w / (w - 1)
                # not ahead, or off course to clear the gate at k worlds
                if mean_of[i] <= 0 or (w < k and
                        mean_of[i] * mean_of[i] * k < ZDROP * ZDROP * z * z * var):
                    alive[i] = 0
                else:
                    nalive += 1
        if nalive == 0 or w >= k:
            break
        if nalive > 1:
            # keep the better half (ranks read before any is dropped)
            keep = (nalive + 1) // 2
            for i in range(1, n):
                if alive[i]:
                    rank = 0
                    for j in range(1, n):
                        if alive[j] and (mean_of[j] > mean_of[i] or
                                         (mean_of[j] == mean_of[i] and j < i)):
                            rank += 1
                    if rank >= keep:
                        alive[i] = 2
            for i in range(1, n):
                if alive[i] == 2:
                    alive[i] = 0
        nw = w if w + w <= k else k - w
    worlds_close(maker)
    for c in range(nch):
        # (analysis counters)
        NSTEP += chs[c].steps
        NACC += chs[c].accepted
        free(chs[c])
    g.b.errors += pb.errors
    mean = 0.0
    for i in range(1, n):
        if alive[i] and mean_of[i] > mean:
            var = (sum_d2[i] / w - mean_of[i] * mean_of[i]) * w / (w - 1)
            if mean_of[i] * mean_of[i] * w > z * z * var:
                mean = mean_of[i]
                best = i
    return best


cdef hand_t guided_decide(game_t* g, int seat) noexcept nogil:
    """search-v3's lead or follow (the game stopped in run_lead / run_follow)."""
    global NDEC, NRACE, NDEV, NMODEL
    cdef hand_t cands[MAX_CANDS]
    cdef float y[MAX_CANDS]
    cdef int k = g.b.search_k[seat] & K_MASK, want = g.b.search_cands[seat] & ((1 << SHIFT) - 1)
    cdef int n, guided, m, best, infer, gate
    cdef opts_t o
    unpack(g.b.search_cands[seat], &o)
    if want > MAX_CANDS:
        want = MAX_CANDS
    if want < 1:
        want = 1
    n = candidates(g, seat, cands, want)
    if n == 0:
        return hand_empty()
    if n == 1:
        return cands[0]
    NDEC += 1
    guided = rank_challengers(g, seat, cands, n, y)
    NMODEL += guided
    if k < 2:
        return cands[0]
    # raced when contested (some challenger predicted within `close` of the reference) or late
    # in the hand, never early
    if guided and ((y[1] < -o.close and g.t.tricks_done < o.late) or g.t.tricks_done < o.early):
        return cands[0]
    NRACE += 1
    m = n if n <= o.top + 1 else o.top + 1
    infer = (g.b.search_k[seat] >> INFER_SHIFT) & 127
    # the name's gate in tenths of a standard error; unset, the published 1 (Z, a screening knob)
    gate = (g.b.search_k[seat] >> GATE_SHIFT) & 7
    best = race(g, seat, cands, m, k, exp(-infer / 10.0) if infer else 0.0,
                (g.b.search_k[seat] >> KITTY_SHIFT) & 15,
                (g.b.search_k[seat] >> BELIEF_SHIFT) & 1,
                (g.b.search_k[seat] >> CARDS_SHIFT) & 3,
                gate / 10.0 if gate else Z,
                # the name's four chains; unset, one (NCHAINS, a screening knob)
                4 if (g.b.search_k[seat] >> CHAINS_SHIFT) & 1 else NCHAINS)
    NDEV += best != 0
    return cands[best]


cdef hand_t guided_any(game_t* g, int seat) noexcept nogil:
    if (g.b.search_cands[seat] >> SHIFT) & 15 == VERSION:
        return guided_decide(g, seat)
    return search_any(g, seat)


set_search_hook(<search_fn>guided_any)


# ---------------------------------------------------------------------------------------------
# The Python face: analysis only (the published search-v3 plays with the defaults)

def _unpack(word):
    """The race's parameters as the C search reads them from a candidates word (tests check
    them against fastsheng.engine.registry.GUIDED_BITS)."""
    cdef opts_t o
    unpack(word, &o)
    return dict(close=round(o.close * 100), late=o.late, early=o.early, top=o.top)


def _tune(k0=None, z=None, zdrop=None, maker=None, steps=None, burn=None, oracle=None,
          chains=None):
    """Set knobs of search-v3's play in this process (its name's parameters aside); returns
    every knob as it was, so ``_tune(**old)`` restores them."""
    global K0, Z, ZDROP, MAKER, STEPS, BURN, ORACLE, NCHAINS
    was = dict(k0=K0, z=Z, zdrop=ZDROP, maker=MAKER, steps=STEPS, burn=BURN, oracle=ORACLE,
               chains=NCHAINS)
    if chains is not None: NCHAINS = min(max(int(chains), 1), MAX_CHAINS)
    if oracle is not None: ORACLE = oracle
    if k0 is not None: K0 = k0
    if z is not None: Z = z
    if zdrop is not None: ZDROP = zdrop
    if maker is not None: MAKER = maker
    if steps is not None: STEPS = max(int(steps), 1)
    if burn is not None: BURN = max(int(burn), 0)
    return was


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
