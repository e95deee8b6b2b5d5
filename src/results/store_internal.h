/* store_internal.h — what the results database's files share inside results/: the open
 * handle and the binding and reading of one transaction type's row (run_txn, run_target_txn).
 * Not for use outside src/results/. */
#ifndef DG_STORE_INTERNAL_H
#define DG_STORE_INTERNAL_H

#include <sqlite3.h>

#include "results/store.h"

struct dg_store {
    sqlite3 *db;
};

int dg_store_fail(struct dg_err *err, sqlite3 *db, const char *what);
void dg_store_bind_text(sqlite3_stmt *st, int i, const char *v);
void dg_store_copy_col(sqlite3_stmt *st, int i, char *out, size_t n);
/* store_txn.c: schema 14's migration (the errors read_only and gave_up); binds x's 31 columns
 * (type ... p90_limit_ms, retries_deadlock ... retries_other, in_doubt, errors_connection ...
 * errors_other: the order of DG_STORE_TXN_COLS) from parameter i on; returns the next
 * parameter's index. An error cause goes NULL when x does not know it. */
extern const char dg_store_migration_causes[];
int dg_store_bind_txn(sqlite3_stmt *st, int i, const struct dg_txn_summary *x);
/* Reads the same 31 columns from column col on into x (which then owns its histograms).
 * Returns 0, or -1 when a histogram is damaged or memory ran out. */
int dg_store_read_txn(sqlite3_stmt *st, int col, struct dg_txn_summary *x);
#define DG_STORE_TXN_COLS                                                                          \
    "type, committed, rollbacks, retries, errors, avg_ms, p50_ms, p90_ms, p95_ms, p99_ms, max_ms, " \
    "histogram, service_p50_ms, service_p95_ms, service_p99_ms, service_histogram, p90_limit_ms, "   \
    "retries_deadlock, retries_serialization, retries_lock_timeout, retries_busy, "                    \
    "retries_certification, retries_other, "                                                       \
    "in_doubt, "                                                                                   \
    "errors_connection, errors_timeout, errors_too_many_connections, errors_closed_by_server, "      \
    "errors_read_only, errors_gave_up, errors_other"
/* One placeholder per column of DG_STORE_TXN_COLS. */
#define DG_STORE_TXN_PARAMS "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?"

/* store_targets.c: the per-target rows of r (run r->id), inside the caller's transaction. */
int dg_store_put_targets(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err);
/* Reads run r->id's per-target rows into r->targets (none: left NULL). */
int dg_store_get_targets(struct dg_store *s, struct dg_run_record *r, struct dg_err *err);
void dg_store_free_targets(struct dg_run_record *r);

/* store_monitor.c: the monitor device and points of run r->id (put: inside the caller's
 * transaction). */
int dg_store_put_monitor(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err);
int dg_store_get_monitor(struct dg_store *s, struct dg_run_record *r, struct dg_err *err);
/* One host's monitor points in table: run_monitor (rank < 0), or run_rank_monitor for that rank. */
int dg_store_put_points(struct dg_store *s, const char *table, int64_t run_id, int rank,
                        const struct dg_monitor_point *pts, size_t n, struct dg_err *err);
int dg_store_get_points(struct dg_store *s, const char *table, int64_t run_id, int rank,
                        struct dg_monitor_point **pts, size_t *n, struct dg_err *err);
/* store_repl.c: the replication rows of run r->id (put: inside the caller's transaction; get:
 * always, in order of second then as sampled); free: r->repl. */
int dg_store_put_repl(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err);
int dg_store_get_repl(struct dg_store *s, struct dg_run_record *r, struct dg_err *err);
void dg_store_free_repl(struct dg_run_record *r);

/* store_figures.c: schema 9's migration (table run_figure, filled for older runs from their
 * old columns), and the figures of run r->id and its targets (put: inside the caller's
 * transaction; get: after its targets are read, else only the run's own). */
extern const char dg_store_migration_figures[];
int dg_store_put_figures(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err);
int dg_store_get_figures(struct dg_store *s, struct dg_run_record *r, struct dg_err *err);
/* Inserts figures f[0..n) of set idx through st, a prepared "INSERT INTO <table> (run_id, <idx>,
 * seq, name, label, unit, decimals, value)" (run_figure: the target, -1 the run; run_rank_figure:
 * the rank). 0, or -1 when a row fails (sqlite3_errmsg tells). */
int dg_store_put_figure_set(sqlite3_stmt *st, int64_t run_id, int idx, const struct dg_figure *f, int n);
/* Reads one figure from columns col.. col+4 (name, label, unit, decimals, value) into f. */
void dg_store_read_figure(sqlite3_stmt *st, int col, struct dg_figure *f);
/* Binds the value of the figure called name in figs[0..n) to parameter i, NULL when there is
 * none: the old columns run.nopm, tpm, tpmc and run_target.nopm, tpm, which the store keeps
 * writing for SQL readers of schema 8 (reports read run_figure only). */
void dg_store_bind_legacy(sqlite3_stmt *st, int i, const struct dg_figure *figs, int n, const char *name);

/* store_faults.c: schema 10's migration; the schedule (run.arrivals, late, skipped), faults,
 * outages and acknowledged writes of run r->id (put: inside the caller's transaction; get:
 * the schedule, faults and outages, never the acks: dg_store_get_acks). */
extern const char dg_store_migration_faults[];
extern const char dg_store_migration_ha[];
/* store_ha.c: schema 15's migration (run_audit.not_made); the audit made after run r
 * (run_audit), when r->audited, or why one due was not made. */
extern const char dg_store_migration_audit[];
int dg_store_put_audit(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err);
int dg_store_get_audit(struct dg_store *s, struct dg_run_record *r, struct dg_err *err);
/* The fault schedule, faults and outages of r; its acknowledged writes apart (dg_store_put
 * keeps them last: the biggest part, and only a later audit reads them). */
int dg_store_put_faults(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err);
int dg_store_put_acks(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err);
int dg_store_get_faults(struct dg_store *s, struct dg_run_record *r, struct dg_err *err);
/* Frees r's faults, outages and acks. */
void dg_store_free_faults(struct dg_run_record *r);

/* store_ranks.c: schema 12's migration (run_rank, run_rank_figure); the per-rank rows of run
 * r->id (put: inside the caller's transaction, nothing when r->nranks is 0; get: always, into
 * r->ranks, malloc'd and r's, NULL when none); free: r->ranks. */
extern const char dg_store_migration_ranks[];
int dg_store_put_ranks(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err);
int dg_store_get_ranks(struct dg_store *s, struct dg_run_record *r, struct dg_err *err);
void dg_store_free_ranks(struct dg_run_record *r);

/* store.c: the pieces of a run's rows, inside the caller's transaction. The run row is
 * inserted (r->id set, or kept when > 0) or, when run r->id exists, updated. */
int dg_store_run_row(struct dg_store *s, struct dg_run_record *r, struct dg_err *err);
int dg_store_put_txns(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err);
/* Series points from..nseries (those already there are replaced). */
int dg_store_put_series(struct dg_store *s, const struct dg_run_record *r, size_t from, struct dg_err *err);
int dg_store_exec(struct dg_store *s, const char *sql, struct dg_err *err);

/* store_live.c: schema 13's migration; whether run id exists; deleting it with its rows;
 * reading a run's liveness columns (proc_id, alive_at from col) into its status. */
extern const char dg_store_migration_live[];
int dg_store_run_exists(struct dg_store *s, int64_t id);
int dg_store_delete_run(struct dg_store *s, int64_t id, struct dg_err *err);
void dg_store_read_liveness(sqlite3_stmt *st, int col, struct dg_run_record *r);
/* What a stored status means now: "running" becomes "lost" when its process is gone. */
const char *dg_store_liveness(const char *status, const char *proc_id, const char *host, double alive_at);

#endif
