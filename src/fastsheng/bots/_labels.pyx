# cython: language_level=3
"""Training labels from the search, in C without the GIL (docs/game.md, "Labels").

Plays hands with a line-up of C bots and, at every lead and follow with more than one
candidate, asks the search what each candidate is worth: the search's own candidates
(fastsheng.bots._search.candidates, the seat's bot as the base) and its own evaluation
(fastsheng.bots._search.evaluate: k worlds, every candidate played out with the base bot). One row
per candidate: its features (fastsheng.bots._features), its cards, the search's mean score and its
mean gain over the base bot's play (with the standard error of that gain), and, once the hand is
over, the hand's real outcome for the seat's team. The base bot's play is what is played, so the
hands are the base line-up's (on the bot stream that the labelling also draws from).
"""

cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    """

from libc.math cimport sqrt
from libc.string cimport memset

from fastsheng._bitboard cimport hand_empty, hand_t, u64, u8
from fastsheng.bots._features cimport NFEAT, cand_features
from fastsheng._game cimport (
    DEC_FOLLOW, DEC_LEAD, PH_LEAD, batch_hand_begin, batch_t, bot_decide, game_run, game_t,
    hand_row_t, lineup_of, lineup_t,
)
from fastsheng._rng cimport rng_t
from fastsheng.bots._search cimport MAX_CANDS, candidates, evaluate, outcome


# Where to write: one entry per candidate row (arrays preallocated by fastsheng.engine.labels).
cdef struct labels_t:
    long cap
    long n                    # out: rows written
    long ndec                 # out: decisions labelled
    long long* decision       # decision number (in this batch)
    u64* hand_id
    u8* seat
    u8* trick
    u8* lead
    u8* cand                  # index among the decision's candidates (0: the base bot's play)
    u8* ncands
    u64* cards_one            # the candidate as a hand_t (fastsheng._bitboard)
    u64* cards_two
    float* value              # the search's mean score (net levels x 40 + points)
    float* gain               # mean gain over the base play, and its standard error
    float* gain_se
    float* hand_outcome       # the hand as played, for the seat's team (the same score)
    float* features           # NFEAT per row


cdef void label_decision(game_t* g, int seat, int k, int want, int consistent,
                         labels_t* L) noexcept nogil:
    cdef hand_t cands[MAX_CANDS]
    cdef double sum_x[MAX_CANDS]
    cdef double sum_d[MAX_CANDS]
    cdef double sum_d2[MAX_CANDS]
    cdef int n = candidates(g, seat, cands, want), i
    cdef long r
    cdef double mean, var
    if n > 1 and L.n + n <= L.cap:
        evaluate(g, seat, cands, n, k, consistent, sum_x, sum_d, sum_d2)
        for i in range(n):
            r = L.n + i
            L.decision[r] = L.ndec
            L.hand_id[r] = g.hand_id
            L.seat[r] = <u8>seat
            L.trick[r] = <u8>g.t.tricks_done
            L.lead[r] = g.phase == PH_LEAD
            L.cand[r] = <u8>i
            L.ncands[r] = <u8>n
            L.cards_one[r] = cands[i].one
            L.cards_two[r] = cands[i].two
            L.value[r] = <float>(sum_x[i] / k)
            mean = sum_d[i] / k
            var = (sum_d2[i] / k - mean * mean) * k / (k - 1) if k > 1 else 0
            L.gain[r] = <float>mean
            L.gain_se[r] = <float>sqrt(var / k if var > 0 else 0)
            cand_features(g, seat, cands[i], cands[0], i == 1, n, &L.features[r * NFEAT])
        L.n += n
        L.ndec += 1
    g.dec_cards = cands[0] if n else hand_empty()
    g.bot_lead_cards = g.dec_cards
    g.bot_lead_risk = 0


cdef int run_labels(batch_t* b, rng_t* rng, int k, int want, int consistent,
                    labels_t* L) noexcept nogil:
    cdef game_t g
    cdef long i, r, first
    cdef int s
    cdef hand_row_t* row
    memset(&g, 0, sizeof(game_t))
    g.b = b
    g.t.rng = &g.bot_rng
    g.t.rows = b.rows
    g.master = rng
    for s in range(4):
        g.t.bots[s] = b.bots[s]
    b.nhands = 0
    for i in range(b.size):
        batch_hand_begin(&g, i)
        g.external = 0xF
        first = L.n
        while game_run(&g):
            s = g.pend_seat
            if g.pend_kind == DEC_LEAD or g.pend_kind == DEC_FOLLOW:
                label_decision(&g, s, k, want, consistent, L)
                g.dec_ready = 1
            else:
                bot_decide(&g, b.rows, &b.seats[s])
        row = &b.hands[b.nhands]
        row.hand_id = g.hand_id
        b.nhands += 1
        for r in range(first, L.n):
            L.hand_outcome[r] = <float>outcome(&g, row, L.seat[r])
    return 0


def _run_labels(rules_fields, lineup, int level, unsigned long long id_base, int size, hands,
                state, int k, int want, int consistent, cols):
    """Play one batch and label it with the C bots of `lineup` (a fastsheng.bots.Lineup that
    does not search; fastsheng.engine.labels owns and sizes the arrays: `hands` the raw bytes of
    the hand rows, `cols` a dict of numpy arrays, `features` of shape (cap, NFEAT))."""
    cdef const lineup_t* lu = lineup_of(lineup)
    cdef batch_t b
    cdef rng_t rng
    cdef labels_t L
    cdef unsigned char[::1] hv = hands
    cdef long long[::1] c_dec = cols["decision"]
    cdef u64[::1] c_hid = cols["hand_id"]
    cdef u8[::1] c_seat = cols["seat"]
    cdef u8[::1] c_trick = cols["trick"]
    cdef u8[::1] c_lead = cols["lead"]
    cdef u8[::1] c_cand = cols["cand"]
    cdef u8[::1] c_ncands = cols["ncands"]
    cdef u64[::1] c_one = cols["cards_one"]
    cdef u64[::1] c_two = cols["cards_two"]
    cdef float[::1] c_value = cols["value"]
    cdef float[::1] c_gain = cols["gain"]
    cdef float[::1] c_se = cols["gain_se"]
    cdef float[::1] c_out = cols["hand_outcome"]
    cdef float[:, ::1] c_feat = cols["features"]
    cdef int i
    if want > MAX_CANDS or want < 2 or k < 2:
        raise ValueError(f"need 2 <= cands <= {MAX_CANDS} and k >= 2")
    if c_feat.shape[1] != NFEAT:
        raise ValueError(f"features must have {NFEAT} columns")
    memset(&b, 0, sizeof(batch_t))
    b.r = rules_fields
    b.rows = lu.rows
    for i in range(4):
        b.bots[i] = lu.seats[i].bot
        b.seats[i] = lu.seats[i]
    b.mode = 0
    b.level = level
    b.id_base = id_base
    b.size = size
    b.hands = <hand_row_t*>&hv[0]
    b.hands_cap = hv.shape[0] // sizeof(hand_row_t)
    if b.hands_cap < size:
        raise ValueError("hands array too small")
    memset(&L, 0, sizeof(labels_t))
    L.cap = c_dec.shape[0]
    L.decision = &c_dec[0]
    L.hand_id = &c_hid[0]
    L.seat = &c_seat[0]
    L.trick = &c_trick[0]
    L.lead = &c_lead[0]
    L.cand = &c_cand[0]
    L.ncands = &c_ncands[0]
    L.cards_one = &c_one[0]
    L.cards_two = &c_two[0]
    L.value = &c_value[0]
    L.gain = &c_gain[0]
    L.gain_se = &c_se[0]
    L.hand_outcome = &c_out[0]
    L.features = &c_feat[0, 0]
    for i in range(4):
        rng.s[i] = state[i]
    with nogil:
        run_labels(&b, &rng, k, want, consistent, &L)
    return {"rows": L.n, "decisions": L.ndec, "nhands": b.nhands, "errors": b.errors,
            "full": L.n + want > L.cap}
