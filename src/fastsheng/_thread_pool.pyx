# cython: language_level=3
"""A pool of sleeping worker threads sharing out a loop's items in chunks (the .pxd says how
it is used)."""

from libc.stdlib cimport calloc, free

from fastsheng._threads cimport (
    fs_cond_broadcast,
    fs_cond_destroy,
    fs_cond_init,
    fs_cond_signal,
    fs_cond_wait,
    fs_fetch_add,
    fs_mutex_destroy,
    fs_mutex_init,
    fs_mutex_lock,
    fs_mutex_unlock,
    fs_thread_create,
    fs_thread_join,
)


cdef void run_job(pool_job_t* w) noexcept nogil:
    cdef long lo, hi
    while True:
        lo = fs_fetch_add(&w.next, w.chunk)
        if lo >= w.n:
            return
        hi = lo + w.chunk if lo + w.chunk < w.n else w.n
        w.fn(w.ctx, lo, hi)


cdef void* worker(void* arg) noexcept nogil:
    cdef pool_t* p = <pool_t*>arg
    cdef int seen = 0
    while True:
        fs_mutex_lock(&p.mu)
        while p.gen == seen and not p.stop:
            fs_cond_wait(&p.go, &p.mu)
        if p.stop:
            fs_mutex_unlock(&p.mu)
            return NULL
        seen = p.gen
        fs_mutex_unlock(&p.mu)
        run_job(p.job)
        fs_mutex_lock(&p.mu)
        p.busy -= 1
        if p.busy == 0:
            fs_cond_signal(&p.idle)
        fs_mutex_unlock(&p.mu)


cdef pool_t* pool_open(int nworkers) noexcept nogil:
    cdef pool_t* p = <pool_t*>calloc(1, sizeof(pool_t))
    cdef int i
    if p == NULL:
        return NULL
    fs_mutex_init(&p.mu)
    fs_cond_init(&p.go)
    fs_cond_init(&p.idle)
    for i in range(nworkers if nworkers < POOL_MAX_THREADS else POOL_MAX_THREADS - 1):
        if fs_thread_create(&p.tid[i], worker, p) != 0:
            break
        p.nworkers += 1
    return p


cdef void pool_close(pool_t* p) noexcept nogil:
    cdef int i
    if p == NULL:
        return
    fs_mutex_lock(&p.mu)
    p.stop = 1
    fs_cond_broadcast(&p.go)
    fs_mutex_unlock(&p.mu)
    for i in range(p.nworkers):
        fs_thread_join(p.tid[i])
    fs_cond_destroy(&p.go)
    fs_cond_destroy(&p.idle)
    fs_mutex_destroy(&p.mu)
    free(p)


cdef void pool_run(pool_t* p, pool_fn fn, void* ctx, long n, long chunk) noexcept nogil:
    """Every item of 0..n-1 done, by the caller and the workers together."""
    cdef pool_job_t w
    w.fn = fn
    w.ctx = ctx
    w.n = n
    w.chunk = chunk
    w.next = 0
    if p == NULL or p.nworkers == 0:
        run_job(&w)
        return
    fs_mutex_lock(&p.mu)
    p.job = &w
    p.busy = p.nworkers
    p.gen += 1
    fs_cond_broadcast(&p.go)
    fs_mutex_unlock(&p.mu)
    run_job(&w)
    fs_mutex_lock(&p.mu)
    while p.busy:
        fs_cond_wait(&p.idle, &p.mu)
    fs_mutex_unlock(&p.mu)
