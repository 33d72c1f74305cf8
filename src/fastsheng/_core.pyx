# cython: language_level=3
"""The rules engine of fastsheng in C (docs/rules.md), and its Python face `Context`.

The nogil functions declared in _core.pxd work on bitboards (`hand_t`) and a per-hand context
(`ctx_t`) of precomputed tables: effective suit and order key of every card code, and the codes
at every (effective suit, key). Chain adjacency is "keys differ by one": switches that break the
chain simply leave a gap in the keys, so no rule below needs to know about them.
"""

from libc.string cimport memset

from fastsheng._bitboard cimport (
    BB_FIVES, BB_TENS, NCODES, SMALL_JOKER, hand_contains, hand_count, hand_empty,
    hand_equal, hand_mask, hand_minus, hand_t, lsb, msb, points_of, popcount, u64, u8,
)

from fastsheng.cards import RANKS, level_index
from fastsheng.errors import IllegalPlay


# ---------------------------------------------------------------------------------------------
# Context tables

cdef void ctx_init(ctx_t* c, const rules_t* r, int level, int trump) noexcept nogil:
    cdef int code, suit, rank, e, k, fu, zhu, sj
    memset(c, 0, sizeof(ctx_t))
    c.r = r[0]
    c.level = level
    c.trump = trump
    # keys of the level cards and jokers in trump (docs/rules.md §2 and the tractor switches)
    if trump == NO_TRUMP:
        fu = 0                      # every level card
        zhu = 0
        sj = 1 if r.nt_level_tractor else 2
    elif r.tractor_chain == CHAIN_LIMITED:
        fu = 13                     # 副级 adjacent to neither the trump A nor the 主级
        zhu = 15
        sj = 16
    else:
        fu = 12
        zhu = 13
        sj = 14
    for code in range(NCODES):
        if code >= SMALL_JOKER:
            e = TRUMP
            k = sj + (code - SMALL_JOKER)
        else:
            suit = code // 13
            rank = code % 13
            if rank == level:
                e = TRUMP
                k = zhu if suit == trump else fu
            else:
                e = TRUMP if suit == trump else suit
                k = rank - 1 if rank > level else rank
        c.eff[code] = <u8>e
        c.key[code] = <u8>k
        c.suit_bb[e] |= (<u64>1) << code
        c.key_bb[e][k] |= (<u64>1) << code
        if k + 1 > c.nkeys[e]:
            c.nkeys[e] = k + 1
    c.point_bb = BB_FIVES | BB_TENS


cdef inline int suit_rank(int e) noexcept nogil:
    """Listing order of effective suits: trump first, then S, H, C, D."""
    return 0 if e == TRUMP else e + 1


# ---------------------------------------------------------------------------------------------
# Splitting into units (docs/rules.md §3)

cdef inline bint unit_before(const unit_t* a, const unit_t* b) noexcept nogil:
    """Listing order of units: tractors (longer first), pairs, singles; trump then S H C D;
    higher key first; lower code first."""
    if a.kind != b.kind:
        return a.kind > b.kind
    if a.length != b.length:
        return a.length > b.length
    if a.eff != b.eff:
        return suit_rank(a.eff) < suit_rank(b.eff)
    if a.top != b.top:
        return a.top > b.top
    return a.low < b.low


cdef int split_units(const ctx_t* c, hand_t cards, unit_t* out) noexcept nogil:
    cdef int n = 0, e, k, best_len, best_start, run, i, j, code
    cdef int cnt[24]
    cdef u64 avail, bb
    cdef unit_t tmp
    for e in range(5):
        avail = cards.two & c.suit_bb[e]
        if not (cards.one & c.suit_bb[e]):
            continue
        if avail:
            pair_counts(c, e, cards, cnt)
            while True:
                # the longest run of keys that still have a pair; ties: the highest
                best_len = 0
                best_start = 0
                run = 0
                for k in range(c.nkeys[e] + 1):
                    if k < c.nkeys[e] and cnt[k] > 0:
                        run += 1
                    else:
                        if run >= best_len and run > 0:
                            best_len = run
                            best_start = k - run
                        run = 0
                if best_len < 2:
                    break
                out[n].kind = KIND_TRACTOR
                out[n].length = best_len
                out[n].eff = e
                out[n].top = best_start + best_len - 1
                out[n].cards = hand_empty()
                for k in range(best_start, best_start + best_len):
                    code = lsb(avail & c.key_bb[e][k])   # the lowest code of the key's pairs
                    avail &= ~((<u64>1) << code)
                    out[n].cards.one |= (<u64>1) << code
                    out[n].cards.two |= (<u64>1) << code
                    cnt[k] -= 1
                out[n].low = lsb(out[n].cards.one)
                n += 1
            bb = avail
            while bb:
                code = lsb(bb)
                bb &= bb - 1
                out[n].kind = KIND_PAIR
                out[n].length = 1
                out[n].eff = e
                out[n].top = c.key[code]
                out[n].low = code
                out[n].cards.one = (<u64>1) << code
                out[n].cards.two = (<u64>1) << code
                n += 1
        bb = cards.one & ~cards.two & c.suit_bb[e]
        while bb:
            code = lsb(bb)
            bb &= bb - 1
            out[n].kind = KIND_SINGLE
            out[n].length = 0
            out[n].eff = e
            out[n].top = c.key[code]
            out[n].low = code
            out[n].cards.one = (<u64>1) << code
            out[n].cards.two = 0
            n += 1
    # insertion sort into listing order (n is small)
    for i in range(1, n):
        tmp = out[i]
        j = i - 1
        while j >= 0 and unit_before(&tmp, &out[j]):
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = tmp
    return n


cdef int lead_shape(const ctx_t* c, hand_t lead, shape_t* s) noexcept nogil:
    cdef unit_t units[MAXUNITS]
    cdef int n, i, e
    memset(s, 0, sizeof(shape_t))
    if lead.one == 0:
        return -1
    e = eff_of(c, lead)
    if e < 0:
        return -1
    n = split_units(c, lead, units)
    s.eff = e
    s.ncards = hand_count(lead)
    s.npairs = popcount(lead.two)
    for i in range(n):
        if units[i].kind == KIND_TRACTOR:
            if s.ntractors < 12:
                s.tlen[s.ntractors] = units[i].length
            s.ntractors += 1
        elif units[i].kind == KIND_PAIR:
            s.nlone_pairs += 1
        else:
            s.nsingles += 1
    s.kind = KIND_THROW if n > 1 else units[0].kind
    s.top = play_strength(c, s, e, lead)
    return 0


# ---------------------------------------------------------------------------------------------
# Tractor matching (docs/rules.md §5): which of the lead's tractors fit into a set of pairs

cdef bint pack(int* cnt, int nkeys, const int* lens, int m) noexcept nogil:
    """Can runs of the lengths lens[0..m) be placed disjointly on the pair counts cnt?"""
    cdef int start, k, n
    cdef bint ok
    if m == 0:
        return True
    n = lens[0]
    for start in range(nkeys - n + 1):
        ok = True
        for k in range(start, start + n):
            if cnt[k] <= 0:
                ok = False
                break
        if not ok:
            continue
        for k in range(start, start + n):
            cnt[k] -= 1
        ok = pack(cnt, nkeys, lens + 1, m - 1)
        for k in range(start, start + n):
            cnt[k] += 1
        if ok:
            return True
    return False


cdef u64 tractor_match(const ctx_t* c, const shape_t* s, int e, hand_t x) noexcept nogil:
    """The lexicographically largest set of the lead's tractors (bit m-1-i for tractor i, so that
    larger numbers are lexicographically larger) that fit disjointly into x's pairs of effective
    suit e (the lead's suit, or trump for a play that trumps in)."""
    cdef int cnt[24]
    cdef int chosen[12]
    cdef int nchosen = 0, i, m = s.ntractors
    cdef u64 result = 0
    if m == 0:
        return 0
    if m > 12:
        m = 12
    if m == 1:
        return 1 if run_starts(pair_key_bits(c, e, x), s.tlen[0]) else 0
    pair_counts(c, e, x, cnt)
    for i in range(m):
        chosen[nchosen] = s.tlen[i]
        if pack(cnt, c.nkeys[e], chosen, nchosen + 1):
            nchosen += 1
            result |= (<u64>1) << (m - 1 - i)
    return result


# ---------------------------------------------------------------------------------------------
# Throws, follows, winners, points

cdef hand_t throw_check(const ctx_t* c, hand_t lead, const hand_t* others, int nothers,
                        int* failed) noexcept nogil:
    cdef unit_t units[MAXUNITS]
    cdef int n, i, j, e, best = -1
    cdef u64 opp_pairs, opp_cards
    cdef bint beaten
    failed[0] = 0
    if lead.one == 0:
        return lead
    e = eff_of(c, lead)
    if e < 0:
        return lead
    n = split_units(c, lead, units)
    if n <= 1:
        return lead
    for i in range(n):
        beaten = False
        for j in range(nothers):
            if units[i].kind == KIND_SINGLE:
                opp_cards = card_key_bits(c, e, others[j])
                beaten = opp_cards != 0 and msb(opp_cards) > units[i].top
            elif units[i].kind == KIND_PAIR:
                opp_pairs = pair_key_bits(c, e, others[j])
                beaten = opp_pairs != 0 and msb(opp_pairs) > units[i].top
            else:
                beaten = best_run_top(pair_key_bits(c, e, others[j]),
                                      units[i].length) > units[i].top
            if beaten:
                break
        if not beaten:
            continue
        # the forced unit: fewest cards, then lowest key, then lowest code
        if best < 0 or _forced_before(&units[i], &units[best]):
            best = i
    if best < 0:
        return lead
    failed[0] = 1
    return units[best].cards


cdef inline int unit_cards(const unit_t* u) noexcept nogil:
    return 1 if u.kind == KIND_SINGLE else 2 * u.length


cdef inline bint _forced_before(const unit_t* a, const unit_t* b) noexcept nogil:
    if unit_cards(a) != unit_cards(b):
        return unit_cards(a) < unit_cards(b)
    if a.top != b.top:
        return a.top < b.top
    return a.low < b.low


cdef bint follow_ok(const ctx_t* c, const shape_t* s, hand_t hand, hand_t play) noexcept nogil:
    cdef hand_t he, pe
    cdef int n_e, need, trumps_held, hp
    if hand_count(play) != s.ncards or not hand_contains(hand, play):
        return False
    he = hand_mask(hand, c.suit_bb[s.eff])
    n_e = hand_count(he)
    if n_e < s.ncards:
        # short or void: every card of the suit, then any fill (trump first if the switch says)
        pe = hand_mask(play, c.suit_bb[s.eff])
        if not hand_equal(pe, he):
            return False
        if c.r.void_fill == FILL_TRUMP_FIRST and s.eff != TRUMP:
            need = s.ncards - n_e
            trumps_held = hand_count(hand_mask(hand, c.suit_bb[TRUMP]))
            if need > trumps_held:
                need = trumps_held
            if hand_count(hand_mask(play, c.suit_bb[TRUMP])) < need:
                return False
        return True
    if play.one & ~c.suit_bb[s.eff]:
        return False
    if s.kind == KIND_THROW and c.r.throw_follow == FOLLOW_SUIT:
        return True
    hp = popcount(he.two)
    if hp > s.npairs:
        hp = s.npairs
    if popcount(play.two) < hp:
        return False
    if s.ntractors > 0 and tractor_match(c, s, s.eff, play) != tractor_match(c, s, s.eff, he):
        return False
    return True


cdef int assign_units(const ctx_t* c, const shape_t* s, int e, hand_t x, int* keys) noexcept nogil:
    """Keys of x's units answering the lead's units one by one (docs/rules.md §6, `every`):
    the highest run for each lead tractor in turn, the highest remaining pairs, then the highest
    remaining cards. Returns how many keys were written."""
    cdef int pc[24]
    cdef int cc[24]
    cdef int n = 0, i, _i, k, start, top, nk = c.nkeys[e]
    cdef bint ok
    for k in range(nk):
        pc[k] = popcount(x.two & c.key_bb[e][k])
        cc[k] = popcount(x.one & c.key_bb[e][k]) + pc[k]
    for i in range(s.ntractors if s.ntractors < 12 else 12):
        top = -1
        for start in range(nk - s.tlen[i], -1, -1):
            ok = True
            for k in range(start, start + s.tlen[i]):
                if pc[k] <= 0:
                    ok = False
                    break
            if ok:
                top = start + s.tlen[i] - 1
                for k in range(start, start + s.tlen[i]):
                    pc[k] -= 1
                    cc[k] -= 2
                break
        keys[n] = top
        n += 1
    for _i in range(s.nlone_pairs):
        top = -1
        for k in range(nk - 1, -1, -1):
            if pc[k] > 0:
                top = k
                pc[k] -= 1
                cc[k] -= 2
                break
        keys[n] = top
        n += 1
    for _i in range(s.nsingles):
        top = -1
        for k in range(nk - 1, -1, -1):
            if cc[k] > 0:
                top = k
                cc[k] -= 1
                break
        keys[n] = top
        n += 1
    return n


cdef int trick_winner(const ctx_t* c, const hand_t* plays, int nplays, int barred) noexcept nogil:
    cdef shape_t s
    cdef int winner = 0, win_eff, e, strength, win_strength, i, j, nk = 0
    cdef int win_keys[64]
    cdef int keys[64]
    cdef bint every, better
    if lead_shape(c, plays[0], &s) < 0:
        return -1
    every = s.kind == KIND_THROW and c.r.overtrump_throw == OVERTRUMP_EVERY
    win_eff = s.eff
    win_strength = s.top
    if every:
        nk = assign_units(c, &s, s.eff, plays[0], win_keys)
    for i in range(1, nplays):
        if plays[i].one == 0:
            continue
        e = eff_of(c, plays[i])
        if e < 0:
            continue
        if e != s.eff and not (e == TRUMP and not (barred >> i) & 1):
            continue
        if not has_shape(c, &s, e, plays[i]):
            continue
        if e != win_eff:
            better = e == TRUMP     # trump over side suit; a side-suit play never beats trump
        elif every:
            assign_units(c, &s, e, plays[i], keys)
            better = True
            for j in range(nk):
                if keys[j] <= win_keys[j]:
                    better = False
                    break
        else:
            strength = play_strength(c, &s, e, plays[i])
            better = strength > win_strength
        if better:
            winner = i
            win_eff = e
            if every:
                nk = assign_units(c, &s, e, plays[i], win_keys)
            else:
                win_strength = play_strength(c, &s, e, plays[i])
    return winner


cdef int hand_points(const ctx_t* c, hand_t h) noexcept nogil:
    return points_of(h)


cdef int kitty_mult(const ctx_t* c, const shape_t* s) noexcept nogil:
    """The multiplier of the lead's decisive unit from the rules' table (docs/rules.md §6)."""
    cdef int m, k
    if s.ntractors > 0:
        k = s.tlen[0] if s.tlen[0] <= KM_MAX_TRACTOR else KM_MAX_TRACTOR
        m = c.r.km_tractor[k]
    elif s.npairs > 0:
        m = c.r.km_pair
    else:
        m = c.r.km_single
    if s.kind != KIND_THROW:
        return m
    if c.r.throw_kitty == TK_AT_LEAST_3:
        return m if m > 3 else 3
    if c.r.throw_kitty == TK_PAIR_4:
        return 4 if s.npairs > 0 else 2
    return m


cdef int level_change(const rules_t* r, int total, int* levels) noexcept nogil:
    cdef int i = r.lt_nbands - 1, n
    while i > 0 and r.lt_low[i] > total:   # the last band whose lowest total is reached
        i -= 1
    n = r.lt_levels[i]
    if r.lt_step > 0 and i == r.lt_nbands - 1:
        n += (total - r.lt_low[i]) // r.lt_step
    if r.lt_side[i] == 1 and r.defender_cap > 0 and n > r.defender_cap:
        n = r.defender_cap
    levels[0] = n
    return r.lt_side[i]


# ---------------------------------------------------------------------------------------------
# The Python face: Context and friends (validation here, computation above)

RANK_NAMES = RANKS  # the one list of ranks (fastsheng.cards)
SUIT_NAMES = "SHCD"
KIND_NAMES = ("single", "pair", "tractor", "throw")


cdef rules_t rules_struct(object rules) except *:
    """The C struct of a fastsheng.rules.Rules (built once per Context)."""
    cdef rules_t r = rules.core_fields()
    return r


cdef hand_t to_hand(object cards) except *:
    cdef hand_t h = hand_empty()
    cdef int code
    cdef u64 b
    for x in cards:
        code = x
        if code < 0 or code >= NCODES:
            raise ValueError(f"not a card code: {x!r}")
        b = (<u64>1) << code
        if h.two & b:
            raise ValueError(f"card code {code} appears more than twice")
        if h.one & b:
            h.two |= b
        else:
            h.one |= b
    return h


cdef list from_hand(hand_t h):
    cdef list out = []
    cdef u64 rest = h.one
    cdef int code
    while rest:
        code = lsb(rest)
        rest &= rest - 1
        out.append(code)
        if (h.two >> code) & 1:
            out.append(code)
    return out


def _rank_index(level):
    return level_index(level)


def _trump_index(trump):
    if trump is None or (isinstance(trump, str) and trump.upper() in ("NT", "NONE", "")):
        return NO_TRUMP
    glyphs = {"♠": "S", "♥": "H", "♣": "C", "♦": "D"}
    t = glyphs.get(trump, str(trump).upper())
    if t in ("S", "H", "C", "D"):
        return SUIT_NAMES.index(t)
    raise ValueError(f"unknown trump {trump!r}; expected S, H, C, D or None (no trump)")


cdef inline int _card_code(int code) except -1:
    """A card code as an index of the context's tables; a code outside 0..53 is a ValueError
    (it read past the tables, e.g. effective_suit(100) answered 6)."""
    if code < 0 or code >= NCODES:
        raise ValueError(f"code must be a card code 0..{NCODES - 1}, not {code}")
    return code


cdef class Context:
    """The play rules of one hand: rules, level rank and trump suit (None = no trump).

    ``Context(rules, level="6", trump="C")``. Cards are lists of codes (fastsheng.cards) in any
    order; plays come out sorted by code. See docs/rules.md.
    """

    cdef ctx_t c
    cdef readonly object rules
    cdef readonly str level
    cdef readonly object trump

    def __init__(self, rules, level="2", trump=None):
        cdef rules_t r = rules_struct(rules)
        cdef int lv = _rank_index(level)
        cdef int tr = _trump_index(trump)
        ctx_init(&self.c, &r, lv, tr)
        self.rules = rules
        self.level = RANK_NAMES[lv]
        self.trump = None if tr == NO_TRUMP else SUIT_NAMES[tr]

    def __repr__(self):
        return (f"Context(rules={getattr(self.rules, 'name', self.rules)!r}, "
                f"level={self.level!r}, trump={self.trump!r})")

    # --- card facts -------------------------------------------------------------------------
    def effective_suit(self, int code):
        """0..3 for a side suit S, H, C, D; 4 for trump."""
        return self.c.eff[_card_code(code)]

    def is_trump(self, int code):
        return self.c.eff[_card_code(code)] == TRUMP

    def key(self, int code):
        """Order key of a card inside its effective suit (docs/rules.md §2)."""
        return self.c.key[_card_code(code)]

    # --- combinations -----------------------------------------------------------------------
    def units(self, cards):
        """Split cards into units: list of (kind, sorted cards), docs/rules.md §3."""
        cdef unit_t units[MAXUNITS]
        cdef hand_t h = to_hand(cards)
        cdef int n = split_units(&self.c, h, units), i
        return [(KIND_NAMES[units[i].kind], from_hand(units[i].cards)) for i in range(n)]

    cdef int _shape(self, object lead, shape_t* s) except -1:
        cdef hand_t h = to_hand(lead)
        if lead_shape(&self.c, h, s) < 0:
            if h.one == 0:
                raise IllegalPlay("a lead needs at least one card")
            raise IllegalPlay("a lead must be of one effective suit")
        return 0

    def lead_kind(self, cards):
        """"single", "pair", "tractor" or "throw"; IllegalPlay for two effective suits."""
        cdef shape_t s
        self._shape(cards, &s)
        return KIND_NAMES[s.kind]

    def check_throw(self, cards, others):
        """The cards actually led: all of them, or the forced unit of a failed throw."""
        cdef shape_t s
        cdef hand_t opp[8]
        cdef int n = 0, failed
        self._shape(cards, &s)
        for o in others:
            if n == 8:
                raise ValueError("at most 8 other hands")
            opp[n] = to_hand(o)
            n += 1
        return from_hand(throw_check(&self.c, to_hand(cards), opp, n, &failed))

    # --- following --------------------------------------------------------------------------
    def is_legal_follow(self, hand, lead, play):
        cdef shape_t s
        self._shape(lead, &s)
        try:
            p = to_hand(play)
        except ValueError:
            return False
        return bool(follow_ok(&self.c, &s, to_hand(hand), p))

    def legal_follows(self, hand, lead):
        """Every legal play, each sorted, the list sorted (docs/rules.md §5)."""
        cdef shape_t s
        cdef hand_t h = to_hand(hand)
        cdef hand_t he, rest
        cdef int n_e
        self._shape(lead, &s)
        out = []
        he = hand_mask(h, self.c.suit_bb[s.eff])
        n_e = hand_count(he)
        if hand_count(h) < s.ncards:
            return out
        if n_e >= s.ncards:
            _enumerate(&self.c, &s, h, he, hand_empty(), s.ncards, out)
        else:
            rest = hand_minus(h, he)
            _enumerate(&self.c, &s, h, rest, he, s.ncards - n_e, out)
        out.sort()
        return out

    # --- tricks -----------------------------------------------------------------------------
    def trick_winner(self, plays, barred=()):
        """Index of the winning play (plays[0] is the lead, in play order). `barred`: indices of
        plays that may not win by trumping (docs/rules.md §6)."""
        cdef hand_t hp[8]
        cdef int n = 0, mask = 0, w
        cdef shape_t s
        if not plays:
            raise IllegalPlay("a trick needs a lead")
        if len(plays) > 8:
            raise ValueError("at most 8 plays in a trick")
        self._shape(plays[0], &s)
        for p in plays:
            hp[n] = to_hand(p)
            n += 1
        for i in barred:
            mask |= 1 << int(i)
        w = trick_winner(&self.c, hp, n, mask)
        return w

    def trick_points(self, plays):
        cdef int total = 0
        for p in plays:
            total += hand_points(&self.c, to_hand(p))
        return total

    def kitty_multiplier(self, lead):
        """Multiplier of the kitty's points when the defenders win the last trick with `lead`."""
        cdef shape_t s
        self._shape(lead, &s)
        return kitty_mult(&self.c, &s)


cdef int _enumerate(const ctx_t* c, const shape_t* s, hand_t hand, hand_t pool, hand_t base,
                    int k, list out) except -1:
    """Append to `out` every legal play made of `base` plus k cards drawn from `pool`."""
    cdef int codes[54]
    cdef int counts[54]
    cdef int ncodes = 0, code
    cdef u64 rest = pool.one
    while rest:
        code = lsb(rest)
        rest &= rest - 1
        codes[ncodes] = code
        counts[ncodes] = 1 + <int>((pool.two >> code) & 1)
        ncodes += 1
    _enum_rec(c, s, hand, codes, counts, ncodes, 0, k, base, out)
    return 0


cdef int _enum_rec(const ctx_t* c, const shape_t* s, hand_t hand, int* codes, int* counts,
                   int ncodes, int i, int k, hand_t cur, list out) except -1:
    cdef int take, avail = 0, j
    cdef u64 b
    cdef hand_t nxt
    if k == 0:
        if follow_ok(c, s, hand, cur):
            out.append(from_hand(cur))
        return 0
    for j in range(i, ncodes):
        avail += counts[j]
    if avail < k or i >= ncodes:
        return 0
    b = (<u64>1) << codes[i]
    for take in range(counts[i] if counts[i] < k else k, -1, -1):
        nxt = cur
        if take >= 1:
            if nxt.one & b:
                nxt.two |= b
            else:
                nxt.one |= b
        if take == 2:
            nxt.two |= b
        _enum_rec(c, s, hand, codes, counts, ncodes, i + 1, k - take, nxt, out)
    return 0


def level_outcome(rules, int total):
    """("dealer", n) or ("defenders", n) for the defenders' total (docs/rules.md §11)."""
    cdef rules_t r = rules_struct(rules)
    cdef int levels = 0, side
    if total < 0:
        raise ValueError(f"the defenders' total cannot be negative: {total}")
    side = level_change(&r, total, &levels)
    return ("defenders" if side else "dealer", levels)
