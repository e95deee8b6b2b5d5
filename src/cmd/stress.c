/* stress.c — `dbgauge stress`: one query run by T threads for N iterations (or a duration),
 * a step per thread count, each step a stored run linked to the others; `stress prepare`
 * makes the built-in table. Options, output and exit status only: the measuring is the
 * runner's and the stress workload's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/opts.h"
#include "report/summary.h"
#include "workloads/stress/stress.h"

#define MAX_STEPS 64

static void stress_usage(FILE *out)
{
    fprintf(out,
            "usage:\n"
            "  dbgauge stress [--target URL] [--query SQL | --query-file F] [--threads 1,2,4,8]\n"
            "                 [--iterations N | --duration T] [--warmup T] [--params-query SQL]\n"
            "                 [--label TEXT] [--results PATH] [--json] [--no-monitor] [--monitor-device DEV]\n"
            "  dbgauge stress prepare [--target URL] [--rows N] [--row-bytes B] [--drop] [--json]\n"
            "  dbgauge stress drop [--target URL]\n\n"
            "  --query SQL         the query each iteration runs and reads to the end\n"
            "                      (default: every row of the table 'stress prepare' made)\n"
            "  --query-file F      the query, from a file\n"
            "  --threads LIST      one step per thread count, in order (default 1)\n"
            "  --iterations N      per thread (default 1)\n"
            "  --duration T        instead: run each step for T, measured after --warmup\n"
            "  --params-query SQL  run once; its rows fill the query's placeholders (? or $1..),\n"
            "                      one row per iteration, cycling\n"
            "  --no-monitor        do not sample host CPU, disk, server process and engine cache each second\n"
            "  --monitor-device DEV  the block device to watch (a /proc/diskstats name, or none)\n"
            "  --rows N            rows of the built-in table (default 1000000)\n"
            "  --row-bytes B       bytes of values per row (default 200)\n"
            "memory (stress):\n" DG_MEMORY_USAGE);
}

enum { O_TARGET = 1000, O_QUERY, O_QFILE, O_THREADS, O_ITER, O_DURATION, O_WARMUP, O_PARAMS,
       O_LABEL, O_RESULTS, O_JSON, O_ROWS, O_ROWBYTES, O_DROP, O_SEED, O_NO_MONITOR, O_MONITOR_DEVICE,
       O_HELP, O_MEM_BASE = 1100 };

static const struct option long_opts[] = {
    {"target", required_argument, NULL, O_TARGET},   {"query", required_argument, NULL, O_QUERY},
    {"query-file", required_argument, NULL, O_QFILE}, {"threads", required_argument, NULL, O_THREADS},
    {"iterations", required_argument, NULL, O_ITER},  {"duration", required_argument, NULL, O_DURATION},
    {"warmup", required_argument, NULL, O_WARMUP},    {"params-query", required_argument, NULL, O_PARAMS},
    {"label", required_argument, NULL, O_LABEL},      {"results", required_argument, NULL, O_RESULTS},
    {"json", no_argument, NULL, O_JSON},              {"rows", required_argument, NULL, O_ROWS},
    {"row-bytes", required_argument, NULL, O_ROWBYTES}, {"drop", no_argument, NULL, O_DROP},
    {"seed", required_argument, NULL, O_SEED},        {"help", no_argument, NULL, O_HELP},
    {"no-monitor", no_argument, NULL, O_NO_MONITOR},  {"monitor-device", required_argument, NULL, O_MONITOR_DEVICE},
    DG_MEMORY_LONG_OPTS(O_MEM_BASE),
    {NULL, 0, NULL, 0},
};

struct stress_opts {
    const char *sub; /* "run", "prepare", "drop" */
    const char *target, *query, *query_file, *params, *label, *results;
    int threads[MAX_STEPS], nsteps;
    uint64_t iterations, rows, seed;
    int row_bytes, json, drop, help, duration_set, iter_set, no_monitor;
    const char *monitor_device;
    dg_ns duration_ns, warmup_ns;
    struct dg_memory_opts mem;
    struct dg_step *step; /* a step of an experiment, or NULL */
};

static int parse_threads(const char *s, struct stress_opts *o, struct dg_err *err)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    o->nsteps = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->nsteps == MAX_STEPS)
            return dg_err_set(err, DG_ERR_USER, 0, "--threads: at most %d steps", MAX_STEPS);
        if (dg_parse_int("--threads", tok, 1, 1024, &o->threads[o->nsteps++], err))
            return -1;
    }
    return o->nsteps ? 0 : dg_err_set(err, DG_ERR_USER, 0, "--threads: '%s' lists no thread count", s);
}

static int allowed(const char *sub, int c)
{
    if (c == O_TARGET || c == O_JSON || c == O_HELP)
        return 1;
    if (!strcmp(sub, "prepare"))
        return c == O_ROWS || c == O_ROWBYTES || c == O_DROP;
    if (!strcmp(sub, "drop"))
        return 0;
    return c != O_ROWS && c != O_ROWBYTES && c != O_DROP; /* the memory options too */
}

static void init_opts(struct stress_opts *o, const char *sub)
{
    memset(o, 0, sizeof *o);
    o->sub = sub;
    o->target = DG_DEFAULT_TARGET;
    o->results = DG_DEFAULT_RESULTS;
    o->label = "";
    o->threads[0] = 1;
    o->nsteps = 1;
    o->iterations = 1;
    o->rows = 1000000;
    o->row_bytes = 200;
}

/* One option: the command line's getopt loop and a job file's key=value both come here. */
static int apply_opt(struct stress_opts *o, int c, const char *arg, struct dg_err *err)
{
    switch (c) {
    case O_TARGET: o->target = arg; return 0;
    case O_QUERY: o->query = arg; return 0;
    case O_QFILE: o->query_file = arg; return 0;
    case O_PARAMS: o->params = arg; return 0;
    case O_LABEL: o->label = arg; return 0;
    case O_RESULTS: o->results = arg; return 0;
    case O_JSON: o->json = 1; return 0;
    case O_DROP: o->drop = 1; return 0;
    case O_HELP: o->help = 1; return 0;
    case O_THREADS: return parse_threads(arg, o, err);
    case O_ITER: o->iter_set = 1; return dg_parse_u64("--iterations", arg, 1, 1000000000ull, &o->iterations, err);
    case O_DURATION: o->duration_set = 1; return dg_parse_duration("--duration", arg, &o->duration_ns, err);
    case O_WARMUP: return dg_parse_duration("--warmup", arg, &o->warmup_ns, err);
    case O_ROWS: return dg_parse_u64("--rows", arg, 1, 1000000000ull, &o->rows, err);
    case O_ROWBYTES: return dg_parse_int("--row-bytes", arg, 48, 4000, &o->row_bytes, err);
    case O_SEED: return dg_parse_u64("--seed", arg, 0, UINT64_MAX, &o->seed, err);
    case O_NO_MONITOR: o->no_monitor = 1; return 0;
    case O_MONITOR_DEVICE: return dg_cmd_monitor_device_opt(arg, &o->monitor_device, err);
    default: return dg_memory_opt(&o->mem, c - O_MEM_BASE, arg, err);
    }
}

/* What only the whole set of options can tell. */
static int finish_opts(struct stress_opts *o, struct dg_err *err)
{
    if (o->query && o->query_file)
        return dg_err_set(err, DG_ERR_USER, 0, "--query and --query-file: give one");
    if (o->iter_set && o->duration_set)
        return dg_err_set(err, DG_ERR_USER, 0, "--iterations and --duration: give one");
    if (o->warmup_ns && !o->duration_set)
        return dg_err_set(err, DG_ERR_USER, 0, "--warmup goes with --duration");
    if (o->duration_set && o->duration_ns == 0)
        return dg_err_set(err, DG_ERR_USER, 0, "--duration must be longer than 0");
    return dg_memory_check(&o->mem, err);
}

static int parse(int argc, char **argv, struct stress_opts *o)
{
    char cmd[32];
    snprintf(cmd, sizeof cmd, "stress%s%s", strcmp(o->sub, "run") ? " " : "", strcmp(o->sub, "run") ? o->sub : "");
    struct dg_err err;
    int c;
    init_opts(o, o->sub);
    optind = 1;
    int got;
    while ((got = dg_getopt(cmd, argc, argv, long_opts, O_HELP, allowed, o->sub, &c)) == 1)
        if (apply_opt(o, c, optarg, &err))
            return dg_usage_error(cmd, "%s", err.msg);
    if (got)
        return got;
    if (optind < argc)
        return dg_usage_error(cmd, "unexpected argument '%s' (see dbgauge stress --help)", argv[optind]);
    if (finish_opts(o, &err))
        return dg_usage_error(cmd, "%s", err.msg);
    return 0;
}

/* Reads a query file into a malloc'd string without a trailing ';' or white space. */
static char *read_query_file(const char *path, struct dg_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        dg_err_set(err, DG_ERR_USER, 0, "--query-file: cannot read '%s'", path);
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown) {
                free(buf);
                buf = NULL;
            }
            buf = grown;
        }
    }
    fclose(f);
    if (!buf) {
        dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        return NULL;
    }
    while (n && (buf[n - 1] == ';' || buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t' ||
                 buf[n - 1] == '\r'))
        n--;
    buf[n] = '\0';
    if (n == 0) {
        free(buf);
        dg_err_set(err, DG_ERR_USER, 0, "--query-file: '%s' holds no query", path);
        return NULL;
    }
    return buf;
}

static int cmd_prepare(struct stress_opts *o)
{
    struct dg_target t;
    struct dg_conn_h h;
    struct dg_err err;
    const char *cmd = strcmp(o->sub, "drop") ? "stress prepare" : "stress drop";
    if (dg_target_parse(o->target, &t, &err))
        return dg_usage_error(cmd, "--target: %s", err.msg);
    struct dg_connect_opts co = {.create = 1, .application = "dbgauge-stress"};
    if (dg_connect(&t, &co, &h, &err))
        return dg_report_err(cmd, &err);
    int rc;
    if (!strcmp(o->sub, "drop")) {
        rc = stress_drop(&h, &err);
    } else {
        dg_ns t0 = dg_now_ns();
        rc = stress_prepare(&h, (int64_t)o->rows, o->row_bytes, o->drop, &err);
        double s = (double)(dg_now_ns() - t0) / 1e9;
        if (rc == 0)
            fprintf(stderr, "made %s: %llu rows of about %d bytes in %.2f s\n", STRESS_TABLE,
                    (unsigned long long)o->rows, o->row_bytes, s);
        else if (strstr(err.msg, "already exists"))
            err.cls = DG_ERR_USER, strcat(err.msg, " (use --drop to make it again)");
    }
    dg_disconnect(&h);
    return rc ? dg_report_err(cmd, &err) : DG_EXIT_OK;
}

static char *options_json(const struct stress_opts *o, const struct dg_target *t, int threads)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "target", t->redacted);
    cJSON_AddNumberToObject(j, "threads", threads);
    if (o->duration_set) {
        cJSON_AddNumberToObject(j, "duration_s", (double)o->duration_ns / 1e9);
        cJSON_AddNumberToObject(j, "warmup_s", (double)o->warmup_ns / 1e9);
    } else {
        cJSON_AddNumberToObject(j, "iterations", (double)o->iterations);
    }
    if (o->params)
        cJSON_AddStringToObject(j, "params_query", o->params);
    cJSON_AddStringToObject(j, "label", o->label);
    dg_memory_options_json(&o->mem, j);
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return s;
}

static int cmd_run(struct stress_opts *o, int argc, char **argv)
{
    const char *cmd = "stress";
    struct dg_target t;
    struct dg_err err;
    struct dg_conn_h h = {0};
    struct dg_store *store = NULL;
    struct stress_shared sh = {0};
    struct dg_run_record recs[MAX_STEPS];
    int nrecs = 0, rc = DG_EXIT_FAILED;
    char *query_buf = NULL;
    struct dg_memory_state mst = {0};
    memset(recs, 0, sizeof recs);
    err.msg[0] = '\0';
    if (dg_target_parse(o->target, &t, &err))
        return dg_usage_error(cmd, "--target: %s", err.msg);
    const char *query = o->query ? o->query : STRESS_DEFAULT_QUERY;
    if (o->query_file && !(query = query_buf = read_query_file(o->query_file, &err)))
        return dg_report_err(cmd, &err);
    if (dg_store_open(o->results, &store, &err)) {
        rc = dg_report_err(cmd, &err);
        goto out;
    }
    /* The memory knob first: what the run records is the engine after the change. */
    if (dg_memory_apply(&t, &o->mem, &mst, &err)) {
        rc = dg_report_err(cmd, &err);
        goto out;
    }
    struct dg_connect_opts co = {.memory_bytes = mst.session_bytes};
    struct dg_server_info si;
    if (dg_connect(&t, &co, &h, &err) || t.drv->server_info(h.c, &si, &err) ||
        stress_setup(&h, query, o->params, &sh, &err)) {
        if (!o->query && !o->query_file && strstr(err.msg, STRESS_TABLE))
            snprintf(err.msg + strlen(err.msg), sizeof err.msg - strlen(err.msg),
                     " (run 'dbgauge stress prepare' first, or give --query)");
        rc = dg_report_err(cmd, &err);
        goto out;
    }
    int interrupted = 0, failed = 0;
    for (int step = 0; step < o->nsteps && !interrupted; step++) {
        int threads = o->threads[step];
        fprintf(stderr, "step %d/%d: %d thread%s, ", step + 1, o->nsteps, threads, threads == 1 ? "" : "s");
        if (o->duration_set)
            fprintf(stderr, "%.0f s\n", (double)o->duration_ns / 1e9);
        else
            fprintf(stderr, "%llu iteration%s each\n", (unsigned long long)o->iterations, o->iterations == 1 ? "" : "s");
        int64_t hit0 = 0, read0 = 0, hit1 = 0, read1 = 0;
        int has_blocks = stress_server_blocks(&h, &hit0, &read0, &err);
        struct dg_run_result res = {0};
        struct dg_runner_cfg cfg = {.wl = &stress_workload, .shared = &sh, .target = &t,
                                    .workers = threads, .warmup_ns = o->warmup_ns,
                                    .duration_ns = o->duration_set ? o->duration_ns : 0,
                                    .txns_per_worker = o->duration_set ? 0 : o->iterations,
                                    .seed = o->seed, .max_retries = 10,
                                    .session_memory_bytes = mst.session_bytes};
        struct dg_cmd_monitor mon = {.enabled = !o->no_monitor, .device_opt = o->monitor_device};
        if (dg_cmd_monitor_begin(&mon, &t, threads, &cfg, &err)) /* the run goes on without it */
            fprintf(stderr, "dbgauge %s: monitor: %s; running without it\n", cmd, err.msg);
        if (dg_runner_run(&cfg, &res, &err)) {
            dg_cmd_monitor_end(&mon, NULL);
            rc = dg_report_err(cmd, &err);
            goto out;
        }
        if (has_blocks > 0) {
            usleep(300000); /* the server publishes a closed session's counters a moment later */
            has_blocks = stress_server_blocks(&h, &hit1, &read1, &err);
        }
        struct dg_run_record *r = &recs[nrecs];
        r->rows = res.counts[0].rows; /* the measured iterations' */
        r->bytes = res.counts[0].bytes;
        struct dg_record_src src = {.workload = "stress", .label = o->label, .target = &t, .server = &si,
                                    .options_json = options_json(o, &t, threads), .argc = argc,
                                    .argv = argv, .vus = threads, .model = DG_LOAD_CLOSED,
                                    .step = o->step, .knobs_json = mst.json};
        dg_record_fill(r, &src, &res, stress_workload.type_names);
        dg_cmd_monitor_end(&mon, r);
        struct dg_fig_run fr = {.measured_s = res.measured_s};
        r->nfigures = dg_figures_derive(stress_workload.figures, stress_workload.nfigures, res.counts,
                                        res.ntypes, &fr, r->figures);
        dg_run_result_free(&res);
        r->query = strdup(query);
        uint64_t it = dg_txn_count(&r->txn[0]);
        r->server_blocks_hit = has_blocks > 0 && it ? (double)(hit1 - hit0) / (double)it : -1;
        r->server_blocks_read = has_blocks > 0 && it ? (double)(read1 - read0) / (double)it : -1;
        r->group_id = nrecs ? recs[0].id : 0;
        if (dg_store_put(store, r, &err)) {
            rc = dg_report_err(cmd, &err);
            goto out;
        }
        if (nrecs == 0 && dg_store_set_group(store, r->id, r->id, &err)) {
            rc = dg_report_err(cmd, &err);
            goto out;
        }
        if (nrecs == 0)
            r->group_id = r->id;
        if (o->step)
            o->step->run_id = r->id;
        interrupted = !strcmp(r->status, "incomplete");
        failed |= r->txn[0].errors > 0;
        nrecs++;
    }
    /* The table is rendered from the stored runs. */
    for (int i = 0; i < nrecs; i++) {
        int64_t id = recs[i].id;
        dg_run_record_free(&recs[i]);
        if (dg_store_get(store, id, 0, &recs[i], &err)) {
            rc = dg_report_err(cmd, &err);
            goto out;
        }
    }
    FILE *text = o->step ? o->step->text : o->json ? stderr : stdout;
    fprintf(text, "\nQuery stress on %s (%s %s), steps stored as runs %lld..%lld (group %lld)\n",
            t.redacted, si.engine, si.version, (long long)recs[0].id, (long long)recs[nrecs - 1].id,
            (long long)recs[0].group_id);
    dg_report_group_text(text, recs, nrecs);
    if (o->json && !o->step) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddNumberToObject(doc, "schema_version", DG_JSON_SCHEMA_VERSION);
        cJSON_AddNumberToObject(doc, "group_id", (double)recs[0].group_id);
        cJSON_AddStringToObject(doc, "target", t.redacted);
        cJSON_AddStringToObject(doc, "query", query);
        cJSON_AddItemToObject(doc, "steps", dg_report_group_json(recs, nrecs));
        dg_print_json(doc);
    }
    if (interrupted)
        fprintf(stderr, "dbgauge stress: interrupted; the steps done are stored, the last marked incomplete\n");
    rc = interrupted || failed ? DG_EXIT_FAILED : DG_EXIT_OK;
    if (rc && o->step)
        snprintf(o->step->error, sizeof o->step->error, "%s",
                 recs[nrecs - 1].error[0] ? recs[nrecs - 1].error : interrupted ? "interrupted" : "iterations failed");
out:
    if (rc && o->step && !o->step->error[0])
        snprintf(o->step->error, sizeof o->step->error, "%s", err.msg[0] ? err.msg : "failed before measuring");
    dg_memory_release(&mst);
    for (int i = 0; i < nrecs; i++)
        dg_run_record_free(&recs[i]);
    dg_disconnect(&h);
    dg_store_close(store);
    stress_shared_free(&sh);
    free(query_buf);
    return rc;
}

int dg_cmd_stress(int argc, char **argv)
{
    struct stress_opts o = {.sub = "run"};
    int shift = 0;
    if (argc >= 2 && (!strcmp(argv[1], "prepare") || !strcmp(argv[1], "drop"))) {
        o.sub = argv[1];
        shift = 1;
    }
    int rc = parse(argc - shift, argv + shift, &o);
    if (rc)
        return rc;
    if (o.help) {
        stress_usage(stdout);
        return DG_EXIT_OK;
    }
    if (strcmp(o.sub, "run"))
        return cmd_prepare(&o);
    return cmd_run(&o, argc + 1, argv - 1);
}

/* ---- as a step of an experiment ---- */

static void *new_run_opts(void)
{
    struct stress_opts *o = malloc(sizeof *o);
    if (o)
        init_opts(o, "run");
    return o;
}

static int apply_v(void *o, int c, const char *arg, struct dg_err *err) { return apply_opt(o, c, arg, err); }
static int finish_v(void *o, struct dg_err *err) { return finish_opts(o, err); }

static int run_step(void *v, struct dg_step *step, int argc, char **argv)
{
    struct stress_opts *o = v;
    o->step = step;
    return cmd_run(o, argc, argv);
}

const struct dg_wl_cmd dg_stress_run_cmd = {
    .workload = "stress", .sub = "run", .opts = long_opts, .allowed = allowed,
    .new_opts = new_run_opts, .apply = apply_v, .finish = finish_v, .run = run_step,
};
