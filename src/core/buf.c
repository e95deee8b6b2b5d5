/* buf.c — growth of a caller's byte buffer by doubling (core/buf.h). No database knowledge;
 * never frees. */
#include "core/buf.h"

#include <stdlib.h>

int dg_buf_reserve(char **buf, size_t *cap, size_t need)
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
