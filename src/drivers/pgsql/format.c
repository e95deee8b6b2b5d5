/* format.c — PostgreSQL driver: numbers written as the text libpq sends (parameters, COPY
 * rows; integers and decimals: core/numtext.c) and read back from result text. Pure
 * functions: no connection, no allocation. */
#include "drivers/pgsql/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- number formatting ----------------------------------------------------------------- */

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
