/* store.c — the results database on SQLite: schema migrations keyed by PRAGMA user_version,
 * put/get/list of runs with their per-type summaries and encoded histograms.
 * Knows nothing of how a run was measured. */
#include "results/store.h"
#include "results/store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Migration k takes the schema from version k to k + 1. Append only. */
static const char *const migrations[] = {
    "CREATE TABLE run ("
    " id INTEGER PRIMARY KEY,"
    " workload TEXT NOT NULL, status TEXT NOT NULL, label TEXT,"
    " started_at TEXT, ended_at TEXT,"
    " target TEXT, engine TEXT, engine_version TEXT, settings TEXT, options TEXT, command_line TEXT,"
    " host_name TEXT, host_cpu TEXT, host_cores INTEGER, host_mem_bytes INTEGER, host_kernel TEXT,"
    " dbgauge_version TEXT,"
    " warehouses INTEGER, vus INTEGER, warmup_s REAL, measured_s REAL,"
    " nopm REAL, tpm REAL, client_cpu_s REAL, error TEXT);"
    "CREATE TABLE run_txn ("
    " run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    " seq INTEGER NOT NULL, type TEXT NOT NULL,"
    " committed INTEGER, rollbacks INTEGER, retries INTEGER, errors INTEGER,"
    " avg_ms REAL, p50_ms REAL, p90_ms REAL, p95_ms REAL, p99_ms REAL, max_ms REAL,"
    " histogram BLOB,"
    " PRIMARY KEY (run_id, seq));",
    /* 2: the per-second series */
    "CREATE TABLE run_series ("
    " run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    " second INTEGER NOT NULL, seq INTEGER NOT NULL,"
    " committed INTEGER, rollbacks INTEGER, retries INTEGER, errors INTEGER,"
    " p50_ms REAL, p95_ms REAL, p99_ms REAL,"
    " PRIMARY KEY (run_id, second, seq)) WITHOUT ROWID;",
    /* 3: load models */
    "ALTER TABLE run ADD COLUMN load_model TEXT DEFAULT 'closed';"
    "ALTER TABLE run ADD COLUMN rate_asked REAL;"
    "ALTER TABLE run ADD COLUMN think_scale REAL;"
    "ALTER TABLE run ADD COLUMN terminals INTEGER;"
    "ALTER TABLE run ADD COLUMN tpmc REAL;"
    "ALTER TABLE run ADD COLUMN tpmc_ceiling REAL;"
    "ALTER TABLE run ADD COLUMN lag_p50_ms REAL;"
    "ALTER TABLE run ADD COLUMN lag_p99_ms REAL;"
    "ALTER TABLE run ADD COLUMN lag_max_ms REAL;"
    "ALTER TABLE run_txn ADD COLUMN service_p50_ms REAL;"
    "ALTER TABLE run_txn ADD COLUMN service_p95_ms REAL;"
    "ALTER TABLE run_txn ADD COLUMN service_p99_ms REAL;"
    "ALTER TABLE run_txn ADD COLUMN service_histogram BLOB;"
    "ALTER TABLE run_txn ADD COLUMN p90_limit_ms REAL;",
    /* 4: query stress */
    "ALTER TABLE run ADD COLUMN group_id INTEGER;"
    "ALTER TABLE run ADD COLUMN query TEXT;"
    "ALTER TABLE run ADD COLUMN rows INTEGER;"
    "ALTER TABLE run ADD COLUMN bytes INTEGER;"
    "ALTER TABLE run ADD COLUMN server_blocks_hit REAL;"
    "ALTER TABLE run ADD COLUMN server_blocks_read REAL;"
    "CREATE INDEX run_group ON run (group_id);",
    /* 5: the host and engine monitor, one row per second (NULL: not available) */
    "CREATE TABLE run_monitor ("
    " run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    " second INTEGER NOT NULL,"
    " cpu_user_pct REAL, cpu_sys_pct REAL, cpu_iowait_pct REAL,"
    " disk_read_mb_s REAL, disk_write_mb_s REAL, disk_read_iops REAL, disk_write_iops REAL,"
    " disk_await_ms REAL, server_rss_bytes REAL, server_read_mb_s REAL, server_write_mb_s REAL,"
    " cache_hits_per_s REAL, cache_misses_per_s REAL,"
    " PRIMARY KEY (run_id, second)) WITHOUT ROWID;"
    "ALTER TABLE run ADD COLUMN monitor_device TEXT;",
    /* 6: several targets at once */
    "CREATE TABLE run_target ("
    " run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    " idx INTEGER NOT NULL, target_redacted TEXT, engine TEXT, engine_version TEXT, settings TEXT,"
    " warehouses INTEGER, vus INTEGER, workers_failed INTEGER, nopm REAL, tpm REAL,"
    " avg_ms REAL, p50_ms REAL, p95_ms REAL, p99_ms REAL, max_ms REAL,"
    " PRIMARY KEY (run_id, idx));"
    "CREATE TABLE run_target_txn ("
    " run_id INTEGER NOT NULL, idx INTEGER NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,"
    " committed INTEGER, rollbacks INTEGER, retries INTEGER, errors INTEGER,"
    " avg_ms REAL, p50_ms REAL, p90_ms REAL, p95_ms REAL, p99_ms REAL, max_ms REAL,"
    " histogram BLOB, service_p50_ms REAL, service_p95_ms REAL, service_p99_ms REAL,"
    " service_histogram BLOB, p90_limit_ms REAL,"
    " PRIMARY KEY (run_id, idx, seq),"
    " FOREIGN KEY (run_id, idx) REFERENCES run_target(run_id, idx) ON DELETE CASCADE);",
    /* 7: experiments (job files): one row each, its steps are runs */
    "CREATE TABLE experiment ("
    " id INTEGER PRIMARY KEY, file TEXT, label TEXT, started_at TEXT, ended_at TEXT,"
    " status TEXT NOT NULL, nsteps INTEGER);"
    "ALTER TABLE run ADD COLUMN experiment_id INTEGER REFERENCES experiment(id);"
    "ALTER TABLE run ADD COLUMN experiment_step INTEGER;"
    "ALTER TABLE run ADD COLUMN swept TEXT;"
    "ALTER TABLE run ADD COLUMN knobs TEXT;"
    "CREATE INDEX run_experiment ON run (experiment_id, experiment_step);",
    /* 8: retries by cause (NULL in runs stored before: not told apart then) */
    "ALTER TABLE run_txn ADD COLUMN retries_deadlock INTEGER;"
    "ALTER TABLE run_txn ADD COLUMN retries_serialization INTEGER;"
    "ALTER TABLE run_txn ADD COLUMN retries_lock_timeout INTEGER;"
    "ALTER TABLE run_txn ADD COLUMN retries_busy INTEGER;"
    "ALTER TABLE run_txn ADD COLUMN retries_other INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN retries_deadlock INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN retries_serialization INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN retries_lock_timeout INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN retries_busy INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN retries_other INTEGER;",
    /* 9: headline figures as rows (store_figures.c) */
    dg_store_migration_figures,
    /* 10: in-doubt errors, reconnects per second, the open loop's schedule, faults, outages and
     * acknowledged writes (store_faults.c) */
    dg_store_migration_faults,
    /* 11: replication rows, the audit after a run, outages' last commit, certification
     * retries, target roles and clusters (store_ha.c) */
    dg_store_migration_ha,
    /* 12: the client processes (MPI ranks) of a run driven from several (store_ranks.c) */
    dg_store_migration_ranks,
    /* 13: checkpoints of unfinished runs, and the process of each run and experiment */
    dg_store_migration_live,
    /* 14: the errors read_only and gave_up (store_txn.c) */
    dg_store_migration_causes,
    /* 15: an audit that was due and could not be made, and why (store_ha.c) */
    dg_store_migration_audit,
};
#define NMIGRATIONS ((int)(sizeof migrations / sizeof *migrations))
_Static_assert(sizeof migrations / sizeof *migrations == DG_STORE_SCHEMA_VERSION,
               "one migration per schema version (store.h)");

int dg_store_fail(struct dg_err *err, sqlite3 *db, const char *what)
{
    /* A damaged file, or one whose tables are not those this dbgauge made, is bad input
     * (exit 2), as a file that is no SQLite database is; the disk, locks or memory are not. */
    int code = sqlite3_errcode(db), primary = code & 0xff;
    int damaged = primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB || primary == SQLITE_ERROR ||
                  primary == SQLITE_FORMAT || primary == SQLITE_MISMATCH || primary == SQLITE_RANGE ||
                  primary == SQLITE_SCHEMA;
    const char *file = db ? sqlite3_db_filename(db, "main") : NULL;
    return dg_err_set(err, damaged ? DG_ERR_USER : DG_ERR_FATAL, code, "results database '%s': %s: %s",
                      file ? file : "?", what,
                      sqlite3_errmsg(db));
}

static int exec(sqlite3 *db, const char *sql, struct dg_err *err)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : dg_store_fail(err, db, sql);
}

/* The schema version of the file open in db, or -1 when it cannot be read. */
static int schema_version(sqlite3 *db)
{
    sqlite3_stmt *st;
    int version = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            version = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    return version;
}

/* An existing file whose write-ahead log cannot be opened (a read-only mount, another user's
 * file, a file system too full for the log's index): opened again as immutable, read only, so
 * readers still read it (what a writer left in its log, if any, is not seen). */
static int reopen_immutable(const char *path, sqlite3 **db)
{
    if (access(path, F_OK))
        return -1;
    char uri[4200] = "file:";
    size_t n = strlen(uri);
    for (const char *c = path; *c && n + 4 < sizeof uri - 16; c++) /* a URI: ?, # and % escaped */
        n += (size_t)(strchr("?#%", *c) ? snprintf(uri + n, 4, "%%%02X", (unsigned char)*c)
                                        : snprintf(uri + n, 2, "%c", *c));
    snprintf(uri + n, sizeof uri - n, "?immutable=1");
    sqlite3_close(*db);
    *db = NULL;
    return sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK ? 0 : -1;
}

int dg_store_open(const char *path, struct dg_store **out, struct dg_err *err)
{
    struct dg_store *s = calloc(1, sizeof *s);
    if (!s)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *(slash == dir ? slash + 1 : slash) = '\0';
        int no_dir = slash && access(dir, F_OK) != 0;
        dg_err_set(err, DG_ERR_USER, 0, "cannot open results database '%s': %s%s%s%s", path,
                   s->db ? sqlite3_errmsg(s->db) : "out of memory", no_dir ? " (its directory '" : "",
                   no_dir ? dir : "", no_dir ? "' does not exist)" : "");
        goto fail;
    }
    sqlite3_busy_timeout(s->db, 30000);
    sqlite3_stmt *st;
    int version = schema_version(s->db);
    if (version < 0 && reopen_immutable(path, &s->db) == 0)
        version = schema_version(s->db);
    if (version < 0) {
        dg_err_set(err, DG_ERR_USER, 0, "'%s' is not a dbgauge results database: %s", path,
                   sqlite3_errmsg(s->db));
        goto fail;
    }
    if (version > NMIGRATIONS) {
        dg_err_set(err, DG_ERR_USER, 0,
                   "results database '%s' has schema version %d, newer than this dbgauge (%d)",
                   path, version, NMIGRATIONS);
        goto fail;
    }
    if (version == 0) { /* a new file, or someone else's SQLite file? */
        int64_t tables = 0;
        if (sqlite3_prepare_v2(s->db, "SELECT COUNT(*) FROM sqlite_master", -1, &st, NULL) == SQLITE_OK) {
            if (sqlite3_step(st) == SQLITE_ROW)
                tables = sqlite3_column_int64(st, 0);
            sqlite3_finalize(st);
        }
        if (tables > 0) {
            dg_err_set(err, DG_ERR_USER, 0,
                       "'%s' is a SQLite database but not a dbgauge results database", path);
            goto fail;
        }
    }
    for (int v = version; v < NMIGRATIONS; v++) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA user_version=%d", v + 1);
        if (exec(s->db, "BEGIN IMMEDIATE", err) || exec(s->db, migrations[v], err) ||
            exec(s->db, sql, err) || exec(s->db, "COMMIT", err)) {
            /* read-only, a full disk, a directory that cannot be written: the user's to fix */
            dg_err_set(err, DG_ERR_USER, sqlite3_errcode(s->db), "results database '%s' is at schema %d and cannot "
                       "be brought to schema %d: %s", path, version, NMIGRATIONS, sqlite3_errmsg(s->db));
            goto fail;
        }
    }
    exec(s->db, "PRAGMA foreign_keys=ON", err);
    /* Write-ahead logging: a run's checkpoints commit while readers read, and a process killed
     * mid-write leaves the file as of its last commit. A file that cannot change (read-only)
     * keeps its journal mode: readers need none. */
    sqlite3_exec(s->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
    *out = s;
    return 0;
fail:
    sqlite3_close(s->db);
    free(s);
    return -1;
}

int dg_store_check_writable(struct dg_store *s, struct dg_err *err)
{
    const char *file = sqlite3_db_filename(s->db, "main");
    if (sqlite3_db_readonly(s->db, "main") == 1) {
        struct statvfs fs;
        int full = statvfs(file ? file : ".", &fs) == 0 && (double)fs.f_bavail * (double)fs.f_frsize < 256 * 1024.0;
        return dg_err_set(err, DG_ERR_USER, SQLITE_READONLY, "results database '%s' %s: a run must store into it "
                          "(give another --results)", file ? file : "?",
                          full ? "cannot be written: its file system is full" : "is read-only");
    }
    /* A real write of what is there: a directory that cannot take the journal, or a disk
     * too full for one page, fails here rather than after the run. */
    char sql[96];
    snprintf(sql, sizeof sql, "BEGIN IMMEDIATE; PRAGMA user_version=%d; COMMIT", NMIGRATIONS);
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        dg_err_set(err, DG_ERR_USER, sqlite3_errcode(s->db), "results database '%s' cannot be written: %s (a run "
                   "must store into it; give another --results)", file ? file : "?", sqlite3_errmsg(s->db));
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

void dg_store_close(struct dg_store *s)
{
    if (!s)
        return;
    sqlite3_close(s->db);
    free(s);
}

void dg_store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v && *v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}


/* The experiment columns of run r->id (inside dg_store_put's transaction). */
static int put_experiment_cols(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err)
{
    if (!r->experiment_id && !r->knobs_json)
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "UPDATE run SET experiment_id = ?, experiment_step = ?, swept = ?, "
                           "knobs = ? WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    if (r->experiment_id)
        sqlite3_bind_int64(st, 1, r->experiment_id);
    else
        sqlite3_bind_null(st, 1);
    sqlite3_bind_int(st, 2, r->experiment_step);
    dg_store_bind_text(st, 3, r->swept_json);
    dg_store_bind_text(st, 4, r->knobs_json);
    sqlite3_bind_int64(st, 5, r->id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : dg_store_fail(err, s->db, "store the experiment columns");
}

/* Binds r's run columns in run_sql's order. */
static void bind_run(sqlite3_stmt *st, const struct dg_run_record *r)
{
    int i = 1;
    dg_store_bind_text(st, i++, r->workload);
    dg_store_bind_text(st, i++, r->status);
    dg_store_bind_text(st, i++, r->label);
    dg_store_bind_text(st, i++, r->started_at);
    dg_store_bind_text(st, i++, r->ended_at);
    dg_store_bind_text(st, i++, r->target);
    dg_store_bind_text(st, i++, r->engine);
    dg_store_bind_text(st, i++, r->engine_version);
    dg_store_bind_text(st, i++, r->settings_json);
    dg_store_bind_text(st, i++, r->options_json);
    dg_store_bind_text(st, i++, r->command_line);
    dg_store_bind_text(st, i++, r->host.hostname);
    dg_store_bind_text(st, i++, r->host.cpu_model);
    sqlite3_bind_int(st, i++, r->host.cores);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)r->host.mem_bytes);
    dg_store_bind_text(st, i++, r->host.kernel);
    dg_store_bind_text(st, i++, r->dbgauge_version);
    sqlite3_bind_int(st, i++, r->warehouses);
    sqlite3_bind_int(st, i++, r->vus);
    sqlite3_bind_double(st, i++, r->warmup_s);
    sqlite3_bind_double(st, i++, r->measured_s);
    dg_store_bind_legacy(st, i++, r->figures, r->nfigures, "nopm");
    dg_store_bind_legacy(st, i++, r->figures, r->nfigures, "tpm");
    sqlite3_bind_double(st, i++, r->client_cpu_s);
    dg_store_bind_text(st, i++, r->error);
    dg_store_bind_text(st, i++, r->load_model[0] ? r->load_model : "closed");
    sqlite3_bind_double(st, i++, r->rate_asked);
    sqlite3_bind_double(st, i++, r->think_scale);
    sqlite3_bind_int(st, i++, r->terminals);
    dg_store_bind_legacy(st, i++, r->figures, r->nfigures, "tpmc");
    sqlite3_bind_double(st, i++, r->tpmc_ceiling);
    sqlite3_bind_double(st, i++, r->lag_p50_ms);
    sqlite3_bind_double(st, i++, r->lag_p99_ms);
    sqlite3_bind_double(st, i++, r->lag_max_ms);
    if (r->group_id)
        sqlite3_bind_int64(st, i++, r->group_id);
    else
        sqlite3_bind_null(st, i++);
    dg_store_bind_text(st, i++, r->query);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)r->rows);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)r->bytes);
    sqlite3_bind_double(st, i++, r->server_blocks_hit);
    sqlite3_bind_double(st, i++, r->server_blocks_read);
}

/* The run row's columns, in bind_run's order; the id follows them as parameter 41. */
#define RUN_PUT_COLS                                                                               \
    "workload, status, label, started_at, ended_at, target, engine, engine_version, settings, "    \
    "options, command_line, host_name, host_cpu, host_cores, host_mem_bytes, host_kernel, "        \
    "dbgauge_version, warehouses, vus, warmup_s, measured_s, nopm, tpm, client_cpu_s, error, "     \
    "load_model, rate_asked, think_scale, terminals, tpmc, tpmc_ceiling, lag_p50_ms, lag_p99_ms, " \
    "lag_max_ms, group_id, query, rows, bytes, server_blocks_hit, server_blocks_read"

int dg_store_run_row(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    static const char insert_sql[] =
        "INSERT INTO run (" RUN_PUT_COLS ", id) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    static const char update_sql[] =
        "UPDATE run SET (" RUN_PUT_COLS ") = "
        "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) WHERE id = ?41";
    sqlite3_stmt *st;
    int update = r->id > 0 && dg_store_run_exists(s, r->id);
    if (sqlite3_prepare_v2(s->db, update ? update_sql : insert_sql, -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    bind_run(st, r);
    if (r->id > 0)
        sqlite3_bind_int64(st, 41, r->id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return dg_store_fail(err, s->db, update ? "update run" : "insert run");
    if (!update && r->id <= 0)
        r->id = sqlite3_last_insert_rowid(s->db);
    return put_experiment_cols(s, r, err);
}

int dg_store_put_txns(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err)
{
    static const char txn_sql[] =
        "INSERT INTO run_txn (run_id, seq, " DG_STORE_TXN_COLS ") VALUES (?,?," DG_STORE_TXN_PARAMS ")";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, txn_sql, -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    int rc = 0;
    for (int t = 0; t < r->ntypes && !rc; t++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, r->id);
        sqlite3_bind_int(st, 2, t);
        dg_store_bind_txn(st, 3, &r->txn[t]);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = dg_store_fail(err, s->db, "insert run_txn");
    }
    sqlite3_finalize(st);
    return rc;
}

int dg_store_put_series(struct dg_store *s, const struct dg_run_record *r, size_t from, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO run_series (run_id, second, seq, committed, rollbacks, "
                           "retries, errors, p50_ms, p95_ms, p99_ms, reconnects) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    int rc = 0;
    for (size_t k = from; k < r->nseries && !rc; k++)
        for (int t = 0; t < r->ntypes && !rc; t++) {
            const struct dg_series_type *x = &r->series[k].t[t];
            sqlite3_reset(st);
            sqlite3_bind_int64(st, 1, r->id);
            sqlite3_bind_int64(st, 2, r->series[k].second);
            sqlite3_bind_int(st, 3, t);
            sqlite3_bind_int64(st, 4, (sqlite3_int64)x->c.committed);
            sqlite3_bind_int64(st, 5, (sqlite3_int64)x->c.rollbacks);
            sqlite3_bind_int64(st, 6, (sqlite3_int64)x->c.retries);
            sqlite3_bind_int64(st, 7, (sqlite3_int64)x->c.errors);
            sqlite3_bind_double(st, 8, x->p50_ms);
            sqlite3_bind_double(st, 9, x->p95_ms);
            sqlite3_bind_double(st, 10, x->p99_ms);
            if (t == 0) /* per second, not per type: on the type-0 row */
                sqlite3_bind_int64(st, 11, (sqlite3_int64)r->series[k].reconnects);
            else
                sqlite3_bind_null(st, 11);
            if (sqlite3_step(st) != SQLITE_DONE)
                rc = dg_store_fail(err, s->db, "insert run_series");
        }
    sqlite3_finalize(st);
    return rc;
}

int dg_store_exec(struct dg_store *s, const char *sql, struct dg_err *err) { return exec(s->db, sql, err); }

static char *dup_col(sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    return t ? strdup(t) : NULL;
}

void dg_store_copy_col(sqlite3_stmt *st, int i, char *out, size_t n)
{
    /* Names, labels, targets, messages are shown on terminals: a control byte a damaged or
     * crafted file holds is read as \xNN (dg_err_put_byte), never sent raw. */
    const char *t = (const char *)sqlite3_column_text(st, i);
    size_t o = 0;
    for (; t && *t && dg_err_put_byte(out, n, &o, (unsigned char)*t) == 0; t++)
        ;
    out[o] = '\0';
}

static const char run_cols[] =
    "id, workload, status, label, started_at, ended_at, target, engine, engine_version, settings, "
    "options, command_line, host_name, host_cpu, host_cores, host_mem_bytes, host_kernel, "
    "dbgauge_version, warehouses, vus, warmup_s, measured_s, client_cpu_s, error, "
    "load_model, rate_asked, think_scale, terminals, tpmc_ceiling, lag_p50_ms, lag_p99_ms, "
    "lag_max_ms, group_id, query, rows, bytes, server_blocks_hit, server_blocks_read, "
    "experiment_id, experiment_step, swept, knobs, proc_id, alive_at";

static void read_run(sqlite3_stmt *st, struct dg_run_record *r)
{
    int i = 0;
    r->id = sqlite3_column_int64(st, i++);
    dg_store_copy_col(st, i++, r->workload, sizeof r->workload);
    dg_store_copy_col(st, i++, r->status, sizeof r->status);
    dg_store_copy_col(st, i++, r->label, sizeof r->label);
    dg_store_copy_col(st, i++, r->started_at, sizeof r->started_at);
    dg_store_copy_col(st, i++, r->ended_at, sizeof r->ended_at);
    dg_store_copy_col(st, i++, r->target, sizeof r->target);
    dg_store_copy_col(st, i++, r->engine, sizeof r->engine);
    dg_store_copy_col(st, i++, r->engine_version, sizeof r->engine_version);
    r->settings_json = dup_col(st, i++);
    r->options_json = dup_col(st, i++);
    r->command_line = dup_col(st, i++);
    dg_store_copy_col(st, i++, r->host.hostname, sizeof r->host.hostname);
    dg_store_copy_col(st, i++, r->host.cpu_model, sizeof r->host.cpu_model);
    r->host.cores = sqlite3_column_int(st, i++);
    r->host.mem_bytes = (uint64_t)sqlite3_column_int64(st, i++);
    dg_store_copy_col(st, i++, r->host.kernel, sizeof r->host.kernel);
    dg_store_copy_col(st, i++, r->dbgauge_version, sizeof r->dbgauge_version);
    r->warehouses = sqlite3_column_int(st, i++);
    r->vus = sqlite3_column_int(st, i++);
    r->warmup_s = sqlite3_column_double(st, i++);
    r->measured_s = sqlite3_column_double(st, i++);
    r->client_cpu_s = sqlite3_column_double(st, i++);
    dg_store_copy_col(st, i++, r->error, sizeof r->error);
    dg_store_copy_col(st, i++, r->load_model, sizeof r->load_model);
    r->rate_asked = sqlite3_column_double(st, i++);
    r->think_scale = sqlite3_column_double(st, i++);
    r->terminals = sqlite3_column_int(st, i++);
    r->tpmc_ceiling = sqlite3_column_double(st, i++);
    r->lag_p50_ms = sqlite3_column_double(st, i++);
    r->lag_p99_ms = sqlite3_column_double(st, i++);
    r->lag_max_ms = sqlite3_column_double(st, i++);
    r->group_id = sqlite3_column_int64(st, i++);
    r->query = dup_col(st, i++);
    r->rows = (uint64_t)sqlite3_column_int64(st, i++);
    r->bytes = (uint64_t)sqlite3_column_int64(st, i++);
    r->server_blocks_hit = sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_double(st, i);
    i++;
    r->server_blocks_read = sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_double(st, i);
    i++;
    r->experiment_id = sqlite3_column_int64(st, i++);
    r->experiment_step = sqlite3_column_int(st, i++);
    r->swept_json = dup_col(st, i++);
    r->knobs_json = dup_col(st, i++);
    dg_store_read_liveness(st, i, r);
}

static int read_series(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    sqlite3_stmt *st;
    int64_t lo = 0, hi = -1, rows = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT MIN(second), MAX(second), COUNT(*) FROM run_series WHERE run_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, r->id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        lo = sqlite3_column_int64(st, 0);
        hi = sqlite3_column_int64(st, 1);
        rows = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    if (hi < lo)
        return 0;
    /* One row per second and type: a span wider than the rows is a damaged file (and would
     * overflow or ask for memory it cannot have). */
    if ((lo < 0 && hi > INT64_MAX + lo) || hi - lo >= rows)
        return dg_err_set(err, DG_ERR_USER, 0, "results database: run %lld has a damaged series (seconds %lld to "
                          "%lld in %lld rows)", (long long)r->id, (long long)lo, (long long)hi, (long long)rows);
    r->nseries = (size_t)(hi - lo + 1);
    r->series = calloc(r->nseries, sizeof *r->series);
    if (!r->series)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    for (size_t k = 0; k < r->nseries; k++)
        r->series[k].second = lo + (int64_t)k;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT second, seq, committed, rollbacks, retries, errors, p50_ms, "
                           "p95_ms, p99_ms, reconnects FROM run_series WHERE run_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, r->id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t k = sqlite3_column_int64(st, 0) - lo;
        int t = sqlite3_column_int(st, 1);
        if (t < 0 || t >= DG_MAX_TYPES)
            continue;
        struct dg_series_type *x = &r->series[k].t[t];
        x->c.committed = (uint64_t)sqlite3_column_int64(st, 2);
        x->c.rollbacks = (uint64_t)sqlite3_column_int64(st, 3);
        x->c.retries = (uint64_t)sqlite3_column_int64(st, 4);
        x->c.errors = (uint64_t)sqlite3_column_int64(st, 5);
        x->p50_ms = sqlite3_column_double(st, 6);
        x->p95_ms = sqlite3_column_double(st, 7);
        x->p99_ms = sqlite3_column_double(st, 8);
        if (t == 0)
            r->series[k].reconnects = (uint64_t)sqlite3_column_int64(st, 9);
    }
    sqlite3_finalize(st);
    return 0;
}

int dg_store_get(struct dg_store *s, int64_t id, int with_series, struct dg_run_record *r,
                 struct dg_err *err)
{
    char sql[1024];
    sqlite3_stmt *st;
    memset(r, 0, sizeof *r);
    snprintf(sql, sizeof sql, "SELECT %s FROM run WHERE id = ?", run_cols);
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return rc == SQLITE_DONE ? 1 : dg_store_fail(err, s->db, "read run");
    }
    read_run(st, r);
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(s->db,
                           "SELECT " DG_STORE_TXN_COLS " FROM run_txn WHERE run_id = ? ORDER BY seq",
                           -1, &st, NULL) != SQLITE_OK) {
        dg_store_fail(err, s->db, "prepare");
        dg_run_record_free(r);
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && r->ntypes < DG_MAX_TYPES) {
        struct dg_txn_summary *x = &r->txn[r->ntypes++];
        if (dg_store_read_txn(st, 0, x)) {
            sqlite3_finalize(st);
            dg_run_record_free(r);
            return dg_err_set(err, DG_ERR_USER, 0,
                              "results database: run %lld has a damaged histogram for %s",
                              (long long)id, x->name);
        }
    }
    sqlite3_finalize(st);
    /* The monitor's points always: the run's summary shows their means. */
    if (dg_store_get_monitor(s, r, err) || dg_store_get_repl(s, r, err) || dg_store_get_targets(s, r, err) ||
        dg_store_get_figures(s, r, err) || dg_store_get_faults(s, r, err) || dg_store_get_audit(s, r, err) ||
        dg_store_get_ranks(s, r, err) || (with_series && read_series(s, r, err))) {
        dg_run_record_free(r);
        return -1;
    }
    return 0;
}

int dg_store_set_group(struct dg_store *s, int64_t id, int64_t group_id, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "UPDATE run SET group_id = ? WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, group_id);
    sqlite3_bind_int64(st, 2, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : dg_store_fail(err, s->db, "set group");
}

int dg_store_list(struct dg_store *s, dg_store_run_fn fn, void *ctx, struct dg_err *err)
{
    char sql[1024];
    sqlite3_stmt *st;
    snprintf(sql, sizeof sql, "SELECT %s FROM run ORDER BY id DESC", run_cols);
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct dg_run_record r;
        memset(&r, 0, sizeof r);
        read_run(st, &r);
        if (dg_store_get_figures(s, &r, err)) {
            dg_run_record_free(&r);
            sqlite3_finalize(st);
            return -1;
        }
        int stop = fn(ctx, &r);
        dg_run_record_free(&r);
        if (stop)
            break;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : dg_store_fail(err, s->db, "list runs");
}

void dg_run_record_free(struct dg_run_record *r)
{
    free(r->settings_json);
    free(r->options_json);
    free(r->command_line);
    free(r->query);
    free(r->swept_json);
    free(r->knobs_json);
    r->settings_json = r->options_json = r->command_line = r->query = NULL;
    r->swept_json = r->knobs_json = NULL;
    free(r->series);
    r->series = NULL;
    r->nseries = 0;
    free(r->monitor);
    r->monitor = NULL;
    r->nmonitor = 0;
    for (int t = 0; t < DG_MAX_TYPES; t++) {
        dg_hist_free(r->txn[t].hist);
        dg_hist_free(r->txn[t].service_hist);
        r->txn[t].hist = r->txn[t].service_hist = NULL;
    }
    dg_store_free_targets(r);
    dg_store_free_faults(r);
    dg_store_free_repl(r);
    dg_store_free_ranks(r);
}

void dg_txn_summary_from_hist(struct dg_txn_summary *t)
{
    const struct dg_hist *sv = t->service_hist;
    if (sv && sv->total) {
        t->service_p50_ms = (double)dg_hist_percentile(sv, 50) / 1e6;
        t->service_p95_ms = (double)dg_hist_percentile(sv, 95) / 1e6;
        t->service_p99_ms = (double)dg_hist_percentile(sv, 99) / 1e6;
    }
    const struct dg_hist *h = t->hist;
    if (!h || h->total == 0)
        return;
    t->avg_ms = dg_hist_mean_ns(h) / 1e6;
    t->p50_ms = (double)dg_hist_percentile(h, 50) / 1e6;
    t->p90_ms = (double)dg_hist_percentile(h, 90) / 1e6;
    t->p95_ms = (double)dg_hist_percentile(h, 95) / 1e6;
    t->p99_ms = (double)dg_hist_percentile(h, 99) / 1e6;
    t->max_ms = (double)h->max_ns / 1e6;
}

/* ---- experiments ---- */

int dg_store_experiment_begin(struct dg_store *s, const char *file, const char *label, int nsteps,
                              int64_t *id, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "INSERT INTO experiment (file, label, started_at, status, nsteps) "
                           "VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%SZ','now'), 'running', ?)", -1,
                           &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    dg_store_bind_text(st, 1, file);
    dg_store_bind_text(st, 2, label);
    sqlite3_bind_int(st, 3, nsteps);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return dg_store_fail(err, s->db, "insert experiment");
    *id = sqlite3_last_insert_rowid(s->db);
    return dg_store_experiment_alive(s, *id, err); /* so a reader tells one whose process was killed */
}

int dg_store_experiment_end(struct dg_store *s, int64_t id, const char *status, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "UPDATE experiment SET status = ?, "
                           "ended_at = strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    dg_store_bind_text(st, 1, status);
    sqlite3_bind_int64(st, 2, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : dg_store_fail(err, s->db, "end experiment");
}

int dg_store_experiment_get(struct dg_store *s, int64_t id, struct dg_experiment *ex,
                            int64_t **run_ids, int *nruns, struct dg_err *err)
{
    sqlite3_stmt *st;
    memset(ex, 0, sizeof *ex);
    *run_ids = NULL;
    *nruns = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT id, file, label, started_at, ended_at, status, nsteps, proc_id, "
                           "host_name, alive_at FROM experiment WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        ex->id = sqlite3_column_int64(st, 0);
        dg_store_copy_col(st, 1, ex->file, sizeof ex->file);
        dg_store_copy_col(st, 2, ex->label, sizeof ex->label);
        dg_store_copy_col(st, 3, ex->started_at, sizeof ex->started_at);
        dg_store_copy_col(st, 4, ex->ended_at, sizeof ex->ended_at);
        dg_store_copy_col(st, 5, ex->status, sizeof ex->status);
        ex->nsteps = sqlite3_column_int(st, 6);
        const char *now = dg_store_liveness(ex->status, (const char *)sqlite3_column_text(st, 7),
                                            (const char *)sqlite3_column_text(st, 8), sqlite3_column_double(st, 9));
        if (now != ex->status) /* a static string: "lost" or "running" */
            snprintf(ex->status, sizeof ex->status, "%s", now);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return 1;
    if (rc != SQLITE_ROW)
        return dg_store_fail(err, s->db, "read experiment");
    if (sqlite3_prepare_v2(s->db, "SELECT id FROM run WHERE experiment_id = ? "
                           "ORDER BY experiment_step, id", -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, id);
    int cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*nruns == cap) {
            int64_t *grown = realloc(*run_ids, (size_t)(cap = cap ? cap * 2 : 16) * sizeof **run_ids);
            if (!grown) {
                sqlite3_finalize(st);
                return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
            }
            *run_ids = grown;
        }
        (*run_ids)[(*nruns)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : dg_store_fail(err, s->db, "list experiment runs");
}
