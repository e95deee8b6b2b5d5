/* cli.c (oltp) — sysbench OLTP's command line in the option-table form of core/wlcli.h: its
 * options under sysbench's names, its subcommands (run, prepare, cleanup) and the run life's
 * hooks (tables checked, weights set). Never exits, never prints usage, never writes a run
 * record: cmd/ does.
 * NOT BUILT on branch wt-oltp (core/wlcli.h lives on wt-cli). At the merge: add
 * 'src/workloads/oltp/cli.c' to meson.build and `.cli = &oltp_cli,` to oltp_workload. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/clock.h"
#include "core/wlcli.h"
#include "workloads/oltp/oltp.h"

struct oltp_cli_opts {
    struct oltp_config cfg;    /* test, tables, table_size ... as the workload takes them */
    struct dg_int_list threads;
};

#define OFF(f) offsetof(struct oltp_cli_opts, f)
#define CFG(f) offsetof(struct oltp_cli_opts, cfg.f)

/* oltp_test_names with the terminator an enum option wants. */
static const char *const test_names[] = {"point_select", "read_only", "read_write", "write_only", "update_index",
                                         "update_non_index", "delete", "insert", NULL};
static const char *const on_off[] = {"off", "on", NULL};

#define COUNT_OPT(opt, field, what)                                                                          \
    {.name = opt, .kind = DG_OPT_INT, .metavar = "N", .subs = "run", .flags = DG_OF_SWEEP, .off = CFG(field), \
     .min = 0, .max = 1000000, .json = #field, .help = what}

static const struct dg_opt opts[] = {
    {.name = "test", .kind = DG_OPT_ENUM, .metavar = "NAME", .subs = "run", .flags = DG_OF_SWEEP, .off = CFG(test),
     .names = test_names, .json = "test",
     .help = "point_select | read_only | read_write (default) | write_only |\n"
             "update_index | update_non_index | delete | insert: sysbench's oltp_NAME.lua"},
    /* tables and table-size go with every subcommand, as sysbench takes them */
    {.name = "tables", .kind = DG_OPT_INT, .metavar = "N", .off = CFG(tables), .min = 1, .max = 100000,
     .json = "tables", .help = "number of tables sbtest1..sbtestN (default 1)"},
    {.name = "table-size", .kind = DG_OPT_U64, .metavar = "N", .off = CFG(table_size),
     .min = 1, .max = 1e9, .json = "table_size", .help = "rows per table (default 10000)"},
    {.name = "range-size", .kind = DG_OPT_U64, .metavar = "N", .subs = "run", .flags = DG_OF_SWEEP,
     .off = CFG(range_size), .min = 1, .max = 1e9, .json = "range_size",
     .help = "rows of a range SELECT (default 100)"},
    COUNT_OPT("point-selects", point_selects, "point SELECTs per transaction (default 10; point_select: 1)"),
    COUNT_OPT("simple-ranges", simple_ranges, "simple range SELECTs per transaction (default 1)"),
    COUNT_OPT("sum-ranges", sum_ranges, "SELECT SUM() ranges per transaction (default 1)"),
    COUNT_OPT("order-ranges", order_ranges, "SELECT ... ORDER BY ranges per transaction (default 1)"),
    COUNT_OPT("distinct-ranges", distinct_ranges, "SELECT DISTINCT ranges per transaction (default 1)"),
    COUNT_OPT("index-updates", index_updates, "UPDATEs of the indexed k per transaction (default 1)"),
    COUNT_OPT("non-index-updates", non_index_updates, "UPDATEs of c per transaction (default 1)"),
    COUNT_OPT("delete-inserts", delete_inserts, "DELETE + INSERT of the same id per transaction (default 1)"),
    {.name = "range-selects", .kind = DG_OPT_ENUM, .metavar = "on|off", .subs = "run", .off = CFG(range_selects),
     .names = on_off, .json = "range_selects", .help = "off: no range SELECT at all (default on)"},
    {.name = "skip-trx", .kind = DG_OPT_ENUM, .metavar = "on|off", .subs = "run", .off = CFG(skip_trx),
     .names = on_off, .json = "skip_trx", .help = "on: no BEGIN/COMMIT, every statement autocommits (default off)"},
    {.name = "pipeline", .kind = DG_OPT_ENUM, .metavar = "on|off", .subs = "run", .off = CFG(pipeline),
     .names = on_off, .json = "pipeline",
     .help = "on: a transaction's statements and its COMMIT sent at once, one round trip where the\n"
             "driver pipelines (PostgreSQL, ODBC to PostgreSQL); off: one round trip per statement,\n"
             "as sysbench (default)"},
    {.name = "threads", .kind = DG_OPT_INT_LIST, .metavar = "LIST", .subs = "prepare run", .flags = DG_OF_SWEEP,
     .off = OFF(threads), .min = 1, .max = 4096, .json = "threads",
     .help = "connections (default 1); (run) a list is one step per count, in\n"
             "order; (prepare) tables are filled in parallel (SQLite: one)"},
};

static void init(void *v)
{
    struct oltp_cli_opts *o = v;
    memset(o, 0, sizeof *o);
    oltp_config_default(&o->cfg);
    o->threads = (struct dg_int_list){.n = 1, .v = {1}};
}

static int finish(void *v, struct dg_run_opts *c, const char *sub, struct dg_err *err)
{
    struct oltp_cli_opts *o = v;
    if (oltp_config_check(&o->cfg, err))
        return -1;
    if (strcmp(sub, "run"))
        return 0;
    c->nsweep = o->threads.n > 1 ? o->threads.n : 0;
    memcpy(c->sweep, o->threads.v, sizeof c->sweep);
    c->vus = o->threads.v[0];
    return 0;
}

/* --- run hooks --- */

/* The shared state the runner hands to worker_open: the configuration first. */
struct oltp_run {
    struct oltp_config cfg;
    struct oltp_figures figures; /* this run's: the weights follow cfg */
};

static int shared_open(const void *v, const struct dg_run_opts *c, const struct dg_target *t, struct dg_conn_h *h,
                       struct dg_rng *rng, void *shared, struct dg_err *err)
{
    (void)c, (void)t, (void)rng;
    const struct oltp_cli_opts *o = v;
    struct oltp_run *r = shared;
    r->cfg = o->cfg;
    if (oltp_check_tables(h, &r->cfg, err))
        return -1;
    oltp_figures_for(&r->cfg, &r->figures);
    return 0;
}

/* The run's figures: queries per transaction as its options make them. */
static void facts(const void *v, const struct dg_run_opts *c, void *const *shareds, int n, struct dg_run_facts *f)
{
    (void)v, (void)c, (void)n;
    const struct oltp_run *r = shareds[0];
    f->figures = r->figures.defs;
    f->nfigures = OLTP_NFIGURES;
}

static void describe(const void *shared, char *buf, size_t n)
{
    const struct oltp_run *r = shared;
    snprintf(buf, n, "%s on %d table%s x %lld rows", oltp_test_names[r->cfg.test], r->cfg.tables,
             r->cfg.tables == 1 ? "" : "s", (long long)r->cfg.table_size);
}

/* --- prepare, cleanup --- */

static int open_target(const char *url, struct dg_target *t, struct dg_err *err)
{
    struct dg_err e;
    if (dg_target_parse(url, t, &e))
        return dg_err_set(err, DG_ERR_USER, 0, "--target: %s", e.msg);
    return 0;
}

static int act_prepare(const struct dg_wl_act *a, struct dg_err *err)
{
    const struct oltp_cli_opts *o = a->o;
    struct dg_target t;
    if (open_target(a->c->target, &t, err))
        return -1;
    if (!a->c->quiet)
        fprintf(stderr, "creating %d table%s of %lld rows in %s\n", o->cfg.tables, o->cfg.tables == 1 ? "" : "s",
                (long long)o->cfg.table_size, t.redacted);
    dg_ns t0 = dg_now_ns();
    if (oltp_prepare(&t, &o->cfg, o->threads.v[0], a->c->seed, err))
        return -1;
    double s = (double)(dg_now_ns() - t0) / 1e9, rows = (double)o->cfg.tables * (double)o->cfg.table_size;
    fprintf(stderr, "prepared sbtest1..sbtest%d: %.0f rows in %.2f s (%.0f rows/s)\n", o->cfg.tables, rows, s,
            s > 0 ? rows / s : 0);
    if (a->json) {
        cJSON_AddStringToObject(a->json, "target", t.redacted);
        cJSON_AddNumberToObject(a->json, "tables", o->cfg.tables);
        cJSON_AddNumberToObject(a->json, "table_size", (double)o->cfg.table_size);
        cJSON_AddNumberToObject(a->json, "rows", rows);
        cJSON_AddNumberToObject(a->json, "seconds", s);
        cJSON_AddNumberToObject(a->json, "rows_per_s", s > 0 ? rows / s : 0);
    }
    return 0;
}

static int act_cleanup(const struct dg_wl_act *a, struct dg_err *err)
{
    const struct oltp_cli_opts *o = a->o;
    struct dg_target t;
    struct dg_conn_h h;
    if (open_target(a->c->target, &t, err))
        return -1;
    struct dg_connect_opts co = {.application = "dbgauge-oltp"};
    if (dg_connect(&t, &co, &h, err))
        return -1;
    int rc = oltp_cleanup(&h, o->cfg.tables, err);
    dg_disconnect(&h);
    if (rc)
        return -1;
    fprintf(stderr, "dropped sbtest1..sbtest%d\n", o->cfg.tables);
    if (a->json) {
        cJSON_AddStringToObject(a->json, "target", t.redacted);
        cJSON_AddNumberToObject(a->json, "tables", o->cfg.tables);
    }
    return 0;
}

static const struct dg_wl_sub subs[] = {
    {.name = "run", .kind = DG_SUB_RUN,
     .synopsis = "[--target URL] [--test NAME] [--tables N] [--table-size N] [--threads 1,2,4]\n"
                 "      [--duration T | --txns-per-vu N] [--warmup T] [--range-size N] [options]"},
    {.name = "prepare", .kind = DG_SUB_ACTION, .synopsis = "[--target URL] [--tables N] [--table-size N] [--threads N]",
     .common = "seed progress quiet", .action = act_prepare},
    {.name = "cleanup", .kind = DG_SUB_ACTION, .synopsis = "[--target URL] [--tables N] [--table-size N]",
     .action = act_cleanup},
};

/* point_select and read_only write nothing: a standby may serve them. */
static int writes(const void *v)
{
    const struct oltp_cli_opts *o = v;
    return o->cfg.test != OLTP_POINT_SELECT && o->cfg.test != OLTP_READ_ONLY;
}

const struct dg_wl_cli oltp_cli = {
    .title = "sysbench OLTP",
    .opts = opts,
    .nopts = sizeof opts / sizeof *opts,
    .opts_size = sizeof(struct oltp_cli_opts),
    .init = init,
    .finish = finish,
    .common_refused = "vus vus-per-target read-target audit",
    .subs = subs,
    .nsubs = sizeof subs / sizeof *subs,
    .default_sub = "run",
    .help_note = "Statements, tables and ids as sysbench 1.0.20's oltp_common.lua, ids drawn uniformly\n"
                 "(sysbench's default is its 'special' distribution). Figures: TPS, QPS, reads/s,\n"
                 "writes/s, other/s (BEGIN and COMMIT), from committed transactions.",
    .max_retries = 100,
    .fail_on_errors = 1,
    .writes = writes,
    .shared_size = sizeof(struct oltp_run),
    .shared_open = shared_open,
    .describe = describe,
    .facts = facts,
};
