/* store.h — the results database: a SQLite file (dbgauge-results.db by default) with a
 * versioned schema, holding every run with its options, host, engine, per-type summary and
 * full histograms. Reports read from here only. */
#ifndef DG_STORE_H
#define DG_STORE_H

#include <stdint.h>

#include "core/driver.h"
#include "core/fault.h"
#include "core/figures.h"
#include "core/hist.h"
#include "core/hostinfo.h"
#include "core/monitor.h"
#include "core/runner.h"
#include "core/series.h"
#include "core/workload.h"

#define DG_STORE_SCHEMA_VERSION 15
/* A running run (or experiment) of another host that has not checkpointed for this long is lost. */
#define DG_STORE_SILENT_LOST_S 600

struct dg_txn_summary {
    char name[32];
    uint64_t committed, rollbacks, retries, errors;
    uint64_t in_doubt;                       /* of the errors: the commit's answer was lost */
    int in_doubt_known;                      /* read back: 0 for runs stored before schema 10 */
    uint64_t retry_causes[DG_RETRY_NCAUSES]; /* the retries by cause (enum dg_retry_cause) */
    int retry_causes_known;                  /* 0 for runs stored before causes were kept */
    uint64_t error_causes[DG_ERROR_NCAUSES]; /* the errors by cause (enum dg_error_cause) */
    int error_causes_known;                  /* 0 for runs stored before, and for checkpoints */
    /* Of a run that knows its causes, those it does not (bit 1 << cause; 0: none): read_only and
     * gave_up of a run stored at schema 13, which counted them under other. */
    unsigned error_causes_unknown;
    double avg_ms, p50_ms, p90_ms, p95_ms, p99_ms, max_ms;
    struct dg_hist *hist; /* owned by the record */
    /* Scheduled load models: hist is response time; this is service time (NULL otherwise). */
    double service_p50_ms, service_p95_ms, service_p99_ms;
    struct dg_hist *service_hist; /* owned */
    double p90_limit_ms; /* the workload's limit, 0 if none (only checked in the think model) */
};

/* Whether x knows its count of errors of cause c (else it is no count: neither shown nor 0). */
static inline int dg_txn_error_cause_known(const struct dg_txn_summary *x, enum dg_error_cause c)
{
    return x->error_causes_known && !(x->error_causes_unknown & (1u << c));
}

/* One target of a run with several targets at once (table run_target, its types in
 * run_target_txn). Latency over all its types together comes from the merge of its types'
 * histograms. */
struct dg_target_summary {
    int idx;               /* 0-based, in command-line order */
    char target[1024];     /* redacted */
    char engine[32], engine_version[64];
    char *settings_json;   /* owned */
    int warehouses, vus, workers_failed;
    /* Schema 11: "" a database of its own, "read" (--read-target: the read-only transactions
     * ran there), "node" (a node of cluster `cluster`, the same database as its other nodes). */
    char role[8];
    int cluster;
    /* The workload's headline figures over this target's counts (core/figures.h). */
    int nfigures;
    struct dg_figure figures[DG_MAX_FIGURES];
    double avg_ms, p50_ms, p95_ms, p99_ms, max_ms; /* all types together */
    int ntypes;
    struct dg_txn_summary txn[DG_MAX_TYPES];      /* histograms owned */
};

/* Schema 12: one client process (MPI rank) of a run driven from several (table run_rank, its
 * figures in run_rank_figure). Rank 0 stores the run; each rank's row says what its own share
 * measured, so the report can show the per-host figures and their spread. */
struct dg_rank_summary {
    int rank;
    char host[64];
    char state[12];         /* "ok", "interrupted" (stopped early), "dead" (never reported: no figures) */
    int vus, terminals, workers_failed;
    uint64_t committed, errors; /* over every type, measured window */
    double measured_s;
    double client_cpu_s;     /* the rank's own process CPU in the window */
    double clock_offset_ms;  /* its monotonic clock minus rank 0's, as measured before the start */
    double start_offset_ms;  /* its window's start minus rank 0's, in rank 0's clock */
    double p50_ms, p95_ms, p99_ms; /* all its types together */
    int nfigures;            /* the run's headline figures over this rank's counts alone */
    struct dg_figure figures[DG_MAX_FIGURES];
    /* Its host's monitor points (CPU, disk; no server figures), one per second as the run's
     * series: ranks > 0 only, rank 0's host is the run's own monitor. Owned by the record. */
    struct dg_monitor_point *monitor;
    size_t nmonitor;
};

/* How a stored run's error says which parts of it the results database could not keep
 * (store_put.c); a run with no error of its own has nothing before it. */
#define DG_NOT_KEPT "not kept: "

/* One run as stored. Filled by the command that ran it, or read back by dg_store_get. */
struct dg_run_record {
    int64_t id;
    char workload[16];   /* "tpcc" */
    /* "complete", "incomplete" (interrupted), "failed"; "running" while checkpointed, read back
     * as "lost" once its process has ended without storing it (schema 13) */
    char status[16];
    char label[256];
    char unkept[512]; /* set by dg_store_put: the parts of the run it could not keep, "" if none */
    char started_at[32], ended_at[32]; /* ISO 8601 UTC */
    char target[1024];   /* redacted */
    char engine[32], engine_version[64];
    char *settings_json; /* owned: {"name": "value", ...} */
    char *options_json;  /* owned: every option of the run */
    char *command_line;  /* owned, passwords redacted */
    struct dg_hostinfo host;
    char dbgauge_version[16];
    int warehouses, vus;
    double warmup_s, measured_s;
    double client_cpu_s;
    /* The workload's headline figures, most important first (core/figures.h): what every
     * rendering shows as the run's result, whatever the workload. */
    int nfigures;
    struct dg_figure figures[DG_MAX_FIGURES];
    char error[512]; /* the first error, or why it failed; DG_NOT_KEPT and what was not stored */
    /* The load model: "closed", "rate" or "think". */
    char load_model[8];
    double rate_asked, think_scale; /* rate: arrivals per second; think: time scale (1 = standard) */
    int terminals;
    double tpmc_ceiling;            /* think model: the most tpmC its terminals allow */
    double lag_p50_ms, lag_p99_ms, lag_max_ms; /* intended start to actual start */
    /* Query stress: what the iterations fetched, and the sweep the run is a step of. */
    int64_t group_id;  /* runs of one command share it (the first step's id); 0: none */
    char *query;       /* owned; NULL for other workloads */
    uint64_t rows, bytes;
    double server_blocks_hit, server_blocks_read; /* per iteration, where the engine tells (-1: no) */
    /* Experiments: the experiment and step the run is, what it swept, what the memory
     * options did. */
    int64_t experiment_id; /* 0: none */
    int experiment_step;
    char *swept_json;      /* owned; {"key": "value"} or NULL */
    char *knobs_json;      /* owned; {"applied": [...], "not_applied": [...]} or NULL */
    int ntypes;
    struct dg_txn_summary txn[DG_MAX_TYPES];
    struct dg_series_point *series; /* owned; one per second, warm-up (second < 0) first */
    size_t nseries;
    /* The host and engine monitor: one point per second as the series (always read back);
     * the device watched ("none": no block device; "" when the run was not monitored). */
    struct dg_monitor_point *monitor; /* owned */
    size_t nmonitor;
    char monitor_device[32];
    /* Several targets at once: one summary each, owned (NULL and 0 for a one-target run). */
    struct dg_target_summary *targets;
    int ntargets;
    /* Schema 10: faults and outages (tables run_fault, run_outage; always read back, NULL
     * and 0 when none), the open loop's schedule, the acknowledged writes (table run_ack:
     * written by dg_store_put, read back only by dg_store_get_acks). */
    struct dg_fault_event *faults; /* owned */
    int nfaults;
    struct dg_outage *outages;     /* owned */
    int noutages;
    uint64_t arrivals, late, skipped; /* rate model; 0 for runs stored before schema 10 */
    int schedule_known;            /* 1 when those three were stored (schema 10 and later) */
    struct dg_ack *acks;           /* owned; put only */
    size_t nacks;
    /* Schema 11: replication as each target saw it, one row per target, peer and second
     * (table run_replication; always read back); the audit made after the run (run_audit:
     * audited 0 when none was), for the failover figures. */
    struct dg_repl_point *repl;    /* owned (struct dg_repl_point: core/monitor.h) */
    size_t nrepl;
    int audited;
    struct dg_audit_summary audit;
    /* Schema 15: why an audit that was due (an outage, --audit always) could not be made; ""
     * when it was made or not due. Such a run is no pass (cmd/audit.c). */
    char audit_not_made[256];
    /* Schema 12: a run driven from several processes (mpirun): one row per rank, in rank
     * order, owned (NULL and 0 for a run of one process; always read back). */
    struct dg_rank_summary *ranks;
    int nranks;
};

struct dg_store;

/* Opens (creating and migrating as needed) the results file. *out is the caller's until
 * dg_store_close. A file that is not a dbgauge results database is a DG_ERR_USER error. */
int dg_store_open(const char *path, struct dg_store **out, struct dg_err *err);
void dg_store_close(struct dg_store *s);
/* Whether a run can store into s: 0, or -1 with a DG_ERR_USER error naming the file (read-only,
 * a directory that cannot be written, a full disk). Called before anything is measured. */
int dg_store_check_writable(struct dg_store *s, struct dg_err *err);
/* Inserts rec (its id is set on success); with rec->id > 0 (a run kept by checkpoints)
 * that run's rows are replaced by rec's. In three transactions, most needed first
 * (store_put.c): -1 when the first failed (nothing kept, rec->id as it was), else 0 with
 * rec->unkept naming what a later one could not keep ("" when everything was). */
int dg_store_put(struct dg_store *s, struct dg_run_record *rec, struct dg_err *err);
/* A checkpoint of an unfinished run, status "running", in one transaction: the run row
 * (inserted the first time: rec->id set), its counts, histograms and figures replaced, the
 * series points from *series_kept on added (*series_kept then rec->nseries), and this
 * process's identity, so readers tell a lost run (schema 13). */
int dg_store_checkpoint(struct dg_store *s, struct dg_run_record *rec, size_t *series_kept, struct dg_err *err);
/* A checkpointed run that will not be stored whole: marked failed, with why. */
int dg_store_abandon(struct dg_store *s, int64_t id, const char *why, struct dg_err *err);
/* Marks experiment id as this process's (a reader then tells a lost one). */
int dg_store_experiment_alive(struct dg_store *s, int64_t id, struct dg_err *err);
/* Reads run id into rec (with its monitor points, and its series when with_series) (which the caller frees with dg_run_record_free). Returns 0, 1 if no
 * such run, -1 on error. */
int dg_store_get(struct dg_store *s, int64_t id, int with_series, struct dg_run_record *rec,
                 struct dg_err *err);
/* Sets the group of run id (the steps of one sweep). */
int dg_store_set_group(struct dg_store *s, int64_t id, int64_t group_id, struct dg_err *err);
/* Calls fn for every run, newest first, with the summary columns filled (no histograms). */
typedef int (*dg_store_run_fn)(void *ctx, const struct dg_run_record *rec);
int dg_store_list(struct dg_store *s, dg_store_run_fn fn, void *ctx, struct dg_err *err);
void dg_run_record_free(struct dg_run_record *rec);
/* The acknowledged writes of run id (*out malloc'd, the caller's; *n 0 and *out NULL when
 * none). Returns 0, 1 if no such run, -1 on error. */
int dg_store_get_acks(struct dg_store *s, int64_t id, struct dg_ack **out, size_t *n, struct dg_err *err);

/* Experiments: one row per `dbgauge experiment` run, the runs point at it. */
struct dg_experiment {
    int64_t id;
    char file[512], label[256], started_at[32], ended_at[32], status[16];
    int nsteps;
};
int dg_store_experiment_begin(struct dg_store *s, const char *file, const char *label, int nsteps,
                              int64_t *id, struct dg_err *err);
int dg_store_experiment_end(struct dg_store *s, int64_t id, const char *status, struct dg_err *err);
/* Reads experiment id (0, 1 if none, -1 on error) and the ids of its runs in step order
 * (*run_ids malloc'd, the caller's). */
int dg_store_experiment_get(struct dg_store *s, int64_t id, struct dg_experiment *ex,
                            int64_t **run_ids, int *nruns, struct dg_err *err);
/* Fills the latency columns of t from its histograms. */
void dg_txn_summary_from_hist(struct dg_txn_summary *t);
/* Fills t's all-types latency columns from the merge of its types' histograms (and each
 * type's own columns). Returns 0, or -1 out of memory. */
int dg_target_summary_from_hists(struct dg_target_summary *t);

#endif
