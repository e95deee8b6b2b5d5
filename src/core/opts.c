/* opts.c — option value parsers; every error names the option and the bad text. */
#include "core/opts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dg_parse_duration(const char *opt, const char *s, dg_ns *out, struct dg_err *err)
{
    const char *p = s;
    dg_ns total = 0;
    int parts = 0;
    if (!s || !*s)
        return dg_err_set(err, DG_ERR_USER, 0, "%s: empty duration", opt);
    while (*p) {
        if (!isdigit((unsigned char)*p))
            goto bad;
        errno = 0;
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno || v > 1000000000ull)
            goto bad;
        dg_ns unit;
        if (*end == '\0' && parts == 0)
            unit = DG_NS_PER_S; /* bare number: seconds */
        else if (strncmp(end, "ms", 2) == 0)
            unit = DG_NS_PER_MS, end += 1;
        else if (*end == 's')
            unit = DG_NS_PER_S;
        else if (*end == 'm')
            unit = 60 * DG_NS_PER_S;
        else if (*end == 'h')
            unit = 3600 * DG_NS_PER_S;
        else
            goto bad;
        if ((dg_ns)v > (UINT64_MAX - total) / unit)
            goto bad; /* would not fit in 64 bits of nanoseconds */
        total += (dg_ns)v * unit;
        p = *end ? end + 1 : end;
        parts++;
    }
    *out = total;
    return 0;
bad:
    return dg_err_set(err, DG_ERR_USER, 0,
                      "%s: '%s' is not a duration (examples: 45s, 2m, 1h30m, 500ms)", opt, DG_TEXT(s));
}

int dg_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
                 struct dg_err *err)
{
    char *end;
    errno = 0;
    if (!s || !isdigit((unsigned char)*s))
        goto bad;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max)
        goto bad;
    *out = v;
    return 0;
bad:
    return dg_err_set(err, DG_ERR_USER, 0, "%s: '%s' is not a whole number from %llu to %llu", opt,
                      DG_TEXT(s), (unsigned long long)min, (unsigned long long)max);
}

int dg_parse_int(const char *opt, const char *s, int min, int max, int *out, struct dg_err *err)
{
    uint64_t v; /* counts only: min is never negative */
    if (dg_parse_u64(opt, s, min < 0 ? 0 : (uint64_t)min, (uint64_t)max, &v, err))
        return -1;
    *out = (int)v;
    return 0;
}

int dg_parse_double(const char *opt, const char *s, double min, double max, double *out,
                    struct dg_err *err)
{
    char *end;
    errno = 0;
    double v = s && *s ? strtod(s, &end) : 0;
    if (!s || !*s || errno || *end || !(v > min) || v > max)
        return dg_err_set(err, DG_ERR_USER, 0, "%s: '%s' is not a number above %g and at most %g",
                          opt, DG_TEXT(s), min, max);
    *out = v;
    return 0;
}

int dg_parse_size(const char *opt, const char *s, uint64_t *out, struct dg_err *err)
{
    /* Digits, an optional fraction, an optional k/m/g/t (powers of 1024) and an optional b. */
    const char *p = s;
    uint64_t whole = 0, frac_num = 0, frac_den = 1;
    if (!s || !isdigit((unsigned char)*p))
        goto bad;
    for (; isdigit((unsigned char)*p); p++) {
        if (whole > (UINT64_MAX - 9) / 10)
            goto bad;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.') {
        for (p++; isdigit((unsigned char)*p); p++)
            if (frac_den < 1000000000ull) {
                frac_num = frac_num * 10 + (uint64_t)(*p - '0');
                frac_den *= 10;
            }
    }
    unsigned shift = 0;
    switch (tolower((unsigned char)*p)) {
    case 'k': shift = 10; p++; break;
    case 'm': shift = 20; p++; break;
    case 'g': shift = 30; p++; break;
    case 't': shift = 40; p++; break;
    default: break;
    }
    if (*p == 'b' || *p == 'B')
        p++;
    if (*p || whole > (UINT64_MAX >> shift) - 1)
        goto bad;
    /* The fraction's bytes, floor(frac_num * 2^shift / frac_den), a bit at a time: the
     * product itself does not fit in 64 bits ("1.999999999t"; found by tests/fuzz/). */
    uint64_t part = 0, rem = frac_num;
    for (unsigned i = 0; i < shift; i++) {
        part *= 2;
        rem *= 2;
        if (rem >= frac_den)
            part++, rem -= frac_den;
    }
    *out = (whole << shift) + part;
    return 0;
bad:
    return dg_err_set(err, DG_ERR_USER, 0, "%s: '%s' is not a size (examples: 512M, 2G, 64k)", opt,
                      DG_TEXT(s));
}

void dg_format_duration(dg_ns ns, char *buf, int n)
{
    uint64_t ms = ns / DG_NS_PER_MS, s = ms / 1000;
    if (s == 0)
        snprintf(buf, (size_t)n, "%llums", (unsigned long long)ms);
    else if (s < 60)
        snprintf(buf, (size_t)n, "%llus", (unsigned long long)s);
    else if (s < 3600)
        snprintf(buf, (size_t)n, "%llum%02llus", (unsigned long long)(s / 60),
                 (unsigned long long)(s % 60));
    else
        snprintf(buf, (size_t)n, "%lluh%02llum", (unsigned long long)(s / 3600),
                 (unsigned long long)(s / 60 % 60));
}
