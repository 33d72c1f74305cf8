# Inference from play (fastsheng.bots._infer): how well a player model explains, in one world, the
# other seats' past plays, and a Markov chain over the consistent worlds that prefers the worlds
# explaining them. search-v3's inference draws its worlds from it (docs/bots.md).

from fastsheng._bitboard cimport hand_t
from fastsheng._game cimport game_t, seat_t
from fastsheng._rng cimport rng_t
from fastsheng._table cimport bot_t
from fastsheng.bots._models cimport belief_t, learned_t

# The other seats' past decisions (leads as attempted, follows) of the hand so far, finished
# tricks and the trick in progress, where bot `bot` (a C bot id of fastsheng.bots._heuristic),
# dealt the world's cards, would have played otherwise than was played; counting stops above
# `cap`.
# -1 when the world contradicts the record (a past play illegal with its cards, a throw check
# with another result). `rng` feeds the bot's draws: the same state gives the same answer.
cdef int misfits(const game_t* world, int seat, int bot, const rng_t* rng, int cap) noexcept nogil
# How a seat reads the past plays (fastsheng.bots._seat's reading settings, made by fit_of):
cdef struct fit_t:
    int bot                  # the model bot whose plays the record is held against
    float soft               # > 0: a play other than the bot's is judged by the learned model
                             # `judge` (its predicted gain of the play over the bot's): a whole
                             # misfit when it predicts no gain, none from `soft` net levels up
    int kitty                # misfits per card of the world's kitty the bot would not have
                             # buried from the burier's 33 cards of the world (0: off)
    int belief               # the learned belief's kind (0: 0/1 misfits; 2: the model of
                             # deviations), read by `bm` in hundredths of -log P
    int kinds                # decisions read: bit 0 leads, bit 1 follows
    const belief_t* bm
    const learned_t* judge

# `seat`'s reading of the play in game `g` (its seat `st`: its base bot or the one it names, its
# line-up's guiding learned model as the judgement); the plain 0/1 count against bot `bot`.
cdef void fit_of(fit_t* f, const game_t* g, int seat, const seat_t* st) noexcept nogil
# The same for a seat `st` of a line-up whose table of bots is `rows`, against bot `bot`.
cdef void fit_from(fit_t* f, const bot_t* rows, const seat_t* st, int bot) noexcept nogil
cdef void fit_plain(fit_t* f, int bot) noexcept nogil

# The same as misfits in hundredths of a misfit (cap too), read as `f` says.
cdef int fit_units(const game_t* world, int seat, const fit_t* f, const rng_t* rng,
                   int cap) noexcept nogil

# The features of each past decision counted (the learned belief's inputs, NB_IN floats: the
# learned bot's features, fastsheng.bots._features, of the play made against the model bot's
# (kind 1) or of the model's own play (kind 2), then 1 when the two differ), written by fit_rows
# up to `cap` rows (training/train_belief.py).
cdef enum:
    NB_IN = 33
cdef struct rows_t:
    float* x
    int n
    int cap
    int kind
cdef int fit_rows(const game_t* world, int seat, const fit_t* f, const rng_t* rng, int cap,
                  rows_t* rows) noexcept nogil

# A Metropolis chain over the consistent worlds of `seat` (target: uniform over deals times
# odds ** misfits): each step swaps two hidden cards between two places (other seats' hands, the
# kitty the seat has not seen), cards known to lie where they are never move.
cdef struct chain_t:
    game_t w                 # the chain's world now
    int m                    # its misfits, in hundredths
    int seat
    fit_t fit                # how it reads the play
    double odds
    int nloc
    int loc[4]               # places: seats 0-3, 4 the kitty
    hand_t pinned[5]         # per place: copies that never move (shown and unplayed)
    rng_t fit_rng            # the fixed bot stream of every misfits count
    float lam                # the per-card belief's weight (0: off; fastsheng.bots._card_belief)
    float lq[5][54]          # its lam * log P(a free copy of code lies in place)
    long long steps
    long long accepted

# Start at `first` (a consistent world of the live game `g`), reading the play as `seat`'s seat
# of g's batch says (fit_of; its kitty > 0: starting from the world with the kitty the bot
# buries from the burier's cards when the record allows it; its per-card model, to the power of
# its lam, weighing the worlds too).
cdef void chain_start(chain_t* c, const game_t* g, const game_t* first, int seat, double odds,
                      rng_t* rng) noexcept nogil
cdef void chain_run(chain_t* c, int n, rng_t* rng) noexcept nogil
