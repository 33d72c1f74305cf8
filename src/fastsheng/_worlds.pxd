# Worlds that honour every public fact (fastsheng._worlds): a seat's sealed public state and the
# consistent worlds rebuilt from it. fastsheng._state fronts them for Python.

from fastsheng._bitboard cimport hand_t
from fastsheng._core cimport ctx_t
from fastsheng._game cimport game_t, hand_row_t
from fastsheng._rng cimport rng_below, rng_t

cdef enum:
    HIST_TRICKS = 64         # tricks of one hand (25 at most) with room to spare
    HIST_BURIES = 64         # burials of one hand (the dealer's and every 炒底 caller's)
    HIST_DEALS = 256         # deals of one hand (a hand 1 nobody calls is dealt again)


# The public record of a hand, parsed from its trace: the finished tricks, the burials and the
# deals (trace offsets, so a world can write its own cards into them).
cdef struct hist_t:
    int ntricks
    int t_leader[HIST_TRICKS]
    hand_t t_attempt[HIST_TRICKS]
    int t_failed[HIST_TRICKS]
    hand_t t_plays[HIST_TRICKS][4]
    int nbury
    int b_seat[HIST_BURIES]
    int b_at[HIST_BURIES]    # offset of the burial's card count
    hand_t b_cards[HIST_BURIES]  # its cards (those not blanked)
    int ndeal
    int d_at[HIST_DEALS]     # offset of the deal's first seat (the 108 codes follow)


# Does `seat` know the kitty now? Its burier does; so does a seat about to bury.
cdef bint kitty_known(const game_t* g, int seat) noexcept nogil
cdef void hist_parse(const short* trace, int n, hist_t* h) noexcept nogil
# Remove from a copy of a game (its row and trace) everything `seat` cannot know: hidden cards
# are put in a canonical order (a function of the hidden set alone), the deck positions and
# burials it did not see become -1/255, streams and pointers are zeroed.
cdef void public_scrub(game_t* p, hand_row_t* row, short* trace, int trace_len,
                       int seat) noexcept nogil
# Deal the hidden cards of the scrubbed `pub` into `dst` consistently with the whole public
# record (see the module docstring); 1: exactly uniform, 0: the constrained fallback.
cdef int world_deal(const game_t* pub, game_t* dst, int seat, rng_t* rng, int max_tries,
                    const hist_t* h) noexcept nogil
# After world_deal and wiring: the world's own history (deck, dealt hands, burials, row).
cdef void world_history(game_t* g, int seat, rng_t* rng, const hist_t* h) noexcept nogil
# With `cur` the hands as a trick began: its lead held, its throw check alike, every follow legal.
cdef bint trick_ok(const ctx_t* c, const hand_t* cur, int leader, hand_t attempt, int failed,
                   const hand_t* plays, int n) noexcept nogil
# Is the world's deal consistent with every past play (follows legal, throws checked alike)?
cdef bint play_consistent(const game_t* g, const hand_t* hands, const hist_t* h) noexcept nogil
# A consistent world for `seat` dealt straight from a live game (the search's playouts): the
# hidden cards redealt by world_deal against what the game itself keeps (voids, shows-out in the
# trick in progress, pair obligations, shown cards, cards taken back in the trick in progress);
# no trace is read, so a run plays alike traced or not. Returns 1 when exactly uniform.
cdef int world_from_game(const game_t* g, game_t* dst, int seat, rng_t* rng,
                         int max_tries) noexcept nogil
# world_from_game for many worlds of one decision: worlds_open does the public state's setup
# once (hidden cards, places, pins, the groupings: the bulk of a world's cost), each worlds_draw
# deals exactly the world world_from_game would deal from the same rng state, worlds_close frees
# it. `g` must not change in between. worlds_open returns NULL when out of memory.
cdef void* worlds_open(const game_t* g, int seat) noexcept nogil
cdef int worlds_draw(void* m, game_t* dst, rng_t* rng, int max_tries) noexcept nogil
cdef void worlds_close(void* m) noexcept nogil
# A slot for every one of n cards within its allowed places (bit `slot[s]` of `allowed[c]`),
# by Kuhn's augmenting paths; the slot of each card in card_slot. Shared by the frozen search's
# sampler (fastsheng._state).
cdef bint match_slots(int n, const int* allowed, const int* slot, int nslot,
                      int* card_slot) noexcept nogil


# One uniform permutation of n hidden cards (Fisher-Yates from the top: exactly n - 1 draws of
# rng_below), applied alike to the parallel array of the places each card may go. Both samplers'
# rejection loops draw through it, so the frozen search's sampler draws what it always drew.
cdef inline void shuffle_cards(int* card, int* allowed, int n, rng_t* rng) noexcept nogil:
    cdef int i, j, tmp
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        tmp = card[i]
        card[i] = card[j]
        card[j] = tmp
        tmp = allowed[i]
        allowed[i] = allowed[j]
        allowed[j] = tmp


# Does card i's slot lie among its allowed places (bit slot[i] of allowed[i]) for every i < n?
cdef inline bint slots_allowed(const int* allowed, const int* slot, int n) noexcept nogil:
    cdef int i
    for i in range(n):
        if not (allowed[i] >> slot[i]) & 1:
            return 0
    return 1
