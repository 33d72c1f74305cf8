# What other C modules use of fastsheng._learned: the learned model's predictions (the guided
# search, fastsheng._guided_search, ranks and gates its candidates with them).

from fastsheng._bitboard cimport hand_t
from fastsheng._game cimport game_t

# The loaded model's prediction for one feature vector (fastsheng._features.NFEAT floats).
cdef float predict(const float* x) noexcept nogil
# y[i] = the predicted gain (net levels) of cands[i] over cands[0], the base bot's play, for the
# seat's pending lead or follow (y[0] = 0); returns 0, writing nothing, when no model is loaded.
cdef int predict_gains(game_t* g, int seat, const hand_t* cands, int n, float* y) noexcept nogil
# The margin a predicted gain must clear for learned-v1 to leave its base play.
cdef float model_margin() noexcept nogil
