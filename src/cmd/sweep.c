/* sweep.c — a run command: one run life, or a sweep of virtual-user counts (stress --threads
 * 1,2,4) as one run life per count, the runs stored as one group and rendered as one table
 * from the store. Measures nothing itself (runlife.c does) and names no workload. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "report/summary.h"

static double mb_per_s(const struct dg_run_record *r)
{
    return r->measured_s > 0 ? (double)r->bytes / 1e6 / r->measured_s : 0;
}

/* The group's table, text and (json) JSON on stdout. To be replaced by report/'s
 * dg_report_group_text(out, runs, n) and dg_report_group_json(runs, n). */
static void render_group(FILE *out, const struct dg_run_record *recs, int n, int json)
{
    fprintf(out, "\nQuery stress on %s (%s %s), steps stored as runs %lld..%lld (group %lld)\n", recs[0].target,
            recs[0].engine, recs[0].engine_version, (long long)recs[0].id, (long long)recs[n - 1].id,
            (long long)recs[0].group_id);
    fprintf(out, "\n%7s  %10s  %10s  %10s  %12s  %8s  %8s  %9s  %9s  %9s  %6s\n", "threads", "run time s",
            "iterations", "iter/s", "rows/s", "MB/s", "change", "avg ms", "p95 ms", "max ms", "run");
    for (int i = 0; i < n; i++) {
        const struct dg_run_record *r = &recs[i];
        uint64_t it = dg_txn_count(&r->txn[0]);
        char change[16] = "";
        if (i > 0 && mb_per_s(&recs[i - 1]) > 0)
            snprintf(change, sizeof change, "%+.1f%%", 100.0 * (mb_per_s(r) / mb_per_s(&recs[i - 1]) - 1));
        fprintf(out, "%7d  %10.2f  %10llu  %10.1f  %12.0f  %8.1f  %8s  %9.2f  %9.2f  %9.2f  %6lld\n", r->vus,
                r->measured_s, (unsigned long long)it, r->measured_s > 0 ? (double)it / r->measured_s : 0,
                r->measured_s > 0 ? (double)r->rows / r->measured_s : 0, mb_per_s(r), change,
                r->txn[0].avg_ms, r->txn[0].p95_ms, r->txn[0].max_ms, (long long)r->id);
        if (r->txn[0].errors)
            fprintf(out, "         %llu iterations failed: %s\n", (unsigned long long)r->txn[0].errors, r->error);
    }
    for (int i = 0; recs[0].server_blocks_hit >= 0 && i < n; i++)
        fprintf(out, "%s%d threads: %.1f blocks hit, %.1f read per iteration%s", i ? "; " : "server: ",
                recs[i].vus, recs[i].server_blocks_hit, recs[i].server_blocks_read, i == n - 1 ? "\n" : "");
    for (int i = 0; i < n; i++)
        if (recs[i].nmonitor) {
            fprintf(out, "%7d threads ", recs[i].vus);
            dg_report_monitor_line(out, "", &recs[i]);
        }
    if (!json)
        return;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "schema_version", DG_JSON_SCHEMA_VERSION);
    cJSON_AddNumberToObject(doc, "group_id", (double)recs[0].group_id);
    cJSON_AddStringToObject(doc, "target", recs[0].target);
    cJSON_AddStringToObject(doc, "query", recs[0].query ? recs[0].query : "");
    cJSON *steps = cJSON_AddArrayToObject(doc, "steps");
    for (int i = 0; i < n; i++) {
        const struct dg_run_record *r = &recs[i];
        const struct dg_txn_summary *x = &r->txn[0];
        double it = (double)dg_txn_count(x);
        cJSON *s = cJSON_CreateObject();
        cJSON_AddNumberToObject(s, "threads", r->vus);
        cJSON_AddNumberToObject(s, "seconds", r->measured_s);
        cJSON_AddNumberToObject(s, "iterations", it);
        cJSON_AddNumberToObject(s, "errors", (double)x->errors);
        cJSON_AddNumberToObject(s, "rows", (double)r->rows);
        cJSON_AddNumberToObject(s, "bytes", (double)r->bytes);
        cJSON_AddNumberToObject(s, "iterations_per_s", r->measured_s > 0 ? it / r->measured_s : 0);
        cJSON_AddNumberToObject(s, "rows_per_s", r->measured_s > 0 ? (double)r->rows / r->measured_s : 0);
        cJSON_AddNumberToObject(s, "mb_per_s", mb_per_s(r));
        cJSON_AddNumberToObject(s, "avg_ms", x->avg_ms);
        cJSON_AddNumberToObject(s, "p50_ms", x->p50_ms);
        cJSON_AddNumberToObject(s, "p95_ms", x->p95_ms);
        cJSON_AddNumberToObject(s, "p99_ms", x->p99_ms);
        cJSON_AddNumberToObject(s, "max_ms", x->max_ms);
        if (r->server_blocks_hit >= 0) {
            cJSON_AddNumberToObject(s, "server_blocks_hit_per_iteration", r->server_blocks_hit);
            cJSON_AddNumberToObject(s, "server_blocks_read_per_iteration", r->server_blocks_read);
        }
        cJSON *mon = dg_report_monitor_json(r);
        if (mon)
            cJSON_AddItemToObject(s, "monitor", mon);
        cJSON_AddNumberToObject(s, "run_id", (double)r->id);
        cJSON_AddItemToArray(steps, s);
    }
    dg_print_json(doc);
}

/* Reads the group's runs back and renders them: the table comes from the store. */
static int show_group(const struct dg_wl_cmdline *p, struct dg_step *step, const int64_t *ids, int n)
{
    struct dg_store *store;
    struct dg_err err;
    struct dg_run_record *recs = calloc((size_t)n, sizeof *recs);
    int rc = DG_EXIT_OK;
    if (!recs)
        return DG_EXIT_FAILED;
    if (dg_store_open(p->c.results, &store, &err)) {
        free(recs);
        return dg_report_err(p->cmd, &err);
    }
    for (int i = 0; i < n && rc == DG_EXIT_OK; i++)
        if (dg_store_get(store, ids[i], 0, &recs[i], &err))
            rc = dg_report_err(p->cmd, &err);
    if (rc == DG_EXIT_OK)
        render_group(step ? step->text : p->c.json ? stderr : stdout, recs, n, p->c.json && !step);
    for (int i = 0; i < n; i++)
        dg_run_record_free(&recs[i]);
    free(recs);
    dg_store_close(store);
    return rc;
}

int dg_cmd_run(const struct dg_wl_cmdline *p, struct dg_step *step, int argc, char **argv)
{
    struct dg_life l = {.p = p, .step = step, .argc = argc, .argv = argv};
    if (p->c.nsweep == 0)
        return dg_run_life(&l);
    int64_t ids[DG_INT_LIST_MAX];
    int n = 0, rc = DG_EXIT_OK, interrupted = 0;
    struct dg_wl_cmdline q = *p; /* the same options, one count of virtual users at a time */
    q.set.base[0] = &q.c;
    /* The memory options once for the whole sweep (a restart per step would measure a cold
     * cache each time): every step records what they did. */
    struct dg_memory_state mst = {0};
    struct dg_target t0;
    struct dg_err err;
    if (dg_target_parse(p->c.targets[0], &t0, &err))
        return dg_usage_error(p->cmd, "--target: %s", err.msg);
    if (dg_memory_apply(&t0, &p->c.mem, &mst, &err))
        return dg_report_err(p->cmd, &err);
    for (int i = 0; i < p->c.nsweep && !interrupted; i++) {
        q.c.vus = p->c.sweep[i];
        fprintf(stderr, "step %d/%d: %d thread%s\n", i + 1, p->c.nsweep, q.c.vus, q.c.vus == 1 ? "" : "s");
        l = (struct dg_life){.p = &q, .step = step, .argc = argc, .argv = argv, .quiet = 1,
                             .group_id = n ? ids[0] : -1, .memory = &mst};
        int got = dg_run_life(&l);
        if (!l.run_id) {
            dg_memory_release(&mst);
            return got; /* it failed before measuring: said already */
        }
        ids[n++] = l.run_id;
        interrupted = l.interrupted;
        if (got)
            rc = got;
    }
    dg_memory_release(&mst);
    int shown = show_group(p, step, ids, n);
    if (interrupted)
        fprintf(stderr, "dbgauge %s: interrupted; the steps done are stored, the last marked incomplete\n", p->cmd);
    return shown ? shown : rc;
}
