# The heuristic bots of fastsheng (docs/bots.md): plain C decisions, nogil.
#
# The game loop (fastsheng._game) owns a `table_t` with the whole state of a hand (fastsheng._table)
# and asks the bot of a seat for a decision. A bot reads only what its seat may know: its own hand
# (hands[seat]), the public record (cards played, by whom, known voids, the trick so far), and
# the kitty only when it buried it. Bots build their plays directly (no enumeration):
# `build_follow` takes a per-card preference and returns a legal follow.

# points_of is _bitboard's, named here too for the modules that cimport it from the bots
from fastsheng._bitboard cimport hand_t, points_of, popcount, u64, u8
from fastsheng._core cimport ctx_t, rules_t, shape_t
from fastsheng._rng cimport rng_t
from fastsheng._table cimport (
    bot_t, declare_fn, bury_fn, follow_fn, lead_fn, plan_t, table_t, trick_t,
)

cdef enum:
    BOT_RANDOM = 0
    BOT_BASIC = 1        # basic-v1 (frozen)
    BOT_EXPERT1 = 2      # expert-v1 (frozen)
    BOT_CHAOS = 3        # test bot (not public): random leads including random throws
    BOT_MUTE = 4         # test bot (not public): plays as basic, never calls
    BOT_EXPERT2 = 5      # expert-v2 (frozen)
    BOT_EXPERT3 = 6      # expert-v3 (frozen)
    BOT_EXPERT4 = 7      # expert-v4 (frozen; the expert of today)
    BOT_LEARNED1 = 8     # learned-v1 (frozen): expert-v4's row here; a line-up that plays it
                         # gives the row its lead, follow and model (fastsheng.bots._lineup)
    NBOTS = 9


# Decisions, by the table of bots (_heuristic.pyx): each bot is a row of four decision functions and
# the plan they read; a dispatcher below calls the function of the seat's bot with its plan.
cdef hand_t bot_lead(table_t* t, int seat) noexcept nogil
cdef hand_t bot_follow(table_t* t, int seat, const trick_t* tr) noexcept nogil
cdef hand_t bot_bury(table_t* t, int seat, hand_t hand) noexcept nogil

# Declaring: `options[0..n)` are the shows the rules allow now, as show codes of
# fastsheng._declare (kind * 6 + denom: kind 1 = pair; denom 0..3 a suit, 4/5 SJ/BJ); `dealt`
# the number of cards the seat holds; `standing_seat` the standing caller (-1: none).
# Returns an index into options, or -1 to pass.
cdef int bot_declare(table_t* t, int seat, const int* options, int n, int dealt,
                     int standing_seat, int after_burial) noexcept nogil

# A bot's plan: the flags and parameters by which versions that share a decision differ (each
# named in _heuristic.pyx by the version that set it: `V2`, `V3`, `V4` comments; docs/bots.md).
cdef enum:
    PLAN_COUNT_VOIDS = 1     # v2: a suit with no card left outside the hand is void for all
    PLAN_DRAW_SURE = 2       # v2: draw trumps with a sure trump only
    PLAN_TOP_LEADS = 4       # v2: cash a side tractor, an ace pair or an ace before a low lead
    PLAN_LOW_PAIRS = 8       # v2: then a low side pair rather than a single
    PLAN_SPARE_TRUMPS = 16   # v2: no top trumps on empty tricks
    PLAN_BURY_VOIDS = 32     # v1: bury whole short side suits (voids)
    PLAN_BURY_POINTS = 64    # v2: with 10+ trumps, bury the points it cannot protect
    PLAN_SECURE = 128        # v3: secure the trick, contest every trick in suit
    PLAN_RISK = 256          # v4: calculated-risk throws
    PLAN_STAKES = 512        # v4: the level table's lines raise the stakes of a trick
    PLAN_LEARNED = 1024      # learned-v1: a model picks among the search's candidates


# A legal follow from `hand` to a lead of shape `s`, preferring cards of lower pri[code].
cdef hand_t build_follow(const ctx_t* c, const shape_t* s, hand_t hand,
                         const int* pri) noexcept nogil

# Tractors of the greedy split (docs/rules.md §3) of a hand (deal features).
cdef int count_tractors(const ctx_t* c, hand_t h) noexcept nogil

# Per-hand tables of the bots, once trump is fixed (after every ctx_init).
cdef void bots_prepare(table_t* t) noexcept nogil


# The heuristic bots' table (rows by BOT_* id; learned-v1's plays expert-v4 until a line-up gives
# it its model). Filled when this module is imported and never changed after.
cdef const bot_t* heuristic_rows() noexcept nogil


# The row of the seat's bot in the game's table of bots; an id outside the table plays basic, as
# the if-chains that the table replaced did (never a read past its end).
cdef const bot_t* bot_row(const table_t* t, int seat) noexcept nogil
