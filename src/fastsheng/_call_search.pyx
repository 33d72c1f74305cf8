# cython: language_level=3
"""The calls searched (`search-v3`'s `call=1`, docs/bots.md), in C without the GIL.

A seat asked whether to show (declare, reinforce, overcall, or 炒底 after the burial) compares
its answers: its base bot's own (the very bot_declare call the game makes without the search)
first, then passing, then every other show the rules allow it now. Each is played out in the
same worlds consistent with what the seat knows (fastsheng._worlds: while dealing, the other
seats' cards so far and the undealt deck redealt, the cards shown in calls kept by their
seats), the rest of the hand (the deal, everyone's later calls, the burial and the play) by the
base bot at all four seats with the same bot stream per world (common random numbers), scored
by fastsheng._search's outcome (net levels x 40, then points). An answer replaces the base
bot's only when its mean gain over it clears 2 standard errors of the paired differences: a
seat is asked many questions a hand, and at the play search's 1 standard error too many of them
change on noise (the screen in docs/bots.md: 1, 1.64, 2 and 2.5 standard errors).

Which questions are searched: a seat is asked after nearly every card once it can show, and a
whole-hand playout costs what a few hundred plays do, so the search takes the questions where
the answer can change: the base bot would show now (is now the time?), the card just dealt
to the seat could make a show (a new option: should it show at once?), an overcall is open
(the standing call can be taken over), and every question after the deal (few, and the last
chance). The other questions get the base bot's answer.

fastsheng._game calls `call_decide` through the hook this module registers when imported, for a
searching seat whose search_cands carries the call flag (the sign bit).
"""

cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    """


from fastsheng._bots cimport bot_declare
from fastsheng._declare cimport DECL_OVERCALL, NSHOWCODES
from fastsheng._game cimport PH_DEAL, call_search_fn, game_t, set_call_hook, standing_of
from fastsheng._search cimport K_MASK, gate_best, race_worlds

cdef enum:
    MAX_ANSWERS = NSHOWCODES + 1

# the knobs (fixed for the published search-v3; _call_tune changes them for screens only):
# worlds per searched question = the name's k x C_KMUL, at most C_MAXW (32 worlds gained more than
# 16 and 64 no more: the screen in docs/bots.md)
cdef int C_KMUL = 1
cdef int C_MAXW = 32
cdef int C_ALL = 0           # 1: every question searched (analysis)
cdef double C_Z = 2.0        # the gate, in standard errors (2: the screen, docs/bots.md)

# analysis counters (never read by the play): questions asked, searched, answers changed
cdef long long C_NASK = 0, C_NDEC = 0, C_NDEV = 0, C_NPLAY = 0


cdef bint worth_searching(const game_t* g, int seat, int base) noexcept nogil:
    """The questions where the answer can change (module docstring)."""
    cdef int i
    if C_ALL or base >= 0 or g.phase != PH_DEAL:
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
    cdef int k = (g.b.search_k[seat] & K_MASK) * C_KMUL, want = g.b.search_cands[seat] & 0xFF
    cdef int base, n, i, best = 0
    base = bot_declare(&g.t, seat, g.opts, g.nopt, dealt, standing_of(g), after_burial)
    C_NASK += 1
    if g.nopt == 0 or not worth_searching(g, seat, base):
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
    if k > C_MAXW:
        k = C_MAXW
    if n == 1 or k < 2:
        return base
    C_NDEC += 1
    # (the worlds' other seats are asked afresh: fastsheng._worlds resets their calling state)
    race_worlds(g, seat, k, n, NULL, answers, sum_d, sum_d2)
    C_NPLAY += <long long>k * n
    best = gate_best(sum_d, sum_d2, n, k, C_Z)
    C_NDEV += best != 0
    return answers[best]


set_call_hook(<call_search_fn>call_decide)


# ---------------------------------------------------------------------------------------------
# The Python face (fastsheng.engine.registry validates the names)

def _call_tune(kmul=None, maxw=None, every=None, z=None):
    """Screening only (analysis/call_search.py): set knobs of the calls' search in this process
    (the published search-v3 plays with the defaults); every=1 searches every question. Returns
    every knob as it was, so ``_call_tune(**old)`` restores them."""
    global C_KMUL, C_MAXW, C_ALL, C_Z
    was = dict(kmul=C_KMUL, maxw=C_MAXW, every=C_ALL, z=C_Z)
    if kmul is not None:
        C_KMUL = kmul
    if maxw is not None:
        C_MAXW = maxw
    if every is not None:
        C_ALL = every
    if z is not None:
        C_Z = z
    return was


def _call_counts(reset=False):
    """Screening only: questions asked of call-searching seats, searched, answers changed,
    playouts."""
    global C_NASK, C_NDEC, C_NDEV, C_NPLAY
    out = dict(asked=C_NASK, searched=C_NDEC, changed=C_NDEV, playouts=C_NPLAY)
    if reset:
        C_NASK = C_NDEC = C_NDEV = C_NPLAY = 0
    return out
