/* copy.c — PostgreSQL driver: bulk load with COPY FROM STDIN in text format, rows escaped
 * and buffered, flushed in large chunks. Must not be used while a pipeline is open. */
#include "drivers/pgsql/internal.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bulk load (COPY FROM STDIN, text format) ------------------------------------------ */

void dg_pg_bulk_free(struct dg_bulk *b)
{
    if (b->c && b->c->bulk == b)
        b->c->bulk = NULL;
    free(b->buf);
    free(b);
}


int dg_pg_bulk_begin(struct dg_conn *c, const char *table, const char *const *cols, int ncols,
                         struct dg_bulk **out, struct dg_err *err)
{
    *out = NULL;
    if (c->bulk)
        return dg_pg_err(c, err, DG_ERR_USER, NULL, "a bulk load is already open on this connection");
    if (ncols <= 0)
        return dg_pg_err(c, err, DG_ERR_USER, NULL, "bulk load into %s: no columns", table);
    int rc = -1;
    char *sql = NULL;
    size_t len = 0, cap = 0;
    PGresult *res = NULL;
    struct dg_bulk *b = calloc(1, sizeof *b);
    if (!b || dg_buf_reserve(&sql, &cap, strlen(table) + 64)) {
        dg_pg_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
        goto out;
    }
    len = (size_t)sprintf(sql, "COPY %s (", table);
    for (int i = 0; i < ncols; i++) {
        size_t n = strlen(cols[i]);
        if (dg_buf_reserve(&sql, &cap, len + n + 32)) {
            dg_pg_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
            goto out;
        }
        if (i)
            sql[len++] = ',';
        memcpy(sql + len, cols[i], n);
        len += n;
    }
    strcpy(sql + len, ") FROM STDIN");
    if (dg_pg_flush_begin(c, err))
        goto out;
    res = PQexec(c->pg, sql);
    if (!res || PQresultStatus(res) != PGRES_COPY_IN) {
        char what[112];
        snprintf(what, sizeof what, "COPY %.60s", table);
        dg_pg_res_err(c, res, what, err);
        goto out;
    }
    b->c = c;
    b->ncols = ncols;
    snprintf(b->table, sizeof b->table, "%s", table);
    if (dg_buf_reserve(&b->buf, &b->cap, 2 * BULK_FLUSH_BYTES)) {
        PQputCopyEnd(c->pg, "out of memory");
        PQclear(PQgetResult(c->pg));
        dg_pg_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
        goto out;
    }
    c->bulk = b;
    *out = b;
    b = NULL;
    rc = 0;
out:
    PQclear(res);
    if (b)
        dg_pg_bulk_free(b);
    free(sql);
    return rc;
}

static int bulk_flush(struct dg_bulk *b, struct dg_err *err)
{
    if (b->len && PQputCopyData(b->c->pg, b->buf, (int)b->len) != 1) {
        b->failed = 1;
        return dg_pg_res_err(b->c, NULL, "COPY data", err);
    }
    b->len = 0;
    return 0;
}

/* 1 when none of the 8 bytes in w needs a COPY escape: none below 14 (tab, LF, CR and the
 * other controls, which the byte loop then sorts out) and none a backslash. */
static inline int word_clean(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t x = w ^ (ones * (unsigned char)'\\');
    return !((((w - ones * 14) & ~w) | ((x - ones) & ~x)) & highs);
}

/* Appends text with COPY's text-format escapes, eight clean bytes at a time. */
static char *put_text(char *o, const char *p, size_t n)
{
    const char *end = p + n;
    while (p < end) {
        uint64_t w;
        while (end - p >= 8) {
            memcpy(&w, p, 8);
            if (!word_clean(w))
                break;
            memcpy(o, &w, 8);
            o += 8;
            p += 8;
        }
        const char *stop = end - p >= 8 ? p + 8 : end;
        while (p < stop) {
            char ch = *p++;
            if (ch == '\\' || ch == '\t' || ch == '\n' || ch == '\r') {
                *o++ = '\\';
                *o++ = ch == '\\' ? '\\' : ch == '\t' ? 't' : ch == '\n' ? 'n' : 'r';
            } else {
                *o++ = ch;
            }
        }
    }
    return o;
}

int dg_pg_bulk_row(struct dg_bulk *b, const struct dg_value *vals, struct dg_err *err)
{
    if (b->failed)
        return dg_pg_err(b->c, err, DG_ERR_FATAL, NULL, "bulk load into %s already failed", b->table);
    for (int i = 0; i < b->ncols; i++) {
        const struct dg_value *v = &vals[i];
        size_t need = b->len + 2 + (v->type == DG_T_TEXT ? 2 * v->s.n : 64);
        if (need > b->cap && dg_buf_reserve(&b->buf, &b->cap, need)) {
            b->failed = 1;
            return dg_pg_err(b->c, err, DG_ERR_FATAL, NULL, "out of memory");
        }
        char *o = b->buf + b->len;
        switch (v->type) {
        case DG_T_NULL:
            *o++ = '\\';
            *o++ = 'N';
            break;
        case DG_T_INT:
            o += dg_i64_text(o, v->i);
            break;
        case DG_T_DOUBLE:
            o += dg_pg_fmt_double(o, v->d);
            break;
        case DG_T_TEXT:
            o = put_text(o, v->s.p, v->s.n);
            break;
        case DG_T_DEC: {
            size_t n = dg_dec_text(o, v->dec.v, v->dec.scale);
            if (!n) {
                b->failed = 1;
                return dg_pg_err(b->c, err, DG_ERR_USER, NULL, "bulk load into %s: decimal scale %d out of range",
                               b->table, v->dec.scale);
            }
            o += n;
            break;
        }
        default:
            b->failed = 1;
            return dg_pg_err(b->c, err, DG_ERR_USER, NULL, "bulk load into %s: unknown type %d", b->table,
                           (int)v->type);
        }
        *o++ = i + 1 < b->ncols ? '\t' : '\n';
        b->len = (size_t)(o - b->buf);
    }
    if (b->len >= BULK_FLUSH_BYTES)
        return bulk_flush(b, err);
    return 0;
}

int dg_pg_bulk_end(struct dg_bulk *b, struct dg_err *err)
{
    struct dg_conn *c = b->c;
    int rc = 0, failed = b->failed;
    if (!failed && bulk_flush(b, err))
        failed = 1, rc = -1;
    if (PQputCopyEnd(c->pg, failed ? "aborted by dbgauge after an error" : NULL) != 1 && !failed)
        rc = dg_pg_res_err(c, NULL, "COPY end", err), failed = 1;
    PGresult *res;
    while ((res = PQgetResult(c->pg)) != NULL) {
        if (PQresultStatus(res) != PGRES_COMMAND_OK && !failed) {
            char what[112];
            snprintf(what, sizeof what, "COPY %s", b->table);
            rc = dg_pg_res_err(c, res, what, err);
            failed = 1;
        }
        PQclear(res);
        if (PQstatus(c->pg) == CONNECTION_BAD)
            break;
    }
    if (failed && rc == 0)
        rc = dg_pg_err(c, err, DG_ERR_FATAL, NULL, "bulk load into %s aborted after an earlier error",
                     b->table);
    dg_pg_bulk_free(b);
    return rc;
}

