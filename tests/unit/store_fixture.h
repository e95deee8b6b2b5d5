/* store_fixture.h — what the results database's unit tests share: a new empty results file,
 * one number from a query on a file (or on an open handle), and a new file loaded with the
 * schema-8 dump (tests/fixtures/results-schema8.sql), which the tests then migrate.
 * Header-only; tests only (DG_FIXTURES names the folder). */
#ifndef DG_TEST_STORE_FIXTURE_H
#define DG_TEST_STORE_FIXTURE_H

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "results/store.h"

#include "check.h"

/* A new results file at path (any old one removed), opened; NULL (a failed check) when it
 * will not open. The caller closes it. */
static inline struct dg_store *dg_test_new_store(struct dg_test *t, const char *path)
{
    struct dg_store *s = NULL;
    struct dg_err err = {0};
    unlink(path);
    if (dg_store_open(path, &s, &err))
        CHECK(t, 0, "a new results file opens", "%s", err.msg);
    return s;
}

/* One number from a query on the file (NAN: NULL or no row). */
static inline double dg_test_sql_num(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    double v = NAN;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* One number from a query on the results file at path, opened read-only apart from the
 * store's own handle (NAN: NULL, no row, or the file will not open). */
static inline double dg_test_file_num(const char *path, const char *sql)
{
    sqlite3 *db;
    double v = NAN;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
        v = dg_test_sql_num(db, sql);
    sqlite3_close(db);
    return v;
}

/* Loads the schema-8 dump into a new file at path, then runs more (NULL: nothing) on it.
 * 0, or -1 when the dump cannot be read or a statement fails. */
static inline int dg_test_load_schema8(const char *path, const char *more)
{
    FILE *f = fopen(DG_FIXTURES "/results-schema8.sql", "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *sql = n >= 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = sql ? fread(sql, 1, (size_t)n, f) : 0;
    fclose(f);
    if (!sql || got != (size_t)n) {
        free(sql);
        return -1;
    }
    sql[n] = '\0';
    sqlite3 *db;
    int rc = sqlite3_open(path, &db) == SQLITE_OK && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK &&
                     (!more || sqlite3_exec(db, more, NULL, NULL, NULL) == SQLITE_OK)
                 ? 0
                 : -1;
    sqlite3_close(db);
    free(sql);
    return rc;
}

#endif
