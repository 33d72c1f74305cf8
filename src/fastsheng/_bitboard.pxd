# Bitboard helpers shared by every module of the core (header only: all inline).
#
# A hand is a multiset of card codes 0..53, each held at most twice, stored as two masks:
#   one: bit c set when at least one copy of card c is held
#   two: bit c set when both copies are held (always a subset of `one`)
# See fastsheng/cards.py for the code layout (suit*13 + rank; SJ = 52, BJ = 53).

ctypedef unsigned long long u64
ctypedef unsigned char u8

# Bit counts in one instruction where the compiler offers it: GCC and Clang builtins, MSVC's
# intrinsics (Windows wheels); a plain loop for any other compiler (FS_PORTABLE_BITS forces it, so
# tests/test_bitboard_portability.py can check it against the builtins).
cdef extern from *:
    """
    #if defined(FS_PORTABLE_BITS) || !(defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER))
    static int fs_popcount(unsigned long long x) {
        int n = 0; for (; x; x &= x - 1) n++; return n;
    }
    static int fs_lsb(unsigned long long x) {
        int i = 0; while (!(x & 1)) { x >>= 1; i++; } return i;
    }
    static int fs_msb(unsigned long long x) {
        int i = 0; while (x >>= 1) i++; return i;
    }
    #elif defined(_MSC_VER) && !defined(__clang__)
    #include <intrin.h>
    static __inline int fs_popcount(unsigned long long x) { return (int)__popcnt64(x); }
    static __inline int fs_lsb(unsigned long long x) {
        unsigned long i; _BitScanForward64(&i, x); return (int)i;
    }
    static __inline int fs_msb(unsigned long long x) {
        unsigned long i; _BitScanReverse64(&i, x); return (int)i;
    }
    #else
    static inline int fs_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int fs_lsb(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int fs_msb(unsigned long long x) { return 63 - __builtin_clzll(x); }
    #endif
    #define FS_BB_FIVES 0x40020010008ULL    /* every 5 */
    #define FS_BB_TENS 0x4802401200900ULL   /* every 10 and K */
    """
    int fs_popcount(u64 x) noexcept nogil
    int fs_lsb(u64 x) noexcept nogil   # x must be non-zero
    int fs_msb(u64 x) noexcept nogil   # x must be non-zero
    # the cards worth points (docs/rules.md §1; fastsheng.cards.BB_POINTS is their union)
    const u64 BB_FIVES "FS_BB_FIVES"
    const u64 BB_TENS "FS_BB_TENS"

cdef enum:
    NCODES = 54
    SMALL_JOKER = 52
    BIG_JOKER = 53

cdef struct hand_t:
    u64 one     # holds >= 1 copy
    u64 two     # holds 2 copies


cdef inline int popcount(u64 x) noexcept nogil:
    return fs_popcount(x)

cdef inline int lsb(u64 x) noexcept nogil:
    return fs_lsb(x)

cdef inline int msb(u64 x) noexcept nogil:
    return fs_msb(x)

cdef inline hand_t hand_empty() noexcept nogil:
    cdef hand_t h
    h.one = 0
    h.two = 0
    return h

cdef inline int hand_count(hand_t h) noexcept nogil:
    """Number of cards (copies) in the hand."""
    return fs_popcount(h.one) + fs_popcount(h.two)

cdef inline int hand_copies(hand_t h, int c) noexcept nogil:
    return <int>((h.one >> c) & 1) + <int>((h.two >> c) & 1)

cdef inline hand_t hand_add_card(hand_t h, int c) noexcept nogil:
    """Add one copy of card c (caller guarantees fewer than two are held)."""
    cdef u64 b = (<u64>1) << c
    if h.one & b:
        h.two |= b
    else:
        h.one |= b
    return h

cdef inline hand_t hand_remove_card(hand_t h, int c) noexcept nogil:
    """Remove one copy of card c (caller guarantees one is held)."""
    cdef u64 b = (<u64>1) << c
    if h.two & b:
        h.two &= ~b
    else:
        h.one &= ~b
    return h

cdef inline hand_t hand_mask(hand_t h, u64 m) noexcept nogil:
    """The cards of h whose codes are in mask m."""
    h.one &= m
    h.two &= m
    return h

cdef inline hand_t hand_union(hand_t a, hand_t b) noexcept nogil:
    """Multiset sum (caller guarantees no code ends up with more than two copies)."""
    cdef hand_t h
    h.two = a.two | b.two | (a.one & b.one)
    h.one = a.one | b.one
    return h

cdef inline hand_t hand_minus(hand_t a, hand_t b) noexcept nogil:
    """Multiset difference a - b (caller guarantees b is contained in a)."""
    cdef hand_t h
    # copies left per code: count_a - count_b
    h.one = (a.one & ~b.one) | (a.two & ~b.two)
    h.two = a.two & ~b.one
    return h

cdef inline bint hand_contains(hand_t a, hand_t b) noexcept nogil:
    """True when multiset b is contained in multiset a."""
    return (b.one & ~a.one) == 0 and (b.two & ~a.two) == 0

cdef inline bint hand_equal(hand_t a, hand_t b) noexcept nogil:
    return a.one == b.one and a.two == b.two

cdef inline int points_of(hand_t h) noexcept nogil:
    """Points of a hand (every 5 is 5, every 10 and K 10): the one count of points in C (in
    Python: fastsheng.cards.points_of), inline for the hot loops."""
    return 5 * (popcount(h.one & BB_FIVES) + popcount(h.two & BB_FIVES)) + \
        10 * (popcount(h.one & BB_TENS) + popcount(h.two & BB_TENS))
