/* tpcc.c — `dbgauge tpcc load|run|check`: options to a load, a measured run stored in the
 * results database, or a consistency check. Prints progress and results; decides the exit
 * status. The measuring itself happens in core/runner.c and workloads/tpcc/. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/opts.h"
#include "core/rng.h"
#include "core/runner.h"
#include "report/summary.h"
#include "results/store.h"
#include "workloads/tpcc/tpcc.h"

static void tpcc_usage(FILE *out)
{
    fprintf(out,
            "usage:\n"
            "  dbgauge tpcc load  [--target URL] [--warehouses N] [--jobs J] [--drop] [--seed S] [--json]\n"
            "  dbgauge tpcc run   [--target URL]... [--vus N | --vus-per-target N] [--duration T] [--warmup T]\n"
            "                     [--txns-per-vu N] [--seed S] [--label TEXT] [--results PATH]\n"
            "                     [--mode sql|procedures] [--isolation LEVEL] [--json]\n"
            "                     [--no-monitor] [--monitor-device DEV]\n"
            "                     [--db-memory SIZE [--restart-cmd CMD | --pg-datadir DIR]]\n"
            "                     [--mem-cap SIZE] [--drop-caches]\n"
            "                     [--rate R [--arrivals poisson|uniform] | --think-time\n"
            "                      [--terminals-per-warehouse N] [--think-time-scale F]]\n"
            "  dbgauge tpcc check [--target URL] [--json]\n\n"
            "  --target URL        sqlite:PATH (default " DG_DEFAULT_TARGET "), postgres://user@host:port/db,\n"
            "                      mysql://user@host:port/db (MariaDB/MySQL), odbc:CONNECTION-STRING\n"
            "  --warehouses N      scale of the load (default 1)\n"
            "  --jobs J            parallel loading connections (default 2; SQLite loads with one)\n"
            "  --drop              drop existing TPC-C tables first\n"
            "  --vus N             virtual users: one connection and one terminal each (default 1)\n"
            "  --target URL ...    (run) repeat for several databases driven at once, in one measured\n"
            "                      window: --vus is split over them (remainder to the first ones)\n"
            "  --vus-per-target N  (run) with several targets: N virtual users on each\n"
            "  --targets A,B,...   (run) several --target in one option (a job file's targets=)\n"
            "  --duration T        measured window: 45s, 2m, 1h30m (default 1m)\n"
            "  --warmup T          warm-up before the window, not measured (default 0)\n"
            "  --txns-per-vu N     instead of a duration: each virtual user runs exactly N transactions\n"
            "  --mode MODE         sql: client-side statements (default); procedures: one stored\n"
            "                      procedure call per transaction (PostgreSQL, MariaDB/MySQL)\n"
            "  --isolation LEVEL   read-committed | repeatable-read | serializable (engine default)\n"
            "  --rate R            open loop: R transactions per second over all virtual users, each\n"
            "                      timed from its intended start (queueing counts)\n"
            "  --arrivals KIND     poisson (default) or uniform gaps between arrivals\n"
            "  --think-time        the standard's keying and think times (clause 5.2.5): terminals\n"
            "                      wait in a timer heap and --vus workers serve whichever is due;\n"
            "                      reports tpmC and each type's 90th percentile against its limit\n"
            "  --terminals-per-warehouse N   with --think-time (default 10)\n"
            "  --think-time-scale F          multiplies keying and think times (tests; no tpmC)\n"
            "  --warehouses N      (run, null: target only) the scale the null driver stands in for\n"
            "  --seed S            random seed (default: from the clock)\n"
            "  --label TEXT        a name for the run in the results database\n"
            "  --no-monitor        do not sample host CPU, disk, server process and engine cache each second\n"
            "  --monitor-device DEV  the block device to watch (a /proc/diskstats name, or none);\n"
            "                      default: the one holding the database\n"
            "  --results PATH      results database (default " DG_DEFAULT_RESULTS ")\n"
            "  --json              one JSON document on stdout; text goes to stderr\n"
            "memory (run):\n" DG_MEMORY_USAGE);
}

enum {
    O_TARGET = 1000, O_WAREHOUSES, O_JOBS, O_DROP, O_SEED, O_JSON, O_VUS, O_DURATION, O_WARMUP,
    O_TXNS, O_LABEL, O_RESULTS, O_ISOLATION, O_MODE, O_RATE, O_ARRIVALS, O_THINK,
    O_TPW, O_THINK_SCALE, O_NO_MONITOR, O_MONITOR_DEVICE, O_VUS_PER_TARGET, O_TARGETS, O_HELP, O_MEM_BASE = 1100
};

static const struct option long_opts[] = {
    {"target", required_argument, NULL, O_TARGET},
    {"warehouses", required_argument, NULL, O_WAREHOUSES},
    {"jobs", required_argument, NULL, O_JOBS},
    {"drop", no_argument, NULL, O_DROP},
    {"seed", required_argument, NULL, O_SEED},
    {"json", no_argument, NULL, O_JSON},
    {"vus", required_argument, NULL, O_VUS},
    {"duration", required_argument, NULL, O_DURATION},
    {"warmup", required_argument, NULL, O_WARMUP},
    {"txns-per-vu", required_argument, NULL, O_TXNS},
    {"label", required_argument, NULL, O_LABEL},
    {"results", required_argument, NULL, O_RESULTS},
    {"isolation", required_argument, NULL, O_ISOLATION},
    {"mode", required_argument, NULL, O_MODE},
    {"rate", required_argument, NULL, O_RATE},
    {"arrivals", required_argument, NULL, O_ARRIVALS},
    {"think-time", no_argument, NULL, O_THINK},
    {"terminals-per-warehouse", required_argument, NULL, O_TPW},
    {"think-time-scale", required_argument, NULL, O_THINK_SCALE},
    {"no-monitor", no_argument, NULL, O_NO_MONITOR},
    {"monitor-device", required_argument, NULL, O_MONITOR_DEVICE},
    {"vus-per-target", required_argument, NULL, O_VUS_PER_TARGET},
    {"targets", required_argument, NULL, O_TARGETS},
    {"help", no_argument, NULL, O_HELP},
    DG_MEMORY_LONG_OPTS(O_MEM_BASE),
    {NULL, 0, NULL, 0},
};

struct tpcc_opts {
    const char *sub;
    const char *target, *results, *label;
    int warehouses, jobs, drop, json, vus, help;
    dg_ns duration_ns, warmup_ns;
    int duration_set;
    uint64_t txns_per_vu, seed;
    int seed_set;
    enum dg_isolation isolation;
    enum tpcc_mode mode;
    enum dg_load_model model;
    double rate, think_scale;
    enum dg_arrivals arrivals;
    int terminals_per_w, tpw_set, warehouses_set;
    int no_monitor;
    const char *monitor_device;
    const char *targets[DG_MAX_TARGETS]; /* every --target, in order (target is the first) */
    int ntargets, vus_per_target, vus_set;
    char targets_list[8192]; /* --targets A,B,...: a copy, split in place; targets[] point in */
    int arrivals_set, scale_set, think;
    struct dg_memory_opts mem;
    struct dg_step *step; /* a step of an experiment, or NULL */
};

/* Which options each subcommand takes. */
static int allowed(const char *sub, int opt)
{
    if (opt == O_TARGET || opt == O_JSON || opt == O_HELP)
        return 1;
    if (!strcmp(sub, "load"))
        return opt == O_WAREHOUSES || opt == O_JOBS || opt == O_DROP || opt == O_SEED;
    if (!strcmp(sub, "run"))
        return opt == O_VUS || opt == O_DURATION || opt == O_WARMUP || opt == O_TXNS ||
               opt == O_SEED || opt == O_LABEL || opt == O_RESULTS || opt == O_ISOLATION || opt == O_MODE || opt == O_RATE ||
               opt == O_ARRIVALS || opt == O_THINK || opt == O_TPW || opt == O_THINK_SCALE ||
               opt == O_WAREHOUSES || opt == O_NO_MONITOR || opt == O_MONITOR_DEVICE ||
               opt == O_VUS_PER_TARGET || opt == O_TARGETS || opt >= O_MEM_BASE;
    return 0;
}

/* The defaults, as the command line starts from. */
static void init_opts(struct tpcc_opts *o, const char *sub)
{
    *o = (struct tpcc_opts){.sub = sub, .target = DG_DEFAULT_TARGET, .results = DG_DEFAULT_RESULTS,
                            .label = "", .warehouses = 1, .jobs = 2, .vus = 1,
                            .duration_ns = 60 * DG_NS_PER_S, .terminals_per_w = 10,
                            .think_scale = 1.0};
}

/* One option: the command line's getopt loop and a job file's key=value both come here. */
static int apply_opt(struct tpcc_opts *o, int c, const char *arg, struct dg_err *err)
{
    switch (c) {
    case O_TARGET:
        if (o->ntargets && strcmp(o->sub, "run"))
            return dg_err_set(err, DG_ERR_USER, 0, "--target given twice: 'tpcc %s' works on one target", o->sub);
        if (o->ntargets == DG_MAX_TARGETS)
            return dg_err_set(err, DG_ERR_USER, 0, "--target: at most %d targets", DG_MAX_TARGETS);
        o->targets[o->ntargets++] = arg;
        o->target = o->targets[0];
        return 0;
    case O_TARGETS: { /* a job file's targets=: several --target in one value */
        if (o->targets_list[0])
            return dg_err_set(err, DG_ERR_USER, 0, "--targets given twice");
        if (strlen(arg) >= sizeof o->targets_list)
            return dg_err_set(err, DG_ERR_USER, 0, "--targets: the list is longer than %zu characters",
                              sizeof o->targets_list - 1);
        snprintf(o->targets_list, sizeof o->targets_list, "%s", arg);
        for (char *p = o->targets_list, *next; p; p = next) {
            next = strchr(p, ',');
            if (next)
                *next++ = '\0';
            if (!*p)
                return dg_err_set(err, DG_ERR_USER, 0, "--targets: an empty target in '%s'", arg);
            if (apply_opt(o, O_TARGET, p, err))
                return -1;
        }
        return 0;
    }
    case O_VUS_PER_TARGET: return dg_parse_int("--vus-per-target", arg, 1, 4096, &o->vus_per_target, err);
    case O_NO_MONITOR: o->no_monitor = 1; return 0;
    case O_MONITOR_DEVICE: return dg_cmd_monitor_device_opt(arg, &o->monitor_device, err);
    case O_RESULTS: o->results = arg; return 0;
    case O_LABEL: o->label = arg; return 0;
    case O_DROP: o->drop = 1; return 0;
    case O_JSON: o->json = 1; return 0;
    case O_HELP: o->help = 1; return 0;
    case O_WAREHOUSES: o->warehouses_set = 1; return dg_parse_int("--warehouses", arg, 1, 100000, &o->warehouses, err);
    case O_RATE: return dg_parse_double("--rate", arg, 0, 1e7, &o->rate, err);
    case O_THINK: o->think = 1; return 0;
    case O_TPW: o->tpw_set = 1; return dg_parse_int("--terminals-per-warehouse", arg, 1, 1000, &o->terminals_per_w, err);
    case O_THINK_SCALE: o->scale_set = 1; return dg_parse_double("--think-time-scale", arg, 0, 1000, &o->think_scale, err);
    case O_ARRIVALS:
        o->arrivals_set = 1;
        if (!strcmp(arg, "poisson")) o->arrivals = DG_ARRIVALS_POISSON;
        else if (!strcmp(arg, "uniform")) o->arrivals = DG_ARRIVALS_UNIFORM;
        else return dg_err_set(err, DG_ERR_USER, 0, "--arrivals: '%s' is not poisson or uniform", arg);
        return 0;
    case O_JOBS: return dg_parse_int("--jobs", arg, 1, 64, &o->jobs, err);
    case O_VUS: o->vus_set = 1; return dg_parse_int("--vus", arg, 1, 4096, &o->vus, err);
    case O_SEED: o->seed_set = 1; return dg_parse_u64("--seed", arg, 0, UINT64_MAX, &o->seed, err);
    case O_DURATION: o->duration_set = 1; return dg_parse_duration("--duration", arg, &o->duration_ns, err);
    case O_WARMUP: return dg_parse_duration("--warmup", arg, &o->warmup_ns, err);
    case O_TXNS: return dg_parse_u64("--txns-per-vu", arg, 1, 1000000000ull, &o->txns_per_vu, err);
    case O_MODE:
        if (!strcmp(arg, "sql")) o->mode = TPCC_MODE_SQL;
        else if (!strcmp(arg, "procedures")) o->mode = TPCC_MODE_PROCEDURES;
        else return dg_err_set(err, DG_ERR_USER, 0, "--mode: '%s' is not sql or procedures", arg);
        return 0;
    case O_ISOLATION:
        if (!strcmp(arg, "read-committed")) o->isolation = DG_ISO_READ_COMMITTED;
        else if (!strcmp(arg, "repeatable-read")) o->isolation = DG_ISO_REPEATABLE_READ;
        else if (!strcmp(arg, "serializable")) o->isolation = DG_ISO_SERIALIZABLE;
        else return dg_err_set(err, DG_ERR_USER, 0, "--isolation: '%s' is not read-committed, repeatable-read or serializable", arg);
        return 0;
    default: return dg_memory_opt(&o->mem, c - O_MEM_BASE, arg, err);
    }
}

/* What only the whole set of options can tell. */
static int finish_opts(struct tpcc_opts *o, struct dg_err *err)
{
    if (o->txns_per_vu && (o->duration_set || o->warmup_ns))
        return dg_err_set(err, DG_ERR_USER, 0, "--txns-per-vu runs a fixed number of transactions: it does not "
                                               "go with --duration or --warmup");
    int has_rate = o->rate > 0, has_think = o->think;
    o->model = has_think ? DG_LOAD_THINK : has_rate ? DG_LOAD_RATE : DG_LOAD_CLOSED;
    if (has_rate && has_think)
        return dg_err_set(err, DG_ERR_USER, 0, "--rate and --think-time are two different load models: pick one");
    if (o->arrivals_set && !has_rate)
        return dg_err_set(err, DG_ERR_USER, 0, "--arrivals goes with --rate");
    if ((o->tpw_set || o->scale_set) && !has_think)
        return dg_err_set(err, DG_ERR_USER, 0, "--%s goes with --think-time",
                          o->tpw_set ? "terminals-per-warehouse" : "think-time-scale");
    if (!o->txns_per_vu && o->duration_ns == 0)
        return dg_err_set(err, DG_ERR_USER, 0, "--duration must be longer than 0");
    if (dg_memory_check(&o->mem, err))
        return -1;
    if (o->ntargets == 0)
        o->targets[o->ntargets++] = o->target;
    if (o->vus_per_target && o->vus_set)
        return dg_err_set(err, DG_ERR_USER, 0, "--vus and --vus-per-target: give one of them");
    if (o->vus_per_target && o->ntargets < 2)
        return dg_err_set(err, DG_ERR_USER, 0, "--vus-per-target goes with several --target options");
    if (o->ntargets > 1 && has_think)
        return dg_err_set(err, DG_ERR_USER, 0, "--think-time takes one --target (its terminals share one timer heap)");
    if (o->ntargets > 1 && (o->mem.db_memory || o->mem.mem_cap || o->mem.drop_caches))
        return dg_err_set(err, DG_ERR_USER, 0, "--db-memory, --mem-cap and --drop-caches take one --target");
    if (o->vus_per_target)
        o->vus = o->vus_per_target * o->ntargets;
    if (o->vus > 4096)
        return dg_err_set(err, DG_ERR_USER, 0, "--vus-per-target %d over %d targets: %d virtual users, more than 4096",
                          o->vus_per_target, o->ntargets, o->vus);
    if (!o->seed_set)
        o->seed = dg_mix64(dg_now_ns() ^ ((uint64_t)getpid() << 32));
    return 0;
}

static int parse(int argc, char **argv, struct tpcc_opts *o)
{
    char cmd[32];
    snprintf(cmd, sizeof cmd, "tpcc %s", o->sub);
    init_opts(o, o->sub);
    struct dg_err err;
    int c;
    optind = 1;
    int got;
    while ((got = dg_getopt(cmd, argc, argv, long_opts, O_HELP, allowed, o->sub, &c)) == 1)
        if (apply_opt(o, c, optarg, &err))
            return dg_usage_error(cmd, "%s", err.msg);
    if (got)
        return got;
    if (optind < argc)
        return dg_usage_error(cmd, "unexpected argument '%s' (see dbgauge tpcc --help)", argv[optind]);
    if (finish_opts(o, &err))
        return dg_usage_error(cmd, "%s", err.msg);
    return 0;
}

static int open_target(const char *cmd, const char *url, struct dg_target *t)
{
    struct dg_err err;
    if (dg_target_parse(url, t, &err))
        return dg_usage_error(cmd, "--target: %s", err.msg);
    return 0;
}

/* --- load --- */

struct load_view {
    int tty;
    double last_print;
};

static void load_progress(void *ctx, const struct tpcc_load_progress *p)
{
    struct load_view *v = ctx;
    if (p->elapsed_s - v->last_print < (v->tty ? 0.25 : 5.0) && p->warehouses_done < p->warehouses)
        return;
    v->last_print = p->elapsed_s;
    double rate = p->elapsed_s > 0 ? (double)p->rows / p->elapsed_s : 0;
    double expected = 500000.0 * p->warehouses + 100000.0;
    double eta = rate > 0 && expected > (double)p->rows ? (expected - (double)p->rows) / rate : 0;
    fprintf(stderr, "%sloading: %d/%d warehouses, %llu rows, %.0f rows/s, %.1f MB/s, ETA %.0f s%s",
            v->tty ? "\r" : "", p->warehouses_done, p->warehouses, (unsigned long long)p->rows, rate,
            p->elapsed_s > 0 ? (double)p->bytes / 1e6 / p->elapsed_s : 0, eta, v->tty ? "   " : "\n");
}

static int cmd_load(struct tpcc_opts *o)
{
    struct dg_target t;
    struct dg_err err;
    if (open_target("tpcc load", o->target, &t))
        return DG_EXIT_USAGE;
    struct load_view view = {.tty = isatty(2), .last_print = -1e9};
    struct tpcc_load_opts lo = {.target = &t, .warehouses = o->warehouses, .jobs = o->jobs,
                                .drop = o->drop, .seed = o->seed, .progress = load_progress,
                                .progress_ctx = &view};
    struct tpcc_load_result res;
    fprintf(stderr, "loading %d warehouse%s into %s\n", o->warehouses, o->warehouses == 1 ? "" : "s",
            t.redacted);
    int rc = tpcc_load(&lo, &res, &err);
    if (view.tty)
        fprintf(stderr, "\n");
    if (rc)
        return dg_report_err("tpcc load", &err);
    fprintf(stderr,
            "loaded %d warehouse%s: %llu rows, %.1f MB in %.2f s (%.0f rows/s, %.1f MB/s); data %.2f s, "
            "keys and indexes %.2f s, %d job%s\n",
            o->warehouses, o->warehouses == 1 ? "" : "s", (unsigned long long)res.rows,
            (double)res.bytes / 1e6, res.seconds, (double)res.rows / res.data_seconds,
            (double)res.bytes / 1e6 / res.data_seconds, res.data_seconds, res.index_seconds,
            res.jobs_used, res.jobs_used == 1 ? "" : "s");
    if (o->json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "schema_version", DG_JSON_SCHEMA_VERSION);
        cJSON_AddStringToObject(j, "target", t.redacted);
        cJSON_AddNumberToObject(j, "warehouses", o->warehouses);
        cJSON_AddNumberToObject(j, "jobs", res.jobs_used);
        cJSON_AddNumberToObject(j, "rows", (double)res.rows);
        cJSON_AddNumberToObject(j, "bytes", (double)res.bytes);
        cJSON_AddNumberToObject(j, "seconds", res.seconds);
        cJSON_AddNumberToObject(j, "data_seconds", res.data_seconds);
        cJSON_AddNumberToObject(j, "index_seconds", res.index_seconds);
        cJSON_AddNumberToObject(j, "rows_per_s", (double)res.rows / res.data_seconds);
        cJSON_AddNumberToObject(j, "mb_per_s", (double)res.bytes / 1e6 / res.data_seconds);
        dg_print_json(j);
    }
    return DG_EXIT_OK;
}

/* --- check --- */

static int cmd_check(struct tpcc_opts *o)
{
    struct dg_target t;
    struct dg_err err;
    struct dg_conn_h h;
    if (open_target("tpcc check", o->target, &t))
        return DG_EXIT_USAGE;
    if (dg_connect(&t, NULL, &h, &err))
        return dg_report_err("tpcc check", &err);
    struct tpcc_check_result *res = malloc(sizeof *res);
    if (!res) {
        dg_disconnect(&h);
        return DG_EXIT_FAILED;
    }
    int rc = tpcc_check(&h, res, &err);
    dg_disconnect(&h);
    if (rc) {
        free(res);
        return dg_report_err("tpcc check", &err);
    }
    FILE *out = o->json ? stderr : stdout;
    fprintf(out, "TPC-C check of %s: %d warehouse%s\n", t.redacted, res->warehouses,
            res->warehouses == 1 ? "" : "s");
    for (int i = 0; i < res->n; i++) {
        const struct tpcc_check_item *it = &res->items[i];
        fprintf(out, "  %-5s %-16s %-66s %s\n",
                !it->applicable ? "n/a" : it->pass ? "ok" : "FAIL", it->name, it->what, it->detail);
    }
    fprintf(out, "%s: %d of %d conditions failed\n", res->failed ? "FAILED" : "passed", res->failed,
            res->n);
    if (o->json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "schema_version", DG_JSON_SCHEMA_VERSION);
        cJSON_AddStringToObject(j, "target", t.redacted);
        cJSON_AddNumberToObject(j, "warehouses", res->warehouses);
        cJSON_AddBoolToObject(j, "pass", res->failed == 0);
        cJSON *arr = cJSON_AddArrayToObject(j, "conditions");
        for (int i = 0; i < res->n; i++) {
            const struct tpcc_check_item *it = &res->items[i];
            cJSON *c = cJSON_CreateObject();
            cJSON_AddStringToObject(c, "name", it->name);
            cJSON_AddStringToObject(c, "what", it->what);
            cJSON_AddBoolToObject(c, "applicable", it->applicable);
            cJSON_AddBoolToObject(c, "pass", it->pass || !it->applicable);
            cJSON_AddStringToObject(c, "detail", it->detail);
            cJSON_AddItemToArray(arr, c);
        }
        dg_print_json(j);
    }
    int failed = res->failed;
    free(res);
    return failed ? DG_EXIT_FAILED : DG_EXIT_OK;
}

/* --- run --- */

struct run_view {
    int json;
};

static void run_tick(void *ctx, const struct dg_tick *t)
{
    (void)ctx;
    uint64_t all = 0;
    for (int k = 0; k < t->ntypes; k++)
        all += t->interval[k].committed;
    double per_min = t->interval_s > 0 ? 60.0 / t->interval_s : 0;
    uint64_t errors = 0, retries = 0;
    for (int k = 0; k < t->ntypes; k++) {
        errors += t->total[k].errors;
        retries += t->total[k].retries;
    }
    fprintf(stderr, "[%6.0fs] %-8s TPM %9.0f  NOPM %9.0f  retries %llu  errors %llu\n", t->elapsed_s,
            dg_phase_name(t->phase), (double)all * per_min,
            (double)t->interval[TPCC_NEW_ORDER].committed * per_min, (unsigned long long)retries,
            (unsigned long long)errors);
}

static char *options_json(const struct tpcc_opts *o, const struct dg_target *const *ts, int n)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "target", ts[0]->redacted);
    if (n > 1) {
        cJSON *arr = cJSON_AddArrayToObject(j, "targets");
        for (int k = 0; k < n; k++)
            cJSON_AddItemToArray(arr, cJSON_CreateString(ts[k]->redacted));
        if (o->vus_per_target)
            cJSON_AddNumberToObject(j, "vus_per_target", o->vus_per_target);
    }
    cJSON_AddNumberToObject(j, "vus", o->vus);
    if (o->txns_per_vu)
        cJSON_AddNumberToObject(j, "txns_per_vu", (double)o->txns_per_vu);
    else {
        cJSON_AddNumberToObject(j, "duration_s", (double)o->duration_ns / 1e9);
        cJSON_AddNumberToObject(j, "warmup_s", (double)o->warmup_ns / 1e9);
    }
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    cJSON_AddStringToObject(j, "seed", seed);
    cJSON_AddStringToObject(j, "isolation", dg_isolation_name(o->isolation));
    cJSON_AddStringToObject(j, "mode", o->mode == TPCC_MODE_PROCEDURES ? "procedures" : "sql");
    cJSON_AddStringToObject(j, "label", o->label);
    cJSON_AddStringToObject(j, "load_model", dg_load_model_name(o->model));
    if (o->model == DG_LOAD_RATE) {
        cJSON_AddNumberToObject(j, "rate", o->rate);
        cJSON_AddStringToObject(j, "arrivals", o->arrivals == DG_ARRIVALS_UNIFORM ? "uniform" : "poisson");
    }
    if (o->model == DG_LOAD_THINK) {
        cJSON_AddNumberToObject(j, "terminals_per_warehouse", o->terminals_per_w);
        cJSON_AddNumberToObject(j, "think_time_scale", o->think_scale);
    }
    if (o->warehouses_set)
        cJSON_AddNumberToObject(j, "warehouses", o->warehouses);
    cJSON_AddBoolToObject(j, "monitor", !o->no_monitor);
    if (o->monitor_device)
        cJSON_AddStringToObject(j, "monitor_device", o->monitor_device);
    dg_memory_options_json(&o->mem, j);
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return s;
}

/* One target of a run, made ready before measuring. */
struct run_target {
    struct dg_target t;
    struct dg_server_info si;
    struct tpcc_shared sh;
};

/* Reports a failure to get target k of n ready, naming it when there are several. */
static int target_err(const char *cmd, int k, int n, const struct run_target *rt, const struct dg_err *err)
{
    if (n == 1)
        return dg_report_err(cmd, err);
    fprintf(stderr, "dbgauge %s: target %d (%s) is not ready: %s\n", cmd, k + 1, rt->t.redacted, err->msg);
    return err->cls == DG_ERR_USER ? DG_EXIT_USAGE : DG_EXIT_FAILED;
}

/* Before measuring: the target answers, the tables are there, the constants are known.
 * On failure err says why (an experiment's step keeps it). */
static int prepare_target(const struct tpcc_opts *o, const char *cmd, int k, struct run_target *rt,
                          struct dg_rng *rng, uint64_t session_memory_bytes, struct dg_err *err)
{
    struct dg_conn_h h = {0};
    struct tpcc_nurand c_load;
    if (open_target(cmd, o->targets[k], &rt->t))
        return DG_EXIT_USAGE;
    rt->sh = (struct tpcc_shared){.dialect = rt->t.drv->dialect, .isolation = o->isolation, .mode = o->mode};
    struct dg_connect_opts co = {.memory_bytes = session_memory_bytes};
    if (dg_connect(&rt->t, &co, &h, err) || tpcc_schema_probe(&h, &rt->sh.warehouses, err) ||
        rt->t.drv->server_info(h.c, &rt->si, err) ||
        (o->mode == TPCC_MODE_PROCEDURES && tpcc_procedures_ensure(&h, err))) {
        dg_disconnect(&h);
        return target_err(cmd, k, o->ntargets, rt, err);
    }
    if (!tpcc_meta_read(&h, &c_load, err)) { /* loaded by another kit: any valid constants */
        c_load.c_last = (int)dg_rng_range(rng, 0, 255);
        c_load.c_id = (int)dg_rng_range(rng, 0, 1023);
        c_load.ol_i_id = (int)dg_rng_range(rng, 0, 8191);
    }
    rt->sh.dialect = dg_conn_dialect(&h);
    rt->sh.c_run = c_load;
    rt->sh.c_run.c_last = tpcc_c_last_run(rng, c_load.c_last);
    dg_disconnect(&h);
    if (o->warehouses_set) {
        if (rt->sh.dialect != DG_DIALECT_NONE)
            return dg_usage_error(cmd, "--warehouses on 'tpcc run' is for the null: target only; "
                                       "a database's scale is read from it (%d in %s)",
                                  rt->sh.warehouses, rt->t.redacted);
        rt->sh.warehouses = o->warehouses;
    }
    return 0;
}

static int cmd_run(struct tpcc_opts *o, int argc, char **argv)
{
    const char *cmd = "tpcc run";
    struct dg_err err;
    struct dg_store *store = NULL;
    struct dg_run_result res = {0};
    struct dg_run_record rec;
    struct dg_memory_state mst = {0};
    memset(&rec, 0, sizeof rec);
    struct dg_cmd_monitor mon = {.enabled = !o->no_monitor, .device_opt = o->monitor_device};
    err.msg[0] = '\0';
    int rc = DG_EXIT_FAILED, n = o->ntargets;
    int split[DG_MAX_TARGETS];
    const struct dg_target *tptr[DG_MAX_TARGETS];
    void *shptr[DG_MAX_TARGETS];
    struct dg_target_src tsrc[DG_MAX_TARGETS];
    if (dg_targets_split(cmd, n, o->vus, o->vus_per_target, split))
        return DG_EXIT_USAGE;
    struct run_target *rts = calloc((size_t)n, sizeof *rts);
    if (!rts)
        return DG_EXIT_FAILED;
    /* The memory knob first (one target only): what the run records is the engine after it. */
    if (open_target(cmd, o->targets[0], &rts[0].t)) {
        rc = DG_EXIT_USAGE;
        goto out;
    }
    if (dg_memory_apply(&rts[0].t, &o->mem, &mst, &err)) {
        rc = dg_report_err(cmd, &err);
        goto out;
    }
    struct dg_rng rng;
    dg_rng_seed(&rng, o->seed);
    for (int k = 0; k < n; k++) /* every target must be ready before anything is measured */
        if ((rc = prepare_target(o, cmd, k, &rts[k], &rng, mst.session_bytes, &err)))
            goto out;
    rc = DG_EXIT_FAILED;
    if (dg_store_open(o->results, &store, &err)) {
        rc = dg_report_err(cmd, &err);
        goto out;
    }
    const struct dg_target *t = &rts[0].t;
    const struct dg_server_info *si = &rts[0].si;
    int warehouses = 0;
    for (int k = 0; k < n; k++) {
        tptr[k] = &rts[k].t;
        shptr[k] = &rts[k].sh;
        tsrc[k] = (struct dg_target_src){.target = &rts[k].t, .server = &rts[k].si,
                                         .warehouses = rts[k].sh.warehouses};
        warehouses += rts[k].sh.warehouses;
    }
    int terminals = o->model == DG_LOAD_THINK ? warehouses * o->terminals_per_w : o->vus;

    FILE *text = o->step ? o->step->text : o->json ? stderr : stdout;
    for (int k = 0; k < n; k++)
        fprintf(stderr, "TPC-C on %s (%s %s): %d warehouse%s, %d virtual user%s%s", rts[k].t.redacted,
                rts[k].si.engine, rts[k].si.version, rts[k].sh.warehouses,
                rts[k].sh.warehouses == 1 ? "" : "s", split[k], split[k] == 1 ? "" : "s",
                n > 1 ? "\n" : ", ");
    if (n > 1)
        fprintf(stderr, "%d targets at once, %d virtual users in all, ", n, o->vus);
    if (o->model == DG_LOAD_RATE)
        fprintf(stderr, "open loop at %g/s (%s arrivals), ", o->rate,
                o->arrivals == DG_ARRIVALS_UNIFORM ? "uniform" : "poisson");
    if (o->model == DG_LOAD_THINK)
        fprintf(stderr, "%d terminals with keying and think times%s, ", terminals,
                o->think_scale != 1.0 ? " (scaled)" : "");
    if (o->txns_per_vu)
        fprintf(stderr, "%llu transactions each\n", (unsigned long long)o->txns_per_vu);
    else {
        char d[32], w[32];
        dg_format_duration(o->duration_ns, d, sizeof d);
        dg_format_duration(o->warmup_ns, w, sizeof w);
        fprintf(stderr, "%s warm-up then %s measured\n", w, d);
    }

    struct run_view view = {o->json};
    struct dg_runner_cfg cfg = {.model = o->model, .rate_per_s = o->rate, .arrivals = o->arrivals,
                                .terminals = terminals, .think_scale = o->think_scale,
                                .wl = &tpcc_workload, .shared = &rts[0].sh, .target = t,
                                .workers = o->vus, .warmup_ns = o->warmup_ns,
                                .duration_ns = o->txns_per_vu ? 0 : o->duration_ns,
                                .txns_per_worker = o->txns_per_vu, .seed = o->seed,
                                .max_retries = 100, .tick_ns = 10 * DG_NS_PER_S, .tick = run_tick,
                                .tick_ctx = &view, .session_memory_bytes = mst.session_bytes};
    if (n > 1) {
        cfg.ntargets = n;
        cfg.targets = tptr;
        cfg.shareds = shptr;
        cfg.target_workers = split;
    }
    /* The monitor watches the first target's host and device; its cache counters add up
     * every worker's connection. */
    if (dg_cmd_monitor_begin(&mon, t, o->vus, &cfg, &err)) /* the run goes on without it */
        fprintf(stderr, "dbgauge %s: monitor: %s; running without it\n", cmd, err.msg);
    if (dg_runner_run(&cfg, &res, &err)) {
        rc = dg_report_err(cmd, &err);
        goto out;
    }

    /* The record, as it will be stored. */
    struct dg_record_src src = {.workload = "tpcc", .label = o->label, .target = t, .server = si,
                                .options_json = options_json(o, tptr, n), .argc = argc, .argv = argv,
                                .vus = o->vus, .model = o->model, .step = o->step,
                                .knobs_json = mst.json};
    dg_record_fill(&rec, &src, &res, tpcc_workload.type_names);
    dg_cmd_monitor_end(&mon, &rec);
    rec.warehouses = warehouses;
    /* The workload's figures (core/figures.h); tpmC only where the standard's times were kept. */
    struct dg_fig_run fr = {.measured_s = res.measured_s,
                            .standard_times = o->model == DG_LOAD_THINK && o->think_scale == 1.0};
    rec.nfigures = dg_figures_derive(tpcc_workload.figures, tpcc_workload.nfigures, res.counts, res.ntypes,
                                     &fr, rec.figures);
    if (n > 1 && dg_record_fill_targets(&rec, tsrc, n, &res, &tpcc_workload, &fr)) {
        fprintf(stderr, "dbgauge %s: out of memory\n", cmd);
        goto out;
    }
    rec.rate_asked = o->model == DG_LOAD_RATE ? o->rate : 0;
    rec.think_scale = o->model == DG_LOAD_THINK ? o->think_scale : 0;
    rec.terminals = terminals;
    uint64_t committed = 0;
    for (int k = 0; k < res.ntypes; k++) {
        if (o->model == DG_LOAD_THINK)
            rec.txn[k].p90_limit_ms = tpcc_p90_limit_s[k] * 1e3;
        committed += rec.txn[k].committed;
    }
    if (o->model == DG_LOAD_THINK)
        rec.tpmc_ceiling = TPCC_TPMC_CEILING_PER_W / 10.0 * terminals / o->think_scale;
    if (dg_store_put(store, &rec, &err)) {
        /* Say what was measured even though it could not be kept. */
        fprintf(stderr, "dbgauge %s: %s; the run's figures follow, unsaved\n", cmd, err.msg);
        dg_report_run_text(text, &rec);
        goto out;
    }
    /* Rendered from the store, as any later report will be. */
    int64_t id = rec.id;
    if (o->step)
        o->step->run_id = id;
    dg_run_record_free(&rec);
    if (dg_store_get(store, id, 0, &rec, &err)) {
        rc = dg_report_err(cmd, &err);
        goto out;
    }
    dg_report_run_text(text, &rec);
    if (o->json && !o->step)
        dg_print_json(dg_report_run_json(&rec));
    if (res.interrupted)
        fprintf(stderr, "dbgauge %s: interrupted; what was measured is stored as run %lld, marked incomplete\n",
                cmd, (long long)id);
    if (res.workers_failed)
        fprintf(stderr, "dbgauge %s: %d virtual user%s stopped on errors\n", cmd, res.workers_failed,
                res.workers_failed == 1 ? "" : "s");
    rc = res.interrupted || res.workers_failed || committed == 0 ? DG_EXIT_FAILED : DG_EXIT_OK;
    if (rc && o->step)
        snprintf(o->step->error, sizeof o->step->error, "%s",
                 res.first_error[0] ? res.first_error : res.interrupted ? "interrupted" : "no transaction committed");
out:
    if (rc && o->step && !o->step->error[0])
        snprintf(o->step->error, sizeof o->step->error, "%s", err.msg[0] ? err.msg : "failed before measuring");
    dg_cmd_monitor_end(&mon, NULL);
    dg_memory_release(&mst);
    free(rts);
    dg_run_record_free(&rec);
    dg_run_result_free(&res);
    dg_store_close(store);
    return rc;
}

/* dbgauge tpcc sql DIALECT: prints the SQL TPC-C would send (no connection). */
static int cmd_sql(int argc, char **argv)
{
    static const struct {
        const char *name;
        enum dg_dialect d;
    } names[] = {{"sqlite", DG_DIALECT_SQLITE}, {"pgsql", DG_DIALECT_PGSQL},
                 {"mysql", DG_DIALECT_MYSQL}, {"mssql", DG_DIALECT_MSSQL}};
    for (size_t i = 0; argc == 2 && i < sizeof names / sizeof *names; i++)
        if (!strcmp(argv[1], names[i].name))
            return tpcc_dump_sql(names[i].d, stdout) ? DG_EXIT_FAILED : DG_EXIT_OK;
    return dg_usage_error("tpcc sql", "expected one dialect: sqlite, pgsql, mysql or mssql");
}

int dg_cmd_tpcc(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        tpcc_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? DG_EXIT_USAGE : DG_EXIT_OK;
    }
    struct tpcc_opts o = {.sub = argv[1]};
    if (!strcmp(o.sub, "sql")) /* for developers, not in the help: tests/golden */
        return cmd_sql(argc - 1, argv + 1);
    if (strcmp(o.sub, "load") && strcmp(o.sub, "run") && strcmp(o.sub, "check"))
        return dg_usage_error("tpcc", "unknown subcommand '%s' (load, run or check)", o.sub);
    int rc = parse(argc - 1, argv + 1, &o);
    if (rc)
        return rc;
    if (o.help) {
        tpcc_usage(stdout);
        return DG_EXIT_OK;
    }
    if (!strcmp(o.sub, "load"))
        return cmd_load(&o);
    if (!strcmp(o.sub, "check"))
        return cmd_check(&o);
    return cmd_run(&o, argc + 1, argv - 1);
}

/* ---- as a step of an experiment ---- */

static void *new_run_opts(void)
{
    struct tpcc_opts *o = malloc(sizeof *o);
    if (o)
        init_opts(o, "run");
    return o;
}

static int apply_v(void *o, int c, const char *arg, struct dg_err *err) { return apply_opt(o, c, arg, err); }
static int finish_v(void *o, struct dg_err *err) { return finish_opts(o, err); }

static int run_step(void *v, struct dg_step *step, int argc, char **argv)
{
    struct tpcc_opts *o = v;
    o->step = step;
    return cmd_run(o, argc, argv);
}

const struct dg_wl_cmd dg_tpcc_run_cmd = {
    .workload = "tpcc", .sub = "run", .opts = long_opts, .allowed = allowed,
    .new_opts = new_run_opts, .apply = apply_v, .finish = finish_v, .run = run_step,
};
