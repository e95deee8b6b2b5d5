/* batch.c — execute_calls for ODBC. A step's statements are joined into one prepared text
 * (each statement once per parameter set, parameters laid end to end) and run by one
 * SQLExecute; the results are then read in order with SQLMoreResults, rows to each call's
 * callback and row counts summed. So a step costs one round trip, as the native drivers'
 * pipelines do, instead of one per statement. Only where the ODBC driver is known to send
 * such a text in one exchange and to return one result per statement (c->batch_ok, decided
 * at connect); elsewhere the calls run one by one. No allocation per execution once a
 * shape has been seen. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/odbc/internal.h"

static int ok(SQLRETURN rc) { return rc == SQL_SUCCESS || rc == SQL_SUCCESS_WITH_INFO; }

/* One joined statement: the key is the sequence of (statement, number of sets) it was
 * built from; results[] holds each result's column count and C types, learnt at the first
 * execution (a result's shape is fixed by its statement). */
struct odbc_batch {
    struct odbc_batch *next;
    uint64_t hash; /* of the key: compared before the key itself */
    int nkeys;
    int commit; /* the text ends in COMMIT: one more result, read and dropped */
    struct dg_stmt **key_stmt;
    int *key_sets;
    struct dg_stmt *st; /* the joined statement, in the connection's list */
    int nresults;
    int described;  /* results[] is filled */
    int *res_ncols; /* nresults; -1: no rows (a row count) */
    int *res_off;   /* nresults: where its types start in ctypes */
    SQLSMALLINT *ctypes;
    int nctypes;
};

static void batch_free(struct odbc_batch *b)
{
    if (b->st)
        dg_odbc_finalize(b->st);
    free(b->key_stmt);
    free(b->key_sets);
    free(b->res_ncols);
    free(b->res_off);
    free(b->ctypes);
    free(b);
}

void dg_odbc_batches_drop(struct dg_conn *c, const struct dg_stmt *s)
{
    struct odbc_batch **pp = &c->batches;
    while (*pp) {
        struct odbc_batch *b = *pp;
        int uses = !s;
        for (int i = 0; i < b->nkeys && !uses; i++)
            uses = b->key_stmt[i] == s;
        if (!uses) {
            pp = &b->next;
            continue;
        }
        *pp = b->next; /* unlinked first: finalizing its statement walks this list again */
        batch_free(b);
    }
}

/* FNV-1a over the statements and set counts of the calls that run, and commit. */
static uint64_t shape_hash(const struct dg_call *calls, int n, int commit)
{
    uint64_t h = 1469598103934665603u ^ (uint64_t)commit;
    for (int i = 0; i < n; i++) {
        if (calls[i].nsets <= 0)
            continue;
        h = (h ^ (uint64_t)(uintptr_t)calls[i].stmt) * 1099511628211u;
        h = (h ^ (uint64_t)calls[i].nsets) * 1099511628211u;
    }
    return h;
}

/* The calls that run (nsets > 0) match b's key. */
static int same_shape(const struct odbc_batch *b, const struct dg_call *calls, int n, int commit)
{
    if (b->commit != commit)
        return 0;
    int j = 0;
    for (int i = 0; i < n; i++) {
        if (calls[i].nsets <= 0)
            continue;
        if (j >= b->nkeys || b->key_stmt[j] != calls[i].stmt || b->key_sets[j] != calls[i].nsets)
            return 0;
        j++;
    }
    return j == b->nkeys;
}

static struct odbc_batch *find(struct dg_conn *c, const struct dg_call *calls, int n, int commit,
                               uint64_t hash)
{
    for (struct odbc_batch **pp = &c->batches; *pp; pp = &(*pp)->next)
        if ((*pp)->hash == hash && same_shape(*pp, calls, n, commit)) {
            struct odbc_batch *b = *pp; /* to the front: a step's shapes repeat */
            *pp = b->next;
            b->next = c->batches;
            c->batches = b;
            return b;
        }
    return NULL;
}

/* The text call's statement is joined as: itself, or EXECUTE of its server-side twin. buf
 * has room for the EXECUTE form (DG_EXEC_TEXT bytes). */
#define DG_EXEC_TEXT 256
static const char *joined_text(const struct dg_stmt *s, char *buf)
{
    /* "EXECUTE dg_pN" (at most 32 bytes), then "(?" and ", ?" per parameter, ")" */
    if (!s->server_id || 32 + 3 * (size_t)s->nparams + 2 > DG_EXEC_TEXT)
        return s->sql;
    int n = snprintf(buf, DG_EXEC_TEXT, "EXECUTE dg_p%lld", (long long)s->server_id);
    for (int i = 0; i < s->nparams; i++)
        n += snprintf(buf + n, (size_t)(DG_EXEC_TEXT - n), i ? ", ?" : "(?");
    if (s->nparams)
        snprintf(buf + n, (size_t)(DG_EXEC_TEXT - n), ")");
    return buf;
}

/* Builds and prepares the joined statement for the shape of calls. */
static struct odbc_batch *build(struct dg_conn *c, const struct dg_call *calls, int n, int commit,
                                struct dg_err *err)
{
    static const char commit_sql[] = "; COMMIT";
    struct odbc_batch *b = calloc(1, sizeof *b);
    char *sql = NULL;
    if (!b)
        goto oom;
    b->commit = commit;
    size_t len = sizeof commit_sql;
    int nparams = 0;
    for (int i = 0; i < n; i++)
        if (calls[i].nsets > 0) {
            b->nkeys++;
            b->nresults += calls[i].nsets;
            char buf[DG_EXEC_TEXT];
            len += (strlen(joined_text(calls[i].stmt, buf)) + 2) * (size_t)calls[i].nsets;
            nparams += calls[i].nsets * calls[i].stmt->nparams;
        }
    b->key_stmt = malloc((size_t)b->nkeys * sizeof *b->key_stmt);
    b->key_sets = malloc((size_t)b->nkeys * sizeof *b->key_sets);
    b->res_ncols = malloc((size_t)b->nresults * sizeof *b->res_ncols);
    b->res_off = malloc((size_t)b->nresults * sizeof *b->res_off);
    sql = malloc(len);
    if (!b->key_stmt || !b->key_sets || !b->res_ncols || !b->res_off || !sql)
        goto oom;
    char *p = sql;
    int j = 0;
    for (int i = 0; i < n; i++) {
        if (calls[i].nsets <= 0)
            continue;
        b->key_stmt[j] = calls[i].stmt;
        b->key_sets[j++] = calls[i].nsets;
        char buf[DG_EXEC_TEXT];
        const char *text = joined_text(calls[i].stmt, buf);
        size_t l = strlen(text);
        for (int k = 0; k < calls[i].nsets; k++) {
            if (p != sql) {
                *p++ = ';';
                *p++ = ' ';
            }
            memcpy(p, text, l);
            p += l;
        }
    }
    *p = '\0';
    if (commit)
        memcpy(p, commit_sql, sizeof commit_sql);
    if (dg_odbc_prepare_text(c, sql, nparams, &b->st, err)) {
        free(sql);
        batch_free(b);
        return NULL;
    }
    free(sql);
    b->next = c->batches;
    c->batches = b;
    return b;
oom:
    free(sql);
    if (b)
        batch_free(b);
    dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    return NULL;
}

/* Learns result r's shape from the driver (first execution of the batch only). */
static int learn(struct odbc_batch *b, int r, SQLSMALLINT ncols, struct dg_err *err)
{
    b->res_ncols[r] = ncols > 0 ? ncols : -1;
    b->res_off[r] = b->nctypes;
    if (ncols <= 0)
        return 0;
    SQLSMALLINT *ct = realloc(b->ctypes, (size_t)(b->nctypes + ncols) * sizeof *ct);
    if (!ct)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    b->ctypes = ct;
    dg_odbc_col_ctypes(b->st->h, ncols, ct + b->nctypes);
    b->nctypes += ncols;
    return 0;
}

/* Reads the current result, the set k of call: rows to its callback, its row count added. */
static int read_result(struct odbc_batch *b, int r, struct dg_call *call, int k,
                       struct dg_err *err)
{
    struct dg_stmt *st = b->st;
    if (!b->described) {
        SQLSMALLINT ncols = 0;
        if (!ok(SQLNumResultCols(st->h, &ncols)))
            return dg_odbc_fail(st->conn, SQL_HANDLE_STMT, st->h, "execute", err);
        if (learn(b, r, ncols, err))
            return -1;
    }
    SQLLEN rows = 0;
    if (ok(SQLRowCount(st->h, &rows)) && rows > 0)
        call->changes += rows;
    if (b->res_ncols[r] < 0)
        return 0;
    if (dg_odbc_cols_set(st, b->res_ncols[r], b->ctypes + b->res_off[r], err))
        return -1;
    int got;
    while ((got = dg_odbc_fetch(st, err)) == 1)
        if (call->fn && call->fn(call->ctx, k, st))
            break; /* the rest of this result is skipped by SQLMoreResults */
    return got < 0 ? -1 : 0;
}

static int run_batch(struct dg_conn *c, struct dg_call *calls, int n, int commit, struct dg_err *err)
{
    uint64_t hash = shape_hash(calls, n, commit);
    struct odbc_batch *b = find(c, calls, n, commit, hash);
    if (!b && !(b = build(c, calls, n, commit, err)))
        return -1;
    b->hash = hash;
    struct dg_stmt *st = b->st;
    if (!b->described)
        b->nctypes = 0; /* a first run that failed may have learnt part of the shapes */
    int p = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < calls[i].nsets; k++)
            for (int j = 0; j < calls[i].stmt->nparams; j++)
                if (dg_odbc_bind(st, p++, &calls[i].params[(size_t)k * (size_t)calls[i].nparams + (size_t)j],
                                 err))
                    return -1;
    SQLRETURN rc = SQLExecute(st->h);
    int r = 0, failed = 0;
    if (!ok(rc) && rc != SQL_NO_DATA) {
        dg_odbc_fail(c, SQL_HANDLE_STMT, st->h, "execute", err);
        failed = 1;
    }
    for (int i = 0; i < n && !failed; i++)
        for (int k = 0; k < calls[i].nsets && !failed; k++, r++) {
            if (r > 0) {
                rc = SQLMoreResults(st->h);
                if (rc == SQL_NO_DATA) {
                    dg_err_set(err, DG_ERR_FATAL, 0,
                               "ODBC: the driver returned %d results for a batch of %d statements", r,
                               b->nresults);
                    failed = 1;
                    break;
                }
                if (!ok(rc)) {
                    dg_odbc_fail(c, SQL_HANDLE_STMT, st->h, "execute", err);
                    failed = 1;
                    break;
                }
            }
            failed = read_result(b, r, &calls[i], k, err) != 0;
        }
    if (!failed && b->commit) { /* the COMMIT's own result: its error is the step's */
        rc = SQLMoreResults(st->h);
        if (!ok(rc) && rc != SQL_NO_DATA) {
            dg_odbc_fail(c, SQL_HANDLE_STMT, st->h, "commit", err);
            failed = 1;
        }
    }
    if (!failed)
        b->described = 1;
    SQLFreeStmt(st->h, SQL_CLOSE); /* discards whatever is left */
    return failed ? -1 : 0;
}

int dg_odbc_execute_calls(struct dg_conn *c, struct dg_call *calls, int n, int commit,
                          struct dg_err *err)
{
    int statements = 0;
    for (int i = 0; i < n; i++) {
        calls[i].changes = 0;
        if (calls[i].nsets > 0)
            statements += calls[i].nsets;
    }
    /* A lone statement without a commit gains nothing from joining: it keeps its own
     * prepared handle. The COMMIT joins the text only inside a transaction we opened; the
     * driver's own bookkeeping is then closed by dg_odbc_commit, which sends nothing more
     * (the server already said the transaction ended). */
    int join_commit = commit && c->in_txn && !c->sql_txn;
    int rc = c->batch_ok && (statements > 1 || join_commit) && statements > 0
                 ? run_batch(c, calls, n, join_commit, err)
                 : dg_execute_calls_each(&dg_driver_odbc, calls, n, err);
    if (rc)
        return -1;
    return commit ? dg_odbc_commit(c, err) : 0;
}
