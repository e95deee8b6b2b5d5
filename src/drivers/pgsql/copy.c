/* copy.c — PostgreSQL driver: bulk load with COPY FROM STDIN, in binary format where every
 * column's type has a wire form here (else, or with ?copy=text, in text format, escaped), rows
 * buffered and flushed in large chunks. Must not be used while a pipeline is open. */
#include "drivers/pgsql/internal.h"

#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bulk load (COPY FROM STDIN) ------------------------------------------------------- */

/* Binary or text: measured on `tpcc load --warehouses 4 --jobs 2` (2 cores, PostgreSQL 15,
 * the server's CPU the limit), the server ingests binary rows faster: it parses no numerics,
 * timestamps or integers. Server side alone (COPY FROM a file into a temp table, 3 runs):
 * order_line 2.13 -> 1.41 s, stock 1.48 -> 1.30 s, customer 0.74 -> 0.50 s. The whole load's
 * data phase, W=4 --jobs 2, three series of 3-4 alternated runs with another build beside
 * (noisy; medians): text 5.29, 6.12, 8.87 s against binary 5.06, 5.16, 6.31 s. Binary is the
 * default; ?copy=text in the URL keeps the text format (and a column of another type does). */

/* A column's wire form in binary COPY (from its type's OID). */
enum kind { K_I2 = 1, K_I4, K_I8, K_F4, K_F8, K_NUM, K_TEXT, K_TS, K_DATE };

static enum kind kind_of(Oid t)
{
    switch (t) {
    case 21: return K_I2;   /* int2 */
    case 23: return K_I4;   /* int4 */
    case 20: return K_I8;   /* int8 */
    case 700: return K_F4;  /* float4 */
    case 701: return K_F8;  /* float8 */
    case 1700: return K_NUM; /* numeric */
    case 25: case 1043: case 1042: return K_TEXT; /* text, varchar, bpchar (padded by the server) */
    case 1114: return K_TS; /* timestamp without time zone */
    case 1082: return K_DATE;
    default: return 0;
    }
}

void dg_pg_bulk_free(struct dg_bulk *b)
{
    if (b->c && b->c->bulk == b)
        b->c->bulk = NULL;
    free(b->kinds);
    free(b->buf);
    free(b);
}

/* The columns' kinds for binary COPY (b->kinds, allocated), from a query of no rows; b->kinds
 * stays NULL when a column has a type without a binary form here. sql holds "(cols)". */
static int probe_kinds(struct dg_conn *c, struct dg_bulk *b, const char *table, const char *cols,
                       struct dg_err *err)
{
    size_t n = strlen(table) + strlen(cols) + 32;
    char *q = malloc(n);
    if (!q)
        return dg_pg_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
    /* cols is "(a,b,c)": the select list without its parentheses */
    snprintf(q, n, "SELECT %.*s FROM %s LIMIT 0", (int)(strlen(cols) - 2), cols + 1, table);
    PGresult *res = dg_pg_exec(c->pg, q);
    free(q);
    if (!res || PQresultStatus(res) != PGRES_TUPLES_OK) {
        char what[112];
        snprintf(what, sizeof what, "COPY %.60s (column types)", table);
        int rc = dg_pg_res_err(c, res, what, err);
        PQclear(res);
        return rc;
    }
    int rc = 0;
    unsigned char *k = PQnfields(res) == b->ncols ? malloc((size_t)b->ncols) : NULL;
    for (int i = 0; k && i < b->ncols; i++)
        if (!(k[i] = (unsigned char)kind_of(PQftype(res, i)))) {
            free(k);
            k = NULL;
        }
    b->kinds = k;
    PQclear(res);
    return rc;
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
    len = (size_t)sprintf(sql, "COPY %s ", table);
    size_t cols_at = len;
    sql[len++] = '(';
    for (int i = 0; i < ncols; i++) {
        size_t n = strlen(cols[i]);
        if (dg_buf_reserve(&sql, &cap, len + n + 48)) {
            dg_pg_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
            goto out;
        }
        if (i)
            sql[len++] = ',';
        memcpy(sql + len, cols[i], n);
        len += n;
    }
    sql[len++] = ')';
    sql[len] = '\0';
    b->ncols = ncols;
    if (dg_pg_flush_begin(c, err))
        goto out;
    if (!c->copy_text && probe_kinds(c, b, table, sql + cols_at, err))
        goto out;
    strcpy(sql + len, b->kinds ? " FROM STDIN (FORMAT binary)" : " FROM STDIN");
    res = PQexec(c->pg, sql);
    if (!res || PQresultStatus(res) != PGRES_COPY_IN) {
        char what[112];
        snprintf(what, sizeof what, "COPY %.60s", table);
        dg_pg_res_err(c, res, what, err);
        goto out;
    }
    b->c = c;
    snprintf(b->table, sizeof b->table, "%s", table);
    if (dg_buf_reserve(&b->buf, &b->cap, 2 * BULK_FLUSH_BYTES)) {
        PQputCopyEnd(c->pg, "out of memory");
        PQclear(PQgetResult(c->pg));
        dg_pg_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
        goto out;
    }
    if (b->kinds) { /* the signature, no flags, no header extension */
        static const char head[19] = "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0";
        memcpy(b->buf, head, sizeof head);
        b->len = sizeof head;
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

/* ---- binary format: each field a 4-byte big-endian length (-1: NULL) and the type's bytes */

static inline char *put_u16(char *o, uint16_t v)
{
    o[0] = (char)(v >> 8), o[1] = (char)v;
    return o + 2;
}
static inline char *put_u32(char *o, uint32_t v)
{
    o[0] = (char)(v >> 24), o[1] = (char)(v >> 16), o[2] = (char)(v >> 8), o[3] = (char)v;
    return o + 4;
}
static inline char *put_u64(char *o, uint64_t v) { return put_u32(put_u32(o, (uint32_t)(v >> 32)), (uint32_t)v); }

/* Why a value has no binary form for its column: the message's tail. */
struct why {
    const char *msg;
};

/* "[+-]digits" exactly (n bytes) into *v; 0, or -1. */
static int parse_i64(const char *p, size_t n, int64_t *v)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (p[i] == '-' || p[i] == '+'))
        neg = p[i++] == '-';
    if (i == n)
        return -1;
    uint64_t u = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9' || u > (lim - (uint64_t)(p[i] - '0')) / 10)
            return -1;
        u = u * 10 + (uint64_t)(p[i] - '0');
    }
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 0;
}

static const int64_t pow10_i64[19] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                      1000000000, 10000000000, 100000000000, 1000000000000,
                                      10000000000000, 100000000000000, 1000000000000000,
                                      10000000000000000, 100000000000000000, 1000000000000000000};

/* Any value as an integer in lo..hi: 0, or -1 with why. */
static int as_int(const struct dg_value *v, int64_t lo, int64_t hi, int64_t *out, struct why *why)
{
    int64_t x;
    switch (v->type) {
    case DG_T_INT:
        x = v->i;
        break;
    case DG_T_DEC:
        if (v->dec.scale < 0) {
            if (v->dec.scale < -18 || (v->dec.v && llabs(v->dec.v) > INT64_MAX / pow10_i64[-v->dec.scale]))
                return why->msg = "out of range", -1;
            x = v->dec.v * pow10_i64[-v->dec.scale];
        } else if (v->dec.scale > 18 || v->dec.v % pow10_i64[v->dec.scale]) {
            if (v->dec.v == 0) {
                x = 0;
                break;
            }
            return why->msg = "a fraction for an integer column", -1;
        } else {
            x = v->dec.v / pow10_i64[v->dec.scale];
        }
        break;
    case DG_T_TEXT:
        if (parse_i64(v->s.p, v->s.n, &x))
            return why->msg = "text that is not an integer", -1;
        break;
    case DG_T_DOUBLE:
        if (!(v->d >= -9.2e18 && v->d <= 9.2e18) || v->d != floor(v->d))
            return why->msg = "a double that is not an integer", -1;
        x = (int64_t)v->d;
        break;
    default:
        return why->msg = "unknown value type", -1;
    }
    if (x < lo || x > hi)
        return why->msg = "out of range", -1;
    *out = x;
    return 0;
}

static int as_double(const struct dg_value *v, double *out, struct why *why)
{
    switch (v->type) {
    case DG_T_INT:
        *out = (double)v->i;
        return 0;
    case DG_T_DOUBLE:
        *out = v->d;
        return 0;
    case DG_T_DEC: /* both exact below 2^53 and 10^22: the division rounds once, as strtod would */
        if (v->dec.scale < 0 || v->dec.scale > 18)
            break;
        *out = (double)v->dec.v / (double)pow10_i64[v->dec.scale];
        return 0;
    case DG_T_TEXT: {
        char tmp[64], *end;
        if (v->s.n == 0 || v->s.n >= sizeof tmp)
            break;
        memcpy(tmp, v->s.p, v->s.n);
        tmp[v->s.n] = '\0';
        *out = strtod(tmp, &end);
        if (*end)
            break;
        return 0;
    }
    default:
        break;
    }
    why->msg = "no double for it";
    return -1;
}

/* numeric's binary form from a sign and decimal digits (integer part ip[in], fraction fp[fn];
 * dscale the display scale): base-10000 digits with the point between two of them, weight the
 * power of 10000 of the first, leading and trailing zero digits left out. */
static char *put_numeric(char *o, int neg, const char *ip, size_t in, const char *fp, size_t fn, int dscale)
{
    while (in && *ip == '0')
        ip++, in--;
    size_t ig = (in + 3) / 4, fg = (fn + 3) / 4, nd = 0;
    uint16_t d[64];
    if (ig + fg > sizeof d / sizeof *d)
        return NULL;
    /* integer groups: the first takes what is left over from fours */
    size_t first = in - 4 * (ig ? ig - 1 : 0);
    for (size_t g = 0, at = 0; g < ig; g++) {
        size_t take = g == 0 ? first : 4;
        unsigned x = 0;
        for (size_t k = 0; k < take; k++)
            x = x * 10 + (unsigned)(ip[at++] - '0');
        d[nd++] = (uint16_t)x;
    }
    for (size_t g = 0, at = 0; g < fg; g++) {
        unsigned x = 0;
        for (size_t k = 0; k < 4; k++)
            x = x * 10 + (at < fn ? (unsigned)(fp[at++] - '0') : 0);
        d[nd++] = (uint16_t)x;
    }
    int weight = (int)ig - 1;
    size_t lead = 0;
    while (lead < nd && d[lead] == 0)
        lead++, weight--;
    while (nd > lead && d[nd - 1] == 0)
        nd--;
    nd -= lead;
    if (nd == 0)
        weight = 0, neg = 0;
    o = put_u32(o, (uint32_t)(8 + 2 * nd));
    o = put_u16(o, (uint16_t)nd);
    o = put_u16(o, (uint16_t)(int16_t)weight);
    o = put_u16(o, neg ? 0x4000 : 0);
    o = put_u16(o, (uint16_t)dscale);
    for (size_t k = 0; k < nd; k++)
        o = put_u16(o, d[lead + k]);
    return o;
}

/* Decimal text "[+-]digits[.digits]" (at least one digit) as numeric. */
static char *put_numeric_text(char *o, const char *p, size_t n, struct why *why)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (p[i] == '-' || p[i] == '+'))
        neg = p[i++] == '-';
    const char *ip = p + i;
    while (i < n && p[i] >= '0' && p[i] <= '9')
        i++;
    size_t in = (size_t)(p + i - ip), fn = 0;
    const char *fp = p + i;
    if (i < n && p[i] == '.') {
        fp = p + ++i;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
        fn = (size_t)(p + i - fp);
    }
    if (i != n || in + fn == 0 || fn > 1000) {
        why->msg = "text that is not a plain decimal";
        return NULL;
    }
    o = put_numeric(o, neg, ip, in, fp, fn, (int)fn);
    if (!o)
        why->msg = "a decimal too long";
    return o;
}

static char *put_numeric_value(char *o, const struct dg_value *v, struct why *why)
{
    char t[DG_DEC_TEXT_MAX];
    size_t n;
    switch (v->type) {
    case DG_T_INT:
        n = dg_i64_text(t, v->i);
        break;
    case DG_T_DEC:
        n = dg_dec_text(t, v->dec.v, v->dec.scale);
        if (!n)
            return why->msg = "decimal scale out of range", NULL;
        break;
    case DG_T_DOUBLE:
        if (!isfinite(v->d))
            return why->msg = "NaN or infinity", NULL;
        n = dg_pg_fmt_double(t, v->d);
        if (memchr(t, 'e', n)) /* an exponent: the text form takes it */
            return why->msg = "a double with an exponent", NULL;
        break;
    case DG_T_TEXT:
        return put_numeric_text(o, v->s.p, v->s.n, why);
    default:
        return why->msg = "unknown value type", NULL;
    }
    return put_numeric_text(o, t, n, why);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (March-based years: the leap day last). */
static int64_t civil_days(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

static int digits(const char *p, int n, int *out)
{
    int x = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        x = x * 10 + (p[i] - '0');
    }
    *out = x;
    return 0;
}

/* "YYYY-MM-DD[( |T)HH:MM:SS[.f{1,6}]]" as microseconds since 2000-01-01 00:00 (date_only:
 * the date alone, as days). 0, or -1 when the text has another form. */
static int parse_when(const char *p, size_t n, int date_only, int64_t *out)
{
    int y, mo, d, h = 0, mi = 0, se = 0, us = 0;
    if (n < 10 || p[4] != '-' || p[7] != '-' || digits(p, 4, &y) || digits(p + 5, 2, &mo) ||
        digits(p + 8, 2, &d) || y < 1 || mo < 1 || mo > 12 || d < 1)
        return -1;
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap))
        return -1;
    int64_t days = civil_days(y, mo, d) - 10957; /* 2000-01-01 is day 10957 */
    if (date_only) {
        if (n != 10)
            return -1;
        *out = days;
        return 0;
    }
    if (n > 10) {
        if (n < 19 || (p[10] != ' ' && p[10] != 'T') || p[13] != ':' || p[16] != ':' || digits(p + 11, 2, &h) ||
            digits(p + 14, 2, &mi) || digits(p + 17, 2, &se) || h > 23 || mi > 59 || se > 59)
            return -1;
        if (n > 19) {
            int nf = (int)n - 20;
            if (p[19] != '.' || nf < 1 || nf > 6 || digits(p + 20, nf, &us))
                return -1;
            for (int k = nf; k < 6; k++)
                us *= 10;
        }
    }
    *out = ((days * 24 + h) * 60 + mi) * 60 * INT64_C(1000000) + se * INT64_C(1000000) + us;
    return 0;
}

/* Appends one field of kind k; NULL with why when the value has no binary form for it. */
static char *put_field(char *o, enum kind k, const struct dg_value *v, struct why *why)
{
    if (v->type == DG_T_NULL)
        return put_u32(o, 0xFFFFFFFFu);
    int64_t x;
    double f;
    switch (k) {
    case K_I2:
        if (as_int(v, INT16_MIN, INT16_MAX, &x, why))
            return NULL;
        return put_u16(put_u32(o, 2), (uint16_t)x);
    case K_I4:
        if (as_int(v, INT32_MIN, INT32_MAX, &x, why))
            return NULL;
        return put_u32(put_u32(o, 4), (uint32_t)x);
    case K_I8:
        if (as_int(v, INT64_MIN, INT64_MAX, &x, why))
            return NULL;
        return put_u64(put_u32(o, 8), (uint64_t)x);
    case K_F4: {
        if (as_double(v, &f, why))
            return NULL;
        float g = (float)f;
        uint32_t u;
        memcpy(&u, &g, 4);
        return put_u32(put_u32(o, 4), u);
    }
    case K_F8: {
        if (as_double(v, &f, why))
            return NULL;
        uint64_t u;
        memcpy(&u, &f, 8);
        return put_u64(put_u32(o, 8), u);
    }
    case K_NUM:
        return put_numeric_value(o, v, why);
    case K_TEXT: {
        size_t n;
        char *at = o + 4;
        switch (v->type) {
        case DG_T_TEXT:
            memcpy(at, v->s.p, v->s.n);
            n = v->s.n;
            break;
        case DG_T_INT:
            n = dg_i64_text(at, v->i);
            break;
        case DG_T_DOUBLE:
            n = dg_pg_fmt_double(at, v->d);
            break;
        case DG_T_DEC:
            if (!(n = dg_dec_text(at, v->dec.v, v->dec.scale)))
                return why->msg = "decimal scale out of range", NULL;
            break;
        default:
            return why->msg = "unknown value type", NULL;
        }
        put_u32(o, (uint32_t)n);
        return at + n;
    }
    case K_TS:
    case K_DATE:
        if (v->type != DG_T_TEXT || parse_when(v->s.p, v->s.n, k == K_DATE, &x))
            return why->msg = k == K_TS ? "not a 'YYYY-MM-DD HH:MM:SS[.ffffff]' timestamp"
                                        : "not a 'YYYY-MM-DD' date",
                   NULL;
        return k == K_TS ? put_u64(put_u32(o, 8), (uint64_t)x) : put_u32(put_u32(o, 4), (uint32_t)x);
    }
    return why->msg = "unknown column kind", NULL;
}

static int bulk_row_binary(struct dg_bulk *b, const struct dg_value *vals, struct dg_err *err)
{
    size_t need = b->len + 2;
    for (int i = 0; i < b->ncols; i++)
        need += 4 + (vals[i].type == DG_T_TEXT ? vals[i].s.n + 8 + 2 * (vals[i].s.n / 4 + 2) : DG_DEC_TEXT_MAX + 40);
    if (need > b->cap && dg_buf_reserve(&b->buf, &b->cap, need)) {
        b->failed = 1;
        return dg_pg_err(b->c, err, DG_ERR_FATAL, NULL, "out of memory");
    }
    char *o = put_u16(b->buf + b->len, (uint16_t)b->ncols);
    for (int i = 0; i < b->ncols; i++) {
        struct why why = {0};
        char *next = put_field(o, (enum kind)b->kinds[i], &vals[i], &why);
        if (!next) {
            b->failed = 1;
            return dg_pg_err(b->c, err, DG_ERR_USER, NULL,
                             "bulk load into %s: column %d: %s (binary COPY; ?copy=text in the URL sends text)",
                             b->table, i + 1, why.msg);
        }
        o = next;
    }
    b->len = (size_t)(o - b->buf);
    if (b->len >= BULK_FLUSH_BYTES)
        return bulk_flush(b, err);
    return 0;
}

int dg_pg_bulk_row(struct dg_bulk *b, const struct dg_value *vals, struct dg_err *err)
{
    if (b->failed)
        return dg_pg_err(b->c, err, DG_ERR_FATAL, NULL, "bulk load into %s already failed", b->table);
    if (b->kinds)
        return bulk_row_binary(b, vals, err);
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
    if (!failed && b->kinds) { /* the trailer: a field count of -1 */
        if (b->len + 2 > b->cap && dg_buf_reserve(&b->buf, &b->cap, b->len + 2))
            failed = 1, rc = dg_pg_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
        else
            b->len = (size_t)(put_u16(b->buf + b->len, 0xFFFF) - b->buf);
    }
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

