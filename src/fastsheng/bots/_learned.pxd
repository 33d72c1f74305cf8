# What other C modules use of fastsheng.bots._learned: a learned model's predictions (the guided
# search, fastsheng.bots._guided_search, ranks and gates its candidates with them) and the
# decisions of a learned row of the table of bots (fastsheng.bots._lineup gives them to it).

from fastsheng._bitboard cimport hand_t
from fastsheng._game cimport game_t
from fastsheng._table cimport plan_t, table_t, trick_t
from fastsheng.bots._models cimport learned_t

# y[i] = the predicted gain (net levels) of cands[i] over cands[0], the base bot's play, for the
# seat's pending lead or follow (y[0] = 0); returns 0, writing nothing, when `m` is NULL.
cdef int predict_gains(game_t* g, int seat, const learned_t* m, const hand_t* cands, int n,
                       float* y) noexcept nogil

# A learned row's lead and follow: its model (the row's) picks among the search's candidates.
cdef hand_t learned_lead(table_t* t, int seat, const plan_t* p) noexcept nogil
cdef hand_t learned_follow(table_t* t, int seat, const trick_t* tr, const plan_t* p) noexcept nogil
