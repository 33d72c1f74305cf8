# Threads, locks and condition variables for the core's own thread pools (header only).
#
# POSIX threads where the platform has them (Linux, macOS), Windows' native threads, slim
# reader/writer locks and condition variables otherwise, behind one set of names, so the pool
# (fastsheng/_vec.pyx) is written once. Only what the pool uses is here: start and join a thread,
# lock and unlock, wait, signal and broadcast, and an atomic fetch-and-add for handing out work.

cdef extern from *:
    """
    #ifndef FS_THREADS_H
    #define FS_THREADS_H
    #ifdef _MSC_VER
    #define FS_THREADS_FN static __inline
    #else
    #define FS_THREADS_FN static inline  /* inline: no warning where a module uses a few */
    #endif
    #ifdef _WIN32
    #ifndef WIN32_LEAN_AND_MEAN
    #define WIN32_LEAN_AND_MEAN
    #endif
    #include <windows.h>
    #include <stdlib.h>
    typedef HANDLE fs_thread_t;
    typedef SRWLOCK fs_mutex_t;
    typedef CONDITION_VARIABLE fs_cond_t;
    typedef struct { void* (*run)(void*); void* arg; } fs_thread_start_t;
    static DWORD WINAPI fs_thread_main(LPVOID p) {
        fs_thread_start_t s = *(fs_thread_start_t*)p;
        free(p);
        s.run(s.arg);
        return 0;
    }
    FS_THREADS_FN int fs_thread_create(fs_thread_t* t, void* (*run)(void*), void* arg) {
        fs_thread_start_t* s = (fs_thread_start_t*)malloc(sizeof(fs_thread_start_t));
        if (s == NULL) return 1;
        s->run = run;
        s->arg = arg;
        *t = CreateThread(NULL, 0, fs_thread_main, s, 0, NULL);
        if (*t == NULL) { free(s); return 1; }
        return 0;
    }
    FS_THREADS_FN void fs_thread_join(fs_thread_t t) {
        WaitForSingleObject(t, INFINITE);
        CloseHandle(t);
    }
    FS_THREADS_FN void fs_mutex_init(fs_mutex_t* m) { InitializeSRWLock(m); }
    FS_THREADS_FN void fs_mutex_destroy(fs_mutex_t* m) { (void)m; }
    FS_THREADS_FN void fs_mutex_lock(fs_mutex_t* m) { AcquireSRWLockExclusive(m); }
    FS_THREADS_FN void fs_mutex_unlock(fs_mutex_t* m) { ReleaseSRWLockExclusive(m); }
    FS_THREADS_FN void fs_cond_init(fs_cond_t* c) { InitializeConditionVariable(c); }
    FS_THREADS_FN void fs_cond_destroy(fs_cond_t* c) { (void)c; }
    FS_THREADS_FN void fs_cond_wait(fs_cond_t* c, fs_mutex_t* m) {
        SleepConditionVariableSRW(c, m, INFINITE, 0);
    }
    FS_THREADS_FN void fs_cond_signal(fs_cond_t* c) { WakeConditionVariable(c); }
    FS_THREADS_FN void fs_cond_broadcast(fs_cond_t* c) { WakeAllConditionVariable(c); }
    FS_THREADS_FN long fs_fetch_add(long* p, long v) {
        return InterlockedExchangeAdd((volatile LONG*)p, v);
    }
    #else
    #include <pthread.h>
    typedef pthread_t fs_thread_t;
    typedef pthread_mutex_t fs_mutex_t;
    typedef pthread_cond_t fs_cond_t;
    FS_THREADS_FN int fs_thread_create(fs_thread_t* t, void* (*run)(void*), void* arg) {
        return pthread_create(t, NULL, run, arg);
    }
    FS_THREADS_FN void fs_thread_join(fs_thread_t t) { pthread_join(t, NULL); }
    FS_THREADS_FN void fs_mutex_init(fs_mutex_t* m) { pthread_mutex_init(m, NULL); }
    FS_THREADS_FN void fs_mutex_destroy(fs_mutex_t* m) { pthread_mutex_destroy(m); }
    FS_THREADS_FN void fs_mutex_lock(fs_mutex_t* m) { pthread_mutex_lock(m); }
    FS_THREADS_FN void fs_mutex_unlock(fs_mutex_t* m) { pthread_mutex_unlock(m); }
    FS_THREADS_FN void fs_cond_init(fs_cond_t* c) { pthread_cond_init(c, NULL); }
    FS_THREADS_FN void fs_cond_destroy(fs_cond_t* c) { pthread_cond_destroy(c); }
    FS_THREADS_FN void fs_cond_wait(fs_cond_t* c, fs_mutex_t* m) { pthread_cond_wait(c, m); }
    FS_THREADS_FN void fs_cond_signal(fs_cond_t* c) { pthread_cond_signal(c); }
    FS_THREADS_FN void fs_cond_broadcast(fs_cond_t* c) { pthread_cond_broadcast(c); }
    FS_THREADS_FN long fs_fetch_add(long* p, long v) {
        return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    }
    #endif
    #endif  /* FS_THREADS_H */
    """
    ctypedef struct fs_thread_t:
        pass
    ctypedef struct fs_mutex_t:
        pass
    ctypedef struct fs_cond_t:
        pass
    # 0 when the thread started; `run` gets `arg`, its return value is dropped
    int fs_thread_create(fs_thread_t* t, void* (*run)(void*) noexcept nogil, void* arg) nogil
    void fs_thread_join(fs_thread_t t) nogil
    void fs_mutex_init(fs_mutex_t* m) nogil
    void fs_mutex_destroy(fs_mutex_t* m) nogil
    void fs_mutex_lock(fs_mutex_t* m) nogil
    void fs_mutex_unlock(fs_mutex_t* m) nogil
    void fs_cond_init(fs_cond_t* c) nogil
    void fs_cond_destroy(fs_cond_t* c) nogil
    void fs_cond_wait(fs_cond_t* c, fs_mutex_t* m) nogil
    void fs_cond_signal(fs_cond_t* c) nogil
    void fs_cond_broadcast(fs_cond_t* c) nogil
    long fs_fetch_add(long* p, long v) nogil  # relaxed: returns *p before adding v
