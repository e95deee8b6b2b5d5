/* store_txn.c — one transaction type's row of run_txn and run_target_txn (the columns of
 * DG_STORE_TXN_COLS): its counts, retries and errors by cause, latencies and encoded
 * histograms, bound for an INSERT and read back; schema 14's migration. A cause column NULL is
 * a run stored before that cause was kept: read back as not known, never as 0. */
#include <stdlib.h>

#include "results/store_internal.h"

/* Schema 13 -> 14: two causes told apart from other. NULL in runs stored before, whose other
 * holds them: not known, never 0. */
const char dg_store_migration_causes[] =
    "ALTER TABLE run_txn ADD COLUMN errors_read_only INTEGER;"
    "ALTER TABLE run_txn ADD COLUMN errors_gave_up INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN errors_read_only INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN errors_gave_up INTEGER;";

/* Decodes a histogram column into a new histogram (*out stays NULL for SQL NULL). */
static int decode_col(sqlite3_stmt *st, int col, struct dg_hist **out)
{
    const void *blob = sqlite3_column_blob(st, col);
    if (!blob)
        return 0;
    *out = dg_hist_new();
    return !*out || dg_hist_decode(*out, blob, (size_t)sqlite3_column_bytes(st, col));
}

static void bind_hist(sqlite3_stmt *st, int i, const struct dg_hist *h)
{
    size_t len = 0;
    unsigned char *blob = h ? dg_hist_encode(h, &len) : NULL;
    if (blob)
        sqlite3_bind_blob(st, i, blob, (int)len, free);
    else
        sqlite3_bind_null(st, i);
}

int dg_store_bind_txn(sqlite3_stmt *st, int i, const struct dg_txn_summary *x)
{
    dg_store_bind_text(st, i++, x->name);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)x->committed);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)x->rollbacks);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)x->retries);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)x->errors);
    sqlite3_bind_double(st, i++, x->avg_ms);
    sqlite3_bind_double(st, i++, x->p50_ms);
    sqlite3_bind_double(st, i++, x->p90_ms);
    sqlite3_bind_double(st, i++, x->p95_ms);
    sqlite3_bind_double(st, i++, x->p99_ms);
    sqlite3_bind_double(st, i++, x->max_ms);
    bind_hist(st, i++, x->hist);
    sqlite3_bind_double(st, i++, x->service_p50_ms);
    sqlite3_bind_double(st, i++, x->service_p95_ms);
    sqlite3_bind_double(st, i++, x->service_p99_ms);
    bind_hist(st, i++, x->service_hist);
    sqlite3_bind_double(st, i++, x->p90_limit_ms);
    for (int k = 0; k < DG_RETRY_NCAUSES; k++)
        sqlite3_bind_int64(st, i++, (sqlite3_int64)x->retry_causes[dg_retry_cause_at(k)]);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)x->in_doubt);
    for (int k = 0; k < DG_ERROR_NCAUSES; k++) {
        enum dg_error_cause c = dg_error_cause_at(k);
        if (dg_txn_error_cause_known(x, c))
            sqlite3_bind_int64(st, i++, (sqlite3_int64)x->error_causes[c]);
        else
            sqlite3_bind_null(st, i++);
    }
    return i;
}

int dg_store_read_txn(sqlite3_stmt *st, int col, struct dg_txn_summary *x)
{
    dg_store_copy_col(st, col, x->name, sizeof x->name);
    x->committed = (uint64_t)sqlite3_column_int64(st, col + 1);
    x->rollbacks = (uint64_t)sqlite3_column_int64(st, col + 2);
    x->retries = (uint64_t)sqlite3_column_int64(st, col + 3);
    x->errors = (uint64_t)sqlite3_column_int64(st, col + 4);
    x->avg_ms = sqlite3_column_double(st, col + 5);
    x->p50_ms = sqlite3_column_double(st, col + 6);
    x->p90_ms = sqlite3_column_double(st, col + 7);
    x->p95_ms = sqlite3_column_double(st, col + 8);
    x->p99_ms = sqlite3_column_double(st, col + 9);
    x->max_ms = sqlite3_column_double(st, col + 10);
    x->service_p50_ms = sqlite3_column_double(st, col + 12);
    x->service_p95_ms = sqlite3_column_double(st, col + 13);
    x->service_p99_ms = sqlite3_column_double(st, col + 14);
    x->p90_limit_ms = sqlite3_column_double(st, col + 16);
    x->retry_causes_known = sqlite3_column_type(st, col + 17) != SQLITE_NULL;
    for (int k = 0; k < DG_RETRY_NCAUSES; k++)
        x->retry_causes[dg_retry_cause_at(k)] = (uint64_t)sqlite3_column_int64(st, col + 17 + k);
    const int in_doubt_col = col + 17 + DG_RETRY_NCAUSES; /* certification is NULL before schema 11: 0 */
    x->in_doubt_known = sqlite3_column_type(st, in_doubt_col) != SQLITE_NULL; /* NULL: before schema 10 */
    x->in_doubt = (uint64_t)sqlite3_column_int64(st, in_doubt_col);
    x->error_causes_known = sqlite3_column_type(st, in_doubt_col + 1) != SQLITE_NULL; /* NULL: not known */
    x->error_causes_unknown = 0;
    for (int k = 0; x->error_causes_known && k < DG_ERROR_NCAUSES; k++) {
        enum dg_error_cause c = dg_error_cause_at(k);
        if (sqlite3_column_type(st, in_doubt_col + 1 + k) == SQLITE_NULL) /* a cause added later */
            x->error_causes_unknown |= 1u << c;
        x->error_causes[c] = (uint64_t)sqlite3_column_int64(st, in_doubt_col + 1 + k);
    }
    return decode_col(st, col + 11, &x->hist) || decode_col(st, col + 15, &x->service_hist) ? -1 : 0;
}
