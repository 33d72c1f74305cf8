# cython: language_level=3
"""The calls searched (`search-v3`'s `call=1`, docs/bots.md), in C without the GIL.

A seat asked whether to show (declare, reinforce, overcall, or 炒底 after the burial) compares
its answers: its base bot's own (the very bot_declare call the game makes without the search)
first, then passing, then every other show the rules allow it now. Each is played out in the
same worlds consistent with what the seat knows (fastsheng._worlds: while dealing, the other
seats' cards so far and the undealt deck redealt, the cards shown in calls kept by their
seats), the rest of the hand (the deal, everyone's later calls, the burial and the play) by the
base bot at all four seats with the same bot stream per world (common random numbers), scored
by fastsheng.bots._search's outcome (net levels x 40, then points). An answer replaces the base
bot's only when its mean gain over it clears 2 standard errors of the paired differences: a
seat is asked many questions a hand, and at the play search's 1 standard error too many of them
change on noise (the screen in docs/bots.md: 1, 1.64, 2 and 2.5 standard errors).

Which questions are searched: a seat is asked after nearly every card once it can show, and a
whole-hand playout costs what a few hundred plays do, so the search takes the questions where
the answer can change: the base bot would show now (is now the time?), the card just dealt
to the seat could make a show (a new option: should it show at once?), an overcall is open
(the standing call can be taken over), and every question after the deal (few, and the last
chance). The other questions get the base bot's answer.

A seat whose spec sets `call=1` is given `call_decide` by its line-up (fastsheng.bots._lineup);
fastsheng._game calls it through the seat.
"""

cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    """


from fastsheng.bots._heuristic cimport bot_declare
from fastsheng._declare cimport DECL_OVERCALL, NSHOWCODES
from fastsheng._game cimport PH_DEAL, game_t, standing_of
from fastsheng.bots._search cimport gate_best, race_worlds
from fastsheng.bots._seat cimport search_t

cdef enum:
    MAX_ANSWERS = NSHOWCODES + 1

# The seat's settings (fastsheng.bots._seat.search_t) size the search: worlds per searched
# question = its k x call_kmul (published 1), at most call_maxw (32: 32 worlds gained more than
# 16 and 64 no more, docs/research/calls.md); the gate call_z standard errors (published 2).

# analysis counters (never read by the play): questions asked, searched, answers changed
cdef long long C_NASK = 0, C_NDEC = 0, C_NDEV = 0, C_NPLAY = 0


cdef bint worth_searching(const game_t* g, int seat, int base, int every) noexcept nogil:
    """The questions where the answer can change (module docstring); every one with `every`."""
    cdef int i
    if every or base >= 0 or g.phase != PH_DEAL:
        return True
    # the card just dealt was the seat's and can make a show (a level card or a joker)
    if g.di > 0 and ((g.first + g.di - 1) & 3) == seat and (g.declarable >> g.deck[g.di - 1]) & 1:
        return True
    for i in range(g.nopt):
        if g.opt_acts[i] == DECL_OVERCALL:
            return True
    return False


cdef int call_decide(game_t* g, int seat, int dealt, int after_burial) noexcept nogil:
    """The searching seat's answer to the prepared question: an index into g.opts, -1 pass."""
    global C_NASK, C_NDEC, C_NDEV, C_NPLAY
    cdef int answers[MAX_ANSWERS]
    cdef double sum_d[MAX_ANSWERS]
    cdef double sum_d2[MAX_ANSWERS]
    cdef const search_t* o = &g.b.seats[seat].search
    cdef int k = o.k * o.call_kmul, want = o.cands
    cdef int base, n, i, best = 0
    base = bot_declare(&g.t, seat, g.opts, g.nopt, dealt, standing_of(g), after_burial)
    C_NASK += 1
    if g.nopt == 0 or not worth_searching(g, seat, base, o.call_every):
        return base
    # the answers: the base bot's, passing, then the other shows in the rules' order
    if want > MAX_ANSWERS:
        want = MAX_ANSWERS
    answers[0] = base
    n = 1
    if base >= 0 and n < want:
        answers[n] = -1
        n += 1
    for i in range(g.nopt):
        if i != base and n < want:
            answers[n] = i
            n += 1
    if k > o.call_maxw:
        k = o.call_maxw
    if n == 1 or k < 2:
        return base
    C_NDEC += 1
    # (the worlds' other seats are asked afresh: fastsheng._worlds resets their calling state)
    race_worlds(g, seat, k, n, NULL, answers, sum_d, sum_d2)
    C_NPLAY += <long long>k * n
    best = gate_best(sum_d, sum_d2, n, k, o.call_z)
    C_NDEV += best != 0
    return answers[best]


# ---------------------------------------------------------------------------------------------
# The Python face: analysis only (the counters never decide a play)

def _call_counts(reset=False):
    """Screening only: questions asked of call-searching seats, searched, answers changed,
    playouts."""
    global C_NASK, C_NDEC, C_NDEV, C_NPLAY
    out = dict(asked=C_NASK, searched=C_NDEC, changed=C_NDEV, playouts=C_NPLAY)
    if reset:
        C_NASK = C_NDEC = C_NDEV = C_NPLAY = 0
    return out
