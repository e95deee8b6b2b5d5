/* pool.h — the core's one way to spread work that is not a measured run over threads (a
 * load's data and indexes, a prepare's tables): n items handed out in order to a few
 * threads, each with its own state (a connection). Workloads use it and never start a
 * thread themselves. No engine, no clock. */
#ifndef DG_POOL_H
#define DG_POOL_H

#include <stdatomic.h>

#include "core/err.h"

struct dg_pool_job {
    void *ctx;
    /* Once per thread before its first item (may be NULL): *state is the thread's own. */
    int (*thread_open)(void *ctx, int thread, void **state, struct dg_err *err);
    /* One item, 0 <= item < nitems, on the thread that took it. */
    int (*item)(void *ctx, void *state, int item, struct dg_err *err);
    /* After each item that succeeded (may be NULL), one call at a time whichever thread ran
     * it: where a thread's own counts are folded into shared totals and progress is told. */
    void (*item_done)(void *ctx, void *state, int item);
    /* Once per thread after its last item (may be NULL), also when thread_open failed. */
    void (*thread_close)(void *ctx, void *state);
    /* Non-NULL: SIGINT and SIGTERM stop the handing out, *stop gets the signal's number (an
     * item under way polls it to give up early), and the run fails with "interrupted". The
     * calling thread then only watches for signals; the items run on threads of their own. */
    atomic_int *stop;
};

/* Runs items 0..nitems-1 over at most nthreads threads (the calling one included; fewer when
 * there are fewer items), each taking the next item not yet taken. The first failure stops
 * the handing out; the items already running finish. Returns 0, or -1 with err the first
 * failure. */
int dg_pool_run(const struct dg_pool_job *job, int nthreads, int nitems, struct dg_err *err);

/* The error of work stopped by signal sig: "interrupted (SIGINT)", DG_ERR_FATAL. Returns -1. */
int dg_err_interrupted(struct dg_err *err, int sig);

#endif
