/* store_ha.c — schema 11: replicas, clusters and failovers. The per-second replication rows
 * of each target (run_replication: written and read by store_repl.c), the audit made after a
 * run (run_audit: its failover RPO), the last commit before each outage (run_outage.
 * last_commit_s: its RTO), certification conflicts as a retry cause, a target's role (a
 * --read-target replica, a node of a --cluster) and the read target of the run. */
#include <stdio.h>

#include "results/store_internal.h"

/* Schema 10 -> 11. Columns added to existing tables are NULL in older runs, which did not
 * record them. run_replication has no key of its own: read back by (run_id, second) in
 * insertion order. */
const char dg_store_migration_ha[] =
    "ALTER TABLE run_txn ADD COLUMN retries_certification INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN retries_certification INTEGER;"
    "ALTER TABLE run_outage ADD COLUMN last_commit_s REAL;"
    "ALTER TABLE run_target ADD COLUMN role TEXT;"
    "ALTER TABLE run_target ADD COLUMN cluster INTEGER;"
    "CREATE TABLE IF NOT EXISTS run_replication ("
    " run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    " second INTEGER NOT NULL, target_idx INTEGER NOT NULL, name TEXT, state TEXT, sync TEXT,"
    " write_lag_s REAL, flush_lag_s REAL, replay_lag_s REAL, lag_bytes REAL, cluster_size REAL,"
    " flow_paused REAL, recv_queue REAL, send_queue REAL, cert_failures REAL, behind INTEGER);"
    "CREATE INDEX IF NOT EXISTS run_replication_run ON run_replication (run_id, second);"
    "CREATE TABLE IF NOT EXISTS run_audit ("
    " run_id INTEGER PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,"
    " acknowledged INTEGER, found INTEGER, lost INTEGER, in_doubt INTEGER, in_doubt_found INTEGER,"
    " lost_first_ms INTEGER, lost_last_ms INTEGER, payment_lost INTEGER, pass INTEGER);";

/* Schema 14 -> 15: not_made is NULL for an audit that was made (and in older files). */
const char dg_store_migration_audit[] = "ALTER TABLE run_audit ADD COLUMN not_made TEXT;";

int dg_store_put_audit(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err)
{
    if (!r->audited && !r->audit_not_made[0])
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "INSERT INTO run_audit (run_id, acknowledged, found, lost, in_doubt, in_doubt_found, "
                                  "lost_first_ms, lost_last_ms, payment_lost, pass, not_made) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    const struct dg_audit_summary *a = &r->audit;
    const int64_t v[] = {r->id, a->acknowledged, a->found, a->lost, a->in_doubt, a->in_doubt_found,
                         a->lost_first_ms, a->lost_last_ms, a->payment_lost, a->pass};
    for (int i = 0; i < (int)(sizeof v / sizeof *v); i++)
        sqlite3_bind_int64(st, i + 1, v[i]);
    if (!a->lost) { /* no span without a loss */
        sqlite3_bind_null(st, 7);
        sqlite3_bind_null(st, 8);
    }
    if (!r->audited) /* due, not made: no figures, only why */
        for (int i = 2; i <= 10; i++)
            sqlite3_bind_null(st, i);
    dg_store_bind_text(st, 11, r->audited ? NULL : r->audit_not_made);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : dg_store_fail(err, s->db, "insert run_audit");
}

int dg_store_get_audit(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT acknowledged, found, lost, in_doubt, in_doubt_found, lost_first_ms, "
                                  "lost_last_ms, payment_lost, pass, not_made FROM run_audit WHERE run_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, r->id);
    r->audited = 0;
    r->audit_not_made[0] = '\0';
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 9) != SQLITE_NULL) {
        snprintf(r->audit_not_made, sizeof r->audit_not_made, "%s", (const char *)sqlite3_column_text(st, 9));
    } else if (rc == SQLITE_ROW) {
        struct dg_audit_summary *a = &r->audit;
        a->acknowledged = sqlite3_column_int64(st, 0);
        a->found = sqlite3_column_int64(st, 1);
        a->lost = sqlite3_column_int64(st, 2);
        a->in_doubt = sqlite3_column_int64(st, 3);
        a->in_doubt_found = sqlite3_column_int64(st, 4);
        a->lost_first_ms = sqlite3_column_int64(st, 5);
        a->lost_last_ms = sqlite3_column_int64(st, 6);
        a->payment_lost = sqlite3_column_int(st, 7);
        a->pass = sqlite3_column_int(st, 8);
        r->audited = 1;
    }
    sqlite3_finalize(st);
    return 0;
}
