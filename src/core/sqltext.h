/* sqltext.h — small SQL texts the drivers build for themselves (the INSERT of a bulk load
 * through a prepared statement). Writes into the caller's buffer; no allocation; knows no
 * engine (the text is standard SQL with ? placeholders). */
#ifndef DG_SQLTEXT_H
#define DG_SQLTEXT_H

#include <stddef.h>

/* "INSERT INTO table (c1, c2) VALUES (?, ?)" into out. Returns its length, or -1 when it does
 * not fit in cap bytes (out is then not a statement). */
int dg_insert_sql(char *out, size_t cap, const char *table, const char *const *cols, int ncols);

#endif
