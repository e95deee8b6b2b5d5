/* store_repl.c — the replication rows of a run (table run_replication, schema 11): one row per
 * target, peer and second as the monitor sampled them; a figure the engine did not have (-1)
 * and an empty text are NULL. Writes inside store.c's transaction; samples nothing itself. */
#include <stdlib.h>

#include "results/store_internal.h"

/* The figures, in column order after name, state, sync. */
#define REPL_FIGS(X)                                                                               \
    X(write_lag_s) X(flush_lag_s) X(replay_lag_s) X(lag_bytes) X(cluster_size) X(flow_paused)       \
    X(recv_queue) X(send_queue) X(cert_failures)
#define REPL_NAME(f) ", " #f
#define REPL_COLS "second, target_idx, name, state, sync" REPL_FIGS(REPL_NAME) ", behind"

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v[0])
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

int dg_store_put_repl(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err)
{
    if (!r->nrepl)
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "INSERT INTO run_replication (run_id, " REPL_COLS ") "
                                  "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    for (size_t k = 0; k < r->nrepl; k++) {
        const struct dg_repl_point *p = &r->repl[k];
        int i = 1;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, i++, r->id);
        sqlite3_bind_int64(st, i++, p->second);
        sqlite3_bind_int(st, i++, p->target);
        bind_text(st, i++, p->row.name);
        bind_text(st, i++, p->row.state);
        bind_text(st, i++, p->row.sync);
#define REPL_BIND(f)                                                                               \
    if (p->row.f >= 0)                                                                             \
        sqlite3_bind_double(st, i++, p->row.f);                                                    \
    else                                                                                           \
        sqlite3_bind_null(st, i++);
        REPL_FIGS(REPL_BIND)
        sqlite3_bind_int(st, i++, p->row.behind);
        if (sqlite3_step(st) != SQLITE_DONE) {
            sqlite3_finalize(st);
            return dg_store_fail(err, s->db, "insert run_replication");
        }
    }
    sqlite3_finalize(st);
    return 0;
}

int dg_store_get_repl(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT " REPL_COLS " FROM run_replication WHERE run_id = ? "
                                  "ORDER BY second, rowid", -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, r->id);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (r->nrepl == cap) {
            cap = cap ? cap * 2 : 256;
            struct dg_repl_point *p = realloc(r->repl, cap * sizeof *p);
            if (!p) {
                sqlite3_finalize(st);
                return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
            }
            r->repl = p;
        }
        struct dg_repl_point *p = &r->repl[r->nrepl++];
        *p = (struct dg_repl_point){.second = sqlite3_column_int64(st, 0),
                                    .target = sqlite3_column_int(st, 1)};
        dg_store_copy_col(st, 2, p->row.name, sizeof p->row.name);
        dg_store_copy_col(st, 3, p->row.state, sizeof p->row.state);
        dg_store_copy_col(st, 4, p->row.sync, sizeof p->row.sync);
        int i = 5;
#define REPL_READ(f)                                                                               \
    p->row.f = sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_double(st, i);      \
    i++;
        REPL_FIGS(REPL_READ)
        p->row.behind = sqlite3_column_int(st, i);
    }
    sqlite3_finalize(st);
    return 0;
}

void dg_store_free_repl(struct dg_run_record *r)
{
    free(r->repl);
    r->repl = NULL;
    r->nrepl = 0;
}
