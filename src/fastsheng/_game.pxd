# Whole hands and matches of 双升 in C (docs/rules.md §10-§11), played by the bots of
# fastsheng.bots._heuristic. One nogil call plays a batch of hands or matches into preallocated
# rows; fastsheng.engine.hands turns them into Arrow tables.

from fastsheng._bitboard cimport hand_t, u64, u8
from fastsheng._table cimport bot_t, table_t, trick_t
from fastsheng._core cimport rules_t
from fastsheng._declare cimport NSHOWCODES, decl_t
from fastsheng._rng cimport rng_t
from fastsheng.bots._models cimport belief_t, cards_t
from fastsheng.bots._seat cimport search_t

ctypedef unsigned short u16
ctypedef short i16
ctypedef unsigned int u32

cdef enum:
    SET_DECLARED = 0         # trump_set: a declaration (maybe reinforced) stood
    SET_OVERCALL = 1         # the standing call was an overcall (炒底 included)
    SET_KITTY = 2            # set from the kitty (no_declaration fallback)
    SET_NONE = 3             # nobody called: no trump by the fallback

    EV_END = 0               # trace events (fastsheng.engine.hands decodes them)
    EV_DEAL = 1
    EV_SHOW = 2
    EV_REDEAL = 3
    EV_TRUMP = 4
    EV_BURY = 5
    EV_CHAODI = 6
    EV_TRICK = 7
    EV_RESULT = 8

    MAX_TRACE = 4096


# One row of the hands table (field order and types mirror fastsheng.engine.schema.HAND_DTYPE).
cdef struct hand_row_t:
    u64 hand_id
    u64 match_id
    i16 trick_points          # defenders' points from tricks
    i16 kitty_bonus           # kitty points x multiplier when the defenders took the last trick
    i16 penalty               # effect of failed-throw penalties on the defenders' total
    i16 defenders_total
    u16 stake                 # stake multiplier (2^overcalls with overcall_bonus = stake)
    u16 hand_no               # hand number in its match (1-based; 0 in hands mode)
    u8 level
    u8 dealer
    u8 first_seat             # seat that received the first card
    u8 declarer               # seat of the standing call at close, 255 = none
    u8 trump                  # 0..3 suit, 4 = no trump
    u8 trump_set              # SET_*
    u8 n_shows                # declarations, reinforcements and overcalls
    u8 n_overcalls            # overcalls (炒底 included)
    u8 n_chaodi               # overcalls after burial
    u8 n_redeals
    u8 kitty_points_dealt
    u8 kitty_points_buried
    u8 last_winner
    u8 last_lead_kind
    u8 kitty_captured
    u8 kitty_mult
    u8 n_tricks
    u8 throws
    u8 failed_throws
    u8 failed_throws_dealer   # failed throws by the dealer side
    u8 penalty_stakes         # half-stake penalties recorded (throw_penalty = half_stake)
    u8 winner                 # 0 dealer side advances, 1 defenders take over
    u8 levels                 # levels gained by the winner (bonus included)
    u8 bonus_levels           # of which from overcalls (overcall_bonus = level)
    u8 next_dealer
    u8 level_team0            # levels of seats 0/2 and 1/3 before the hand (matches)
    u8 level_team1
    u8 burier                 # seat that buried the final kitty (dealer, or the last 炒底 caller)
    u8 final_caller           # seat whose call set the final trump (after 炒底), 255 = none
    u8 levels_climbed         # levels the winner actually climbs (end rank, must-play ranks)
    u8 trumps[4]              # deal features of each seat's 25 cards under the final trump
    u8 pairs[4]
    u8 tractors[4]
    u8 jokers[4]
    u8 points[4]
    u8 level_cards[4]
    float throw_risk          # failed throws the leaders expected: their own estimates, summed


cdef struct match_row_t:
    u64 match_id
    u64 first_hand_id
    u16 hands
    u8 winner                 # 0: seats 0/2, 1: seats 1/3, 2: draw
    u8 level_team0            # final levels
    u8 level_team1
    u8 first_dealer
    u8 capped                 # ended by the hand cap


cdef struct trick_row_t:
    u64 hand_id
    u32 codes_at              # offset of this trick's 4*ncards codes (seat 0..3) in codes
    u8 trick_no
    u8 leader
    u8 ncards                 # cards per seat
    u8 attempted              # cards the leader tried to lead (> ncards: failed throw)
    u8 winner
    u8 points
    u8 lead_kind
    u8 failed


# batch_t.mode and the trace_item values that are no item (fastsheng.engine.plan's Mode, Trace)
cdef enum:
    MODE_HANDS = 0
    MODE_MATCHES = 1
    TRACE_NONE = -1           # no events kept
    TRACE_ALL = -2            # every hand's events (>= 0: that item's, play stopping after it)

# A seat of the batch, as its line-up gives it (fastsheng.bots._lineup, from the seat's typed
# specification): its row in the table of bots, and for a searching seat its settings and the
# decisions its search family makes (the table of functions it plays by: NULL, its row's).
cdef struct game_t
ctypedef hand_t (*play_search_fn)(game_t* g, int seat) noexcept nogil
ctypedef hand_t (*bury_search_fn)(game_t* g, int seat) noexcept nogil
ctypedef int (*call_search_fn)(game_t* g, int seat, int dealt, int after_burial) noexcept nogil

cdef struct seat_t:
    int bot                   # its row: the bot itself, or the base bot a search plays out with
    search_t search           # its search's settings (family FAMILY_NONE: it does not search)
    play_search_fn play       # its searched leads and follows
    bury_search_fn bury       # its searched burial (the game stopped in run_bury, or DEC_BURY)
    call_search_fn call       # its searched answer to a prepared question: an index into
                              # g.opts[0..g.nopt), or -1 pass; after_burial 1 for a 炒底
    const belief_t* belief    # the models its inference reads (NULL: none)
    const cards_t* cards


# What a line-up gives a batch: the table of bots it plays with (a bot_t per BOT_* id, its
# learned rows given their models) and its four seats. fastsheng.bots._lineup.Lineup owns one
# and hands it over as a capsule (lineup_capsule_name), as numpy's bit generators hand theirs.
cdef struct lineup_t:
    const bot_t* rows
    seat_t seats[4]

# The batch: where to write. Arrays are preallocated by fastsheng.engine.hands.
cdef struct batch_t:
    rules_t r
    int bots[4]
    const bot_t* rows         # the line-up's table of bots
    seat_t seats[4]           # the line-up's seats
    int mode                  # MODE_HANDS, MODE_MATCHES
    int level                 # 0..12, or -1: random per hand
    int first_hand            # hands mode: play each hand as a match's hand 1
    u64 id_base               # hand_id (or match_id) of item 0
    int size                  # hands or matches to play
    hand_row_t* hands
    long hands_cap
    long nhands               # out: rows written
    match_row_t* matches
    trick_row_t* tricks       # NULL: no trick rows
    long tricks_cap
    long ntricks
    u8* codes
    long codes_cap
    long ncodes
    int trace_item            # item whose events go to trace (TRACE_NONE, TRACE_ALL);
                              # with one item, play stops after it
    int trace_hand_no         # matches mode: hand number inside that match (0: hands mode)
    short* trace
    u32* trace_at             # TRACE_ALL: where each hand row's events start
    int trace_cap
    int trace_len
    int overflow              # out: 1 when a buffer was too small (caller grows and reruns)
    int check                 # verify every play with the core (follow_ok) while playing
    int profile               # accumulate the time spent in each phase (below)
    double t_deal             # out (profile): seconds dealing and calling
    double t_kitty            # burial and 炒底
    double t_tricks           # the tricks and the score
    int errors                # out: illegal plays met (always 0 unless a bot has a bug)
    int legacy_bot_stream     # 1: one bot stream for the whole batch (runs made before 0.2);
                              # 0: each hand (match) has its own, the jump of its deal stream


# What a batch plays: fastsheng.engine.plan.BatchPlan.core_fields(), plain values it has
# validated (a dict Cython converts). batch_fill copies it and the line-up's seats into a batch_t
# and points the batch at the caller's buffers; the simulator (_game._run) and the step API's
# batches (_state.BatchCore) both use it, so the buffers are wired in one place.
cdef struct batch_plan_t:
    rules_t r
    u64 state[4]              # the batch's RNG stream (SeedSequence(seed, spawn_key=(batch,)))
    int mode
    int level
    int first_hand
    u64 id_base
    int size
    int trace_item
    int trace_hand_no
    int check
    int profile
    int legacy_bot_stream

# The line-up a fastsheng.bots._lineup.Lineup (or its capsule) carries; ValueError for another
# object. The caller keeps the Lineup alive while the pointer is used.
cdef const lineup_t* lineup_of(object lineup) except NULL

# Zero `b`, copy the plan and the line-up in and point it at the buffers (raw bytes; None or
# empty: NULL).
cdef void batch_fill(batch_t* b, const batch_plan_t* p, const lineup_t* L, unsigned char[::1] hands,
                     unsigned char[::1] matches, unsigned char[::1] tricks,
                     unsigned char[::1] codes, unsigned char[::1] trace,
                     unsigned char[::1] trace_at) noexcept


# ---------------------------------------------------------------------------------------------
# The game as a resumable state machine. `game_run` plays until a seat whose bit is set in
# `external` must decide (returns 1; the decision is described by pend_*), or the hand is over
# (returns 0). The caller supplies the decision (dec_ready, dec_choice / dec_cards) and calls
# game_run again. With external = 0 it plays the whole hand: the simulator's loop IS this one.

cdef enum:
    PH_DEAL = 0              # dealing card by card, calls after every card
    PH_CLOSE = 1             # the closing rounds of calls after the deal
    PH_SETUP = 2             # (no decision) redeal, or trump and dealer fixed
    PH_BURY = 3              # a seat buries 8 cards
    PH_CHAODI = 4            # overcalls after burial
    PH_PLAYSTART = 5         # (no decision) before the first lead
    PH_LEAD = 6
    PH_FOLLOW = 7
    PH_DONE = 8

    DEC_NONE = 0
    DEC_DECLARE = 1          # choose an index into opts[0..nopt) or -1 (pass)
    DEC_BURY = 2             # choose 8 cards of hands[seat] + kitty
    DEC_LEAD = 3
    DEC_FOLLOW = 4


cdef enum:
    LOG_TRICKS = 32          # tricks of a hand (25 at most) with room to spare

cdef struct game_t:
    table_t t
    batch_t* b
    rng_t deal_rng            # the cards' stream: shuffles, dealer, level, kitty draws
    rng_t bot_rng             # the bots' stream (so a deal does not depend on the bots)
    rng_t* master             # the batch's stream: one sub-stream per hand (or match)
    u8 deck[108]
    hand_t kitty
    decl_t decl
    int n_shows
    int n_chaodi
    u64 declarable            # codes that can take part in a show (level cards, jokers)
    int last_nopts            # shows the last seat asked could make
    int trump
    int trump_set
    int tracing
    u64 hand_id
    # --- the state machine ---
    int phase                 # PH_*
    int external              # bit s: seat s decides outside C
    int dec_ready             # the pending decision was supplied
    int dec_choice            # DEC_DECLARE: index into opts, -1 pass
    hand_t dec_cards          # DEC_BURY / DEC_LEAD / DEC_FOLLOW
    hand_t bot_lead_cards     # the lead bot_decide last gave, and its bot's failure estimate:
    double bot_lead_risk      # counted in throw_risk when that very lead is applied
    int pend_kind             # DEC_*: what game_run stopped for
    int pend_seat
    int nopt                  # the shows offered (DEC_DECLARE)
    int opts[NSHOWCODES]
    int opt_acts[NSHOWCODES]
    int asking                # a seat's options are prepared and its answer is due
    hand_row_t* row
    int level
    int first
    int called
    int redeals
    int di                    # PH_DEAL: cards dealt; dseat/dj: the seat dealt to, asks done
    int dseat
    int dj
    int version
    int seen[4]
    int nopts[4]
    int dirty[4]
    int cseat                 # PH_CLOSE / PH_CHAODI: seat asked next, passes and asks so far
    int passes
    int asks
    int bury_seat
    int bury_return           # 0: the dealer's burial, 1: a 炒底 caller's (back to PH_CHAODI)
    hand_t dealt[4]           # hands when calls closed (deal features under the final trump)
    int final_caller
    hand_t shown[4]           # cards each seat has shown in calls (public; max of the shows)
    trick_t tr
    int leader
    int fi                    # PH_FOLLOW: index of the next play in the trick (1..3)
    int tn
    int failed
    int att
    hand_t attempt
    # the finished tricks in order (public): leader, attempted lead, plays in lead order and
    # the barred plays; what search-v3's inference replays (fastsheng.bots._infer)
    int log_leader[LOG_TRICKS]
    int log_barred[LOG_TRICKS]
    hand_t log_attempt[LOG_TRICKS]
    hand_t log_plays[LOG_TRICKS][4]
    int pen_total
    int pen_stakes
    int trick_pts
    double t0
    # --- matches ---
    int m_lv[2]
    int m_won[2]
    int m_dealer
    int m_hand_no
    int m_first_hand
    int m_winner
    int m_capped
    match_row_t* mrow


# The seat of the standing call, -1 when none stands (what bot_declare is told).
cdef inline int standing_of(const game_t* g) noexcept nogil:
    return g.decl.seat if 0 <= g.decl.seat < 4 else -1


# The shows the rules allow `seat` now, into g.opts / g.opt_acts (how many); the deal features
# of the hands as dealt (g.dealt) into a row. fastsheng._worlds rebuilds a world's with them.
cdef int ask_prepare(game_t* g, int seat) noexcept nogil
cdef void deal_features(game_t* g, hand_row_t* row) noexcept nogil

# A finished trick's public bookkeeping on the table: the cards played (by whom), the voids and
# pair obligations it showed, the defenders' points (pts, when `wseat` defends), tricks done.
cdef void trick_public(table_t* t, const trick_t* tr, int wseat, int pts) noexcept nogil

# Start a hand (the deal stream and bot stream already seeded).
cdef void hand_begin(game_t* g, int level, int dealer, int first_hand,
                     hand_row_t* row) noexcept nogil
# Play until an external seat must decide (1) or the hand is over (0).
cdef int game_run(game_t* g) noexcept nogil
# Hands mode: seed hand i's streams from the batch stream, draw its level and dealer, begin it.
cdef void batch_hand_begin(game_t* g, long i) noexcept nogil
# Matches mode: start match m / the match's next hand / after a hand (1: the match is over).
cdef void match_begin(game_t* g, long m, match_row_t* mrow) noexcept nogil
cdef int match_hand_begin(game_t* g) noexcept nogil
cdef int match_hand_end(game_t* g) noexcept nogil
# Apply the pending decision the way `seat` of a line-up whose table of bots is `rows` would
# take it (bot stream drawn): its search's when it searches that decision, else its row's.
cdef void bot_decide(game_t* g, const bot_t* rows, const seat_t* seat) noexcept nogil

cdef int run_batch(batch_t* b, rng_t* rng) noexcept nogil


# The name of the capsules that carry a lineup_t (a static string: it outlives them).
cdef inline const char* lineup_capsule_name() noexcept nogil:
    return "fastsheng.lineup_t"
