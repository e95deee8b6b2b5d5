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
    _Atomic uint64_t committed, rollbacks, retries, errors, in_doubt, rows, bytes;
    _Atomic uint64_t retry_causes[DG_RETRY_NCAUSES]; /* the retries, by cause */
    _Atomic uint64_t error_causes[DG_ERROR_NCAUSES]; /* the errors, by cause */
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

/* A worker's acknowledged writes: chunks that double from 64 to 4096 records, so a run makes
 * one allocation per 4096 transactions at most (never one per transaction). */
struct ack_chunk {
    struct ack_chunk *next;
    size_t n, cap;
    struct dg_ack a[];
};

/* One target's open outage (under runner.out_mu; `open` is also read without it on commits). */
struct outage_track {
    _Atomic int open;  /* an outage is open: the target's next commit closes it */
    /* The start of the target's last closed outage (0: none, or dropped): a later commit on a
     * connection older than it shows the target never went away (one session was killed, and
     * its own reconnect committed before any other session did), and drops it. */
    _Atomic dg_ns closed_start;
    int closed_index;  /* that outage's place in runner.outages */
    dg_ns start;       /* its first connection error */
    dg_ns back;        /* the first connection made again (0: none yet) */
    dg_ns last_commit; /* the target's last commit before start (0: none) */
    uint64_t errors, reconnects;
    char back_on[128];
};

struct worker {
    struct runner *r;
    int index;
    int global;               /* its number over every rank of the run (index with one process) */
    int target;               /* which target it connects to (0 with one target) */
    int term_index, nterms;   /* its terminal's number within that target, of how many */
    pthread_t th;
    struct dg_conn_h conn;
    void *wctx;
    struct dg_conn_h rconn;   /* cfg->read_target: the read-only types' connection and context */
    void *rwctx;
    dg_ns rconn_since;
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
    dg_ns conn_since;              /* when its current connection was made */
    _Atomic dg_ns last_commit;     /* its last commit (0: none); written by the worker only,
                                    * read when an outage of its target opens */
    _Atomic dg_ns last_read_commit; /* the same on the read target's connection */
    dg_ns skip_before;             /* DG_LOAD_RATE: arrivals due before this fell in an outage */
    uint64_t arrivals, late, skipped; /* DG_LOAD_RATE, measured window; read after the join */
    struct ack_chunk *acks, *acks_tail; /* owned; freed with the worker */
    uint64_t acks_dropped;         /* out of memory for the log: not kept */
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
    /* Outages: touched on connection errors and reconnects only, never on a commit's path
     * but for dg_outage_watch's two relaxed reads. */
    pthread_mutex_t out_mu;
    struct outage_track *track;  /* one per target (1 with one target), owned */
    struct dg_outage *outages;   /* closed ones, owned until handed to the result */
    int noutages, outages_cap;
    _Atomic int outages_closed;  /* noutages for the reporter, which reads it without out_mu */
    int read_index;              /* cfg->read_target: its index among the targets (-1: none) */
    /* Stalls of whole clusters (stall.c), under out_mu; stalls_open is read by every commit. */
    struct stall_track *stalls;  /* one per cluster of two nodes or more, owned (NULL: none) */
    int nstalls;
    _Atomic int stalls_open;
};

/* A cluster (the targets of one --cluster) that may stall: no node commits while some are up. */
struct stall_track {
    int cluster;       /* its number, 1 for the first --cluster */
    _Atomic int open;  /* a stall is open: the cluster's next commit closes it */
    dg_ns start;       /* the cluster's last commit before it (written under out_mu, before open) */
};

/* outage.c: the outage tracker. Every time is the monotonic clock. */
int dg_outage_setup(struct runner *r);
void dg_outage_free(struct runner *r);
/* A transaction of target failed on a lost connection at t: opens an outage or counts in it. */
void dg_outage_error(struct runner *r, int target, dg_ns t);
/* An attempt to connect again to target at t; where ("host:port") when it succeeded. */
void dg_outage_attempt(struct runner *r, int target, int ok, dg_ns t, const char *where);
/* A commit at t by a worker connected since conn_since, when dg_outage_watch says so: closes
 * the open outage, or drops the open or last closed one when that connection outlived its
 * start (the target never went away). */
void dg_outage_commit(struct runner *r, int target, dg_ns conn_since, dg_ns t);
/* After the join: closes what is still open (not back: no length), gives each its recovery
 * from the series' commits per target, and hands them to res. Returns 0, or -1 out of memory. */
int dg_outage_finish(struct runner *r, const struct dg_series *se, struct dg_run_result *res);
/* While the run goes on (the reporter, for --live's charts): the last max outages, closed ones
 * then the open ones (with no first commit yet), into out; how many were put there. */
int dg_outage_peek(struct runner *r, dg_ns now, struct dg_outage *out, int max);
static inline int dg_outage_open(const struct runner *r, int target)
{
    return atomic_load_explicit(&r->track[target].open, memory_order_relaxed);
}
/* Whether a commit by a worker connected since conn_since must go to dg_outage_commit: an
 * outage is open, or the connection is older than the last closed one. Two relaxed reads of
 * a line that changes only at outages: the commit path's whole cost. */
static inline int dg_outage_watch(const struct runner *r, int target, dg_ns conn_since)
{
    const struct outage_track *k = &r->track[target];
    return atomic_load_explicit(&k->open, memory_order_relaxed) ||
           conn_since < atomic_load_explicit(&k->closed_start, memory_order_relaxed);
}
/* A closed outage's place at the end of r->outages, zeroed (NULL out of memory). Under out_mu. */
struct dg_outage *dg_outage_append(struct runner *r);

/* stall.c: a cluster's stall, an outage of target -cluster (enum in runner.h). Closed loop
 * only: there workers run flat out, so a second without a commit is not think time. */
int dg_stall_setup(struct runner *r);
/* Main thread, every 200 ms at most in the window: opens the stall of a cluster none of whose
 * nodes committed for DG_STALL_AFTER_NS while one of them has no outage open. */
void dg_stall_watch(struct runner *r, dg_ns now);
/* A commit at t on target, while r->stalls_open: closes its cluster's stall. */
void dg_stall_commit(struct runner *r, int target, dg_ns t);
/* After the join, under nothing: closes the open stalls, not back. */
void dg_stall_finish(struct runner *r);
/* The open stalls after out[0..n), as dg_outage_peek does; the new n. Under out_mu. */
int dg_stall_peek(struct runner *r, dg_ns now, struct dg_outage *out, int n, int max);
/* Commits in second p of the outage's target, or of every node of a stalled cluster. */
uint64_t dg_stall_committed(const struct runner *r, int target, const struct dg_series_point *p);
static inline int dg_stall_any_open(const struct runner *r)
{
    return atomic_load_explicit(&r->stalls_open, memory_order_relaxed) != 0;
}

/* For the reporter (main thread, no lock): outages so far, closed and open; *open set to 1
 * when one is open now. A close racing the read may count one twice for a second. */
int dg_outage_seen(const struct runner *r, int *open);

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
