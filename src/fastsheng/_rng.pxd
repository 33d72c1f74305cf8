# The random numbers of the core (header only: all inline).
#
# xoshiro256** (Blackman & Vigna, 2018) on a state passed explicitly: there is no global RNG.
# The 4 state words come from numpy.random.SeedSequence(seed, spawn_key=(batch,))
# .generate_state(4, numpy.uint64) (fastsheng.engine.hands), so a batch's stream depends on
# (seed, batch) only. Bounded integers use Lemire's nearly-divisionless method on raw 64-bit
# draws (https://arxiv.org/abs/1805.10941): results depend on this code only, never on a
# library's high-level methods.

from fastsheng._bitboard cimport u64

cdef extern from *:
    """
    typedef struct { unsigned long long s[4]; } fs_rng_t;

    static inline unsigned long long fs_rotl(unsigned long long x, int k) {
        return (x << k) | (x >> (64 - k));
    }

    static inline unsigned long long fs_rng_next(fs_rng_t *r) {
        unsigned long long *s = r->s;
        const unsigned long long result = fs_rotl(s[1] * 5, 7) * 9;
        const unsigned long long t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = fs_rotl(s[3], 45);
        return result;
    }

    /* the 128-bit product of two 64-bit words (portable fallback without __int128) */
    static inline unsigned long long fs_mul128(unsigned long long a, unsigned long long b,
                                               unsigned long long *lo) {
    #if defined(__SIZEOF_INT128__)
        unsigned __int128 m = (unsigned __int128)a * b;
        *lo = (unsigned long long)m;
        return (unsigned long long)(m >> 64);
    #else
        unsigned long long a0 = a & 0xffffffffULL, a1 = a >> 32;
        unsigned long long b0 = b & 0xffffffffULL, b1 = b >> 32;
        unsigned long long p0 = a0 * b0, p1 = a0 * b1, p2 = a1 * b0, p3 = a1 * b1;
        unsigned long long mid = (p0 >> 32) + (p1 & 0xffffffffULL) + (p2 & 0xffffffffULL);
        *lo = (mid << 32) | (p0 & 0xffffffffULL);
        return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
    #endif
    }

    /* uniform integer in [0, n) for n >= 1 (Lemire) */
    static inline unsigned long long fs_rng_below(fs_rng_t *r, unsigned long long n) {
        unsigned long long l;
        unsigned long long hi = fs_mul128(fs_rng_next(r), n, &l);
        if (l < n) {
            unsigned long long t = (0ULL - n) % n;
            while (l < t)
                hi = fs_mul128(fs_rng_next(r), n, &l);
        }
        return hi;
    }

    /* advance by 2^128 draws: a second, non-overlapping stream from the same state */
    static inline void fs_rng_jump(fs_rng_t *r) {
        static const unsigned long long JUMP[] = {0x180ec6d33cfd0abaULL, 0xd5a61266f0c9392cULL,
                                                  0xa9582618e03fc9aaULL, 0x39abdc4529b1661cULL};
        unsigned long long s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int i = 0; i < 4; i++)
            for (int b = 0; b < 64; b++) {
                if (JUMP[i] & (1ULL << b)) {
                    s0 ^= r->s[0]; s1 ^= r->s[1]; s2 ^= r->s[2]; s3 ^= r->s[3];
                }
                fs_rng_next(r);
            }
        r->s[0] = s0; r->s[1] = s1; r->s[2] = s2; r->s[3] = s3;
    }

    static inline void fs_rng_seed(fs_rng_t *r, unsigned long long a, unsigned long long b,
                                   unsigned long long c, unsigned long long d) {
        r->s[0] = a; r->s[1] = b; r->s[2] = c; r->s[3] = d;
        if ((a | b | c | d) == 0) r->s[0] = 0x9E3779B97F4A7C15ULL;  /* never the zero state */
    }
    """
    ctypedef struct fs_rng_t:
        u64 s[4]
    u64 fs_rng_next(fs_rng_t* r) noexcept nogil
    u64 fs_rng_below(fs_rng_t* r, u64 n) noexcept nogil
    void fs_rng_seed(fs_rng_t* r, u64 a, u64 b, u64 c, u64 d) noexcept nogil
    void fs_rng_jump(fs_rng_t* r) noexcept nogil

ctypedef fs_rng_t rng_t


cdef inline u64 rng_next(rng_t* r) noexcept nogil:
    """A raw 64-bit draw."""
    return fs_rng_next(r)


cdef inline int rng_below(rng_t* r, int n) noexcept nogil:
    """Uniform integer in [0, n), n >= 1."""
    return <int>fs_rng_below(r, <u64>n)


cdef inline void rng_seed(rng_t* r, u64 a, u64 b, u64 c, u64 d) noexcept nogil:
    fs_rng_seed(r, a, b, c, d)


cdef inline void rng_jump(rng_t* r) noexcept nogil:
    """Advance by 2^128 draws (a second stream that never overlaps the first)."""
    fs_rng_jump(r)


cdef inline void rng_split(rng_t* master, rng_t* out) noexcept nogil:
    """Seed `out` from 4 draws of `master` (one sub-stream per hand or match).

    The draws are taken one statement at a time, the first for the last state word: C leaves
    the order of a call's arguments unspecified, and the four draws used to be the arguments of
    one call, which GCC evaluates right to left and clang left to right, so a clang build dealt
    other hands. This is GCC's order, the one every recorded digest was made with."""
    cdef u64 d = fs_rng_next(master)
    cdef u64 c = fs_rng_next(master)
    cdef u64 b = fs_rng_next(master)
    cdef u64 a = fs_rng_next(master)
    fs_rng_seed(out, a, b, c, d)


cdef inline void rng_shuffle_u8(rng_t* r, unsigned char* a, int n) noexcept nogil:
    """Fisher-Yates shuffle of a[0..n)."""
    cdef int i, j
    cdef unsigned char t
    for i in range(n - 1, 0, -1):
        j = rng_below(r, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t
