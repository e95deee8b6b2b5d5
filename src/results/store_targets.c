/* store_targets.c — the per-target rows of a run with several targets at once: run_target
 * (one row per target) and run_target_txn (its types, with histograms as run_txn keeps
 * them). Writes inside store.c's transaction; knows nothing of how a run was measured. */
#include <stdlib.h>
#include <string.h>

#include "results/store_internal.h"

int dg_store_put_targets(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err)
{
    static const char target_sql[] =
        "INSERT INTO run_target (run_id, idx, target_redacted, engine, engine_version, settings, "
        "warehouses, vus, workers_failed, nopm, tpm, avg_ms, p50_ms, p95_ms, p99_ms, max_ms, role, cluster) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    static const char txn_sql[] = "INSERT INTO run_target_txn (run_id, idx, seq, " DG_STORE_TXN_COLS
                                  ") VALUES (?,?,?," DG_STORE_TXN_PARAMS ")";
    sqlite3_stmt *tst = NULL, *xst = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(s->db, target_sql, -1, &tst, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db, txn_sql, -1, &xst, NULL) != SQLITE_OK) {
        dg_store_fail(err, s->db, "prepare");
        goto out;
    }
    for (int k = 0; k < r->ntargets; k++) {
        const struct dg_target_summary *t = &r->targets[k];
        int i = 1;
        sqlite3_reset(tst);
        sqlite3_bind_int64(tst, i++, r->id);
        sqlite3_bind_int(tst, i++, k);
        dg_store_bind_text(tst, i++, t->target);
        dg_store_bind_text(tst, i++, t->engine);
        dg_store_bind_text(tst, i++, t->engine_version);
        dg_store_bind_text(tst, i++, t->settings_json);
        sqlite3_bind_int(tst, i++, t->warehouses);
        sqlite3_bind_int(tst, i++, t->vus);
        sqlite3_bind_int(tst, i++, t->workers_failed);
        dg_store_bind_legacy(tst, i++, t->figures, t->nfigures, "nopm");
        dg_store_bind_legacy(tst, i++, t->figures, t->nfigures, "tpm");
        sqlite3_bind_double(tst, i++, t->avg_ms);
        sqlite3_bind_double(tst, i++, t->p50_ms);
        sqlite3_bind_double(tst, i++, t->p95_ms);
        sqlite3_bind_double(tst, i++, t->p99_ms);
        sqlite3_bind_double(tst, i++, t->max_ms);
        dg_store_bind_text(tst, i++, t->role); /* schema 11: "node", "read"; "" (NULL) a database of its own */
        sqlite3_bind_int(tst, i++, t->cluster);
        if (sqlite3_step(tst) != SQLITE_DONE) {
            dg_store_fail(err, s->db, "insert run_target");
            goto out;
        }
        for (int ty = 0; ty < t->ntypes; ty++) {
            sqlite3_reset(xst);
            sqlite3_bind_int64(xst, 1, r->id);
            sqlite3_bind_int(xst, 2, k);
            sqlite3_bind_int(xst, 3, ty);
            dg_store_bind_txn(xst, 4, &t->txn[ty]);
            if (sqlite3_step(xst) != SQLITE_DONE) {
                dg_store_fail(err, s->db, "insert run_target_txn");
                goto out;
            }
        }
    }
    rc = 0;
out:
    sqlite3_finalize(tst);
    sqlite3_finalize(xst);
    return rc;
}

int dg_store_get_targets(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = -1, n = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT COUNT(*) FROM run_target WHERE run_id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, r->id);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    if (n == 0)
        return 0;
    if (!(r->targets = calloc((size_t)n, sizeof *r->targets)))
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    r->ntargets = n;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT idx, target_redacted, engine, engine_version, settings, warehouses, "
                           "vus, workers_failed, avg_ms, p50_ms, p95_ms, p99_ms, max_ms, role, cluster "
                           "FROM run_target WHERE run_id = ? ORDER BY idx",
                           -1, &st, NULL) != SQLITE_OK) {
        dg_store_fail(err, s->db, "prepare");
        goto out;
    }
    sqlite3_bind_int64(st, 1, r->id);
    for (int k = 0; k < n && sqlite3_step(st) == SQLITE_ROW; k++) {
        struct dg_target_summary *t = &r->targets[k];
        int i = 0;
        t->idx = sqlite3_column_int(st, i++);
        dg_store_copy_col(st, i++, t->target, sizeof t->target);
        dg_store_copy_col(st, i++, t->engine, sizeof t->engine);
        dg_store_copy_col(st, i++, t->engine_version, sizeof t->engine_version);
        const char *settings = (const char *)sqlite3_column_text(st, i++);
        t->settings_json = settings ? strdup(settings) : NULL;
        t->warehouses = sqlite3_column_int(st, i++);
        t->vus = sqlite3_column_int(st, i++);
        t->workers_failed = sqlite3_column_int(st, i++);
        t->avg_ms = sqlite3_column_double(st, i++);
        t->p50_ms = sqlite3_column_double(st, i++);
        t->p95_ms = sqlite3_column_double(st, i++);
        t->p99_ms = sqlite3_column_double(st, i++);
        t->max_ms = sqlite3_column_double(st, i++);
        dg_store_copy_col(st, i++, t->role, sizeof t->role); /* NULL before schema 11: "" */
        t->cluster = sqlite3_column_int(st, i++);
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(s->db,
                           "SELECT idx, " DG_STORE_TXN_COLS " FROM run_target_txn WHERE run_id = ? "
                           "ORDER BY idx, seq",
                           -1, &st, NULL) != SQLITE_OK) {
        st = NULL;
        dg_store_fail(err, s->db, "prepare");
        goto out;
    }
    sqlite3_bind_int64(st, 1, r->id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int k = sqlite3_column_int(st, 0);
        if (k < 0 || k >= n || r->targets[k].ntypes >= DG_MAX_TYPES)
            continue;
        struct dg_txn_summary *x = &r->targets[k].txn[r->targets[k].ntypes++];
        if (dg_store_read_txn(st, 1, x)) {
            dg_err_set(err, DG_ERR_USER, 0, "results database: run %lld, target %d has a damaged histogram for %s",
                       (long long)r->id, k + 1, x->name);
            goto out;
        }
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc; /* on failure the caller frees r, targets included */
}

void dg_store_free_targets(struct dg_run_record *r)
{
    for (int k = 0; k < r->ntargets; k++) {
        free(r->targets[k].settings_json);
        for (int t = 0; t < DG_MAX_TYPES; t++) {
            dg_hist_free(r->targets[k].txn[t].hist);
            dg_hist_free(r->targets[k].txn[t].service_hist);
        }
    }
    free(r->targets);
    r->targets = NULL;
    r->ntargets = 0;
}

int dg_target_summary_from_hists(struct dg_target_summary *t)
{
    struct dg_hist *all = dg_hist_new();
    if (!all)
        return -1;
    for (int ty = 0; ty < t->ntypes; ty++) {
        dg_txn_summary_from_hist(&t->txn[ty]);
        if (t->txn[ty].hist)
            dg_hist_merge(all, t->txn[ty].hist);
    }
    if (all->total) {
        t->avg_ms = dg_hist_mean_ns(all) / 1e6;
        t->p50_ms = (double)dg_hist_percentile(all, 50) / 1e6;
        t->p95_ms = (double)dg_hist_percentile(all, 95) / 1e6;
        t->p99_ms = (double)dg_hist_percentile(all, 99) / 1e6;
        t->max_ms = (double)all->max_ns / 1e6;
    }
    dg_hist_free(all);
    return 0;
}
