/* pool.c — n items over a few threads, the next untaken item to whichever thread is free;
 * the first error stops the handing out. Holds no engine knowledge and no clock. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/pool.h"

#define MAX_THREADS 64

struct pool {
    const struct dg_pool_job *job;
    int nitems;
    _Atomic int next;     /* the next item to hand out */
    _Atomic int failed;
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
    return NULL;
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
    for (int i = 1; i < n; i++) {
        args[i] = (struct thread_arg){&p, i};
        if (pthread_create(&th[started], NULL, thread_main, &args[i]) == 0)
            started++;
    }
    args[0] = (struct thread_arg){&p, 0};
    thread_main(&args[0]);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&p.mu);
    if (atomic_load(&p.failed)) {
        if (err)
            *err = p.first_err;
        return -1;
    }
    return 0;
}
