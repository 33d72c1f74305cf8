# cython: language_level=3
"""A line-up as the C loop plays it: its table of bots, its four seats and the models they read.

fastsheng.bots.lineup builds a Lineup from four typed specifications (fastsheng.bots.spec): each
seat's row in the table of bots, its search settings (the spec's core_fields) and the decisions
of its search family, the table of functions the seat plays by (as numpy's Generator holds its
bit generator's), and the models, whose arrays the Model objects here own. The C loop
(fastsheng._game._run, fastsheng._state) reads it through a capsule of its lineup_t. Nothing
here is module state: two line-ups in one process share no setting and no table.
"""

from cpython.pycapsule cimport PyCapsule_New
from libc.string cimport memcpy, memset

import numpy as np

from fastsheng._game cimport lineup_capsule_name, lineup_t, seat_t
from fastsheng._table cimport bot_t
from fastsheng.bots._bury_search cimport bury_decide
from fastsheng.bots._call_search cimport call_decide
from fastsheng.bots._card_belief cimport NCF
from fastsheng.bots._features cimport NFEAT
from fastsheng.bots._guided_search cimport guided_decide
from fastsheng.bots._heuristic cimport BOT_LEARNED1, NBOTS, heuristic_rows
from fastsheng.bots._infer cimport NB_IN
from fastsheng.bots._learned cimport learned_follow, learned_lead
from fastsheng.bots._models cimport belief_t, cards_t, learned_t, mlp_t
from fastsheng.bots._search cimport MAX_CANDS, search_decide, search_v2_decide
from fastsheng.bots._seat cimport FAMILY_NONE, FAMILY_SEARCH, FAMILY_V2, FAMILY_V3


cdef class MLP:
    """A ReLU MLP's arrays (float32, owned here) and the struct that points at them: x ->
    (x - mu) / sd -> relu(w1 x + b1) -> w2 . h + b2. An sd of 0 reads as 1."""
    cdef mlp_t net
    cdef readonly object arrays

    def __init__(self, int nin, mu, sd, w1, b1, w2, b2=0.0):
        mu = np.ascontiguousarray(mu, np.float32)
        sd = np.asarray(sd, np.float64)
        sd = np.ascontiguousarray(np.where(sd > 0, sd, 1.0), np.float32)
        w1 = np.ascontiguousarray(w1, np.float32)
        b1 = np.ascontiguousarray(b1, np.float32)
        w2 = np.ascontiguousarray(w2, np.float32)
        h = len(b1)
        if mu.shape != (nin,) or sd.shape != (nin,) or w1.shape != (h, nin) or w2.shape != (h,):
            raise ValueError(f"shapes do not fit {nin} inputs and {h} hidden units")
        self.arrays = (mu, sd, w1, b1, w2)
        cdef const float[::1] vmu = mu, vsd = sd, vb1 = b1, vw2 = w2
        cdef const float[:, ::1] vw1 = w1
        self.net.nin = nin
        self.net.hidden = h
        self.net.mu = &vmu[0]
        self.net.sd = &vsd[0]
        self.net.w1 = &vw1[0, 0] if h else NULL
        self.net.b1 = &vb1[0] if h else NULL
        self.net.w2 = &vw2[0] if h else NULL
        self.net.b2 = <float>b2


cdef class LearnedModel:
    """learned-v1's model: its MLP over the candidates' features, its margin and candidates."""
    cdef learned_t m
    cdef readonly MLP mlp

    def __init__(self, arrays):
        self.mlp = MLP(NFEAT, arrays["mu"], arrays["sd"], arrays["w1"], arrays["b1"],
                       arrays["w2"], float(arrays["b2"]))
        self.m.net = self.mlp.net
        self.m.margin = float(arrays["margin"])
        self.m.want = min(int(arrays["want"]), MAX_CANDS)


cdef class BeliefModel:
    """A learned belief of the inference: its MLP over a past decision's features, and its
    logit's range [lo, hi]."""
    cdef belief_t m
    cdef readonly MLP mlp

    def __init__(self, arrays):
        hi, lo = float(arrays.get("hi", 4.0)), float(arrays.get("lo", -4.0))
        self.mlp = MLP(NB_IN, arrays["mu"], arrays["sd"], arrays["w1"], arrays["b1"],
                       arrays["w2"], float(arrays["b2"]))
        self.m.net = self.mlp.net
        self.m.clip = hi
        self.m.span = 100 * (hi - lo)


cdef class CardModel:
    """A per-card belief: its MLP over a (card, place) pair's features, no output bias."""
    cdef cards_t m
    cdef readonly MLP mlp

    def __init__(self, arrays):
        self.mlp = MLP(NCF, arrays["mu"], arrays["sd"], arrays["w1"], arrays["b1"],
                       arrays["w2"], 0.0)
        self.m.net = self.mlp.net


cdef class Lineup:
    """Four seats and the table of bots they play with. `seats`: four (row, search fields)
    pairs (fastsheng.bots.spec's row and core_fields); `learned`: the LearnedModel of the
    learned row (None: that row plays as expert-v4, its base); `beliefs`, `cards`: each seat's
    BeliefModel and CardModel, or None."""
    cdef lineup_t L
    cdef bot_t rows[NBOTS]
    cdef readonly object models
    cdef readonly object capsule

    def __init__(self, seats, learned=None, beliefs=(None,) * 4, cards=(None,) * 4):
        cdef int i
        cdef seat_t* s
        if len(seats) != 4 or len(beliefs) != 4 or len(cards) != 4:
            raise ValueError("a line-up has four seats")
        memcpy(self.rows, heuristic_rows(), NBOTS * sizeof(bot_t))
        if learned is not None:
            self.rows[BOT_LEARNED1].lead = learned_lead
            self.rows[BOT_LEARNED1].follow = learned_follow
            self.rows[BOT_LEARNED1].learned = &(<LearnedModel?>learned).m
        self.L.rows = self.rows
        for i in range(4):
            row, fields = seats[i]
            if not 0 <= row < NBOTS:
                raise ValueError(f"seat {i}: no row {row} in the table of bots")
            s = &self.L.seats[i]
            memset(s, 0, sizeof(seat_t))
            s.bot = row
            s.search = fields
            if beliefs[i] is not None:
                s.belief = &(<BeliefModel?>beliefs[i]).m
            if cards[i] is not None:
                s.cards = &(<CardModel?>cards[i]).m
            # the table of functions a searching seat plays by (NULL: its row's decision)
            if s.search.family == FAMILY_SEARCH:
                s.play = search_decide
            elif s.search.family == FAMILY_V2:
                s.play = search_v2_decide
            elif s.search.family == FAMILY_V3:
                if s.search.play or not (s.search.bury or s.search.call):
                    s.play = guided_decide
                if s.search.bury:
                    s.bury = bury_decide
                if s.search.call:
                    s.call = call_decide
            elif s.search.family != FAMILY_NONE:
                raise ValueError(f"seat {i}: no search family {s.search.family}")
        self.models = (learned, tuple(beliefs), tuple(cards))
        self.capsule = PyCapsule_New(&self.L, lineup_capsule_name(), NULL)

    def seat(self, int i):
        """Seat i as the C loop sees it: its row and its search settings (tests)."""
        return {"bot": self.L.seats[i].bot, "search": self.L.seats[i].search,
                "play": self.L.seats[i].play != NULL, "bury": self.L.seats[i].bury != NULL,
                "call": self.L.seats[i].call != NULL}
