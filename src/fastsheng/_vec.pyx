# cython: language_level=3
"""Many hands stepped at once in C (fastsheng.vec): N games, one decision each per call.

Each env is the very game_t the simulator plays (fastsheng._game), stopped at the decisions of
the seats the caller controls. One `step` applies one action per env (the PettingZoo action ids:
a card, done, pass, a call), runs every env to its next controlled decision with the GIL
released (over worker threads when asked), and writes the acting seat, the legal-action mask,
the observation of the acting seat (the layout of Observation.to_tensor, as uint8 counts or its
exact float32 values), the rewards of a finished hand and its row into the caller's arrays.

A bot seat plays inside C (the line-up's seat, as simulate_hands plays it); a controlled seat's
calls, burial or 炒底 may be handed to a bot of their own (`bot_decide` with that line-up's
seat). A finished hand is followed by the env's next hand (its stream's next split), so a run
is a pure function of the streams and the actions. fastsheng.vec is the Python face; nothing
here raises on the nogil paths (a bad action is found before any is applied).

Its parts: fastsheng._vec_obs writes an observation, fastsheng._vec_actions the masks (and
applies an action id to the game), fastsheng._thread_pool shares a step's envs among threads.
"""

# POPCNT for the inline bit counts (as fastsheng._game): before every cimport
cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
    #pragma GCC target("popcnt")
    #endif
    """

from cpython.bytes cimport PyBytes_AS_STRING
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset

from fastsheng._bitboard cimport hand_add_card, hand_count, hand_empty, hand_t, u8
from fastsheng._core cimport from_hand
from fastsheng._game cimport (
    DEC_BURY, DEC_DECLARE, DEC_LEAD, EV_BURY, EV_CHAODI, EV_DEAL, EV_RESULT, EV_SHOW, EV_TRICK,
    EV_TRUMP, PH_CHAODI, PH_DONE, batch_fill, batch_hand_begin, batch_plan_t, batch_t, bot_decide,
    game_run, game_t, hand_row_t, lineup_of, lineup_t,
)
from fastsheng._rng cimport rng_below, rng_split, rng_t
from fastsheng._thread_pool cimport POOL_MAX_THREADS, pool_close, pool_open, pool_run, pool_t
from fastsheng._vec_actions cimport (
    A_DONE, A_PASS, A_SHOW, N_ACT, action_apply, legal_fill, legal_has, legal_t,
)
from fastsheng._vec_obs cimport (
    N_ROWS, OBS, P_ATTEMPT, P_HAND, P_KITTY, P_NOPAIRS, P_PICKED, P_PLAYED, P_POINTS, P_SHOWN,
    P_TRICK, P_TRUMP, S_BARRED, S_DEALER, S_DECISION, S_FAILED, S_LEVEL, S_PHASE, S_POINTS,
    S_SIZES, S_TRICKS, S_VOIDS, obs_encode, obs_to_float, phase_index,
)
from fastsheng._worlds cimport hist_parse, hist_t, world_deal, world_history

cdef enum:
    CHUNK = 8                # envs a thread takes at a time (a step's work is shared out)
    TRACE_CAP = 1 << 16      # shorts of one hand's events (as fastsheng._state: many redeals fit)
    PUB_HEADER = 16          # a sealed public state's header (fastsheng._state.public_state)
    PUB_MAGIC = 0x46535731
    # env_t.bad: why an env stopped (fastsheng.vec raises on it)
    BAD_NONE = 0
    BAD_TRACE = 1            # a hand's events overflowed the trace buffer
    BAD_LOOP = 2             # hands ended without a controlled decision
    BAD_ERRORS = 3           # the C loop met an illegal play (a bot's bug)

# One env: a game and everything the step needs around it.
cdef struct env_t:
    game_t g
    batch_t b
    rng_t master             # the env's stream: one split per hand (SeedSequence(seed, (j,)))
    rng_t act_rng            # random_actions' stream (no part of the game)
    hand_row_t row
    short* trace             # this hand's events (a slice of VecCore.traces)
    int parsed               # events read so far
    hand_t picked            # the card-by-card play being built
    int npicked
    hand_t kept[4]           # each seat's call cards as an Observation keeps them (before plays)
    long index               # the hand's index in the env's stream
    int done                 # the hand is over and no next hand follows (autoreset off)
    int bad                  # BAD_*
    legal_t legal            # the pending decision's legal action ids (what a step checks)


# What every env of a core shares (read-only while stepping).
cdef struct shared_t:
    int controlled           # bit s: the caller decides for seat s
    int autoreset
    const lineup_t* auto_calls    # a controlled seat's calls, 炒底 and burial by a bot (NULL: not)
    const lineup_t* auto_chaodi
    const lineup_t* auto_burial


# Where a step writes (the caller's arrays; NULL: not wanted).
cdef struct out_t:
    u8* obs                  # (n, OBS) uint8, or
    float* obsf              # (n, OBS) float32
    u8* mask                 # (n, N_ACT)
    signed char* seat        # (n,) the acting seat (-1: none)
    signed char* decision    # (n,) 0 declare, 1 bury, 2 lead, 3 follow (-1: none)
    signed char* phase       # (n,) 0 declare, 1 bury, 2 chaodi, 3 play, 4 done
    float* reward            # (n, 4) per seat, in levels
    u8* term                 # (n,) a hand ended in this step
    hand_row_t* rows         # (n,) its row
    u8* final_obs            # (n, OBS) uint8 or
    float* final_obsf        # (n, OBS) float32: what the seat that ended it may know at the end
    unsigned long long* hand_id   # (n,) the hand now in play


# ---------------------------------------------------------------------------------------------
# The trace: each seat's call cards (the only public fact the game struct does not keep as an
# Observation reads it: the last show of a seat replaces the one before unless it is shorter,
# which empties it; a new deal empties them all)

cdef void parse_trace(env_t* e) noexcept nogil:
    cdef const short* t = e.trace
    cdef int i = e.parsed, n = e.b.trace_len, ev, seat, m, k, _k
    cdef hand_t h
    while i < n:
        ev = t[i]
        i += 1
        if ev == EV_DEAL:
            for k in range(4):
                e.kept[k] = hand_empty()
            i += 109
        elif ev == EV_SHOW or ev == EV_CHAODI:
            seat = t[i]
            m = t[i + 3]
            i += 4
            h = hand_empty()
            for k in range(m):
                h = hand_add_card(h, t[i + k])
            i += m
            if 0 <= seat < 4:
                e.kept[seat] = h if hand_count(h) >= hand_count(e.kept[seat]) else hand_empty()
        elif ev == EV_TRUMP:
            i += 4
        elif ev == EV_BURY:
            i += 1
            i += 1 + t[i]
        elif ev == EV_TRICK:
            i += 1
            i += 1 + t[i]            # the attempted lead
            i += 1                   # failed
            for _k in range(4):
                i += 1 + t[i]
            i += 2
        elif ev == EV_RESULT:
            i += 8
        # EV_REDEAL, EV_END: no payload
    e.parsed = i
    if e.b.overflow:
        e.bad = BAD_TRACE


# ---------------------------------------------------------------------------------------------
# Hands and decisions

cdef inline void encode(const env_t* e, int seat, u8* o) noexcept nogil:
    """What `seat` may know in env e now (fastsheng._vec_obs), in uint8 counts."""
    obs_encode(&e.g, e.picked, e.kept, seat, o)


cdef void hand_start(env_t* e, int controlled) noexcept nogil:
    """Begin hand e.index of the env's stream on a zeroed game (as fastsheng.Game deals it)."""
    cdef int s
    memset(&e.g, 0, sizeof(game_t))
    memset(&e.row, 0, sizeof(hand_row_t))
    e.g.b = &e.b
    e.g.master = &e.master
    e.g.t.rng = &e.g.bot_rng
    e.g.t.rows = e.b.rows
    e.g.row = &e.row
    e.g.external = controlled
    for s in range(4):
        e.g.t.bots[s] = e.b.bots[s]
        e.kept[s] = hand_empty()
    e.b.hands = &e.row
    e.b.hands_cap = 1
    e.b.nhands = 0
    e.b.trace_len = 0
    e.b.overflow = 0
    e.parsed = 0
    e.picked = hand_empty()
    e.npicked = 0
    e.done = 0
    batch_hand_begin(&e.g, e.index)


cdef inline const lineup_t* auto_of(const shared_t* sh, const game_t* g) noexcept nogil:
    """The line-up that takes a controlled seat's pending decision (NULL: the caller)."""
    if g.pend_kind == DEC_DECLARE:
        return sh.auto_chaodi if g.phase == PH_CHAODI else sh.auto_calls
    if g.pend_kind == DEC_BURY:
        return sh.auto_burial
    return NULL


cdef void hand_end(env_t* e, long j, int actor, const out_t* o) noexcept nogil:
    """The finished hand's rewards (levels, zero-sum per team), row and the final observation
    of `actor`, the seat whose action ended it (-1: none)."""
    cdef float* reward = o.reward + 4 * j if o.reward != NULL else NULL
    cdef u8 scratch[OBS]
    cdef const hand_row_t* r = &e.row
    cdef int s, dealer_team = r.dealer & 1
    cdef int winners = dealer_team if r.winner == 0 else 1 - dealer_team
    cdef float gain = r.levels
    e.row.hand_id = e.g.hand_id
    if reward != NULL:
        for s in range(4):
            reward[s] += gain if (s & 1) == winners else -gain
    if o.term != NULL:
        o.term[j] = 1
    if o.rows != NULL:
        memcpy(o.rows + j, r, sizeof(hand_row_t))
    if actor >= 0 and o.final_obs != NULL:
        encode(e, actor, o.final_obs + j * OBS)
    elif actor >= 0 and o.final_obsf != NULL:
        encode(e, actor, scratch)
        obs_to_float(scratch, o.final_obsf + j * OBS)


cdef void advance(const shared_t* sh, env_t* e, long j, int actor, const out_t* o) noexcept nogil:
    """Run to the next decision of a controlled seat the caller takes (bot seats and the
    decisions handed to a bot play in C); a finished hand is scored and, with autoreset, the
    env's next hand begins."""
    cdef const lineup_t* La
    cdef int ended = 0
    while True:
        if game_run(&e.g):
            parse_trace(e)
            La = auto_of(sh, &e.g)
            if La == NULL:
                return
            bot_decide(&e.g, La.rows, &La.seats[e.g.pend_seat])
            continue
        parse_trace(e)
        if e.b.errors:
            e.bad = BAD_ERRORS
        hand_end(e, j, actor, o)
        if not sh.autoreset:
            e.done = 1
            return
        ended += 1
        if ended > 1:     # a hand without a controlled decision: cannot happen (seats play)
            e.bad = BAD_LOOP
            return
        e.index += 1
        hand_start(e, sh.controlled)


cdef void write_out(env_t* e, long j, const out_t* o) noexcept nogil:
    """The acting seat, its mask and observation, the decision and phase of env j."""
    cdef const game_t* g = &e.g
    cdef int seat = -1 if (g.phase == PH_DONE or e.done) else g.pend_seat
    cdef u8 scratch[OBS]
    if o.seat != NULL:
        o.seat[j] = seat
    if o.decision != NULL:
        o.decision[j] = -1 if seat < 0 else g.pend_kind - DEC_DECLARE
    if o.phase != NULL:
        o.phase[j] = phase_index(g.phase)
    if o.hand_id != NULL:
        o.hand_id[j] = g.hand_id
    legal_fill(&e.legal, g, e.picked, e.npicked, e.done)
    if o.mask != NULL:
        memcpy(o.mask + j * N_ACT, e.legal.mask, N_ACT)
    if seat < 0:
        seat = 0       # a finished hand (autoreset off): the terminal observation of seat 0
    if o.obs != NULL:
        encode(e, seat, o.obs + j * OBS)
    elif o.obsf != NULL:
        encode(e, seat, scratch)
        obs_to_float(scratch, o.obsf + j * OBS)


cdef void env_step(const shared_t* sh, env_t* e, long j, int a, const out_t* o) noexcept nogil:
    cdef int actor = e.g.pend_seat
    clear_out(j, o)
    if action_apply(&e.g, &e.picked, &e.npicked, a):
        advance(sh, e, j, actor, o)
    write_out(e, j, o)


cdef inline void clear_out(long j, const out_t* o) noexcept nogil:
    if o.reward != NULL:
        memset(o.reward + 4 * j, 0, 4 * sizeof(float))
    if o.term != NULL:
        o.term[j] = 0


# ---------------------------------------------------------------------------------------------
# A step's envs shared out in chunks among the threads (fastsheng._thread_pool)

cdef struct work_t:
    const shared_t* sh
    env_t* envs
    const long long* actions
    const out_t* out


cdef void step_envs(void* ctx, long lo, long hi) noexcept nogil:
    """Envs lo..hi-1 of a step, each given its action."""
    cdef const work_t* w = <const work_t*>ctx
    cdef long j
    for j in range(lo, hi):
        env_step(w.sh, &w.envs[j], j, <int>w.actions[j], w.out)


# ---------------------------------------------------------------------------------------------
# The Python face (fastsheng.vec validates its arguments and owns the arrays)

cdef class VecCore:
    """N envs of one rules set and line-up. Built by fastsheng.vec.VecEnv (not a public API):
    `plan` a BatchPlan.core_fields() dict (rules, level, first_hand), `lineup` the
    fastsheng.bots.Lineup of the four seats (a controlled seat's entry is never asked),
    `controlled` the caller's seats as a bit mask, `auto` three line-ups or None (the calls,
    炒底 and burial of controlled seats), `threads` the threads a step shares its envs among."""
    cdef env_t* envs
    cdef short* traces
    cdef readonly long n
    cdef shared_t sh
    cdef int threads
    cdef pool_t* pool
    cdef object _keep
    cdef out_t out
    cdef object _out_keep

    def __cinit__(self, long n, plan, lineup, int controlled, auto, int autoreset=1,
                  int threads=1):
        cdef batch_plan_t p = plan
        cdef const lineup_t* L = lineup_of(lineup)
        cdef long j
        cdef env_t* e
        if n <= 0:
            raise ValueError(f"n must be a positive number of envs, not {n}")
        if not 0 < controlled < 16:
            raise ValueError("at least one seat must be controlled")
        calls, chaodi, burial = auto
        self.sh.controlled = controlled
        self.sh.autoreset = autoreset
        self.sh.auto_calls = lineup_of(calls) if calls is not None else NULL
        self.sh.auto_chaodi = lineup_of(chaodi) if chaodi is not None else NULL
        self.sh.auto_burial = lineup_of(burial) if burial is not None else NULL
        self._keep = (lineup, calls, chaodi, burial)
        self.threads = threads if 0 < threads <= POOL_MAX_THREADS else 1
        if self.threads > 1:
            self.pool = pool_open(self.threads - 1)
            if self.pool == NULL:
                raise MemoryError()
        self.n = n
        self.envs = <env_t*>calloc(n, sizeof(env_t))
        # one block for every env's events: only the pages a hand writes are ever touched
        self.traces = <short*>calloc(n * TRACE_CAP, sizeof(short))
        if self.envs == NULL or self.traces == NULL:
            raise MemoryError()
        for j in range(n):
            e = &self.envs[j]
            batch_fill(&e.b, &p, L, None, None, None, None, None, None)
            e.trace = self.traces + j * TRACE_CAP
            e.b.trace = e.trace
            e.b.trace_cap = TRACE_CAP
            e.b.trace_at = NULL
            e.done = 1
        memset(&self.out, 0, sizeof(out_t))

    def __dealloc__(self):
        pool_close(self.pool)
        free(self.envs)
        free(self.traces)

    @staticmethod
    def sizes():
        """sizeof of an env and of a hand row (fastsheng.vec checks HAND_DTYPE against it)."""
        return {"env": sizeof(env_t), "hand_row": sizeof(hand_row_t), "obs": OBS}

    def bind(self, obs=None, obsf=None, mask=None, seat=None, decision=None, phase=None,
             reward=None, term=None, rows=None, hand_id=None, final_obs=None, final_obsf=None):
        """Where step, reset and observe write: C-contiguous arrays of the right shapes and
        dtypes (fastsheng.vec allocates them), kept alive here."""
        cdef out_t o
        memset(&o, 0, sizeof(out_t))
        o.obs = <u8*>_addr(obs, self.n * OBS)
        o.obsf = <float*>_addr(obsf, self.n * OBS * sizeof(float))
        o.mask = <u8*>_addr(mask, self.n * N_ACT)
        o.seat = <signed char*>_addr(seat, self.n)
        o.decision = <signed char*>_addr(decision, self.n)
        o.phase = <signed char*>_addr(phase, self.n)
        o.reward = <float*>_addr(reward, self.n * 4 * sizeof(float))
        o.term = <u8*>_addr(term, self.n)
        o.rows = <hand_row_t*>_addr(rows, self.n * sizeof(hand_row_t))
        o.hand_id = <unsigned long long*>_addr(hand_id, self.n * 8)
        o.final_obs = <u8*>_addr(final_obs, self.n * OBS)
        o.final_obsf = <float*>_addr(final_obsf, self.n * OBS * sizeof(float))
        self.out = o
        self._out_keep = (obs, obsf, mask, seat, decision, phase, reward, term, rows, hand_id,
                          final_obs, final_obsf)

    def reset_env(self, long j, state, long index, unsigned long long id_base, act_state):
        """Env j starts hand `index` of the stream `state` (4 words: its hands are the
        stream's splits, as a simulator batch's), numbered id_base + index, and runs to its
        first controlled decision (its outputs written). `act_state`: random_actions'
        stream."""
        cdef env_t* e
        cdef rng_t skip
        cdef long k, _k
        if not 0 <= j < self.n:
            raise IndexError(f"env {j} is not in 0..{self.n - 1}")
        e = &self.envs[j]
        for k in range(4):
            e.master.s[k] = state[k]
            e.act_rng.s[k] = act_state[k]
        with nogil:
            for _k in range(index):
                rng_split(&e.master, &skip)
        e.index = index
        e.b.id_base = id_base
        e.b.errors = 0
        e.bad = BAD_NONE
        with nogil:
            hand_start(e, self.sh.controlled)
            clear_out(j, &self.out)
            advance(&self.sh, e, j, -1, &self.out)
            write_out(e, j, &self.out)
        self._check(j, j + 1)

    def first_illegal(self, const long long[::1] actions):
        """The first env whose action is not legal now (-1: none). Nothing is applied."""
        cdef long j, bad = -1
        if actions.shape[0] != self.n:
            raise ValueError(f"{actions.shape[0]} actions for {self.n} envs")
        with nogil:
            for j in range(self.n):
                if not legal_has(&self.envs[j].legal, actions[j]):
                    bad = j
                    break
        return bad

    def step(self, const long long[::1] actions):
        """Apply one action per env (all checked first: -1 is returned with nothing applied
        when one is illegal, else the count of envs stepped) and run every env to its next
        controlled decision, writing the bound outputs."""
        cdef long n = self.n, bad
        cdef work_t w
        bad = self.first_illegal(actions)
        if bad >= 0:
            return bad
        w.sh = &self.sh
        w.envs = self.envs
        w.actions = &actions[0]
        w.out = &self.out
        with nogil:
            pool_run(self.pool, step_envs, &w, n, CHUNK)
        self._check(0, n)
        return -1

    cdef void _check(self, long lo, long hi) except *:
        cdef long j
        for j in range(lo, hi):
            if self.envs[j].bad:
                why = {BAD_TRACE: "its hand's events overflowed the trace buffer",
                       BAD_LOOP: "hands ended without a decision of a controlled seat",
                       BAD_ERRORS: "the C loop met an illegal play (a bot's bug)"}
                raise RuntimeError(f"env {j}: {why.get(self.envs[j].bad, 'failed')}")

    def observe(self, const signed char[::1] seats, u8[:, ::1] out=None, float[:, ::1] outf=None):
        """Every env's observation of seats[j] (what that seat may know now) into out (uint8)
        or outf (float32), shape (n, OBS)."""
        cdef long j
        cdef u8 scratch[OBS]
        cdef bint u = out is not None
        if seats.shape[0] != self.n:
            raise ValueError(f"{seats.shape[0]} seats for {self.n} envs")
        if (out.shape[0] if u else outf.shape[0]) != self.n:
            raise ValueError(f"an output for {self.n} envs")
        for j in range(self.n):
            if not 0 <= seats[j] < 4:
                raise ValueError(f"env {j}: seat {seats[j]} is not 0..3")
        with nogil:
            for j in range(self.n):
                if u:
                    encode(&self.envs[j], seats[j], &out[j, 0])
                else:
                    encode(&self.envs[j], seats[j], scratch)
                    obs_to_float(scratch, &outf[j, 0])

    def random_actions(self, long long[::1] out):
        """A uniformly random legal action id per env, from each env's own stream."""
        cdef long j
        cdef env_t* e
        if out.shape[0] != self.n:
            raise ValueError(f"an output for {self.n} envs")
        with nogil:
            for j in range(self.n):
                e = &self.envs[j]
                out[j] = e.legal.ids[rng_below(&e.act_rng, e.legal.n)] if e.legal.n else -1

    # --- one env, for the adapters and the tests ---

    def pending(self, long j):
        """(phase code, decision code, seat, picked cards) of env j (-1s when over)."""
        cdef env_t* e = &self.envs[self._index(j)]
        if e.done or e.g.phase == PH_DONE:
            return phase_index(e.g.phase), -1, -1, []
        return (phase_index(e.g.phase), e.g.pend_kind - DEC_DECLARE, e.g.pend_seat,
                from_hand(e.picked))

    def mask_of(self, long j, u8[::1] out):
        memcpy(&out[0], self.envs[self._index(j)].legal.mask, N_ACT)

    def obs_of(self, long j, int seat, u8[::1] out=None, float[::1] outf=None):
        cdef u8 scratch[OBS]
        cdef env_t* e = &self.envs[self._index(j)]
        if not 0 <= seat < 4:
            raise ValueError(f"seat must be 0..3, not {seat}")
        if out is not None:
            encode(e, seat, &out[0])
        else:
            encode(e, seat, scratch)
            obs_to_float(scratch, &outf[0])

    def step_one(self, long j, int a):
        """Apply action id `a` to env j alone (False, nothing applied, when it is not legal) and
        run it on; its outputs are written to the bound arrays."""
        cdef env_t* e = &self.envs[self._index(j)]
        if not legal_has(&e.legal, a):
            return False
        with nogil:
            env_step(&self.sh, e, j, a, &self.out)
        self._check(j, j + 1)
        return True

    def bot_ids(self, long j, lineup):
        """The decision seat `pend_seat` of `lineup` (a fastsheng.bots.Lineup) takes for env j's
        pending decision, drawn from the env's bot stream (as fastsheng.Game.bot_action draws
        it), as action ids: pass or a call, or the cards (then done for a lead). The env keeps
        the bot's own lead and its failure estimate, counted in the row's throw_risk when that
        very lead is played (as the simulator counts its bots')."""
        cdef env_t* e = &self.envs[self._index(j)]
        cdef const lineup_t* L = lineup_of(lineup)
        cdef int kind = e.g.pend_kind
        if e.done or e.g.phase == PH_DONE:
            raise ValueError(f"env {j}: the hand is over")
        with nogil:
            bot_decide(&e.g, L.rows, &L.seats[e.g.pend_seat])
        e.g.dec_ready = 0
        if kind == DEC_DECLARE:
            return [A_PASS if e.g.dec_choice < 0 else A_SHOW + e.g.opts[e.g.dec_choice]]
        return from_hand(e.g.dec_cards) + ([A_DONE] if kind == DEC_LEAD else [])

    def hands(self, long j):
        """The four hands of env j (for tests and analysis; a seat reads its observation)."""
        cdef env_t* e = &self.envs[self._index(j)]
        return [from_hand(e.g.t.hands[s]) for s in range(4)]

    def row_bytes(self, long j):
        """Env j's hand row as it stands (complete once the hand is over)."""
        cdef env_t* e = &self.envs[self._index(j)]
        return (<char*>&e.row)[:sizeof(hand_row_t)]

    def trace(self, long j):
        """Env j's events of the hand in play (int16, as fastsheng.engine.traces decodes)."""
        cdef env_t* e = &self.envs[self._index(j)]
        import numpy as np
        a = np.empty(e.b.trace_len, dtype=np.int16)
        cdef short[::1] v
        if e.b.trace_len:
            v = a
            memcpy(&v[0], e.trace, e.b.trace_len * sizeof(short))
        return a

    def done(self, long j):
        return bool(self.envs[self._index(j)].done)

    def set_world(self, long j, bytes blob, state, picked):
        """Env j plays on from a world dealt from a sealed public state (Game.sample_world's
        dealer: fastsheng._state.GameCore.world) with the cards `picked` so far; its own stream
        and hand count are kept, so its next hand is the one it would have dealt."""
        cdef env_t* e = &self.envs[self._index(j)]
        cdef const char* q = PyBytes_AS_STRING(blob)
        cdef Py_ssize_t base = PUB_HEADER + sizeof(game_t) + sizeof(batch_t) + sizeof(hand_row_t)
        cdef int seat, n, k, s
        cdef rng_t r, keep_master = e.master
        cdef game_t* pub
        cdef hist_t* hist
        cdef hand_t p = hand_empty()
        if len(blob) < base or (<const int*>q)[0] != PUB_MAGIC:
            raise ValueError("not a public state of fastsheng.Game")
        seat = (<const int*>q)[1]
        n = (<const int*>q)[2]
        if not 0 <= seat < 4 or not 0 <= n <= TRACE_CAP or len(blob) != base + n * sizeof(short):
            raise ValueError("not a public state of fastsheng.Game")
        for c in picked:
            p = hand_add_card(p, <int>c)
        pub = <game_t*>calloc(1, sizeof(game_t))
        hist = <hist_t*>calloc(1, sizeof(hist_t))
        if pub == NULL or hist == NULL:
            free(pub)
            free(hist)
            raise MemoryError()
        try:
            for k in range(4):
                r.s[k] = state[k]
            memcpy(pub, q + PUB_HEADER, sizeof(game_t))
            memcpy(&e.row, q + PUB_HEADER + sizeof(game_t) + sizeof(batch_t), sizeof(hand_row_t))
            memcpy(e.trace, q + base, n * sizeof(short))
            e.b.trace_len = n
            e.b.overflow = 0
            with nogil:
                hist_parse(e.trace, n, hist)
                world_deal(pub, &e.g, seat, &r, 20000, hist)
                e.g.b = &e.b
                e.g.master = &e.master
                e.g.t.rng = &e.g.bot_rng
                e.g.t.rows = e.b.rows
                e.g.row = &e.row
                e.g.external = self.sh.controlled
                for s in range(4):
                    e.g.t.bots[s] = e.b.bots[s]
                world_history(&e.g, seat, &r, hist)
                e.master = keep_master
                e.parsed = 0
                for s in range(4):
                    e.kept[s] = hand_empty()
                parse_trace(e)
                e.picked = p
                e.npicked = hand_count(p)
                e.done = 0
                clear_out(j, &self.out)
                write_out(e, j, &self.out)
        finally:
            free(pub)
            free(hist)

    cdef long _index(self, long j) except -1:
        if not 0 <= j < self.n:
            raise IndexError(f"env {j} is not in 0..{self.n - 1}")
        return j


cdef void* _addr(object a, Py_ssize_t nbytes) except? NULL:
    """The data of a C-contiguous writable array of exactly nbytes (None: NULL)."""
    cdef unsigned char[::1] v
    if a is None:
        return NULL
    if not (a.flags.c_contiguous and a.flags.writeable):
        raise ValueError("an output must be a C-contiguous writable array")
    v = a.reshape(-1).view("u1")
    if v.shape[0] != nbytes:
        raise ValueError(f"an output of {v.shape[0]} bytes, not {nbytes}")
    return <void*>&v[0]


CONSTANTS = {
    "N_ACTIONS": N_ACT, "DONE": A_DONE, "PASS": A_PASS, "SHOW": A_SHOW, "OBS": OBS,
    "ROWS": N_ROWS, "PLANE_HAND": P_HAND, "PLANE_PLAYED": P_PLAYED, "PLANE_TRICK": P_TRICK,
    "PLANE_KITTY": P_KITTY, "PLANE_SHOWN": P_SHOWN, "PLANE_TRUMP": P_TRUMP,
    "PLANE_POINTS": P_POINTS, "PLANE_PICKED": P_PICKED, "PLANE_ATTEMPT": P_ATTEMPT,
    "PLANE_NOPAIRS": P_NOPAIRS, "SC_PHASE": S_PHASE, "SC_DECISION": S_DECISION,
    "SC_DEALER": S_DEALER, "SC_LEVEL": S_LEVEL, "SC_POINTS": S_POINTS, "SC_TRICKS": S_TRICKS,
    "SC_HAND_SIZES": S_SIZES, "SC_VOIDS": S_VOIDS, "SC_LEAD_FAILED": S_FAILED,
    "SC_BARRED": S_BARRED,
}
