/* workload.c — sysbench OLTP as a struct dg_workload: one type per test, terminals that
 * always draw the run's test, the figures (TPS; QPS and reads/writes/other per second through
 * per-type query weights) and the options' defaults and checks. No SQL, no threads. */
#include <stdio.h>
#include <string.h>

#include "core/figures.h"
#include "workloads/oltp/oltp_internal.h"

_Static_assert(OLTP_NTESTS <= DG_MAX_TYPES, "one runner type per test");

const char *const oltp_test_names[OLTP_NTESTS] = {
    "point_select", "read_only", "read_write", "write_only",
    "update_index", "update_non_index", "delete", "insert",
};

void oltp_config_default(struct oltp_config *cfg)
{
    *cfg = (struct oltp_config){
        .test = OLTP_READ_WRITE,
        .tables = 1,
        .table_size = 10000,
        .range_size = 100,
        .point_selects = 10,
        .simple_ranges = 1,
        .sum_ranges = 1,
        .order_ranges = 1,
        .distinct_ranges = 1,
        .index_updates = 1,
        .non_index_updates = 1,
        .delete_inserts = 1,
        .range_selects = 1,
        .skip_trx = 0,
    };
}

int oltp_test_find(const char *name)
{
    for (int i = 0; i < OLTP_NTESTS; i++)
        if (!strcmp(oltp_test_names[i], name))
            return i;
    return -1;
}

static int in_range(int64_t v, int64_t lo, int64_t hi, const char *opt, struct dg_err *err)
{
    if (v >= lo && v <= hi)
        return 0;
    return dg_err_set(err, DG_ERR_USER, 0, "--%s %lld: must be %lld..%lld", opt, (long long)v, (long long)lo,
                      (long long)hi);
}

int oltp_config_check(const struct oltp_config *cfg, struct dg_err *err)
{
    const int64_t most = 1000000;
    if ((unsigned)cfg->test >= OLTP_NTESTS)
        return dg_err_set(err, DG_ERR_USER, 0, "unknown --test %d", (int)cfg->test);
    /* ids are INTEGER: table_size + range_size stays within 32 bits */
    return in_range(cfg->tables, 1, 100000, "tables", err) ||
           in_range(cfg->table_size, 1, 1000000000, "table-size", err) ||
           in_range(cfg->range_size, 1, 1000000000, "range-size", err) ||
           in_range(cfg->point_selects, 0, most, "point-selects", err) ||
           in_range(cfg->simple_ranges, 0, most, "simple-ranges", err) ||
           in_range(cfg->sum_ranges, 0, most, "sum-ranges", err) ||
           in_range(cfg->order_ranges, 0, most, "order-ranges", err) ||
           in_range(cfg->distinct_ranges, 0, most, "distinct-ranges", err) ||
           in_range(cfg->index_updates, 0, most, "index-updates", err) ||
           in_range(cfg->non_index_updates, 0, most, "non-index-updates", err) ||
           in_range(cfg->delete_inserts, 0, most, "delete-inserts", err)
               ? -1
               : 0;
}

/* ---- figures ------------------------------------------------------------------------------- */

/* sysbench's report: transactions per second, then queries per second, all and by kind
 * (its read/write/other counters: SELECT / INSERT, UPDATE, DELETE / BEGIN, COMMIT). Counts are
 * of committed transactions, so a retried or failed one adds no queries (sysbench counts every
 * statement it sent, and a write that changed no row as "other"; with all ids present, as
 * after prepare, the two agree). The weights are queries per transaction of each test, which
 * follow the options: each run has its own table (oltp_figures_for); the workload's table
 * carries sysbench's defaults. */
#define RATE(nm, lb, w)                                                                                  \
    {.name = nm, .label = lb, .unit = "/s", .count = DG_FIG_COMMITTED, .type = DG_FIG_ALL_TYPES, .weight = w,   \
     .scale = 1, .decimals = 2}
#define TOTAL(nm, lb, w)                                                                                 \
    {.name = nm, .label = lb, .unit = "", .count = DG_FIG_COMMITTED, .type = DG_FIG_ALL_TYPES, .weight = w,     \
     .scale = 1, .flags = DG_FIG_TOTAL}
/* The table over the weights of every query, reads, writes and others per transaction by test:
 * rates first (TPS, QPS ...), then sysbench's "queries performed" counts, which the JSON
 * shows as "queries": {"read", "write", "other", "total"}. */
#define OLTP_FIGURES(total, read, write, other)                                                        \
    {RATE("tps", "TPS", NULL), RATE("qps", "QPS", total), RATE("reads_per_s", "reads/s", read),             \
     RATE("writes_per_s", "writes/s", write), RATE("other_per_s", "other/s", other),                        \
     TOTAL("queries.read", "queries read", read), TOTAL("queries.write", "queries written", write),          \
     TOTAL("queries.other", "queries other", other), TOTAL("queries.total", "queries", total)}

void oltp_figures_for(const struct oltp_config *cfg, struct oltp_figures *out)
{
    for (int t = 0; t < OLTP_NTESTS; t++) {
        struct oltp_queries q = oltp_queries_per_txn(cfg, (enum oltp_test)t);
        out->w[0][t] = q.read + q.write + q.other;
        out->w[1][t] = q.read;
        out->w[2][t] = q.write;
        out->w[3][t] = q.other;
    }
    const struct dg_figure_def defs[OLTP_NFIGURES] = OLTP_FIGURES(out->w[0], out->w[1], out->w[2], out->w[3]);
    memcpy(out->defs, defs, sizeof defs);
}

/* sysbench's default counts (10 point selects, one of each range, ...), for the registry. */
static const double d_total[OLTP_NTESTS] = {1, 16, 20, 6, 1, 1, 1, 1};
static const double d_read[OLTP_NTESTS] = {1, 14, 14, 0, 0, 0, 0, 0};
static const double d_write[OLTP_NTESTS] = {0, 0, 4, 4, 1, 1, 1, 1};
static const double d_other[OLTP_NTESTS] = {0, 2, 2, 2, 0, 0, 0, 0};
static const struct dg_figure_def figures[OLTP_NFIGURES] = OLTP_FIGURES(d_total, d_read, d_write, d_other);

/* ---- terminals --------------------------------------------------------------------------------- */

static void wl_terminal_init(void *shared, int index, int nterminals, void *term, uint64_t seed)
{
    (void)index, (void)nterminals;
    const struct oltp_config *cfg = shared;
    struct oltp_term *t = term;
    dg_rng_seed(&t->rng, seed);
    t->test = (int)cfg->test;
}

static int wl_next_type(void *term)
{
    return ((struct oltp_term *)term)->test;
}

extern const struct dg_wl_cli oltp_cli;

const struct dg_workload oltp_workload = {
    .cli = &oltp_cli,
    .name = "oltp",
    .command = "oltp",
    .summary = "sysbench's OLTP tests: prepare, run, cleanup (see dbgauge oltp --help)",
    .figures = figures,
    .nfigures = sizeof figures / sizeof *figures,
    .ntypes = OLTP_NTESTS,
    .type_names = oltp_test_names,
    .terminal_size = sizeof(struct oltp_term),
    .worker_open = oltp_worker_open,
    .worker_close = oltp_worker_close,
    .terminal_init = wl_terminal_init,
    .next_type = wl_next_type,
    .run = oltp_run,
    .take_volume = oltp_take_volume,
};
