/* runner_internal.h — what the runner's two halves share: the worker (one thread, one
 * connection, its own counters and histograms) and the runner (the schedule and the start
 * line). Private to core/runner.c and core/worker.c; nothing else includes it. */
#ifndef DG_RUNNER_INTERNAL_H
#define DG_RUNNER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/rng.h"
#include "core/runner.h"

/* One worker's counts of one type in one phase: a single writer (the worker), relaxed
 * atomics so the reporter may read them while it runs. */
struct counters {
    _Atomic uint64_t committed, rollbacks, retries, errors, rows, bytes;
    _Atomic uint64_t retry_causes[DG_RETRY_NCAUSES]; /* the retries, by cause */
};

enum { PH_WARM = 0, PH_MEASURE = 1 };

/* A worker's life: CONNECTING -> WAITING (for the start line) -> RUNNING, which may pass
 * through RECONNECTING after a lost connection; it ends FINISHED (the window or its count is
 * over, or the run stopped), START_FAILED (could not connect or prepare: the run does not
 * start) or GAVE_UP (the connection could not be had back, or 1000 errors in a row). */
enum worker_state {
    W_CONNECTING = 0,
    W_WAITING,
    W_RUNNING,
    W_RECONNECTING,
    W_FINISHED,
    W_START_FAILED,
    W_GAVE_UP,
};

struct runner;

struct worker {
    struct runner *r;
    int index;
    int target;               /* which target it connects to (0 with one target) */
    int term_index, nterms;   /* its terminal's number within that target, of how many */
    pthread_t th;
    struct dg_conn_h conn;
    void *wctx;
    unsigned char *term, *saved;
    struct counters cnt[2][DG_MAX_TYPES];
    struct dg_hist *hist[DG_MAX_TYPES];
    struct dg_hist *service[DG_MAX_TYPES]; /* scheduled models */
    struct dg_hist *lag;
    struct dg_rng think_rng;
    struct dg_sec_feed feed;
    struct dg_err start_err;
    char first_error[512];
    dg_ns finished_ns;
    dg_ns cache_pub_ns;            /* conn_cache: when last published */
    uint64_t cache_base[2], cache_last[2]; /* conn_cache: earlier connections', this one's */
    _Atomic int state;             /* enum worker_state; written by the worker only */
} __attribute__((aligned(64)));

struct runner {
    const struct dg_runner_cfg *cfg;
    struct worker *w;
    pthread_mutex_t mu; /* guards ready and go: the start line, used once */
    pthread_cond_t cv;
    int ready, go;
    /* The schedule of the scheduled models, under sched_mu. */
    pthread_mutex_t sched_mu;
    /* One free worker, the timekeeper, sleeps until the earliest due time; the others sleep
     * until there is work for them, so a due terminal wakes one thread, not all of them. */
    pthread_cond_t sched_cv; /* the timekeeper: an earlier terminal came, or stop */
    pthread_cond_t idle_cv;  /* the other free workers: become the timekeeper, or stop */
    int has_timekeeper;
    struct dg_arrival_gen arrivals;
    struct dg_term_heap heap;
    unsigned char *terms;    /* DG_LOAD_THINK: all terminals, terminal_size each */
    uint8_t *next_type;      /* DG_LOAD_THINK: each terminal's next transaction type */
    dg_ns start_ns, warm_end_ns; /* written by main before go is set */
    _Atomic dg_ns end_ns;        /* moved earlier by main on Ctrl-C */
    _Atomic int stop;
};

/* worker.c: the thread's body (arg is its struct worker), and its connection's release. */
void *dg_worker_main(void *arg);
void dg_worker_close(struct worker *w);
/* True once the worker has ended, whichever way. */
int dg_worker_ended(const struct worker *w);
/* The think-model terminal i (terminal_size bytes in r->terms). */
unsigned char *dg_runner_term_at(struct runner *r, uint32_t i);
/* A keying or think time of the workload's table for type, scaled by cfg->think_scale. */
dg_ns dg_runner_scaled_ns(const struct runner *r, const double *table, int type);

#endif
