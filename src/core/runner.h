/* runner.h — runs a workload: one thread per worker, each owning one connection. Three load
 * models: closed loop (a worker is a terminal), open-loop arrivals at a rate, or many
 * terminals with keying and think times waiting in a timer heap for a free worker (a TP
 * monitor). A warm-up then a measured window, or a fixed number of transactions per worker.
 * Per-thread counters and histograms; the hot path shares nothing but, in the two scheduled
 * models, the schedule's lock once per transaction. Knows no engine and no workload beyond
 * struct dg_workload. */
#ifndef DG_RUNNER_H
#define DG_RUNNER_H

#include <signal.h>
#include <stdint.h>

#include "core/clock.h"
#include "core/driver.h"
#include "core/hist.h"
#include "core/sched.h"
#include "core/series.h"
#include "core/workload.h"

enum dg_phase { DG_PHASE_CONNECT = 0, DG_PHASE_WARMUP, DG_PHASE_MEASURE, DG_PHASE_DONE };
const char *dg_phase_name(enum dg_phase p);

/* Counts per transaction type. attempted = committed + rollbacks + errors; retries apart. */
struct dg_type_counts {
    uint64_t committed;  /* committed by the database */
    uint64_t rollbacks;  /* rolled back on purpose by the workload (successes) */
    uint64_t retries;    /* extra attempts after a retryable error */
    uint64_t retry_causes[DG_RETRY_NCAUSES]; /* the retries by cause (sum = retries) */
    uint64_t errors;     /* transactions that failed for good */
    uint64_t error_causes[DG_ERROR_NCAUSES]; /* the errors by cause (sum = errors) */
    uint64_t in_doubt;   /* of the errors: lost with their commit sent (may have committed) */
    uint64_t rows, bytes; /* fetched, for workloads that say (take_volume) */
};

/* One outage of a target: a span in which its transactions failed on connection errors and
 * none committed. Times are seconds from the measured window's start (start_s negative in the
 * warm-up); the others from start_s. */
/* A cluster whose nodes all went this long without a commit, while one had no outage, stalled. */
#define DG_STALL_AFTER_NS DG_NS_PER_S

struct dg_outage {
    /* index of the target (0 with one); -c: a stall of cluster c (no node of it committed for
     * DG_STALL_AFTER_NS or more while some were up), from its last commit to its first after */
    int target;
    double start_s;        /* the first connection error */
    double duration_s;     /* to the first connection made again: how long the server was away */
    double first_commit_s; /* to the first commit after it; -1: none before the run ended */
    double last_commit_s;  /* how long before start_s the target last committed (>= 0): its
                            * RTO is last_commit_s + first_commit_s; -1: no commit before it */
    double recovery_s;     /* to the end of the first second with at least 90% of the commits per
                            * second of the 10 s before start_s; -1: never in the run */
    uint64_t errors;       /* transactions that failed on it (connection errors) */
    uint64_t reconnects;   /* connection attempts, failed or not, during it */
    char back_on[128];     /* "host:port" the first new connection reached ("" unknown) */
};

#define DG_TICK_OUTAGES 16

/* What the reporter sees every interval: the per-second series since the previous tick. Once
 * with DG_PHASE_CONNECT before the workers connect, every tick_ns from the start line (even
 * when no second became final since the previous one: interval_s 0), and once with
 * DG_PHASE_DONE when the window is over, before the workers are joined. */
struct dg_tick {
    enum dg_phase phase;
    double elapsed_s;   /* since the start of the run (warm-up included), to the last final second */
    double interval_s;  /* seconds covered since the previous tick */
    double clock_s;     /* since the start line on the reporter's clock (the final seconds lag it) */
    /* Outages of the targets so far (closed and open, as struct dg_outage counts them), and
     * whether one is open now: read by the reporter without the workers' lock. */
    int outages, outage_open;
    int ntypes;
    /* Since the start; in total, the causes and in_doubt too (from the workers' counters,
     * which run ahead of the series' final seconds). */
    struct dg_type_counts total[DG_MAX_TYPES];
    struct dg_type_counts interval[DG_MAX_TYPES]; /* since the previous tick */
    const struct dg_series *series; /* the final seconds so far (the reporter's, read-only) */
    int noutage_list;               /* the last DG_TICK_OUTAGES of them, open ones last */
    struct dg_outage outage_list[DG_TICK_OUTAGES];
};
typedef void (*dg_tick_fn)(void *ctx, const struct dg_tick *t);

/* What a run has measured so far, for a checkpoint: its final seconds (the series and, in
 * it, the measured totals: dg_series_measured_hist). Seen by the main thread only. */
struct dg_checkpoint {
    const struct dg_series *series;
    double warmup_s;     /* the warm-up's length as asked */
    double measured_s;   /* final measured seconds */
    double client_cpu_s; /* dbgauge's own CPU since the window began */
    double started_wall;
};
typedef void (*dg_checkpoint_fn)(void *ctx, const struct dg_checkpoint *cp);
/* How often the main thread hands out a checkpoint by default (from the start line). */
#define DG_CHECKPOINT_NS (10 * DG_NS_PER_S)

enum dg_load_model {
    DG_LOAD_CLOSED = 0, /* each worker runs its own terminal flat out */
    DG_LOAD_RATE,       /* arrivals at rate_per_s over all workers, open loop */
    DG_LOAD_THINK,      /* `terminals` terminals with keying and think times over the workers */
};
const char *dg_load_model_name(enum dg_load_model m);

struct dg_runner_cfg {
    enum dg_load_model model;
    double rate_per_s;             /* DG_LOAD_RATE */
    enum dg_arrivals arrivals;     /* DG_LOAD_RATE */
    int terminals;                 /* DG_LOAD_THINK: how many (>= 1) */
    double think_scale;            /* DG_LOAD_THINK: multiplies keying and think times (1 = as given) */
    const struct dg_workload *wl;
    void *shared;                  /* the workload's shared state */
    const struct dg_target *target;
    int workers;
    /* Several targets at once when ntargets > 0 (then target and shared are not read):
     * target_workers[i] of the workers, in order, connect to targets[i] with the workload's
     * shared state shareds[i]; they sum to workers. Terminals are numbered per target.
     * DG_LOAD_THINK takes one target. The result then holds per-target figures. */
    int ntargets;
    const struct dg_target *const *targets;
    void *const *shareds;
    const int *target_workers;
    dg_ns warmup_ns;
    dg_ns duration_ns;             /* timed run when > 0 */
    uint64_t txns_per_worker;      /* counted run when > 0 (whole run measured) */
    uint64_t seed;
    int max_retries;               /* per transaction */
    dg_ns tick_ns;                 /* reporter interval; 0 = no ticks */
    dg_tick_fn tick;
    void *tick_ctx;
    /* Appended, may be zero. Called once by the main thread just before the workers start,
     * with the run's clock: second k of the series is [warm_end_ns + k s, + 1 s). */
    void (*on_start)(void *ctx, dg_ns start_ns, dg_ns warm_end_ns);
    void *start_ctx;
    /* Appended, may be NULL. Called by the main thread (never a worker) every checkpoint_ns
     * (> 0) from the start line, so what was measured can be kept as it goes. */
    dg_checkpoint_fn checkpoint;
    void *checkpoint_ctx;
    dg_ns checkpoint_ns;
    /* NULL, or 2 x workers counters: worker i publishes its own connection's driver
     * cache_stats (hits at [2i], misses at [2i + 1], summed over its reconnects) after a
     * transaction at most 10 times a second, and once at its end. For engines whose cache is
     * per connection (SQLite); a reader (the monitor) sums them. */
    _Atomic uint64_t *conn_cache;
    uint64_t session_memory_bytes; /* > 0: each worker's connection sets the engine's cache */
    /* A lost connection is sought again with capped, jittered back-off (50 ms to 2 s) until
     * it comes back or this long has passed (0: the rest of the run); then the worker gives up. */
    dg_ns reconnect_timeout_ns;
    /* DG_LOAD_RATE: an arrival that would start later than this after its intended time is
     * skipped, not run (pgbench's --latency-limit); 0: only arrivals that fell due while the
     * worker's target was down are skipped. */
    dg_ns latency_limit_ns;
    int no_acks;                   /* 1: keep no acknowledged writes (the workload's take_ack unused) */
    /* NULL, or a replica for the read-only types (wl->read_only_types; one target only): each
     * worker holds a second connection there, opened with the same shared state. The result
     * then has two per-target shares: [0] the other types on the target, [1] the read-only
     * ones on the read target; outages of the read target are target 1's. */
    const struct dg_target *read_target;
    /* One share of a run driven from several processes (MPI ranks), or zeros for a run of
     * one. Worker i here is worker worker_base + i of workers_total (which numbers its
     * terminal and seeds it, and which target_workers[] — then counts over all ranks — places);
     * DG_LOAD_THINK: terminal i here is terminal terminal_ids[i] of terminals_total. */
    int worker_base, workers_total;
    const int *terminal_ids;
    int terminals_total;
    /* Called by the main thread once every worker has connected (ok 1) or one failed (ok 0,
     * err says why): returns the start line on the monotonic clock, having waited for it, or
     * 0 when the run must not start (err says why). NULL: now. */
    dg_ns (*start_at)(void *ctx, int ok, struct dg_err *err);
    /* Called by the main thread every 200 ms at most in the window, with the series so far:
     * 1 ends the window now, as Ctrl-C does. NULL: none. */
    int (*poll)(void *ctx, dg_ns now, const struct dg_series *se);
    void *rank_ctx;
};

/* An arrival that starts more than this after its intended time is late (DG_LOAD_RATE). A run
 * that keeps its rate lags a few service times (SQLite, 2 workers, half its capacity: p99 24
 * ms); one that cannot has a backlog growing to seconds: docs/results.md, "Why 100 ms". */
#define DG_LATE_AFTER_NS (100 * DG_NS_PER_MS)

/* One target's share of a run with several targets: the merge of its workers' figures. */
struct dg_target_result {
    int workers, workers_failed;
    struct dg_type_counts counts[DG_MAX_TYPES];   /* measured window only */
    struct dg_hist *hist[DG_MAX_TYPES];           /* owned, like dg_run_result's */
    struct dg_hist *service[DG_MAX_TYPES];        /* scheduled models only; owned */
};

struct dg_run_result {
    int ntypes;
    struct dg_type_counts counts[DG_MAX_TYPES];   /* measured window only */
    struct dg_hist *hist[DG_MAX_TYPES];           /* measured latency; owned, free with dg_run_result_free */
    /* Scheduled models only (NULL otherwise): hist[] then counts from the intended start
     * (response time); service[] from the actual start; lag is start minus intended start. */
    struct dg_hist *service[DG_MAX_TYPES];
    struct dg_hist *lag;
    double measured_s;
    double warmup_s;
    int interrupted;                              /* SIGINT/SIGTERM before the end */
    int workers_failed;
    char first_error[512];                        /* first error any worker saw, for the user */
    double client_cpu_s;                          /* dbgauge's own CPU during the measured window */
    double started_wall, ended_wall;
    struct dg_series series;                      /* one point per second, warm-up first; owned */
    int ntargets;                                 /* cfg->ntargets */
    struct dg_target_result *targets;             /* ntargets of them, owned; NULL for one target */
    struct dg_outage *outages;                    /* owned, in order of start; NULL when none */
    int noutages;
    /* Every write acknowledged (or in doubt) during the run, warm-up and after-window ones
     * included, for the audit: owned, in no particular order. */
    struct dg_ack *acks;
    size_t nacks;
    /* DG_LOAD_RATE, measured window: arrivals due, started late (DG_LATE_AFTER_NS), skipped. */
    uint64_t arrivals, late, skipped;
    int window_cut;                               /* every worker ended before the window did */
};

/* Runs the workload. Blocks SIGINT and SIGTERM for its threads and waits for them itself.
 * Returns 0 when the run happened (result filled, maybe interrupted or with errors), -1 with
 * err when it could not start (nothing measured: e.g. no worker could connect). */
int dg_runner_run(const struct dg_runner_cfg *cfg, struct dg_run_result *res, struct dg_err *err);
void dg_run_result_free(struct dg_run_result *res);

#endif
