# What other C modules use of fastsheng._state: consistent worlds and legal follows.

from fastsheng._bitboard cimport hand_t
from fastsheng._game cimport game_t
from fastsheng._rng cimport rng_t

# Legal follows from `hand` to the trick's lead that contain `must` (at most `limit` written
# to out; returns the count, limit + 1 meaning "more").
cdef int enum_follows(const game_t* g, hand_t hand, hand_t must, hand_t* out,
                      int limit) noexcept nogil
# Copy `src` into `dst` with every card `seat` cannot see redealt consistently (dst's pointers
# still point at src's batch, row and bot stream: the caller rewires them).
cdef int sample_world(const game_t* src, game_t* dst, int seat, rng_t* rng) noexcept nogil
# The same with at most `max_tries` rejection tries before the (consistent, nearly uniform)
# constrained fallback: the search bot's many worlds cannot afford MAX_TRIES.
cdef int sample_world_tries(const game_t* src, game_t* dst, int seat, rng_t* rng,
                            int max_tries) noexcept nogil


# One game from Python: a game_t with its one-row batch (fastsheng.engine.game builds it). Its
# fields are declared here so that the bots' analysis of a game in progress
# (fastsheng.bots._reading) reads the game without this module knowing the bots.
from fastsheng._game cimport batch_t, hand_row_t

cdef class GameCore:
    cdef game_t g
    cdef batch_t b
    cdef rng_t master
    cdef hand_row_t row
    cdef short* trace
    cdef void _wire(self)
    cdef void _reset(self, rules_fields, bots, int external)
