# The learned bot's view of a decision (fastsheng.bots._features, docs/bots.md "learned-v1"): one
# vector of NFEAT floats per candidate play, computed in C from what the seat may know.

from fastsheng._bitboard cimport hand_t
from fastsheng._game cimport game_t

cdef enum:
    NFEAT = 32

# Features of candidate `cand` against the base bot's play `base` for `seat`'s pending lead
# (the game in PH_LEAD) or follow (PH_FOLLOW, g.tr the trick so far); `is_basic`: the candidate
# is basic-v1's play; `ncands` the candidates of the decision.
cdef void cand_features(const game_t* g, int seat, hand_t cand, hand_t base, int is_basic,
                        int ncands, float* out) noexcept nogil
