/* sqlite_peer.c — the physical limit for bench/sqlite.sh: inserts ROWS rows of about BYTES
 * bytes in total into a fresh SQLite file with one prepared statement in one transaction, or
 * writes the same rows as CSV for the sqlite3 CLI. A benchmark peer; not part of dbgauge.
 *
 * usage: sqlite_peer insert FILE ROWS BYTES  -> prints "rows_per_s mb_per_s seconds"
 *        sqlite_peer csv FILE ROWS BYTES     -> writes FILE */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Row i: an id, two numbers and text of tlen bytes cut from a fixed pool at a varying offset
 * (so pages do not compress to nothing in anyone's cache, yet no RNG cost is measured). */
static const char *text_for(const char *pool, size_t pool_len, long long i, size_t tlen)
{
    return pool + (size_t)(i * 7919) % (pool_len - tlen);
}

static int die(sqlite3 *db, const char *what)
{
    fprintf(stderr, "sqlite_peer: %s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: sqlite_peer insert|csv FILE ROWS BYTES\n");
        return 2;
    }
    long long rows = atoll(argv[3]), bytes = atoll(argv[4]);
    if (rows <= 0 || bytes <= rows * 24) {
        fprintf(stderr, "sqlite_peer: need ROWS > 0 and BYTES > 24 * ROWS\n");
        return 2;
    }
    size_t tlen = (size_t)(bytes / rows - 24); /* 3 numbers of 8 bytes + the text */
    size_t pool_len = tlen + 65536;
    char *pool = malloc(pool_len);
    if (!pool)
        return 1;
    static const char alnum[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    unsigned x = 12345;
    for (size_t i = 0; i < pool_len; i++) {
        x = x * 1103515245u + 12345u;
        pool[i] = alnum[(x >> 16) % 62];
    }

    if (strcmp(argv[1], "csv") == 0) {
        FILE *f = fopen(argv[2], "w");
        if (!f)
            return perror(argv[2]), 1;
        for (long long i = 0; i < rows; i++)
            fprintf(f, "%lld,%lld,%.2f,%.*s\n", i + 1, i % 100000, (double)(i % 10000) / 100.0, (int)tlen,
                    text_for(pool, pool_len, i, tlen));
        fclose(f);
        free(pool);
        return 0;
    }
    if (strcmp(argv[1], "insert") != 0)
        return 2;

    remove(argv[2]);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open(argv[2], &db) != SQLITE_OK)
        return die(db, "open");
    /* the same session settings dbgauge's loader uses */
    if (sqlite3_exec(db,
                     "PRAGMA journal_mode=wal; PRAGMA synchronous=OFF; PRAGMA cache_size=-262144;"
                     "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b REAL, s TEXT);",
                     NULL, NULL, NULL) != SQLITE_OK)
        return die(db, "setup");
    double t0 = now_s();
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
        return die(db, "prepare");
    for (long long i = 0; i < rows; i++) {
        sqlite3_bind_int64(st, 1, i + 1);
        sqlite3_bind_int64(st, 2, i % 100000);
        sqlite3_bind_double(st, 3, (double)(i % 10000) / 100.0);
        sqlite3_bind_text(st, 4, text_for(pool, pool_len, i, tlen), (int)tlen, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            return die(db, "insert");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return die(db, "commit");
    double dt = now_s() - t0;
    sqlite3_close(db);
    free(pool);
    printf("%.0f %.2f %.3f\n", (double)rows / dt, (double)bytes / dt / 1e6, dt);
    return 0;
}
