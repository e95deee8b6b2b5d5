/* cli.c (stress) — query stress's command line: its option table (the query, the thread
 * sweep, the built-in table's size), its subcommands (run, prepare, drop) and the run life's
 * hooks (the query checked and its parameters read; server block counters around a run).
 * Never exits, never prints usage, never writes a run record: cmd/ does. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/wlcli.h"
#include "workloads/stress/stress.h"

struct stress_cli_opts {
    const char *query, *query_file, *params;
    struct dg_int_list threads;
    uint64_t iterations, rows;
    int iter_set, row_bytes, drop;
};

#define OFF(f) offsetof(struct stress_cli_opts, f)

static const struct dg_opt opts[] = {
    {.name = "query", .kind = DG_OPT_STRING, .metavar = "SQL", .subs = "run", .off = OFF(query),
     .help = "the query each iteration runs and reads to the end\n"
             "(default: every row of the table 'stress prepare' made)"},
    {.name = "query-file", .kind = DG_OPT_STRING, .metavar = "F", .subs = "run", .off = OFF(query_file),
     .help = "the query, from a file"},
    {.name = "threads", .kind = DG_OPT_INT_LIST, .metavar = "LIST", .subs = "run", .flags = DG_OF_SWEEP,
     .off = OFF(threads), .min = 1, .max = 1024, .help = "one step per thread count, in order (default 1)"},
    {.name = "iterations", .kind = DG_OPT_U64, .metavar = "N", .subs = "run", .flags = DG_OF_SWEEP | DG_OF_HAS_SET,
     .off = OFF(iterations), .set_off = OFF(iter_set), .min = 1, .max = 1e9,
     .help = "per thread (default 1); or --duration T: run each step for T,\n"
             "measured after --warmup"},
    {.name = "params-query", .kind = DG_OPT_STRING, .metavar = "SQL", .subs = "run", .off = OFF(params),
     .flags = DG_OF_IF_SET, .json = "params_query",
     .help = "run once; its rows fill the query's placeholders (? or $1..),\n"
             "one row per iteration, cycling"},
    {.name = "rows", .kind = DG_OPT_U64, .metavar = "N", .subs = "prepare", .off = OFF(rows), .min = 1, .max = 1e9,
     .help = "rows of the built-in table (default 1000000)"},
    {.name = "row-bytes", .kind = DG_OPT_INT, .metavar = "B", .subs = "prepare", .off = OFF(row_bytes), .min = 48,
     .max = 4000, .help = "bytes of values per row (default 200)"},
    {.name = "drop", .kind = DG_OPT_FLAG, .subs = "prepare", .off = OFF(drop), .help = "drop the built-in table first"},
};

static void init(void *v)
{
    *(struct stress_cli_opts *)v =
        (struct stress_cli_opts){.threads = {.n = 1, .v = {1}}, .iterations = 1, .rows = 1000000, .row_bytes = 200};
}

static int finish(void *v, struct dg_run_opts *c, const char *sub, struct dg_err *err)
{
    struct stress_cli_opts *o = v;
    if (strcmp(sub, "run"))
        return 0;
    if (o->query && o->query_file)
        return dg_err_set(err, DG_ERR_USER, 0, "--query and --query-file: give one");
    if (o->iter_set && c->duration_set)
        return dg_err_set(err, DG_ERR_USER, 0, "--iterations and --duration: give one");
    if (c->warmup_ns && !c->duration_set)
        return dg_err_set(err, DG_ERR_USER, 0, "--warmup goes with --duration");
    if (c->ntargets > 1)
        return dg_err_set(err, DG_ERR_USER, 0, "--target given twice: 'stress' works on one target");
    if (!c->duration_set)
        c->txns_per_vu = o->iterations;
    c->nsweep = o->threads.n;
    memcpy(c->sweep, o->threads.v, sizeof c->sweep);
    c->vus = c->sweep[0];
    return 0;
}

/* --- run hooks --- */

struct stress_run {
    struct stress_shared sh; /* first: the workload's own */
    char *query_buf;
    int64_t hit0, read0;
    int has_blocks;
};

/* Reads a query file into a malloc'd string without a trailing ';' or white space. */
static char *read_query_file(const char *path, struct dg_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        dg_err_set(err, DG_ERR_USER, 0, "--query-file: cannot read '%s'", path);
        return NULL;
    }
    size_t cap = 4096, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    fclose(f);
    if (!buf) {
        dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        return NULL;
    }
    while (n && strchr(";\n \t\r", buf[n - 1]))
        n--;
    buf[n] = '\0';
    if (n == 0) {
        free(buf);
        dg_err_set(err, DG_ERR_USER, 0, "--query-file: '%s' holds no query", path);
        return NULL;
    }
    return buf;
}

static int shared_open(const void *v, const struct dg_run_opts *c, const struct dg_target *t, struct dg_conn_h *h,
                       struct dg_rng *rng, void *shared, struct dg_err *err)
{
    (void)c, (void)t, (void)rng;
    const struct stress_cli_opts *o = v;
    struct stress_run *r = shared;
    const char *query = o->query ? o->query : STRESS_DEFAULT_QUERY;
    if (o->query_file && !(query = r->query_buf = read_query_file(o->query_file, err)))
        return -1;
    if (stress_setup(h, query, o->params, &r->sh, err)) {
        if (!o->query && !o->query_file && strstr(err->msg, STRESS_TABLE))
            snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg),
                     " (run 'dbgauge stress prepare' first, or give --query)");
        return -1;
    }
    return 0;
}

static void shared_free(void *shared)
{
    struct stress_run *r = shared;
    stress_shared_free(&r->sh);
    free(r->query_buf);
    r->query_buf = NULL;
}

static void facts(const void *v, const struct dg_run_opts *c, void *const *shared, int n, struct dg_run_facts *f)
{
    (void)v, (void)c, (void)n;
    f->query = ((const struct stress_run *)shared[0])->sh.query;
}

static void measure_begin(void *shared, struct dg_conn_h *h)
{
    struct stress_run *r = shared;
    struct dg_err e;
    r->has_blocks = stress_server_blocks(h, &r->hit0, &r->read0, &e);
}

static void measure_end(void *shared, struct dg_conn_h *h, uint64_t txns, struct dg_run_facts *f)
{
    struct stress_run *r = shared;
    struct dg_err e;
    int64_t hit1 = 0, read1 = 0;
    if (r->has_blocks <= 0 || !txns)
        return;
    usleep(300000); /* the server publishes a closed session's counters a moment later */
    if (stress_server_blocks(h, &hit1, &read1, &e) <= 0)
        return;
    f->server_blocks_hit = (double)(hit1 - r->hit0) / (double)txns;
    f->server_blocks_read = (double)(read1 - r->read0) / (double)txns;
}

/* --- prepare, drop --- */

static int act_table(const struct dg_wl_act *a, struct dg_err *err)
{
    const struct stress_cli_opts *o = a->o;
    struct dg_target t;
    struct dg_conn_h h;
    struct dg_err e;
    if (dg_target_parse(a->c->target, &t, &e))
        return dg_err_set(err, DG_ERR_USER, 0, "--target: %s", e.msg);
    struct dg_connect_opts co = {.create = 1, .application = "dbgauge-stress"};
    if (dg_connect(&t, &co, &h, err))
        return -1;
    int rc;
    if (!strcmp(a->cmd, "stress drop")) {
        rc = stress_drop(&h, err);
    } else {
        dg_ns t0 = dg_now_ns();
        rc = stress_prepare(&h, (int64_t)o->rows, o->row_bytes, o->drop, err);
        double s = (double)(dg_now_ns() - t0) / 1e9;
        if (rc == 0)
            fprintf(stderr, "made %s: %llu rows of about %d bytes in %.2f s\n", STRESS_TABLE,
                    (unsigned long long)o->rows, o->row_bytes, s);
        else if (strstr(err->msg, "already exists")) { /* appended within the message's buffer */
            err->cls = DG_ERR_USER;
            size_t len = strlen(err->msg);
            snprintf(err->msg + len, sizeof err->msg - len, " (use --drop to make it again)");
        }
    }
    dg_disconnect(&h);
    return rc ? -1 : 0;
}

static const struct dg_wl_sub subs[] = {
    {.name = "run", .kind = DG_SUB_RUN,
     .synopsis = "[--target URL] [--query SQL | --query-file F] [--threads 1,2,4,8]\n"
                 "      [--iterations N | --duration T] [--warmup T] [--params-query SQL] [options]"},
    {.name = "prepare", .kind = DG_SUB_ACTION, .synopsis = "[--target URL] [--rows N] [--row-bytes B] [--drop]",
     .action = act_table},
    {.name = "drop", .kind = DG_SUB_ACTION, .synopsis = "[--target URL]", .action = act_table},
};

/* A query stress reads only. */
static int writes(const void *o)
{
    (void)o;
    return 0;
}

const struct dg_wl_cli stress_cli = {
    .title = "Query stress",
    .opts = opts,
    .nopts = sizeof opts / sizeof *opts,
    .opts_size = sizeof(struct stress_cli_opts),
    .init = init,
    .finish = finish,
    .common_refused = "vus vus-per-target targets cluster txns-per-vu rate arrivals read-target audit",
    .json_renames = "vus=threads txns_per_vu=iterations",
    .subs = subs,
    .nsubs = sizeof subs / sizeof *subs,
    .default_sub = "run",
    .max_retries = 10,
    .fail_on_errors = 1,
    .writes = writes,
    .shared_size = sizeof(struct stress_run),
    .shared_open = shared_open,
    .shared_free = shared_free,
    .facts = facts,
    .measure_begin = measure_begin,
    .measure_end = measure_end,
};
