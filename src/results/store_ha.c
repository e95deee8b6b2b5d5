/* store_ha.c — schema 11: replicas, clusters and failovers. The per-second replication rows
 * of each target (run_replication: written and read by store_repl.c), the audit made after a
 * run (run_audit: its failover RPO), the last commit before each outage (run_outage.
 * last_commit_s: its RTO), certification conflicts as a retry cause, a target's role (a
 * --read-target replica, a node of a --cluster) and the read target of the run. */
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
