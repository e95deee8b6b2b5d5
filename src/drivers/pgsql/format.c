/* format.c — PostgreSQL driver: numbers written as the text libpq sends (parameters, COPY
 * rows) and read back from result text. Pure functions: no connection, no allocation but
 * dg_pg_reserve's growth of a caller's buffer. */
#include "drivers/pgsql/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- number formatting ----------------------------------------------------------------- */

static const char digits2[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                              "34353637383940414243444546474849505152535455565758596061626364656667"
                              "6869707172737475767778798081828384858687888990919293949596979899";

size_t dg_pg_fmt_u64(char *out, uint64_t v)
{
    char tmp[24];
    char *p = tmp + sizeof tmp;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        p -= 2;
        memcpy(p, digits2 + 2 * r, 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, digits2 + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    size_t n = (size_t)(tmp + sizeof tmp - p);
    memcpy(out, p, n);
    return n;
}

size_t dg_pg_fmt_i64(char *out, int64_t v)
{
    if (v < 0) {
        out[0] = '-';
        return 1 + dg_pg_fmt_u64(out + 1, 0 - (uint64_t)v);
    }
    return dg_pg_fmt_u64(out, (uint64_t)v);
}

/* v / 10^scale written exactly; out needs 24 + |scale| bytes. Returns the length, or 0 when
 * scale is out of range. */
size_t dg_pg_fmt_dec(char *out, int64_t v, int scale)
{
    if (scale < -MAX_DEC_SCALE || scale > MAX_DEC_SCALE)
        return 0;
    if (scale <= 0) {
        size_t n = dg_pg_fmt_i64(out, v);
        if (v != 0)
            for (int i = 0; i < -scale; i++)
                out[n++] = '0';
        return n;
    }
    char d[24];
    size_t nd = dg_pg_fmt_u64(d, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
    size_t o = 0;
    if (v < 0)
        out[o++] = '-';
    size_t sc = (size_t)scale;
    if (nd <= sc) {
        out[o++] = '0';
        out[o++] = '.';
        for (size_t i = nd; i < sc; i++)
            out[o++] = '0';
        memcpy(out + o, d, nd);
        return o + nd;
    }
    memcpy(out + o, d, nd - sc);
    o += nd - sc;
    out[o++] = '.';
    memcpy(out + o, d + nd - sc, sc);
    return o + sc;
}

/* The shortest of %.15g, %.16g, %.17g that reads back as d; out needs 32 bytes. */
size_t dg_pg_fmt_double(char *out, double d)
{
    if (isnan(d))
        return (size_t)snprintf(out, 32, "NaN");
    if (isinf(d))
        return (size_t)snprintf(out, 32, "%s", d < 0 ? "-Infinity" : "Infinity");
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(out, 32, "%.*g", prec, d);
        if (prec == 17 || strtod(out, NULL) == d)
            break;
    }
    return (size_t)n;
}

int64_t dg_pg_parse_i64(const char *s)
{
    if (!*s)
        return 0; /* PQcmdTuples of a statement without a count */
    const char *p = s;
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    const char *d = p;
    uint64_t v = 0;
    while ((unsigned)(*p - '0') < 10u)
        v = v * 10 + (uint64_t)(*p++ - '0');
    if (*p == '\0' && p != d && p - d <= 18)
        return neg ? -(int64_t)v : (int64_t)v;
    if (p == d && (*p == 't' || *p == 'f') && p[1] == '\0')
        return *p == 't'; /* boolean */
    if (*p == '\0' && p != d)
        return (int64_t)strtoll(s, NULL, 10); /* 19+ digits: saturates */
    double x = strtod(s, NULL);                /* numeric "12.50", "1e3" */
    if (!(x > -9.2e18))
        return x != x ? 0 : INT64_MIN;
    if (x > 9.2e18)
        return INT64_MAX;
    return (int64_t)x;
}

int dg_pg_reserve(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    char *p = realloc(*buf, n);
    if (!p)
        return -1;
    *buf = p;
    *cap = n;
    return 0;
}

