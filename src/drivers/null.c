/* null.c — a driver that talks to no database: every statement succeeds at once and a query
 * yields one row of zeros. It measures dbgauge's own overhead and drives the scheduler in
 * tests; it never stands in for a database in an integration test. */
#include <stdlib.h>

#include "core/driver.h"
#include "core/list.h"

struct dg_conn {
    struct dg_list stmts;
};

struct dg_stmt {
    struct dg_conn *conn;
    struct dg_link link; /* in conn->stmts */
    int row_left;
};

struct dg_bulk {
    int64_t rows;
};

static int nl_connect(const char *url, const struct dg_connect_opts *opts, struct dg_conn **out,
                      struct dg_err *err)
{
    (void)url;
    (void)opts;
    *out = calloc(1, sizeof **out);
    return *out ? 0 : dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
}

static void nl_finalize(struct dg_stmt *s)
{
    dg_list_del(&s->conn->stmts, &s->link);
    free(s);
}

static void nl_disconnect(struct dg_conn *c)
{
    while (c->stmts.head)
        nl_finalize(DG_LIST_ENTRY(c->stmts.head, struct dg_stmt, link));
    free(c);
}

static int nl_exec(struct dg_conn *c, const char *sql, struct dg_err *err)
{
    (void)c, (void)sql, (void)err;
    return 0;
}

static int nl_prepare(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                      struct dg_err *err)
{
    (void)sql, (void)nparams;
    struct dg_stmt *s = calloc(1, sizeof *s);
    if (!s)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    s->conn = c;
    dg_list_add(&c->stmts, &s->link);
    *out = s;
    return 0;
}

static int nl_execute(struct dg_stmt *s, const struct dg_value *p, struct dg_err *err)
{
    (void)p, (void)err;
    s->row_left = 1;
    return 0;
}

static int nl_next_row(struct dg_stmt *s, struct dg_err *err)
{
    (void)err;
    if (s->row_left) {
        s->row_left = 0;
        return 1;
    }
    return 0;
}

static void nl_reset(struct dg_stmt *s) { s->row_left = 0; }
static int64_t nl_changes(struct dg_stmt *s) { (void)s; return 1; }
static int nl_ncols(struct dg_stmt *s) { (void)s; return 0; }
static int nl_col_is_null(struct dg_stmt *s, int i) { (void)s, (void)i; return 0; }
static int64_t nl_col_int(struct dg_stmt *s, int i) { (void)s, (void)i; return 1; }
static double nl_col_double(struct dg_stmt *s, int i) { (void)s, (void)i; return 0.0; }
static const char *nl_col_text(struct dg_stmt *s, int i, size_t *len)
{
    (void)s, (void)i;
    if (len)
        *len = 0;
    return "";
}
static int nl_begin(struct dg_conn *c, enum dg_isolation iso, int write, struct dg_err *err)
{
    (void)c, (void)iso, (void)write, (void)err;
    return 0;
}
static int nl_end(struct dg_conn *c, struct dg_err *err) { (void)c, (void)err; return 0; }

static int nl_bulk_begin(struct dg_conn *c, const char *t, const char *const *cols, int n,
                         struct dg_bulk **out, struct dg_err *err)
{
    (void)c, (void)t, (void)cols, (void)n;
    *out = calloc(1, sizeof **out);
    return *out ? 0 : dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
}
static int nl_bulk_row(struct dg_bulk *b, const struct dg_value *v, struct dg_err *err)
{
    (void)v, (void)err;
    b->rows++;
    return 0;
}
static int nl_bulk_end(struct dg_bulk *b, struct dg_err *err)
{
    (void)err;
    free(b);
    return 0;
}
static int nl_server_info(struct dg_conn *c, struct dg_server_info *info, struct dg_err *err)
{
    (void)c, (void)err;
    *info = (struct dg_server_info){.engine = "null", .version = DG_VERSION};
    return 0;
}

static const char *const schemes[] = {"null", NULL};

const struct dg_driver dg_driver_null = {
    .name = "null",
    .schemes = schemes,
    .dialect = DG_DIALECT_NONE,
    .caps = 0,
    .connect = nl_connect,
    .disconnect = nl_disconnect,
    .exec = nl_exec,
    .prepare = nl_prepare,
    .finalize = nl_finalize,
    .execute = nl_execute,
    .next_row = nl_next_row,
    .reset = nl_reset,
    .changes = nl_changes,
    .ncols = nl_ncols,
    .col_is_null = nl_col_is_null,
    .col_int = nl_col_int,
    .col_double = nl_col_double,
    .col_text = nl_col_text,
    .begin = nl_begin,
    .commit = nl_end,
    .rollback = nl_end,
    .bulk_begin = nl_bulk_begin,
    .bulk_row = nl_bulk_row,
    .bulk_end = nl_bulk_end,
    .server_info = nl_server_info,
};
