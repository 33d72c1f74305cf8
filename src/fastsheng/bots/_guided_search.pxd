# search-v3's play (fastsheng.bots._guided_search): the decision a line-up gives a seat of the
# search-v3 family.

from fastsheng._bitboard cimport hand_t
from fastsheng._game cimport game_t

cdef hand_t guided_decide(game_t* g, int seat) noexcept nogil
