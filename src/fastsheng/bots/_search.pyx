# cython: language_level=3
"""`search`: a determinized Monte Carlo bot (docs/bots.md), in C without the GIL.

At a lead or a follow the searching seat builds a few candidate plays (its base bot's own play
first), deals K worlds consistent with what it knows (fastsheng._state.sample_world), plays every
candidate out in every world with its base bot at all four seats (the simulator's own game_run)
and scores each playout for its team: net levels (+ when its side wins the hand, - when the
other does) weighted first, then points. Every candidate meets the same K worlds with the same
bot streams (common random numbers), so each is compared with the base play world by world; it
replaces the base play only when its mean gain clears Z standard errors of those paired
differences: the best of several noisy means is biased upwards, and without this gate the search
lost to its own base bot. All randomness comes from the game's bot stream. Declaring and burial
are the base bot's.

`search-v2` (search_v2_decide, below) shares the candidates and playouts, deals consistent
worlds (fastsheng._worlds) and races the candidates instead of giving each all K worlds; the
frozen `search` is untouched.

A seat of either family is given its decision by its line-up (fastsheng.bots._lineup), and
reads its settings from its own seat (fastsheng.bots._seat.search_t): nothing here is module
state that play depends on.
"""

cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    """

from libc.string cimport memcpy

from fastsheng._bitboard cimport (
    hand_add_card, hand_empty, hand_mask, hand_t, lsb, u64,
)
from fastsheng.bots._heuristic cimport BOT_BASIC, bot_follow, bot_lead
from fastsheng._table cimport table_t
from fastsheng._core cimport KIND_TRACTOR, ctx_t, lead_shape, pair_key_bits, shape_t
from fastsheng._game cimport PH_LEAD, batch_t, game_run, game_t, hand_row_t
from fastsheng.bots._seat cimport search_t
from fastsheng._rng cimport rng_below
from fastsheng._state cimport enum_follows, sample_world_tries
from fastsheng._worlds cimport world_from_game, worlds_close, worlds_draw, worlds_open

cdef enum:
    WORLD_TRIES = 64         # rejection tries per world before the constrained fallback
    MAX_POOL = 256           # plays considered before the random pick down to the candidates
    # levels first: a level is worth the 40 points of a level band of the standard table, and
    # points carry the signal between the thresholds (measured stronger than levels strictly
    # first, docs/bots.md)
    LEVEL_WEIGHT = 40


cdef inline hand_t single(int code) noexcept nogil:
    return hand_add_card(hand_empty(), code)


cdef inline hand_t pair(int code) noexcept nogil:
    return hand_add_card(hand_add_card(hand_empty(), code), code)


cdef int end_singles(const ctx_t* c, int e, hand_t he, hand_t* out, int n) noexcept nogil:
    """The lowest and the highest single of suit e, taken from outside pairs when possible."""
    cdef u64 loose = he.one & ~he.two, bits
    cdef int k, lo = -1, hi = -1
    for k in range(c.nkeys[e]):
        bits = (loose if loose else he.one) & c.key_bb[e][k]
        if bits:
            if lo < 0:
                lo = lsb(bits)
            hi = lsb(bits)
    if lo >= 0:
        n = add_distinct(out, n, single(lo))
        n = add_distinct(out, n, single(hi))
    return n


cdef int end_pairs(const ctx_t* c, int e, hand_t he, hand_t* out, int n) noexcept nogil:
    """The lowest and the highest pair of suit e, and its longest tractor."""
    cdef u64 bits, keys = pair_key_bits(c, e, he)
    cdef int k, lo = -1, hi = -1, run = 0, best = 0, best_end = -1
    cdef hand_t tractor = hand_empty()
    cdef shape_t s
    for k in range(c.nkeys[e]):
        bits = he.two & c.key_bb[e][k]
        if bits:
            if lo < 0:
                lo = lsb(bits)
            hi = lsb(bits)
        run = run + 1 if (keys >> k) & 1 else 0
        if run > best:
            best = run
            best_end = k
    if lo >= 0:
        n = add_distinct(out, n, pair(lo))
        n = add_distinct(out, n, pair(hi))
    if best >= 2:
        for k in range(best_end - best + 1, best_end + 1):
            bits = he.two & c.key_bb[e][k]
            tractor = hand_add_card(hand_add_card(tractor, lsb(bits)), lsb(bits))
        if lead_shape(c, tractor, &s) == 0 and s.kind == KIND_TRACTOR:
            n = add_distinct(out, n, tractor)
    return n


cdef int lead_pool(const game_t* g, int seat, hand_t* out) noexcept nogil:
    """Plain leads of every suit held: end singles, end pairs, the longest tractor."""
    cdef const ctx_t* c = &g.t.ctx
    cdef hand_t he
    cdef int e, n = 0
    for e in range(5):
        he = hand_mask(g.t.hands[seat], c.suit_bb[e])
        if he.one:
            n = end_singles(c, e, he, out, n)
            n = end_pairs(c, e, he, out, n)
    return n


cdef int candidates(game_t* g, int seat, hand_t* out, int want) noexcept nogil:
    """The base bot's own play first, basic-v1's second, then distinct legal plays drawn at
    random (bot stream) from the pool: leads of lead_pool, or every legal follow. At most
    MAX_CANDS (the size of `out`) whatever `want` asks; the base's play even when it asks none."""
    cdef table_t* t = &g.t
    cdef hand_t pool[MAX_POOL + 1]
    cdef int base = t.bots[seat], npool, n = 0, i, j
    cdef hand_t tmp
    cdef bint lead = g.phase == PH_LEAD
    if want > MAX_CANDS:
        want = MAX_CANDS
    n = add_distinct(out, n, bot_lead(t, seat) if lead else bot_follow(t, seat, &g.tr))
    t.bots[seat] = BOT_BASIC
    if n < want:
        n = add_distinct(out, n, bot_lead(t, seat) if lead else bot_follow(t, seat, &g.tr))
    t.bots[seat] = base
    if lead:
        npool = lead_pool(g, seat, pool)
    else:
        npool = enum_follows(g, t.hands[seat], hand_empty(), pool, MAX_POOL)
        if npool > MAX_POOL:
            npool = MAX_POOL
    i = 0
    while n < want and i < npool:
        j = i + rng_below(t.rng, npool - i)
        tmp = pool[i]
        pool[i] = pool[j]
        pool[j] = tmp
        n = add_distinct(out, n, pool[i])
        i += 1
    return n


cdef inline void playout_setup(const game_t* world, game_t* play, batch_t* pb, hand_row_t* prow,
                               int seat) noexcept nogil:
    """The world copied into `play`: the seat's base bot at all four seats, no tracing, the
    seat's pending decision to be supplied."""
    cdef int s
    memcpy(play, world, sizeof(game_t))
    play.b = pb
    play.row = prow
    play.t.rng = &play.bot_rng
    play.master = NULL
    play.tracing = 0
    for s in range(4):
        play.t.bots[s] = world.t.bots[seat]
    play.external = 1 << seat
    play.dec_ready = 1


cdef inline void playout_finish(game_t* play) noexcept nogil:
    """Play on to the end: the supplied decision, then the base bot everywhere."""
    if game_run(play):
        play.external = 0
        game_run(play)


cdef void playout(const game_t* world, game_t* play, batch_t* pb, hand_row_t* prow, int seat,
                  hand_t cand) noexcept nogil:
    """Play the world to the end: `cand` for the pending decision, the base bot after."""
    playout_setup(world, play, pb, prow, seat)
    play.dec_cards = cand
    playout_finish(play)


cdef void playout_call(const game_t* world, game_t* play, batch_t* pb, hand_row_t* prow,
                       int seat, int choice) noexcept nogil:
    """playout for a pending call: `choice` (an index into the prepared shows, -1 pass)."""
    playout_setup(world, play, pb, prow, seat)
    play.dec_choice = choice
    playout_finish(play)


cdef void race_worlds(game_t* g, int seat, int k, int n, const hand_t* cands, const int* choices,
                      double* sum_d, double* sum_d2) noexcept nogil:
    """k worlds from one world dealer, every candidate played out in each with the same bot
    stream; the sums of each candidate's gain over the first and of its square."""
    cdef game_t world, play
    cdef batch_t pb
    cdef hand_row_t prow
    cdef long long base_x, x
    cdef int _w, i
    cdef void* maker
    scratch_batch(g.b, &pb)
    for i in range(n):
        sum_d[i] = 0
        sum_d2[i] = 0
    # one world dealer for the k worlds (the public state's setup done once): the very worlds
    # world_from_game deals from the same stream
    maker = worlds_open(g, seat)
    for _w in range(k):
        if maker != NULL:
            worlds_draw(maker, &world, g.t.rng, WORLD_TRIES)
        else:
            world_from_game(g, &world, seat, g.t.rng, WORLD_TRIES)
        for i in range(n):
            if choices != NULL:
                playout_call(&world, &play, &pb, &prow, seat, choices[i])
            else:
                playout(&world, &play, &pb, &prow, seat, cands[i])
            x = outcome(&play, &prow, seat)
            if i == 0:
                base_x = x
            else:
                x -= base_x
                sum_d[i] += x
                sum_d2[i] += <double>x * x
    worlds_close(maker)
    g.b.errors += pb.errors


cdef long long outcome(const game_t* play, const hand_row_t* row, int seat) noexcept nogil:
    """The hand's result for seat's team: net levels (weighted first), then points."""
    cdef int dteam = play.t.dealer & 1, team = seat & 1
    cdef int won = dteam if row.winner == 0 else 1 - dteam
    cdef long long lv = row.levels if won == team else -<int>row.levels
    cdef long long pts = row.defenders_total if team != dteam else -<int>row.defenders_total
    return lv * LEVEL_WEIGHT + pts


cdef void evaluate(game_t* g, int seat, const hand_t* cands, int n, int k, int consistent,
                   double* sum_x, double* sum_d, double* sum_d2) noexcept nogil:
    """k worlds, every candidate played out in each (the same world and bot stream for all);
    the sums per candidate of its score, and of its gain over cands[0] and its square."""
    cdef long long base_x, x
    cdef game_t world, play
    cdef batch_t pb
    cdef hand_row_t prow
    cdef int _w, i
    scratch_batch(g.b, &pb)
    for i in range(n):
        sum_x[i] = 0
        sum_d[i] = 0
        sum_d2[i] = 0
    for _w in range(k):
        if consistent:
            world_from_game(g, &world, seat, g.t.rng, WORLD_TRIES)
        else:
            sample_world_tries(g, &world, seat, g.t.rng, WORLD_TRIES)
        playout(&world, &play, &pb, &prow, seat, cands[0])
        base_x = outcome(&play, &prow, seat)
        sum_x[0] += base_x
        for i in range(1, n):
            playout(&world, &play, &pb, &prow, seat, cands[i])
            x = outcome(&play, &prow, seat)
            sum_x[i] += x
            x -= base_x
            sum_d[i] += x
            sum_d2[i] += <double>x * x
    g.b.errors += pb.errors


cdef hand_t search_decide(game_t* g, int seat) noexcept nogil:
    """The searching seat's lead or follow (the game stopped in run_lead / run_follow)."""
    cdef hand_t cands[MAX_CANDS]
    cdef double sum_x[MAX_CANDS]
    cdef double sum_d[MAX_CANDS]
    cdef double sum_d2[MAX_CANDS]
    cdef const search_t* o = &g.b.seats[seat].search
    cdef int k = o.k, n
    n = candidates(g, seat, cands, o.cands)
    if n == 0:
        return hand_empty()     # no play at all: the game loop reports and repairs it
    if n == 1 or k < 2:
        return cands[0]         # k = 1: no standard error to clear, the base play stands
    evaluate(g, seat, cands, n, k, 0, sum_x, sum_d, sum_d2)
    # the best candidate among those better than the base play by z standard errors (the
    # published 1: 0.5 lost to expert-v1, 1.0 and 1.64 won by about as much)
    return cands[gate_best(sum_d, sum_d2, n, k, o.z)]


# ---------------------------------------------------------------------------------------------
# `search-v2`: the same candidates and playouts, its time spent where it gains (docs/bots.md).
# Its settings are the seat's (k0, early, late, ...: the published values are its spec's
# defaults), so the frozen `search` above reads exactly the values it always did.

# analysis counters (never read by the play): decisions, playouts, deviations
cdef long long V2_NDEC = 0, V2_NPLAY = 0, V2_NDEV = 0, V2_NFORCED = 0
cdef long long V2_BEST[MAX_CANDS]
cdef long long V2_TRICK_PLAY[32]


cdef inline void v2_world(game_t* g, game_t* world, int seat, const search_t* o) noexcept nogil:
    if o.consistent:
        world_from_game(g, world, seat, g.t.rng, o.tries)
    else:
        sample_world_tries(g, world, seat, g.t.rng, WORLD_TRIES)


cdef void v2_round(game_t* g, int seat, const hand_t* cands, const int* alive, int n, int nw,
                   int w0, double* sum_d, double* sum_d2, batch_t* pb, void* ctx) noexcept nogil:
    """nw more common worlds: the base play and every live candidate played out in each."""
    global V2_NPLAY
    cdef const search_t* o = <const search_t*>ctx
    cdef game_t world, play
    cdef hand_row_t prow
    cdef long long base_x, x
    cdef int _w, i
    for _w in range(nw):
        v2_world(g, &world, seat, o)
        V2_NPLAY += 1
        V2_TRICK_PLAY[g.t.tricks_done if g.t.tricks_done < 32 else 31] += 1
        playout(&world, &play, pb, &prow, seat, cands[0])
        base_x = outcome(&play, &prow, seat)
        for i in range(1, n):
            if alive[i]:
                V2_NPLAY += 1
                V2_TRICK_PLAY[g.t.tricks_done if g.t.tricks_done < 32 else 31] += 1
                playout(&world, &play, pb, &prow, seat, cands[i])
                x = outcome(&play, &prow, seat) - base_x
                sum_d[i] += x
                sum_d2[i] += <double>x * x


cdef inline bint off_course(const race_t* r, double mean, double var, int w) noexcept nogil:
    """Not ahead of the reference, or off course to clear the gate at k worlds (search-v2's
    test in the arithmetic it was published with; the same test otherwise)."""
    if mean <= 0:
        return True
    if w >= r.k:
        return False
    if r.v2:
        return mean * mean * w < r.zdrop * r.zdrop * r.z * r.z * var * w / r.k
    return mean * mean * r.k < r.zdrop * r.zdrop * r.z * r.z * var


cdef void keep_better_half(int* alive, const double* mean_of, int n, int nalive) noexcept nogil:
    """Drop the worse half of the live challengers (ranks read before any is dropped)."""
    cdef int i, j, rank, keep = (nalive + 1) // 2
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


cdef int race_run(game_t* g, int seat, const hand_t* cands, int n, const race_t* r,
                  round_fn round, void* ctx, batch_t* pb, int* alive, double* sum_d,
                  double* sum_d2, double* mean_of, int* w_out) noexcept nogil:
    cdef int i, w = 0, nw, nalive, best = 0
    cdef double var, mean = 0.0
    alive[0] = 0
    for i in range(1, n):
        alive[i] = 1
        sum_d[i] = 0
        sum_d2[i] = 0
        mean_of[i] = 0
    nw = r.k0 if r.k0 < r.k else r.k
    if nw < 2:
        nw = 2
    while True:
        round(g, seat, cands, alive, n, nw, w, sum_d, sum_d2, pb, ctx)
        w += nw
        nalive = 0
        for i in range(1, n):
            if alive[i]:
                mean_of[i] = sum_d[i] / w
                var = (sum_d2[i] / w - mean_of[i] * mean_of[i]) * w / (w - 1)
                if off_course(r, mean_of[i], var, w):
                    alive[i] = 0
                else:
                    nalive += 1
        w_out[0] = w
        if nalive == 0 and r.v2:
            return -1
        if nalive == 0 or (w >= r.k and not r.v2):
            break
        if r.halve and nalive > 1:
            keep_better_half(alive, mean_of, n, nalive)
        if w >= r.k:
            break
        nw = w if w + w <= r.k else r.k - w
    # the best survivor, if it clears the gate
    for i in range(1, n):
        if alive[i] and mean_of[i] > mean:
            var = (sum_d2[i] / w - mean_of[i] * mean_of[i]) * w / (w - 1)
            if mean_of[i] * mean_of[i] * w > r.z * r.z * var:
                mean = mean_of[i]
                best = i
    return best


cdef hand_t search_v2_decide(game_t* g, int seat) noexcept nogil:
    """Race the candidates over common worlds: a small first round, then rounds that double the
    worlds, each dropping the candidates not ahead of the base play (and the worse half); the
    last one standing replaces the base play when it clears z standard errors (and, with
    `confirm`, stays ahead on fresh worlds: the race's own estimate is biased upwards)."""
    global V2_NDEC, V2_NPLAY, V2_NDEV, V2_NFORCED
    cdef hand_t cands[MAX_CANDS]
    cdef double sum_d[MAX_CANDS]
    cdef double sum_d2[MAX_CANDS]
    cdef double mean_of[MAX_CANDS]
    cdef int alive[MAX_CANDS]
    cdef batch_t pb
    cdef const search_t* o = &g.b.seats[seat].search
    cdef int k = o.k
    cdef int n, i, w = 0, nw, best, k0
    cdef double fresh0, fresh1
    cdef race_t race
    n = candidates(g, seat, cands, o.cands)
    if n == 0:
        return hand_empty()
    V2_NDEC += 1
    if n == 1 or k < 2:
        V2_NFORCED += 1
        return cands[0]
    k0 = o.k0
    if g.t.tricks_done < o.early:
        k = k // o.early_div
        k0 = o.k0_early
        if k < 2:
            return cands[0]
    elif g.t.tricks_done >= o.late:
        k = k * o.late_mul
    scratch_batch(g.b, &pb)
    race = race_t(k, k0, o.z, o.zdrop, o.halve, 1)
    best = race_run(g, seat, cands, n, &race, v2_round, <void*>o, &pb, alive, sum_d, sum_d2,
                    mean_of, &w)
    g.b.errors += pb.errors
    if best < 0:
        return cands[0]
    V2_BEST[best] += 1
    if best == 0 or not o.confirm:
        V2_NDEV += best != 0
        return cands[best]
    for i in range(1, n):
        alive[i] = i == best
    fresh0 = sum_d[best]
    nw = w // o.confirm
    if nw < 2:
        nw = 2
    v2_round(g, seat, cands, alive, n, nw, w, sum_d, sum_d2, &pb, <void*>o)
    g.b.errors += pb.errors
    fresh1 = sum_d[best] - fresh0
    V2_NDEV += fresh1 > 0
    return cands[best] if fresh1 > 0 else cands[0]


# ---------------------------------------------------------------------------------------------
# The Python face (fastsheng.bots.spec validates the settings)

MAX_CANDS_ = MAX_CANDS


def _v2_counts(reset=False):
    """Screening only: (decisions, forced, playouts, deviations) of search-v2 in this process."""
    global V2_NDEC, V2_NPLAY, V2_NDEV, V2_NFORCED
    out = dict(decisions=V2_NDEC, forced=V2_NFORCED, playouts=V2_NPLAY, deviations=V2_NDEV,
               best=[V2_BEST[i] for i in range(MAX_CANDS)],
               by_trick=[V2_TRICK_PLAY[i] for i in range(32)])
    if reset:
        V2_NDEC = V2_NPLAY = V2_NDEV = V2_NFORCED = 0
        for i in range(MAX_CANDS):
            V2_BEST[i] = 0
        for i in range(32):
            V2_TRICK_PLAY[i] = 0
    return out
