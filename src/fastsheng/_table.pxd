# The game's table and the trick being played: the state of a hand that the game loop
# (fastsheng._game) owns and the bots (fastsheng.bots._heuristic) read, and the trick's winner so
# far (docs/rules.md §6). Below the bots and the game, inline only (no module of its own).

from fastsheng._bitboard cimport hand_t
from fastsheng._core cimport (
    KIND_THROW, OVERTRUMP_EVERY, TRUMP, ctx_t, eff_of, has_shape, play_strength, shape_t,
    trick_winner,
)
from fastsheng._rng cimport rng_t
from fastsheng.bots._models cimport learned_t

cdef struct bot_t
cdef struct trick_t


# What the game shares with the bots. Bots read only their own hand and public facts.
cdef struct table_t:
    ctx_t ctx                 # play context (level, trump) once trump is fixed
    rng_t* rng
    int bots[4]               # each seat's row in the table of bots
    const bot_t* rows         # the table of bots this game plays with (NULL: the heuristic
                              # bots' own, fastsheng.bots._heuristic.BOT_TABLE)
    int dealer
    int level
    int first_hand
    hand_t hands[4]           # a bot reads hands[seat] only
    hand_t played             # every card played so far (public)
    hand_t played_by[4]       # cards played by each seat (public)
    int void_mask[4]          # bit e: seat has shown it is void in effective suit e (public)
    int nopair_mask[4]        # bit e: seat has shown it holds no pair of suit e (public: it
                              # answered a pair lead of e without all the pairs it asked)
    hand_t buried             # the kitty as buried; read only by its burier
    int burier                # seat that buried the kitty last
    int def_points            # defenders' points so far (public)
    int tricks_done
    int kv[54]                # how much a player wants to keep each card (bots_prepare)
    int fv[54]                # preference of a point card when feeding points
    double lead_risk          # bot_lead: the leader's own estimate that its lead fails (0 = sure)


# A bot's plan: the flags and parameters by which versions that share a decision differ
# (fastsheng.bots._heuristic names the flags).
cdef struct plan_t:
    int flags                # PLAN_* bits
    int call_share           # declare: call once the best suit holds this % of the cards
    int keep_trump_pairs     # follow: a defender keeps its trump pairs from this many cards left
    int endgame              # follow: contest every trick from this many cards left (0: never)

# The four decisions of a bot, each given the bot's plan (the arguments of the dispatchers).
ctypedef hand_t (*lead_fn)(table_t* t, int seat, const plan_t* p) noexcept nogil
ctypedef hand_t (*follow_fn)(table_t* t, int seat, const trick_t* tr,
                             const plan_t* p) noexcept nogil
ctypedef hand_t (*bury_fn)(table_t* t, int seat, hand_t hand, const plan_t* p) noexcept nogil
ctypedef int (*declare_fn)(table_t* t, int seat, const int* options, int n, int dealt,
                           int standing_seat, int after_burial, const plan_t* p) noexcept nogil

# One row of the table of bots: a versioned bot's four decisions, its plan and, for a learned
# bot, its model (the decisions of a learned row read it through the row).
cdef struct bot_t:
    lead_fn lead
    follow_fn follow
    bury_fn bury
    declare_fn declare
    plan_t plan
    const learned_t* learned


# The trick being played.
cdef struct trick_t:
    int leader
    int n                     # plays so far (plays[0] is the lead)
    hand_t plays[4]
    shape_t shape             # shape of the cards actually led
    int barred                # bit i: play i cannot win by trumping
    int win                   # index of the play winning so far (trick_start / trick_add)
    int win_eff               # its effective suit
    int win_str               # its strength (docs/rules.md §6)
    int every                 # the lead is a throw under overtrump_throw = every


# The trick's bookkeeping: start with the cards actually led (tr.shape already set to their
# shape), add each follow. The winner so far follows docs/rules.md §6 exactly like the core's
# trick_winner (which it calls for `every`).

cdef inline int beats(const ctx_t* c, const trick_t* tr, int i, hand_t x,
                      int* str_out) noexcept nogil:
    """Would play x at index i take the trick from the current winner? (not for `every`)"""
    cdef const shape_t* s = &tr.shape
    cdef int e, st
    if x.one == 0:
        return False
    e = eff_of(c, x)
    if e < 0:
        return False
    if e != s.eff and not (e == TRUMP and not (tr.barred >> i) & 1):
        return False
    if not has_shape(c, s, e, x):
        return False
    st = play_strength(c, s, e, x)
    str_out[0] = st
    if e != tr.win_eff:
        return e == TRUMP
    return st > tr.win_str


cdef inline void trick_start(const ctx_t* c, trick_t* tr, int leader, hand_t lead,
                             int barred) noexcept nogil:
    tr.leader = leader
    tr.plays[0] = lead
    tr.n = 1
    tr.barred = barred
    tr.win = 0
    tr.win_eff = tr.shape.eff
    tr.win_str = tr.shape.top
    tr.every = tr.shape.kind == KIND_THROW and c.r.overtrump_throw == OVERTRUMP_EVERY


cdef inline void trick_add(const ctx_t* c, trick_t* tr, hand_t play) noexcept nogil:
    cdef int st = -1
    tr.plays[tr.n] = play
    tr.n += 1
    if tr.every:
        tr.win = trick_winner(c, tr.plays, tr.n, tr.barred)
        tr.win_eff = eff_of(c, tr.plays[tr.win])
        return
    if beats(c, tr, tr.n - 1, play, &st):
        tr.win = tr.n - 1
        tr.win_eff = eff_of(c, play)
        tr.win_str = st


cdef inline int current_winner(const ctx_t* c, const trick_t* tr) noexcept nogil:
    """Play index winning the trick so far."""
    return tr.win


cdef inline bint would_win(const ctx_t* c, const trick_t* tr, hand_t play) noexcept nogil:
    """Would `play`, the next play of the trick, take it from the winner so far?"""
    cdef hand_t plays[4]
    cdef int i, st
    if tr.every:
        for i in range(tr.n):
            plays[i] = tr.plays[i]
        plays[tr.n] = play
        return trick_winner(c, plays, tr.n + 1, tr.barred) == tr.n
    return beats(c, tr, tr.n, play, &st)
