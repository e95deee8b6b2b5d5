/* bulk.c — ODBC bulk load: rows staged as text in column-wise parameter arrays
 * (SQL_ATTR_PARAMSET_SIZE) and sent as one multi-row INSERT execution per batch, all inside
 * one transaction. Buffers belong to the bulk record and grow; nothing is allocated per row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sqltext.h"
#include "drivers/odbc/internal.h"

enum { BATCH_ROWS = 500 };

static int ok(SQLRETURN rc) { return rc == SQL_SUCCESS || rc == SQL_SUCCESS_WITH_INFO; }

struct bulk_col {
    SQLSMALLINT sqltype; /* from the first non-NULL value */
    int typed;
    size_t width; /* bytes per element, terminator included */
    char *data;   /* BATCH_ROWS x width */
    SQLLEN ind[BATCH_ROWS];
};

struct dg_bulk {
    struct dg_conn *conn;
    SQLHSTMT h;
    int ncols;
    int nrows; /* staged */
    int own_txn;
    int failed;
    struct bulk_col *cols;
};

static int flush(struct dg_bulk *b, struct dg_err *err)
{
    if (b->nrows == 0)
        return 0;
    if (!ok(SQLSetStmtAttr(b->h, SQL_ATTR_PARAMSET_SIZE, (SQLPOINTER)(SQLULEN)b->nrows, 0)))
        return dg_odbc_fail(b->conn, SQL_HANDLE_STMT, b->h, "bulk: parameter arrays", err);
    for (int i = 0; i < b->ncols; i++) {
        struct bulk_col *c = &b->cols[i];
        SQLSMALLINT t = c->typed ? c->sqltype : SQL_VARCHAR;
        SQLULEN size = t == SQL_VARCHAR ? (SQLULEN)c->width : t == SQL_NUMERIC ? 18 : 0;
        if (!ok(SQLBindParameter(b->h, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT, SQL_C_CHAR, t, size,
                                 t == SQL_NUMERIC ? 2 : 0, c->data, (SQLLEN)c->width, c->ind)))
            return dg_odbc_fail(b->conn, SQL_HANDLE_STMT, b->h, "bulk: bind", err);
    }
    SQLRETURN rc = SQLExecute(b->h);
    int r = 0;
    if (!ok(rc) && rc != SQL_NO_DATA)
        r = dg_odbc_fail(b->conn, SQL_HANDLE_STMT, b->h, "bulk insert", err);
    while (r == 0 && (rc = SQLMoreResults(b->h)) != SQL_NO_DATA)
        if (!ok(rc))
            r = dg_odbc_fail(b->conn, SQL_HANDLE_STMT, b->h, "bulk insert", err);
    SQLFreeStmt(b->h, SQL_CLOSE);
    b->nrows = 0;
    return r;
}

static void free_bulk(struct dg_bulk *b)
{
    if (b->h)
        SQLFreeHandle(SQL_HANDLE_STMT, b->h);
    for (int i = 0; b->cols && i < b->ncols; i++)
        free(b->cols[i].data);
    free(b->cols);
    free(b);
}

int dg_odbc_bulk_begin(struct dg_conn *c, const char *table, const char *const *cols, int ncols,
                       struct dg_bulk **out, struct dg_err *err)
{
    char sql[2048];
    if (dg_insert_sql(sql, sizeof sql, table, cols, ncols) < 0)
        return dg_err_set(err, DG_ERR_FATAL, 0, "bulk: statement too long");
    struct dg_bulk *b = calloc(1, sizeof *b);
    if (!b || !(b->cols = calloc((size_t)ncols, sizeof *b->cols))) {
        free(b);
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    }
    b->conn = c;
    b->ncols = ncols;
    for (int i = 0; i < ncols; i++) {
        b->cols[i].width = 32;
        if (!(b->cols[i].data = malloc(BATCH_ROWS * b->cols[i].width))) {
            free_bulk(b);
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        }
    }
    if (!ok(SQLAllocHandle(SQL_HANDLE_STMT, c->dbc, &b->h))) {
        b->h = NULL;
        dg_odbc_fail(c, SQL_HANDLE_DBC, c->dbc, "bulk", err);
        free_bulk(b);
        return -1;
    }
    if (!ok(SQLPrepare(b->h, (SQLCHAR *)sql, SQL_NTS))) {
        dg_odbc_fail(c, SQL_HANDLE_STMT, b->h, "bulk prepare", err);
        free_bulk(b);
        return -1;
    }
    if (!c->in_txn) {
        if (dg_odbc_begin(c, DG_ISO_DEFAULT, 1, err)) {
            free_bulk(b);
            return -1;
        }
        b->own_txn = 1;
    }
    *out = b;
    return 0;
}

/* Makes room for len bytes (plus terminator) per element of column c, moving staged rows. */
static int widen(struct bulk_col *c, size_t len, int nrows)
{
    size_t w = c->width;
    while (w < len + 1)
        w *= 2;
    char *nd = realloc(c->data, BATCH_ROWS * w);
    if (!nd)
        return -1;
    for (int r = nrows - 1; r >= 0; r--)
        memmove(nd + (size_t)r * w, nd + (size_t)r * c->width, c->width);
    c->data = nd;
    c->width = w;
    return 0;
}

int dg_odbc_bulk_row(struct dg_bulk *b, const struct dg_value *vals, struct dg_err *err)
{
    if (b->failed)
        return dg_err_set(err, DG_ERR_FATAL, 0, "bulk: the load failed already");
    int r = b->nrows;
    for (int i = 0; i < b->ncols; i++) {
        struct bulk_col *c = &b->cols[i];
        const struct dg_value *v = &vals[i];
        char tmp[DG_DEC_TEXT_MAX];
        const char *p = tmp;
        size_t n;
        SQLSMALLINT t;
        switch (v->type) {
        case DG_T_INT: n = (size_t)snprintf(tmp, sizeof tmp, "%lld", (long long)v->i), t = SQL_BIGINT; break;
        case DG_T_DOUBLE: n = (size_t)snprintf(tmp, sizeof tmp, "%.17g", v->d), t = SQL_DOUBLE; break;
        case DG_T_DEC:
            if ((n = dg_dec_text(tmp, v->dec.v, v->dec.scale)) == 0)
                return dg_err_set(err, DG_ERR_USER, 0, "bulk: decimal scale %d out of range", v->dec.scale);
            t = SQL_NUMERIC;
            break;
        case DG_T_TEXT: p = v->s.p, n = v->s.n, t = SQL_VARCHAR; break;
        default:
            c->ind[r] = SQL_NULL_DATA;
            continue;
        }
        if (!c->typed)
            c->sqltype = t, c->typed = 1;
        if (n + 1 > c->width && widen(c, n, r))
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        char *dst = c->data + (size_t)r * c->width;
        memcpy(dst, p, n);
        dst[n] = '\0';
        c->ind[r] = (SQLLEN)n;
    }
    b->nrows++;
    if (b->nrows == BATCH_ROWS && flush(b, err)) {
        b->failed = 1;
        return -1;
    }
    return 0;
}

int dg_odbc_bulk_end(struct dg_bulk *b, struct dg_err *err)
{
    struct dg_conn *c = b->conn;
    int r = b->failed ? dg_err_set(err, DG_ERR_FATAL, 0, "bulk: the load failed") : flush(b, err);
    int own = b->own_txn;
    free_bulk(b);
    if (!own)
        return r;
    if (r == 0)
        return dg_odbc_commit(c, err);
    struct dg_err ignore;
    dg_odbc_rollback(c, &ignore);
    return r;
}
