/* sqltext.c — SQL texts the drivers build for themselves (core/sqltext.h). Writes into the
 * caller's buffer; no allocation; no engine knowledge. */
#include "core/sqltext.h"

#include <limits.h>
#include <string.h>

/* Appends s at *pos when it fits in cap with its terminator; *pos counts it either way, so
 * once a piece does not fit nothing after it is written. */
static void put(char *out, size_t cap, size_t *pos, const char *s)
{
    size_t n = strlen(s);
    if (*pos + n < cap)
        memcpy(out + *pos, s, n + 1);
    *pos += n;
}

/* The text of rows rows into out when it fits in cap (out may be NULL when cap is 0);
 * returns its whole length either way. */
static size_t insert_text(char *out, size_t cap, const char *table, const char *const *cols, int ncols, int rows)
{
    size_t pos = 0;
    put(out, cap, &pos, "INSERT INTO ");
    put(out, cap, &pos, table);
    put(out, cap, &pos, " (");
    for (int i = 0; i < ncols; i++) {
        put(out, cap, &pos, i ? ", " : "");
        put(out, cap, &pos, cols[i]);
    }
    put(out, cap, &pos, ") VALUES ");
    for (int r = 0; r < rows; r++) {
        put(out, cap, &pos, r ? ", (?" : "(?");
        for (int i = 1; i < ncols; i++)
            put(out, cap, &pos, ", ?");
        put(out, cap, &pos, ")");
    }
    return pos;
}

int dg_insert_rows_sql(char *out, size_t cap, const char *table, const char *const *cols, int ncols, int rows)
{
    if (rows < 1 || ncols < 1)
        return -1;
    size_t len = insert_text(out, cap, table, cols, ncols, rows);
    return len < cap && len <= (size_t)INT_MAX ? (int)len : -1;
}

size_t dg_insert_rows_len(const char *table, const char *const *cols, int ncols, int rows)
{
    return insert_text(NULL, 0, table, cols, ncols, rows);
}

int dg_insert_sql(char *out, size_t cap, const char *table, const char *const *cols, int ncols)
{
    return dg_insert_rows_sql(out, cap, table, cols, ncols, 1);
}
