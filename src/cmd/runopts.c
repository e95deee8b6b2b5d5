/* runopts.c — the common run options, one table for every workload (targets, virtual users,
 * duration, load model, seed, label, results, monitor, memory), their defaults and the checks
 * only the whole set can make. No workload option and no workload name here. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd/cmd.h"
#include "core/opts.h"
#include "core/progress.h"
#include "core/rng.h"
#include "core/urlq.h"
#include "live/server.h"

#define OFF(f) offsetof(struct dg_run_opts, f)

/* url as target k, of cluster `cluster` (0: a database of its own). */
static int add_target(struct dg_run_opts *c, const char *url, int cluster, struct dg_err *err)
{
    if (c->ntargets == DG_MAX_TARGETS)
        return dg_err_set(err, DG_ERR_USER, 0, "%s: at most %d targets (every node of a --cluster counts)",
                          cluster ? "--cluster" : "--target", DG_MAX_TARGETS);
    c->target_cluster[c->ntargets] = cluster;
    c->targets[c->ntargets++] = url;
    c->target = c->targets[0];
    return 0;
}

static int parse_target(void *base, const struct dg_opt *o, const char *arg, struct dg_err *err)
{
    (void)o;
    return add_target(base, arg, 0, err);
}

/* A job file's repeatable key: its lines joined with '\n' are copied and each one parsed by
 * o's own parser. Returns 1 when arg was such lines (done, or -1 with err), 0 for one value. */
static int parse_lines(void *base, const struct dg_opt *o, const char *arg, struct dg_err *err)
{
    struct dg_run_opts *c = base;
    if (!strchr(arg, '\n'))
        return 0;
    size_t n = strlen(arg) + 1;
    char *copy = c->fault_lines + c->fault_lines_used;
    if (c->fault_lines_used + n > sizeof c->fault_lines)
        return dg_err_set(err, DG_ERR_USER, 0, "%s=: the lines are longer than %zu characters in all", o->name,
                          sizeof c->fault_lines - 1);
    memcpy(copy, arg, n);
    c->fault_lines_used += n;
    for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if (o->parse(base, o, line, err))
            return -1;
    return 1;
}

/* --cluster URL: one target per host of URL, each a single-host URL with the same user,
 * database and parameters, all of cluster c->nclusters + 1. */
static int parse_cluster(void *base, const struct dg_opt *o, const char *arg, struct dg_err *err)
{
    struct dg_run_opts *c = base;
    int lines = parse_lines(base, o, arg, err);
    if (lines)
        return lines < 0 ? -1 : 0;
    struct dg_target t;
    struct dg_url_host hosts[DG_URL_MAX_HOSTS];
    struct dg_err e;
    if (dg_target_parse(arg, &t, &e))
        return dg_err_set(err, DG_ERR_USER, 0, "--cluster: %.900s", e.msg);
    if (!(dg_driver_caps(t.drv) & DG_CAP_CLUSTER))
        return dg_err_set(err, DG_ERR_USER, 0, "--cluster %.900s: engine %s has no multi-primary cluster "
                          "(--cluster takes mysql://user@host1:port1,host2:port2,.../db, the nodes of one Galera "
                          "cluster)", t.redacted, dg_driver_name(t.drv));
    int n = dg_url_hosts(arg, t.redacted, hosts, DG_URL_MAX_HOSTS, &e);
    if (n < 0)
        return dg_err_set(err, DG_ERR_USER, 0, "--cluster: %.900s", e.msg);
    if (n < 2)
        return dg_err_set(err, DG_ERR_USER, 0, "--cluster %.900s: names %s host: give every node, "
                          "mysql://user@host1:port1,host2:port2,.../db", t.redacted, n ? "one" : "no");
    int k = ++c->nclusters;
    c->cluster_text[k - 1] = arg;
    for (int i = 0; i < n; i++) {
        char *url = c->cluster_urls + c->cluster_urls_used;
        if (dg_url_one_host(arg, i, url, sizeof c->cluster_urls - c->cluster_urls_used))
            return dg_err_set(err, DG_ERR_USER, 0, "--cluster: the nodes' URLs are longer than %zu characters in all",
                              sizeof c->cluster_urls - 1);
        c->cluster_urls_used += strlen(url) + 1;
        if (add_target(c, url, k, err))
            return -1;
    }
    return 0;
}

/* A job file's targets=: several --target in one value. */
static int parse_targets(void *base, const struct dg_opt *o, const char *arg, struct dg_err *err)
{
    (void)o;
    struct dg_run_opts *c = base;
    if (c->targets_list[0])
        return dg_err_set(err, DG_ERR_USER, 0, "--targets given twice");
    if (strlen(arg) >= sizeof c->targets_list)
        return dg_err_set(err, DG_ERR_USER, 0, "--targets: the list is longer than %zu characters",
                          sizeof c->targets_list - 1);
    snprintf(c->targets_list, sizeof c->targets_list, "%s", arg);
    for (char *p = c->targets_list, *next; p; p = next) {
        next = strchr(p, ',');
        if (next)
            *next++ = '\0';
        if (!*p)
            return dg_err_set(err, DG_ERR_USER, 0, "--targets: an empty target in '%s'", DG_TEXT(arg));
        if (add_target(c, p, 0, err))
            return -1;
    }
    return 0;
}

/* --fault, or a job file's fault= lines joined with '\n'. The form is checked now, the offset
 * against the window once every option is in. */
static int parse_fault(void *base, const struct dg_opt *o, const char *arg, struct dg_err *err)
{
    struct dg_run_opts *c = base;
    int lines = parse_lines(base, o, arg, err);
    if (lines)
        return lines < 0 ? -1 : 0;
    if (c->nfaults == DG_MAX_FAULTS)
        return dg_err_set(err, DG_ERR_USER, 0, "--fault: at most %d faults", DG_MAX_FAULTS);
    struct dg_fault_spec probe;
    if (dg_fault_parse(arg, 0, &probe, err))
        return -1;
    c->fault_text[c->nfaults++] = arg;
    return 0;
}

static void json_faults(const void *base, const struct dg_opt *o, cJSON *j)
{
    const struct dg_run_opts *c = base;
    if (!c->nfaults)
        return;
    cJSON *arr = cJSON_AddArrayToObject(j, o->json); /* as given, passwords redacted */
    for (int i = 0; i < c->nfaults; i++) {
        char red[sizeof c->faults[i].command + 64];
        dg_redact_command(c->fault_text[i], red, sizeof red);
        cJSON_AddItemToArray(arr, cJSON_CreateString(red));
    }
}

static int parse_read_target(void *base, const struct dg_opt *o, const char *arg, struct dg_err *err)
{
    (void)o;
    struct dg_target t;
    struct dg_err e;
    if (dg_target_parse(arg, &t, &e))
        return dg_err_set(err, DG_ERR_USER, 0, "--read-target: %s", e.msg);
    ((struct dg_run_opts *)base)->read_target = arg;
    return 0;
}

static void json_read_target(const void *base, const struct dg_opt *o, cJSON *j)
{
    const struct dg_run_opts *c = base;
    char red[1024];
    if (!c->read_target)
        return;
    dg_redact_url(c->read_target, red, sizeof red);
    cJSON_AddStringToObject(j, o->json, red);
}

static int parse_device(void *base, const struct dg_opt *o, const char *arg, struct dg_err *err)
{
    (void)o;
    return dg_cmd_monitor_device_opt(arg, &((struct dg_run_opts *)base)->monitor_device, err);
}

static int parse_live(void *base, const struct dg_opt *o, const char *arg, struct dg_err *err)
{
    (void)o;
    struct dg_live_addr a;
    if (dg_live_parse_addr(arg, &a, err)) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return dg_err_set(err, DG_ERR_USER, 0, "--live: %s", why);
    }
    ((struct dg_run_opts *)base)->live = arg;
    return 0;
}

static int parse_memory(void *base, const struct dg_opt *o, const char *arg, struct dg_err *err)
{
    return dg_memory_opt(&((struct dg_run_opts *)base)->mem, o->tag, arg, err);
}

static void json_targets(const void *base, const struct dg_opt *o, cJSON *j)
{
    (void)o;
    const struct dg_run_opts *c = base;
    char red[1024];
    dg_redact_url(c->ntargets ? c->targets[0] : c->target, red, sizeof red);
    cJSON_AddStringToObject(j, "target", red);
    if (c->ntargets > 1) {
        cJSON *arr = cJSON_AddArrayToObject(j, "targets");
        for (int k = 0; k < c->ntargets; k++) {
            dg_redact_url(c->targets[k], red, sizeof red);
            cJSON_AddItemToArray(arr, cJSON_CreateString(red));
        }
    }
}

static void json_clusters(const void *base, const struct dg_opt *o, cJSON *j)
{
    const struct dg_run_opts *c = base;
    if (!c->nclusters)
        return;
    cJSON *arr = cJSON_AddArrayToObject(j, o->json); /* as given, passwords redacted */
    for (int i = 0; i < c->nclusters; i++) {
        char red[1024];
        dg_redact_url(c->cluster_text[i], red, sizeof red);
        cJSON_AddItemToArray(arr, cJSON_CreateString(red));
    }
}

/* The window: a duration and warm-up, or a count of transactions per virtual user. */
static void json_window(const void *base, const struct dg_opt *o, cJSON *j)
{
    const struct dg_run_opts *c = base;
    if (!c->txns_per_vu)
        cJSON_AddNumberToObject(j, o->json, (double)*(const dg_ns *)((const char *)base + o->off) / 1e9);
}

static void json_seed(const void *base, const struct dg_opt *o, cJSON *j)
{
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)((const struct dg_run_opts *)base)->seed);
    cJSON_AddStringToObject(j, o->json, seed);
}

static void json_rate(const void *base, const struct dg_opt *o, cJSON *j)
{
    const struct dg_run_opts *c = base;
    if (c->model != DG_LOAD_RATE)
        return;
    cJSON_AddNumberToObject(j, o->json, c->rate);
    cJSON_AddStringToObject(j, "arrivals", c->arrivals == DG_ARRIVALS_UNIFORM ? "uniform" : "poisson");
}

static void json_monitor(const void *base, const struct dg_opt *o, cJSON *j)
{
    cJSON_AddBoolToObject(j, o->json, !((const struct dg_run_opts *)base)->no_monitor);
}

static void json_text_if_set(const void *base, const struct dg_opt *o, cJSON *j)
{
    const char *v = *(const char *const *)((const char *)base + o->off);
    if (v)
        cJSON_AddStringToObject(j, o->json, o->tag == DG_MEM_RESTART_CMD ? "restart_cmd (not recorded)" : v);
}

static void json_bytes_if_set(const void *base, const struct dg_opt *o, cJSON *j)
{
    uint64_t v = *(const uint64_t *)((const char *)base + o->off);
    if (v)
        cJSON_AddNumberToObject(j, o->json, (double)v);
}

static const char *const arrival_names[] = {"poisson", "uniform", NULL};
static const char *const audit_names[] = {"outage", "always", "never", NULL};

const struct dg_opt dg_run_optab[] = {
    {.name = "target", .metavar = "URL", .parse = parse_target, .json = "target", .json_fn = json_targets,
     .help = "sqlite:PATH (default " DG_DEFAULT_TARGET "), postgres://user@host:port/db,\n"
             "mysql://user@host:port/db (MariaDB/MySQL), odbc:CONNECTION-STRING; (run) repeat it\n"
             "for several databases driven at once: --vus is split over them"},
    {.name = "targets", .metavar = "A,B,...", .subs = "run", .parse = parse_targets,
     .help = "several --target in one option (a job file's targets=)"},
    {.name = "read-target", .metavar = "URL", .subs = "run", .parse = parse_read_target, .json = "read_target",
     .json_fn = json_read_target,
     .help = "a replica for the read-only transactions (TPC-C's Order-Status and\n"
             "Stock-Level), as HammerDB's connect pool sends them to a readable secondary"},
    {.name = "cluster", .metavar = "URL", .subs = "run", .flags = DG_OF_REPEAT, .parse = parse_cluster,
     .json = "clusters", .json_fn = json_clusters,
     .help = "the nodes of one multi-primary cluster (Galera),\n"
             "mysql://user@h1:p1,h2:p2,.../db: each node a target (virtual users\n"
             "spread over them, figures per node and in all) of one database, its\n"
             "scale counted once (repeatable; goes with --target)"},
    {.name = "sync-wait", .kind = DG_OPT_DURATION, .metavar = "T", .subs = "run", .off = OFF(sync_wait_ns),
     .help = "before anything reads a target, wait at most T (default 120s;\n"
             "0: not at all) for it to apply what it received (a Galera node\n"
             "catching up); then give up (exit 2) naming it"},
    {.name = "vus", .kind = DG_OPT_INT, .metavar = "N", .subs = "run", .flags = DG_OF_SWEEP | DG_OF_HAS_SET,
     .off = OFF(vus), .set_off = OFF(vus_set), .min = 1, .max = 4096, .json = "vus",
     .help = "virtual users: one connection and one terminal each (default 1)"},
    {.name = "vus-per-target", .kind = DG_OPT_INT, .metavar = "N", .subs = "run", .flags = DG_OF_SWEEP | DG_OF_IF_SET,
     .off = OFF(vus_per_target), .min = 1, .max = 4096, .json = "vus_per_target",
     .help = "with several targets: N virtual users on each"},
    {.name = "duration", .kind = DG_OPT_DURATION, .metavar = "T", .subs = "run", .flags = DG_OF_SWEEP | DG_OF_HAS_SET,
     .off = OFF(duration_ns), .set_off = OFF(duration_set), .json = "duration_s", .json_fn = json_window,
     .help = "measured window: 45s, 2m, 1h30m"},
    {.name = "warmup", .kind = DG_OPT_DURATION, .metavar = "T", .subs = "run", .flags = DG_OF_SWEEP,
     .off = OFF(warmup_ns), .json = "warmup_s", .json_fn = json_window,
     .help = "warm-up before the window, not measured (default 0)"},
    {.name = "txns-per-vu", .kind = DG_OPT_U64, .metavar = "N", .subs = "run", .flags = DG_OF_SWEEP | DG_OF_IF_SET,
     .off = OFF(txns_per_vu), .min = 1, .max = 1e9, .json = "txns_per_vu",
     .help = "instead of a duration: each virtual user runs exactly N transactions"},
    {.name = "rate", .kind = DG_OPT_DOUBLE, .metavar = "R", .subs = "run", .flags = DG_OF_SWEEP,
     .off = OFF(rate), .min = 0, .max = 1e7, .json = "rate", .json_fn = json_rate,
     .help = "open loop: R transactions per second over all virtual users, each\n"
             "timed from its intended start (queueing counts)"},
    {.name = "arrivals", .kind = DG_OPT_ENUM, .metavar = "KIND", .subs = "run", .flags = DG_OF_SWEEP | DG_OF_HAS_SET,
     .off = OFF(arrivals), .set_off = OFF(arrivals_set), .names = arrival_names,
     .help = "poisson (default) or uniform gaps between arrivals (with --rate)"},
    {.name = "seed", .kind = DG_OPT_U64, .metavar = "S", .subs = "run", .flags = DG_OF_SWEEP | DG_OF_HAS_SET,
     .off = OFF(seed), .set_off = OFF(seed_set), .min = 0, .max = 1.9e19, .json = "seed", .json_fn = json_seed,
     .help = "random seed (default: from the clock)"},
    {.name = "label", .kind = DG_OPT_STRING, .metavar = "TEXT", .subs = "run", .off = OFF(label), .json = "label",
     .help = "a name for the run in the results database"},
    {.name = "results", .kind = DG_OPT_STRING, .metavar = "PATH", .subs = "run", .flags = DG_OF_CLI_ONLY,
     .off = OFF(results), .help = "results database (default " DG_DEFAULT_RESULTS ")"},
    {.name = "json", .kind = DG_OPT_FLAG, .flags = DG_OF_CLI_ONLY, .off = OFF(json),
     .help = "one JSON document on stdout; text goes to stderr"},
    {.name = "progress", .kind = DG_OPT_ENUM, .metavar = "WHEN", .subs = "run", .flags = DG_OF_CLI_ONLY,
     .off = OFF(progress), .names = dg_progress_mode_names,
     .help = "auto (default): on a terminal one status line redrawn each second, else\n"
             "a line every 10 s; line: a line every 10 s always; none: no progress"},
    {.name = "quiet", .kind = DG_OPT_FLAG, .subs = "run", .flags = DG_OF_CLI_ONLY, .off = OFF(quiet),
     .help = "no progress and no informational lines: errors and the result only"},
    {.name = "no-monitor", .kind = DG_OPT_FLAG, .subs = "run", .flags = DG_OF_SWEEP, .off = OFF(no_monitor),
     .json = "monitor", .json_fn = json_monitor,
     .help = "do not sample host CPU, disk, server process and engine cache each second"},
    {.name = "monitor-device", .metavar = "DEV", .subs = "run", .off = OFF(monitor_device), .parse = parse_device,
     .json = "monitor_device", .json_fn = json_text_if_set,
     .help = "the block device to watch (a /proc/diskstats name, or none);\n"
             "default: the one holding the database"},
    {.name = "db-memory", .metavar = "SIZE", .subs = "run", .flags = DG_OF_SWEEP, .off = OFF(mem.db_memory),
     .tag = DG_MEM_DB_MEMORY, .parse = parse_memory, .json = "db_memory_bytes", .json_fn = json_bytes_if_set,
     .help = "the engine's cache before the run: SQLite cache_size on every\n"
             "connection; PostgreSQL shared_buffers (ALTER SYSTEM, then a restart\n"
             "through --restart-cmd or --pg-datadir); MariaDB/MySQL\n"
             "innodb_buffer_pool_size (SET GLOBAL, at once; needs SUPER)"},
    {.name = "restart-cmd", .metavar = "CMD", .subs = "run", .off = OFF(mem.restart_cmd), .tag = DG_MEM_RESTART_CMD,
     .parse = parse_memory, .json = "restart", .json_fn = json_text_if_set,
     .help = "restarts the server (/bin/sh -c; never logged nor stored)"},
    {.name = "pg-datadir", .metavar = "DIR", .subs = "run", .off = OFF(mem.pg_datadir), .tag = DG_MEM_PG_DATADIR,
     .parse = parse_memory, .json = "pg_datadir", .json_fn = json_text_if_set,
     .help = "a local PostgreSQL dbgauge restarts itself (pg_ctl restart -w -D DIR,\n"
             "as the directory's owner when root)"},
    {.name = "pg-ctl", .metavar = "PATH", .subs = "run", .off = OFF(mem.pg_ctl), .tag = DG_MEM_PG_CTL,
     .parse = parse_memory, .help = "pg_ctl to use (default /usr/lib/postgresql/15/bin/pg_ctl)"},
    {.name = "mem-cap", .metavar = "SIZE", .subs = "run", .flags = DG_OF_SWEEP, .off = OFF(mem.mem_cap),
     .tag = DG_MEM_MEM_CAP, .parse = parse_memory, .json = "mem_cap_bytes", .json_fn = json_bytes_if_set,
     .help = "a memory cgroup limit for dbgauge (SQLite) or the local server"},
    {.name = "fault", .metavar = "OFFSET:CMD", .subs = "run", .flags = DG_OF_REPEAT, .parse = parse_fault, .json = "faults",
     .json_fn = json_faults,
     .help = "run CMD (/bin/sh -c) OFFSET into the measured window: stop a server,\n"
             "promote a standby... (repeatable; stored with passwords redacted)"},
    {.name = "reconnect-timeout", .kind = DG_OPT_DURATION, .metavar = "T", .subs = "run", .flags = DG_OF_IF_SET,
     .off = OFF(reconnect_timeout_ns), .json = "reconnect_timeout_s",
     .help = "a virtual user that lost its connection gives up after seeking it T\n"
             "(default: for the rest of the run)"},
    {.name = "checkpoint-every", .kind = DG_OPT_DURATION, .metavar = "T", .subs = "run", .off = OFF(checkpoint_ns),
     .json = "checkpoint_every_s",
     .help = "keep what the run has measured so far in the results database every T\n"
             "(default 10s; 0: only at the end), so a run killed outright reads back\n"
             "as lost with its seconds up to then"},
    {.name = "latency-limit", .kind = DG_OPT_DURATION, .metavar = "T", .subs = "run", .flags = DG_OF_IF_SET,
     .off = OFF(latency_limit_ns), .json = "latency_limit_s",
     .help = "with --rate: skip (and count) arrivals that would start more than T late"},
    {.name = "no-audit-log", .kind = DG_OPT_FLAG, .subs = "run", .flags = DG_OF_IF_SET, .off = OFF(no_audit_log),
     .json = "no_audit_log",
     .help = "keep no record of the acknowledged writes (tpcc audit then has none to check;\n"
             "saves 32 bytes of memory per transaction)"},
    {.name = "audit", .kind = DG_OPT_ENUM, .metavar = "WHEN", .subs = "run", .off = OFF(audit_when),
     .names = audit_names, .json = "audit",
     .help = "check after the run that every acknowledged write is in the database\n"
             "(the failover's RPO): outage (default: when the run had one), always, never"},
    {.name = "live", .metavar = "[ADDR:]PORT", .subs = "run", .flags = DG_OF_CLI_ONLY, .parse = parse_live,
     .help = "serve the run while it goes on: a live page of its charts (/), OpenMetrics\n"
             "for Prometheus (/metrics) and its JSON (/api/run); ADDR defaults to\n"
             "127.0.0.1 (give another to be reached from other hosts)"},
    {.name = "drop-caches", .kind = DG_OPT_FLAG, .subs = "run", .flags = DG_OF_SWEEP | DG_OF_IF_SET,
     .off = OFF(mem.drop_caches), .json = "drop_caches",
     .help = "empty the kernel's page cache before the run (root only)"},
};
const int dg_run_noptab = sizeof dg_run_optab / sizeof *dg_run_optab;

void dg_run_opts_init(struct dg_run_opts *c)
{
    memset(c, 0, sizeof *c);
    c->target = DG_DEFAULT_TARGET;
    c->results = DG_DEFAULT_RESULTS;
    c->label = "";
    c->vus = 1;
    c->duration_ns = 60 * DG_NS_PER_S;
    c->think_scale = 1.0;
    c->sync_wait_ns = 120 * DG_NS_PER_S;
    c->checkpoint_ns = DG_CHECKPOINT_NS;
}

/* The window and the load model of a run. */
static int finish_window(struct dg_run_opts *c, struct dg_err *err)
{
    if (c->txns_per_vu && (c->duration_set || c->warmup_ns))
        return dg_err_set(err, DG_ERR_USER, 0, "--txns-per-vu runs a fixed number of transactions: it does not "
                                               "go with --duration or --warmup");
    if (c->model != DG_LOAD_THINK)
        c->model = c->rate > 0 ? DG_LOAD_RATE : DG_LOAD_CLOSED;
    if (c->arrivals_set && c->model != DG_LOAD_RATE)
        return dg_err_set(err, DG_ERR_USER, 0, "--arrivals goes with --rate");
    if (!c->txns_per_vu && c->duration_ns == 0)
        return dg_err_set(err, DG_ERR_USER, 0, "--duration must be longer than 0");
    if (c->latency_limit_ns && c->model != DG_LOAD_RATE)
        return dg_err_set(err, DG_ERR_USER, 0, "--latency-limit goes with --rate");
    for (int i = 0; i < c->nfaults; i++)
        if (dg_fault_parse(c->fault_text[i], c->txns_per_vu ? 0 : c->duration_ns, &c->faults[i], err))
            return -1;
    return dg_memory_check(&c->mem, err);
}

/* Several targets and the virtual users over them. */
static int finish_targets(struct dg_run_opts *c, struct dg_err *err)
{
    if (c->vus_per_target && c->vus_set)
        return dg_err_set(err, DG_ERR_USER, 0, "--vus and --vus-per-target: give one of them");
    if (c->vus_per_target && c->ntargets < 2)
        return dg_err_set(err, DG_ERR_USER, 0, "--vus-per-target goes with several --target options");
    if (c->ntargets > 1 && c->model == DG_LOAD_THINK)
        return dg_err_set(err, DG_ERR_USER, 0, "--think-time takes one --target (its terminals share one timer heap)");
    if (c->ntargets > 1 && c->read_target)
        return dg_err_set(err, DG_ERR_USER, 0, "--read-target goes with one --target (the primary it reads behind)");
    if (c->ntargets > 1 && (c->mem.db_memory || c->mem.mem_cap || c->mem.drop_caches))
        return dg_err_set(err, DG_ERR_USER, 0, "--db-memory, --mem-cap and --drop-caches take one --target");
    if (c->vus_per_target)
        c->vus = c->vus_per_target * c->ntargets;
    if (c->vus > 4096)
        return dg_err_set(err, DG_ERR_USER, 0, "--vus-per-target %d over %d targets: %d virtual users, more than 4096",
                          c->vus_per_target, c->ntargets, c->vus);
    return 0;
}

int dg_run_opts_finish(struct dg_run_opts *c, const char *cmd, int run, int several, struct dg_err *err)
{
    if (c->ntargets > 1 && !run && !several)
        return dg_err_set(err, DG_ERR_USER, 0, "--target given twice: '%s' works on one target", cmd);
    if (c->ntargets == 0 && (run || !several)) /* such an action finds its own targets */
        c->targets[c->ntargets++] = c->target;
    if (run && (finish_window(c, err) || finish_targets(c, err)))
        return -1;
    if (!c->seed_set)
        c->seed = dg_mix64(dg_now_ns() ^ ((uint64_t)getpid() << 32));
    return 0;
}
