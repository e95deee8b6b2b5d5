/* internal.h — what the files of the ODBC driver share: the connection, statement and bulk
 * records and the diagnostics helper. Included only by the .c files of src/drivers/odbc;
 * nothing outside this folder may include sql.h. */
#ifndef DG_ODBC_INTERNAL_H
#define DG_ODBC_INTERNAL_H

#include <sql.h>
#include <sqlext.h>

#include "core/buf.h"
#include "core/driver.h"
#include "core/list.h"
#include "core/numtext.h"
#include "core/secret.h"

struct dg_conn {
    SQLHENV env;
    SQLHDBC dbc;
    SQLHSTMT scratch; /* for exec and small queries */
    enum dg_dialect dialect;
    char dbms[64], dbms_ver[64], driver[64], driver_ver[32];
    char server[256]; /* SQL_SERVER_NAME, for conn_where */
    struct dg_list stmts; /* every prepared statement, for disconnect */
    struct dg_secrets secrets;  /* the password's forms, scrubbed from every message */
    struct odbc_batch *batches; /* execute_calls' joined statements, one per shape (batch.c) */
    int batch_ok;          /* the driver sends a multi-statement text in one exchange */
    int64_t server_ids;    /* names given to server-side PREPAREd statements so far */
    int in_txn;            /* autocommit is off (or BEGIN sent, SQLite) */
    int txn_failed;        /* a statement failed inside the open transaction */
    int sql_txn;           /* SQLite: the transaction is BEGIN/COMMIT text, autocommit stays on */
    SQLULEN iso_now;       /* isolation last set on the connection, 0 = driver default */
};

/* One column of the current row, read with SQLGetData. The buffer is the statement's and
 * grows to the largest value seen (no allocation per row once warm). */
struct odbc_col {
    SQLSMALLINT type; /* SQL type as described */
    SQLSMALLINT ctype; /* SQL_C_SBIGINT, SQL_C_DOUBLE or SQL_C_CHAR */
    int is_null;
    int64_t i;
    double d;
    char *buf;
    size_t cap, len; /* text in buf (ctype SQL_C_CHAR, or formatted on demand: has_text) */
    int has_text;
};

struct odbc_param {
    enum dg_type bound; /* what is bound now; rebinding only when it changes */
    const void *ptr;
    SQLLEN ind;
    int64_t i;
    double d;
    char dec[DG_DEC_TEXT_MAX];
};

struct dg_stmt {
    struct dg_conn *conn;
    SQLHSTMT h;
    struct dg_link link; /* in conn->stmts */
    char *sql; /* the text as prepared (owned), for execute_calls to join */
    int64_t server_id; /* > 0: also PREPAREd on the server as dg_p<id> (batch.c joins EXECUTEs) */
    int nparams;
    struct odbc_param *params;
    int ncols; /* of the current result; -1 until described */
    int ccap;  /* column slots allocated in cols (kept when a result has fewer) */
    struct odbc_col *cols;
    int open;  /* a cursor is open */
    int64_t changes;
};

/* The driver's table (conn.c). */
extern const struct dg_driver dg_driver_odbc;

/* Fills err from the diagnostics of handle (type SQL_HANDLE_*), classifying by SQLSTATE,
 * native code and message, with c's secrets scrubbed from it; marks the open transaction
 * failed. Returns -1. */
int dg_odbc_fail(struct dg_conn *c, SQLSMALLINT type, SQLHANDLE h, const char *what, struct dg_err *err);
/* Runs one SQL text (possibly several statements) on the scratch handle, draining results. */
int dg_odbc_exec(struct dg_conn *c, const char *sql, struct dg_err *err);
/* Transactions: autocommit off + SQLEndTran (SQLite: BEGIN IMMEDIATE / COMMIT as text). */
int dg_odbc_begin(struct dg_conn *c, enum dg_isolation iso, int write, struct dg_err *err);
int dg_odbc_commit(struct dg_conn *c, struct dg_err *err);
int dg_odbc_rollback(struct dg_conn *c, struct dg_err *err);

/* stmt.c */
/* Copies sql into out (strlen(sql) + 1 bytes) without its comments (one space each), so a
 * driver that counts `?` inside comments (SQLite's does) sees only the real markers. Quoted
 * text is kept; MySQL's executable and hint comments (slash-star-! and slash-star-+) are kept. */
void dg_odbc_strip_comments(const char *sql, char *out);
/* sql with its `?` markers numbered $1, $2, ... (outside quotes), malloc'd (the caller's;
 * NULL out of memory); *n the number of markers. (The sql fuzz target calls both.) */
char *dg_odbc_dollars(const char *sql, int *n);
int dg_odbc_prepare(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                    struct dg_err *err);
/* The same without the server-side PREPARE (batch.c's joined texts). */
int dg_odbc_prepare_text(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                         struct dg_err *err);
void dg_odbc_finalize(struct dg_stmt *s);
int dg_odbc_execute(struct dg_stmt *s, const struct dg_value *params, struct dg_err *err);
int dg_odbc_next_row(struct dg_stmt *s, struct dg_err *err);
void dg_odbc_reset(struct dg_stmt *s);
int64_t dg_odbc_changes(struct dg_stmt *s);
int dg_odbc_ncols(struct dg_stmt *s);
int dg_odbc_col_is_null(struct dg_stmt *s, int i);
int64_t dg_odbc_col_int(struct dg_stmt *s, int i);
double dg_odbc_col_double(struct dg_stmt *s, int i);
const char *dg_odbc_col_text(struct dg_stmt *s, int i, size_t *len);
/* Binds parameter i of s to v (rebinding only when its type or place changes). */
int dg_odbc_bind(struct dg_stmt *s, int i, const struct dg_value *v, struct dg_err *err);
/* The C type a column of SQL type t is read as. */
SQLSMALLINT dg_odbc_ctype(SQLSMALLINT t);
/* The C types to read the current result's first n columns as (SQLDescribeCol on h). */
void dg_odbc_col_ctypes(SQLHSTMT h, int n, SQLSMALLINT *ctypes);
/* Makes the current result of s n columns of C types ctypes (slots grown, never shrunk). */
int dg_odbc_cols_set(struct dg_stmt *s, int n, const SQLSMALLINT *ctypes, struct dg_err *err);
/* Fetches the next row of the current result into the column buffers: 1 a row, 0 none
 * left (the cursor stays open, so further results can still be read), -1 an error. */
int dg_odbc_fetch(struct dg_stmt *s, struct dg_err *err);

/* batch.c */
/* execute_calls: a step's calls as one joined statement where c->batch_ok, else one by one. */
int dg_odbc_execute_calls(struct dg_conn *c, struct dg_call *calls, int n, int commit,
                          struct dg_err *err);
/* Drops the cached joined statements that use s (all of them when s is NULL). */
void dg_odbc_batches_drop(struct dg_conn *c, const struct dg_stmt *s);

/* bulk.c */
int dg_odbc_bulk_begin(struct dg_conn *c, const char *table, const char *const *cols, int ncols,
                       struct dg_bulk **out, struct dg_err *err);
int dg_odbc_bulk_row(struct dg_bulk *b, const struct dg_value *vals, struct dg_err *err);
int dg_odbc_bulk_end(struct dg_bulk *b, struct dg_err *err);

#endif
