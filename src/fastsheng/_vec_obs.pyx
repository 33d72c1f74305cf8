# cython: language_level=3
"""What one seat may know of a game, as Observation.to_tensor() lays it out: fastsheng.vec's
observations written in C (the layout and the classes of the entries are in the .pxd).

An observation is written from scratch at every decision (a memset and the cards' bits; it
is not kept incrementally). Its float32 form multiplies the
counts of the card planes and bits (exact) and takes the seven scalars that divide by 12, 200,
25 and 33 from a table of Python's own divisions, so both match to_tensor() bit for bit.
"""

# POPCNT for the inline bit counts (as fastsheng._game): before every cimport
cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    """

from libc.string cimport memcpy, memset

from fastsheng._bitboard cimport BB_FIVES, BB_TENS, hand_count, hand_t, lsb, u64, u8
from fastsheng._core cimport TRUMP
from fastsheng._game cimport DEC_DECLARE, PH_CLOSE, PH_DEAL, PH_DONE, PH_FOLLOW, game_t
from fastsheng._worlds cimport kitty_known

cdef double DIVISOR[N_CLASS]
cdef u8 OBS_CLASS[OBS]       # each entry's class
cdef float LUT[N_CLASS][256]  # (float)(v / divisor): Python's float division, cast to float32
cdef u8 POINTS_ROW[NCARDS]   # the points plane: 5 -> 1, 10 and K -> 2 (halves)
cdef float SCALE[OBS]        # 0.5, 1 or 0: the exact multiplier of the classes that have one
cdef int FIX[OBS]            # the entries whose value is a division (LUT), N_FIX of them
cdef int N_FIX = 0


cdef void init_tables() noexcept:
    global N_FIX
    cdef int i, c, v
    DIVISOR[C_ZERO] = 0.0
    DIVISOR[C_HALF] = 2.0
    DIVISOR[C_ONE] = 1.0
    DIVISOR[C_LEVEL] = 12.0
    DIVISOR[C_POINTS] = 200.0
    DIVISOR[C_TRICKS] = 25.0
    DIVISOR[C_SIZES] = 33.0
    memset(OBS_CLASS, C_HALF, P_TRUMP * NCARDS)           # hand .. shown: card copies
    memset(OBS_CLASS + P_TRUMP * NCARDS, C_ONE, NCARDS)
    memset(OBS_CLASS + P_POINTS * NCARDS, C_HALF, 3 * NCARDS)   # points, picked, attempt
    memset(OBS_CLASS + P_NOPAIRS * NCARDS, C_ONE, NCARDS)
    memset(OBS_CLASS + (P_NOPAIRS + 1) * NCARDS, C_ZERO, 2 * NCARDS)
    for i in range(S_PHASE, S_LEVEL):
        OBS_CLASS[SC + i] = C_ONE
    OBS_CLASS[SC + S_LEVEL] = C_LEVEL
    OBS_CLASS[SC + S_POINTS] = C_POINTS
    OBS_CLASS[SC + S_TRICKS] = C_TRICKS
    for i in range(4):
        OBS_CLASS[SC + S_SIZES + i] = C_SIZES
    for i in range(S_VOIDS, S_BARRED + 4):
        OBS_CLASS[SC + i] = C_ONE
    for c in range(N_CLASS):
        for v in range(256):
            LUT[c][v] = <float>(v / DIVISOR[c]) if DIVISOR[c] > 0 else 0.0
    for i in range(OBS):
        c = OBS_CLASS[i]
        SCALE[i] = 0.5 if c == C_HALF else (1.0 if c == C_ONE else 0.0)
        if c != C_HALF and c != C_ONE and c != C_ZERO:
            FIX[N_FIX] = i
            N_FIX += 1
    for c in range(NCARDS):
        POINTS_ROW[c] = <u8>(((BB_FIVES >> c) & 1) + 2 * ((BB_TENS >> c) & 1))


init_tables()


cdef inline void put_bits(u8* m, u64 bits) noexcept nogil:
    cdef int c
    while bits:
        c = lsb(bits)
        bits &= bits - 1
        m[c] = 1


cdef inline void put_hand(u8* row, hand_t h) noexcept nogil:
    """Copies of each code (0, 1, 2) into a plane."""
    cdef u64 bits = h.one
    cdef int c
    while bits:
        c = lsb(bits)
        bits &= bits - 1
        row[c] = <u8>(1 + ((h.two >> c) & 1))


cdef void obs_encode(const game_t* g, hand_t picked, const hand_t* kept_by, int seat,
                     u8* o) noexcept nogil:
    """What `seat` may know, as Observation.to_tensor() lays it out, in uint8 counts."""
    cdef u8* sc = o + SC
    cdef int ph = g.phase, k, t, i, b, dealer
    cdef int open_calls = ph == PH_DEAL or ph == PH_CLOSE
    cdef hand_t left, kept, played
    memset(o, 0, OBS)
    put_hand(o + P_HAND * NCARDS, g.t.hands[seat])
    for k in range(4):
        t = (seat + k) & 3
        played = g.t.played_by[t]
        put_hand(o + (P_PLAYED + k) * NCARDS, played)
        kept = kept_by[t]
        if kept.one:
            # the call cards not played yet (copies kept minus copies played)
            left.one = (kept.one & ~played.one) | (kept.two & ~played.two)
            left.two = kept.two & ~played.one
            put_hand(o + (P_SHOWN + k) * NCARDS, left)
        sc[S_SIZES + k] = <u8>hand_count(g.t.hands[t])
        if g.t.void_mask[t]:
            for b in range(5):
                sc[S_VOIDS + 5 * k + b] = (g.t.void_mask[t] >> b) & 1
        if g.t.nopair_mask[t]:
            for b in range(5):
                o[P_NOPAIRS * NCARDS + 5 * k + b] = (g.t.nopair_mask[t] >> b) & 1
    if ph == PH_FOLLOW:
        for i in range(g.tr.n):
            k = (g.leader + i - seat) & 3
            put_hand(o + (P_TRICK + k) * NCARDS, g.tr.plays[i])
        put_hand(o + P_ATTEMPT * NCARDS, g.attempt)
        sc[S_FAILED] = 1 if g.failed else 0
        for i in range(4):
            if (g.tr.barred >> i) & 1:
                sc[S_BARRED + ((g.tr.leader + i - seat) & 3)] = 1
    if kitty_known(g, seat):
        put_hand(o + P_KITTY * NCARDS, g.kitty)
    if not open_calls:
        put_bits(o + P_TRUMP * NCARDS, g.t.ctx.suit_bb[TRUMP])
    memcpy(o + P_POINTS * NCARDS, POINTS_ROW, NCARDS)
    if ph != PH_DONE and g.pend_seat == seat:
        put_hand(o + P_PICKED * NCARDS, picked)
    sc[S_PHASE + phase_index(ph)] = 1
    if ph != PH_DONE:
        sc[S_DECISION + g.pend_kind - DEC_DECLARE] = 1
    if not g.t.first_hand or not open_calls:
        dealer = g.t.dealer
        sc[S_DEALER + ((dealer - seat) & 3)] = 1
    sc[S_LEVEL] = <u8>g.level
    sc[S_POINTS] = <u8>g.t.def_points
    sc[S_TRICKS] = <u8>g.t.tricks_done


cdef void obs_to_float(const u8* u, float* f) noexcept nogil:
    """The float32 values of a uint8 observation: v * 0.5 and v * 1 are exact, so one
    multiplication (vectorized) for all but the seven scalars that divide by 12, 200, 25 and 33,
    which take Python's rounding from the table."""
    cdef int k
    for k in range(OBS):
        f[k] = u[k] * SCALE[k]
    for k in range(N_FIX):
        f[FIX[k]] = LUT[OBS_CLASS[FIX[k]]][u[FIX[k]]]


def obs_tables():
    """(class of each entry (OBS,), float32 value of each class and uint8 value (N_CLASS, 256),
    divisor of each class): how a uint8 observation reads as to_tensor's float32 values."""
    import numpy as np
    cls = np.array([OBS_CLASS[i] for i in range(OBS)], dtype=np.uint8)
    lut = np.array([[LUT[c][v] for v in range(256)] for c in range(N_CLASS)], dtype=np.float32)
    div = np.array([DIVISOR[c] for c in range(N_CLASS)])
    return cls, lut, div
