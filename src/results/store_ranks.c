/* store_ranks.c — schema 12: the client processes (MPI ranks) of a run driven from several, one
 * run_rank row each with its headline figures in run_rank_figure (stored as run_figure keeps
 * a run's) and its host's monitor points in run_rank_monitor. Writes inside store.c's transaction; stores and reads what it is given, never
 * derives a rank's figure. */
#include <stdlib.h>

#include "results/store_internal.h"

/* Schema 11 -> 12. A run of one process has no rows. A file taken back to an older version by
 * hand keeps the rows it has (IF NOT EXISTS). */
const char dg_store_migration_ranks[] =
    "CREATE TABLE IF NOT EXISTS run_rank ("
    " run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    " rank INTEGER NOT NULL, host TEXT, state TEXT NOT NULL, vus INTEGER, terminals INTEGER,"
    " workers_failed INTEGER, committed INTEGER, errors INTEGER, measured_s REAL, client_cpu_s REAL,"
    " clock_offset_ms REAL, start_offset_ms REAL, p50_ms REAL, p95_ms REAL, p99_ms REAL,"
    " PRIMARY KEY (run_id, rank));"
    "CREATE TABLE IF NOT EXISTS run_rank_figure ("
    " run_id INTEGER NOT NULL, rank INTEGER NOT NULL, seq INTEGER NOT NULL,"
    " name TEXT NOT NULL, label TEXT, unit TEXT, decimals INTEGER, value REAL,"
    " PRIMARY KEY (run_id, rank, seq),"
    " FOREIGN KEY (run_id, rank) REFERENCES run_rank(run_id, rank) ON DELETE CASCADE) WITHOUT ROWID;"
    /* each rank's host sampled by that rank, as run_monitor holds rank 0's (no server columns
     * filled: the database server's host is sampled once, by rank 0) */
    "CREATE TABLE IF NOT EXISTS run_rank_monitor ("
    " run_id INTEGER NOT NULL, rank INTEGER NOT NULL, second INTEGER NOT NULL,"
    " cpu_user_pct REAL, cpu_sys_pct REAL, cpu_iowait_pct REAL,"
    " disk_read_mb_s REAL, disk_write_mb_s REAL, disk_read_iops REAL, disk_write_iops REAL,"
    " disk_await_ms REAL, server_rss_bytes REAL, server_read_mb_s REAL, server_write_mb_s REAL,"
    " cache_hits_per_s REAL, cache_misses_per_s REAL,"
    " PRIMARY KEY (run_id, rank, second),"
    " FOREIGN KEY (run_id, rank) REFERENCES run_rank(run_id, rank) ON DELETE CASCADE) WITHOUT ROWID;";

#define RANK_COLS                                                                                  \
    "rank, host, state, vus, terminals, workers_failed, committed, errors, measured_s, "           \
    "client_cpu_s, clock_offset_ms, start_offset_ms, p50_ms, p95_ms, p99_ms"

static void bind_rank(sqlite3_stmt *st, int64_t run_id, const struct dg_rank_summary *k)
{
    int i = 1;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, i++, run_id);
    sqlite3_bind_int(st, i++, k->rank);
    dg_store_bind_text(st, i++, k->host);
    sqlite3_bind_text(st, i++, k->state, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, i++, k->vus);
    sqlite3_bind_int(st, i++, k->terminals);
    sqlite3_bind_int(st, i++, k->workers_failed);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)k->committed);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)k->errors);
    const double v[] = {k->measured_s, k->client_cpu_s, k->clock_offset_ms, k->start_offset_ms,
                        k->p50_ms,     k->p95_ms,       k->p99_ms};
    for (size_t j = 0; j < sizeof v / sizeof *v; j++)
        sqlite3_bind_double(st, i++, v[j]);
}

int dg_store_put_ranks(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err)
{
    if (!r->nranks)
        return 0;
    sqlite3_stmt *rst = NULL, *fst = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(s->db, "INSERT INTO run_rank (run_id, " RANK_COLS ") "
                                  "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &rst, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db, "INSERT INTO run_rank_figure (run_id, rank, seq, name, label, unit, "
                                  "decimals, value) VALUES (?,?,?,?,?,?,?,?)", -1, &fst, NULL) != SQLITE_OK) {
        dg_store_fail(err, s->db, "prepare");
        goto out;
    }
    for (int k = 0; k < r->nranks; k++) {
        const struct dg_rank_summary *x = &r->ranks[k];
        bind_rank(rst, r->id, x);
        if (sqlite3_step(rst) != SQLITE_DONE) {
            dg_store_fail(err, s->db, "insert run_rank");
            goto out;
        }
        if (dg_store_put_figure_set(fst, r->id, x->rank, x->figures, x->nfigures)) {
            dg_store_fail(err, s->db, "insert run_rank_figure");
            goto out;
        }
        if (dg_store_put_points(s, "run_rank_monitor", r->id, x->rank, x->monitor, x->nmonitor, err))
            goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(rst);
    sqlite3_finalize(fst);
    return rc;
}

static void read_rank(sqlite3_stmt *st, struct dg_rank_summary *k)
{
    int i = 0;
    k->rank = sqlite3_column_int(st, i++);
    dg_store_copy_col(st, i++, k->host, sizeof k->host);
    dg_store_copy_col(st, i++, k->state, sizeof k->state);
    k->vus = sqlite3_column_int(st, i++);
    k->terminals = sqlite3_column_int(st, i++);
    k->workers_failed = sqlite3_column_int(st, i++);
    k->committed = (uint64_t)sqlite3_column_int64(st, i++);
    k->errors = (uint64_t)sqlite3_column_int64(st, i++);
    double *const v[] = {&k->measured_s, &k->client_cpu_s, &k->clock_offset_ms, &k->start_offset_ms,
                         &k->p50_ms,     &k->p95_ms,       &k->p99_ms};
    for (size_t j = 0; j < sizeof v / sizeof *v; j++)
        *v[j] = sqlite3_column_double(st, i++);
}

/* The figures of r's ranks (already read, in rank order), each rank's in its stored order. */
static int get_rank_figures(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT rank, name, label, unit, decimals, value FROM run_rank_figure "
                                  "WHERE run_id = ? ORDER BY rank, seq", -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, r->id);
    int rc, k = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int rank = sqlite3_column_int(st, 0);
        while (k < r->nranks && r->ranks[k].rank < rank)
            k++;
        if (k == r->nranks || r->ranks[k].rank != rank || r->ranks[k].nfigures >= DG_MAX_FIGURES)
            continue; /* more than a record holds */
        dg_store_read_figure(st, 1, &r->ranks[k].figures[r->ranks[k].nfigures++]);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : dg_store_fail(err, s->db, "read run_rank_figure");
}

int dg_store_get_ranks(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    sqlite3_stmt *st;
    r->ranks = NULL;
    r->nranks = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT " RANK_COLS " FROM run_rank WHERE run_id = ? ORDER BY rank", -1,
                           &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, r->id);
    int rc, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (r->nranks == cap) {
            cap = cap ? cap * 2 : 8;
            struct dg_rank_summary *grown = realloc(r->ranks, (size_t)cap * sizeof *grown);
            if (!grown) {
                sqlite3_finalize(st);
                return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory"); /* the caller frees r */
            }
            r->ranks = grown;
        }
        struct dg_rank_summary *k = &r->ranks[r->nranks++];
        *k = (struct dg_rank_summary){0};
        read_rank(st, k);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return dg_store_fail(err, s->db, "read run_rank");
    if (!r->nranks)
        return 0;
    if (get_rank_figures(s, r, err))
        return -1;
    for (int k = 0; k < r->nranks; k++)
        if (dg_store_get_points(s, "run_rank_monitor", r->id, r->ranks[k].rank, &r->ranks[k].monitor,
                                &r->ranks[k].nmonitor, err))
            return -1;
    return 0;
}

void dg_store_free_ranks(struct dg_run_record *r)
{
    for (int k = 0; k < r->nranks; k++)
        free(r->ranks[k].monitor);
    free(r->ranks);
    r->ranks = NULL;
    r->nranks = 0;
}
