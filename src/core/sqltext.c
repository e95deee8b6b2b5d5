/* sqltext.c — SQL texts the drivers build for themselves (core/sqltext.h). Writes into the
 * caller's buffer; no allocation; no engine knowledge. */
#include "core/sqltext.h"

#include <stdio.h>

int dg_insert_sql(char *out, size_t cap, const char *table, const char *const *cols, int ncols)
{
    size_t pos = (size_t)snprintf(out, cap, "INSERT INTO %s (", table);
    for (int i = 0; i < ncols && pos < cap; i++)
        pos += (size_t)snprintf(out + pos, cap - pos, "%s%s", i ? ", " : "", cols[i]);
    if (pos < cap)
        pos += (size_t)snprintf(out + pos, cap - pos, ") VALUES (");
    for (int i = 0; i < ncols && pos < cap; i++)
        pos += (size_t)snprintf(out + pos, cap - pos, "%s?", i ? ", " : "");
    if (pos < cap)
        pos += (size_t)snprintf(out + pos, cap - pos, ")");
    return pos < cap ? (int)pos : -1;
}
