# The rules engine of fastsheng: plain C structs and nogil functions.
#
# Python validates and normalises (fastsheng.rules.Rules, fastsheng.cards); this module receives
# plain values. Every function here is `noexcept nogil`: it never raises and never touches Python
# objects, so a whole-hand loop (fastsheng._game) can call it with the GIL released. Functions
# that can meet bad input report it through their return value, as documented below.
#
# The rules themselves are stated in docs/rules.md; section numbers below refer to it.

from fastsheng._bitboard cimport hand_t, lsb, msb, popcount, u64, u8

cdef enum:
    TRUMP = 4            # effective suit of trumps (0..3 are the side suits S, H, C, D)
    NO_TRUMP = 4         # value of ctx_t.trump in a no-trump hand
    MAXKEY = 24          # keys inside an effective suit are < MAXKEY
    MAXUNITS = 64

    KIND_SINGLE = 0
    KIND_PAIR = 1
    KIND_TRACTOR = 2
    KIND_THROW = 3


cdef enum:
    LT_MAX_BANDS = 24    # bands of a level table (fastsheng.tables.MAX_BANDS)
    KM_MAX_TRACTOR = 12  # pairs of the longest tractor (fastsheng.tables.MAX_TRACTOR)


# One field per switch of docs/rules.md §7. Bools are 0/1; choices are the index of the value in
# the list of §7; the level table and the kitty multiplier are their data (fastsheng.tables).
# Built once in Python (Rules.core_fields()) and passed by value.
cdef struct rules_t:
    int overcall_ladder
    int suit_strength        # packed: bits 2s..2s+1 = strength of suit s, 3 = strongest
    int hand1_pairs_over_pairs
    int joker_pairs
    int hand1_joker_pairs
    int bj_over_sj
    int reinforce
    int self_overcall
    int hand1_overcalls
    int hand1_dealer
    int overcall_after_burial
    int declare_needs_joker
    int hand1_single_joker
    int no_declaration
    int kitty_trump_final
    int declaring_closes
    int overcall_bonus
    int tractor_chain
    int nt_level_tractor
    int throw_follow
    int void_fill
    int overtrump_throw
    int partner_no_trump_after_failed_throw
    int throw_penalty
    int throw_penalty_points
    int km_single            # kitty multiplier of a single / a pair / a tractor of k pairs
    int km_pair
    int km_tractor[KM_MAX_TRACTOR + 1]
    int throw_kitty
    int lt_nbands            # level table: bands [lt_low[i], lt_low[i+1]) -> side, levels
    int lt_low[LT_MAX_BANDS]
    int lt_side[LT_MAX_BANDS]      # 0 dealer side, 1 defenders
    int lt_levels[LT_MAX_BANDS]
    int lt_step              # > 0: past the last band, +1 level per lt_step points
    int defender_cap         # 0 = no cap
    int start_rank           # 0..12
    int end_rank             # 0..12
    int must_play_mask       # bit r set: rank r must be played
    int hand_cap             # 0 = no cap
    int cap_tie


# Choice indices of rules_t (docs/rules.md §7, the order of rules.CHOICES, checked by
# tests/test_core_constants.py). One place for every module of the core.
cdef enum:
    CHAIN_FULL = 0
    CHAIN_LIMITED = 1
    FOLLOW_SHAPE = 0
    FOLLOW_SUIT = 1
    FILL_ANY = 0
    FILL_TRUMP_FIRST = 1
    OVERTRUMP_DECISIVE = 0
    OVERTRUMP_EVERY = 1
    TK_AT_LEAST_3 = 0
    TK_LARGEST = 1
    TK_PAIR_4 = 2
    ND_KITTY1 = 0
    ND_KITTY3 = 1
    ND_KITTY3_SKIP = 2
    ND_NO_TRUMP = 3
    ND_FLIP_LEVEL = 4
    ND_RANDOM_KITTY = 5
    H1_FINAL = 0
    H1_FIRST = 1
    H1_RANDOM = 2
    OAB_NO = 0
    OAB_YES = 1
    OAB_IF_DECLARED = 2
    CLOSES_DEAL = 1
    BONUS_LEVEL = 1
    BONUS_STAKE = 2
    PEN_PER_CARD = 0
    PEN_NONE = 1
    PEN_FLAT = 2
    PEN_HALF_STAKE = 3
    TIE_DEALER = 0

# Everything the play rules need about one hand: level, trump and precomputed tables.
cdef struct ctx_t:
    rules_t r
    int level                # level rank 0..12
    int trump                # trump suit 0..3, or NO_TRUMP
    u8 eff[54]               # effective suit of each code: 0..3 side suit, TRUMP
    u8 key[54]               # order key inside the effective suit (docs/rules.md §2)
    u64 suit_bb[5]           # codes of each effective suit
    u64 key_bb[5][24]        # codes of each (effective suit, key); empty keys are chain gaps
    int nkeys[5]             # 1 + highest key used by each effective suit
    u64 point_bb             # codes worth points


# A unit of a split (docs/rules.md §3).
cdef struct unit_t:
    int kind                 # KIND_SINGLE / KIND_PAIR / KIND_TRACTOR
    int length               # pairs in a tractor, 1 for a pair, 0 for a single
    int eff
    int top                  # key of the unit's highest card
    int low                  # lowest code in the unit (tie-break)
    hand_t cards


# The structure of a lead (docs/rules.md §3).
cdef struct shape_t:
    int eff                  # effective suit of the lead
    int ncards
    int kind                 # KIND_*
    int ntractors
    int tlen[12]             # tractor lengths, longest first
    int npairs               # pairs, those inside tractors included
    int nlone_pairs          # pairs that are units of their own
    int nsingles
    int top                  # strength of the lead (its decisive unit's key)


cdef void ctx_init(ctx_t* c, const rules_t* r, int level, int trump) noexcept nogil

# Split `cards` into units; returns the number written to `out` (room for MAXUNITS).
cdef int split_units(const ctx_t* c, hand_t cards, unit_t* out) noexcept nogil

# Structure of a lead; returns 0, or -1 when the lead is empty or spans two effective suits.
cdef int lead_shape(const ctx_t* c, hand_t lead, shape_t* s) noexcept nogil

# The cards actually led (docs/rules.md §4); *failed set to 1 when the throw fails.
cdef hand_t throw_check(const ctx_t* c, hand_t lead, const hand_t* others, int nothers,
                        int* failed) noexcept nogil

# Is `play` a legal follow from `hand` to a lead of shape `s`? (docs/rules.md §5)
cdef bint follow_ok(const ctx_t* c, const shape_t* s, hand_t hand, hand_t play) noexcept nogil

# Index of the winning play; plays[0] is the lead. Plays whose bit is set in `barred` cannot win
# by trumping. Returns -1 when the lead is illegal.
cdef int trick_winner(const ctx_t* c, const hand_t* plays, int nplays, int barred) noexcept nogil

cdef int hand_points(const ctx_t* c, hand_t h) noexcept nogil

# A list of card codes as a hand (Python side: ValueError on a bad code or a third copy).
cdef hand_t to_hand(object cards) except *
# The codes of a hand, ascending (each copy once).
cdef list from_hand(hand_t h)

# Can runs of the lengths lens[0..m) be placed disjointly on the pair counts cnt[0..nkeys)?
cdef bint pack(int* cnt, int nkeys, const int* lens, int m) noexcept nogil

# Kitty multiplier of a last-trick lead of shape s.
cdef int kitty_mult(const ctx_t* c, const shape_t* s) noexcept nogil

# Points of a failed throw's penalty that takes `back` cards back (per card / flat; 0 for none
# and half-stake, which counts in stakes, not points). The game loop scores it, the bots weigh it.
cdef inline int throw_penalty_points(const rules_t* r, int back) noexcept nogil:
    if r.throw_penalty == PEN_PER_CARD:
        return r.throw_penalty_points * back
    if r.throw_penalty == PEN_FLAT:
        return r.throw_penalty_points
    return 0


# Level change for a defenders' total from the level table's bands (docs/rules.md §11): returns
# 0 (dealer side advances) or 1 (defenders take over); *levels receives the levels gained.
cdef int level_change(const rules_t* r, int total, int* levels) noexcept nogil


# ---------------------------------------------------------------------------------------------
# Inline helpers shared by every module that plays (the core, the game loop, the bots): compiled
# into each of them, so the hot loops pay no call through a module boundary.

cdef inline int eff_of(const ctx_t* c, hand_t h) noexcept nogil:
    """The single effective suit of a non-empty hand, or -1 when it spans several."""
    cdef int e = c.eff[lsb(h.one)]
    if h.one & ~c.suit_bb[e]:
        return -1
    return e


cdef inline void pair_counts(const ctx_t* c, int e, hand_t h, int* cnt) noexcept nogil:
    """cnt[k] = number of pairs of h at key k of effective suit e."""
    cdef int k
    for k in range(c.nkeys[e]):
        cnt[k] = popcount(h.two & c.key_bb[e][k])


cdef inline u64 pair_key_bits(const ctx_t* c, int e, hand_t h) noexcept nogil:
    """Bit k set when h holds a pair at key k of effective suit e."""
    cdef u64 bits = 0, rest = h.two & c.suit_bb[e]
    while rest:
        bits |= (<u64>1) << c.key[lsb(rest)]
        rest &= rest - 1
    return bits


cdef inline u64 card_key_bits(const ctx_t* c, int e, hand_t h) noexcept nogil:
    """Bit k set when h holds a card at key k of effective suit e."""
    cdef u64 bits = 0, rest = h.one & c.suit_bb[e]
    while rest:
        bits |= (<u64>1) << c.key[lsb(rest)]
        rest &= rest - 1
    return bits


cdef inline u64 run_starts(u64 bits, int n) noexcept nogil:
    """Bit k set when keys k .. k+n-1 are all set in bits."""
    cdef u64 r = bits
    cdef int i
    for i in range(1, n):
        r &= bits >> i
    return r


cdef inline int best_run_top(u64 bits, int n) noexcept nogil:
    """Top key of the highest run of n consecutive keys in bits, or -1."""
    cdef u64 r = run_starts(bits, n)
    if r == 0:
        return -1
    return msb(r) + n - 1


cdef inline int play_strength(const ctx_t* c, const shape_t* s, int e, hand_t x) noexcept nogil:
    """Key of the unit of x (all of effective suit e) that answers the lead's decisive unit
    (docs/rules.md §6), or -1 if x has none."""
    cdef u64 bits
    if s.ntractors > 0:
        return best_run_top(pair_key_bits(c, e, x), s.tlen[0])
    if s.npairs > 0:
        bits = pair_key_bits(c, e, x)
        return msb(bits) if bits else -1
    bits = card_key_bits(c, e, x)
    return msb(bits) if bits else -1


cdef inline bint has_shape(const ctx_t* c, const shape_t* s, int e, hand_t x) noexcept nogil:
    """Does x (all of effective suit e) answer every unit of the lead (docs/rules.md §6)?"""
    cdef int cnt[24]
    if popcount(x.two) < s.npairs:
        return False
    if s.ntractors == 0:
        return True
    if s.ntractors == 1:
        return run_starts(pair_key_bits(c, e, x), s.tlen[0]) != 0
    pair_counts(c, e, x, cnt)
    return pack(cnt, c.nkeys[e], s.tlen, s.ntractors if s.ntractors < 12 else 12)
