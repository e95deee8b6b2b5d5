/* stmt.c — PostgreSQL driver: prepared statements (`?` rewritten to $n), text parameters,
 * results and rows, pipelined batches and call lists. Must not allocate per execute in the
 * steady state, nor leave the connection in pipeline mode on return. */
#include "drivers/pgsql/internal.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- prepared statements --------------------------------------------------------------- */

void dg_pg_stmt_free(struct dg_stmt *s)
{
    PQclear(s->res);
    free(s->values);
    free(s->offs);
    free(s->buf);
    free(s);
}


static int ident_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '$' || (unsigned char)ch >= 0x80;
}

char *dg_pg_rewrite_placeholders(const char *sql, int *n)
{
    size_t len = strlen(sql), q = 0;
    for (size_t i = 0; i < len; i++)
        q += sql[i] == '?';
    char *out = malloc(len + q * 20 + 1); /* "$N": 20 digits at most, whatever the count */
    if (!out)
        return NULL;
    size_t o = 0;
    int k = 0;
    const char *p = sql;
    while (*p) {
        if (*p == '\'' || *p == '"') {
            char quote = *p;
            int esc = quote == '\'' && p > sql && (p[-1] == 'E' || p[-1] == 'e') &&
                      (p - 1 == sql || !ident_char(p[-2]));
            out[o++] = *p++;
            while (*p) {
                if (esc && *p == '\\' && p[1]) {
                    out[o++] = *p++;
                    out[o++] = *p++;
                } else if (*p == quote) {
                    out[o++] = *p++;
                    if (*p != quote)
                        break;
                    out[o++] = *p++; /* doubled quote */
                } else {
                    out[o++] = *p++;
                }
            }
        } else if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                out[o++] = *p++;
        } else if (p[0] == '/' && p[1] == '*') {
            int depth = 0;
            do {
                if (p[0] == '/' && p[1] == '*') {
                    depth++;
                    out[o++] = *p++;
                } else if (p[0] == '*' && p[1] == '/') {
                    depth--;
                    out[o++] = *p++;
                }
                out[o++] = *p++;
            } while (*p && depth > 0);
        } else if (*p == '$' && (p == sql || !ident_char(p[-1])) && !(p[1] >= '0' && p[1] <= '9')) {
            const char *t = p + 1;
            while (*t && *t != '$' && ident_char(*t))
                t++;
            if (*t != '$') {
                out[o++] = *p++;
                continue;
            }
            size_t tag = (size_t)(t + 1 - p);
            const char *body = t + 1;
            const char *end = body;
            while ((end = strchr(end, '$')) && strncmp(end, p, tag) != 0)
                end++;
            size_t take = end ? (size_t)(end + tag - p) : strlen(p);
            memcpy(out + o, p, take);
            o += take;
            p += take;
        } else if (*p == '?') {
            out[o++] = '$';
            o += dg_u64_text(out + o, (uint64_t)++k);
            p++;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
    *n = k;
    return out;
}

int dg_pg_prepare(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                      struct dg_err *err)
{
    *out = NULL;
    int found = 0, rc = -1;
    PGresult *res = NULL;
    struct dg_stmt *s = NULL;
    char *text = dg_pg_rewrite_placeholders(sql, &found);
    if (!text)
        return dg_pg_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
    if (nparams >= 0 && found != nparams) {
        dg_pg_err(c, err, DG_ERR_USER, NULL,
                "statement has %d placeholders but %d parameters were declared: %.200s", found,
                nparams, sql);
        goto out;
    }
    s = calloc(1, sizeof *s);
    if (!s) {
        dg_pg_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
        goto out;
    }
    s->c = c;
    s->nparams = found;
    snprintf(s->name, sizeof s->name, "dg%u", ++c->next_stmt);
    snprintf(s->what, sizeof s->what, "%.60s", sql);
    if (found) {
        s->values = calloc((size_t)found, sizeof *s->values);
        s->offs = calloc((size_t)found, sizeof *s->offs);
        if (!s->values || !s->offs || dg_buf_reserve(&s->buf, &s->cap, 256)) {
            dg_pg_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
            goto out;
        }
    }
    if (dg_pg_flush_begin(c, err))
        goto out;
    res = PQprepare(c->pg, s->name, text, found, NULL);
    if (!res || PQresultStatus(res) != PGRES_COMMAND_OK) {
        char what[112];
        snprintf(what, sizeof what, "prepare '%s'", s->what);
        dg_pg_res_err(c, res, what, err);
        goto out;
    }
    dg_list_add(&c->stmts, &s->link);
    *out = s;
    s = NULL;
    rc = 0;
out:
    PQclear(res);
    if (s)
        dg_pg_stmt_free(s);
    free(text);
    return rc;
}

void dg_pg_finalize(struct dg_stmt *s)
{
    if (!s)
        return;
    dg_pg_reset(s); /* a stream still coming would block the DEALLOCATE */
    struct dg_conn *c = s->c;
    dg_list_del(&c->stmts, &s->link);
    /* DEALLOCATE only when it can run; otherwise the session ends it (names never repeat). */
    struct dg_err ignore;
    if (dg_pg_flush_begin(c, &ignore) == 0 && PQstatus(c->pg) == CONNECTION_OK && !c->bulk && PQpipelineStatus(c->pg) == PQ_PIPELINE_OFF) {
        PGTransactionStatusType ts = PQtransactionStatus(c->pg);
        if (ts == PQTRANS_IDLE || ts == PQTRANS_INTRANS) {
            char sql[32];
            snprintf(sql, sizeof sql, "DEALLOCATE %s", s->name);
            PQclear(PQexec(c->pg, sql));
        }
    }
    dg_pg_stmt_free(s);
}

/* Formats params as text into s->buf and points s->values at them. */
static int bind(struct dg_stmt *s, const struct dg_value *params, struct dg_err *err)
{
    size_t o = 0;
    for (int i = 0; i < s->nparams; i++) {
        const struct dg_value *v = &params[i];
        size_t need = o + (v->type == DG_T_TEXT ? v->s.n + 1 : 64);
        if (dg_buf_reserve(&s->buf, &s->cap, need))
            return dg_pg_err(s->c, err, DG_ERR_FATAL, NULL, "out of memory");
        s->offs[i] = o;
        switch (v->type) {
        case DG_T_NULL:
            s->offs[i] = SIZE_MAX;
            continue;
        case DG_T_INT:
            o += dg_i64_text(s->buf + o, v->i);
            break;
        case DG_T_DOUBLE:
            o += dg_pg_fmt_double(s->buf + o, v->d);
            break;
        case DG_T_TEXT:
            if (v->s.n)
                memcpy(s->buf + o, v->s.p, v->s.n);
            o += v->s.n;
            break;
        case DG_T_DEC: {
            size_t n = dg_dec_text(s->buf + o, v->dec.v, v->dec.scale);
            if (!n)
                return dg_pg_err(s->c, err, DG_ERR_USER, NULL, "parameter %d: decimal scale %d out of range",
                               i + 1, v->dec.scale);
            o += n;
            break;
        }
        default:
            return dg_pg_err(s->c, err, DG_ERR_USER, NULL, "parameter %d: unknown type %d", i + 1,
                           (int)v->type);
        }
        s->buf[o++] = '\0';
    }
    for (int i = 0; i < s->nparams; i++)
        s->values[i] = s->offs[i] == SIZE_MAX ? NULL : s->buf + s->offs[i];
    return 0;
}

/* Takes res as the statement's current result, or fills err. */
static int take_result(struct dg_stmt *s, PGresult *res, struct dg_err *err)
{
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK || st == PGRES_SINGLE_TUPLE) {
        s->res = res;
        s->row = -1;
        s->nrows = PQntuples(res);
        s->changes = dg_pg_parse_i64(PQcmdTuples(res));
        return 0;
    }
    char what[112];
    snprintf(what, sizeof what, "execute '%s'", s->what);
    dg_pg_res_err(s->c, res, what, err);
    PQclear(res);
    return -1;
}

void dg_pg_reset(struct dg_stmt *s)
{
    PQclear(s->res);
    s->res = NULL;
    s->nrows = 0;
    s->row = -1;
    if (s->streaming_active) { /* read the rest of the stream so the connection is free */
        PGresult *r;
        while ((r = PQgetResult(s->c->pg)) != NULL)
            PQclear(r);
        s->streaming_active = 0;
    }
}

int dg_pg_set_streaming(struct dg_stmt *s, int on, struct dg_err *err)
{
    (void)err;
    dg_pg_reset(s);
    s->streaming = on != 0;
    return 0;
}

/* Streaming: send, ask for single-row mode; the rows are read by next_row. */
static int execute_streaming(struct dg_stmt *s, struct dg_err *err)
{
    struct dg_conn *c = s->c;
    if (dg_pg_flush_begin(c, err))
        return -1;
    if (!PQsendQueryPrepared(c->pg, s->name, s->nparams, s->values, NULL, NULL, 0))
        return dg_pg_res_err(c, NULL, "send", err);
    PQsetSingleRowMode(c->pg);
    s->streaming_active = 1;
    return 0;
}

/* The next row of a stream: 1 a row (res holds it), 0 the end, -1 an error. */
static int next_streamed(struct dg_stmt *s, struct dg_err *err)
{
    PQclear(s->res);
    s->res = NULL;
    PGresult *res = PQgetResult(s->c->pg);
    if (res && PQresultStatus(res) == PGRES_SINGLE_TUPLE) {
        s->res = res;
        s->row = 0;
        s->nrows = 1;
        return 1;
    }
    int rc = 0;
    if (res && PQresultStatus(res) == PGRES_TUPLES_OK) {
        s->changes = dg_pg_parse_i64(PQcmdTuples(res));
        PQclear(res);
    } else if (res || PQstatus(s->c->pg) == CONNECTION_BAD) {
        char what[112];
        snprintf(what, sizeof what, "execute '%s'", s->what);
        rc = dg_pg_res_err(s->c, res, what, err);
        PQclear(res);
    }
    dg_pg_reset(s); /* reads to the end of the stream */
    return rc;
}

/* The transaction's first statement: BEGIN and it go in one pipeline, one round trip. */
static int execute_with_begin(struct dg_stmt *s, struct dg_err *err)
{
    struct dg_conn *c = s->c;
    const char *begin = c->pending_begin;
    c->pending_begin = NULL;
    if (!PQenterPipelineMode(c->pg))
        return dg_pg_res_err(c, NULL, "enter pipeline mode", err);
    int failed = 0, got = 0;
    if (!PQsendQueryParams(c->pg, begin, 0, NULL, NULL, NULL, NULL, 0) ||
        !PQsendQueryPrepared(c->pg, s->name, s->nparams, s->values, NULL, NULL, 0) ||
        !PQpipelineSync(c->pg)) {
        dg_pg_res_err(c, NULL, "pipeline send", err);
        PQexitPipelineMode(c->pg);
        return -1;
    }
    for (int q = 0; q < 2;) { /* BEGIN's result, then the statement's, each ended by NULL */
        PGresult *res = PQgetResult(c->pg);
        if (!res) {
            if (PQstatus(c->pg) == CONNECTION_BAD) {
                if (!failed)
                    dg_pg_res_err(c, NULL, "pipeline read", err);
                return -1;
            }
            q++;
            continue;
        }
        ExecStatusType st = PQresultStatus(res);
        if (failed || st == PGRES_PIPELINE_ABORTED) {
            PQclear(res);
        } else if (q == 0) {
            if (st != PGRES_COMMAND_OK)
                failed = 1, dg_pg_res_err(c, res, begin, err);
            PQclear(res);
        } else if (take_result(s, res, err)) { /* take_result cleared res */
            failed = 1;
        } else {
            got = 1;
        }
    }
    for (;;) { /* up to the sync */
        PGresult *res = PQgetResult(c->pg);
        if (!res) {
            if (PQstatus(c->pg) == CONNECTION_BAD)
                break;
            continue;
        }
        ExecStatusType st = PQresultStatus(res);
        PQclear(res);
        if (st == PGRES_PIPELINE_SYNC)
            break;
    }
    if (!PQexitPipelineMode(c->pg) && !failed) {
        failed = 1;
        dg_pg_res_err(c, NULL, "exit pipeline mode", err);
    }
    if (failed) {
        dg_pg_reset(s);
        return -1;
    }
    return got ? 0 : dg_pg_err(c, err, DG_ERR_FATAL, NULL, "no result for '%s'", s->what);
}

int dg_pg_execute(struct dg_stmt *s, const struct dg_value *params, struct dg_err *err)
{
    dg_pg_reset(s);
    s->changes = 0;
    if (bind(s, params, err))
        return -1;
    if (s->streaming)
        return execute_streaming(s, err);
    if (s->c->pending_begin)
        return execute_with_begin(s, err);
    PGresult *res = dg_pg_exec_prepared(s->c->pg, s->name, s->nparams, (const char *const *)s->values);
    return take_result(s, res, err);
}

int dg_pg_next_row(struct dg_stmt *s, struct dg_err *err)
{
    if (s->streaming_active)
        return next_streamed(s, err);
    if (!s->res)
        return 0;
    if (++s->row < s->nrows)
        return 1;
    dg_pg_reset(s);
    return 0;
}

int64_t dg_pg_changes(struct dg_stmt *s) { return s->changes; }
int dg_pg_ncols(struct dg_stmt *s) { return s->res ? PQnfields(s->res) : 0; }

int dg_pg_col_is_null(struct dg_stmt *s, int i)
{
    return !s->res || s->row < 0 || PQgetisnull(s->res, s->row, i);
}

int64_t dg_pg_col_int(struct dg_stmt *s, int i)
{
    if (dg_pg_col_is_null(s, i))
        return 0;
    return dg_pg_parse_i64(PQgetvalue(s->res, s->row, i));
}

double dg_pg_col_double(struct dg_stmt *s, int i)
{
    if (dg_pg_col_is_null(s, i))
        return 0;
    return strtod(PQgetvalue(s->res, s->row, i), NULL);
}

const char *dg_pg_col_text(struct dg_stmt *s, int i, size_t *len)
{
    if (dg_pg_col_is_null(s, i)) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = (size_t)PQgetlength(s->res, s->row, i);
    return PQgetvalue(s->res, s->row, i);
}


/* Sends sets [k0, k0+n) and one sync, then reads every result in order, calling fn for each
 * row. Keeps the first error in err and drains to the sync; adds the rows changed to *total. */
static int batch_chunk(struct dg_stmt *s, const struct dg_value *params, int k0, int n,
                       dg_row_fn fn, void *ctx, int64_t *total, struct dg_err *err)
{
    struct dg_conn *c = s->c;
    int failed = 0, sent = 0;
    for (int k = k0; k < k0 + n; k++) {
        if (bind(s, s->nparams ? params + (size_t)k * (size_t)s->nparams : params, err)) {
            failed = 1;
            break;
        }
        if (!PQsendQueryPrepared(c->pg, s->name, s->nparams, s->values, NULL, NULL, 0)) {
            dg_pg_res_err(c, NULL, "pipeline send", err);
            failed = 1;
            break;
        }
        sent++;
    }
    if (!PQpipelineSync(c->pg)) {
        if (!failed)
            dg_pg_res_err(c, NULL, "pipeline sync", err);
        return -1;
    }
    int k = k0, nulls = 0, skip = 0;
    for (;;) {
        PGresult *res = PQgetResult(c->pg);
        if (!res) { /* the end of one query's results */
            if (PQstatus(c->pg) == CONNECTION_BAD || ++nulls > sent) {
                if (!failed)
                    dg_pg_res_err(c, NULL, "pipeline read", err);
                return -1;
            }
            k++;
            skip = 0;
            continue;
        }
        ExecStatusType st = PQresultStatus(res);
        if (st == PGRES_PIPELINE_SYNC) {
            PQclear(res);
            break;
        }
        if (failed || st == PGRES_PIPELINE_ABORTED) {
            PQclear(res);
            continue;
        }
        if (take_result(s, res, err)) { /* take_result cleared res */
            failed = 1;
            continue;
        }
        *total += s->changes;
        while (!skip && fn && dg_pg_next_row(s, err) == 1)
            if (fn(ctx, k, s))
                skip = 1;
        dg_pg_reset(s);
    }
    return failed ? -1 : 0;
}

int dg_pg_execute_batch(struct dg_stmt *s, const struct dg_value *params, int n, dg_row_fn fn,
                            void *ctx, struct dg_err *err)
{
    struct dg_conn *c = s->c;
    dg_pg_reset(s);
    s->changes = 0;
    if (n <= 0)
        return 0;
    if (dg_pg_flush_begin(c, err))
        return -1;
    if (!PQenterPipelineMode(c->pg))
        return dg_pg_res_err(c, NULL, "enter pipeline mode", err);
    int64_t total = 0;
    int rc = 0;
    for (int k0 = 0; k0 < n && rc == 0; k0 += BATCH_CHUNK)
        rc = batch_chunk(s, params, k0, n - k0 < BATCH_CHUNK ? n - k0 : BATCH_CHUNK, fn, ctx,
                         &total, err);
    if (!PQexitPipelineMode(c->pg) && rc == 0)
        rc = dg_pg_res_err(c, NULL, "exit pipeline mode", err);
    s->changes = total;
    return rc;
}

/* ---- call lists: one pipeline, one sync, one round trip -------------------------------- */

/* Where the reader is in what was sent: the held-back BEGIN, then each call's sets in
 * order, then COMMIT. */
struct cursor {
    struct dg_call *calls;
    int n;
    int i, k; /* call and set of the current query; i == n: past the calls */
};

static void cursor_skip_empty(struct cursor *cur)
{
    while (cur->i < cur->n && cur->k >= cur->calls[cur->i].nsets) {
        cur->i++;
        cur->k = 0;
    }
}

static void cursor_next(struct cursor *cur)
{
    cur->k++;
    cursor_skip_empty(cur);
}

/* Sends BEGIN (when held back), every set of every call, COMMIT (when asked) and a sync.
 * Returns the number of queries sent; on a failure err is filled and *failed set, and what
 * was sent before it still has to be read. */
static int send_calls(struct dg_conn *c, const char *begin, struct dg_call *calls, int n,
                      int commit, int *failed, struct dg_err *err)
{
    int sent = 0;
    if (begin) {
        if (!PQsendQueryParams(c->pg, begin, 0, NULL, NULL, NULL, NULL, 0))
            goto send_failed;
        sent++;
    }
    for (int i = 0; i < n; i++) {
        struct dg_stmt *s = calls[i].stmt;
        if (calls[i].nsets > 0 && calls[i].nparams != s->nparams) {
            dg_pg_err(c, err, DG_ERR_USER, NULL, "call '%s': %d parameters given, %d prepared",
                      s->what, calls[i].nparams, s->nparams);
            *failed = 1;
            return sent;
        }
        for (int k = 0; k < calls[i].nsets; k++) {
            if (bind(s, calls[i].params + (size_t)k * (size_t)s->nparams, err)) {
                *failed = 1;
                return sent;
            }
            if (!PQsendQueryPrepared(c->pg, s->name, s->nparams, s->values, NULL, NULL, 0))
                goto send_failed;
            sent++;
        }
    }
    if (commit) {
        if (!PQsendQueryParams(c->pg, "COMMIT", 0, NULL, NULL, NULL, NULL, 0))
            goto send_failed;
        sent++;
    }
    return sent;
send_failed:
    dg_pg_res_err(c, NULL, "pipeline send", err);
    *failed = 1;
    return sent;
}

/* Takes one result of the query at the cursor; fills err and returns -1 on an error. */
static int take_call_result(struct dg_conn *c, PGresult *res, int q, int has_begin, int is_commit,
                            const char *begin, const struct cursor *cur, struct dg_err *err)
{
    ExecStatusType st = PQresultStatus(res);
    if (has_begin && q == 0) {
        int rc = st == PGRES_COMMAND_OK ? 0 : dg_pg_res_err(c, res, begin, err);
        PQclear(res);
        return rc;
    }
    if (is_commit)
        return dg_pg_commit_result(c, res, err);
    struct dg_call *call = &cur->calls[cur->i];
    struct dg_stmt *s = call->stmt;
    if (take_result(s, res, err)) /* take_result cleared res */
        return -1;
    call->changes += s->changes;
    while (call->fn && dg_pg_next_row(s, err) == 1)
        if (call->fn(call->ctx, cur->k, s))
            break;
    dg_pg_reset(s);
    return 0;
}

int dg_pg_execute_calls(struct dg_conn *c, struct dg_call *calls, int n, int commit,
                        struct dg_err *err)
{
    int nothing = 1;
    for (int i = 0; i < n; i++) {
        dg_pg_reset(calls[i].stmt);
        calls[i].stmt->changes = 0;
        calls[i].changes = 0;
        nothing &= calls[i].nsets <= 0;
    }
    if (nothing && c->pending_begin && commit) { /* as COMMIT alone: nothing ran, nothing to send */
        c->pending_begin = NULL;
        return 0;
    }
    if (!PQenterPipelineMode(c->pg))
        return dg_pg_res_err(c, NULL, "enter pipeline mode", err);
    const char *begin = c->pending_begin;
    c->pending_begin = NULL;
    int failed = 0;
    int sent = send_calls(c, begin, calls, n, commit, &failed, err);
    if (!PQpipelineSync(c->pg)) {
        if (!failed)
            dg_pg_res_err(c, NULL, "pipeline sync", err);
        PQexitPipelineMode(c->pg);
        return -1;
    }
    /* Read every result up to the sync; after the first error the server skips the rest
     * (PIPELINE_ABORTED) and the transaction stays open, aborted, for the rollback. */
    struct cursor cur = {calls, n, 0, 0};
    cursor_skip_empty(&cur);
    int has_begin = begin != NULL, q = 0;
    for (;;) {
        PGresult *res = PQgetResult(c->pg);
        if (!res) { /* the end of one query's results */
            if (PQstatus(c->pg) == CONNECTION_BAD || q >= sent) {
                if (!failed)
                    dg_pg_res_err(c, NULL, "pipeline read", err);
                failed = 1;
                break;
            }
            if (!(has_begin && q == 0))
                cursor_next(&cur);
            q++;
            continue;
        }
        ExecStatusType st = PQresultStatus(res);
        if (st == PGRES_PIPELINE_SYNC) {
            PQclear(res);
            break;
        }
        if (failed || st == PGRES_PIPELINE_ABORTED) {
            PQclear(res);
            continue;
        }
        int is_commit = commit && q == sent - 1 && cur.i >= n;
        if (!is_commit && !(has_begin && q == 0) && cur.i >= n) { /* more results than sent */
            /* An error here is most often the server ending the session (57P01): class it. */
            if (st == PGRES_FATAL_ERROR || PQstatus(c->pg) == CONNECTION_BAD)
                dg_pg_res_err(c, res, "pipeline read", err);
            else
                dg_pg_err(c, err, DG_ERR_FATAL, NULL, "pipeline read: a result nobody asked for");
            PQclear(res);
            failed = 1;
        } else if (take_call_result(c, res, q, has_begin, is_commit, begin, &cur, err))
            failed = 1;
    }
    if (!PQexitPipelineMode(c->pg) && !failed) {
        failed = 1;
        dg_pg_res_err(c, NULL, "exit pipeline mode", err);
    }
    return failed ? -1 : 0;
}
