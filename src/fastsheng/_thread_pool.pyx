# cython: language_level=3
"""A pool of sleeping worker threads sharing out a loop's items in chunks (the .pxd says how
it is used)."""

from libc.stdlib cimport calloc, free

cdef extern from "<pthread.h>" nogil:
    int pthread_create(pthread_t* t, const void* attr, void* (*run)(void*) noexcept nogil,
                       void* arg)
    int pthread_join(pthread_t t, void** out)
    int pthread_mutex_init(pthread_mutex_t* m, const void* attr)
    int pthread_mutex_destroy(pthread_mutex_t* m)
    int pthread_mutex_lock(pthread_mutex_t* m)
    int pthread_mutex_unlock(pthread_mutex_t* m)
    int pthread_cond_init(pthread_cond_t* c, const void* attr)
    int pthread_cond_destroy(pthread_cond_t* c)
    int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m)
    int pthread_cond_broadcast(pthread_cond_t* c)
    int pthread_cond_signal(pthread_cond_t* c)

cdef extern from *:
    """
    static inline long fs_fetch_add(long* p, long v) {
        return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    }
    """
    long fs_fetch_add(long* p, long v) noexcept nogil


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
        pthread_mutex_lock(&p.mu)
        while p.gen == seen and not p.stop:
            pthread_cond_wait(&p.go, &p.mu)
        if p.stop:
            pthread_mutex_unlock(&p.mu)
            return NULL
        seen = p.gen
        pthread_mutex_unlock(&p.mu)
        run_job(p.job)
        pthread_mutex_lock(&p.mu)
        p.busy -= 1
        if p.busy == 0:
            pthread_cond_signal(&p.idle)
        pthread_mutex_unlock(&p.mu)


cdef pool_t* pool_open(int nworkers) noexcept nogil:
    cdef pool_t* p = <pool_t*>calloc(1, sizeof(pool_t))
    cdef int i
    if p == NULL:
        return NULL
    pthread_mutex_init(&p.mu, NULL)
    pthread_cond_init(&p.go, NULL)
    pthread_cond_init(&p.idle, NULL)
    for i in range(nworkers if nworkers < POOL_MAX_THREADS else POOL_MAX_THREADS - 1):
        if pthread_create(&p.tid[i], NULL, worker, p) != 0:
            break
        p.nworkers += 1
    return p


cdef void pool_close(pool_t* p) noexcept nogil:
    cdef int i
    if p == NULL:
        return
    pthread_mutex_lock(&p.mu)
    p.stop = 1
    pthread_cond_broadcast(&p.go)
    pthread_mutex_unlock(&p.mu)
    for i in range(p.nworkers):
        pthread_join(p.tid[i], NULL)
    pthread_cond_destroy(&p.go)
    pthread_cond_destroy(&p.idle)
    pthread_mutex_destroy(&p.mu)
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
    pthread_mutex_lock(&p.mu)
    p.job = &w
    p.busy = p.nworkers
    p.gen += 1
    pthread_cond_broadcast(&p.go)
    pthread_mutex_unlock(&p.mu)
    run_job(&w)
    pthread_mutex_lock(&p.mu)
    while p.busy:
        pthread_cond_wait(&p.idle, &p.mu)
    pthread_mutex_unlock(&p.mu)
