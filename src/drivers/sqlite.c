/* sqlite.c — the embedded SQLite driver: one sqlite3 handle per connection, WAL, prepared
 * statements, BEGIN IMMEDIATE for writers, SQLITE_BUSY classed as retryable.
 * The only file that includes sqlite3.h for benchmark targets (the results store has its own). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/driver.h"
#include "core/sqltext.h"
#include "core/urlq.h"

#define SETUP_BUSY_MS 10000

struct dg_conn {
    sqlite3 *db;
    struct dg_stmt *stmts; /* every prepared statement, for disconnect */
    int busy_timeout_ms;
    int busy_timeout_set; /* the user's busy_timeout is in force (see SETUP_BUSY_MS) */
    long cache_kib; /* page cache per connection */
    char synchronous[16];
    char journal[16];
    uint64_t cache_hits, cache_misses; /* cache_stats: this connection's, accumulated */
};

struct dg_stmt {
    struct dg_conn *conn;
    sqlite3_stmt *st;
    struct dg_stmt *next;
    int nparams;
    int pending; /* execute stepped to a first row that next_row has not handed out yet */
    int64_t changes;
};

/* A bulk load inserts BULK_ROWS rows per statement: one statement start, one cursor and one
 * reset for them all, where one row each spent as much again in setting up as in inserting
 * (measured on tpcc load W=1: see sq_bulk_begin). The rows wait in vals, their text copied
 * into text (the caller reuses its buffers); the last few go one at a time. */
#define BULK_ROWS 64
#define BULK_TEXT (BULK_ROWS * 2048)

struct dg_bulk {
    struct dg_conn *conn;
    sqlite3_stmt *many; /* BULK_ROWS rows */
    sqlite3_stmt *one;  /* one row */
    int ncols, nrows;   /* rows waiting */
    size_t text_used;
    struct dg_value *vals; /* BULK_ROWS * ncols */
    char *text;            /* BULK_TEXT */
};

static int fail(struct dg_err *err, sqlite3 *db, int rc, const char *what)
{
    int ext = db ? sqlite3_extended_errcode(db) : rc;
    int primary = rc & 0xff;
    enum dg_err_class cls = DG_ERR_FATAL;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
        cls = DG_ERR_RETRY;
    else if (primary == SQLITE_ERROR || primary == SQLITE_CANTOPEN || primary == SQLITE_NOTADB ||
             primary == SQLITE_RANGE || primary == SQLITE_AUTH || primary == SQLITE_READONLY)
        cls = DG_ERR_USER;
    dg_err_set(err, cls, ext, "%s: %s", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    if (err && cls == DG_ERR_RETRY)
        err->cause = DG_RETRY_BUSY;
    return -1;
}

/* sqlite:PATH[?key=value&...] — keys: synchronous=off|normal|full, journal=wal|delete,
 * busy_timeout=MS, cache_mib=N (page cache per connection). */
static int parse_url(const char *url, char *path, size_t pathcap, struct dg_conn *c, struct dg_err *err)
{
    const char *p = strchr(url, ':') + 1;
    if (strncmp(p, "//", 2) == 0) /* sqlite:///abs/path or sqlite://rel */
        p += 2;
    size_t n = strcspn(p, "?");
    if (n == 0)
        return dg_err_set(err, DG_ERR_USER, 0, "target '%s': the SQLite file path is empty", DG_TEXT(url));
    if (n >= pathcap)
        return dg_err_set(err, DG_ERR_USER, 0, "target: SQLite path too long");
    memcpy(path, p, n);
    path[n] = '\0';
    const char *q = p[n] == '?' ? p + n + 1 : NULL;
    struct dg_urlq_pair kv;
    while (dg_urlq_next(&q, "", &kv)) {
        if (!kv.val)
            return dg_err_set(err, DG_ERR_USER, 0, "target '%s': parameter '%.*s' has no value",
                              DG_TEXT(url), (int)kv.len, kv.text);
        char val[32];
        snprintf(val, sizeof val, "%.*s", (int)kv.vlen, kv.val);
        if (dg_urlq_key_is(&kv, "synchronous")) {
            if (strcasecmp(val, "off") && strcasecmp(val, "normal") && strcasecmp(val, "full") &&
                strcasecmp(val, "extra"))
                return dg_err_set(err, DG_ERR_USER, 0,
                                  "target: synchronous=%s is not off|normal|full|extra", val);
            snprintf(c->synchronous, sizeof c->synchronous, "%s", val);
        } else if (dg_urlq_key_is(&kv, "journal")) {
            if (strcasecmp(val, "wal") && strcasecmp(val, "delete") && strcasecmp(val, "truncate"))
                return dg_err_set(err, DG_ERR_USER, 0, "target: journal=%s is not wal|delete|truncate",
                                  val);
            snprintf(c->journal, sizeof c->journal, "%s", val);
        } else if (dg_urlq_key_is(&kv, "cache_mib")) {
            char *end;
            long mib = strtol(val, &end, 10);
            if (*end || mib < 1 || mib > 1048576)
                return dg_err_set(err, DG_ERR_USER, 0, "target: cache_mib=%s is not 1..1048576", val);
            c->cache_kib = mib * 1024;
        } else if (dg_urlq_key_is(&kv, "busy_timeout")) {
            char *end;
            long ms = strtol(val, &end, 10);
            if (*end || ms < 0 || ms > 600000)
                return dg_err_set(err, DG_ERR_USER, 0, "target: busy_timeout=%s is not 0..600000 ms",
                                  val);
            c->busy_timeout_ms = (int)ms;
        } else {
            return dg_err_set(err, DG_ERR_USER, 0,
                              "target '%s': unknown SQLite parameter '%.*s' (known: synchronous, "
                              "journal, busy_timeout, cache_mib)", DG_TEXT(url), (int)kv.klen, kv.key);
        }
    }
    return 0;
}

static int sq_check_url(const char *url, struct dg_err *err)
{
    char path[1024];
    struct dg_conn c = {0};
    return parse_url(url, path, sizeof path, &c, err);
}

static int sq_exec(struct dg_conn *c, const char *sql, struct dg_err *err)
{
    int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : fail(err, c->db, rc, "exec");
}

static int sq_connect(const char *url, const struct dg_connect_opts *opts, struct dg_conn **out,
                      struct dg_err *err)
{
    char path[1024], sql[192];
    struct dg_conn *c = calloc(1, sizeof *c);
    if (!c)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    c->busy_timeout_ms = 10000;
    /* SQLite's own default (2 MB) would send most page reads to the kernel; a benchmark's
     * database engine gets a working cache, as a server's buffer pool would. */
    c->cache_kib = 256 * 1024;
    snprintf(c->synchronous, sizeof c->synchronous, "normal");
    snprintf(c->journal, sizeof c->journal, "wal");
    if (parse_url(url, path, sizeof path, c, err))
        goto fail;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (opts->create ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path, &c->db, flags, NULL);
    if (rc != SQLITE_OK) {
        dg_err_set(err, DG_ERR_USER, rc, "cannot open SQLite database '%s': %s%s", DG_TEXT(path),
                   c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc),
                   opts->create ? "" : " (the file must exist: 'dbgauge tpcc load' or 'dbgauge stress prepare' makes it)");
        goto fail;
    }
    /* Setting up (these pragmas, the workload's prepares) waits for locks at least
     * SETUP_BUSY_MS: a target's busy_timeout, 0 included, governs transactions, from the first
     * BEGIN on; a busy schema read at connect time would stop the virtual user instead. */
    sqlite3_busy_timeout(c->db, c->busy_timeout_ms > SETUP_BUSY_MS ? c->busy_timeout_ms : SETUP_BUSY_MS);
    c->busy_timeout_set = c->busy_timeout_ms >= SETUP_BUSY_MS;
    snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s; PRAGMA synchronous=%s; PRAGMA cache_size=-%ld;",
             c->journal, c->synchronous, c->cache_kib);
    if (sq_exec(c, sql, err))
        goto fail;
    *out = c;
    return 0;
fail:
    if (c->db)
        sqlite3_close_v2(c->db);
    free(c);
    return -1;
}

static void sq_finalize(struct dg_stmt *s)
{
    if (!s)
        return;
    struct dg_stmt **pp = &s->conn->stmts;
    while (*pp && *pp != s)
        pp = &(*pp)->next;
    if (*pp)
        *pp = s->next;
    sqlite3_finalize(s->st);
    free(s);
}

static void sq_disconnect(struct dg_conn *c)
{
    while (c->stmts)
        sq_finalize(c->stmts);
    sqlite3_close_v2(c->db);
    free(c);
}

static int sq_prepare(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                      struct dg_err *err)
{
    struct dg_stmt *s = calloc(1, sizeof *s);
    if (!s)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    int rc = sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->st, NULL);
    if (rc != SQLITE_OK || !s->st) {
        free(s);
        if (rc == SQLITE_OK)
            return dg_err_set(err, DG_ERR_USER, 0, "prepare: empty statement");
        fail(err, c->db, rc, "prepare");
        snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg), " in: %.160s",
                 sql);
        return -1;
    }
    if (sqlite3_bind_parameter_count(s->st) != nparams) {
        int have = sqlite3_bind_parameter_count(s->st);
        sqlite3_finalize(s->st);
        free(s);
        return dg_err_set(err, DG_ERR_USER, 0, "prepare: statement has %d parameters, %d given: %.160s",
                          have, nparams, sql);
    }
    s->conn = c;
    s->nparams = nparams;
    s->next = c->stmts;
    c->stmts = s;
    *out = s;
    return 0;
}

static int bind_values(sqlite3_stmt *st, const struct dg_value *v, int n)
{
    for (int i = 0; i < n; i++) {
        int rc;
        switch (v[i].type) {
        case DG_T_INT: rc = sqlite3_bind_int64(st, i + 1, v[i].i); break;
        case DG_T_DOUBLE: rc = sqlite3_bind_double(st, i + 1, v[i].d); break;
        case DG_T_TEXT: rc = sqlite3_bind_text(st, i + 1, v[i].s.p, (int)v[i].s.n, SQLITE_STATIC); break;
        case DG_T_DEC: {
            static const double pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
            int sc = v[i].dec.scale;
            if (sc == 0)
                rc = sqlite3_bind_int64(st, i + 1, v[i].dec.v);
            else
                rc = sqlite3_bind_double(st, i + 1, (double)v[i].dec.v / pow10[sc < 7 ? sc : 6]);
            break;
        }
        default: rc = sqlite3_bind_null(st, i + 1); break;
        }
        if (rc != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}

/* One step: 1 a row, 0 done (the statement is reset and its changes kept), -1 error. */
static int step(struct dg_stmt *s, struct dg_err *err)
{
    int rc = sqlite3_step(s->st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE) {
        s->changes = sqlite3_changes64(s->conn->db);
        sqlite3_reset(s->st);
        return 0;
    }
    fail(err, s->conn->db, rc, "step");
    sqlite3_reset(s->st);
    return -1;
}

/* Runs the first step: a statement without rows completes here; one with rows leaves
 * the first row pending for next_row. */
static int sq_execute(struct dg_stmt *s, const struct dg_value *params, struct dg_err *err)
{
    sqlite3_reset(s->st);
    s->pending = 0;
    int rc = bind_values(s->st, params, s->nparams);
    if (rc != SQLITE_OK)
        return fail(err, s->conn->db, rc, "bind");
    rc = step(s, err);
    if (rc == 1)
        s->pending = 1;
    return rc < 0 ? -1 : 0;
}

static int sq_next_row(struct dg_stmt *s, struct dg_err *err)
{
    if (s->pending) {
        s->pending = 0;
        return 1;
    }
    if (!sqlite3_stmt_busy(s->st))
        return 0; /* finished inside execute, or reset */
    return step(s, err);
}

static void sq_reset(struct dg_stmt *s)
{
    s->pending = 0;
    sqlite3_reset(s->st);
}
static int64_t sq_changes(struct dg_stmt *s) { return s->changes; }
static int sq_ncols(struct dg_stmt *s) { return sqlite3_column_count(s->st); }
static int sq_col_is_null(struct dg_stmt *s, int i) { return sqlite3_column_type(s->st, i) == SQLITE_NULL; }
static int64_t sq_col_int(struct dg_stmt *s, int i) { return sqlite3_column_int64(s->st, i); }
static double sq_col_double(struct dg_stmt *s, int i) { return sqlite3_column_double(s->st, i); }
static const char *sq_col_text(struct dg_stmt *s, int i, size_t *len)
{
    const char *t = (const char *)sqlite3_column_text(s->st, i);
    if (len)
        *len = (size_t)sqlite3_column_bytes(s->st, i);
    return t ? t : "";
}

static int sq_begin(struct dg_conn *c, enum dg_isolation iso, int write, struct dg_err *err)
{
    (void)iso; /* SQLite transactions are serializable */
    if (!c->busy_timeout_set) {
        sqlite3_busy_timeout(c->db, c->busy_timeout_ms);
        c->busy_timeout_set = 1;
    }
    return sq_exec(c, write ? "BEGIN IMMEDIATE" : "BEGIN", err);
}
static int sq_commit(struct dg_conn *c, struct dg_err *err) { return sq_exec(c, "COMMIT", err); }
static int sq_rollback(struct dg_conn *c, struct dg_err *err)
{
    if (sqlite3_get_autocommit(c->db))
        return 0; /* nothing open (SQLite may have rolled back already) */
    return sq_exec(c, "ROLLBACK", err);
}

static void bulk_free(struct dg_bulk *b)
{
    sqlite3_finalize(b->many);
    sqlite3_finalize(b->one);
    free(b->vals);
    free(b->text);
    free(b);
}

/* INSERT INTO table (cols) VALUES (?, ...), ... with rows rows, prepared. */
static int prepare_insert(struct dg_conn *c, const char *table, const char *const *cols, int ncols, int rows,
                          sqlite3_stmt **out, struct dg_err *err)
{
    size_t cap = dg_insert_rows_len(table, cols, ncols, rows) + 1;
    char *sql = malloc(cap);
    if (!sql)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    int len = dg_insert_rows_sql(sql, cap, table, cols, ncols, rows);
    int rc = len >= 0 ? sqlite3_prepare_v2(c->db, sql, len, out, NULL) : SQLITE_TOOBIG;
    free(sql);
    return rc == SQLITE_OK ? 0 : fail(err, c->db, rc, "bulk prepare");
}

static int sq_bulk_begin(struct dg_conn *c, const char *table, const char *const *cols, int ncols,
                         struct dg_bulk **out, struct dg_err *err)
{
    struct dg_bulk *b = calloc(1, sizeof *b);
    if (!b || !(b->vals = calloc((size_t)BULK_ROWS * (size_t)ncols, sizeof *b->vals)) || !(b->text = malloc(BULK_TEXT))) {
        if (b)
            bulk_free(b);
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    }
    b->conn = c;
    b->ncols = ncols;
    if (prepare_insert(c, table, cols, ncols, 1, &b->one, err) ||
        (ncols * BULK_ROWS <= 32766 && prepare_insert(c, table, cols, ncols, BULK_ROWS, &b->many, err))) {
        bulk_free(b);
        return -1;
    }
    *out = b;
    return 0;
}

static int bulk_step(struct dg_bulk *b, sqlite3_stmt *st, const struct dg_value *v, int n, struct dg_err *err)
{
    int rc = bind_values(st, v, n);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc != SQLITE_DONE && rc != SQLITE_OK ? fail(err, b->conn->db, rc, "bulk insert") : 0;
}

/* The rows waiting: all in one statement when they are BULK_ROWS, else one at a time. */
static int bulk_flush(struct dg_bulk *b, struct dg_err *err)
{
    int rc = 0;
    if (b->nrows == BULK_ROWS && b->many)
        rc = bulk_step(b, b->many, b->vals, BULK_ROWS * b->ncols, err);
    else
        for (int r = 0; r < b->nrows && !rc; r++)
            rc = bulk_step(b, b->one, b->vals + r * b->ncols, b->ncols, err);
    b->nrows = 0;
    b->text_used = 0;
    return rc;
}

static int sq_bulk_row(struct dg_bulk *b, const struct dg_value *vals, struct dg_err *err)
{
    size_t need = 0;
    for (int i = 0; i < b->ncols; i++)
        need += vals[i].type == DG_T_TEXT ? vals[i].s.n : 0;
    if (need > BULK_TEXT)
        return bulk_step(b, b->one, vals, b->ncols, err) || bulk_flush(b, err) ? -1 : 0;
    if (b->text_used + need > BULK_TEXT && bulk_flush(b, err))
        return -1;
    struct dg_value *v = b->vals + b->nrows * b->ncols;
    for (int i = 0; i < b->ncols; i++) {
        v[i] = vals[i];
        if (vals[i].type == DG_T_TEXT) {
            memcpy(b->text + b->text_used, vals[i].s.p, vals[i].s.n);
            v[i].s.p = b->text + b->text_used;
            b->text_used += vals[i].s.n;
        }
    }
    return ++b->nrows == BULK_ROWS ? bulk_flush(b, err) : 0;
}

static int sq_bulk_end(struct dg_bulk *b, struct dg_err *err)
{
    int rc = bulk_flush(b, err);
    bulk_free(b);
    return rc;
}

/* The value of PRAGMA name on c into out ("" when it has none). */
static void pragma_value(struct dg_conn *c, const char *name, char *out, size_t n)
{
    char sql[64];
    sqlite3_stmt *st;
    out[0] = '\0';
    snprintf(sql, sizeof sql, "PRAGMA %s", name);
    if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

/* The pragmas a reader needs to know how the engine ran, added to info. */
static void add_pragmas(struct dg_conn *c, struct dg_server_info *info)
{
    static const char *const pragmas[] = {"journal_mode", "synchronous", "cache_size", "page_size"};
    for (size_t i = 0; i < sizeof pragmas / sizeof *pragmas; i++) {
        char v[64];
        pragma_value(c, pragmas[i], v, sizeof v);
        if (v[0])
            dg_server_info_add(info, pragmas[i], v);
    }
}

static int sq_server_info(struct dg_conn *c, struct dg_server_info *info, struct dg_err *err)
{
    (void)err;
    memset(info, 0, sizeof *info);
    snprintf(info->engine, sizeof info->engine, "sqlite");
    snprintf(info->version, sizeof info->version, "%s", sqlite3_libversion());
    add_pragmas(c, info);
    char ms[16]; /* what transactions wait, not the setup's wait PRAGMA busy_timeout may show yet */
    snprintf(ms, sizeof ms, "%d", c->busy_timeout_ms);
    dg_server_info_add(info, "busy_timeout", ms);
    if (sqlite3_db_readonly(c->db, "main") == 1)
        snprintf(info->read_only, sizeof info->read_only, "the file is open read-only (no write permission)");
    return 0;
}

static int sq_set_memory(struct dg_conn *c, uint64_t bytes, struct dg_err *err)
{
    char sql[64];
    /* A negative cache_size is in KiB. */
    snprintf(sql, sizeof sql, "PRAGMA cache_size=-%llu", (unsigned long long)(bytes / 1024));
    return sq_exec(c, sql, err);
}

/* A load writes each page about once, and a load that stops is resumed, not rolled forward:
 * no syncs, and a rollback journal (TRUNCATE), which keeps only the pages that were in the file
 * before the transaction (a few per unit: the B-trees' right edges), so an interrupted unit
 * rolls back cleanly. Measured against no journal at all (tpcc load W=2, 2 runs each,
 * alternated): 2.69 and 2.67 s of CPU against 2.91 and 2.64, no difference.
 * LOAD_CACHE_KIB is the page cache while loading. Rows arrive in key order, so the cache only
 * needs the right edges: 256 MB, 32, 16, 8 and 2 MB all took the same CPU (2.6-2.8 s at W=2),
 * but dbgauge's peak memory was 353, 83, 51, 35 and 18 MB. The page size stays SQLite's
 * default (4096): 16 KB pages took 10% less CPU to load (2.40 s against 2.67, 3 runs) but
 * would make every page a TPC-C transaction dirties four times larger for the whole run.
 * The connection's own journal, sync mode and cache come back afterwards. */
#define LOAD_CACHE_KIB (16 * 1024)
/* The statistics a load leaves: ANALYZE reads about this many rows per index (what PRAGMA
 * optimize does), not all of them. W=4: the nine tables took 1.03 s in full, 0.016 s so,
 * about 40% of the keys-and-statistics phase; the plans TPC-C's statements get are the same
 * (tests/e2e/load.sh compares EXPLAIN QUERY PLAN of the run's statements both ways). */
#define LOAD_ANALYSIS_LIMIT 1000
static int sq_load_mode(struct dg_conn *c, int on, struct dg_server_info *chosen, struct dg_err *err)
{
    char sql[160];
    if (on) {
        /* Leaving WAL needs the file to itself; with another connection open, WAL stays. */
        sqlite3_exec(c->db, "PRAGMA journal_mode=TRUNCATE", NULL, NULL, NULL);
        snprintf(sql, sizeof sql, "PRAGMA synchronous=OFF; PRAGMA cache_size=-%d; PRAGMA analysis_limit=%d",
                 LOAD_CACHE_KIB, LOAD_ANALYSIS_LIMIT);
        if (sq_exec(c, sql, err))
            return -1;
        if (chosen) {
            add_pragmas(c, chosen);
            char v[16];
            pragma_value(c, "analysis_limit", v, sizeof v);
            dg_server_info_add(chosen, "analysis_limit", v);
        }
        return 0;
    }
    snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s; PRAGMA synchronous=%s; PRAGMA cache_size=-%ld; "
             "PRAGMA analysis_limit=0;", c->journal, c->synchronous, c->cache_kib);
    return sq_exec(c, sql, err);
}

/* The pager's counters, taken with reset so a count never wraps (SQLite's int is 31 bits). */
static int sq_cache_stats(struct dg_conn *c, uint64_t *hits, uint64_t *misses, struct dg_err *err)
{
    int cur = 0, high = 0;
    if (sqlite3_db_status(c->db, SQLITE_DBSTATUS_CACHE_HIT, &cur, &high, 1) != SQLITE_OK)
        return dg_err_set(err, DG_ERR_FATAL, 0, "sqlite3_db_status(CACHE_HIT) failed");
    c->cache_hits += (uint64_t)cur;
    if (sqlite3_db_status(c->db, SQLITE_DBSTATUS_CACHE_MISS, &cur, &high, 1) != SQLITE_OK)
        return dg_err_set(err, DG_ERR_FATAL, 0, "sqlite3_db_status(CACHE_MISS) failed");
    c->cache_misses += (uint64_t)cur;
    *hits = c->cache_hits;
    *misses = c->cache_misses;
    return 0;
}

/* Embedded: the database file, and our own process. */
static int sq_server_local(struct dg_conn *c, char *data_dir, size_t n, long *pid, struct dg_err *err)
{
    (void)err;
    const char *f = sqlite3_db_filename(c->db, "main");
    snprintf(data_dir, n, "%s", f ? f : "");
    *pid = (long)getpid();
    return f && *f ? 0 : 1; /* an in-memory database has no file */
}

/* Embedded: where a connection is is its file (absolute, as SQLite resolved it). */
static void sq_conn_where(struct dg_conn *c, char *buf, size_t n)
{
    const char *f = sqlite3_db_filename(c->db, "main");
    snprintf(buf, n, "%s", f && *f ? f : ":memory:");
}

static const char *const schemes[] = {"sqlite", NULL};

const struct dg_driver dg_driver_sqlite = {
    .name = "sqlite",
    .schemes = schemes,
    .dialect = DG_DIALECT_SQLITE,
    .caps = DG_CAP_CACHE_PER_CONN | DG_CAP_MEMORY_SESSION,
    .connect = sq_connect,
    .disconnect = sq_disconnect,
    .exec = sq_exec,
    .prepare = sq_prepare,
    .finalize = sq_finalize,
    .execute = sq_execute,
    .next_row = sq_next_row,
    .reset = sq_reset,
    .changes = sq_changes,
    .ncols = sq_ncols,
    .col_is_null = sq_col_is_null,
    .col_int = sq_col_int,
    .col_double = sq_col_double,
    .col_text = sq_col_text,
    .begin = sq_begin,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .bulk_begin = sq_bulk_begin,
    .bulk_row = sq_bulk_row,
    .bulk_end = sq_bulk_end,
    .server_info = sq_server_info,
    .set_memory = sq_set_memory,
    .load_mode = sq_load_mode,
    .cache_stats = sq_cache_stats,
    .server_local = sq_server_local,
    .conn_where = sq_conn_where,
    .check_url = sq_check_url,
};
