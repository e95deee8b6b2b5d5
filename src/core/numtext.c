/* numtext.c — integer and exact decimal text (core/numtext.h), two digits at a time. Pure
 * functions: no allocation, no locale, no database knowledge. */
#include "core/numtext.h"

#include <string.h>

static const char digits2[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                              "34353637383940414243444546474849505152535455565758596061626364656667"
                              "6869707172737475767778798081828384858687888990919293949596979899";

size_t dg_u64_text(char *out, uint64_t v)
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

size_t dg_i64_text(char *out, int64_t v)
{
    if (v < 0) {
        out[0] = '-';
        return 1 + dg_u64_text(out + 1, 0 - (uint64_t)v);
    }
    return dg_u64_text(out, (uint64_t)v);
}

size_t dg_dec_text(char *out, int64_t v, int scale)
{
    out[0] = '\0';
    if (scale < -DG_DEC_MAX_SCALE || scale > DG_DEC_MAX_SCALE)
        return 0;
    size_t o;
    if (scale <= 0) {
        o = dg_i64_text(out, v);
        if (v != 0)
            for (int i = 0; i < -scale; i++)
                out[o++] = '0';
        out[o] = '\0';
        return o;
    }
    char d[24];
    size_t nd = dg_u64_text(d, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
    size_t sc = (size_t)scale;
    o = 0;
    if (v < 0)
        out[o++] = '-';
    if (nd <= sc) { /* 0.00ddd */
        out[o++] = '0';
        out[o++] = '.';
        for (size_t i = nd; i < sc; i++)
            out[o++] = '0';
        memcpy(out + o, d, nd);
        o += nd;
    } else {
        memcpy(out + o, d, nd - sc);
        o += nd - sc;
        out[o++] = '.';
        memcpy(out + o, d + nd - sc, sc);
        o += sc;
    }
    out[o] = '\0';
    return o;
}
