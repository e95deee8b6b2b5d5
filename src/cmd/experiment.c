/* experiment.c — `dbgauge experiment FILE` runs a job file's steps in order, each a stored run
 * linked to one experiment, then prints the step table; `experiment show ID` prints it again.
 * Every key goes through the option tables of the workload named by workload= (looked up in
 * the registry) and the common run block: no option and no workload is named here. All keys
 * are checked before anything runs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/clock.h"
#include "core/jobfile.h"
#include "core/opts.h"
#include "core/progress.h"
#include "core/workload.h"
#include "live/server.h"
#include "report/experiment.h"
#include "report/summary.h"

#define MAX_ARGV (2 * DG_JOB_MAX_KEYS + 8)

/* Keys whose commas belong to the value (a query, a URL, a command), never a list: the
 * entries of any workload's table (or the common block's) an experiment may not sweep. */
static int listable(const char *key)
{
    if (!strcmp(key, "workload"))
        return 0;
    for (int i = 0; dg_workloads[i]; i++) {
        if (!dg_workloads[i]->cli)
            continue;
        struct dg_optset s = {0};
        dg_optset_add(&s, dg_run_optab, dg_run_noptab, NULL);
        dg_optset_add(&s, dg_workloads[i]->cli->opts, dg_workloads[i]->cli->nopts, NULL);
        struct dg_opt_ref r = dg_optset_find_key(&s, key);
        if (r.o && (r.o->flags & DG_OF_REPEAT))
            return DG_JOB_REPEATABLE;
        if (r.o && !(r.o->flags & DG_OF_SWEEP))
            return 0;
    }
    return 1;
}

/* The workloads an experiment can run, as "a, b or c"; the default is the first. */
static void workload_names(char *buf, size_t n)
{
    int k = 0, all = 0;
    buf[0] = '\0';
    for (int i = 0; dg_workloads[i]; i++)
        all += dg_workloads[i]->cli && dg_wl_run_sub(dg_workloads[i]->cli);
    for (int i = 0; dg_workloads[i]; i++) {
        if (!dg_workloads[i]->cli || !dg_wl_run_sub(dg_workloads[i]->cli))
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s%s", k == 0 ? "" : k == all - 1 ? " or " : ", ", dg_workloads[i]->name);
        k++;
    }
}

static const struct dg_workload *find_workload(const char *name)
{
    for (int i = 0; dg_workloads[i]; i++)
        if (dg_workloads[i]->cli && dg_wl_run_sub(dg_workloads[i]->cli) && (!name || !strcmp(name, dg_workloads[i]->name)))
            return dg_workloads[i];
    return NULL;
}

struct plan_step {
    struct dg_wl_cmdline cl; /* the run command's options (cl.o malloc'd) */
    int argc;      /* the equivalent command line, for the record and --dry-run */
    char *argv[MAX_ARGV];
    int owned[MAX_ARGV];
    char *swept_json;
};

static void plan_free(struct plan_step *p, int n)
{
    for (int i = 0; i < n; i++) {
        dg_wl_cmdline_free(&p[i].cl);
        for (int k = 0; k < p[i].argc; k++)
            if (p[i].owned[k])
                free(p[i].argv[k]);
        free(p[i].swept_json);
    }
    free(p);
}

static void push(struct plan_step *p, const char *s, int owned)
{
    if (p->argc < MAX_ARGV - 1) {
        p->owned[p->argc] = owned;
        p->argv[p->argc++] = (char *)s;
        p->argv[p->argc] = NULL;
    } else if (owned) {
        free((char *)s);
    }
}

static int bool_value(const char *v, int *out)
{
    if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on"))
        return *out = 1, 0;
    if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off"))
        return *out = 0, 0;
    return -1;
}

/* One option into the step's options through the command's parser, and onto its command line. */
static int give(struct plan_step *p, struct dg_opt_ref r, const char *value, struct dg_err *err)
{
    const struct dg_opt *o = r.o;
    if (dg_optset_apply(&p->cl.set, r, value, err))
        return -1;
    char *flag = malloc(strlen(o->name) + 3);
    if (!flag)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    sprintf(flag, "--%s", o->name);
    push(p, flag, 1);
    if (value)
        push(p, value, 0);
    return 0;
}

/* Checks and parses one expanded step; errors name FILE:LINE and the key. */
static int plan_one(const struct dg_jobfile *jf, const struct dg_job_step *st, const char *results,
                    const char *label, struct plan_step *p, struct dg_err *err)
{
    const char *wl = dg_job_get(st, "workload");
    int wl_line = st->line;
    for (int i = 0; i < st->nkv; i++)
        if (!strcmp(st->kv[i].key, "workload"))
            wl_line = st->kv[i].line;
    const struct dg_workload *w = find_workload(wl);
    if (!w) {
        char names[256];
        workload_names(names, sizeof names);
        return dg_err_set(err, DG_ERR_USER, 0, "%s:%d: key 'workload': '%s' is not %s", DG_TEXT(jf->path), wl_line, DG_TEXT(wl), names);
    }
    const struct dg_wl_sub *sub = dg_wl_run_sub(w->cli);
    int named = !w->cli->default_sub || strcmp(w->cli->default_sub, sub->name);
    if (dg_wl_cmdline_init(&p->cl, w, sub, named))
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    push(p, "dbgauge", 0);
    push(p, w->command, 0);
    if (named)
        push(p, sub->name, 0);
    if (give(p, dg_optset_find(&p->cl.set, "results"), results, err))
        return -1;
    if (label && !dg_job_get(st, "label") && give(p, dg_optset_find(&p->cl.set, "label"), label, err))
        return -1;
    cJSON *swept = cJSON_CreateObject();
    for (int k = 0; k < st->nswept; k++)
        cJSON_AddStringToObject(swept, st->kv[st->swept[k]].key, st->kv[st->swept[k]].value);
    if (strcmp(st->section, "global"))
        cJSON_AddStringToObject(swept, "section", st->section);
    p->swept_json = cJSON_PrintUnformatted(swept);
    cJSON_Delete(swept);
    for (int i = 0; i < st->nkv; i++) {
        const struct dg_job_kv *kv = &st->kv[i];
        if (!strcmp(kv->key, "workload"))
            continue;
        struct dg_opt_ref r = dg_optset_find_key(&p->cl.set, kv->key);
        if (!r.o || !dg_wl_takes(&p->cl, r))
            return dg_err_set(err, DG_ERR_USER, 0, "%s:%d: unknown key '%s' (not an option of "
                              "'dbgauge %s'; see its --help)", DG_TEXT(jf->path), kv->line, DG_TEXT(kv->key), p->cl.cmd);
        if (r.o->flags & DG_OF_CLI_ONLY)
            return dg_err_set(err, DG_ERR_USER, 0, "%s:%d: key '%s' belongs on the command line "
                              "of 'dbgauge experiment', not in a job file", DG_TEXT(jf->path), kv->line, kv->key);
        int on = 1, flag = r.o->kind == DG_OPT_FLAG;
        if (flag && bool_value(kv->value, &on))
            return dg_err_set(err, DG_ERR_USER, 0, "%s:%d: key '%s': '%s' is not 1 or 0", DG_TEXT(jf->path),
                              kv->line, kv->key, DG_TEXT(kv->value));
        struct dg_err e2;
        if (on && give(p, r, flag ? NULL : kv->value, &e2))
            return dg_err_set(err, e2.cls, 0, "%s:%d: key '%s': %s", DG_TEXT(jf->path), kv->line, kv->key, e2.msg);
    }
    struct dg_err e2;
    if (dg_wl_finish(&p->cl, &e2))
        return dg_err_set(err, DG_ERR_USER, 0, "%s:%d: step [%s]: %s", DG_TEXT(jf->path), st->line,
                          st->section, e2.msg);
    return 0;
}

/* A step that stored nothing (it failed before measuring) is stored as failed all the same. */
static int store_failed(const char *results, int64_t exp_id, int index, const struct plan_step *p,
                        const struct dg_job_step *st, const char *why, int64_t *run_id, struct dg_err *err)
{
    struct dg_store *store;
    if (dg_store_open(results, &store, err))
        return -1;
    struct dg_run_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.workload, sizeof r.workload, "%s", p->cl.wl->name);
    snprintf(r.status, sizeof r.status, "failed");
    const char *lab = dg_job_get(st, "label");
    snprintf(r.label, sizeof r.label, "%s", lab ? lab : "");
    double now = dg_wall_s();
    dg_wall_iso(now, r.started_at, sizeof r.started_at);
    dg_wall_iso(now, r.ended_at, sizeof r.ended_at);
    const char *tgt = dg_job_get(st, "target");
    if (!tgt)
        tgt = dg_job_get(st, "targets");
    dg_redact_url(tgt ? tgt : DG_DEFAULT_TARGET, r.target, sizeof r.target);
    snprintf(r.error, sizeof r.error, "%s", why);
    r.command_line = dg_redacted_command_line(p->argc, (char **)p->argv);
    dg_hostinfo_read(&r.host);
    snprintf(r.dbgauge_version, sizeof r.dbgauge_version, "%s", DG_VERSION);
    r.experiment_id = exp_id;
    r.experiment_step = index;
    r.swept_json = p->swept_json ? strdup(p->swept_json) : NULL;
    r.server_blocks_hit = r.server_blocks_read = -1;
    int rc = dg_store_put(store, &r, err);
    *run_id = r.id;
    dg_run_record_free(&r);
    dg_store_close(store);
    return rc;
}

/* Runs the planned steps in order; a failed one is stored as failed and the next goes on,
 * unless it was interrupted. Returns 1 when interrupted; *nfailed counts the failed steps. */
static int run_steps(const struct dg_jobfile *jf, struct plan_step *plan, int n, const char *results, int json,
                     int quiet, int64_t exp_id, int *nfailed, struct dg_live *live)
{
    struct dg_err err;
    int interrupted = 0;
    const int lead = dg_ranks_rank() == 0; /* several ranks: rank 0 speaks and stores */
    for (int i = 0; i < n && !interrupted; i++) {
        if (lead && !quiet)
            fprintf(stderr, "\n== experiment %lld, step %d/%d [%s] %s\n", (long long)exp_id, i + 1, n,
                    jf->steps[i].section, plan[i].swept_json);
        struct dg_step st = {.experiment_id = exp_id, .index = i + 1, .nsteps = n, .swept_json = plan[i].swept_json,
                             .text = json ? stderr : stdout, .live = live};
        int src = dg_cmd_run(&plan[i].cl, &st, plan[i].argc, plan[i].argv);
        if (src == DG_EXIT_OK)
            continue;
        (*nfailed)++;
        interrupted = !strcmp(st.error, "interrupted");
        if (!lead)
            continue;
        if (!st.run_id && store_failed(results, exp_id, i + 1, &plan[i], &jf->steps[i],
                                       st.error[0] ? st.error : "failed", &st.run_id, &err))
            fprintf(stderr, "dbgauge experiment: step %d could not be stored as failed: %s\n", i + 1, err.msg);
        fprintf(stderr, "dbgauge experiment: step %d/%d failed (%s)%s\n", i + 1, n, st.error,
                interrupted ? "; stopping" : "; going on with the next step");
    }
    return interrupted;
}

static int render(const char *results, int64_t id, int json, const char *csv_path, int *failed)
{
    const char *cmd = "experiment";
    struct dg_store *store;
    struct dg_err err;
    FILE *csv = NULL;
    cJSON *doc = NULL;
    if (csv_path && !(csv = fopen(csv_path, "w")))
        return dg_usage_error(cmd, "--csv: cannot write '%s'", csv_path);
    if (dg_store_open(results, &store, &err)) {
        if (csv)
            fclose(csv);
        return dg_report_err(cmd, &err);
    }
    int got = dg_report_experiment(store, id, json ? stderr : stdout, json ? &doc : NULL, csv, failed, &err);
    dg_store_close(store);
    if (csv && fclose(csv))
        got = -1, dg_err_set(&err, DG_ERR_FATAL, 0, "--csv: cannot write '%s'", csv_path);
    if (got == 1)
        return dg_usage_error(cmd, "no experiment %lld in %s", (long long)id, results);
    if (got < 0)
        return dg_report_err(cmd, &err);
    if (doc)
        dg_print_json(doc);
    return DG_EXIT_OK;
}

/* --progress's value (enum dg_progress_mode), or -1. */
static int progress_mode(const char *v)
{
    for (int i = 0; dg_progress_mode_names[i]; i++)
        if (!strcmp(v, dg_progress_mode_names[i]))
            return i;
    return -1;
}

static void usage(FILE *out)
{
    char names[256];
    workload_names(names, sizeof names);
    fprintf(out,
            "usage:\n"
            "  dbgauge experiment FILE [--dry-run] [--results PATH] [--json] [--csv FILE] [--label L]\n"
            "      [--progress WHEN] [--quiet]\n"
            "  dbgauge experiment show ID [--results PATH] [--json] [--csv FILE]\n\n"
            "  FILE is a job file: [global] then one section per step; every key is a long option\n"
            "  of a workload's run command (workload=NAME picks which: %s; the first is the\n"
            "  default; '_' in a key stands for '-'). A list in [global] (vus=1,2,4) gives one step per value;\n"
            "  several lists give their cross product, the first list varying slowest.\n"
            "  --dry-run     print the steps as commands and stop (nothing runs, nothing is stored)\n"
            "  --json        the experiment as one JSON document on stdout; text goes to stderr\n"
            "  --csv FILE    the step table as CSV\n"
            "  --label L     a label for the experiment and its runs (a step's label= wins)\n"
            "  --live [ADDR:]PORT  serve every step while it runs: charts (/), OpenMetrics\n"
            "                (/metrics), JSON (/api/run); ADDR defaults to 127.0.0.1\n"
            "  --progress WHEN  auto (default): a status line naming the step on a terminal, else\n"
            "                a line every 10 s; line: a line every 10 s always; none: no progress\n"
            "  --quiet       no progress and no informational lines: errors and the result only\n"
            "A step that fails is stored as failed and the experiment goes on; exit 1 then.\n", names);
}

enum { O_DRY = 1, O_RESULTS, O_JSON, O_CSV, O_LABEL, O_LIVE, O_PROGRESS, O_QUIET, O_HELP };
static const struct option opts[] = {
    {"dry-run", no_argument, NULL, O_DRY}, {"results", required_argument, NULL, O_RESULTS},
    {"json", no_argument, NULL, O_JSON},   {"csv", required_argument, NULL, O_CSV},
    {"label", required_argument, NULL, O_LABEL}, {"live", required_argument, NULL, O_LIVE},
    {"progress", required_argument, NULL, O_PROGRESS}, {"quiet", no_argument, NULL, O_QUIET},
    {"help", no_argument, NULL, O_HELP},   {NULL, 0, NULL, 0}};

const struct dg_cmd_doc dg_experiment_doc = {.opts = opts, .subs = "show", .usage = usage};

int dg_cmd_experiment(int argc, char **argv)
{
    const char *cmd = "experiment", *results = DG_DEFAULT_RESULTS, *csv = NULL, *label = NULL, *live = NULL;
    int dry = 0, json = 0, progress = DG_PROGRESS_AUTO, quiet = 0, c, got;
    optind = 1;
    while ((got = dg_getopt(cmd, argc, argv, opts, O_HELP, NULL, NULL, &c)) == 1) {
        switch (c) {
        case O_DRY: dry = 1; break;
        case O_RESULTS: results = optarg; break;
        case O_JSON: json = 1; break;
        case O_CSV: csv = optarg; break;
        case O_LABEL: label = optarg; break;
        case O_LIVE: live = optarg; break;
        case O_PROGRESS:
            if ((progress = progress_mode(optarg)) < 0)
                return dg_usage_error(cmd, "--progress: '%s' is not auto, line or none", DG_TEXT(optarg));
            break;
        case O_QUIET: quiet = 1; break;
        case O_HELP: usage(stdout); return DG_EXIT_OK;
        }
    }
    if (got)
        return got;
    if (optind >= argc)
        return dg_usage_error(cmd, "needs a job file (see dbgauge experiment --help)");
    int failed = 0;
    if (!strcmp(argv[optind], "show")) {
        struct dg_err e;
        uint64_t id;
        if (optind + 1 >= argc)
            return dg_usage_error(cmd, "show needs an experiment id");
        if (dg_parse_u64("experiment id", argv[optind + 1], 1, INT64_MAX, &id, &e))
            return dg_usage_error(cmd, "%s", e.msg);
        if (optind + 2 < argc)
            return dg_usage_error(cmd, "unexpected argument '%s'", DG_TEXT(argv[optind + 2]));
        if (dry)
            return dg_usage_error(cmd, "--dry-run goes with a job file, not 'show'");
        return render(results, (int64_t)id, json, csv, &failed);
    }
    if (optind + 1 < argc)
        return dg_usage_error(cmd, "unexpected argument '%s' (one job file)", DG_TEXT(argv[optind + 1]));
    const char *path = argv[optind];

    /* Everything is read and checked before the first step runs. */
    struct dg_jobfile jf;
    struct dg_err err;
    if (dg_jobfile_load(path, listable, &jf, &err)) {
        dg_jobfile_free(&jf);
        return dg_report_err(cmd, &err);
    }
    struct plan_step *plan = calloc((size_t)jf.nsteps, sizeof *plan);
    int rc = DG_EXIT_FAILED, n = 0;
    if (!plan)
        goto out;
    for (; n < jf.nsteps; n++)
        if (plan_one(&jf, &jf.steps[n], results, label, &plan[n], &err)) {
            n++;
            rc = dg_report_err(cmd, &err);
            goto out;
        }
    for (int i = 0; i < n; i++) { /* how every step shows itself: the command line's, not stored */
        plan[i].cl.c.progress = progress;
        plan[i].cl.c.quiet = quiet;
    }
    if (dry) {
        printf("%s: %d step%s\n", path, n, n == 1 ? "" : "s");
        for (int i = 0; i < n; i++) {
            char *line = dg_redacted_command_line(plan[i].argc, plan[i].argv);
            printf("step %d/%d [%s] %s\n  %s\n", i + 1, n, jf.steps[i].section, plan[i].swept_json,
                   line ? line : "");
            free(line);
        }
        rc = DG_EXIT_OK;
        goto out;
    }
    struct dg_store *store;
    int64_t exp_id = 0;
    /* Several ranks run the same steps; rank 0 alone keeps the experiment (a failure to open
     * the store there stops it before any step, and the others at their first agreement). */
    const int lead = dg_ranks_rank() == 0;
    if (lead && dg_store_open(results, &store, &err)) {
        rc = dg_report_err(cmd, &err);
        goto out;
    }
    int bad = lead && (dg_store_check_writable(store, &err) ||
                       dg_store_experiment_begin(store, path, label ? label : "", n, &exp_id, &err));
    if (lead)
        dg_store_close(store);
    if (bad) {
        rc = dg_report_err(cmd, &err);
        goto out;
    }
    /* --live: one server for every step (rank 0's), so a watcher follows the whole experiment. */
    struct dg_live *srv = NULL;
    if (live && lead && (rc = dg_cmd_live_open(cmd, live, &srv)))
        goto out;
    int nfailed = 0, interrupted = run_steps(&jf, plan, n, results, json, quiet, exp_id, &nfailed, srv);
    dg_live_stop(srv);
    if (!lead) {
        rc = nfailed ? DG_EXIT_FAILED : DG_EXIT_OK;
        goto out;
    }
    if (dg_store_open(results, &store, &err) == 0) {
        dg_store_experiment_end(store, exp_id, interrupted ? "interrupted" : nfailed ? "failed" : "complete", &err);
        dg_store_close(store);
    }
    rc = render(results, exp_id, json, csv, &failed);
    if (rc == DG_EXIT_OK && (nfailed || failed))
        rc = DG_EXIT_FAILED;
out:
    if (plan)
        plan_free(plan, n);
    dg_jobfile_free(&jf);
    return rc;
}
