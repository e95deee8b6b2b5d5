/* test_conformance.c — the driver conformance suite: `test_conformance URL` runs the same
 * checks against any target through the driver API only, printing `ok - name` lines and a
 * closing `N passed, N failed` line. Must not include an engine header or reach past the API. */
#include "core/driver.h"
#include "conformance.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

void ok(struct suite *t, const char *name)
{
    printf("ok - %s\n", name);
    t->passed++;
}

void not_ok(struct suite *t, const char *name,
                                                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("not ok - %s: ", name);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    t->failed++;
}

void skip(struct suite *t, const char *name, const char *why)
{
    printf("skip - %s: %s\n", name, why);
    t->skipped++;
}

/* 1 when cond holds; otherwise reports name as failed with err's text. */
int check(struct suite *t, const char *name, int cond, const struct dg_err *err)
{
    if (cond)
        ok(t, name);
    else
        not_ok(t, name, "%s [%s%s%s]", err && err->msg[0] ? err->msg : "condition false",
               err ? dg_err_class_name(err->cls) : "-", err && err->sqlstate[0] ? " " : "",
               err ? err->sqlstate : "");
    return cond;
}

double now_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int xexec(struct dg_conn_h *h, const char *sql, struct dg_err *err)
{
    return h->drv->exec(h->c, sql, err);
}

/* Column types per dialect: integer, double, text, exact decimal. */
struct types types_for(enum dg_dialect d)
{
    switch (d) {
    case DG_DIALECT_PGSQL: return (struct types){"BIGINT", "DOUBLE PRECISION", "TEXT", "NUMERIC(14,2)"};
    case DG_DIALECT_MYSQL: return (struct types){"BIGINT", "DOUBLE", "TEXT", "DECIMAL(14,2)"};
    case DG_DIALECT_MSSQL: return (struct types){"BIGINT", "FLOAT", "NVARCHAR(MAX)", "DECIMAL(14,2)"};
    default: return (struct types){"INTEGER", "REAL", "TEXT", "NUMERIC"};
    }
}

/* ---- checks ------------------------------------------------------------------------------ */

static const char tricky[] = "a\tb\nc\r'd\"e\\f?g $1 \xc3\xa9 \\N end";

static int same_value(const struct dg_driver *drv, struct dg_stmt *s, int col, const struct dg_value *v,
                      enum dg_dialect dialect, char *why, size_t whyn)
{
    if (v->type == DG_T_NULL) {
        if (!drv->col_is_null(s, col))
            return snprintf(why, whyn, "col %d: want NULL", col), 0;
        return 1;
    }
    if (drv->col_is_null(s, col))
        return snprintf(why, whyn, "col %d: unexpected NULL", col), 0;
    switch (v->type) {
    case DG_T_INT:
        if (drv->col_int(s, col) != v->i)
            return snprintf(why, whyn, "col %d: int %lld != %lld", col, (long long)drv->col_int(s, col),
                            (long long)v->i), 0;
        return 1;
    case DG_T_DOUBLE:
        /* SQLite's ODBC driver hands every value over as text printed with 15 digits: the
         * stored double is exact, what it returns is not. Checked to 15 digits there. */
        if (dialect == DG_DIALECT_SQLITE && strcmp(drv->name, "odbc") == 0) {
            double g = drv->col_double(s, col);
            if (fabs(g - v->d) > fabs(v->d) * 1e-14)
                return snprintf(why, whyn, "col %d: double %.17g != %.17g (15 digits)", col, g, v->d), 0;
            return 1;
        }
        if (drv->col_double(s, col) != v->d)
            return snprintf(why, whyn, "col %d: double %.17g != %.17g", col, drv->col_double(s, col), v->d), 0;
        return 1;
    case DG_T_TEXT: {
        size_t n = 0;
        const char *p = drv->col_text(s, col, &n);
        if (!p || n != v->s.n || memcmp(p, v->s.p, n) != 0)
            return snprintf(why, whyn, "col %d: text differs (len %zu, want %zu)", col, n, v->s.n), 0;
        return 1;
    }
    case DG_T_DEC: {
        double want = (double)v->dec.v / pow(10, v->dec.scale);
        if (fabs(drv->col_double(s, col) - want) > 1e-9)
            return snprintf(why, whyn, "col %d: decimal %.17g != %.17g", col, drv->col_double(s, col), want), 0;
        if (dialect == DG_DIALECT_PGSQL) { /* NUMERIC(14,2) prints exactly two decimals */
            char buf[64];
            int64_t a = v->dec.v < 0 ? -v->dec.v : v->dec.v;
            snprintf(buf, sizeof buf, "%s%lld.%02lld", v->dec.v < 0 ? "-" : "", (long long)(a / 100),
                     (long long)(a % 100));
            const char *p = drv->col_text(s, col, NULL);
            if (v->dec.scale == 2 && (!p || strcmp(p, buf) != 0))
                return snprintf(why, whyn, "col %d: decimal text '%s' != '%s'", col, p ? p : "(null)", buf), 0;
        }
        return 1;
    }
    default: return 1;
    }
}

/* Reads back rows of table by id and compares every column. */
int compare_rows(struct suite *t, struct dg_conn_h *h, const char *table, const struct row_want *w,
                        int n, char *why, size_t whyn, struct dg_err *err)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT i, d, t, m FROM %s WHERE id = ?", table);
    struct dg_stmt *s = NULL;
    int good = 1;
    if (h->drv->prepare(h->c, sql, 1, &s, err))
        return snprintf(why, whyn, "prepare: %.200s", err->msg), 0;
    for (int k = 0; k < n && good; k++) {
        struct dg_value id = dg_int(w[k].id);
        if (h->drv->execute(s, &id, err) || h->drv->next_row(s, err) != 1) {
            snprintf(why, whyn, "row %lld missing %.200s", (long long)w[k].id, err->msg);
            good = 0;
            break;
        }
        if (h->drv->ncols(s) != 4) {
            snprintf(why, whyn, "ncols %d != 4", h->drv->ncols(s));
            good = 0;
        }
        const struct dg_value *v[4] = {&w[k].i, &w[k].d, &w[k].t, &w[k].m};
        for (int c = 0; c < 4 && good; c++)
            if (!same_value(h->drv, s, c, v[c], t->dialect, why, whyn)) {
                size_t l = strlen(why);
                snprintf(why + l, whyn - l, " (id %lld)", (long long)w[k].id);
                good = 0;
            }
        if (good && h->drv->next_row(s, err) != 0) {
            snprintf(why, whyn, "more than one row for id %lld", (long long)w[k].id);
            good = 0;
        }
        h->drv->reset(s);
    }
    h->drv->finalize(s);
    return good;
}

const struct row_want *wanted_rows(int *n)
{
    static const struct row_want rows[] = {
        {1, {.type = DG_T_INT, .i = INT64_MAX}, {.type = DG_T_DOUBLE, .d = 0.1},
         {.type = DG_T_TEXT, .s = {"plain", 5}}, {.type = DG_T_DEC, .dec = {1234, 2}}},
        {2, {.type = DG_T_INT, .i = INT64_MIN}, {.type = DG_T_DOUBLE, .d = -2.5e-300},
         {.type = DG_T_TEXT, .s = {tricky, sizeof tricky - 1}}, {.type = DG_T_DEC, .dec = {-5, 2}}},
        {3, {.type = DG_T_NULL}, {.type = DG_T_NULL}, {.type = DG_T_NULL}, {.type = DG_T_NULL}},
        {4, {.type = DG_T_INT, .i = 0}, {.type = DG_T_DOUBLE, .d = 1e300},
         {.type = DG_T_TEXT, .s = {"", 0}}, {.type = DG_T_DEC, .dec = {0, 2}}},
        {5, {.type = DG_T_INT, .i = -42}, {.type = DG_T_DOUBLE, .d = 3.141592653589793},
         {.type = DG_T_TEXT, .s = {"x", 1}}, {.type = DG_T_DEC, .dec = {99999999999, 2}}},
    };
    *n = (int)(sizeof rows / sizeof *rows);
    return rows;
}

static void check_types(struct suite *t)
{
    struct dg_err err = {0};
    struct dg_conn_h *h = &t->a;
    struct types ty = types_for(t->dialect);
    char sql[512];
    xexec(h, "DROP TABLE IF EXISTS dg_conf_t", &err);
    snprintf(sql, sizeof sql, "CREATE TABLE dg_conf_t (id %s PRIMARY KEY, i %s, d %s, t %s, m %s)", ty.i,
             ty.i, ty.d, ty.t, ty.m);
    if (!check(t, "exec DDL", xexec(h, sql, &err) == 0, &err))
        return;

    struct dg_stmt *ins = NULL;
    if (!check(t, "prepare insert with 5 placeholders",
               h->drv->prepare(h->c, "INSERT INTO dg_conf_t (id, i, d, t, m) VALUES (?, ?, ?, ?, ?)", 5, &ins,
                               &err) == 0,
               &err))
        return;
    int n;
    const struct row_want *w = wanted_rows(&n);
    int good = 1;
    for (int k = 0; k < n && good; k++) {
        struct dg_value p[5] = {dg_int(w[k].id), w[k].i, w[k].d, w[k].t, w[k].m};
        good = h->drv->execute(ins, p, &err) == 0 && h->drv->changes(ins) == 1;
        if (good)
            h->drv->reset(ins);
    }
    check(t, "execute insert of every value type (changes = 1 each)", good, &err);
    h->drv->finalize(ins);

    char why[640] = "";
    good = compare_rows(t, h, "dg_conf_t", w, n, why, sizeof why, &err);
    if (good)
        ok(t, "round trip: int64 limits, doubles, NULLs, empty text, tabs/newlines/quotes, decimals");
    else
        not_ok(t, "round trip: int64 limits, doubles, NULLs, empty text, tabs/newlines/quotes, decimals", "%s",
               why);

    /* `?` inside strings, identifiers and comments is not a placeholder */
    int64_t cnt = -1;
    struct dg_stmt *s = NULL;
    good = h->drv->prepare(h->c,
                           "SELECT COUNT(*) /* ? */ FROM dg_conf_t WHERE t <> 'what?' AND t <> 'it''s ?'"
                           " AND id = ? -- ?\n",
                           1, &s, &err) == 0;
    if (good) {
        struct dg_value id = dg_int(1);
        good = h->drv->execute(s, &id, &err) == 0 && h->drv->next_row(s, &err) == 1;
        if (good)
            cnt = h->drv->col_int(s, 0);
        h->drv->reset(s);
        h->drv->finalize(s);
    }
    check(t, "placeholders: ? in quotes and comments left alone", good && cnt == 1, good ? NULL : &err);

    /* changes() */
    s = NULL;
    good = h->drv->prepare(h->c, "UPDATE dg_conf_t SET i = 7 WHERE id >= ? AND id <= ?", 2, &s, &err) == 0;
    int64_t ch = -1;
    if (good) {
        struct dg_value p[2] = {dg_int(3), dg_int(4)};
        good = h->drv->execute(s, p, &err) == 0;
        ch = h->drv->changes(s);
        h->drv->reset(s);
        h->drv->finalize(s);
    }
    if (!good)
        check(t, "changes() after UPDATE", 0, &err);
    else if (ch != 2)
        not_ok(t, "changes() after UPDATE", "changes %lld, want 2", (long long)ch);
    else
        ok(t, "changes() after UPDATE");

    /* reset mid-result, then run again */
    s = NULL;
    int rows = 0;
    good = h->drv->prepare(h->c, "SELECT id FROM dg_conf_t ORDER BY id", 0, &s, &err) == 0 &&
           h->drv->execute(s, NULL, &err) == 0 && h->drv->next_row(s, &err) == 1 &&
           h->drv->ncols(s) == 1 && h->drv->col_int(s, 0) == 1;
    if (good) {
        h->drv->reset(s);
        good = h->drv->execute(s, NULL, &err) == 0;
        int r;
        while (good && (r = h->drv->next_row(s, &err)) == 1)
            rows++;
        good = good && r == 0;
    }
    if (s)
        h->drv->finalize(s);
    check(t, "reset abandons a result; the statement runs again", good && rows == n, good ? NULL : &err);
}

int count_where(struct dg_conn_h *h, const char *sql, int64_t *out, struct dg_err *err)
{
    return dg_query_int(h, sql, out, err);
}

static void check_transactions(struct suite *t)
{
    struct dg_err err = {0};
    int64_t n = -1;
    int good = t->drv->begin(t->a.c, DG_ISO_DEFAULT, 1, &err) == 0 &&
               xexec(&t->a, "INSERT INTO dg_conf_t (id, i) VALUES (100, 1)", &err) == 0 &&
               count_where(&t->a, "SELECT COUNT(*) FROM dg_conf_t WHERE id = 100", &n, &err) == 0 && n == 1;
    if (!check(t, "begin + insert, visible inside the transaction", good, &err)) {
        t->drv->rollback(t->a.c, &err);
        return;
    }
    good = count_where(&t->b, "SELECT COUNT(*) FROM dg_conf_t WHERE id = 100", &n, &err) == 0;
    check(t, "uncommitted row invisible to another connection", good && n == 0, good ? NULL : &err);
    good = t->drv->rollback(t->a.c, &err) == 0 &&
           count_where(&t->a, "SELECT COUNT(*) FROM dg_conf_t WHERE id = 100", &n, &err) == 0 && n == 0;
    check(t, "rollback discards", good, &err);

    good = t->drv->begin(t->a.c, DG_ISO_READ_COMMITTED, 1, &err) == 0 &&
           xexec(&t->a, "INSERT INTO dg_conf_t (id, i) VALUES (101, 1)", &err) == 0 &&
           t->drv->commit(t->a.c, &err) == 0 &&
           count_where(&t->b, "SELECT COUNT(*) FROM dg_conf_t WHERE id = 101", &n, &err) == 0 && n == 1;
    check(t, "commit makes the row visible to another connection", good, &err);

    static const enum dg_isolation isos[] = {DG_ISO_REPEATABLE_READ, DG_ISO_SERIALIZABLE};
    good = 1;
    for (int i = 0; i < 2 && good; i++)
        good = t->drv->begin(t->a.c, isos[i], 0, &err) == 0 &&
               count_where(&t->a, "SELECT COUNT(*) FROM dg_conf_t", &n, &err) == 0 &&
               t->drv->commit(t->a.c, &err) == 0;
    check(t, "begin at repeatable read and serializable", good, &err);
}

struct batch_seen {
    int n;
    int k[16];
    int64_t id[16];
    char t[16][8];
};

static int on_row(void *ctx, int k, struct dg_stmt *s)
{
    struct batch_seen *b = ctx;
    (void)s;
    if (b->n < 16) {
        b->k[b->n] = k;
        b->n++;
    }
    return 0;
}

struct batch_ctx {
    const struct dg_driver *drv;
    struct batch_seen seen;
};

static int on_row_read(void *ctx, int k, struct dg_stmt *s)
{
    struct batch_ctx *b = ctx;
    on_row(&b->seen, k, s);
    int i = b->seen.n - 1;
    if (i < 16) {
        b->seen.id[i] = b->drv->col_int(s, 0);
        size_t len = 0;
        const char *p = b->drv->col_text(s, 1, &len);
        snprintf(b->seen.t[i], sizeof b->seen.t[i], "%.*s", p ? (int)(len < 7 ? len : 7) : 0, p ? p : "");
    }
    return 0;
}

static void check_batch(struct suite *t)
{
    struct dg_err err = {0};
    struct dg_conn_h *h = &t->a;
    if (!t->drv->execute_batch)
        skip(t, "driver execute_batch", "driver has none; the core loops (checked below all the same)");
    else if (!(t->drv->caps & DG_CAP_PIPELINE))
        ok(t, "driver execute_batch present (no pipelining claimed)");

    struct dg_stmt *s = NULL;
    int good = h->drv->prepare(h->c, "SELECT id, t FROM dg_conf_t WHERE id = ?", 1, &s, &err) == 0;
    struct batch_ctx bc = {.drv = t->drv};
    if (good) {
        struct dg_value p[4] = {dg_int(4), dg_int(1), dg_int(999), dg_int(5)};
        good = dg_execute_batch(h, s, 1, p, 4, on_row_read, &bc, &err) == 0;
    }
    if (!good)
        check(t, "execute_batch: rows in order with the set index", 0, &err);
    else if (bc.seen.n != 3 || bc.seen.k[0] != 0 || bc.seen.id[0] != 4 || bc.seen.k[1] != 1 ||
             bc.seen.id[1] != 1 || bc.seen.k[2] != 3 || bc.seen.id[2] != 5 || strcmp(bc.seen.t[1], "plain") != 0 ||
             strcmp(bc.seen.t[2], "x") != 0)
        not_ok(t, "execute_batch: rows in order with the set index", "saw %d rows: k=%d,%d,%d id=%lld,%lld,%lld",
               bc.seen.n, bc.seen.k[0], bc.seen.k[1], bc.seen.k[2], (long long)bc.seen.id[0],
               (long long)bc.seen.id[1], (long long)bc.seen.id[2]);
    else
        ok(t, "execute_batch: rows in order with the set index");
    if (s)
        h->drv->finalize(s);

    /* many sets of an INSERT inside a transaction: more than one pipeline chunk */
    enum { NSETS = 600 };
    struct dg_value *p = calloc(2 * NSETS, sizeof *p);
    s = NULL;
    int64_t n = -1;
    good = p && h->drv->prepare(h->c, "INSERT INTO dg_conf_t (id, i) VALUES (?, ?)", 2, &s, &err) == 0;
    if (good) {
        for (int k = 0; k < NSETS; k++) {
            p[2 * k] = dg_int(1000 + k);
            p[2 * k + 1] = dg_int(k);
        }
        good = t->drv->begin(h->c, DG_ISO_DEFAULT, 1, &err) == 0 &&
               dg_execute_batch(h, s, 2, p, NSETS, NULL, NULL, &err) == 0 &&
               t->drv->commit(h->c, &err) == 0 &&
               count_where(h, "SELECT COUNT(*) FROM dg_conf_t WHERE id >= 1000 AND id < 2000", &n, &err) == 0;
    }
    check(t, "execute_batch: 600 inserts in a transaction all land", good && n == NSETS, good ? NULL : &err);

    /* an error in the middle: reported, and the connection stays usable */
    if (s) {
        struct dg_value q[8] = {dg_int(2000), dg_int(0), dg_int(2001), dg_int(0),
                                dg_int(1),    dg_int(0), dg_int(2002), dg_int(0)};
        struct dg_err e2 = {0};
        int rc = dg_execute_batch(h, s, 2, q, 4, on_row, &bc.seen, &e2);
        good = rc != 0 && e2.cls == DG_ERR_FATAL && xexec(h, "SELECT 1", &err) == 0;
        if (rc == 0)
            not_ok(t, "execute_batch: error in the middle is reported, connection usable", "no error");
        else
            check(t, "execute_batch: error in the middle is reported, connection usable", good,
                  e2.cls != DG_ERR_FATAL ? &e2 : &err);
        h->drv->finalize(s);
    }
    free(p);
}

/* execute_calls through the core wrapper: different statements in one go, rows with their
 * set index, changes per call, COMMIT in the same go; an error in the middle stops the rest
 * and leaves the transaction for the rollback. */
static void check_calls(struct suite *t)
{
    struct dg_err err = {0};
    struct dg_conn_h *h = &t->a;
    if (!t->drv->execute_calls)
        skip(t, "driver execute_calls", "driver has none; the core loops (checked below all the same)");
    struct dg_stmt *sel = NULL, *ins = NULL, *upd = NULL;
    int good = h->drv->prepare(h->c, "SELECT id, t FROM dg_conf_t WHERE id = ?", 1, &sel, &err) == 0 &&
               h->drv->prepare(h->c, "INSERT INTO dg_conf_t (id, i) VALUES (?, ?)", 2, &ins, &err) == 0 &&
               h->drv->prepare(h->c, "UPDATE dg_conf_t SET i = i + 1 WHERE id >= ? AND id < ?", 2, &upd,
                               &err) == 0;
    if (!check(t, "execute_calls: statements prepared", good, &err))
        goto out;
    struct batch_ctx bc = {.drv = t->drv};
    struct dg_value ps[3] = {dg_int(4), dg_int(999), dg_int(1)};
    struct dg_value pi[4] = {dg_int(3000), dg_int(1), dg_int(3001), dg_int(2)};
    struct dg_value pu[2] = {dg_int(3000), dg_int(3002)};
    struct dg_call calls[3] = {
        {.stmt = sel, .nparams = 1, .params = ps, .nsets = 3, .fn = on_row_read, .ctx = &bc},
        {.stmt = ins, .nparams = 2, .params = pi, .nsets = 2},
        {.stmt = upd, .nparams = 2, .params = pu, .nsets = 1},
    };
    int64_t n = -1, sum = -1;
    good = t->drv->begin(h->c, DG_ISO_DEFAULT, 1, &err) == 0 &&
           dg_execute_calls(h, calls, 3, 1, &err) == 0 &&
           count_where(&t->b, "SELECT COUNT(*) FROM dg_conf_t WHERE id >= 3000 AND id < 3002", &n, &err) == 0 &&
           count_where(&t->b, "SELECT SUM(i) FROM dg_conf_t WHERE id >= 3000 AND id < 3002", &sum, &err) == 0;
    if (!good) {
        struct dg_err ignore;
        t->drv->rollback(h->c, &ignore);
        check(t, "execute_calls: rows, changes and commit", 0, &err);
    } else if (bc.seen.n != 2 || bc.seen.k[0] != 0 || bc.seen.id[0] != 4 || bc.seen.k[1] != 2 ||
               bc.seen.id[1] != 1 || calls[1].changes != 2 || calls[2].changes != 2 || n != 2 || sum != 5) {
        not_ok(t, "execute_calls: rows, changes and commit",
               "rows %d (k=%d,%d id=%lld,%lld), changes %lld/%lld, committed %lld rows summing %lld",
               bc.seen.n, bc.seen.k[0], bc.seen.k[1], (long long)bc.seen.id[0], (long long)bc.seen.id[1],
               (long long)calls[1].changes, (long long)calls[2].changes, (long long)n, (long long)sum);
    } else {
        ok(t, "execute_calls: rows, changes and commit");
    }

    /* a duplicate key in the middle, COMMIT asked: error, nothing after it, rollback works */
    struct dg_value pa[2] = {dg_int(3002), dg_int(0)}, pb[2] = {dg_int(1), dg_int(0)},
                    pc[2] = {dg_int(3003), dg_int(0)};
    struct dg_call bad[3] = {
        {.stmt = ins, .nparams = 2, .params = pa, .nsets = 1},
        {.stmt = ins, .nparams = 2, .params = pb, .nsets = 1},
        {.stmt = ins, .nparams = 2, .params = pc, .nsets = 1},
    };
    struct dg_err e2 = {0};
    int rc = t->drv->begin(h->c, DG_ISO_DEFAULT, 1, &err) == 0 ? dg_execute_calls(h, bad, 3, 1, &e2) : 0;
    good = rc != 0 && e2.cls == DG_ERR_FATAL && t->drv->rollback(h->c, &err) == 0 &&
           count_where(h, "SELECT COUNT(*) FROM dg_conf_t WHERE id >= 3002 AND id < 3004", &n, &err) == 0 && n == 0;
    if (rc == 0) {
        struct dg_err ignore;
        t->drv->rollback(h->c, &ignore);
        not_ok(t, "execute_calls: error in the middle, rolled back, connection usable", "no error");
    } else {
        check(t, "execute_calls: error in the middle, rolled back, connection usable", good,
              e2.cls != DG_ERR_FATAL ? &e2 : &err);
    }
out:
    if (sel)
        h->drv->finalize(sel);
    if (ins)
        h->drv->finalize(ins);
    if (upd)
        h->drv->finalize(upd);
}

static void check_errors(struct suite *t)
{
    struct dg_err err = {0};
    int rc = xexec(&t->a, "SELEC 1 FROM nowhere", &err);
    check(t, "bad SQL in exec is DG_ERR_USER", rc != 0 && err.cls == DG_ERR_USER, &err);

    struct dg_stmt *s = NULL;
    dg_err_clear(&err);
    rc = t->drv->prepare(t->a.c, "SELECT nope FROM dg_conf_missing WHERE id = ?", 1, &s, &err);
    if (rc == 0) { /* some engines only find out at execute */
        struct dg_value id = dg_int(1);
        rc = t->drv->execute(s, &id, &err);
        t->drv->finalize(s);
    }
    check(t, "missing table is DG_ERR_USER", rc != 0 && err.cls == DG_ERR_USER, &err);

    dg_err_clear(&err);
    rc = xexec(&t->a, "INSERT INTO dg_conf_t (id, i) VALUES (1, 1)", &err);
    int good = rc != 0 && err.cls == DG_ERR_FATAL;
    if (good && t->dialect == DG_DIALECT_PGSQL)
        good = strcmp(err.sqlstate, "23505") == 0;
    check(t, "unique violation is DG_ERR_FATAL (a workload bug, not the target's)", good, &err);

    if (t->dialect == DG_DIALECT_PGSQL) {
        struct dg_err e2 = {0};
        good = t->drv->begin(t->a.c, DG_ISO_DEFAULT, 1, &err) == 0 && xexec(&t->a, "SELEC 1", &e2) != 0 &&
               t->drv->commit(t->a.c, &err) != 0;
        check(t, "COMMIT of a transaction aborted by an error fails", good, NULL);
        t->drv->rollback(t->a.c, &e2);
    }
}

/* One side of a deadlock, run on its own thread because the statement blocks. */
struct blocked {
    struct suite *t;
    struct dg_conn_h *h;
    const char *sql;
    int rc;
    struct dg_err err;
};

static void *run_blocked(void *arg)
{
    struct blocked *b = arg;
    b->rc = xexec(b->h, b->sql, &b->err);
    return NULL;
}

/* InnoDB: two sessions lock two rows in opposite order (one is chosen as the deadlock victim,
 * 1213); then a lock held past the other's innodb_lock_wait_timeout (1205). Both RETRY. */
static void check_conflict_mysql(struct suite *t)
{
    struct dg_err err = {0}, e2 = {0};
    const char *name = "forced deadlock (rows locked in opposite order) is DG_ERR_RETRY";
    int good = xexec(&t->a, "DROP TABLE IF EXISTS dg_conf_conflict", &err) == 0 &&
               xexec(&t->a, "CREATE TABLE dg_conf_conflict (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
                     &err) == 0 &&
               xexec(&t->a, "INSERT INTO dg_conf_conflict VALUES (1, 0), (2, 0)", &err) == 0 &&
               t->drv->begin(t->a.c, DG_ISO_DEFAULT, 1, &err) == 0 &&
               t->drv->begin(t->b.c, DG_ISO_DEFAULT, 1, &err) == 0 &&
               xexec(&t->a, "UPDATE dg_conf_conflict SET v = 1 WHERE id = 1", &err) == 0 &&
               xexec(&t->b, "UPDATE dg_conf_conflict SET v = 2 WHERE id = 2", &err) == 0;
    if (!good) {
        check(t, name, 0, &err);
    } else {
        struct blocked ba = {t, &t->a, "UPDATE dg_conf_conflict SET v = 1 WHERE id = 2", 0, {0}};
        pthread_t th;
        if (pthread_create(&th, NULL, run_blocked, &ba) != 0) {
            not_ok(t, name, "cannot start a thread");
        } else {
            nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
            int rc = xexec(&t->b, "UPDATE dg_conf_conflict SET v = 2 WHERE id = 1", &e2);
            if (rc == 0) /* b won: a was the victim; let a's thread finish */
                t->drv->rollback(t->b.c, &err);
            pthread_join(th, NULL);
            const struct dg_err *victim = rc ? &e2 : ba.rc ? &ba.err : NULL;
            if (!victim)
                not_ok(t, name, "neither session failed");
            else
                check(t, name, victim->cls == DG_ERR_RETRY && victim->code == 1213 && victim->cause == DG_RETRY_DEADLOCK,
                      victim); /* a deadlock, on a Galera node too (never "certification") */
        }
    }
    t->drv->rollback(t->a.c, &err);
    t->drv->rollback(t->b.c, &err);

    name = "lock wait timeout is DG_ERR_RETRY";
    dg_err_clear(&e2);
    good = xexec(&t->b, "SET SESSION innodb_lock_wait_timeout = 1", &err) == 0 &&
           t->drv->begin(t->a.c, DG_ISO_DEFAULT, 1, &err) == 0 &&
           xexec(&t->a, "UPDATE dg_conf_conflict SET v = 3 WHERE id = 1", &err) == 0 &&
           t->drv->begin(t->b.c, DG_ISO_DEFAULT, 1, &err) == 0;
    if (!good) {
        check(t, name, 0, &err);
    } else {
        int rc = xexec(&t->b, "UPDATE dg_conf_conflict SET v = 4 WHERE id = 1", &e2);
        check(t, name, rc != 0 && e2.cls == DG_ERR_RETRY && e2.code == 1205, rc ? &e2 : NULL);
    }
    t->drv->rollback(t->b.c, &err);
    t->drv->rollback(t->a.c, &err);
    xexec(&t->b, "SET SESSION innodb_lock_wait_timeout = DEFAULT", &err);
    xexec(&t->a, "DROP TABLE IF EXISTS dg_conf_conflict", &err);
}

static void check_conflict(struct suite *t)
{
    struct dg_err err = {0}, e2 = {0};
    const char *name = "forced conflict is DG_ERR_RETRY";
    if (t->dialect == DG_DIALECT_PGSQL) {
        int64_t v;
        int good = xexec(&t->a, "DROP TABLE IF EXISTS dg_conf_conflict", &err) == 0 &&
                   xexec(&t->a, "CREATE TABLE dg_conf_conflict (id INT PRIMARY KEY, v INT)", &err) == 0 &&
                   xexec(&t->a, "INSERT INTO dg_conf_conflict VALUES (1, 0)", &err) == 0 &&
                   t->drv->begin(t->a.c, DG_ISO_SERIALIZABLE, 1, &err) == 0 &&
                   t->drv->begin(t->b.c, DG_ISO_SERIALIZABLE, 1, &err) == 0 &&
                   dg_query_int(&t->a, "SELECT v FROM dg_conf_conflict WHERE id = 1", &v, &err) == 0 &&
                   dg_query_int(&t->b, "SELECT v FROM dg_conf_conflict WHERE id = 1", &v, &err) == 0 &&
                   xexec(&t->a, "UPDATE dg_conf_conflict SET v = v + 1 WHERE id = 1", &err) == 0 &&
                   t->drv->commit(t->a.c, &err) == 0;
        if (!good) {
            check(t, name, 0, &err);
        } else {
            int rc = xexec(&t->b, "UPDATE dg_conf_conflict SET v = v + 1 WHERE id = 1", &e2);
            if (rc == 0)
                rc = t->drv->commit(t->b.c, &e2);
            check(t, name, rc != 0 && e2.cls == DG_ERR_RETRY && strcmp(e2.sqlstate, "40001") == 0,
                  rc ? &e2 : NULL);
        }
        t->drv->rollback(t->a.c, &err);
        t->drv->rollback(t->b.c, &err);
        xexec(&t->a, "DROP TABLE IF EXISTS dg_conf_conflict", &err);
    } else if (t->dialect == DG_DIALECT_SQLITE) {
        /* one writer holds the lock; the other waits out its busy timeout and gets RETRY */
        int good = t->drv->begin(t->a.c, DG_ISO_DEFAULT, 1, &err) == 0 &&
                   xexec(&t->a, "INSERT INTO dg_conf_t (id, i) VALUES (300, 1)", &err) == 0;
        if (!good) {
            check(t, name, 0, &err);
        } else {
            int rc = t->drv->begin(t->b.c, DG_ISO_DEFAULT, 1, &e2);
            if (rc == 0) {
                rc = xexec(&t->b, "INSERT INTO dg_conf_t (id, i) VALUES (301, 1)", &e2);
                struct dg_err e3;
                t->drv->rollback(t->b.c, &e3);
            }
            /* a busy file is retried, never taken for a lost connection */
            check(t, "a busy SQLite file is DG_ERR_RETRY, cause busy",
                  rc != 0 && e2.cls == DG_ERR_RETRY && e2.cause == DG_RETRY_BUSY, rc ? &e2 : NULL);
        }
        t->drv->rollback(t->a.c, &err);
    } else if (t->dialect == DG_DIALECT_MYSQL) {
        check_conflict_mysql(t);
    } else {
        skip(t, name, "no conflict recipe for this engine yet");
    }
}

/* TPC-C STOCK: 3 ints, 10 x CHAR(24), 3 ints, VARCHAR(50). */
int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s URL\n", argv[0]);
        return 2;
    }
    struct suite t = {0};
    struct dg_err err = {0};
    if (dg_target_parse(argv[1], &t.tgt, &err)) {
        printf("not ok - target: %s\n0 passed, 1 failed\n", err.msg);
        return 1;
    }
    t.drv = t.tgt.drv;
    printf("# driver %s, target %s\n", t.drv->name, t.tgt.redacted);
    struct dg_connect_opts opts = {.create = 1, .application = "dbgauge-conformance"};
    if (!check(&t, "connect two sessions",
               dg_connect(&t.tgt, &opts, &t.a, &err) == 0 && dg_connect(&t.tgt, &opts, &t.b, &err) == 0, &err)) {
        dg_disconnect(&t.a);
        goto out;
    }
    t.dialect = dg_conn_dialect(&t.a);
    check_types(&t);
    check_transactions(&t);
    check_batch(&t);
    check_calls(&t);
    check_errors(&t);
    check_conflict(&t);
    check_bulk(&t);
    check_load_mode(&t);
    check_server_info(&t);
    check_monitor_calls(&t);
    check_application_name(&t);
    check_bad_targets(&t);
    check_hosts(&t);
    check_connection_loss(&t); /* last: it may restart the server */
    xexec(&t.a, "DROP TABLE IF EXISTS dg_conf_t", &err);
    dg_disconnect(&t.a);
    dg_disconnect(&t.b);
out:
    printf("%d passed, %d failed\n", t.passed, t.failed);
    return t.failed ? 1 : 0;
}
