/* bulk.c — ODBC bulk load: rows staged as text (SQL_C_CHAR) in one buffer per column and sent
 * R rows per execution as ONE multi-row statement, INSERT INTO t (cols) VALUES (?, ..), (?, ..)
 * with R groups of markers, prepared once per bulk, with the parameter-set size left at 1:
 * psqlodbc runs a parameter array row by row (a round trip each), a multi-row INSERT in one.
 * R keeps R x ncols within MAX_MARKERS (SQL Server takes 2100 parameters, and 1000 rows in a
 * VALUES list) and R within BATCH_ROWS. Marker (row r, column i) is bound to element r of
 * column i's buffer, again at each execution (widen() moves buffers). The last, partial batch
 * of n < R rows runs the first n groups of the same text, prepared then (prepare_tail). All
 * inside one transaction; buffers belong to the bulk record and grow; nothing is allocated
 * per row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sqltext.h"
#include "drivers/odbc/internal.h"

enum { BATCH_ROWS = 500, MAX_MARKERS = 2000 };

static int ok(SQLRETURN rc) { return rc == SQL_SUCCESS || rc == SQL_SUCCESS_WITH_INFO; }

struct bulk_col {
    SQLSMALLINT sqltype; /* from the first non-NULL value */
    int typed;
    size_t width; /* bytes per element, terminator included */
    char *data;   /* rows x width */
    SQLLEN ind[BATCH_ROWS];
};

struct dg_bulk {
    struct dg_conn *conn;
    SQLHSTMT h;
    int ncols;
    int rows;  /* R: rows per execution, the groups of markers in sql */
    int nrows; /* staged */
    int own_txn;
    int failed;
    char *sql;         /* the R-row INSERT */
    size_t len1, glen; /* its length for one row; what each further row adds */
    struct bulk_col *cols;
};

/* Binds the markers of the staged rows, row r's column i to element r of that column. */
static int bind_rows(struct dg_bulk *b, struct dg_err *err)
{
    for (int i = 0; i < b->ncols; i++) {
        struct bulk_col *c = &b->cols[i];
        SQLSMALLINT t = c->typed ? c->sqltype : SQL_VARCHAR;
        SQLULEN size = t == SQL_VARCHAR ? (SQLULEN)c->width : t == SQL_NUMERIC ? 18 : 0;
        for (int r = 0; r < b->nrows; r++) {
            SQLUSMALLINT n = (SQLUSMALLINT)(r * b->ncols + i + 1);
            if (!ok(SQLBindParameter(b->h, n, SQL_PARAM_INPUT, SQL_C_CHAR, t, size, t == SQL_NUMERIC ? 2 : 0,
                                     c->data + (size_t)r * c->width, (SQLLEN)c->width, &c->ind[r])))
                return dg_odbc_fail(b->conn, SQL_HANDLE_STMT, b->h, "bulk: bind", err);
        }
    }
    return 0;
}

/* The last batch, fewer than R rows: the statement becomes the first nrows groups of the
 * text, one execution still (not the one-row statement over a parameter array, which
 * psqlodbc would run as nrows round trips). Its bindings are dropped: it has fewer markers. */
static int prepare_tail(struct dg_bulk *b, struct dg_err *err)
{
    b->sql[b->len1 + (size_t)(b->nrows - 1) * b->glen] = '\0';
    if (!ok(SQLFreeStmt(b->h, SQL_RESET_PARAMS)) || !ok(SQLPrepare(b->h, (SQLCHAR *)b->sql, SQL_NTS)))
        return dg_odbc_fail(b->conn, SQL_HANDLE_STMT, b->h, "bulk prepare", err);
    return 0;
}

static int flush(struct dg_bulk *b, struct dg_err *err)
{
    if (b->nrows == 0)
        return 0;
    if ((b->nrows < b->rows && prepare_tail(b, err)) || bind_rows(b, err))
        return -1;
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
    free(b->sql);
    free(b);
}

/* R: as many rows as MAX_MARKERS markers hold, at most BATCH_ROWS, at least one. */
static int rows_per_exec(int ncols)
{
    int r = MAX_MARKERS / ncols;
    return r > BATCH_ROWS ? BATCH_ROWS : r < 1 ? 1 : r;
}

/* A bulk record with its R-row text and column buffers, or NULL (out of memory). */
static struct dg_bulk *new_bulk(const char *table, const char *const *cols, int ncols)
{
    struct dg_bulk *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->ncols = ncols;
    b->rows = rows_per_exec(ncols);
    size_t len = dg_insert_rows_len(table, cols, ncols, b->rows);
    b->len1 = dg_insert_rows_len(table, cols, ncols, 1);
    b->glen = b->rows > 1 ? (len - b->len1) / (size_t)(b->rows - 1) : 0;
    int ok_mem = (b->cols = calloc((size_t)ncols, sizeof *b->cols)) && (b->sql = malloc(len + 1)) &&
                 dg_insert_rows_sql(b->sql, len + 1, table, cols, ncols, b->rows) >= 0;
    for (int i = 0; ok_mem && i < ncols; i++) {
        b->cols[i].width = 32;
        ok_mem = (b->cols[i].data = malloc((size_t)b->rows * b->cols[i].width)) != NULL;
    }
    if (!ok_mem) {
        free_bulk(b);
        return NULL;
    }
    return b;
}

int dg_odbc_bulk_begin(struct dg_conn *c, const char *table, const char *const *cols, int ncols,
                       struct dg_bulk **out, struct dg_err *err)
{
    if (ncols < 1)
        return dg_err_set(err, DG_ERR_USER, 0, "bulk: no columns");
    struct dg_bulk *b = new_bulk(table, cols, ncols);
    if (!b)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    b->conn = c;
    if (!ok(SQLAllocHandle(SQL_HANDLE_STMT, c->dbc, &b->h))) {
        b->h = NULL;
        dg_odbc_fail(c, SQL_HANDLE_DBC, c->dbc, "bulk", err);
        free_bulk(b);
        return -1;
    }
    if (!ok(SQLPrepare(b->h, (SQLCHAR *)b->sql, SQL_NTS))) {
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

/* Makes room for len bytes (plus terminator) in each of the rows elements of column c,
 * moving the nrows staged. */
static int widen(struct bulk_col *c, size_t len, int nrows, int rows)
{
    size_t w = c->width;
    while (w < len + 1)
        w *= 2;
    char *nd = realloc(c->data, (size_t)rows * w);
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
        if (n + 1 > c->width && widen(c, n, r, b->rows))
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        char *dst = c->data + (size_t)r * c->width;
        memcpy(dst, p, n);
        dst[n] = '\0';
        c->ind[r] = (SQLLEN)n;
    }
    b->nrows++;
    if (b->nrows == b->rows && flush(b, err)) {
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
