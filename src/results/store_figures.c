/* store_figures.c — a run's headline figures in table run_figure (schema 9): one row per
 * figure of the whole run (target_idx -1) and of each target, in the workload's order; and
 * the migration that derives them for runs stored before from their old columns. Stores and
 * reads what it is given: never derives a figure of a new run, never renders. */
#include <stdio.h>
#include <string.h>

#include "results/store_internal.h"

/* Schema 8 -> 9. Runs stored before kept nopm, tpm and tpmc (tpcc) in columns, and stress's
 * figures were computed when shown (bytes and rows over the measured seconds): write them as
 * the workloads' figure tables name them (tpcc: NOPM, TPM, tpmC where the run had one;
 * stress: MB/s, rows/s, iterations/s, run time where it measured a time; each target: NOPM, TPM). The old
 * columns stay, and runs stored from schema 9 on still fill them from the figures of those
 * names (NULL where a run has none) for SQL readers of the old schema. A file taken back to an
 * older version by hand keeps the figures it has (IF NOT EXISTS, OR IGNORE). */
const char dg_store_migration_figures[] =
    "CREATE TABLE IF NOT EXISTS run_figure ("
    " run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    " target_idx INTEGER NOT NULL DEFAULT -1, seq INTEGER NOT NULL,"
    " name TEXT NOT NULL, label TEXT, unit TEXT, decimals INTEGER, value REAL,"
    " PRIMARY KEY (run_id, target_idx, seq)) WITHOUT ROWID;"
    "INSERT OR IGNORE INTO run_figure SELECT id, -1, 0, 'nopm', 'NOPM', '/min', 0, COALESCE(nopm, 0) FROM run"
    " WHERE workload = 'tpcc';"
    "INSERT OR IGNORE INTO run_figure SELECT id, -1, 1, 'tpm', 'TPM', '/min', 0, COALESCE(tpm, 0) FROM run"
    " WHERE workload = 'tpcc';"
    "INSERT OR IGNORE INTO run_figure SELECT id, -1, 2, 'tpmc', 'tpmC', '/min', 0, tpmc FROM run"
    " WHERE workload = 'tpcc' AND tpmc > 0;"
    "INSERT OR IGNORE INTO run_figure SELECT id, -1, 0, 'mb_per_s', 'MB/s', 'MB/s', 2,"
    " COALESCE(bytes, 0) / 1e6 / measured_s FROM run WHERE workload = 'stress' AND measured_s > 0;"
    "INSERT OR IGNORE INTO run_figure SELECT id, -1, 1, 'rows_per_s', 'rows/s', '/s', 0,"
    " COALESCE(rows, 0) / measured_s FROM run WHERE workload = 'stress' AND measured_s > 0;"
    "INSERT OR IGNORE INTO run_figure SELECT id, -1, 2, 'iterations_per_s', 'iterations/s', '/s', 2,"
    " (SELECT COALESCE(SUM(committed + rollbacks), 0) FROM run_txn WHERE run_id = run.id) / measured_s"
    " FROM run WHERE workload = 'stress' AND measured_s > 0;"
    "INSERT OR IGNORE INTO run_figure SELECT id, -1, 3, 'run_time_s', 'run time s', 's', 3, measured_s FROM run"
    " WHERE workload = 'stress' AND measured_s > 0;"
    "INSERT OR IGNORE INTO run_figure SELECT t.run_id, t.idx, 0, 'nopm', 'NOPM', '/min', 0, COALESCE(t.nopm, 0)"
    " FROM run_target t JOIN run ON run.id = t.run_id WHERE run.workload = 'tpcc';"
    "INSERT OR IGNORE INTO run_figure SELECT t.run_id, t.idx, 1, 'tpm', 'TPM', '/min', 0, COALESCE(t.tpm, 0)"
    " FROM run_target t JOIN run ON run.id = t.run_id WHERE run.workload = 'tpcc';";

int dg_store_put_figure_set(sqlite3_stmt *st, int64_t run_id, int idx, const struct dg_figure *f, int n)
{
    for (int k = 0; k < n; k++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int(st, 2, idx);
        sqlite3_bind_int(st, 3, k);
        sqlite3_bind_text(st, 4, f[k].name, -1, SQLITE_TRANSIENT);
        dg_store_bind_text(st, 5, f[k].label);
        dg_store_bind_text(st, 6, f[k].unit);
        sqlite3_bind_int(st, 7, f[k].decimals);
        sqlite3_bind_double(st, 8, f[k].value);
        if (sqlite3_step(st) != SQLITE_DONE)
            return -1;
    }
    return 0;
}

int dg_store_put_figures(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "INSERT INTO run_figure (run_id, target_idx, seq, name, label, unit, "
                           "decimals, value) VALUES (?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    int rc = dg_store_put_figure_set(st, r->id, -1, r->figures, r->nfigures);
    for (int k = 0; !rc && k < r->ntargets; k++)
        rc = dg_store_put_figure_set(st, r->id, k, r->targets[k].figures, r->targets[k].nfigures);
    sqlite3_finalize(st);
    return rc ? dg_store_fail(err, s->db, "insert run_figure") : 0;
}

int dg_store_get_figures(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT target_idx, name, label, unit, decimals, value FROM run_figure "
                           "WHERE run_id = ? ORDER BY target_idx, seq", -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, r->id);
    r->nfigures = 0;
    for (int k = 0; k < r->ntargets; k++)
        r->targets[k].nfigures = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int idx = sqlite3_column_int(st, 0);
        int *n = idx < 0 ? &r->nfigures : idx < r->ntargets ? &r->targets[idx].nfigures : NULL;
        struct dg_figure *set = idx < 0 ? r->figures : n ? r->targets[idx].figures : NULL;
        if (!n || *n >= DG_MAX_FIGURES)
            continue; /* a target not read (dg_store_list), or more than a record holds */
        dg_store_read_figure(st, 1, &set[(*n)++]);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : dg_store_fail(err, s->db, "read run_figure");
}

void dg_store_read_figure(sqlite3_stmt *st, int col, struct dg_figure *f)
{
    memset(f, 0, sizeof *f);
    dg_store_copy_col(st, col, f->name, sizeof f->name);
    dg_store_copy_col(st, col + 1, f->label, sizeof f->label);
    dg_store_copy_col(st, col + 2, f->unit, sizeof f->unit);
    f->decimals = sqlite3_column_int(st, col + 3);
    f->value = sqlite3_column_double(st, col + 4);
}

void dg_store_bind_legacy(sqlite3_stmt *st, int i, const struct dg_figure *figs, int n, const char *name)
{
    const struct dg_figure *f = dg_figure_find(figs, n, name);
    if (f)
        sqlite3_bind_double(st, i, f->value);
    else
        sqlite3_bind_null(st, i);
}
