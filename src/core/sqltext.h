/* sqltext.h — small SQL texts the drivers build for themselves (the INSERT of a bulk load
 * through a prepared statement, one row or many). Writes into the caller's buffer; no
 * allocation; knows no engine (the text is standard SQL with ? placeholders). */
#ifndef DG_SQLTEXT_H
#define DG_SQLTEXT_H

#include <stddef.h>

/* "INSERT INTO table (c1, c2) VALUES (?, ?)" into out. Returns its length, or -1 when it does
 * not fit in cap bytes (out is then not a statement). */
int dg_insert_sql(char *out, size_t cap, const char *table, const char *const *cols, int ncols);

/* The same with rows groups of markers: "INSERT INTO table (c1, c2) VALUES (?, ?), (?, ?)" for
 * 2 rows. Returns its length, or -1 when it does not fit in cap bytes or rows or ncols is below
 * 1. The text for n rows is the first dg_insert_rows_len(.., n) bytes of the text for more. */
int dg_insert_rows_sql(char *out, size_t cap, const char *table, const char *const *cols, int ncols, int rows);

/* The length of that text (the terminator not counted): a buffer of this + 1 bytes holds it. */
size_t dg_insert_rows_len(const char *table, const char *const *cols, int ncols, int rows);

#endif
