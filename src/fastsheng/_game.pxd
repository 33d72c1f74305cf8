# Whole hands and matches of 双升 in C (docs/rules.md §10-§11), played by the bots of
# fastsheng._bots. One nogil call plays a batch of hands or matches into preallocated rows;
# fastsheng.hands turns them into Arrow tables.

from fastsheng._bitboard cimport hand_t, u64, u8
from fastsheng._bots cimport table_t
from fastsheng._core cimport rules_t
from fastsheng._rng cimport rng_t

ctypedef unsigned short u16
ctypedef short i16
ctypedef unsigned int u32

cdef enum:
    SET_DECLARED = 0         # trump_set: a declaration (maybe reinforced) stood
    SET_OVERCALL = 1         # the standing call was an overcall (炒底 included)
    SET_KITTY = 2            # set from the kitty (no_declaration fallback)
    SET_NONE = 3             # nobody called: no trump by the fallback

    EV_END = 0               # trace events (fastsheng.hands decodes them)
    EV_DEAL = 1
    EV_SHOW = 2
    EV_REDEAL = 3
    EV_TRUMP = 4
    EV_BURY = 5
    EV_CHAODI = 6
    EV_TRICK = 7
    EV_RESULT = 8

    MAX_TRACE = 4096


# One row of the hands table (field order and types mirror fastsheng.hands.HAND_DTYPE).
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
    u8 trumps[4]              # deal features of each seat's 25 cards under the final trump
    u8 pairs[4]
    u8 tractors[4]
    u8 jokers[4]
    u8 points[4]
    u8 level_cards[4]


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


# The batch: where to write. Arrays are preallocated by fastsheng.hands.
cdef struct batch_t:
    rules_t r
    int bots[4]
    int mode                  # 0 hands, 1 matches
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
    int trace_item            # item whose events go to trace (-1: none, -2: every hand);
                              # with one item, play stops after it
    int trace_hand_no         # matches mode: hand number inside that match (0: hands mode)
    short* trace
    u32* trace_at             # trace_item = -2: where each hand row's events start
    int trace_cap
    int trace_len
    int overflow              # out: 1 when a buffer was too small (caller grows and reruns)
    int check                 # verify every play with the core (follow_ok) while playing
    int profile               # accumulate the time spent in each phase (below)
    double t_deal             # out (profile): seconds dealing and calling
    double t_kitty            # burial and 炒底
    double t_tricks           # the tricks and the score
    int errors                # out: illegal plays met (always 0 unless a bot has a bug)


cdef int run_batch(batch_t* b, rng_t* rng) noexcept nogil
