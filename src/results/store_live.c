/* store_live.c — schema 13: runs kept as they go. A measured run writes a checkpoint every
 * 10 s (its counts, histograms, figures and the series so far, in one transaction) with the
 * identity of its process; the finished run replaces it under the same id. A run whose
 * process ended without finishing it (SIGKILL, the OOM killer, power lost) reads back as
 * "lost", with what its last checkpoint held. Experiments carry the same identity, so one
 * killed between its steps reads back as lost too. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/procid.h"
#include "results/store_internal.h"

/* Schema 12 -> 13; with the errors of each transaction type by cause (enum dg_error_cause, NULL
 * for runs stored before and for checkpoints, which do not know them). */
const char dg_store_migration_live[] =
    "ALTER TABLE run ADD COLUMN proc_id TEXT;"
    "ALTER TABLE run ADD COLUMN alive_at REAL;"
    "ALTER TABLE experiment ADD COLUMN proc_id TEXT;"
    "ALTER TABLE experiment ADD COLUMN host_name TEXT;"
    "ALTER TABLE experiment ADD COLUMN alive_at REAL;"
    "ALTER TABLE run_txn ADD COLUMN errors_connection INTEGER;"
    "ALTER TABLE run_txn ADD COLUMN errors_timeout INTEGER;"
    "ALTER TABLE run_txn ADD COLUMN errors_too_many_connections INTEGER;"
    "ALTER TABLE run_txn ADD COLUMN errors_closed_by_server INTEGER;"
    "ALTER TABLE run_txn ADD COLUMN errors_other INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN errors_connection INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN errors_timeout INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN errors_too_many_connections INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN errors_closed_by_server INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN errors_other INTEGER;";

int dg_store_run_exists(struct dg_store *s, int64_t id)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM run WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, id);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* Runs one statement with id as parameter 1, then text (when not NULL) and real (when > 0). */
static int exec_id(struct dg_store *s, const char *sql, int64_t id, const char *text, double real, const char *what,
                   struct dg_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, id);
    if (text)
        dg_store_bind_text(st, 2, text);
    if (real > 0)
        sqlite3_bind_double(st, text ? 3 : 2, real);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : dg_store_fail(err, s->db, what);
}

int dg_store_delete_run(struct dg_store *s, int64_t id, struct dg_err *err)
{
    return exec_id(s, "DELETE FROM run WHERE id = ?", id, NULL, 0, "replace the checkpointed run", err);
}

int dg_store_checkpoint(struct dg_store *s, struct dg_run_record *r, size_t *series_kept, struct dg_err *err)
{
    char me[DG_PROCID_LEN];
    dg_procid_self(me, sizeof me);
    double now = dg_wall_s();
    if (dg_store_exec(s, "BEGIN IMMEDIATE", err))
        return -1;
    /* The last seconds already kept are written again: a straggler's late counts reach them. */
    size_t from = *series_kept > 10 ? *series_kept - 10 : 0;
    int rc = -1;
    if (dg_store_run_row(s, r, err) ||
        exec_id(s, "UPDATE run SET proc_id = ?2, alive_at = ?3 WHERE id = ?1", r->id, me, now, "checkpoint", err) ||
        (r->experiment_id &&
         exec_id(s, "UPDATE experiment SET alive_at = ?2 WHERE id = ?1", r->experiment_id, NULL, now, "checkpoint", err)) ||
        exec_id(s, "DELETE FROM run_txn WHERE run_id = ?", r->id, NULL, 0, "checkpoint", err) ||
        exec_id(s, "DELETE FROM run_figure WHERE run_id = ?", r->id, NULL, 0, "checkpoint", err) ||
        dg_store_put_txns(s, r, err) || dg_store_put_figures(s, r, err) || dg_store_put_series(s, r, from, err))
        goto out;
    rc = dg_store_exec(s, "COMMIT", err);
out:
    if (rc)
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    else
        *series_kept = r->nseries;
    return rc;
}

int dg_store_abandon(struct dg_store *s, int64_t id, const char *why, struct dg_err *err)
{
    return exec_id(s, "UPDATE run SET status = 'failed', error = ?2 WHERE id = ?1 AND status = 'running'", id, why, 0,
                   "mark the checkpointed run failed", err);
}

int dg_store_experiment_alive(struct dg_store *s, int64_t id, struct dg_err *err)
{
    char me[DG_PROCID_LEN], host[64] = "";
    dg_procid_self(me, sizeof me);
    gethostname(host, sizeof host - 1);
    if (exec_id(s, "UPDATE experiment SET proc_id = ?2, alive_at = ?3 WHERE id = ?1", id, me, dg_wall_s(),
                "mark the experiment's process", err))
        return -1;
    return exec_id(s, "UPDATE experiment SET host_name = ?2 WHERE id = ?1", id, host, 0, "mark the experiment's host",
                   err);
}

const char *dg_store_liveness(const char *status, const char *proc_id, const char *host, double alive_at)
{
    if (strcmp(status, "running"))
        return status;
    char here[64] = "";
    gethostname(here, sizeof here - 1);
    int alive = dg_procid_alive(proc_id);
    if (alive == 1)
        return "running";
    /* Its process is gone from this host (or this host rebooted since): lost. */
    if (alive == 0 && (!host || !host[0] || !strcmp(host, here)))
        return "lost";
    /* Another host's (or no identity): lost once it has been silent a long time. */
    return alive_at > 0 && dg_wall_s() - alive_at > DG_STORE_SILENT_LOST_S ? "lost" : "running";
}

void dg_store_read_liveness(sqlite3_stmt *st, int col, struct dg_run_record *r)
{
    const char *proc_id = (const char *)sqlite3_column_text(st, col);
    double alive_at = sqlite3_column_double(st, col + 1);
    const char *now = dg_store_liveness(r->status, proc_id, r->host.hostname, alive_at);
    if (now == r->status || !strcmp(now, r->status))
        return;
    snprintf(r->status, sizeof r->status, "%s", now);
    if (!r->error[0]) {
        char at[32];
        dg_wall_iso(alive_at, at, sizeof at);
        snprintf(r->error, sizeof r->error, "its process ended before the run was stored: what is shown is its last "
                 "checkpoint (%s)", at);
    }
}
