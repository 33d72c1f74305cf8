# Inference from play (fastsheng._infer): how well a player model explains, in one world, the
# other seats' past plays, and a Markov chain over the consistent worlds that prefers the worlds
# explaining them. search-v3's inference draws its worlds from it (docs/bots.md).

from fastsheng._bitboard cimport hand_t
from fastsheng._game cimport game_t
from fastsheng._rng cimport rng_t

# The other seats' past decisions (leads as attempted, follows) of the hand so far, finished
# tricks and the trick in progress, where bot `bot` (a C bot id of fastsheng._bots), dealt the
# world's cards, would have played otherwise than was played; counting stops above `cap`.
# -1 when the world contradicts the record (a past play illegal with its cards, a throw check
# with another result). `rng` feeds the bot's draws: the same state gives the same answer.
cdef int misfits(const game_t* world, int seat, int bot, const rng_t* rng, int cap) noexcept nogil
# The same in hundredths of a misfit (cap too); soft > 0: a play other than the bot's is judged
# by the learned model (fastsheng._learned), a whole misfit when it predicts no gain of it over
# the bot's play, none from a predicted gain of `soft` net levels up.
# kitty > 0 reads the burial too: `kitty` misfits per card of the world's kitty that the bot
# would not have buried from the burier's 33 cards of the world (one burial, by another seat).
# belief > 0 reads each past decision by the learned belief of that kind (fastsheng._infer:
# 2 the model of deviations), in hundredths of -log P, when one is loaded (else plain misfits);
# -1: the screening setting (_tune's belief).
cdef int fit_units(const game_t* world, int seat, int bot, const rng_t* rng, int cap,
                   float soft, int kitty, int belief) noexcept nogil

# The features of each past decision counted (the learned belief's inputs, NB_IN floats: the
# learned bot's features, fastsheng._features, of the play made against the model bot's (kind
# 1) or of the model's own play (kind 2), then 1 when the two differ), written by fit_rows up
# to `cap` rows (analysis/train_belief.py).
cdef enum:
    NB_IN = 33
cdef struct rows_t:
    float* x
    int n
    int cap
    int kind
cdef int fit_rows(const game_t* world, int seat, int bot, const rng_t* rng, int cap,
                  float soft, int kitty, int belief, rows_t* rows) noexcept nogil

# The learned judgement of a play (fastsheng._learned sets it when its model is loaded, so that
# this module need not import it): the predicted gain, in net levels, of `played` over
# `model_play` at `seat`'s pending lead or follow of `g`.
ctypedef float (*judge_fn)(const game_t* g, int seat, hand_t played, hand_t model_play) noexcept nogil
cdef void set_judge(judge_fn f) noexcept nogil

# A Metropolis chain over the consistent worlds of `seat` (target: uniform over deals times
# odds ** misfits): each step swaps two hidden cards between two places (other seats' hands, the
# kitty the seat has not seen), cards known to lie where they are never move.
cdef struct chain_t:
    game_t w                 # the chain's world now
    int m                    # its misfits, in hundredths
    int seat
    int bot
    double odds
    float soft               # the learned judgement's scale (0: plain misfits)
    int kitty                # misfits per kitty card the bot would not have buried (0: off)
    int belief               # the learned belief's kind (0: plain misfits)
    int nloc
    int loc[4]               # places: seats 0-3, 4 the kitty
    hand_t pinned[5]         # per place: copies that never move (shown and unplayed)
    rng_t fit_rng            # the fixed bot stream of every misfits count
    float lam                # the per-card belief's weight (0: off; fastsheng._card_belief)
    float lq[5][54]          # its lam * log P(a free copy of code lies in place)
    long long steps
    long long accepted

# Start at `first` (a consistent world of the live game `g`).
# (kitty > 0: the burial read too, starting from the world with the kitty the bot buries from
# the burier's cards when the record allows it)
# (belief 1: the chain reads the play by the loaded model of deviations, kind 2)
# (cards > 0: the chain also weighs its worlds by the per-card belief the name `cards=` loaded,
# fastsheng._card_belief.card_name_lambda; the screening setting overrides it)
cdef void chain_start(chain_t* c, const game_t* g, const game_t* first, int seat, double odds,
                      int kitty, int belief, int cards, rng_t* rng) noexcept nogil
cdef void chain_run(chain_t* c, int n, rng_t* rng) noexcept nogil
