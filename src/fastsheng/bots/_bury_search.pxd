# The burial searched (fastsheng.bots._bury_search): the decision a line-up gives a seat whose
# spec sets bury=1.

from fastsheng._bitboard cimport hand_t
from fastsheng._game cimport game_t

cdef hand_t bury_decide(game_t* g, int seat) noexcept nogil
