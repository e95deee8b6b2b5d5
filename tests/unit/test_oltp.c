/* test_oltp.c — the sysbench OLTP workload end to end on one target: `test_oltp [URL]` (a
 * scratch SQLite file without one) prepares 2 tables x 1000 rows, runs every test for a fixed
 * number of transactions through the runner and checks the commits, the statements the server counted (MariaDB Com_*, PostgreSQL
 * pg_stat_user_tables), the data, the figures and cleanup. Driver API only: no engine header. */
#include "core/figures.h"
#include "core/runner.h"
#include "workloads/oltp/oltp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { TABLES = 2, ROWS = 1000, TXNS = 100 };

static struct dg_test T;
static int run_all(const char *target);

static int64_t q_int(struct dg_conn_h *h, const char *sql)
{
    int64_t v = -1;
    struct dg_err err = {0};
    if (dg_query_int(h, sql, &v, &err)) {
        printf("# query failed: %s: %s\n", sql, err.msg);
        return -1;
    }
    return v;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- pure checks ------------------------------------------------------------------------- */

static void check_pure(void)
{
    struct oltp_config cfg;
    oltp_config_default(&cfg);
    CHECK(&T, cfg.tables == 1 && cfg.table_size == 10000 && cfg.range_size == 100 && cfg.point_selects == 10,
          "defaults are sysbench's (1 table, 10000 rows, ranges of 100, 10 point selects)", "%d %lld %lld %d",
          cfg.tables, (long long)cfg.table_size, (long long)cfg.range_size, cfg.point_selects);
    struct oltp_queries rw = oltp_queries_per_txn(&cfg, OLTP_READ_WRITE);
    struct oltp_queries ro = oltp_queries_per_txn(&cfg, OLTP_READ_ONLY);
    struct oltp_queries ps = oltp_queries_per_txn(&cfg, OLTP_POINT_SELECT);
    struct oltp_queries wo = oltp_queries_per_txn(&cfg, OLTP_WRITE_ONLY);
    CHECK(&T, rw.read == 14 && rw.write == 4 && rw.other == 2, "read_write: 14 reads, 4 writes, 2 other = 20",
          "%d %d %d", rw.read, rw.write, rw.other);
    CHECK(&T, ro.read == 14 && ro.write == 0 && ro.other == 2, "read_only: 14 reads, 2 other", "%d %d %d", ro.read,
          ro.write, ro.other);
    CHECK(&T, ps.read == 1 && ps.write == 0 && ps.other == 0, "point_select: one SELECT, no BEGIN/COMMIT",
          "%d %d %d", ps.read, ps.write, ps.other);
    CHECK(&T, wo.read == 0 && wo.write == 4 && wo.other == 2, "write_only: 4 writes, 2 other", "%d %d %d", wo.read,
          wo.write, wo.other);
    struct oltp_config skip = cfg;
    skip.skip_trx = 1;
    skip.range_selects = 0;
    rw = oltp_queries_per_txn(&skip, OLTP_READ_WRITE);
    CHECK(&T, rw.read == 10 && rw.other == 0, "--range-selects off --skip-trx on: 10 reads, no other", "%d %d",
          rw.read, rw.other);
    CHECK(&T, oltp_test_find("read_write") == OLTP_READ_WRITE && oltp_test_find("insert") == OLTP_INSERT &&
                  oltp_test_find("read-write") < 0,
          "tests are found by sysbench's names only", "%s", "lookup");
    CHECK(&T, oltp_workload.ntypes == OLTP_NTESTS && !strcmp(oltp_workload.type_names[OLTP_POINT_SELECT], "point_select") &&
                  dg_workload_find("oltp") == &oltp_workload,
          "the registry has oltp, its types are the test names", "%s", "registry");
    struct dg_err err = {0};
    struct oltp_config bad = cfg;
    bad.table_size = 0;
    CHECK(&T, oltp_config_check(&cfg, &err) == 0 && oltp_config_check(&bad, &err) < 0 && err.cls == DG_ERR_USER &&
                  strstr(err.msg, "--table-size"),
          "a bad number is a user error naming its option", "%s", err.msg);

    char c[OLTP_VALUE_LEN(OLTP_C_GROUPS)];
    struct dg_rng r;
    dg_rng_seed(&r, 1);
    oltp_digit_groups(&r, c, OLTP_C_GROUPS);
    int good = sizeof c == 119;
    for (int i = 0; i < (int)sizeof c; i++)
        good &= i % 12 == 11 ? c[i] == '-' : c[i] >= '0' && c[i] <= '9';
    CHECK(&T, good, "c is 10 groups of 11 digits joined by '-' (119 characters)", "%.119s", c);

    /* The figures follow the configuration: 100 read_write over 10 s with the defaults. */
    static struct oltp_figures of;
    oltp_figures_for(&cfg, &of);
    struct dg_type_counts counts[DG_MAX_TYPES] = {0};
    counts[OLTP_READ_WRITE].committed = 100;
    struct dg_fig_run run = {.measured_s = 10};
    struct dg_figure f[DG_MAX_FIGURES];
    int k = dg_figures_derive(of.defs, OLTP_NFIGURES, counts, OLTP_NTESTS, &run, f);
    const struct dg_figure *tps = dg_figure_find(f, k, "tps"), *qps = dg_figure_find(f, k, "qps"),
                           *rd = dg_figure_find(f, k, "reads_per_s"), *wr = dg_figure_find(f, k, "writes_per_s"),
                           *ot = dg_figure_find(f, k, "other_per_s");
    CHECK(&T, k == OLTP_NFIGURES && tps && qps && rd && wr && ot && tps->value == 10 && qps->value == 200 &&
                  rd->value == 140 && wr->value == 40 && ot->value == 20,
          "figures: tps 10, qps 200 = reads 140 + writes 40 + other 20", "%d figures", k);
    const struct dg_figure *qr = dg_figure_find(f, k, "queries.read"), *qt = dg_figure_find(f, k, "queries.total");
    CHECK(&T, qr && qt && qr->value == 1400 && qt->value == 2000,
          "queries performed: 1400 reads, 2000 in all over the 100 transactions", "%g %g", qr ? qr->value : -1,
          qt ? qt->value : -1);
    k = dg_figures_derive(oltp_workload.figures, oltp_workload.nfigures, counts, OLTP_NTESTS, &run, f);
    qps = dg_figure_find(f, k, "qps");
    CHECK(&T, qps && qps->value == 200, "the workload's own table has sysbench's defaults (qps 200)", "%g",
          qps ? qps->value : -1);
    cfg.point_selects = 5;
    oltp_figures_for(&cfg, &of);
    k = dg_figures_derive(of.defs, OLTP_NFIGURES, counts, OLTP_NTESTS, &run, f);
    qps = dg_figure_find(f, k, "qps");
    CHECK(&T, qps && qps->value == 150, "figures follow --point-selects 5 (qps 150)", "%g", qps ? qps->value : -1);
}

/* ---- the server's own statement counters --------------------------------------------------- */

enum { C_SELECT, C_INSERT, C_UPDATE, C_DELETE, C_BEGIN, C_COMMIT, C_SCANS, C_N };
static const char *const counter_names[C_N] = {"select", "insert", "update", "delete", "begin", "commit", "scans"};

struct counters {
    int have; /* 0: the engine tells nothing */
    int64_t v[C_N];
};

/* MariaDB: one statement reads them all, and it is a SHOW (never counted as a SELECT). */
static int my_counters(struct dg_conn_h *h, struct counters *c, struct dg_err *err)
{
    static const char *const names[C_N] = {"Com_select", "Com_insert", "Com_update", "Com_delete",
                                           "Com_begin", "Com_commit", NULL};
    struct dg_stmt *s = NULL;
    if (dg_prepare(h, "SHOW GLOBAL STATUS LIKE 'Com\\_%'", 0, &s, err) || dg_execute(h, s, NULL, err)) {
        dg_finalize(h, s);
        return -1;
    }
    int rc;
    while ((rc = dg_next_row(h, s, err)) == 1) {
        const char *name = dg_col_text(h, s, 0, NULL);
        for (int i = 0; i < C_N; i++)
            if (names[i] && name && !strcmp(name, names[i]))
                c->v[i] = strtoll(dg_col_text(h, s, 1, NULL), NULL, 10);
    }
    dg_finalize(h, s);
    c->have = rc == 0;
    return rc < 0 ? -1 : 0;
}

/* PostgreSQL: the tables' tuple and scan counts (no BEGIN/COMMIT counts per table). */
static int pg_counters(struct dg_conn_h *h, struct counters *c, struct dg_err *err)
{
    static const char *const sums[] = {
        "SELECT COALESCE(SUM(n_tup_ins), 0) FROM pg_stat_user_tables WHERE relname LIKE 'sbtest%'",
        "SELECT COALESCE(SUM(n_tup_upd), 0) FROM pg_stat_user_tables WHERE relname LIKE 'sbtest%'",
        "SELECT COALESCE(SUM(n_tup_del), 0) FROM pg_stat_user_tables WHERE relname LIKE 'sbtest%'",
        "SELECT COALESCE(SUM(COALESCE(idx_scan, 0) + COALESCE(seq_scan, 0)), 0) FROM pg_stat_user_tables "
        "WHERE relname LIKE 'sbtest%'",
    };
    static const int slot[] = {C_INSERT, C_UPDATE, C_DELETE, C_SCANS};
    if (dg_exec(h, "SELECT pg_stat_clear_snapshot()", err))
        return -1;
    for (int i = 0; i < 4; i++)
        if (dg_query_int(h, sums[i], &c->v[slot[i]], err))
            return -1;
    c->have = 1;
    return 0;
}

/* Waits until the observer is the only session left, so the workers' statistics are in. */
static void wait_alone(struct dg_conn_h *h, enum dg_dialect d)
{
    const char *sql = d == DG_DIALECT_PGSQL ? "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = "
                                              "current_database() AND pid <> pg_backend_pid()"
                                            : NULL;
    for (int i = 0; sql && i < 100 && q_int(h, sql) > 0; i++)
        sleep_ms(50);
    if (d == DG_DIALECT_MYSQL) {
        struct dg_err err;
        for (int i = 0; i < 100; i++) { /* SHOW: not a Com_select */
            struct dg_stmt *s = NULL;
            int64_t n = 0;
            if (dg_prepare(h, "SHOW GLOBAL STATUS LIKE 'Threads_connected'", 0, &s, &err) == 0 &&
                dg_execute(h, s, NULL, &err) == 0 && dg_next_row(h, s, &err) == 1)
                n = strtoll(dg_col_text(h, s, 1, NULL), NULL, 10);
            dg_finalize(h, s);
            if (n <= 1)
                break;
            sleep_ms(50);
        }
    }
}

static int counters_read(struct dg_conn_h *h, enum dg_dialect d, struct counters *c)
{
    struct dg_err err = {0};
    memset(c, 0, sizeof *c);
    wait_alone(h, d);
    int rc = d == DG_DIALECT_MYSQL ? my_counters(h, c, &err) : d == DG_DIALECT_PGSQL ? pg_counters(h, c, &err) : 0;
    if (rc)
        printf("# counters: %s\n", err.msg);
    return rc;
}

/* What n transactions of test must add to each counter on dialect d (default options). */
static void expected(enum oltp_test test, int64_t n, enum dg_dialect d, int64_t want[C_N])
{
    struct oltp_config cfg;
    oltp_config_default(&cfg);
    struct oltp_queries q = oltp_queries_per_txn(&cfg, test);
    memset(want, 0, C_N * sizeof *want);
    want[C_SELECT] = q.read * n;
    int64_t dels = test == OLTP_DELETE ? 1 : test == OLTP_READ_WRITE || test == OLTP_WRITE_ONLY ? 1 : 0;
    int64_t ins = test == OLTP_INSERT ? 1 : test == OLTP_READ_WRITE || test == OLTP_WRITE_ONLY ? 1 : 0;
    want[C_DELETE] = dels * n;
    want[C_INSERT] = ins * n;
    want[C_UPDATE] = (q.write - dels - ins) * n;
    want[C_BEGIN] = want[C_COMMIT] = q.other / 2 * n;
    /* PostgreSQL: every statement but an INSERT scans its table once */
    want[C_SCANS] = d == DG_DIALECT_PGSQL ? (q.read + want[C_UPDATE] / n + dels) * n : 0;
}

struct env {
    struct dg_target tgt;
    enum dg_dialect d;
    struct dg_conn_h obs; /* reads server counters only: never touches the sbtest tables */
    struct oltp_config cfg;
};

/* A short-lived session for the data checks, so their own scans are not counted later. */
static int64_t data_int(struct env *e, const char *sql)
{
    struct dg_conn_h h;
    struct dg_err err = {0};
    struct dg_connect_opts co = {0};
    if (dg_connect(&e->tgt, &co, &h, &err)) {
        printf("# connect: %s\n", err.msg);
        return -1;
    }
    int64_t v = q_int(&h, sql);
    dg_disconnect(&h);
    return v;
}

static int64_t total_rows(struct env *e)
{
    return data_int(e, "SELECT (SELECT COUNT(*) FROM sbtest1) + (SELECT COUNT(*) FROM sbtest2)");
}

static int run_test(struct env *e, enum oltp_test test, int workers, uint64_t txns, struct dg_run_result *res)
{
    e->cfg.test = test;
    struct dg_runner_cfg rc = {.wl = &oltp_workload, .shared = &e->cfg, .target = &e->tgt, .workers = workers,
                               .txns_per_worker = txns, .seed = 1000 + (uint64_t)test, .max_retries = 50};
    struct dg_err err = {0};
    memset(res, 0, sizeof *res);
    if (dg_runner_run(&rc, res, &err)) {
        printf("# runner: %s\n", err.msg);
        return -1;
    }
    if (res->first_error[0])
        printf("# first error: %s\n", res->first_error);
    return 0;
}

/* One test, one worker: commits exact, the server's counters exact. */
static void check_one_test(struct env *e, enum oltp_test test)
{
    char name[48];
    snprintf(name, sizeof name, "%s%s", oltp_test_names[test], e->cfg.pipeline ? " (--pipeline on)" : "");
    char what[160];
    struct counters before, after;
    counters_read(&e->obs, e->d, &before);
    struct dg_run_result res;
    if (run_test(e, test, 1, TXNS, &res)) {
        snprintf(what, sizeof what, "%s: the run starts", name);
        CHECK(&T, 0, what, "runner failed");
        return;
    }
    uint64_t others = 0;
    for (int t = 0; t < res.ntypes; t++)
        if (t != (int)test)
            others += res.counts[t].committed + res.counts[t].errors;
    snprintf(what, sizeof what, "%s: %d transactions committed, no error, no other type", name, TXNS);
    CHECK(&T, res.counts[test].committed == TXNS && res.counts[test].errors == 0 && others == 0, what,
          "committed %llu errors %llu retries %llu others %llu", (unsigned long long)res.counts[test].committed,
          (unsigned long long)res.counts[test].errors, (unsigned long long)res.counts[test].retries,
          (unsigned long long)others);
    dg_run_result_free(&res);
    counters_read(&e->obs, e->d, &after);
    if (!before.have || !after.have) {
        printf("skip - %s: statements counted by the server: %s has no such counters\n", name,
               e->d == DG_DIALECT_SQLITE ? "SQLite" : "this engine");
        return;
    }
    int64_t want[C_N];
    expected(test, TXNS, e->d, want);
    if (!strcmp(e->tgt.drv->name, "odbc"))
        want[C_BEGIN] = 0; /* ODBC begins by turning autocommit off: no START TRANSACTION */
    char got[256] = "", exp[256] = "";
    int good = 1;
    for (int i = 0; i < C_N; i++) {
        int mine = e->d == DG_DIALECT_MYSQL ? i != C_SCANS : i == C_INSERT || i == C_UPDATE || i == C_DELETE || i == C_SCANS;
        if (!mine)
            continue;
        int64_t delta = after.v[i] - before.v[i];
        /* PostgreSQL counts deleted rows, and a delete test may pick an id deleted already */
        int ok = test == OLTP_DELETE && i == C_DELETE && e->d == DG_DIALECT_PGSQL
                     ? delta <= want[i] && delta >= want[i] * 9 / 10
                 /* the planner probes an index's ends itself now and then (get_actual_variable_range) */
                 : i == C_SCANS ? delta >= want[i] && delta <= want[i] + want[i] / 100 + 4
                                : delta == want[i];
        good &= ok;
        snprintf(got + strlen(got), sizeof got - strlen(got), " %s %lld", counter_names[i], (long long)delta);
        snprintf(exp + strlen(exp), sizeof exp - strlen(exp), " %s %lld", counter_names[i], (long long)want[i]);
    }
    snprintf(what, sizeof what, "%s: the server counted exactly its statements (%s)", name,
             e->d == DG_DIALECT_MYSQL ? "Com_select/insert/update/delete/begin/commit"
                                      : "pg_stat_user_tables rows inserted/updated/deleted; scans, give or take "
                                        "the planner's own probes");
    CHECK(&T, good, what, "got%s; want%s", got, exp);
}

/* Prepare: 2 x 1000 rows as sysbench fills them. */
static int check_prepare(struct env *e)
{
    struct dg_err err = {0};
    oltp_cleanup(&e->obs, 4, &err);
    int rc = oltp_prepare(&e->tgt, &e->cfg, 2, 7, &err);
    CHECK(&T, rc == 0, "prepare 2 tables x 1000 rows (2 threads, bulk load)", "%s", err.msg);
    if (rc)
        return -1;
    CHECK(&T, total_rows(e) == 2 * ROWS, "prepare: 2000 rows", "%lld", (long long)total_rows(e));
    int64_t ids = data_int(e, "SELECT COUNT(DISTINCT id) + 1000000 * MIN(id) + 10000 * 0 FROM sbtest2");
    int64_t maxid = data_int(e, "SELECT MAX(id) FROM sbtest2");
    CHECK(&T, ids == 1000000 + ROWS && maxid == ROWS, "prepare: ids are 1..1000", "%lld %lld", (long long)ids,
          (long long)maxid);
    int64_t kmin = data_int(e, "SELECT MIN(k) FROM sbtest1"), kmax = data_int(e, "SELECT MAX(k) FROM sbtest1");
    int64_t kd = data_int(e, "SELECT COUNT(DISTINCT k) FROM sbtest1");
    CHECK(&T, kmin >= 1 && kmax <= ROWS && kd > ROWS / 2, "prepare: k is random in [1, table_size]",
          "min %lld max %lld distinct %lld", (long long)kmin, (long long)kmax, (long long)kd);
    int64_t clen = data_int(e, "SELECT MIN(LENGTH(c)) * 1000 + MAX(LENGTH(c)) FROM sbtest1");
    int64_t plen = data_int(e, "SELECT MIN(LENGTH(pad)) * 1000 + MAX(LENGTH(pad)) FROM sbtest2");
    int64_t dashes = data_int(e, "SELECT COUNT(*) FROM sbtest1 WHERE c LIKE '___________-%' AND "
                                 "pad LIKE '___________-%'");
    CHECK(&T, clen == 119119 && plen == 59059 && dashes == ROWS,
          "prepare: c and pad are sysbench's digit groups (119 and 59 characters)", "c %lld pad %lld dashed %lld",
          (long long)clen, (long long)plen, (long long)dashes);
    int64_t idx = e->d == DG_DIALECT_PGSQL ? data_int(e, "SELECT COUNT(*) FROM pg_indexes WHERE indexname IN ('k_1', 'k_2')")
                  : e->d == DG_DIALECT_MYSQL ? data_int(e, "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE "
                                                            "TABLE_SCHEMA = DATABASE() AND INDEX_NAME IN ('k_1', 'k_2')")
                  : e->d == DG_DIALECT_SQLITE ? data_int(e, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' "
                                                             "AND name IN ('k_1', 'k_2')")
                                              : 2;
    CHECK(&T, idx == 2, "prepare: secondary indexes k_1, k_2 on k", "%lld", (long long)idx);
    rc = oltp_prepare(&e->tgt, &e->cfg, 1, 7, &err);
    CHECK(&T, rc < 0 && err.cls == DG_ERR_USER && strstr(err.msg, "sbtest1") && strstr(err.msg, "cleanup"),
          "prepare over existing tables: a user error that names the table and says cleanup", "[%s] %s",
          dg_err_class_name(err.cls), err.msg);
    return 0;
}

/* Four workers at once on ten hot ids (the run's table_size says 10; the tables hold 1000):
 * deadlocks, busy waits and a re-inserted id met twice come back as retries, and the run
 * still commits every transaction and keeps the row count. */
static void check_concurrent(struct env *e)
{
    int64_t n0 = total_rows(e);
    struct dg_run_result res;
    e->cfg.table_size = 10;
    int rc = run_test(e, OLTP_READ_WRITE, 4, 50, &res);
    e->cfg.table_size = ROWS;
    if (rc) {
        CHECK(&T, 0, "read_write x 4 workers: the run starts", "%s", "runner failed");
        return;
    }
    const struct dg_type_counts *c = &res.counts[OLTP_READ_WRITE];
    printf("# read_write x 4 on 10 hot ids: %llu retries (deadlock %llu, serialization %llu, lock_timeout %llu, "
           "busy %llu, other %llu)\n",
           (unsigned long long)c->retries, (unsigned long long)c->retry_causes[DG_RETRY_DEADLOCK],
           (unsigned long long)c->retry_causes[DG_RETRY_SERIALIZATION],
           (unsigned long long)c->retry_causes[DG_RETRY_LOCK_TIMEOUT], (unsigned long long)c->retry_causes[DG_RETRY_BUSY],
           (unsigned long long)c->retry_causes[DG_RETRY_OTHER]);
    CHECK(&T, c->committed == 200 && c->errors == 0 && res.workers_failed == 0,
          "read_write x 4 workers x 50 on 10 hot ids: 200 committed, no error (conflicts retried)",
          "committed %llu errors %llu: %s", (unsigned long long)c->committed, (unsigned long long)c->errors,
          res.first_error);
    CHECK(&T, c->rows >= 200 * 10, "rows fetched are counted (take_volume)", "%llu", (unsigned long long)c->rows);
    dg_run_result_free(&res);
    CHECK(&T, total_rows(e) == n0, "read_write x 4: row count unchanged", "%lld -> %lld", (long long)n0,
          (long long)total_rows(e));
}

/* Every test, one worker, counted; the data checks that need no server counter. */
static void check_tests(struct env *e)
{
    static const enum oltp_test order[] = {OLTP_POINT_SELECT, OLTP_READ_ONLY, OLTP_READ_WRITE, OLTP_WRITE_ONLY,
                                           OLTP_UPDATE_NON_INDEX};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        check_one_test(e, order[i]);
    /* The same statements, each transaction queued and sent at once: the server counts the same. */
    e->cfg.pipeline = 1;
    check_one_test(e, OLTP_READ_WRITE);
    check_one_test(e, OLTP_POINT_SELECT);
    e->cfg.pipeline = 0;
    CHECK(&T, total_rows(e) == 2 * ROWS, "read_write and write_only: row count unchanged (delete + insert of the same id)",
          "%lld", (long long)total_rows(e));

    int64_t k0 = data_int(e, "SELECT (SELECT SUM(k) FROM sbtest1) + (SELECT SUM(k) FROM sbtest2)");
    check_one_test(e, OLTP_UPDATE_INDEX);
    int64_t k1 = data_int(e, "SELECT (SELECT SUM(k) FROM sbtest1) + (SELECT SUM(k) FROM sbtest2)");
    CHECK(&T, k1 - k0 == TXNS, "update_index: SUM(k) grew by exactly one per transaction", "%lld",
          (long long)(k1 - k0));
    check_concurrent(e); /* while every id is there: then delete + insert keeps the count */

    check_one_test(e, OLTP_INSERT);
    int64_t n = total_rows(e);
    int64_t gaps = data_int(e, "SELECT (SELECT MAX(id) - 1000 - COUNT(*) FROM sbtest1 WHERE id > 1000) + "
                               "(SELECT COALESCE(MAX(id), 1000) - 1000 - COUNT(*) FROM sbtest2 WHERE id > 1000)");
    CHECK(&T, n == 2 * ROWS + TXNS && gaps == 0,
          "insert: 100 new rows, ids generated from 1001 on in each table (SERIAL / AUTO_INCREMENT / rowid)",
          "rows %lld, gaps %lld", (long long)n, (long long)gaps);
    check_one_test(e, OLTP_DELETE);
    int64_t m = total_rows(e);
    CHECK(&T, m < n && m >= n - TXNS, "delete: rows gone, at most one per transaction", "%lld -> %lld", (long long)n,
          (long long)m);
}

static void check_cleanup(struct env *e)
{
    struct dg_err err = {0};
    CHECK(&T, oltp_check_tables(&e->obs, &e->cfg, &err) == 0, "before cleanup the tables are there", "%s", err.msg);
    int rc = oltp_cleanup(&e->obs, TABLES, &err);
    CHECK(&T, rc == 0, "cleanup runs", "%s", err.msg);
    rc = oltp_check_tables(&e->obs, &e->cfg, &err);
    CHECK(&T, rc < 0 && err.cls == DG_ERR_USER && strstr(err.msg, "sbtest1") && strstr(err.msg, "oltp prepare"),
          "cleanup drops the tables (a run then says to prepare)", "rc %d [%s] %s", rc, dg_err_class_name(err.cls),
          err.msg);
}

/* Without a URL (as tests/run.sh runs every unit program): a scratch SQLite file. */
int main(int argc, char **argv)
{
    if (argc > 2) {
        fprintf(stderr, "usage: %s [URL]\n", argv[0]);
        return 2;
    }
    char scratch[64] = "", url[128];
    if (argc < 2) {
        snprintf(scratch, sizeof scratch, "/tmp/dg-test-oltp.XXXXXX");
        int fd = mkstemp(scratch);
        if (fd < 0) {
            perror("mkstemp");
            return 1;
        }
        close(fd);
        snprintf(url, sizeof url, "sqlite:%s", scratch);
    }
    int rc = run_all(argc < 2 ? url : argv[1]);
    if (scratch[0]) {
        char side[80];
        unlink(scratch);
        snprintf(side, sizeof side, "%s-wal", scratch);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", scratch);
        unlink(side);
        snprintf(side, sizeof side, "%s-journal", scratch);
        unlink(side);
    }
    return rc;
}

static int run_all(const char *target)
{
    check_pure();
    struct env e = {0};
    struct dg_err err = {0};
    if (dg_target_parse(target, &e.tgt, &err)) {
        CHECK(&T, 0, "target", "%s", err.msg);
        return dg_test_done(&T);
    }
    printf("# driver %s, target %s\n", e.tgt.drv->name, e.tgt.redacted);
    struct dg_connect_opts co = {.create = 1, .application = "dbgauge-test-oltp"};
    if (dg_connect(&e.tgt, &co, &e.obs, &err)) {
        CHECK(&T, 0, "connect", "%s", err.msg);
        return dg_test_done(&T);
    }
    e.d = dg_conn_dialect(&e.obs);
    oltp_config_default(&e.cfg);
    e.cfg.tables = TABLES;
    e.cfg.table_size = ROWS;
    if (check_prepare(&e) == 0) {
        check_tests(&e);
        check_cleanup(&e);
    }
    dg_disconnect(&e.obs);
    return dg_test_done(&T);
}
