# Declaring and overcalling (docs/rules.md §9) as an incremental, allocation-free state machine.
#
# A whole-hand loop keeps one decl_t per hand: decl_reset() before the deal, then for every show
# a seat wants to make: action = show_ok(...); if action: show_apply(..., action). Every function
# is `noexcept nogil` and never allocates. Validation of cards is Python's job (_declare.pyx
# parses cards into shows); the functions here only receive show codes.
#
# A show is (kind, denom): kind SHOW_SINGLE or SHOW_PAIR; denom 0..3 the suit of the level card
# (S, H, C, D), DENOM_SJ or DENOM_BJ for jokers. So:
#   (SHOW_SINGLE, s)  a single L of suit s         (declare_needs_joker: plus the joker of s's
#   (SHOW_PAIR, s)    a pair of L of suit s         colour, BJ for H/D, SJ for S/C)
#   (SHOW_PAIR, DENOM_SJ / DENOM_BJ)   a joker pair (no trump)
#   (SHOW_SINGLE, DENOM_SJ / DENOM_BJ) a single joker (no trump; hand 1 with hand1_single_joker)
# A show code packs one in an int: kind * 6 + denom (0..11, NSHOWCODES of them).

from fastsheng._bitboard cimport hand_t
from fastsheng._core cimport rules_t

cdef enum:
    SHOW_SINGLE = 0
    SHOW_PAIR = 1
    DENOM_SJ = 4
    DENOM_BJ = 5
    DENOM_KITTY_NT = 6       # decl_t.denom of no trump set from the kitty
    NSHOWCODES = 12
    SEAT_NONE = -1           # decl_t.seat when nothing stands / decl_t.first_seat when nobody
                             # declared
    SEAT_KITTY = 4           # decl_t.seat when trump was set from the kitty

    # results of show_ok
    DECL_NONE = 0            # not allowed
    DECL_DECLARE = 1         # nothing stood: the show declares
    DECL_REINFORCE = 2       # the standing caller shows the pair of its unreinforced single
    DECL_OVERCALL = 3


# The standing call and what the hand's calls so far imply.
cdef struct decl_t:
    int seat                 # standing caller 0..3; SEAT_NONE: nothing stands; SEAT_KITTY
    int denom                # 0..3 suit; DENOM_SJ, DENOM_BJ (no trump); DENOM_KITTY_NT
    int kind                 # SHOW_SINGLE: an unreinforced single; SHOW_PAIR: any pair
    int reinforced           # a single reinforced by its caller, or a pair that declared
    int from_kitty           # the call was set from the kitty (decl_kitty)
    int first_seat           # the first declarer (hand1_dealer = first), SEAT_NONE if none
    int overcalls            # number of overcalls (overcall_bonus)
    int overcallers          # bit s set: seat s has overcalled


cdef inline int show_code(int kind, int denom) noexcept nogil:
    return kind * 6 + denom

cdef inline int show_code_kind(int code) noexcept nogil:
    return code // 6

cdef inline int show_code_denom(int code) noexcept nogil:
    return code % 6

# Nothing stands, nobody declared.
cdef void decl_reset(decl_t* d) noexcept nogil

# Trump set from the kitty (trump 0..3, or NO_TRUMP): stands as an unreinforced single of no
# seat (for 炒底); with kitty_trump_final nothing can be shown over it.
cdef void decl_kitty(decl_t* d, int trump) noexcept nogil

# Trump of the standing call: 0..3, NO_TRUMP, or -1 when nothing stands.
cdef int decl_trump(const decl_t* d) noexcept nogil

# May `seat` make the show (kind, denom) now? DECL_NONE, or the action it would be. `first_hand`:
# this is hand 1 of the match. Out-of-range arguments give DECL_NONE.
cdef int show_ok(const rules_t* r, const decl_t* d, int seat, int kind, int denom,
                 int first_hand) noexcept nogil

# Record a show that show_ok allowed; `action` is what show_ok returned.
cdef void show_apply(decl_t* d, int seat, int kind, int denom, int action) noexcept nogil

# show_ok + show_apply: returns the action (DECL_NONE: nothing changed).
cdef int show_make(const rules_t* r, decl_t* d, int seat, int kind, int denom,
                   int first_hand) noexcept nogil

# The shows the cards of `hand` can make at level rank `level` (0..12), whatever stands: writes
# their codes to `out` (room for NSHOWCODES) in the order: for S, H, C, D the single then the
# pair; the SJ pair, the BJ pair; then (first_hand and hand1_single_joker) single SJ, single BJ.
# Returns how many.
cdef int shows_available(const rules_t* r, int level, hand_t hand, int first_hand,
                         int* out) noexcept nogil

# The cards a show displays.
cdef hand_t show_hand(const rules_t* r, int level, int kind, int denom) noexcept nogil
