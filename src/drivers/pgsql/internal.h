/* internal.h — what the PostgreSQL driver's files share: the connection, statement and bulk
 * records and the helpers between files. Not for use outside src/drivers/pgsql/. */
#ifndef DG_PGSQL_INTERNAL_H
#define DG_PGSQL_INTERNAL_H

#include <libpq-fe.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/driver.h"
#include "core/list.h"
#include "core/numtext.h"
#include "core/secret.h"

#define BULK_FLUSH_BYTES (256u * 1024u)
#define BATCH_CHUNK 256 /* parameter sets per pipeline sync: bounds what sits unread */

struct dg_stmt {
    struct dg_conn *c;
    struct dg_link link; /* in c->stmts */
    char name[16];
    char what[72]; /* start of the SQL, for messages */
    int nparams;
    PGresult *res;
    int row, nrows;
    int64_t changes;
    int streaming; /* single-row mode: res holds the current row only */
    int streaming_active; /* an execute's rows are still coming */
    const char **values; /* nparams pointers into buf, NULL for SQL NULL */
    size_t *offs;
    char *buf;
    size_t cap;
};

struct dg_bulk {
    struct dg_conn *c;
    int ncols;
    int failed;
    unsigned char *kinds; /* binary COPY: each column's wire form (copy.c); NULL: text COPY */
    char *buf;
    size_t len, cap;
    char table[64];
};

struct dg_conn {
    PGconn *pg;
    unsigned next_stmt;
    struct dg_list stmts;
    struct dg_bulk *bulk;
    struct dg_secrets secrets; /* password texts to scrub from every message */
    /* BEGIN ... not sent yet: it travels with the transaction's first execute (or call
     * list), in one round trip; any other call sends it first; COMMIT/ROLLBACK of nothing
     * send nothing. */
    const char *pending_begin;
    int copy_text; /* ?copy=text in the URL: COPY in text format, not binary */
};

/* conn.c: errors. All return -1. dg_pg_err formats a message with secrets scrubbed;
 * dg_pg_res_err takes message and class from a failed result (NULL: from the connection). */
__attribute__((format(printf, 5, 6))) int dg_pg_err(const struct dg_conn *c, struct dg_err *err,
                                                    enum dg_err_class cls, const char *sqlstate,
                                                    const char *fmt, ...);
int dg_pg_res_err(struct dg_conn *c, PGresult *res, const char *what, struct dg_err *err);
/* Judges (and clears) COMMIT's result: a COMMIT the server turned into ROLLBACK because an
 * earlier statement failed is an error, not a success. */
int dg_pg_commit_result(struct dg_conn *c, PGresult *res, struct dg_err *err);
/* PQexec and PQexecPrepared (text parameters), but when the server said why it ended the
 * session before closing it, the result is that error (with its SQLSTATE), not libpq's. */
PGresult *dg_pg_exec(PGconn *pg, const char *sql);
PGresult *dg_pg_exec_prepared(PGconn *pg, const char *name, int n, const char *const *values);
/* Sends a held-back BEGIN on its own; 0 when there is none. */
int dg_pg_flush_begin(struct dg_conn *c, struct dg_err *err);

/* format.c: out needs 32 bytes; returns the length written. (Integers and decimals:
 * core/numtext.h.) */
size_t dg_pg_fmt_double(char *out, double d);
/* An integer (or boolean, or numeric rounded toward zero) from result text. */
int64_t dg_pg_parse_i64(const char *s);

/* stmt.c */
/* Rewrites `?` to $1..$n outside strings, quoted identifiers, dollar-quoted bodies and
 * comments. Returns a malloc'd string (the caller's) and the count in *n, or NULL. (The sql
 * fuzz target, tests/fuzz/, calls it.) */
char *dg_pg_rewrite_placeholders(const char *sql, int *n);
void dg_pg_stmt_free(struct dg_stmt *s);
int dg_pg_prepare(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                  struct dg_err *err);
void dg_pg_finalize(struct dg_stmt *s);
int dg_pg_execute(struct dg_stmt *s, const struct dg_value *params, struct dg_err *err);
int dg_pg_next_row(struct dg_stmt *s, struct dg_err *err);
void dg_pg_reset(struct dg_stmt *s);
int64_t dg_pg_changes(struct dg_stmt *s);
int dg_pg_ncols(struct dg_stmt *s);
int dg_pg_col_is_null(struct dg_stmt *s, int i);
int64_t dg_pg_col_int(struct dg_stmt *s, int i);
double dg_pg_col_double(struct dg_stmt *s, int i);
const char *dg_pg_col_text(struct dg_stmt *s, int i, size_t *len);
int dg_pg_execute_batch(struct dg_stmt *s, const struct dg_value *params, int n, dg_row_fn fn,
                        void *ctx, struct dg_err *err);
int dg_pg_execute_calls(struct dg_conn *c, struct dg_call *calls, int n, int commit,
                        struct dg_err *err);
int dg_pg_set_streaming(struct dg_stmt *s, int on, struct dg_err *err);

/* copy.c */
void dg_pg_bulk_free(struct dg_bulk *b);
int dg_pg_bulk_begin(struct dg_conn *c, const char *table, const char *const *cols, int ncols,
                     struct dg_bulk **out, struct dg_err *err);
int dg_pg_bulk_row(struct dg_bulk *b, const struct dg_value *vals, struct dg_err *err);
int dg_pg_bulk_end(struct dg_bulk *b, struct dg_err *err);

/* stats.c: the monitor's calls */
int dg_pg_cache_stats(struct dg_conn *c, uint64_t *hits, uint64_t *misses, struct dg_err *err);
int dg_pg_server_local(struct dg_conn *c, char *data_dir, size_t n, long *pid, struct dg_err *err);
/* repl.c: the replication slot (struct dg_repl_row): a primary's standbys, or a standby itself. */
int dg_pg_replication(struct dg_conn *c, struct dg_repl_row *rows, int max, struct dg_err *err);
/* ctl.c: the postmaster of data_dir (0: none), and pg_ctl restart of it. */
long dg_pg_server_pid(const char *data_dir);
int dg_pg_server_restart(const char *data_dir, const char *ctl, struct dg_err *err);

#endif
