/* stmt.c — ODBC prepared statements: SQLPrepare once, parameters bound with SQLBindParameter
 * (rebound only when a value's type or place changes), rows read with SQLFetch + SQLGetData
 * into buffers the statement owns and grows. No allocation per execution once warm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "drivers/odbc/internal.h"

static int ok(SQLRETURN rc) { return rc == SQL_SUCCESS || rc == SQL_SUCCESS_WITH_INFO; }
static int prepare(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                   struct dg_err *err);

void dg_odbc_strip_comments(const char *sql, char *out)
{
    char q = 0;
    for (const char *p = sql; *p;) {
        if (q) {
            if (*p == q)
                q = 0;
            *out++ = *p++;
        } else if (*p == '\'' || *p == '"') {
            q = *p;
            *out++ = *p++;
        } else if (p[0] == '-' && p[1] == '-') {
            p += strcspn(p, "\n");
            *out++ = ' ';
        } else if (p[0] == '/' && p[1] == '*' && p[2] != '!' && p[2] != '+') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
            *out++ = ' ';
        } else {
            *out++ = *p++;
        }
    }
    *out = '\0';
}

char *dg_odbc_dollars(const char *sql, int *n)
{
    /* "$N" in place of each `?`: room for 20 digits each, whatever their count (a buffer of
     * 4 bytes per byte overflowed past about 1140 markers) */
    size_t len = strlen(sql), q = 0;
    for (size_t i = 0; i < len; i++)
        q += sql[i] == '?';
    char *text = malloc(len + 20 * q + 1), *out = text, quote = 0;
    if (!text)
        return NULL;
    *n = 0;
    for (const char *p = sql; *p; p++) {
        if (quote) {
            if (*p == quote)
                quote = 0;
        } else if (*p == '\'' || *p == '"') {
            quote = *p;
        } else if (*p == '?') {
            out += sprintf(out, "$%d", ++*n);
            continue;
        }
        *out++ = *p;
    }
    *out = '\0';
    return text;
}

/* Where execute_calls joins statements into one text (c->batch_ok: psqlodbc), the driver
 * writes every value into that text and the server parses each statement again. A statement
 * also PREPAREd on the server is joined as a short EXECUTE instead: the server runs its stored
 * plan and the driver rewrites a few bytes. Outside a transaction only (a failed PREPARE would
 * abort it); a statement PostgreSQL cannot prepare is simply joined as itself. */
static void prepare_on_server(struct dg_conn *c, struct dg_stmt *s)
{
    if (!c->batch_ok || c->in_txn)
        return;
    int n;
    char *body = dg_odbc_dollars(s->sql, &n);
    size_t cap = body ? 32 + strlen(body) + 1 : 0;
    char *text = body ? malloc(cap) : NULL;
    int64_t id = c->server_ids + 1;
    struct dg_err ignore;
    if (text) {
        snprintf(text, cap, "PREPARE dg_p%lld AS %s", (long long)id, body);
        if (n == s->nparams && dg_odbc_exec(c, text, &ignore) == 0) {
            c->server_ids = id;
            s->server_id = id;
        }
    }
    free(body);
    free(text);
}

int dg_odbc_prepare(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                    struct dg_err *err)
{
    if (dg_odbc_prepare_text(c, sql, nparams, out, err))
        return -1;
    prepare_on_server(c, *out);
    return 0;
}

int dg_odbc_prepare_text(struct dg_conn *c, const char *sql_in, int nparams, struct dg_stmt **out,
                         struct dg_err *err)
{
    static const char with[] = "WITH dg_returning AS (SELECT 1) ";
    char *sql = malloc(sizeof with + strlen(sql_in) + 1);
    if (!sql)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    dg_odbc_strip_comments(sql_in, sql);
    /* SQLite's ODBC driver returns rows only for statements that open like a query: a
     * writing statement with RETURNING gets an empty WITH in front, which SQLite allows. */
    const char *p = sql + strspn(sql, " \t\n");
    if (c->dialect == DG_DIALECT_SQLITE && strcasestr(p, " RETURNING ") &&
        (!strncasecmp(p, "UPDATE", 6) || !strncasecmp(p, "INSERT", 6) || !strncasecmp(p, "DELETE", 6))) {
        memmove(sql + sizeof with - 1, p, strlen(p) + 1);
        memcpy(sql, with, sizeof with - 1);
    }
    int rc = prepare(c, sql, nparams, out, err);
    if (rc == 0)
        (*out)->sql = sql; /* the statement's from now on */
    else
        free(sql);
    return rc;
}

static int prepare(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                   struct dg_err *err)
{
    struct dg_stmt *s = calloc(1, sizeof *s);
    if (!s || (nparams && !(s->params = calloc((size_t)nparams, sizeof *s->params)))) {
        free(s);
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    }
    s->conn = c;
    s->nparams = nparams;
    s->ncols = -1;
    if (!ok(SQLAllocHandle(SQL_HANDLE_STMT, c->dbc, &s->h))) {
        dg_odbc_fail(c, SQL_HANDLE_DBC, c->dbc, "prepare", err);
        goto fail;
    }
    if (!ok(SQLPrepare(s->h, (SQLCHAR *)sql, SQL_NTS))) {
        dg_odbc_fail(c, SQL_HANDLE_STMT, s->h, "prepare", err);
        size_t l = strlen(err->msg);
        snprintf(err->msg + l, sizeof err->msg - l, " in: %.160s", sql);
        goto fail;
    }
    SQLSMALLINT have = 0;
    if (ok(SQLNumParams(s->h, &have)) && have != nparams) {
        dg_err_set(err, DG_ERR_USER, 0, "prepare: statement has %d parameters, %d given: %.160s", have,
                   nparams, sql);
        goto fail;
    }
    dg_list_add(&c->stmts, &s->link);
    *out = s;
    return 0;
fail:
    if (s->h)
        SQLFreeHandle(SQL_HANDLE_STMT, s->h);
    free(s->params);
    free(s);
    return -1;
}

void dg_odbc_finalize(struct dg_stmt *s)
{
    if (!s)
        return;
    dg_odbc_batches_drop(s->conn, s); /* a later statement may reuse its address */
    dg_list_del(&s->conn->stmts, &s->link);
    SQLFreeHandle(SQL_HANDLE_STMT, s->h);
    for (int i = 0; i < s->ccap; i++)
        free(s->cols[i].buf);
    free(s->cols);
    free(s->params);
    free(s->sql);
    free(s);
}

int dg_odbc_bind(struct dg_stmt *s, int i, const struct dg_value *v, struct dg_err *err)
{
    struct odbc_param *p = &s->params[i];
    SQLSMALLINT ctype, sqltype, digits = 0;
    SQLULEN size = 0;
    const void *ptr;
    switch (v->type) {
    case DG_T_INT:
        p->i = v->i;
        p->ind = 0;
        if (p->bound == DG_T_INT)
            return 0;
        ctype = SQL_C_SBIGINT, sqltype = SQL_BIGINT, ptr = &p->i;
        break;
    case DG_T_DOUBLE:
        p->d = v->d;
        p->ind = 0;
        if (p->bound == DG_T_DOUBLE)
            return 0;
        ctype = SQL_C_DOUBLE, sqltype = SQL_DOUBLE, size = 15, ptr = &p->d;
        break;
    case DG_T_TEXT:
        p->ind = (SQLLEN)v->s.n;
        if (p->bound == DG_T_TEXT && p->ptr == v->s.p)
            return 0;
        ctype = SQL_C_CHAR, sqltype = SQL_VARCHAR, ptr = v->s.p;
        size = v->s.n <= 4000 ? 4000 : v->s.n;
        break;
    case DG_T_DEC:
        p->ind = (SQLLEN)dg_dec_text(p->dec, v->dec.v, v->dec.scale);
        if (p->ind == 0)
            return dg_err_set(err, DG_ERR_USER, 0, "parameter %d: decimal scale %d out of range", i + 1,
                              v->dec.scale);
        if (p->bound == DG_T_DEC)
            return 0;
        ctype = SQL_C_CHAR, sqltype = SQL_NUMERIC, size = 18, digits = (SQLSMALLINT)v->dec.scale;
        ptr = p->dec;
        break;
    default: {
        p->ind = SQL_NULL_DATA;
        if (p->bound == DG_T_NULL && p->ptr)
            return 0;
        /* A NULL takes the parameter's own type where the driver knows it (PostgreSQL will
         * not put a varchar NULL into a bigint column). */
        SQLSMALLINT dt = SQL_VARCHAR, dd = 0, nullable;
        SQLULEN ds = 0;
        if (!ok(SQLDescribeParam(s->h, (SQLUSMALLINT)(i + 1), &dt, &ds, &dd, &nullable)))
            dt = SQL_VARCHAR, ds = 0, dd = 0;
        ctype = SQL_C_CHAR, sqltype = dt, size = ds ? ds : 1, digits = dd, ptr = p->dec;
        break;
    }
    }
    SQLRETURN rc = SQLBindParameter(s->h, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT, ctype, sqltype, size,
                                    digits, (SQLPOINTER)ptr, 0, &p->ind);
    if (!ok(rc)) {
        p->bound = DG_T_NULL;
        p->ptr = NULL;
        return dg_odbc_fail(s->conn, SQL_HANDLE_STMT, s->h, "bind", err);
    }
    p->bound = v->type;
    p->ptr = ptr;
    return 0;
}

static void close_cursor(struct dg_stmt *s)
{
    if (s->open)
        SQLFreeStmt(s->h, SQL_CLOSE);
    s->open = 0;
}

SQLSMALLINT dg_odbc_ctype(SQLSMALLINT t)
{
    switch (t) {
    case SQL_BIGINT: case SQL_INTEGER: case SQL_SMALLINT: case SQL_TINYINT: case SQL_BIT:
        return SQL_C_SBIGINT;
    case SQL_DOUBLE: case SQL_FLOAT: case SQL_REAL: return SQL_C_DOUBLE;
    default: return SQL_C_CHAR;
    }
}

int dg_odbc_cols_set(struct dg_stmt *s, int n, const SQLSMALLINT *ctypes, struct dg_err *err)
{
    if (n > s->ccap) {
        struct odbc_col *nc = realloc(s->cols, (size_t)n * sizeof *nc);
        if (!nc)
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        s->cols = nc;
        for (; s->ccap < n; s->ccap++) {
            struct odbc_col *col = &s->cols[s->ccap];
            *col = (struct odbc_col){.cap = 64};
            if (!(col->buf = malloc(col->cap)))
                return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        }
    }
    for (int i = 0; i < n; i++)
        s->cols[i].ctype = ctypes[i];
    s->ncols = n;
    return 0;
}

void dg_odbc_col_ctypes(SQLHSTMT h, int n, SQLSMALLINT *ctypes)
{
    for (int i = 0; i < n; i++) {
        SQLCHAR name[8];
        SQLSMALLINT nlen, type, dig, nul;
        SQLULEN size;
        if (!ok(SQLDescribeCol(h, (SQLUSMALLINT)(i + 1), name, sizeof name, &nlen, &type, &size, &dig,
                               &nul)))
            type = SQL_VARCHAR;
        ctypes[i] = dg_odbc_ctype(type);
    }
}

/* Describes the result's columns once per statement (its shape does not change). */
static int describe(struct dg_stmt *s, int n, struct dg_err *err)
{
    if (s->ncols == n)
        return 0;
    SQLSMALLINT *ct = malloc((size_t)n * sizeof *ct);
    if (!ct)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    dg_odbc_col_ctypes(s->h, n, ct);
    int rc = dg_odbc_cols_set(s, n, ct, err);
    free(ct);
    return rc;
}

int dg_odbc_execute(struct dg_stmt *s, const struct dg_value *params, struct dg_err *err)
{
    close_cursor(s);
    s->changes = 0;
    for (int i = 0; i < s->nparams; i++)
        if (dg_odbc_bind(s, i, &params[i], err))
            return -1;
    SQLRETURN rc = SQLExecute(s->h);
    if (!ok(rc) && rc != SQL_NO_DATA) {
        dg_odbc_fail(s->conn, SQL_HANDLE_STMT, s->h, "execute", err);
        SQLFreeStmt(s->h, SQL_CLOSE);
        return -1;
    }
    SQLLEN rows = 0;
    if (rc != SQL_NO_DATA && ok(SQLRowCount(s->h, &rows)) && rows > 0)
        s->changes = rows;
    SQLSMALLINT n = 0;
    if (rc != SQL_NO_DATA && ok(SQLNumResultCols(s->h, &n)) && n > 0) {
        if (describe(s, n, err)) {
            SQLFreeStmt(s->h, SQL_CLOSE);
            return -1;
        }
        s->open = 1;
    } else {
        SQLFreeStmt(s->h, SQL_CLOSE);
    }
    return 0;
}

/* Reads column i of the fetched row into its buffer. */
static int get_col(struct dg_stmt *s, int i, struct dg_err *err)
{
    struct odbc_col *col = &s->cols[i];
    SQLLEN ind = 0;
    SQLRETURN rc;
    col->has_text = 0;
    col->is_null = 0;
    if (col->ctype == SQL_C_SBIGINT)
        rc = SQLGetData(s->h, (SQLUSMALLINT)(i + 1), SQL_C_SBIGINT, &col->i, 0, &ind);
    else if (col->ctype == SQL_C_DOUBLE)
        rc = SQLGetData(s->h, (SQLUSMALLINT)(i + 1), SQL_C_DOUBLE, &col->d, 0, &ind);
    else {
        size_t got = 0;
        for (;;) {
            rc = SQLGetData(s->h, (SQLUSMALLINT)(i + 1), SQL_C_CHAR, col->buf + got,
                            (SQLLEN)(col->cap - got), &ind);
            if (rc == SQL_NO_DATA) { /* the whole value came in the calls before */
                rc = SQL_SUCCESS;
                ind = 0;
                break;
            }
            if (!ok(rc) || ind == SQL_NULL_DATA)
                break;
            size_t room = col->cap - got - 1;
            if (rc == SQL_SUCCESS || (ind != SQL_NO_TOTAL && (size_t)ind <= room)) {
                got += (size_t)ind;
                break;
            }
            /* truncated: keep what came, grow, read on */
            got += room;
            size_t want = ind == SQL_NO_TOTAL ? col->cap * 2 : got + (size_t)ind - room + 1;
            if (want < col->cap * 2)
                want = col->cap * 2;
            char *nb = realloc(col->buf, want);
            if (!nb)
                return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
            col->buf = nb;
            col->cap = want;
        }
        col->len = got;
        if (ok(rc))
            col->buf[got] = '\0';
        col->has_text = 1;
    }
    if (!ok(rc))
        return dg_odbc_fail(s->conn, SQL_HANDLE_STMT, s->h, "read column", err);
    col->is_null = ind == SQL_NULL_DATA;
    if (col->is_null) {
        col->i = 0, col->d = 0, col->len = 0, col->buf[0] = '\0', col->has_text = 1;
    } else if (col->ctype == SQL_C_CHAR) {
        col->i = strtoll(col->buf, NULL, 10);
        col->d = strtod(col->buf, NULL);
    }
    return 0;
}

int dg_odbc_fetch(struct dg_stmt *s, struct dg_err *err)
{
    SQLRETURN rc = SQLFetch(s->h);
    if (rc == SQL_NO_DATA)
        return 0;
    if (!ok(rc))
        return dg_odbc_fail(s->conn, SQL_HANDLE_STMT, s->h, "fetch", err);
    for (int i = 0; i < s->ncols; i++)
        if (get_col(s, i, err))
            return -1;
    return 1;
}

int dg_odbc_next_row(struct dg_stmt *s, struct dg_err *err)
{
    if (!s->open)
        return 0;
    int r = dg_odbc_fetch(s, err);
    if (r != 1)
        close_cursor(s);
    return r;
}

void dg_odbc_reset(struct dg_stmt *s) { close_cursor(s); }
int64_t dg_odbc_changes(struct dg_stmt *s) { return s->changes; }
int dg_odbc_ncols(struct dg_stmt *s) { return s->ncols < 0 ? 0 : s->ncols; }
int dg_odbc_col_is_null(struct dg_stmt *s, int i) { return s->cols[i].is_null; }

int64_t dg_odbc_col_int(struct dg_stmt *s, int i)
{
    const struct odbc_col *c = &s->cols[i];
    return c->ctype == SQL_C_DOUBLE ? (int64_t)c->d : c->i;
}

double dg_odbc_col_double(struct dg_stmt *s, int i)
{
    const struct odbc_col *c = &s->cols[i];
    return c->ctype == SQL_C_SBIGINT ? (double)c->i : c->d;
}

const char *dg_odbc_col_text(struct dg_stmt *s, int i, size_t *len)
{
    struct odbc_col *c = &s->cols[i];
    if (!c->has_text) { /* a number asked for as text: formatted once per row */
        int n = c->ctype == SQL_C_SBIGINT ? snprintf(c->buf, c->cap, "%lld", (long long)c->i)
                                          : snprintf(c->buf, c->cap, "%.17g", c->d);
        c->len = (size_t)n;
        c->has_text = 1;
    }
    if (len)
        *len = c->len;
    return c->buf;
}
