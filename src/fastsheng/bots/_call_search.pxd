# The calls searched (fastsheng.bots._call_search): the decision a line-up gives a seat whose
# spec sets call=1.

from fastsheng._game cimport game_t

cdef int call_decide(game_t* g, int seat, int dealt, int after_burial) noexcept nogil
