/* oltp.h — sysbench 1.0.20's OLTP workload (oltp_*.lua over oltp_common.lua) for dbgauge:
 * the sbtestN tables, their population and removal, and one transaction type per sysbench
 * test. Speaks SQL through the driver API only; knows nothing of threads, time or the CLI. */
#ifndef DG_OLTP_H
#define DG_OLTP_H

#include <stddef.h>
#include <stdint.h>

#include "core/driver.h"
#include "core/rng.h"
#include "core/figures.h"
#include "core/workload.h"

/* The tests, in the order of the workload's type_names: a run picks one and every
 * transaction is of that type (next_type returns it), so figures derive exactly. */
enum oltp_test {
    OLTP_POINT_SELECT = 0, /* oltp_point_select.lua */
    OLTP_READ_ONLY,        /* oltp_read_only.lua */
    OLTP_READ_WRITE,       /* oltp_read_write.lua */
    OLTP_WRITE_ONLY,       /* oltp_write_only.lua */
    OLTP_UPDATE_INDEX,     /* oltp_update_index.lua */
    OLTP_UPDATE_NON_INDEX, /* oltp_update_non_index.lua */
    OLTP_DELETE,           /* oltp_delete.lua */
    OLTP_INSERT,           /* oltp_insert.lua */
    OLTP_NTESTS
};

extern const char *const oltp_test_names[OLTP_NTESTS];
extern const struct dg_workload oltp_workload;

/* The options oltp_common.lua has (same names with '-' for '_', same defaults), less the
 * storage ones (auto_inc is always on, secondary off, create_secondary on). */
struct oltp_config {
    enum oltp_test test;
    int tables;          /* --tables 1 */
    int64_t table_size;  /* --table-size 10000 */
    int64_t range_size;  /* --range-size 100 */
    int point_selects;   /* --point-selects 10 (point_select runs 1, as sysbench) */
    int simple_ranges;   /* --simple-ranges 1 */
    int sum_ranges;      /* --sum-ranges 1 */
    int order_ranges;    /* --order-ranges 1 */
    int distinct_ranges; /* --distinct-ranges 1 */
    int index_updates;   /* --index-updates 1 */
    int non_index_updates; /* --non-index-updates 1 */
    int delete_inserts;  /* --delete-inserts 1 */
    int range_selects;   /* --range-selects on: off skips the four range kinds */
    int skip_trx;        /* --skip-trx off: on runs every statement in autocommit */
    int pipeline;        /* --pipeline off: on sends a transaction's statements at once */
};

/* sysbench's defaults, test read_write. */
void oltp_config_default(struct oltp_config *cfg);
/* The test called name, or -1. */
int oltp_test_find(const char *name);
/* Checks the numbers (tables >= 1, table_size >= 1, counts >= 0 ...); DG_ERR_USER naming the
 * option otherwise. */
int oltp_config_check(const struct oltp_config *cfg, struct dg_err *err);

/* The queries one transaction of test runs, as sysbench counts them: reads (SELECT), writes
 * (INSERT, UPDATE, DELETE) and other (BEGIN, COMMIT). */
struct oltp_queries {
    int read, write, other;
};
struct oltp_queries oltp_queries_per_txn(const struct oltp_config *cfg, enum oltp_test test);

/* Makes cfg the configuration of this process's runs: the figures' per-type weights (reads,
 * writes, other and total queries per transaction) become cfg's counts. Call it once, before
 * dg_runner_run and before any figure is derived, from one thread; the weights are static
 * (struct dg_workload is const), so a process runs one oltp configuration at a time. */
/* The figures of a run with cfg: TPS, QPS, reads/s, writes/s, other/s and the queries' totals
 * (queries.read, .write, .other, .total), their weights the
 * queries per transaction that cfg gives each test. Plain value: out holds the weights its
 * definitions point at, so it must stay put while they are used. */
#define OLTP_NFIGURES 9
struct oltp_figures {
    double w[4][OLTP_NTESTS]; /* total, read, write, other */
    struct dg_figure_def defs[OLTP_NFIGURES];
};
void oltp_figures_for(const struct oltp_config *cfg, struct oltp_figures *out);

/* --- schema.c ------------------------------------------------------------------------- */

/* Creates sbtest1..sbtest<tables> and fills each with table_size rows as sysbench does: ids
 * 1..table_size, k uniform in [1, table_size], c and pad random digit groups; then the k_N
 * index and fresh planner statistics. Rows go through the driver's bulk load. Tables are
 * spread over `threads` connections to target (core/pool.h; one on SQLite), as sysbench's
 * parallel prepare. A table that exists already is a DG_ERR_USER error (run cleanup first).
 * seed makes the data reproducible whatever the thread count. */
int oltp_prepare(const struct dg_target *target, const struct oltp_config *cfg, int threads, uint64_t seed,
                 struct dg_err *err);
/* Drops sbtest1..sbtest<tables> (IF EXISTS). */
int oltp_cleanup(struct dg_conn_h *h, int tables, struct dg_err *err);
/* Checks before a run that every table the config names exists (a DG_ERR_USER error that
 * says "oltp prepare" otherwise) and that the engine is one oltp speaks. */
int oltp_check_tables(struct dg_conn_h *h, const struct oltp_config *cfg, struct dg_err *err);

/* sysbench's c and pad values: groups of 11 random digits joined by '-' (c: 10 groups, 119
 * characters; pad: 5 groups, 59). out holds OLTP_VALUE_LEN(groups) bytes, no terminator. */
#define OLTP_C_GROUPS 10
#define OLTP_PAD_GROUPS 5
#define OLTP_VALUE_LEN(groups) ((groups) * 12 - 1)
void oltp_digit_groups(struct dg_rng *r, char *out, int groups);

/* The DDL of table n for dialect d into sql (n bytes); -1 with DG_ERR_USER for a dialect oltp
 * does not speak (SQL Server: its IDENTITY refuses the re-insert of an id). */
int oltp_create_sql(enum dg_dialect d, int table, char *sql, size_t n, struct dg_err *err);

/* --- CLI (cli.c, in the option-table form of the merged cmd layer) ----------------------
 * `dbgauge oltp prepare|run|cleanup [options]`; the test's options as sysbench names them:
 *   --target URL          all      the database (required)
 *   --test NAME           run      point_select|read_only|read_write|write_only|update_index|
 *                                  update_non_index|delete|insert; default read_write; an
 *                                  unknown name exits 2 naming it
 *   --tables N            all      number of tables, default 1
 *   --table-size N        all      rows per table, default 10000
 *   --range-size N        run      rows of a range SELECT, default 100
 *   --point-selects N     run      default 10      --simple-ranges N     run  default 1
 *   --sum-ranges N        run      default 1       --order-ranges N      run  default 1
 *   --distinct-ranges N   run      default 1       --index-updates N     run  default 1
 *   --non-index-updates N run      default 1       --delete-inserts N    run  default 1
 *   --range-selects on|off run     default on      --skip-trx on|off     run  default off
 * plus the run life's own (--threads, --duration, --warmup, --rate, --seed, --results,
 * --json, --label ...) for run, and --seed for prepare. */

#endif
