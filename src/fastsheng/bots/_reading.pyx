# cython: language_level=3
"""What a seat's reading of the play sees in a game in progress: analysis and training only.

Functions of the step API's game (fastsheng._state.GameCore, `Game._core`): the misfits of the
other seats' past plays against a model bot, the learned belief's and the per-card belief's
training rows, the per-card belief's probabilities and the worlds of the inference chain that a
line-up's seat would run (fastsheng.bots._infer, _card_belief). They read the game and never
change what it plays. Kept here, with the bots, so the step API's core knows nothing of them.
"""

from libc.math cimport exp
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from cpython.bytes cimport PyBytes_FromStringAndSize

import numpy as np

from fastsheng._bitboard cimport hand_copies, hand_t
from fastsheng._game cimport game_t, lineup_of, lineup_t, seat_t
from fastsheng._rng cimport rng_seed, rng_t
from fastsheng._state cimport GameCore
from fastsheng._table cimport bot_t
from fastsheng._worlds cimport kitty_known, world_from_game
from fastsheng.bots._card_belief cimport NCF, NPLACE, card_features, shown_unplayed
from fastsheng.bots._card_belief cimport card_logq as c_card_logq
from fastsheng.bots._infer cimport (
    NB_IN, chain_run, chain_start, chain_t, fit_from, fit_plain, fit_rows, fit_t, fit_units,
    rows_t,
)
from fastsheng.bots._infer cimport misfits as c_misfits


def misfits(GameCore core, int seat, int bot, lineup=None):
    """Tests and analysis: the other seats' past plays in this game that the C bot `bot`
    would not have made (fastsheng.bots._infer.misfits, from `seat`'s side), -1 when a past
    play contradicts the cards. `lineup` (a fastsheng.bots.Lineup): read as its
    seat 0 reads the play (its soft, kitty, kinds, belief and models,
    fastsheng.bots._infer.fit_units; a float when it judges by soft)."""
    cdef rng_t r
    cdef fit_t f
    cdef int m
    rng_seed(&r, 1, 2, 3, 4)
    if lineup is None:
        return c_misfits(&core.g, seat, bot, &r, 1 << 20)
    cdef const lineup_t* L = lineup_of(lineup)
    cdef const bot_t* saved_rows = core.g.t.rows
    fit_from(&f, L.rows, &L.seats[0], bot)
    core.g.t.rows = L.rows       # the replay asks the bots of the line-up's table
    m = fit_units(&core.g, seat, &f, &r, 1 << 30)
    core.g.t.rows = saved_rows
    return -1 if m < 0 else (m / 100.0 if f.soft > 0 else m // 100)


def decision_rows(GameCore core, int seat, int bot, int kind=1):
    """Analysis (the learned belief's training rows, analysis/train_belief.py): the
    features of every past decision of another seat in this game, from `seat`'s side with
    this game's cards (fastsheng.bots._infer.fit_rows; kind 1: of the play made, 2: of the
    model's play), as bytes of NB_IN float32s per row; empty when a past play
    contradicts the cards."""
    cdef rng_t r
    cdef rows_t rows
    cdef fit_t f
    cdef int m
    fit_plain(&f, bot)
    rows.cap = 4 * 25 * 4
    rows.n = 0
    rows.kind = kind
    rows.x = <float*>malloc(rows.cap * NB_IN * sizeof(float))
    if rows.x == NULL:
        raise MemoryError()
    try:
        rng_seed(&r, 1, 2, 3, 4)
        m = fit_rows(&core.g, seat, &f, &r, 1 << 30, &rows)
        if m < 0:
            return b""
        return PyBytes_FromStringAndSize(<char*>rows.x, rows.n * NB_IN * sizeof(float))
    finally:
        free(rows.x)


def card_rows(GameCore core, int seat):
    """Analysis (the per-card belief's training rows, analysis/train_card_belief.py):
    the features of every (card code, place) pair from `seat`'s side
    (fastsheng.bots._card_belief.card_features: 54 x NPLACE x NCF float32s), the free copies of
    each code (54 int32s), the places each may lie in (54 x NPLACE int32s) and where this
    game's free copies lie (54 x NPLACE int32s: copies in the place minus those pinned
    there), all as bytes."""
    cdef float* x = <float*>malloc(54 * NPLACE * NCF * sizeof(float))
    cdef int fr[54]
    cdef int ok[54 * NPLACE]
    cdef int at[54 * NPLACE]
    cdef int code, p, s, k
    cdef hand_t h, pin
    if x == NULL:
        raise MemoryError()
    try:
        card_features(&core.g, seat, x, fr, ok)
        for code in range(54):
            for p in range(NPLACE):
                k = 0
                if fr[code]:
                    if p == 3:
                        k = 0 if kitty_known(&core.g, seat) else hand_copies(core.g.kitty, code)
                    else:
                        s = (seat + 1 + p) & 3
                        h = core.g.t.hands[s]
                        pin = shown_unplayed(&core.g, s)
                        k = hand_copies(h, code) - hand_copies(pin, code)
                at[code * NPLACE + p] = k if k > 0 else 0
        return (PyBytes_FromStringAndSize(<char*>x, 54 * NPLACE * NCF * sizeof(float)),
                PyBytes_FromStringAndSize(<char*>fr, sizeof(fr)),
                PyBytes_FromStringAndSize(<char*>ok, sizeof(ok)),
                PyBytes_FromStringAndSize(<char*>at, sizeof(at)))
    finally:
        free(x)


def card_logq(GameCore core, int seat, lineup):
    """Analysis: the per-card belief of seat 0 of `lineup` (a fastsheng.bots.Lineup): log P(a
    free copy of code lies in place) from `seat`'s side, 5 x 54 float32s as bytes (places:
    seats 0-3, 4 the kitty; 0 where it may not lie); None when that seat has no per-card
    model."""
    cdef float lq[5][54]
    cdef const lineup_t* L = lineup_of(lineup)
    if not c_card_logq(&core.g, seat, L.seats[0].cards, 1.0, lq):
        return None
    return PyBytes_FromStringAndSize(<char*>lq, sizeof(lq))


def chain_marginals(GameCore core, lineup, int seat, int n, int steps, int burn, seed):
    """Analysis (how sharp the inference chain's beliefs are, training/train_card_belief.py
    `sharp`): where the free copies lie in `n` worlds of the chain that seat 0 of `lineup`
    (a fastsheng.bots.Lineup: a search-v3 spec's reading settings and models)
    would run from `seat`'s side (`steps` swaps apart after `burn`), summed: 5 x 54 int32s
    as bytes (places: seats 0-3, 4 the kitty), the copies of each code in each place but
    those pinned there. None when no world could be dealt."""
    cdef const lineup_t* L = lineup_of(lineup)
    cdef chain_t* ch = <chain_t*>malloc(sizeof(chain_t))
    cdef game_t* first = <game_t*>malloc(sizeof(game_t))
    cdef rng_t r
    cdef int cnt[5][54]
    cdef int p, code, k, _tries, _i
    cdef hand_t h
    cdef seat_t saved_seat = core.b.seats[seat]
    cdef const bot_t* saved_rows = core.g.t.rows
    cdef double odds = exp(-L.seats[0].search.infer / 10.0)
    if ch == NULL or first == NULL:
        free(ch)
        free(first)
        raise MemoryError()
    # the chain reads the play as the line-up's seat would, sitting at `seat`
    core.b.seats[seat] = L.seats[0]
    core.g.t.rows = L.rows
    try:
        a, b = np.random.SeedSequence(seed).generate_state(2, np.uint64)
        rng_seed(&r, int(a), int(b), 1, 2)
        memset(cnt, 0, sizeof(cnt))
        for _tries in range(16):
            world_from_game(&core.g, first, seat, &r, 64)
            chain_start(ch, &core.g, first, seat, odds, &r)
            if ch.m >= 0:
                break
        chain_run(ch, burn, &r)
        for _i in range(n):
            chain_run(ch, steps, &r)
            for p in range(5):
                if p == seat or (p == 4 and ch.loc[ch.nloc - 1] != 4):
                    continue      # the seat itself, the kitty it knows
                h = ch.w.kitty if p == 4 else ch.w.t.hands[p]
                for code in range(54):
                    k = hand_copies(h, code) - hand_copies(ch.pinned[p], code)
                    cnt[p][code] += k if k > 0 else 0
        return PyBytes_FromStringAndSize(<char*>cnt, sizeof(cnt))
    finally:
        core.b.seats[seat] = saved_seat
        core.g.t.rows = saved_rows
        free(ch)
        free(first)
