/* schema.c — sysbench's sbtestN tables: DDL per dialect, the population through the driver's
 * bulk load, the k_N index, removal, and the check a run makes first. Runs no benchmark
 * statement and keeps no state between calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pool.h"

#include "workloads/oltp/oltp.h"

void oltp_digit_groups(struct dg_rng *r, char *out, int groups)
{
    /* 11 digits from one 64-bit draw: the bias of v mod 10^11 is below 1e-8. */
    for (int g = 0; g < groups; g++) {
        uint64_t v = dg_rng_next(r);
        char *p = out + g * 12;
        for (int i = 0; i < 11; i++) {
            p[i] = (char)('0' + v % 10);
            v /= 10;
        }
        if (g + 1 < groups)
            p[11] = '-';
    }
}

/* oltp_common.lua create_table() with auto_inc on: SERIAL on PostgreSQL, AUTO_INCREMENT
 * (and InnoDB, its default storage engine) on MariaDB/MySQL; SQLite's INTEGER PRIMARY KEY is
 * the rowid, which gives the next id the same way. */
int oltp_create_sql(enum dg_dialect d, int table, char *sql, size_t n, struct dg_err *err)
{
    const char *id, *suffix = "";
    switch (d) {
    case DG_DIALECT_PGSQL: id = "SERIAL"; break;
    case DG_DIALECT_MYSQL: id = "INTEGER NOT NULL AUTO_INCREMENT", suffix = " ENGINE=InnoDB"; break;
    case DG_DIALECT_SQLITE:
    case DG_DIALECT_NONE: id = "INTEGER"; break;
    default:
        return dg_err_set(err, DG_ERR_USER, 0,
                          "oltp does not run on SQL Server: an IDENTITY id refuses the re-insert of "
                          "a deleted id that read_write and write_only make");
    }
    snprintf(sql, n,
             "CREATE TABLE sbtest%d (id %s, k INTEGER DEFAULT '0' NOT NULL, "
             "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))%s",
             table, id, suffix);
    return 0;
}

/* Rewrites a failure of what as a DG_ERR_USER error (a connection loss stays what it is). */
static int user_err(struct dg_err *err, const char *what, const char *hint)
{
    if (err->cls == DG_ERR_CONN)
        return -1;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return dg_err_set(err, DG_ERR_USER, err->code, "%s: %.360s%s", what, msg, hint);
}

/* Rows 1..size into sbtest<table>, in one transaction. */
static int fill(struct dg_conn_h *h, int table, int64_t size, struct dg_rng *rng, struct dg_err *err)
{
    static const char *const cols[] = {"id", "k", "c", "pad"};
    char name[32], c[OLTP_VALUE_LEN(OLTP_C_GROUPS)], pad[OLTP_VALUE_LEN(OLTP_PAD_GROUPS)];
    snprintf(name, sizeof name, "sbtest%d", table);
    struct dg_bulk *b = NULL;
    if (dg_begin(h, DG_ISO_DEFAULT, 1, err) || dg_bulk_begin(h, name, cols, 4, &b, err))
        goto fail;
    for (int64_t id = 1; id <= size; id++) {
        int64_t k = dg_rng_range(rng, 1, size);
        oltp_digit_groups(rng, c, OLTP_C_GROUPS);
        oltp_digit_groups(rng, pad, OLTP_PAD_GROUPS);
        struct dg_value v[4] = {dg_int(id), dg_int(k), dg_txt(c, sizeof c), dg_txt(pad, sizeof pad)};
        if (dg_bulk_row(h, b, v, err))
            goto fail;
    }
    struct dg_bulk *done = b;
    b = NULL;
    if (dg_bulk_end(h, done, err) || dg_commit(h, err))
        goto fail;
    return 0;
fail:;
    struct dg_err ignore;
    if (b)
        dg_bulk_end(h, b, &ignore);
    dg_rollback(h, &ignore);
    return -1;
}

/* After the rows: the sequence past them (PostgreSQL's SERIAL does not see explicit ids),
 * sysbench's secondary index, planner statistics. */
static int finish_table(struct dg_conn_h *h, enum dg_dialect d, int table, int64_t size, struct dg_err *err)
{
    char sql[256];
    if (d == DG_DIALECT_PGSQL) {
        snprintf(sql, sizeof sql, "SELECT setval(pg_get_serial_sequence('sbtest%d', 'id'), %lld)", table,
                 (long long)size);
        if (dg_exec(h, sql, err))
            return -1;
    }
    snprintf(sql, sizeof sql, "CREATE INDEX k_%d ON sbtest%d(k)", table, table);
    if (dg_exec(h, sql, err))
        return -1;
    snprintf(sql, sizeof sql, "%s sbtest%d", d == DG_DIALECT_MYSQL ? "ANALYZE TABLE" : "ANALYZE", table);
    return d == DG_DIALECT_NONE ? 0 : dg_exec(h, sql, err);
}

/* One table: created, filled, indexed. Its data comes from its own generator (seed, table),
 * so what a table holds does not depend on how many threads loaded it. */
static int prepare_table(struct dg_conn_h *h, const struct oltp_config *cfg, int t, uint64_t seed,
                         struct dg_err *err)
{
    enum dg_dialect d = dg_conn_dialect(h);
    char sql[512], what[64];
    if (oltp_create_sql(d, t, sql, sizeof sql, err))
        return -1;
    snprintf(what, sizeof what, "creating sbtest%d", t);
    if (dg_exec(h, sql, err))
        return user_err(err, what, " (run `dbgauge oltp cleanup` first?)");
    struct dg_rng rng;
    dg_rng_seed(&rng, dg_mix64(seed ^ (uint64_t)t));
    return fill(h, t, cfg->table_size, &rng, err) || finish_table(h, d, t, cfg->table_size, err) ? -1 : 0;
}

struct prep {
    const struct dg_target *target;
    const struct oltp_config *cfg;
    uint64_t seed;
};

static int prep_open(void *ctx, int thread, void **state, struct dg_err *err)
{
    (void)thread;
    const struct prep *p = ctx;
    struct dg_conn_h *h = calloc(1, sizeof *h);
    if (!h)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    struct dg_connect_opts co = {.create = 1, .application = "dbgauge-oltp-prepare"};
    if (dg_connect(p->target, &co, h, err)) {
        free(h);
        return -1;
    }
    *state = h;
    if (dg_load_mode(h, 1, NULL, err))
        return -1; /* prep_close disconnects */
    return 0;
}

static int prep_item(void *ctx, void *state, int item, struct dg_err *err)
{
    const struct prep *p = ctx;
    return prepare_table(state, p->cfg, item + 1, p->seed, err);
}

static void prep_close(void *ctx, void *state)
{
    (void)ctx;
    struct dg_conn_h *h = state;
    if (!h)
        return;
    struct dg_err ignore;
    dg_load_mode(h, 0, NULL, &ignore);
    dg_disconnect(h);
    free(h);
}

int oltp_prepare(const struct dg_target *target, const struct oltp_config *cfg, int threads, uint64_t seed,
                 struct dg_err *err)
{
    /* SQLite has one writer at a time: more threads would only wait for each other. */
    struct dg_conn_h h;
    struct dg_connect_opts co = {.create = 1, .application = "dbgauge-oltp-prepare"};
    if (dg_connect(target, &co, &h, err))
        return -1;
    enum dg_dialect d = dg_conn_dialect(&h);
    dg_disconnect(&h);
    char sql[512];
    if (oltp_create_sql(d, 1, sql, sizeof sql, err))
        return -1;
    if (d == DG_DIALECT_SQLITE || threads < 1)
        threads = 1;
    struct prep p = {.target = target, .cfg = cfg, .seed = seed};
    struct dg_pool_job job = {.ctx = &p, .thread_open = prep_open, .item = prep_item, .thread_close = prep_close};
    return dg_pool_run(&job, threads, cfg->tables, err);
}

int oltp_cleanup(struct dg_conn_h *h, int tables, struct dg_err *err)
{
    for (int t = 1; t <= tables; t++) {
        char sql[64];
        snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS sbtest%d", t);
        if (dg_exec(h, sql, err))
            return -1;
    }
    return 0;
}

int oltp_check_tables(struct dg_conn_h *h, const struct oltp_config *cfg, struct dg_err *err)
{
    enum dg_dialect d = dg_conn_dialect(h);
    char sql[128];
    if (oltp_create_sql(d, 1, sql, sizeof sql, err))
        return -1;
    if (d == DG_DIALECT_NONE)
        return 0; /* the null driver has no tables to look at */
    for (int t = 1; t <= cfg->tables; t++) {
        int64_t n;
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM sbtest%d WHERE 1 = 0", t);
        if (dg_query_int(h, sql, &n, err)) {
            char what[64];
            snprintf(what, sizeof what, "table sbtest%d", t);
            return user_err(err, what, " (run `dbgauge oltp prepare` with this --tables first)");
        }
    }
    return 0;
}
