/* pool.c — n items over a few threads, the next untaken item to whichever thread is free;
 * the first error stops the handing out. Holds no engine knowledge and no clock. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "core/pool.h"
#include "core/sigthread.h"

#define MAX_THREADS 64

struct pool {
    const struct dg_pool_job *job;
    int nitems;
    _Atomic int next;     /* the next item to hand out */
    _Atomic int failed;
    _Atomic int finished; /* threads that have returned */
    pthread_mutex_t mu;   /* guards first_err, and serialises item_done */
    struct dg_err first_err;
};

struct thread_arg {
    struct pool *p;
    int thread;
};

static void fail(struct pool *p, const struct dg_err *err)
{
    pthread_mutex_lock(&p->mu);
    if (!atomic_load(&p->failed))
        p->first_err = *err;
    atomic_store(&p->failed, 1);
    pthread_mutex_unlock(&p->mu);
}

static void *thread_main(void *arg)
{
    struct thread_arg *a = arg;
    struct pool *p = a->p;
    const struct dg_pool_job *job = p->job;
    void *state = NULL;
    struct dg_err err;
    if (job->thread_open && job->thread_open(job->ctx, a->thread, &state, &err)) {
        fail(p, &err);
    } else {
        for (;;) {
            if (atomic_load(&p->failed))
                break;
            int item = atomic_fetch_add(&p->next, 1);
            if (item >= p->nitems)
                break;
            if (job->item(job->ctx, state, item, &err)) {
                fail(p, &err);
                break;
            }
            if (job->item_done) {
                pthread_mutex_lock(&p->mu);
                job->item_done(job->ctx, state, item);
                pthread_mutex_unlock(&p->mu);
            }
        }
    }
    if (job->thread_close)
        job->thread_close(job->ctx, state);
    atomic_fetch_add(&p->finished, 1);
    return NULL;
}

void dg_sig_block(sigset_t *sigs, sigset_t *old)
{
    sigemptyset(sigs);
    sigaddset(sigs, SIGINT);
    sigaddset(sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, sigs, old);
}

int dg_err_interrupted(struct dg_err *err, int sig)
{
    return dg_err_set(err, DG_ERR_FATAL, 0, "interrupted (%s)", sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
}

int dg_sig_poll(const sigset_t *sigs, long wait_ms)
{
    struct timespec ts = {wait_ms / 1000, (wait_ms % 1000) * 1000000L};
    int sig = sigtimedwait(sigs, NULL, &ts);
    return sig > 0 ? sig : 0;
}

void dg_sig_restore(const sigset_t *sigs, const sigset_t *old, atomic_int *stop)
{
    int sig;
    while ((sig = dg_sig_poll(sigs, 0)) != 0)
        if (stop)
            atomic_store(stop, sig);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

void dg_cond_init_mono(pthread_cond_t *c)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
}

void dg_cond_wait_ms(pthread_cond_t *c, pthread_mutex_t *m, long ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(c, m, &ts);
}

/* The calling thread while the items run elsewhere: a signal stops the handing out. */
static void watch_signals(struct pool *p, const sigset_t *sigs, int started)
{
    while (atomic_load(&p->finished) < started) {
        int sig = dg_sig_poll(sigs, 100);
        if (!sig)
            continue;
        atomic_store(p->job->stop, sig);
        struct dg_err e;
        dg_err_interrupted(&e, sig);
        fail(p, &e);
    }
}

int dg_pool_run(const struct dg_pool_job *job, int nthreads, int nitems, struct dg_err *err)
{
    if (nitems <= 0)
        return 0;
    int n = nthreads < 1 ? 1 : nthreads > MAX_THREADS ? MAX_THREADS : nthreads;
    if (n > nitems)
        n = nitems;
    struct pool p = {.job = job, .nitems = nitems};
    pthread_mutex_init(&p.mu, NULL);
    pthread_t th[MAX_THREADS];
    struct thread_arg args[MAX_THREADS];
    int started = 0;
    /* Watching for signals, the calling thread runs no item; else it is thread 0. */
    const int watch = job->stop != NULL;
    sigset_t sigs, old;
    if (watch)
        dg_sig_block(&sigs, &old);
    for (int i = watch ? 0 : 1; i < n; i++) {
        args[i] = (struct thread_arg){&p, i};
        if (pthread_create(&th[started], NULL, thread_main, &args[i]) == 0)
            started++;
    }
    if (!watch || started == 0) {
        args[0] = (struct thread_arg){&p, 0};
        thread_main(&args[0]);
    }
    if (watch)
        watch_signals(&p, &sigs, started);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (watch)
        dg_sig_restore(&sigs, &old, job->stop);
    pthread_mutex_destroy(&p.mu);
    if (atomic_load(&p.failed)) {
        if (err)
            *err = p.first_err;
        return -1;
    }
    return 0;
}
