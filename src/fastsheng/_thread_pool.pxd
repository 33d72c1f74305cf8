# A pool of worker threads sharing out the items of a loop: pool_run(p, fn, ctx, n, chunk)
# calls fn(ctx, lo, hi) over 0..n in chunks of `chunk` items, taken by whichever thread is free
# (the caller's and the pool's workers), and returns when every item is done. The workers sleep
# on a condition between runs: nothing spins, so a shared machine loses no time to idle
# threads. POSIX or Windows threads (fastsheng/_threads.pxd). No game knowledge: fastsheng._vec
# steps its envs with it.

from fastsheng._threads cimport fs_cond_t, fs_mutex_t, fs_thread_t

cdef enum:
    POOL_MAX_THREADS = 64    # the caller's thread and at most 63 workers

# The work of items lo..hi-1 (called from any of the pool's threads, the caller's among them).
ctypedef void (*pool_fn)(void* ctx, long lo, long hi) noexcept nogil


# One run: its items, taken a chunk at a time.
cdef struct pool_job_t:
    pool_fn fn
    void* ctx
    long n
    long chunk
    long next                # the next chunk's first item (taken atomically)


cdef struct pool_t:
    fs_mutex_t mu
    fs_cond_t go             # a new run (gen changed) or stop
    fs_cond_t idle           # a worker finished its share (busy reached 0)
    int gen
    int busy                 # workers still working on this run
    int stop
    int nworkers
    pool_job_t* job
    fs_thread_t tid[POOL_MAX_THREADS]


# A pool of `nworkers` threads (fewer when the system refuses some; NULL: out of memory).
cdef pool_t* pool_open(int nworkers) noexcept nogil
# Stop and join the workers, and free the pool (NULL: nothing).
cdef void pool_close(pool_t* p) noexcept nogil
# fn(ctx, lo, hi) over the items 0..n-1, by the caller and the workers together (p NULL or
# without workers: by the caller alone).
cdef void pool_run(pool_t* p, pool_fn fn, void* ctx, long n, long chunk) noexcept nogil
