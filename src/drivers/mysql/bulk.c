/* bulk.c — MariaDB/MySQL driver: bulk load by LOAD DATA LOCAL INFILE fed from memory (the
 * default) or by multi-row INSERTs (?load=insert), rows escaped into one buffer and sent a
 * megabyte at a time. Must not read any file: the infile handler serves only our buffer. */
#include "drivers/mysql/internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the LOCAL INFILE handler: the server's "file" is the open bulk load's buffer -------- */

static int infile_init(void **ptr, const char *name, void *userdata)
{
    (void)name;
    struct dg_conn *c = userdata;
    *ptr = c->bulk;
    return c->bulk ? 0 : 1; /* a LOAD DATA LOCAL we did not start reads nothing */
}

static int infile_read(void *ptr, char *buf, unsigned int n)
{
    struct dg_bulk *b = ptr;
    size_t left = b->len - b->sent;
    size_t k = left < n ? left : n;
    memcpy(buf, b->buf + b->sent, k);
    b->sent += k;
    return (int)k;
}

static void infile_end(void *ptr) { (void)ptr; }

static int infile_error(void *ptr, char *msg, unsigned int n)
{
    snprintf(msg, n, "%s", ptr ? "bulk load failed" : "dbgauge serves LOCAL INFILE only to its loader");
    return 2000;
}

void dg_my_infile_install(struct dg_conn *c)
{
    mysql_set_local_infile_handler(c->my, infile_init, infile_read, infile_end, infile_error, c);
}

/* ---- rows into text ---------------------------------------------------------------------- */

void dg_my_bulk_free(struct dg_bulk *b)
{
    if (b->c && b->c->bulk == b)
        b->c->bulk = NULL;
    free(b->buf);
    free(b);
}

int dg_my_bulk_begin(struct dg_conn *c, const char *table, const char *const *cols, int ncols,
                     struct dg_bulk **out, struct dg_err *err)
{
    *out = NULL;
    if (c->bulk)
        return dg_my_err(c, err, DG_ERR_USER, 0, "a bulk load is already open on this connection");
    if (ncols <= 0)
        return dg_my_err(c, err, DG_ERR_USER, 0, "bulk load into %s: no columns", table);
    struct dg_bulk *b = calloc(1, sizeof *b);
    if (!b || dg_buf_reserve(&b->buf, &b->cap, 2 * MY_BULK_FLUSH_BYTES)) {
        free(b);
        return dg_my_err(c, err, DG_ERR_FATAL, 0, "out of memory");
    }
    b->c = c;
    b->ncols = ncols;
    b->method = c->load;
    snprintf(b->table, sizeof b->table, "%s", table);
    size_t o = b->method == MY_LOAD_INFILE
                   ? (size_t)snprintf(b->head, sizeof b->head,
                                      "LOAD DATA LOCAL INFILE 'dbgauge-bulk' INTO TABLE %s "
                                      "CHARACTER SET utf8mb4 (", table)
                   : (size_t)snprintf(b->head, sizeof b->head, "INSERT INTO %s (", table);
    for (int i = 0; i < ncols && o < sizeof b->head; i++)
        o += (size_t)snprintf(b->head + o, sizeof b->head - o, "%s%s", i ? "," : "", cols[i]);
    if (o < sizeof b->head)
        o += (size_t)snprintf(b->head + o, sizeof b->head - o, "%s",
                              b->method == MY_LOAD_INFILE ? ")" : ") VALUES ");
    if (o >= sizeof b->head) {
        dg_my_bulk_free(b);
        return dg_my_err(c, err, DG_ERR_USER, 0, "bulk load into %s: column list too long", table);
    }
    c->bulk = b;
    *out = b;
    return 0;
}

/* Tab-separated text with LOAD DATA's default escapes (\N is NULL). */
static size_t put_infile_text(char *o, const char *p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = p[i];
        switch (ch) {
        case '\\': o[k++] = '\\', o[k++] = '\\'; break;
        case '\t': o[k++] = '\\', o[k++] = 't'; break;
        case '\n': o[k++] = '\\', o[k++] = 'n'; break;
        case '\0': o[k++] = '\\', o[k++] = '0'; break;
        default: o[k++] = ch; break;
        }
    }
    return k;
}

/* One value as text: at most 2n+3 bytes for text, 48 for numbers. */
static int put_value(struct dg_bulk *b, const struct dg_value *v, struct dg_err *err)
{
    int infile = b->method == MY_LOAD_INFILE;
    size_t need = v->type == DG_T_TEXT ? 2 * v->s.n + 4 : 52;
    if (dg_buf_reserve(&b->buf, &b->cap, b->len + need + 4))
        return dg_my_err(b->c, err, DG_ERR_FATAL, 0, "out of memory");
    char *o = b->buf + b->len;
    size_t k = 0;
    switch (v->type) {
    case DG_T_INT: k = (size_t)sprintf(o, "%" PRId64, v->i); break;
    case DG_T_DOUBLE: k = (size_t)sprintf(o, "%.17g", v->d); break;
    case DG_T_DEC:
        k = dg_dec_text(o, v->dec.v, v->dec.scale);
        if (k == 0)
            return dg_my_err(b->c, err, DG_ERR_USER, 0, "decimal scale %d out of range",
                             v->dec.scale);
        break;
    case DG_T_TEXT:
        if (infile) {
            k = put_infile_text(o, v->s.p, v->s.n);
        } else {
            o[k++] = '\'';
            k += mysql_real_escape_string(b->c->my, o + 1, v->s.p, (unsigned long)v->s.n);
            o[k++] = '\'';
        }
        break;
    default: k = infile ? (size_t)sprintf(o, "\\N") : (size_t)sprintf(o, "NULL"); break;
    }
    b->len += k;
    return 0;
}

/* Sends the buffered rows: one LOAD DATA whose file is the buffer, or one INSERT. */
static int flush(struct dg_bulk *b, struct dg_err *err)
{
    if (b->pending == 0)
        return 0;
    struct dg_conn *c = b->c;
    char what[96];
    snprintf(what, sizeof what, "bulk load into %s", b->table);
    int rc;
    if (b->method == MY_LOAD_INFILE) {
        b->sent = 0;
        rc = mysql_real_query(c->my, b->head, (unsigned long)strlen(b->head));
    } else {
        rc = mysql_real_query(c->my, b->buf, (unsigned long)b->len);
    }
    if (rc)
        return dg_my_conn_err(c, what, err);
    my_ulonglong got = mysql_affected_rows(c->my);
    unsigned warnings = mysql_warning_count(c->my);
    /* LOAD DATA LOCAL turns errors (a duplicate key, a bad value) into skipped rows and
     * warnings, since the server cannot stop the client sending: they fail the load here. */
    if (got != (my_ulonglong)b->pending || warnings)
        return dg_my_err(c, err, DG_ERR_FATAL, 0,
                         "%s: the server kept %llu of %lld rows with %u warnings (%s)", what,
                         (unsigned long long)got, (long long)b->pending, warnings,
                         mysql_info(c->my) ? mysql_info(c->my) : "a duplicate key or bad value");
    b->len = 0;
    b->pending = 0;
    if (b->method == MY_LOAD_INSERT) {
        size_t n = strlen(b->head);
        memcpy(b->buf, b->head, n);
        b->len = n;
    }
    return 0;
}

int dg_my_bulk_row(struct dg_bulk *b, const struct dg_value *vals, struct dg_err *err)
{
    int infile = b->method == MY_LOAD_INFILE;
    if (!infile && b->len == 0) {
        size_t n = strlen(b->head);
        memcpy(b->buf, b->head, n);
        b->len = n;
    }
    if (!infile)
        b->buf[b->len++] = b->pending ? ',' : '(';
    if (!infile && b->pending)
        b->buf[b->len++] = '(';
    for (int i = 0; i < b->ncols; i++) {
        if (i)
            b->buf[b->len++] = infile ? '\t' : ',';
        if (put_value(b, &vals[i], err))
            return -1;
    }
    b->buf[b->len++] = infile ? '\n' : ')';
    b->pending++;
    return b->len >= MY_BULK_FLUSH_BYTES ? flush(b, err) : 0;
}

int dg_my_bulk_end(struct dg_bulk *b, struct dg_err *err)
{
    int rc = flush(b, err);
    dg_my_bulk_free(b);
    return rc;
}
