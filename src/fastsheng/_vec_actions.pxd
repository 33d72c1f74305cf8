# fastsheng.vec's action ids (the PettingZoo environment's Discrete(68)): which are legal for a
# game's pending decision (its mask), and what applying one does to the game.
#
# An id is a card code 0..53 (a burial, lead or follow is built card by card), A_DONE (closes
# a lead of several cards), A_PASS (declines a call) or A_SHOW + a show code 0..11 (a call:
# fastsheng._declare's codes).

from fastsheng._bitboard cimport hand_t, u8
from fastsheng._game cimport game_t

cdef enum:
    A_DONE = 54
    A_PASS = 55
    A_SHOW = 56              # + show code 0..11
    N_ACT = 68


# A pending decision's legal action ids: as a mask over the ids, and listed (in increasing
# order but A_DONE last: random_actions draws from the list).
cdef struct legal_t:
    u8 mask[N_ACT]
    u8 ids[N_ACT]
    int n


# The legal ids of g's pending decision into L, given the `npicked` cards `picked` so far of a
# decision built card by card; none when `over` (the env is done) or the hand is.
cdef void legal_fill(legal_t* L, const game_t* g, hand_t picked, int npicked,
                     int over) noexcept nogil

# Apply a legal action id `a` (the caller checked it) to g's pending decision: a call or pass
# completes it, a card joins `picked`, and the decision is complete (set on g, picked emptied)
# when a burial has its 8 cards, a follow its trick's count, or a lead is closed by A_DONE.
# Returns 1 when the decision is complete.
cdef int action_apply(game_t* g, hand_t* picked, int* npicked, int a) noexcept nogil


cdef inline int legal_has(const legal_t* L, long long a) noexcept nogil:
    """Is action id `a` legal? (L's own mask: a caller's copy may have been written to)"""
    return 0 <= a < N_ACT and L.mask[a]
