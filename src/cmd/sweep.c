/* sweep.c — a run command: one run life, or a sweep of virtual-user counts (stress --threads
 * 1,2,4) as one run life per count, the runs stored as one group and rendered as one table
 * from the store. Measures nothing itself (runlife.c does) and names no workload. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "live/server.h"
#include "report/summary.h"

/* The group's step table (report/), in text and, with json, as a JSON document on stdout. */
static void render_group(FILE *out, const struct dg_wl_cmdline *p, const struct dg_run_record *recs, int n, int json)
{
    fprintf(out, "\n%s on %s (%s %s), steps stored as runs %lld..%lld (group %lld)\n", p->wl->cli->title,
            recs[0].target, recs[0].engine, recs[0].engine_version, (long long)recs[0].id,
            (long long)recs[n - 1].id, (long long)recs[0].group_id);
    dg_report_group_text(out, recs, n);
    if (!json)
        return;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "schema_version", DG_JSON_SCHEMA_VERSION);
    cJSON_AddNumberToObject(doc, "group_id", (double)recs[0].group_id);
    cJSON_AddStringToObject(doc, "target", recs[0].target);
    cJSON_AddStringToObject(doc, "query", recs[0].query ? recs[0].query : "");
    cJSON_AddItemToObject(doc, "steps", dg_report_group_json(recs, n));
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
        render_group(step ? step->text : p->c.json ? stderr : stdout, p, recs, n, p->c.json && !step);
    for (int i = 0; i < n; i++)
        dg_run_record_free(&recs[i]);
    free(recs);
    dg_store_close(store);
    return rc;
}

/* An experiment step's name on the live page: "step 3/7", and the sweep's count after it. */
static void live_step_name(struct dg_life *l, const struct dg_step *step, int i, int n, int vus)
{
    int o = step ? snprintf(l->live_step, sizeof l->live_step, "step %d/%d", step->index, step->nsteps) : 0;
    if (n && o >= 0 && (size_t)o < sizeof l->live_step)
        snprintf(l->live_step + o, sizeof l->live_step - (size_t)o, "%s%d/%d: %d thread%s", o ? ", " : "", i + 1, n,
                 vus, vus == 1 ? "" : "s");
}

static int sweep(const struct dg_wl_cmdline *p, struct dg_step *step, int argc, char **argv, struct dg_live *live);

int dg_cmd_run(const struct dg_wl_cmdline *p, struct dg_step *step, int argc, char **argv)
{
    struct dg_life l = {.p = p, .step = step, .argc = argc, .argv = argv, .live = step ? step->live : NULL};
    live_step_name(&l, step, 0, 0, 0);
    if (p->c.nsweep == 0)
        return dg_run_life(&l);
    /* A sweep serves all its steps from one server (the experiment's, or its own). */
    struct dg_live *own = NULL;
    if (!l.live && p->c.live && dg_ranks_rank() == 0) {
        int rc = dg_cmd_live_open(p->cmd, p->c.live, &own);
        if (rc)
            return rc;
    }
    int rc = sweep(p, step, argc, argv, own ? own : l.live);
    dg_live_stop(own);
    return rc;
}

static int sweep(const struct dg_wl_cmdline *p, struct dg_step *step, int argc, char **argv, struct dg_live *live)
{
    struct dg_life l;
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
    /* Several ranks: rank 0 applies them (its run lives wait for it), and alone renders. */
    const int lead = dg_ranks_rank() == 0;
    if (lead && dg_memory_apply(&t0, &p->c.mem, &mst, &err))
        return dg_report_err(p->cmd, &err);
    for (int i = 0; i < p->c.nsweep && !interrupted; i++) {
        q.c.vus = p->c.sweep[i];
        if (lead)
            fprintf(stderr, "step %d/%d: %d thread%s\n", i + 1, p->c.nsweep, q.c.vus, q.c.vus == 1 ? "" : "s");
        l = (struct dg_life){.p = &q, .step = step, .argc = argc, .argv = argv, .quiet = 1,
                             .group_id = n ? ids[0] : -1, .memory = &mst, .live = live};
        live_step_name(&l, step, i, p->c.nsweep, q.c.vus);
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
    if (!lead)
        return rc;
    int shown = show_group(p, step, ids, n);
    if (interrupted)
        fprintf(stderr, "dbgauge %s: interrupted; the steps done are stored, the last marked incomplete\n", p->cmd);
    return shown ? shown : rc;
}
