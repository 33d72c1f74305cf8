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

fastsheng._game calls `search_decide` through a hook this module registers when imported.
"""

cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    """

from libc.string cimport memcpy

from fastsheng._bitboard cimport (
    hand_add_card, hand_count, hand_empty, hand_mask, hand_t, lsb, u64,
)
from fastsheng._bots cimport BOT_BASIC, bot_follow, bot_lead
from fastsheng._table cimport table_t
from fastsheng._core cimport KIND_THROW, KIND_TRACTOR, ctx_t, lead_shape, pair_key_bits, shape_t
from fastsheng._game cimport (
    PH_LEAD, batch_t, game_run, game_t, hand_row_t, search_fn, set_search_hook,
)
from fastsheng._rng cimport rng_below, rng_t
from fastsheng._state cimport enum_follows, sample_world_tries

cdef enum:
    MAX_CANDS = 32           # the most candidates a decision compares (bots.py checks cands)
    WORLD_TRIES = 64         # rejection tries per world before the constrained fallback
    MAX_POOL = 256           # plays considered before the random pick down to the candidates
    # levels first: a level is worth the 40 points of a level band of the standard table, and
    # points carry the signal between the thresholds (measured stronger than levels strictly
    # first, docs/bots.md)
    LEVEL_WEIGHT = 40

# a candidate replaces the base bot's play when its mean gain is above Z standard errors of
# the paired differences (Z = 0.5 lost to expert-v1, 1.0 and 1.64 won by about as much)
cdef double Z = 1.0


cdef inline bint same(hand_t a, hand_t b) noexcept nogil:
    return a.one == b.one and a.two == b.two


cdef inline int add_distinct(hand_t* out, int n, hand_t h) noexcept nogil:
    """Append h unless empty or already there; the new count."""
    cdef int i
    if h.one == 0:
        return n
    for i in range(n):
        if same(out[i], h):
            return n
    out[n] = h
    return n + 1


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
    random (bot stream) from the pool: leads of lead_pool, or every legal follow."""
    cdef table_t* t = &g.t
    cdef hand_t pool[MAX_POOL + 1]
    cdef int base = t.bots[seat], npool, n = 0, i, j
    cdef hand_t tmp
    cdef bint lead = g.phase == PH_LEAD
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


cdef void playout(const game_t* world, game_t* play, batch_t* pb, hand_row_t* prow, int seat,
                  hand_t cand) noexcept nogil:
    """Play the world to the end: `cand` for the pending decision, the base bot after."""
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
    play.dec_cards = cand
    play.dec_ready = 1
    if game_run(play):
        play.external = 0
        game_run(play)


cdef long long outcome(const game_t* play, const hand_row_t* row, int seat) noexcept nogil:
    """The hand's result for seat's team: net levels (weighted first), then points."""
    cdef int dteam = play.t.dealer & 1, team = seat & 1
    cdef int won = dteam if row.winner == 0 else 1 - dteam
    cdef long long lv = row.levels if won == team else -<int>row.levels
    cdef long long pts = row.defenders_total if team != dteam else -<int>row.defenders_total
    return lv * LEVEL_WEIGHT + pts


cdef hand_t search_decide(game_t* g, int seat) noexcept nogil:
    """The searching seat's lead or follow (the game stopped in run_lead / run_follow)."""
    cdef hand_t cands[MAX_CANDS]
    cdef double sum_d[MAX_CANDS]
    cdef double sum_d2[MAX_CANDS]
    cdef long long base_x, x
    cdef game_t world, play
    cdef batch_t pb
    cdef hand_row_t prow
    cdef int k = g.b.search_k[seat], want = g.b.search_cands[seat], n, w, i, best = 0
    cdef double mean, var, best_mean = 0.0
    if want > MAX_CANDS:
        want = MAX_CANDS
    if want < 1:
        want = 1
    n = candidates(g, seat, cands, want)
    if n == 0:
        return hand_empty()     # no play at all: the game loop reports and repairs it
    if n == 1 or k < 2:
        return cands[0]         # k = 1: no standard error to clear, the base play stands
    memcpy(&pb, g.b, sizeof(batch_t))
    pb.tricks = NULL
    pb.trace = NULL
    pb.trace_cap = 0
    pb.profile = 0
    pb.errors = 0
    for i in range(4):
        pb.search_k[i] = 0
    for i in range(n):
        sum_d[i] = 0
        sum_d2[i] = 0
    for w in range(k):
        sample_world_tries(g, &world, seat, g.t.rng, WORLD_TRIES)
        playout(&world, &play, &pb, &prow, seat, cands[0])
        base_x = outcome(&play, &prow, seat)
        for i in range(1, n):
            playout(&world, &play, &pb, &prow, seat, cands[i])
            x = outcome(&play, &prow, seat) - base_x
            sum_d[i] += x
            sum_d2[i] += <double>x * x
    g.b.errors += pb.errors
    # the best candidate among those better than the base play by Z standard errors
    for i in range(1, n):
        mean = sum_d[i] / k
        var = (sum_d2[i] / k - mean * mean) * k / (k - 1)
        if mean > best_mean and mean * mean * k > Z * Z * var:
            best_mean = mean
            best = i
    return cands[best]


set_search_hook(<search_fn>search_decide)


# ---------------------------------------------------------------------------------------------
# The Python face (fastsheng.bots validates the parameters)

MAX_CANDS_ = MAX_CANDS

