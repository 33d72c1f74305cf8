# What one seat may know of a game, as Observation.to_tensor() lays it out
# (fastsheng.engine.observation), written in C from a game_t: fastsheng.vec's observations.
#
# An observation is OBS = 21 x 54 uint8 counts: card planes (copies 0..2 of each card code,
# or bits), then a row of scalars. Each entry's float32 value is its count over its class's
# divisor (C_* below): obs_to_float writes those values exactly as the Python tensor computes
# them (fastsheng.vec.obs_to_float reads the same tables through obs_tables()).

from fastsheng._bitboard cimport hand_t, u8
from fastsheng._game cimport PH_BURY, PH_CHAODI, PH_DONE, PH_FOLLOW, PH_LEAD, game_t

cdef enum:
    NCARDS = 54
    # the planes (fastsheng.engine.observation's constants; tests check they agree)
    P_HAND = 0
    P_PLAYED = 1
    P_TRICK = 5
    P_KITTY = 9
    P_SHOWN = 10
    P_TRUMP = 14
    P_POINTS = 15
    P_PICKED = 16
    P_ATTEMPT = 17
    P_NOPAIRS = 18
    N_ROWS = 21
    OBS = N_ROWS * NCARDS
    SC = 20 * NCARDS         # the scalars' row
    S_PHASE = 0
    S_DECISION = 5
    S_DEALER = 9
    S_LEVEL = 13
    S_POINTS = 14
    S_TRICKS = 15
    S_SIZES = 16
    S_VOIDS = 20
    S_FAILED = 40
    S_BARRED = 41
    # what the float32 value of a uint8 entry is: its class's divisor
    C_ZERO = 0               # always 0
    C_HALF = 1               # v / 2: card copies, a card's points in fives
    C_ONE = 2                # v: one-hots, bits, the trump plane
    C_LEVEL = 3              # v / 12
    C_POINTS = 4             # v / 200
    C_TRICKS = 5             # v / 25
    C_SIZES = 6              # v / 33
    N_CLASS = 7


# What `seat` may know of game g now, in uint8 counts into o (OBS entries). `picked`: the cards
# of the decision being built card by card (the seat that picks them sees them); `kept_by`: each
# seat's call cards as an Observation keeps them (the game struct does not: fastsheng._vec reads
# them from the trace).
cdef void obs_encode(const game_t* g, hand_t picked, const hand_t* kept_by, int seat,
                     u8* o) noexcept nogil

# The float32 values of a uint8 observation (OBS entries), exactly to_tensor's.
cdef void obs_to_float(const u8* u, float* f) noexcept nogil


cdef inline int phase_index(int ph) noexcept nogil:
    """Observation.phase's index: declare, bury, chaodi, play, done."""
    if ph == PH_BURY:
        return 1
    if ph == PH_CHAODI:
        return 2
    if ph == PH_LEAD or ph == PH_FOLLOW:
        return 3
    if ph == PH_DONE:
        return 4
    return 0
