/* cli.c (tpcc) — TPC-C's command line: its option table, its subcommands (load, run, check,
 * audit (audit_cli.c) and the hidden sql) and the run life's hooks (schema probe, constants, procedures; the facts a
 * run's record needs). Never exits, never prints usage, never writes a run record: cmd/ does. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/progress.h"
#include "core/wlcli.h"
#include "workloads/tpcc/tpcc.h"

struct tpcc_cli_opts {
    int warehouses, warehouses_set, jobs, drop, resume, hash, force;
    int mode, isolation; /* enum tpcc_mode, enum dg_isolation */
    int think, terminals_per_w, tpw_set, scale_set;
    double think_scale;
};

#define OFF(f) offsetof(struct tpcc_cli_opts, f)

static void json_if_think(const void *base, const struct dg_opt *o, cJSON *j)
{
    const struct tpcc_cli_opts *t = base;
    if (t->think)
        cJSON_AddNumberToObject(j, o->json, o->kind == DG_OPT_INT ? (double)t->terminals_per_w : t->think_scale);
}

static const char *const mode_names[] = {"sql", "procedures", NULL};
static const char *const iso_names[] = {"read-committed", "repeatable-read", "serializable", NULL};

static const struct dg_opt opts[] = {
    {.name = "warehouses", .kind = DG_OPT_INT, .metavar = "N", .subs = "load run",
     .flags = DG_OF_SWEEP | DG_OF_HAS_SET | DG_OF_IF_SET, .off = OFF(warehouses), .set_off = OFF(warehouses_set),
     .min = 1, .max = TPCC_MAX_WAREHOUSES, .json = "warehouses",
     .help = "scale of the load (default 1); (run, null: target only) the scale\n"
             "the null driver stands in for"},
    {.name = "jobs", .kind = DG_OPT_INT, .metavar = "J", .subs = "load", .off = OFF(jobs), .min = 1, .max = 64,
     .help = "parallel loading connections (default 2); SQLite has one writer,\n"
             "fed by J-1 threads generating rows (at least one)"},
    {.name = "drop", .kind = DG_OPT_FLAG, .subs = "load", .off = OFF(drop), .help = "drop existing TPC-C tables first"},
    {.name = "hash", .kind = DG_OPT_FLAG, .subs = "check", .off = OFF(hash),
     .help = "also print a hash of the tables' content (all but the load's dates),\n"
             "to compare two loads into the same engine"},
    {.name = "resume", .kind = DG_OPT_FLAG, .subs = "load", .off = OFF(resume),
     .help = "finish an interrupted load: same warehouses and seed, the\n"
             "warehouses already complete are not loaded again"},
    {.name = "force", .kind = DG_OPT_FLAG, .subs = "run", .flags = DG_OF_IF_SET, .off = OFF(force), .json = "force",
     .help = "run on a load that did not finish (an interrupted 'tpcc load', which\n"
             "is refused otherwise); recorded with the run"},
    {.name = "mode", .kind = DG_OPT_ENUM, .metavar = "MODE", .subs = "run", .flags = DG_OF_SWEEP, .off = OFF(mode),
     .names = mode_names, .json = "mode",
     .help = "sql: client-side statements (default); procedures: one stored\n"
             "procedure call per transaction (PostgreSQL, MariaDB/MySQL)"},
    {.name = "isolation", .kind = DG_OPT_ENUM, .metavar = "LEVEL", .subs = "run", .flags = DG_OF_SWEEP,
     .off = OFF(isolation), .names = iso_names, .enum_first = DG_ISO_READ_COMMITTED, .json = "isolation",
     .help = "read-committed | repeatable-read | serializable (engine default)"},
    {.name = "think-time", .kind = DG_OPT_FLAG, .subs = "run", .flags = DG_OF_SWEEP, .off = OFF(think),
     .help = "the standard's keying and think times (clause 5.2.5): terminals\n"
             "wait in a timer heap and --vus workers serve whichever is due;\n"
             "reports tpmC and each type's 90th percentile against its limit"},
    {.name = "terminals-per-warehouse", .kind = DG_OPT_INT, .metavar = "N", .subs = "run",
     .flags = DG_OF_SWEEP | DG_OF_HAS_SET, .off = OFF(terminals_per_w), .set_off = OFF(tpw_set), .min = 1,
     .max = 1000, .json = "terminals_per_warehouse", .json_fn = json_if_think,
     .help = "with --think-time (default 10)"},
    {.name = "think-time-scale", .kind = DG_OPT_DOUBLE, .metavar = "F", .subs = "run",
     .flags = DG_OF_SWEEP | DG_OF_HAS_SET, .off = OFF(think_scale), .set_off = OFF(scale_set), .min = 0,
     .max = 1000, .json = "think_time_scale", .json_fn = json_if_think,
     .help = "multiplies keying and think times (tests; no tpmC)"},
};

static void init(void *v)
{
    *(struct tpcc_cli_opts *)v = (struct tpcc_cli_opts){.warehouses = 1, .jobs = 2, .terminals_per_w = 10,
                                                        .think_scale = 1.0};
}

static int finish(void *v, struct dg_run_opts *c, const char *sub, struct dg_err *err)
{
    struct tpcc_cli_opts *o = v;
    if (strcmp(sub, "run"))
        return 0;
    if (c->rate > 0 && o->think)
        return dg_err_set(err, DG_ERR_USER, 0, "--rate and --think-time are two different load models: pick one");
    if ((o->tpw_set || o->scale_set) && !o->think)
        return dg_err_set(err, DG_ERR_USER, 0, "--%s goes with --think-time",
                          o->tpw_set ? "terminals-per-warehouse" : "think-time-scale");
    if (o->think) {
        c->model = DG_LOAD_THINK;
        c->think_scale = o->think_scale;
    }
    return 0;
}

/* --- run hooks --- */

static int read_baseline(struct dg_conn_h *h, struct tpcc_shared *sh, struct dg_err *err);

static int shared_open(const void *v, const struct dg_run_opts *c, const struct dg_target *t, struct dg_conn_h *h,
                       struct dg_rng *rng, void *shared, struct dg_err *err)
{
    (void)c;
    const struct tpcc_cli_opts *o = v;
    struct tpcc_shared *sh = shared;
    struct tpcc_nurand c_load;
    *sh = (struct tpcc_shared){.dialect = dg_conn_dialect(h), .isolation = o->isolation, .mode = o->mode};
    int have_meta = tpcc_meta_read(h, &c_load, err);
    char why[160];
    if (!have_meta && !o->force && tpcc_load_unfinished(h, why, sizeof why))
        return dg_err_set(err, DG_ERR_USER, 0, "the TPC-C load in %s did not finish (%s): finish it with "
                          "'dbgauge tpcc load --target %s --resume', or run on it as it is with --force",
                          t->redacted, why, t->redacted);
    if (tpcc_schema_probe(h, &sh->warehouses, err) ||
        (o->mode == TPCC_MODE_PROCEDURES && tpcc_procedures_ensure(h, err)))
        return -1;
    if (!have_meta) { /* loaded by another kit (or run --force on an unfinished load): any valid constants */
        c_load.c_last = (int)dg_rng_range(rng, 0, 255);
        c_load.c_id = (int)dg_rng_range(rng, 0, 1023);
        c_load.ol_i_id = (int)dg_rng_range(rng, 0, 8191);
    }
    sh->c_run = c_load;
    sh->c_run.c_last = tpcc_c_last_run(rng, c_load.c_last);
    if (o->warehouses_set) {
        if (sh->dialect != DG_DIALECT_NONE)
            return dg_err_set(err, DG_ERR_USER, 0, "--warehouses on 'tpcc run' is for the null: target only; "
                                                   "a database's scale is read from it (%d in %s)",
                              sh->warehouses, t->redacted);
        sh->warehouses = o->warehouses;
    }
    return sh->dialect == DG_DIALECT_NONE ? 0 : read_baseline(h, sh, err);
}

/* The Payment audit's baseline: each warehouse's history sum before the run. */
static int read_baseline(struct dg_conn_h *h, struct tpcc_shared *sh, struct dg_err *err)
{
    int nw = sh->warehouses;
    int64_t *cents = calloc((size_t)(nw ? nw : 1), sizeof *cents); /* owned here */
    sh->baseline = calloc((size_t)(nw ? nw : 1), sizeof *sh->baseline); /* the shared state's */
    if (!cents || !sh->baseline) {
        free(cents);
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    }
    int rc = tpcc_history_sums(h, cents, nw, err);
    for (int w = 1; rc == 0 && w <= nw; w++)
        sh->baseline[w - 1] = (struct dg_ack){.kind = DG_ACK_TPCC_BASELINE, .k = {(uint32_t)w}, .amount = cents[w - 1]};
    sh->nbaseline = rc == 0 ? (size_t)nw : 0;
    free(cents);
    return rc;
}

static void shared_free(void *shared)
{
    struct tpcc_shared *sh = shared;
    free(sh->baseline);
    free(sh->run_baseline);
    sh->baseline = sh->run_baseline = NULL;
}

static void describe(const void *shared, char *buf, size_t n)
{
    int w = ((const struct tpcc_shared *)shared)->warehouses;
    snprintf(buf, n, "%d warehouse%s", w, w == 1 ? "" : "s");
}

/* Every target's baseline, each marked with its target's index, in the first target's state. */
static void facts_baseline(void *const *shared, int n, struct dg_run_facts *f)
{
    struct tpcc_shared *first = shared[0];
    size_t total = 0;
    for (int k = 0; k < n; k++)
        total += ((const struct tpcc_shared *)shared[k])->nbaseline;
    free(first->run_baseline);
    first->run_baseline = total ? malloc(total * sizeof *first->run_baseline) : NULL;
    if (!first->run_baseline) /* none, or out of memory: the run keeps no baseline */
        return;
    size_t at = 0;
    for (int k = 0; k < n; k++) {
        const struct tpcc_shared *sh = shared[k];
        for (size_t i = 0; i < sh->nbaseline; i++) {
            first->run_baseline[at] = sh->baseline[i];
            first->run_baseline[at++].target = (uint16_t)k;
        }
    }
    f->acks = first->run_baseline;
    f->nacks = total;
}

static void facts(const void *v, const struct dg_run_opts *c, void *const *shared, int n, struct dg_run_facts *f)
{
    const struct tpcc_cli_opts *o = v;
    for (int k = 0; k < n; k++) {
        f->target_scale[k] = ((const struct tpcc_shared *)shared[k])->warehouses;
        f->scale += f->target_scale[k];
    }
    facts_baseline(shared, n, f);
    f->terminals = c->vus; /* closed loop and open loop: one terminal per virtual user */
    if (c->model != DG_LOAD_THINK)
        return;
    f->terminals = f->scale * o->terminals_per_w;
    f->p90_limit_s = tpcc_p90_limit_s;
    f->tpmc_ceiling = TPCC_TPMC_CEILING_PER_W / 10.0 * f->terminals / c->think_scale;
}

/* --- load --- */

struct load_view {
    enum dg_progress_view view;
    double last_print;
    int drawn; /* a status line is on the screen */
};

/* The load's progress: a status line redrawn 4 times a second on a terminal, else a plain
 * line every 5 s (--progress, --quiet). */
static void load_progress(void *ctx, const struct tpcc_load_progress *p)
{
    struct load_view *v = ctx;
    const int status = v->view == DG_VIEW_STATUS;
    if (v->view == DG_VIEW_NONE ||
        (p->elapsed_s - v->last_print < (status ? 0.25 : 5.0) && p->warehouses_done < p->warehouses))
        return;
    v->last_print = p->elapsed_s;
    double rate = p->elapsed_s > 0 ? (double)p->rows / p->elapsed_s : 0;
    double expected = (double)p->rows_expected;
    double eta = rate > 0 && expected > (double)p->rows ? (expected - (double)p->rows) / rate : 0;
    if (status) {
        struct dg_load_tick lt = {.unit = "warehouses", .done = p->warehouses_done, .of = p->warehouses,
                                  .rows = p->rows, .bytes = p->bytes, .elapsed_s = p->elapsed_s,
                                  .eta_s = rate > 0 ? eta : -1};
        char line[512];
        dg_progress_load_status(&lt, dg_progress_width(STDERR_FILENO), line, sizeof line);
        dg_progress_redraw(stderr, line);
        v->drawn = 1;
        return;
    }
    fprintf(stderr, "loading: %d/%d warehouses, %llu rows, %.0f rows/s, %.1f MB/s, ETA %.0f s\n",
            p->warehouses_done, p->warehouses, (unsigned long long)p->rows, rate,
            p->elapsed_s > 0 ? (double)p->bytes / 1e6 / p->elapsed_s : 0, eta);
}

static int parse_target(const char *url, struct dg_target *t, struct dg_err *err)
{
    struct dg_err e;
    if (dg_target_parse(url, t, &e))
        return dg_err_set(err, DG_ERR_USER, 0, "--target: %s", e.msg);
    return 0;
}

/* A load that stopped: what is complete, and how to finish it (on stderr, before the error). */
static void load_incomplete(const struct tpcc_load_result *res, const struct dg_target *t)
{
    fprintf(stderr, "tpcc load: stopped with %d of %d warehouses complete%s%s%s\n", res->warehouses_complete,
            res->warehouses, res->complete[0] ? " (" : "", res->complete, res->complete[0] ? ")" : "");
    fprintf(stderr, "tpcc load: finish it with: dbgauge tpcc load --target '%s' --resume\n", t->redacted);
}

static int act_load(const struct dg_wl_act *a, struct dg_err *err)
{
    const struct tpcc_cli_opts *o = a->o;
    struct dg_target t;
    if (parse_target(a->c->target, &t, err))
        return -1;
    struct load_view view = {.view = dg_progress_view_of(a->c->progress, a->c->quiet, isatty(STDERR_FILENO)),
                             .last_print = -1e9};
    /* Several ranks load their own warehouses; rank 0 speaks for them (its own progress). */
    const int lead = a->ranks.rank == 0;
    if (o->resume && o->drop)
        return dg_err_set(err, DG_ERR_USER, 0, "--resume finishes a load and --drop starts one again: pick one");
    struct tpcc_load_opts lo = {.target = &t, .warehouses = o->warehouses, .jobs = o->jobs, .drop = o->drop,
                                .resume = o->resume, .warehouses_set = o->warehouses_set, .seed_set = a->c->seed_set,
                                .seed = a->c->seed, .progress = lead ? load_progress : NULL, .progress_ctx = &view,
                                .ranks = a->ranks.size > 1 ? &a->ranks : NULL};
    struct tpcc_load_result res;
    if (lead && !a->c->quiet)
        fprintf(stderr, "%s into %s%s\n", o->resume ? "finishing the interrupted load" : "loading", t.redacted,
                a->ranks.size > 1 ? " from several ranks" : "");
    int rc = tpcc_load(&lo, &res, err);
    if (view.drawn) /* ended, so the result does not overwrite it */
        fprintf(stderr, "\n");
    if (rc && lead && res.warehouses > 0 && err->cls != DG_ERR_USER)
        load_incomplete(&res, &t);
    if (rc)
        return -1;
    if (!lead)
        return 0;
    if (res.already_complete) {
        fprintf(stderr, "the load of %d warehouses is complete already: nothing to resume\n", res.warehouses);
        return 0;
    }
    double mb = (double)res.bytes / 1e6;
    fprintf(stderr,
            "loaded %d warehouse%s: %llu rows, %.1f MB in %.2f s (%.0f rows/s, %.1f MB/s); data %.2f s, "
            "keys and indexes %.2f s, %d job%s%s\n",
            res.warehouses - res.warehouses_skipped, res.warehouses - res.warehouses_skipped == 1 ? "" : "s", (unsigned long long)res.rows, mb, res.seconds,
            (double)res.rows / res.data_seconds, mb / res.data_seconds, res.data_seconds, res.index_seconds,
            res.jobs_used, res.jobs_used == 1 ? "" : "s", res.warehouses_skipped ? "; the others were complete" : "");
    if (res.settings.nsettings && !a->c->quiet) { /* --quiet: the result line only (--json has them) */
        fprintf(stderr, "load settings:");
        for (int i = 0; i < res.settings.nsettings; i++)
            fprintf(stderr, " %s=%s", res.settings.settings[i].name, res.settings.settings[i].value);
        fprintf(stderr, "\n");
    }
    if (a->json) {
        cJSON *j = a->json;
        cJSON_AddStringToObject(j, "target", t.redacted);
        cJSON_AddNumberToObject(j, "warehouses", res.warehouses);
        cJSON_AddNumberToObject(j, "warehouses_skipped", res.warehouses_skipped);
        char seed[24];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)res.seed);
        cJSON_AddStringToObject(j, "seed", seed);
        cJSON_AddNumberToObject(j, "jobs", res.jobs_used);
        cJSON_AddNumberToObject(j, "rows", (double)res.rows);
        cJSON_AddNumberToObject(j, "bytes", (double)res.bytes);
        cJSON_AddNumberToObject(j, "seconds", res.seconds);
        cJSON_AddNumberToObject(j, "data_seconds", res.data_seconds);
        cJSON_AddNumberToObject(j, "index_seconds", res.index_seconds);
        cJSON_AddNumberToObject(j, "rows_per_s", (double)res.rows / res.data_seconds);
        cJSON_AddNumberToObject(j, "mb_per_s", mb / res.data_seconds);
        cJSON *s = cJSON_AddObjectToObject(j, "load_settings");
        for (int i = 0; i < res.settings.nsettings; i++)
            cJSON_AddStringToObject(s, res.settings.settings[i].name, res.settings.settings[i].value);
    }
    return 0;
}

/* --- check --- */

static void check_json(cJSON *j, const struct dg_target *t, const struct tpcc_check_result *res)
{
    cJSON_AddStringToObject(j, "target", t->redacted);
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
}

static int act_check(const struct dg_wl_act *a, struct dg_err *err)
{
    struct dg_target t;
    struct dg_conn_h h;
    if (parse_target(a->c->target, &t, err) || dg_connect(&t, NULL, &h, err))
        return -1;
    struct tpcc_check_result *res = malloc(sizeof *res);
    if (!res) {
        dg_disconnect(&h);
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    }
    const struct tpcc_cli_opts *o = a->o;
    struct tpcc_hash hash;
    int rc = tpcc_check(&h, res, err) || (o->hash && tpcc_content_hash(&h, &hash, err));
    dg_disconnect(&h);
    if (rc) {
        free(res);
        return -1;
    }
    fprintf(a->text, "TPC-C check of %s: %d warehouse%s\n", t.redacted, res->warehouses,
            res->warehouses == 1 ? "" : "s");
    for (int i = 0; i < res->n; i++) {
        const struct tpcc_check_item *it = &res->items[i];
        fprintf(a->text, "  %-5s %-16s %-66s %s\n", !it->applicable ? "n/a" : it->pass ? "ok" : "FAIL", it->name,
                it->what, it->detail);
    }
    fprintf(a->text, "%s: %d of %d conditions failed\n", res->failed ? "FAILED" : "passed", res->failed, res->n);
    if (o->hash)
        fprintf(a->text, "content hash: %016llx (%llu rows)\n", (unsigned long long)hash.all,
                (unsigned long long)hash.rows);
    if (a->json)
        check_json(a->json, &t, res);
    if (a->json && o->hash) {
        char x[24];
        snprintf(x, sizeof x, "%016llx", (unsigned long long)hash.all);
        cJSON_AddStringToObject(a->json, "content_hash", x);
        cJSON *tables = cJSON_AddObjectToObject(a->json, "table_hashes");
        for (int i = 0; i < hash.ntables; i++) {
            snprintf(x, sizeof x, "%016llx", (unsigned long long)hash.table[i]);
            cJSON_AddStringToObject(tables, hash.table_name[i], x);
        }
    }
    int failed = res->failed;
    free(res);
    return failed ? 1 : 0;
}

/* dbgauge tpcc sql DIALECT: prints the SQL TPC-C would send (no connection). */
static int act_sql(const struct dg_wl_act *a, struct dg_err *err)
{
    enum dg_dialect d = a->argc == 1 ? dg_dialect_by_name(a->argv[0]) : DG_DIALECT_NONE;
    if (d != DG_DIALECT_NONE)
        return tpcc_dump_sql(d, stdout) ? dg_err_set(err, DG_ERR_FATAL, 0, "cannot print the SQL") : 0;
    return dg_err_set(err, DG_ERR_USER, 0, "expected one dialect: sqlite, pgsql, mysql or mssql");
}

static const struct dg_wl_sub subs[] = {
    {.name = "load", .kind = DG_SUB_ACTION, .ranked = 1, .synopsis = "[--target URL] [--warehouses N] [--jobs J] [--drop | --resume] [--seed S] [--json]",
     .common = "seed progress quiet", .action = act_load},
    {.name = "run", .kind = DG_SUB_RUN, .synopsis = "[--target URL]... [--vus N | --vus-per-target N] [--duration T | --txns-per-vu N]\n"
                                                    "      [--rate R [--arrivals KIND] | --think-time ...] [options]"},
    {.name = "check", .kind = DG_SUB_ACTION, .synopsis = "[--target URL] [--sync-wait T] [--hash] [--json]", .common = "sync-wait",
     .action = act_check},
    /* RUN (an argument) and "[--target URL]...": cmd/ passes arguments and several targets */
    {.name = "audit", .kind = DG_SUB_ACTION, .synopsis = "RUN [--target URL]... [--results PATH] [--json]",
     .common = "results", .action = tpcc_act_audit},
    {.name = "sql", .kind = DG_SUB_ACTION, .hidden = 1, .raw = 1, .action = act_sql}, /* tests/golden */
};

const struct dg_wl_cli tpcc_cli = {
    .title = "TPC-C",
    .opts = opts,
    .nopts = sizeof opts / sizeof *opts,
    .opts_size = sizeof(struct tpcc_cli_opts),
    .init = init,
    .finish = finish,
    .subs = subs,
    .nsubs = sizeof subs / sizeof *subs,
    .max_retries = 100,
    .shared_size = sizeof(struct tpcc_shared),
    .shared_open = shared_open,
    .shared_free = shared_free,
    .describe = describe,
    .facts = facts,
    .audit = tpcc_audit_after,
};
