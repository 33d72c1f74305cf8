# cython: language_level=3
"""One game, one decision at a time: the Python face of fastsheng._game's state machine.

`GameCore` owns a game_t (the very struct and code `simulate_hands` plays with), a one-row batch
and a trace buffer. It stops at every decision of a seat marked external, takes the decision,
and resumes. It also enumerates legal plays (whole, or card by card with a legality mask),
copies itself (a struct copy) and deals a world consistent with what one seat knows. Python
(fastsheng.engine.game) validates inputs and builds Actions and Observations; nothing here raises on
the nogil paths.
"""

cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    """

from cpython.object cimport Py_TYPE
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from fastsheng._bitboard cimport (
    hand_add_card, hand_contains, hand_count, hand_copies, hand_empty, hand_mask, hand_minus,
    hand_t, hand_union, lsb, popcount, u64, u8,
)
from fastsheng.bots._heuristic cimport bots_prepare
from fastsheng._core cimport (
    ctx_init, follow_ok, from_hand, lead_shape, shape_t, to_hand,
)
from fastsheng._declare cimport decl_reset, decl_trump, show_code_denom, show_code_kind, show_hand
from fastsheng._game cimport (
    DEC_BURY, DEC_DECLARE, DEC_FOLLOW, DEC_LEAD, DEC_NONE, PH_BURY, PH_CHAODI, PH_CLOSE, PH_DEAL,
    PH_DONE, PH_FOLLOW, PH_LEAD, PH_PLAYSTART, SET_DECLARED, TRACE_ALL, batch_fill,
    batch_hand_begin,
    batch_plan_t, batch_t,
    bot_decide, game_run, game_t, hand_row_t, lineup_of, lineup_t, match_begin, match_hand_begin,
    match_hand_end,
)
from fastsheng._rng cimport rng_below, rng_split, rng_t
from fastsheng._worlds cimport (
    hist_parse, hist_t, kitty_known, match_slots, public_scrub, shuffle_cards, slots_allowed,
    world_deal, world_history,
)
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize

cdef enum:
    TRACE_CAP = 1 << 16      # events of one hand (many redeals of a hand 1 fit)
    MAX_TRIES = 20000        # rejection sampling attempts before the constrained fallback
    LOC_REST = 3             # sample_world: the location of unseen undealt / kitty cards
    PUB_HEADER = 16          # public_state: magic, seat, trace length, padding
    PUB_MAGIC = 0x46535731   # "FSW1"

PHASES = {PH_DEAL: "declare", PH_CLOSE: "declare", PH_BURY: "bury", PH_CHAODI: "chaodi",
          PH_LEAD: "play", PH_FOLLOW: "play", PH_DONE: "done"}
DECISIONS = {DEC_NONE: None, DEC_DECLARE: "declare", DEC_BURY: "bury", DEC_LEAD: "lead",
             DEC_FOLLOW: "follow"}


# ---------------------------------------------------------------------------------------------
# Legal follows: enumerate the multisets of a pool that contain `must`, checked by follow_ok

cdef struct enum_t:
    const shape_t* s
    const game_t* g
    hand_t hand
    int codes[54]
    int lo[54]               # copies that must be taken
    int hi[54]               # copies available
    int n
    int limit
    int count
    hand_t* out


cdef void enum_rec(enum_t* e, int i, int need, hand_t cur) noexcept nogil:
    cdef int k, room = 0, j
    if e.count > e.limit:
        return
    if need == 0:
        for j in range(i, e.n):
            if e.lo[j]:
                return
        if follow_ok(&e.g.t.ctx, e.s, e.hand, cur):
            if e.out != NULL and e.count < e.limit:
                e.out[e.count] = cur
            e.count += 1
        return
    if i == e.n:
        return
    for j in range(i, e.n):
        room += e.hi[j]
    if room < need:
        return
    k = e.hi[i] if e.hi[i] < need else need
    while k >= e.lo[i]:
        if k == 2:
            enum_rec(e, i + 1, need - 2, hand_add_card(hand_add_card(cur, e.codes[i]), e.codes[i]))
        elif k == 1:
            enum_rec(e, i + 1, need - 1, hand_add_card(cur, e.codes[i]))
        else:
            enum_rec(e, i + 1, need, cur)
        if e.count > e.limit:
            return
        k -= 1


cdef int enum_follows(const game_t* g, hand_t hand, hand_t must, hand_t* out,
                      int limit) noexcept nogil:
    """Legal follows from `hand` to the trick's lead that contain `must` (at most `limit` written;
    returns the count, limit + 1 meaning "more")."""
    cdef enum_t e
    cdef const shape_t* s = &g.tr.shape
    cdef u64 suit = g.t.ctx.suit_bb[s.eff], bits
    cdef hand_t he = hand_mask(hand, suit), pool
    cdef int ns = hand_count(he), need = s.ncards, code, taken = 0
    if not hand_contains(hand, must) or hand_count(must) > need:
        return 0
    e.s = s
    e.g = g
    e.hand = hand
    e.limit = limit
    e.count = 0
    e.out = out
    e.n = 0
    # as many cards of the led suit as possible: with enough, only they; else all of them
    pool = he if ns >= need else hand
    if not hand_contains(pool, must):
        return 0
    bits = pool.one
    while bits:
        code = lsb(bits)
        bits &= bits - 1
        e.codes[e.n] = code
        e.hi[e.n] = hand_copies(pool, code)
        e.lo[e.n] = hand_copies(must, code)
        if ns < need and (suit >> code) & 1:
            e.lo[e.n] = e.hi[e.n]
        if e.lo[e.n] > e.hi[e.n]:
            return 0
        taken += e.lo[e.n]
        e.n += 1
    if taken > need:
        return 0
    enum_rec(&e, 0, need, hand_empty())
    return e.count


# ---------------------------------------------------------------------------------------------
# The frozen search's worlds (fastsheng.bots._search): voids and shown cards only, kept exactly as
# the `search` names were published with. Game.sample_world uses fastsheng._worlds.

cdef inline int eff_code(const game_t* g, int code) noexcept nogil:
    return g.t.ctx.eff[code]


cdef int sample_world(const game_t* src, game_t* dst, int seat, rng_t* rng) noexcept nogil:
    return sample_world_tries(src, dst, seat, rng, MAX_TRIES)


cdef int sample_world_tries(const game_t* src, game_t* dst, int seat, rng_t* rng,
                            int max_tries) noexcept nogil:
    """Copy `src` into `dst` and redeal every card `seat` cannot see (the other hands, the
    kitty unless it knows it, the undealt cards) among the same places with the same counts,
    consistent with the public record: a seat void in a suit gets none of it; cards a seat
    showed in a call and has not played stay with it (or in the kitty, if it buried). Uniform
    over the consistent physical deals by rejection; after `max_tries` a constrained greedy deal
    (still consistent, not exactly uniform). Returns the tries used (0: the fallback)."""
    cdef int loc_seat[3]
    cdef int cap[4]
    cdef int card[108]
    cdef int allowed[108]
    cdef int slot[108]
    cdef int where[108]
    cdef int pin_code[16]
    cdef int pin_loc[16]          # bit mask of locations that may hold the pinned copies
    cdef int pin_need[16]
    cdef int npin = 0, n = 0, nslot = 0, i, j, k, _k, s, L, tries, tmp, code, cnt, ok
    cdef int rest_known = kitty_known(src, seat), nrest = 0, in_deal = src.phase == PH_DEAL
    cdef hand_t pool[4]
    cdef hand_t left, gone
    memcpy(dst, src, sizeof(game_t))
    # the locations: the three other seats, and the rest (undealt cards or an unseen kitty)
    j = 0
    for s in range(4):
        if s != seat:
            loc_seat[j] = s
            cap[j] = hand_count(src.t.hands[s])
            j += 1
    if in_deal:
        nrest = 108 - src.di
    elif not rest_known and src.phase != PH_DONE:
        nrest = 8
    cap[LOC_REST] = nrest
    # the hidden cards, each with the locations it may go to
    for L in range(3):
        pool[L] = src.t.hands[loc_seat[L]]
    if in_deal:
        pool[LOC_REST] = hand_empty()
        for i in range(src.di, 108):
            pool[LOC_REST] = hand_add_card(pool[LOC_REST], src.deck[i])
    elif nrest:
        pool[LOC_REST] = src.kitty
    else:
        pool[LOC_REST] = hand_empty()
    # in code order, not location by location: the world drawn from a given stream depends on
    # the hidden cards as a set, never on where they really are (no leak, even by the draws)
    for code in range(54):
        cnt = 0
        for L in range(4):
            cnt += hand_copies(pool[L], code)
        for _k in range(cnt):
            card[n] = code
            allowed[n] = (1 << LOC_REST) if nrest else 0
            for j in range(3):
                if (src.phase < PH_LEAD
                        or not (src.t.void_mask[loc_seat[j]] >> eff_code(src, code)) & 1):
                    allowed[n] |= 1 << j
            n += 1
    # shown and unplayed cards stay with their seat (or its kitty)
    for j in range(3):
        s = loc_seat[j]
        gone = src.t.played_by[s]
        if src.phase == PH_FOLLOW:
            for i in range(src.tr.n):
                if ((src.leader + i) & 3) == s:
                    gone = hand_union(gone, src.tr.plays[i])
        left = src.shown[s]
        while left.one and npin < 16:
            code = lsb(left.one)
            left.one &= left.one - 1
            cnt = hand_copies(src.shown[s], code) - hand_copies(gone, code)
            if cnt <= 0:
                continue
            pin_code[npin] = code
            pin_need[npin] = cnt
            pin_loc[npin] = 1 << j
            if src.t.burier == s and nrest and not in_deal:
                pin_loc[npin] |= 1 << LOC_REST
            npin += 1
    for L in range(4):
        for _k in range(cap[L]):
            slot[nslot] = L
            nslot += 1
    # rejection: a uniform permutation of the hidden cards into the slots, kept when consistent
    for tries in range(1, max_tries + 1):
        shuffle_cards(card, allowed, n, rng)
        ok = slots_allowed(allowed, slot, n)
        if ok:
            for k in range(npin):
                cnt = 0
                for i in range(n):
                    if card[i] == pin_code[k] and (pin_loc[k] >> slot[i]) & 1:
                        cnt += 1
                if cnt < pin_need[k]:
                    ok = 0
                    break
        if ok:
            write_world(src, dst, card, slot, n, loc_seat, rng)
            return tries
    # fallback: pin specific copies, find a consistent deal by bipartite matching (cards to
    # slots), then mix it with random swaps that keep it consistent (a symmetric chain whose
    # stationary law is uniform over the consistent deals with those copies pinned)
    for k in range(npin):
        cnt = pin_need[k]
        for i in range(n):
            if cnt and card[i] == pin_code[k]:
                allowed[i] &= pin_loc[k]
                cnt -= 1
    if not match_slots(n, allowed, slot, nslot, where):
        # no consistent deal (cannot happen for a real game): deal in order
        for i in range(n):
            where[i] = slot[i]
    else:
        for i in range(n):
            where[i] = slot[where[i]]
        for _k in range(200 * n):
            i = rng_below(rng, n)
            j = rng_below(rng, n)
            if where[i] != where[j] and (allowed[i] >> where[j]) & 1 and \
                    (allowed[j] >> where[i]) & 1:
                tmp = where[i]
                where[i] = where[j]
                where[j] = tmp
    write_world(src, dst, card, where, n, loc_seat, rng)
    return 0


cdef void write_world(const game_t* src, game_t* dst, const int* card, const int* loc, int n,
                      const int* loc_seat, rng_t* rng) noexcept nogil:
    """Put the hidden cards where `loc` says: a seat's hand, or the rest (the undealt deck
    while dealing, else the kitty, whose deck positions 100.. follow it)."""
    cdef int i, L, r = src.di if src.phase == PH_DEAL else 100, rest = 0
    for i in range(n):
        if loc[i] == LOC_REST:
            rest = 1
    for L in range(3):
        dst.t.hands[loc_seat[L]] = hand_empty()
    if rest and src.phase != PH_DEAL:
        dst.kitty = hand_empty()
    for i in range(n):
        L = loc[i]
        if L < 3:
            dst.t.hands[loc_seat[L]] = hand_add_card(dst.t.hands[loc_seat[L]], card[i])
        else:
            if src.phase != PH_DEAL:
                dst.kitty = hand_add_card(dst.kitty, card[i])
            dst.deck[r] = <u8>card[i]
            r += 1
    if rest and dst.t.burier >= 0:
        dst.t.buried = dst.kitty
    # the world's own future randomness
    rng_split(rng, &dst.deal_rng)
    rng_split(rng, &dst.bot_rng)


# ---------------------------------------------------------------------------------------------
# Building frozen slots dataclasses fast (an Observation at every decision of a Python bot)

MAX_TRIES_ = MAX_TRIES


def fill_slots(cls, tuple slots, tuple values):
    """``cls`` with slot ``slots[i]`` (its member descriptor) set to ``values[i]``, without
    calling ``cls.__init__``: for frozen slots dataclasses whose __init__ only assigns the
    fields, where it is the same object, built several times faster."""
    cdef object o = cls.__new__(cls)
    cdef Py_ssize_t i
    if len(slots) != len(values):
        raise ValueError(f"{len(values)} values for {len(slots)} slots")
    for i in range(len(slots)):
        d = slots[i]
        if Py_TYPE(d).tp_descr_set == NULL:
            raise TypeError(f"{d!r} is not a slot descriptor")
        Py_TYPE(d).tp_descr_set(d, o, values[i])
    return o


# ---------------------------------------------------------------------------------------------
# The Python face

cdef class GameCore:
    """A game_t with its one-row batch (fields in _state.pxd). Built by fastsheng.engine.game;
    not a public API."""

    def __cinit__(self):
        self.trace = <short*>malloc(TRACE_CAP * sizeof(short))
        if self.trace == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.trace)

    cdef void _wire(self):
        """Point the copied structs at this object's own members."""
        self.g.b = &self.b
        self.g.master = &self.master
        self.g.t.rng = &self.g.bot_rng
        self.g.row = &self.row
        self.b.hands = &self.row
        self.b.hands_cap = 1
        self.b.trace = self.trace
        self.b.trace_cap = TRACE_CAP
        self.b.trace_at = NULL
        self.b.tricks = NULL
        self.b.codes = NULL
        self.b.matches = NULL

    cdef void _reset(self, rules_fields, bots, int external):
        cdef int i
        memset(&self.g, 0, sizeof(game_t))
        memset(&self.b, 0, sizeof(batch_t))
        memset(&self.row, 0, sizeof(hand_row_t))
        self.b.r = rules_fields
        for i in range(4):
            self.b.bots[i] = bots[i]
            self.g.t.bots[i] = bots[i]
        self.b.size = 1
        self.b.check = 1
        self._wire()
        self.g.external = external

    def start_hand(self, rules_fields, bots, int external, state, long index, int level,
                   unsigned long long id_base, int first_hand):
        """Hand `index` of the batch whose stream is `state`, exactly as run_batch deals it."""
        cdef int _k
        cdef rng_t skip
        cdef long k
        self._reset(rules_fields, bots, external)
        for k in range(4):
            self.master.s[k] = state[k]
        for _k in range(index):
            rng_split(&self.master, &skip)
        self.b.level = level
        self.b.first_hand = first_hand
        self.b.id_base = id_base
        self.b.trace_item = index
        batch_hand_begin(&self.g, index)
        self.g.row.hand_id = self.g.hand_id

    def start_position(self, rules_fields, bots, int external, state, int level, int trump,
                       int dealer, hands, kitty, unsigned long long hand_id):
        """A hand whose kitty is buried and whose first lead is due: trump and hands given."""
        cdef int s, k
        self._reset(rules_fields, bots, external)
        for k in range(4):
            self.master.s[k] = state[k]
        rng_split(&self.master, &self.g.deal_rng)
        rng_split(&self.master, &self.g.bot_rng)
        self.g.hand_id = hand_id
        self.g.tracing = 1
        self.g.level = level
        self.g.first = dealer
        self.g.t.level = level
        self.g.t.dealer = dealer
        self.g.t.first_hand = 0
        self.g.trump = trump
        self.g.trump_set = SET_DECLARED
        self.g.final_caller = 255
        self.row.declarer = 255
        decl_reset(&self.g.decl)
        for s in range(4):
            self.g.t.hands[s] = to_hand(hands[s])
            self.g.dealt[s] = self.g.t.hands[s]
        self.g.kitty = to_hand(kitty)
        self.g.t.buried = self.g.kitty
        self.g.t.burier = dealer
        ctx_init(&self.g.t.ctx, &self.b.r, level, trump)
        bots_prepare(&self.g.t)
        self.g.phase = PH_PLAYSTART
        self.row.hand_id = hand_id

    def copy(self):
        cdef GameCore c = GameCore.__new__(GameCore)
        memcpy(&c.g, &self.g, sizeof(game_t))
        memcpy(&c.b, &self.b, sizeof(batch_t))
        memcpy(&c.master, &self.master, sizeof(rng_t))
        memcpy(&c.row, self.g.row, sizeof(hand_row_t))
        memcpy(c.trace, self.trace, self.b.trace_len * sizeof(short))
        c._wire()
        return c

    def public_state(self, int seat):
        """What `seat` may know, sealed: the bytes of this game with every hidden card laid out
        canonically and every trace of the real deal removed (fastsheng._worlds.public_scrub),
        from which ``GameCore.world`` deals consistent worlds."""
        cdef int n = self.b.trace_len
        cdef Py_ssize_t size = PUB_HEADER + sizeof(game_t) + sizeof(batch_t) + \
            sizeof(hand_row_t) + n * sizeof(short)
        cdef bytes out = PyBytes_FromStringAndSize(NULL, size)
        cdef char* q = PyBytes_AS_STRING(out)
        cdef game_t* p = <game_t*>(q + PUB_HEADER)
        cdef batch_t* b = <batch_t*>(q + PUB_HEADER + sizeof(game_t))
        cdef hand_row_t* row = <hand_row_t*>(q + PUB_HEADER + sizeof(game_t) + sizeof(batch_t))
        cdef short* tr = <short*>(q + PUB_HEADER + sizeof(game_t) + sizeof(batch_t)
                                  + sizeof(hand_row_t))
        memset(q, 0, PUB_HEADER)
        (<int*>q)[0] = PUB_MAGIC
        (<int*>q)[1] = seat
        (<int*>q)[2] = n
        memcpy(p, &self.g, sizeof(game_t))
        memcpy(b, &self.b, sizeof(batch_t))
        memcpy(row, self.g.row, sizeof(hand_row_t))
        memcpy(tr, self.trace, n * sizeof(short))
        b.hands = NULL
        b.matches = NULL
        b.tricks = NULL
        b.codes = NULL
        b.trace = NULL
        b.trace_at = NULL
        b.t_deal = 0
        b.t_kitty = 0
        b.t_tricks = 0
        public_scrub(p, row, tr, n, seat)
        return out

    @staticmethod
    def world(bytes blob, state, int max_tries):
        """A world dealt from a public state: (core, exact), exact when uniform."""
        cdef GameCore c = GameCore.__new__(GameCore)
        cdef const char* q = PyBytes_AS_STRING(blob)
        cdef Py_ssize_t base = PUB_HEADER + sizeof(game_t) + sizeof(batch_t) + sizeof(hand_row_t)
        cdef int seat, n, k, exact
        cdef rng_t r
        cdef game_t pub
        cdef hist_t hist
        if len(blob) < base or (<const int*>q)[0] != PUB_MAGIC:
            raise ValueError("not a public state of fastsheng.Game")
        seat = (<const int*>q)[1]
        n = (<const int*>q)[2]
        if not 0 <= seat < 4 or not 0 <= n <= TRACE_CAP or len(blob) != base + n * sizeof(short):
            raise ValueError("not a public state of fastsheng.Game")
        for k in range(4):
            r.s[k] = state[k]
        memcpy(&pub, q + PUB_HEADER, sizeof(game_t))
        memcpy(&c.b, q + PUB_HEADER + sizeof(game_t), sizeof(batch_t))
        memcpy(&c.row, q + PUB_HEADER + sizeof(game_t) + sizeof(batch_t), sizeof(hand_row_t))
        memcpy(c.trace, q + base, n * sizeof(short))
        c.b.trace_len = n
        with nogil:
            hist_parse(c.trace, n, &hist)
            exact = world_deal(&pub, &c.g, seat, &r, max_tries, &hist)
        c._wire()
        with nogil:
            rng_split(&r, &c.master)
            world_history(&c.g, seat, &r, &hist)
        return c, bool(exact)

    # --- running and deciding ---

    def run(self):
        """Play until an external seat must decide (True) or the hand is over (False)."""
        cdef int rc
        with nogil:
            rc = game_run(&self.g)
        if rc == 0:
            self.row.hand_id = self.g.hand_id
        return rc == 1

    def bot_stream(self):
        """The 4 words of the bots' stream (tests: two worlds that differ only in what a seat
        cannot see must decide alike from the same stream)."""
        return [self.g.bot_rng.s[k] for k in range(4)]

    def set_bot_stream(self, state):
        cdef int k
        for k in range(4):
            self.g.bot_rng.s[k] = state[k]

    def decide_show(self, int choice):
        self.g.dec_choice = choice
        self.g.dec_ready = 1

    def decide_cards(self, codes):
        self.g.dec_cards = to_hand(codes)
        self.g.dec_ready = 1

    def bot_decision(self, lineup):
        """The decision seat 0 of `lineup` (a fastsheng.bots.Lineup) takes for the
        pending seat (drawn from the bot stream), left ready to apply. Returns the show index
        (-1 pass) or the card codes."""
        cdef const lineup_t* L = lineup_of(lineup)
        bot_decide(&self.g, L.rows, &L.seats[0])
        if self.g.pend_kind == DEC_DECLARE:
            return self.g.dec_choice
        return from_hand(self.g.dec_cards)

    # --- what is pending ---

    @property
    def phase(self):
        return PHASES.get(self.g.phase, "declare")

    @property
    def pending(self):
        """(decision, seat) or (None, -1) when the hand is over."""
        if self.g.phase == PH_DONE:
            return None, -1
        return DECISIONS[self.g.pend_kind], self.g.pend_seat

    def obs_state(self, int seat):
        """What fastsheng.Game.observation reads from the core, in one call (it runs at every
        decision of a Python bot): (phase, decision, to_act, level, trump (-1 while calls are
        open), standing call (seat, trump) or None, dealer, first_hand, hand, kitty or None,
        current trick ((seat, cards), ...), defender points, hand sizes, voids, trace length,
        pair-voids, the trick in progress's attempted lead, whether it failed, the seats barred
        from winning it by trumping)."""
        cdef int i, s, open_calls = self.g.phase == PH_DEAL or self.g.phase == PH_CLOSE
        cdef object standing = None, kitty = None, current = (), attempt = (), barred = ()
        cdef bint failed = False
        if open_calls and 0 <= self.g.decl.seat < 4:
            standing = (self.g.decl.seat, decl_trump(&self.g.decl))
        if kitty_known(&self.g, seat):
            kitty = tuple(from_hand(self.g.kitty))
        if self.g.phase == PH_FOLLOW:
            current = tuple([((self.g.leader + i) & 3, tuple(from_hand(self.g.tr.plays[i])))
                             for i in range(self.g.tr.n)])
            attempt = tuple(from_hand(self.g.attempt))
            failed = bool(self.g.failed)
            barred = tuple([(self.g.tr.leader + i) & 3 for i in range(4)
                            if (self.g.tr.barred >> i) & 1])
        done = self.g.phase == PH_DONE
        return (
            PHASES.get(self.g.phase, "declare"),
            None if done else DECISIONS[self.g.pend_kind],
            -1 if done else self.g.pend_seat,
            self.g.level,
            -1 if open_calls else self.g.trump,
            standing,
            self.g.t.dealer,
            bool(self.g.t.first_hand),
            tuple(from_hand(self.g.t.hands[seat])),
            kitty,
            current,
            self.g.t.def_points,
            tuple([hand_count(self.g.t.hands[s]) for s in range(4)]),
            tuple([self.g.t.void_mask[s] for s in range(4)]),
            self.b.trace_len,
            tuple([self.g.t.nopair_mask[s] for s in range(4)]),
            attempt,
            failed,
            barred,
        )

    def show_options(self):
        """The shows offered: (show code, action, card codes) each."""
        cdef int i, kind, denom
        out = []
        for i in range(self.g.nopt):
            kind = show_code_kind(self.g.opts[i])
            denom = show_code_denom(self.g.opts[i])
            out.append((self.g.opts[i], self.g.opt_acts[i],
                        from_hand(show_hand(&self.b.r, self.g.t.level, kind, denom))))
        return out

    def hand(self, int seat):
        return from_hand(self.g.t.hands[seat])

    def hand_size(self, int seat):
        return hand_count(self.g.t.hands[seat])

    def bury_pool(self):
        """The cards the pending burier chooses from (its hand and the kitty)."""
        return from_hand(hand_union(self.g.t.hands[self.g.bury_seat], self.g.kitty))

    def kitty(self):
        return from_hand(self.g.kitty)

    def kitty_known(self, int seat):
        return bool(kitty_known(&self.g, seat))

    def shown(self, int seat):
        return from_hand(self.g.shown[seat])

    @property
    def burier(self):
        return self.g.t.burier

    @property
    def dealer(self):
        return self.g.t.dealer

    @property
    def first_hand(self):
        return bool(self.g.t.first_hand)

    @property
    def first(self):
        return self.g.first

    @property
    def level(self):
        return self.g.level

    @property
    def trump(self):
        """0..3, 4 (no trump), or -1 while calls are open (the standing call's trump then)."""
        if self.g.phase in (PH_DEAL, PH_CLOSE):
            return -1
        return self.g.trump

    @property
    def standing_trump(self):
        return decl_trump(&self.g.decl)

    @property
    def standing_seat(self):
        return self.g.decl.seat

    @property
    def defender_points(self):
        return self.g.t.def_points

    @property
    def tricks_done(self):
        return self.g.t.tricks_done

    @property
    def hand_id(self):
        return self.g.hand_id

    def void_mask(self, int seat):
        return self.g.t.void_mask[seat]

    def trick(self):
        """The trick in progress: (leader, [cards of each play so far]); plays[0] is what was
        actually led."""
        cdef int i
        if self.g.phase != PH_FOLLOW:
            return -1, []
        return self.g.leader, [from_hand(self.g.tr.plays[i]) for i in range(self.g.tr.n)]

    def follow_need(self):
        return self.g.tr.shape.ncards

    def eff_of(self, int code):
        return self.g.t.ctx.eff[code]

    def effs(self):
        return [self.g.t.ctx.eff[i] for i in range(54)]

    # --- legality ---

    def lead_kind(self, codes):
        """Kind of a lead of these cards by the leader (-1: not a lead: two suits, or cards not
        held)."""
        cdef shape_t s
        cdef hand_t h = to_hand(codes)
        if not hand_contains(self.g.t.hands[self.g.leader], h):
            return -1
        if lead_shape(&self.g.t.ctx, h, &s) < 0:
            return -1
        return s.kind

    def follow_ok(self, codes):
        cdef int seat = self.g.pend_seat
        cdef hand_t h = to_hand(codes)
        if hand_count(h) != self.g.tr.shape.ncards or not hand_contains(self.g.t.hands[seat], h):
            return False
        return bool(follow_ok(&self.g.t.ctx, &self.g.tr.shape, self.g.t.hands[seat], h))

    def follows(self, must, int limit):
        """Legal follows of the pending seat containing `must`: a list, or None when there are
        more than `limit`."""
        cdef hand_t out[257]
        cdef hand_t m = to_hand(must)
        cdef int n, i
        if limit > 256:
            limit = 256
        n = enum_follows(&self.g, self.g.t.hands[self.g.pend_seat], m, out, limit)
        if n > limit:
            return None
        return [from_hand(out[i]) for i in range(n)]

    def follow_cards(self, must):
        """Codes c such that some legal follow contains `must` + c."""
        cdef hand_t m = to_hand(must), h = self.g.t.hands[self.g.pend_seat]
        cdef hand_t rest = hand_minus(h, m) if hand_contains(h, m) else hand_empty()
        cdef u64 bits = rest.one
        cdef int code
        out = []
        while bits:
            code = lsb(bits)
            bits &= bits - 1
            if enum_follows(&self.g, h, hand_add_card(m, code), NULL, 0) > 0:
                out.append(code)
        return out

    def row_bytes(self):
        return (<char*>self.g.row)[:sizeof(hand_row_t)]

    def trace_array(self):
        import numpy as np
        cdef short[::1] v
        a = np.empty(self.b.trace_len, dtype=np.int16)
        if self.b.trace_len:
            v = a
            memcpy(&v[0], self.trace, self.b.trace_len * sizeof(short))
        return a

    @property
    def trace_len(self):
        return self.b.trace_len

    @property
    def errors(self):
        return self.b.errors

    # --- leads (hot in the step API: kept in C) ---

    def lead_count(self, int seat):
        """How many different leads `seat` has: every non-empty set of cards of one suit."""
        cdef hand_t h = self.g.t.hands[seat], he
        cdef long total = 0, p
        cdef int e
        for e in range(5):
            he = hand_mask(h, self.g.t.ctx.suit_bb[e])
            if he.one:
                p = (<long>1 << popcount(he.one & ~he.two)) * pow3(popcount(he.two))
                total += p - 1
        return total

    def leads(self, int seat):
        """Every lead of `seat` (only call when lead_count is small)."""
        cdef hand_t h = self.g.t.hands[seat], he
        cdef int e
        out = []
        for e in range(5):
            he = hand_mask(h, self.g.t.ctx.suit_bb[e])
            if he.one:
                combos = [[]]
                for c in sorted(set(from_hand(he))):
                    n = hand_copies(he, c)
                    combos = [p + [c] * k for p in combos for k in range(n + 1)]
                out.extend(p for p in combos if p)
        out.sort()
        return out

    def lead_cards(self, int seat, picked):
        """Codes that can join `picked` in a lead: any card held (beyond the picked copies) of
        the picked cards' effective suit (any suit when nothing is picked)."""
        cdef hand_t h = self.g.t.hands[seat], p = to_hand(picked)
        cdef hand_t rest
        if not hand_contains(h, p):
            return []
        rest = hand_minus(h, p)
        if p.one:
            rest = hand_mask(rest, self.g.t.ctx.suit_bb[self.g.t.ctx.eff[lsb(p.one)]])
        return sorted(set(from_hand(rest)))


cdef inline long pow3(int n) noexcept:
    cdef long r = 1
    cdef int _i
    for _i in range(n):
        r *= 3
    return r


# ---------------------------------------------------------------------------------------------
# A batch with Python bots at some seats (fastsheng.engine.pybatch): run_batch's loop, driven from
# Python one hand (or match) at a time, writing the same rows into the caller's arrays.

cdef class BatchCore(GameCore):
    """The batch's stream, rows and trick buffers are the caller's numpy arrays (kept alive
    here); each hand's trace restarts at 0 (the Python bots' observations read it)."""
    cdef object _keep
    cdef rng_t bstream
    cdef long hands_start

    def begin_batch(self, plan, lineup, int external, hands, matches, tricks, codes):
        """`plan`: BatchPlan.core_fields(); `lineup`: the fastsheng.bots.Lineup that plays it
        (kept alive here); the seats in `external` are the Python bots'."""
        cdef batch_plan_t p = plan
        cdef const lineup_t* L = lineup_of(lineup)
        cdef int k
        memset(&self.g, 0, sizeof(game_t))
        memset(&self.row, 0, sizeof(hand_row_t))
        batch_fill(&self.b, &p, L, hands, matches, tricks, codes, None, None)
        self._keep = (hands, matches, tricks, codes, lineup)
        self.g.t.rows = self.b.rows
        for k in range(4):
            self.g.t.bots[k] = self.b.bots[k]
            self.bstream.s[k] = p.state[k]
        self.b.check = 1       # a Python bot's action is verified by the core (BotError)
        self.b.trace_item = TRACE_ALL  # every hand traced into this core's buffer, from 0
        self.b.trace = self.trace
        self.b.trace_cap = TRACE_CAP
        self.g.b = &self.b
        self.g.master = &self.bstream
        self.g.t.rng = &self.g.bot_rng
        self.g.row = &self.row
        self.g.external = external

    def begin_hand(self, long i):
        self.b.trace_len = 0
        batch_hand_begin(&self.g, i)

    def end_hand(self):
        self.b.hands[self.b.nhands].hand_id = self.g.hand_id
        self.b.nhands += 1

    def begin_match(self, long m):
        match_begin(&self.g, m, &self.b.matches[m])

    def begin_match_hand(self):
        """False when the hand rows ran out."""
        self.b.trace_len = 0
        return match_hand_begin(&self.g) == 0

    def end_match_hand(self):
        """True when the match is over."""
        return match_hand_end(&self.g) == 1

    def counts(self):
        return {"nhands": self.b.nhands, "ntricks": self.b.ntricks, "ncodes": self.b.ncodes,
                "overflow": self.b.overflow, "errors": self.b.errors}
