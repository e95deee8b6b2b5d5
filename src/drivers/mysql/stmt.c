/* stmt.c — MariaDB/MySQL driver: server-side prepared statements (binary protocol), typed
 * parameters bound into buffers the statement owns, typed result columns, NULLs, streamed
 * or stored results. No allocation per execute once a statement's buffers have grown. */
#include "drivers/mysql/internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frees the result column buffers. */
static void unbind_results(struct dg_stmt *s)
{
    for (int i = 0; s->cols && i < s->ncols; i++)
        free(s->cols[i].buf);
    free(s->cols);
    free(s->rbind);
    s->cols = NULL;
    s->rbind = NULL;
    s->ncols = 0;
}

void dg_my_stmt_free(struct dg_stmt *s)
{
    if (!s)
        return;
    if (s->st)
        mysql_stmt_close(s->st);
    unbind_results(s);
    free(s->pbind);
    free(s->ptext);
    free(s->pnull);
    free(s);
}

void dg_my_finalize(struct dg_stmt *s)
{
    if (!s)
        return;
    dg_list_del(&s->c->stmts, &s->link);
    dg_my_stmt_free(s);
}

/* Binds the result columns by their field types: integers as LONGLONG, floats as DOUBLE,
 * everything else (decimals, text, dates) as text. */
static int bind_results(struct dg_stmt *s, struct dg_err *err)
{
    MYSQL_RES *meta = mysql_stmt_result_metadata(s->st);
    if (!meta)
        return 0; /* no result set */
    s->ncols = (int)mysql_num_fields(meta);
    MYSQL_FIELD *f = mysql_fetch_fields(meta);
    s->rbind = calloc((size_t)s->ncols, sizeof *s->rbind);
    s->cols = calloc((size_t)s->ncols, sizeof *s->cols);
    if (!s->rbind || !s->cols) {
        mysql_free_result(meta);
        return dg_my_err(s->c, err, DG_ERR_FATAL, 0, "out of memory");
    }
    for (int i = 0; i < s->ncols; i++) {
        struct my_col *col = &s->cols[i];
        MYSQL_BIND *b = &s->rbind[i];
        switch (f[i].type) {
        case MYSQL_TYPE_TINY:
        case MYSQL_TYPE_SHORT:
        case MYSQL_TYPE_INT24:
        case MYSQL_TYPE_LONG:
        case MYSQL_TYPE_LONGLONG:
        case MYSQL_TYPE_YEAR:
            col->type = MYSQL_TYPE_LONGLONG;
            b->buffer = &col->i;
            b->is_unsigned = (f[i].flags & UNSIGNED_FLAG) != 0;
            break;
        case MYSQL_TYPE_FLOAT:
        case MYSQL_TYPE_DOUBLE:
            col->type = MYSQL_TYPE_DOUBLE;
            b->buffer = &col->d;
            break;
        default:
            col->type = MYSQL_TYPE_STRING;
            if (dg_buf_reserve(&col->buf, &col->cap, MY_COL_FIRST_BYTES)) {
                mysql_free_result(meta);
                return dg_my_err(s->c, err, DG_ERR_FATAL, 0, "out of memory");
            }
            b->buffer = col->buf;
            b->buffer_length = (unsigned long)col->cap - 1; /* room for a NUL */
            break;
        }
        b->buffer_type = col->type;
        b->length = &col->len;
        b->is_null = &col->is_null;
        b->error = &col->error;
    }
    mysql_free_result(meta);
    if (mysql_stmt_bind_result(s->st, s->rbind))
        return dg_my_stmt_err(s, "bind result", err);
    return 0;
}

int dg_my_prepare(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                  struct dg_err *err)
{
    *out = NULL;
    struct dg_stmt *s = calloc(1, sizeof *s);
    if (!s)
        return dg_my_err(c, err, DG_ERR_FATAL, 0, "out of memory");
    s->c = c;
    snprintf(s->what, sizeof s->what, "%.70s", sql);
    s->st = mysql_stmt_init(c->my);
    if (!s->st) {
        dg_my_err(c, err, DG_ERR_FATAL, 0, "out of memory");
        goto fail;
    }
    if (mysql_stmt_prepare(s->st, sql, (unsigned long)strlen(sql))) {
        dg_my_stmt_err(s, "prepare", err);
        size_t l = strlen(err->msg);
        snprintf(err->msg + l, sizeof err->msg - l, " in: %.160s", sql);
        goto fail;
    }
    int have = (int)mysql_stmt_param_count(s->st);
    if (have != nparams) {
        dg_my_err(c, err, DG_ERR_USER, 0, "prepare: statement has %d parameters, %d given: %.160s",
                  have, nparams, sql);
        goto fail;
    }
    s->nparams = nparams;
    if (nparams > 0) {
        s->pbind = calloc((size_t)nparams, sizeof *s->pbind);
        s->ptext = calloc((size_t)nparams, sizeof *s->ptext);
        s->pnull = calloc((size_t)nparams, sizeof *s->pnull);
        if (!s->pbind || !s->ptext || !s->pnull) {
            dg_my_err(c, err, DG_ERR_FATAL, 0, "out of memory");
            goto fail;
        }
    }
    if (bind_results(s, err))
        goto fail;
    dg_list_add(&c->stmts, &s->link);
    *out = s;
    return 0;
fail:
    dg_my_stmt_free(s);
    return -1;
}

/* Points the parameter binds at the values (text and integers in place; decimals as exact
 * text in the statement's own buffers). */
static int bind_params(struct dg_stmt *s, const struct dg_value *v, struct dg_err *err)
{
    for (int i = 0; i < s->nparams; i++) {
        MYSQL_BIND *b = &s->pbind[i];
        memset(b, 0, sizeof *b);
        switch (v[i].type) {
        case DG_T_INT:
            b->buffer_type = MYSQL_TYPE_LONGLONG;
            b->buffer = (void *)&v[i].i;
            break;
        case DG_T_DOUBLE:
            b->buffer_type = MYSQL_TYPE_DOUBLE;
            b->buffer = (void *)&v[i].d;
            break;
        case DG_T_TEXT:
            b->buffer_type = MYSQL_TYPE_STRING;
            b->buffer = (void *)(v[i].s.p ? v[i].s.p : "");
            b->buffer_length = (unsigned long)v[i].s.n;
            break;
        case DG_T_DEC: {
            size_t n = dg_dec_text(s->ptext[i], v[i].dec.v, v[i].dec.scale);
            if (n == 0)
                return dg_my_err(s->c, err, DG_ERR_USER, 0, "decimal scale %d out of range",
                                 v[i].dec.scale);
            b->buffer_type = MYSQL_TYPE_NEWDECIMAL;
            b->buffer = s->ptext[i];
            b->buffer_length = (unsigned long)n;
            break;
        }
        default:
            b->buffer_type = MYSQL_TYPE_NULL;
            s->pnull[i] = 1;
            b->is_null = &s->pnull[i];
            break;
        }
    }
    if (s->nparams && mysql_stmt_bind_param(s->st, s->pbind))
        return dg_my_stmt_err(s, "bind", err);
    return 0;
}

/* Drops what is left of the last execute's rows, and the results that follow them (a CALL
 * ends with a status result of its own). */
static void finish(struct dg_stmt *s)
{
    if (s->active) {
        mysql_stmt_free_result(s->st);
        s->active = 0;
    }
    while (mysql_stmt_more_results(s->st) && mysql_stmt_next_result(s->st) == 0)
        mysql_stmt_free_result(s->st);
}

int dg_my_execute(struct dg_stmt *s, const struct dg_value *params, struct dg_err *err)
{
    finish(s);
    s->changes = 0;
    if (bind_params(s, params, err))
        return -1;
    char what[96];
    if (mysql_stmt_execute(s->st)) {
        snprintf(what, sizeof what, "execute '%.60s'", s->what);
        return dg_my_stmt_err(s, what, err);
    }
    /* A CALL's result set is known only now: its columns are bound at the first execute. */
    unsigned nf = mysql_stmt_field_count(s->st);
    if (nf > 0 && (unsigned)s->ncols != nf) {
        unbind_results(s);
        if (bind_results(s, err))
            return -1;
        s->late_bind = 1;
    } else if (nf > 0 && s->late_bind && mysql_stmt_bind_result(s->st, s->rbind)) {
        /* the library drops a CALL's binds when its trailing status result is read */
        return dg_my_stmt_err(s, "bind result", err);
    }
    if (nf == 0) {
        my_ulonglong n = mysql_stmt_affected_rows(s->st);
        s->changes = n == (my_ulonglong)-1 ? 0 : (int64_t)n;
        finish(s);
        dg_my_answered(s->c);
        return 0;
    }
    if (!s->streaming && mysql_stmt_store_result(s->st)) {
        snprintf(what, sizeof what, "read rows of '%.60s'", s->what);
        return dg_my_stmt_err(s, what, err);
    }
    s->active = 1;
    dg_my_answered(s->c); /* streaming: again when its rows end */
    return 0;
}

/* A text column longer than its buffer: grow it and fetch the whole value again. */
static int refetch(struct dg_stmt *s, int i, struct dg_err *err)
{
    struct my_col *col = &s->cols[i];
    MYSQL_BIND *b = &s->rbind[i];
    if (dg_buf_reserve(&col->buf, &col->cap, (size_t)col->len + 2))
        return dg_my_err(s->c, err, DG_ERR_FATAL, 0, "out of memory");
    b->buffer = col->buf;
    b->buffer_length = (unsigned long)col->cap - 1; /* room for a NUL */
    if (mysql_stmt_fetch_column(s->st, b, (unsigned)i, 0))
        return dg_my_stmt_err(s, "fetch column", err);
    col->error = 0;
    return 1;
}

int dg_my_next_row(struct dg_stmt *s, struct dg_err *err)
{
    if (!s->active)
        return 0;
    int rc = mysql_stmt_fetch(s->st);
    if (rc == MYSQL_NO_DATA) {
        finish(s);
        if (s->streaming)
            dg_my_answered(s->c);
        return 0;
    }
    if (rc == 1) {
        char what[96];
        snprintf(what, sizeof what, "fetch '%.60s'", s->what);
        dg_my_stmt_err(s, what, err);
        finish(s);
        return -1;
    }
    if (rc == MYSQL_DATA_TRUNCATED) {
        int grown = 0;
        for (int i = 0; i < s->ncols; i++)
            if (s->cols[i].error && s->cols[i].type == MYSQL_TYPE_STRING) {
                if (refetch(s, i, err) < 0) {
                    finish(s);
                    return -1;
                }
                grown = 1;
            }
        if (grown && mysql_stmt_bind_result(s->st, s->rbind)) { /* the larger buffers */
            dg_my_stmt_err(s, "bind result", err);
            finish(s);
            return -1;
        }
    }
    return 1;
}

void dg_my_reset(struct dg_stmt *s)
{
    if (s->active) {
        finish(s);
        if (s->streaming)
            mysql_stmt_reset(s->st); /* unread rows still on the wire */
    }
}

int64_t dg_my_changes(struct dg_stmt *s) { return s->changes; }
int dg_my_ncols(struct dg_stmt *s) { return s->ncols; }
int dg_my_col_is_null(struct dg_stmt *s, int i) { return s->cols[i].is_null; }

int64_t dg_my_col_int(struct dg_stmt *s, int i)
{
    const struct my_col *col = &s->cols[i];
    if (col->is_null)
        return 0;
    if (col->type == MYSQL_TYPE_LONGLONG)
        return col->i;
    if (col->type == MYSQL_TYPE_DOUBLE)
        return (int64_t)col->d;
    char tmp[48];
    size_t n = col->len < sizeof tmp - 1 ? col->len : sizeof tmp - 1;
    memcpy(tmp, col->buf, n);
    tmp[n] = '\0';
    return strtoll(tmp, NULL, 10); /* decimals round toward zero */
}

double dg_my_col_double(struct dg_stmt *s, int i)
{
    const struct my_col *col = &s->cols[i];
    if (col->is_null)
        return 0;
    if (col->type == MYSQL_TYPE_DOUBLE)
        return col->d;
    if (col->type == MYSQL_TYPE_LONGLONG)
        return (double)col->i;
    char tmp[64];
    size_t n = col->len < sizeof tmp - 1 ? col->len : sizeof tmp - 1;
    memcpy(tmp, col->buf, n);
    tmp[n] = '\0';
    return strtod(tmp, NULL);
}

const char *dg_my_col_text(struct dg_stmt *s, int i, size_t *len)
{
    struct my_col *col = &s->cols[i];
    const char *p = "";
    size_t n = 0;
    if (col->is_null) {
    } else if (col->type == MYSQL_TYPE_STRING) {
        p = col->buf;
        n = col->len;
        if (n < col->cap)
            col->buf[n] = '\0';
    } else {
        int k = col->type == MYSQL_TYPE_LONGLONG
                    ? snprintf(col->num, sizeof col->num, "%" PRId64, col->i)
                    : snprintf(col->num, sizeof col->num, "%.17g", col->d);
        p = col->num;
        n = (size_t)k;
    }
    if (len)
        *len = n;
    return p;
}

int dg_my_set_streaming(struct dg_stmt *s, int on, struct dg_err *err)
{
    (void)err;
    finish(s);
    s->streaming = on != 0;
    return 0;
}
