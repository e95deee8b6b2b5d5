/* store_faults.c — schema 10: what a run survived and what it promised. The open loop's
 * schedule (run.arrivals, late, skipped), the faults set off (run_fault), the targets' outages
 * (run_outage) and the writes acknowledged for a later audit (run_ack, possibly hundreds of
 * thousands of rows: one prepared statement inside dg_store_put's transaction). Stores and
 * reads what it is given: never measures, derives or renders. */
#include <stdlib.h>
#include <string.h>

#include "results/store_internal.h"

/* Schema 9 -> 10. Columns added to existing tables are NULL in runs stored before, which did
 * not record them: readers tell "not recorded" (NULL) from 0. run_series.reconnects is per
 * second, not per type: it is kept on the second's type-0 row (NULL on the others). In
 * run_fault and run_outage a time that did not happen (a fault still running when the run
 * ended, an outage with no commit or no recovery before the end) is NULL. run_ack has no key
 * of its own: its rows are read back in insertion order (rowid) through the run_id index. A
 * file taken back to an older version by hand keeps the tables it has (IF NOT EXISTS). */
const char dg_store_migration_faults[] =
    "ALTER TABLE run_txn ADD COLUMN in_doubt INTEGER;"
    "ALTER TABLE run_target_txn ADD COLUMN in_doubt INTEGER;"
    "ALTER TABLE run_series ADD COLUMN reconnects INTEGER;"
    "ALTER TABLE run ADD COLUMN arrivals INTEGER;"
    "ALTER TABLE run ADD COLUMN late INTEGER;"
    "ALTER TABLE run ADD COLUMN skipped INTEGER;"
    "CREATE TABLE IF NOT EXISTS run_fault ("
    " run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    " seq INTEGER NOT NULL, offset_s REAL, start_s REAL, end_s REAL, exit_status INTEGER, command TEXT,"
    " PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS run_outage ("
    " run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    " seq INTEGER NOT NULL, target_idx INTEGER NOT NULL, start_s REAL, duration_s REAL,"
    " first_commit_s REAL, recovery_s REAL, errors INTEGER, reconnects INTEGER, back_on TEXT,"
    " PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS run_ack ("
    " run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    " target_idx INTEGER NOT NULL, kind INTEGER NOT NULL, in_doubt INTEGER NOT NULL,"
    " t_ms INTEGER, k1 INTEGER, k2 INTEGER, k3 INTEGER, count INTEGER, amount INTEGER);"
    "CREATE INDEX IF NOT EXISTS run_ack_run ON run_ack (run_id);";

/* v, or NULL when negative (a time that did not happen). */
static void bind_time(sqlite3_stmt *st, int i, double v)
{
    if (v >= 0)
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

static double col_time(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_double(st, i);
}

/* Prepares sql into *st; a failure fills err. */
static int prepare(struct dg_store *s, const char *sql, sqlite3_stmt **st, struct dg_err *err)
{
    return sqlite3_prepare_v2(s->db, sql, -1, st, NULL) == SQLITE_OK ? 0 : dg_store_fail(err, s->db, "prepare");
}

/* Steps st once; SQLITE_DONE is success, anything else fills err with what. */
static int step_done(struct dg_store *s, sqlite3_stmt *st, const char *what, struct dg_err *err)
{
    return sqlite3_step(st) == SQLITE_DONE ? 0 : dg_store_fail(err, s->db, what);
}

static int put_schedule(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (prepare(s, "UPDATE run SET arrivals = ?, late = ?, skipped = ? WHERE id = ?", &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)r->arrivals);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)r->late);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)r->skipped);
    sqlite3_bind_int64(st, 4, r->id);
    int rc = step_done(s, st, "store the schedule", err);
    sqlite3_finalize(st);
    return rc;
}

/* Binds row k of one table's rows of r from parameter 2 on (1 is the run's id). */
typedef void (*bind_fn)(sqlite3_stmt *st, const struct dg_run_record *r, size_t k);

/* Inserts n rows with sql, one statement bound by position and reset between rows: the loop
 * that may run a million times (the acks) makes no text and no allocation. */
static int put_rows(struct dg_store *s, const struct dg_run_record *r, size_t n, const char *sql, bind_fn bind,
                    const char *what, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (!n)
        return 0;
    if (prepare(s, sql, &st, err))
        return -1;
    int rc = 0;
    sqlite3_bind_int64(st, 1, r->id); /* kept across sqlite3_reset */
    for (size_t k = 0; !rc && k < n; k++) {
        bind(st, r, k);
        rc = step_done(s, st, what, err);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static void bind_fault(sqlite3_stmt *st, const struct dg_run_record *r, size_t k)
{
    const struct dg_fault_event *f = &r->faults[k];
    sqlite3_bind_int64(st, 2, (sqlite3_int64)k);
    sqlite3_bind_double(st, 3, f->offset_s);
    bind_time(st, 4, f->start_s);
    bind_time(st, 5, f->end_s);
    sqlite3_bind_int(st, 6, f->exit_status);
    sqlite3_bind_text(st, 7, f->command, -1, SQLITE_TRANSIENT);
}

static void bind_outage(sqlite3_stmt *st, const struct dg_run_record *r, size_t k)
{
    const struct dg_outage *o = &r->outages[k];
    sqlite3_bind_int64(st, 2, (sqlite3_int64)k);
    sqlite3_bind_int(st, 3, o->target);
    sqlite3_bind_double(st, 4, o->start_s); /* negative in the warm-up: a time, not "never" */
    bind_time(st, 5, o->duration_s);
    bind_time(st, 6, o->first_commit_s);
    bind_time(st, 7, o->recovery_s);
    sqlite3_bind_int64(st, 8, (sqlite3_int64)o->errors);
    sqlite3_bind_int64(st, 9, (sqlite3_int64)o->reconnects);
    dg_store_bind_text(st, 10, o->back_on);
    bind_time(st, 11, o->last_commit_s); /* schema 11 */
}

static void bind_ack(sqlite3_stmt *st, const struct dg_run_record *r, size_t k)
{
    const struct dg_ack *a = &r->acks[k];
    sqlite3_bind_int(st, 2, a->target);
    sqlite3_bind_int(st, 3, a->kind);
    sqlite3_bind_int(st, 4, a->in_doubt);
    sqlite3_bind_int64(st, 5, a->t_ms);
    sqlite3_bind_int64(st, 6, a->k[0]);
    sqlite3_bind_int64(st, 7, a->k[1]);
    sqlite3_bind_int64(st, 8, a->k[2]);
    sqlite3_bind_int(st, 9, a->count);
    sqlite3_bind_int64(st, 10, a->amount);
}

int dg_store_put_faults(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err)
{
    if (put_schedule(s, r, err) ||
        put_rows(s, r, (size_t)r->nfaults, "INSERT INTO run_fault (run_id, seq, offset_s, start_s, end_s, "
                 "exit_status, command) VALUES (?,?,?,?,?,?,?)", bind_fault, "insert run_fault", err))
        return -1;
    return put_rows(s, r, (size_t)r->noutages, "INSERT INTO run_outage (run_id, seq, target_idx, start_s, duration_s, "
                    "first_commit_s, recovery_s, errors, reconnects, back_on, last_commit_s) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    bind_outage, "insert run_outage", err);
}

int dg_store_put_acks(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err)
{
    return put_rows(s, r, r->nacks, "INSERT INTO run_ack (run_id, target_idx, kind, in_doubt, t_ms, k1, k2, k3, "
                    "count, amount) VALUES (?,?,?,?,?,?,?,?,?,?)", bind_ack, "insert run_ack", err);
}

/* Runs sql (one parameter: the run's id) and hands each row to fn; *n counts the rows. The
 * array grows by doubling into *arr (elements of size sz), which the record owns. */
typedef void (*row_fn)(sqlite3_stmt *st, void *elem);
static int read_rows(struct dg_store *s, int64_t id, const char *sql, void **arr, size_t sz, size_t *n,
                     row_fn fn, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (prepare(s, sql, &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    size_t cap = *n;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            void *grown = realloc(*arr, cap * sz);
            if (!grown) {
                sqlite3_finalize(st);
                return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
            }
            *arr = grown;
        }
        char *elem = (char *)*arr + *n * sz;
        memset(elem, 0, sz);
        fn(st, elem);
        (*n)++;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : dg_store_fail(err, s->db, "read");
}

static void fault_row(sqlite3_stmt *st, void *elem)
{
    struct dg_fault_event *f = elem;
    f->offset_s = sqlite3_column_double(st, 0);
    f->start_s = col_time(st, 1);
    f->end_s = col_time(st, 2);
    f->exit_status = sqlite3_column_int(st, 3);
    dg_store_copy_col(st, 4, f->command, sizeof f->command);
}

static void outage_row(sqlite3_stmt *st, void *elem)
{
    struct dg_outage *o = elem;
    o->target = sqlite3_column_int(st, 0);
    o->start_s = sqlite3_column_double(st, 1);
    o->duration_s = col_time(st, 2);
    o->first_commit_s = col_time(st, 3);
    o->recovery_s = col_time(st, 4);
    o->errors = (uint64_t)sqlite3_column_int64(st, 5);
    o->reconnects = (uint64_t)sqlite3_column_int64(st, 6);
    dg_store_copy_col(st, 7, o->back_on, sizeof o->back_on);
    o->last_commit_s = col_time(st, 8);
}

static void ack_row(sqlite3_stmt *st, void *elem)
{
    struct dg_ack *a = elem;
    a->target = (uint16_t)sqlite3_column_int(st, 0);
    a->kind = (uint8_t)sqlite3_column_int(st, 1);
    a->in_doubt = (uint8_t)sqlite3_column_int(st, 2);
    a->t_ms = sqlite3_column_int64(st, 3);
    for (int i = 0; i < 3; i++)
        a->k[i] = (uint32_t)sqlite3_column_int64(st, 4 + i);
    a->count = (uint16_t)sqlite3_column_int(st, 7);
    a->amount = sqlite3_column_int64(st, 8);
}

static int get_schedule(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (prepare(s, "SELECT arrivals, late, skipped FROM run WHERE id = ?", &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, r->id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        /* NULL: stored before schema 10, when the schedule was not counted */
        r->schedule_known = sqlite3_column_type(st, 0) != SQLITE_NULL;
        r->arrivals = (uint64_t)sqlite3_column_int64(st, 0);
        r->late = (uint64_t)sqlite3_column_int64(st, 1);
        r->skipped = (uint64_t)sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    return 0;
}

int dg_store_get_faults(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    void *faults = NULL, *outages = NULL;
    size_t nf = 0, no = 0;
    int rc = get_schedule(s, r, err) ||
             read_rows(s, r->id, "SELECT offset_s, start_s, end_s, exit_status, command FROM run_fault "
                                 "WHERE run_id = ? ORDER BY seq",
                       &faults, sizeof *r->faults, &nf, fault_row, err) ||
             read_rows(s, r->id, "SELECT target_idx, start_s, duration_s, first_commit_s, recovery_s, errors, "
                                 "reconnects, back_on, last_commit_s FROM run_outage WHERE run_id = ? ORDER BY seq",
                       &outages, sizeof *r->outages, &no, outage_row, err);
    /* the record owns what was read, on failure too (its caller frees it) */
    r->faults = faults;
    r->nfaults = (int)nf;
    r->outages = outages;
    r->noutages = (int)no;
    return rc ? -1 : 0;
}

int dg_store_get_acks(struct dg_store *s, int64_t id, struct dg_ack **out, size_t *n, struct dg_err *err)
{
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    if (prepare(s, "SELECT 1 FROM run WHERE id = ?", &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? 1 : dg_store_fail(err, s->db, "read run");
    void *arr = NULL;
    if (read_rows(s, id, "SELECT target_idx, kind, in_doubt, t_ms, k1, k2, k3, count, amount FROM run_ack "
                         "WHERE run_id = ? ORDER BY rowid",
                  &arr, sizeof **out, n, ack_row, err)) {
        free(arr);
        *n = 0;
        return -1;
    }
    *out = arr;
    return 0;
}

void dg_store_free_faults(struct dg_run_record *r)
{
    free(r->faults);
    free(r->outages);
    free(r->acks);
    r->faults = NULL;
    r->outages = NULL;
    r->acks = NULL;
    r->nfaults = r->noutages = 0;
    r->nacks = 0;
}
