# Where each hidden card lies, given the public record (fastsheng.bots._card_belief): a learned
# model of the probability that a copy of each card code the seat has not seen lies in each other
# place (the other seats' hands, the kitty the seat has not seen), read from the record alone.
# search-v3's inference chain (fastsheng.bots._infer) weighs its worlds by it (its `cards` setting).

from fastsheng._bitboard cimport hand_minus, hand_t, hand_union
from fastsheng._game cimport PH_FOLLOW, game_t
from fastsheng.bots._models cimport cards_t

cdef enum:
    NCF = 30                 # features of one (card code, place) pair
    NPLACE = 4               # places a hidden card may lie in, from the seat's side: the seat
                             # to its left, its partner, to its right, the kitty

# The cards seat `s` showed in calls and has not played (the trick in progress included): known
# to lie with it (hand_minus saturates: copies shown minus copies played, at least 0).
cdef inline hand_t shown_unplayed(const game_t* g, int s) noexcept nogil:
    cdef hand_t gone = g.t.played_by[s]
    cdef int i
    if g.phase == PH_FOLLOW:
        for i in range(g.tr.n):
            if ((g.tr.leader + i) & 3) == s:
                gone = hand_union(gone, g.tr.plays[i])
    return hand_minus(g.shown[s], gone)


# The features of every (code, place) pair from `seat`'s side, x[code][place][NCF] (place 0..3
# as NPLACE says); free[code]: the copies of it that the seat has not seen and that are not
# known to lie where they are (shown and unplayed), 0..2; ok[code][place]: may a free copy lie
# there (the kitty only when the seat has not seen it, no seat shown void in its suit).
# Reads only what `seat` may know: its own hand, the record, the public bookkeeping.
cdef void card_features(const game_t* g, int seat, float* x, int* free, int* ok) noexcept nogil

# lq[place][code] (place: seats 0-3, 4 the kitty): `lam` times the log of model `m`'s probability
# that a free copy of code lies there, for the places it may; 0 elsewhere. Returns 0 when `m` is
# NULL (lq untouched), else 1.
cdef int card_logq(const game_t* g, int seat, const cards_t* m, float lam,
                   float lq[5][54]) noexcept nogil
