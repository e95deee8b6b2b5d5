/* runrecord.c — a measured run's record: the finished run's (counts, figures, monitor points,
 * targets' shares, faults, outages, acknowledged writes) and the partial one each checkpoint
 * keeps from the final seconds so far. */
#include <stdlib.h>
#include <string.h>

#include "cmd/life.h"
#include "core/figures.h"

/* Stores the value of each key "from" under "to" instead (pairs "vus=threads ..."). */
static void rename_keys(cJSON *j, const char *pairs)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", pairs ? pairs : "");
    for (char *save = NULL, *pair = strtok_r(buf, " ", &save); pair; pair = strtok_r(NULL, " ", &save)) {
        char *to = strchr(pair, '=');
        if (!to)
            continue;
        *to++ = '\0';
        cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(j, pair);
        if (v)
            cJSON_AddItemToObject(j, to, v);
    }
}

static char *options_json(const struct life *L)
{
    cJSON *j = cJSON_CreateObject();
    dg_optset_json(&L->p->set, NULL, j);
    rename_keys(j, L->cli->json_renames);
    cJSON_AddStringToObject(j, "load_model", dg_load_model_name(L->p->c.model));
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return s;
}

/* The writes acknowledged by the nodes of one cluster went to one database: they are kept as
 * its first node's, so an audit checks them all there (a payment made through node 2 shows in
 * the history node 1 reads). */
static void cluster_acks(const struct life *L, struct dg_ack *acks, size_t n)
{
    const int *cl = L->p->c.target_cluster;
    int first[DG_MAX_TARGETS];
    for (int k = 0; k < L->n; k++)
        first[k] = cl[k] && k > 0 && cl[k - 1] == cl[k] ? first[k - 1] : k;
    for (size_t i = 0; L->p->c.nclusters && i < n; i++)
        if (acks[i].target < L->n)
            acks[i].target = (uint16_t)first[acks[i].target];
}

/* The record's faults, outages, acknowledged writes (the run's and the workload's baseline)
 * and the open loop's schedule. Returns 0, or -1 out of memory. */
static int record_faults(struct life *L)
{
    struct dg_run_record *rec = &L->rec;
    struct dg_run_result *res = &L->res;
    if (L->nfault_events) {
        if (!(rec->faults = malloc((size_t)L->nfault_events * sizeof *rec->faults)))
            return dg_err_set(&L->err, DG_ERR_FATAL, 0, "out of memory");
        memcpy(rec->faults, L->fault_events, (size_t)L->nfault_events * sizeof *rec->faults);
        rec->nfaults = L->nfault_events;
    }
    rec->outages = res->outages; /* the record owns them now */
    rec->noutages = res->noutages;
    res->outages = NULL;
    res->noutages = 0;
    size_t n = res->nacks + L->facts.nacks;
    if (n && !(rec->acks = malloc(n * sizeof *rec->acks)))
        return dg_err_set(&L->err, DG_ERR_FATAL, 0, "out of memory for %zu acknowledged writes", n);
    if (L->facts.nacks)
        memcpy(rec->acks, L->facts.acks, L->facts.nacks * sizeof *rec->acks);
    if (res->nacks)
        memcpy(rec->acks + L->facts.nacks, res->acks, res->nacks * sizeof *rec->acks);
    rec->nacks = n;
    cluster_acks(L, rec->acks, n);
    free(res->acks);
    res->acks = NULL;
    res->nacks = 0;
    rec->arrivals = res->arrivals;
    rec->late = res->late;
    rec->skipped = res->skipped;
    rec->schedule_known = 1;
    for (int k = 0; k < res->ntypes; k++)
        rec->txn[k].in_doubt = res->counts[k].in_doubt;
    return 0;
}

/* What every record of the run holds, the finished one and each checkpoint's: counts and
 * histograms (moved from res), the figures derived from them, the workload's facts. */
static void record_base(struct life *L, struct dg_run_record *rec, struct dg_run_result *res)
{
    const struct dg_run_opts *c = &L->p->c;
    const struct dg_workload *wl = L->p->wl;
    struct dg_record_src src = {.workload = wl->name, .label = c->label, .target = &L->ts[0].t,
                                .server = &L->ts[0].si, .options_json = options_json(L), .argc = L->in->argc,
                                .argv = L->in->argv, .vus = c->vus, .model = c->model, .step = L->in->step,
                                .knobs_json = L->mst->json};
    for (int k = 0; k < res->ntypes; k++) { /* what the measured transactions fetched */
        rec->rows += res->counts[k].rows;
        rec->bytes += res->counts[k].bytes;
    }
    struct dg_fig_run fr = {.measured_s = res->measured_s,
                            .standard_times = c->model == DG_LOAD_THINK && c->think_scale == 1.0};
    int nfig;
    const struct dg_figure_def *figs = life_figures(L, &nfig);
    rec->nfigures = dg_figures_derive(figs, nfig, res->counts, res->ntypes, &fr, rec->figures);
    dg_record_fill(rec, &src, res, wl->type_names);
    rec->warehouses = L->facts.scale;
    rec->rate_asked = c->model == DG_LOAD_RATE ? c->rate : 0;
    rec->think_scale = c->model == DG_LOAD_THINK ? c->think_scale : 0;
    rec->terminals = L->facts.terminals;
    for (int k = 0; k < res->ntypes && L->facts.p90_limit_s && c->model == DG_LOAD_THINK; k++)
        rec->txn[k].p90_limit_ms = L->facts.p90_limit_s[k] * 1e3;
    rec->tpmc_ceiling = L->facts.tpmc_ceiling;
    rec->query = L->facts.query ? strdup(L->facts.query) : NULL;
    rec->server_blocks_hit = L->facts.server_blocks_hit;
    rec->server_blocks_read = L->facts.server_blocks_read;
    rec->group_id = L->in->group_id > 0 ? L->in->group_id : 0;
}

/* The run's record: the base, the monitor's points, the targets' shares, faults and acks. */
int life_record(struct life *L)
{
    struct dg_run_record *rec = &L->rec;
    record_base(L, rec, &L->res);
    dg_cmd_monitor_end(&L->mon, rec);
    if (L->n > 1 || L->read.t.drv) {
        const struct dg_workload *wl = L->p->wl;
        struct dg_target_src tsrc[DG_MAX_TARGETS + 1];
        for (int k = 0; k < L->n; k++)
            tsrc[k] = (struct dg_target_src){.target = &L->ts[k].t, .server = &L->ts[k].si,
                                             .warehouses = L->facts.target_scale[k]};
        int n = L->n;
        if (L->read.t.drv) /* the same database, read behind the primary: no warehouses of its own */
            tsrc[n++] = (struct dg_target_src){.target = &L->read.t, .server = &L->read.si, .role = "read"};
        int nfig;
        const struct dg_figure_def *figs = life_figures(L, &nfig);
        struct dg_fig_run fr = {.measured_s = L->res.measured_s,
                                .standard_times = L->p->c.model == DG_LOAD_THINK && L->p->c.think_scale == 1.0};
        if (dg_record_fill_targets(rec, tsrc, n, &L->res, wl->type_names, figs, nfig, &fr))
            return dg_err_set(&L->err, DG_ERR_FATAL, 0, "out of memory");
    }
    if (L->rr.why[0]) { /* a rank was lost: the others' figures are kept, the run failed */
        snprintf(rec->status, sizeof rec->status, "failed");
        snprintf(rec->error, sizeof rec->error, "%s", L->rr.why);
    }
    rec->id = L->ckpt_id; /* replaces its checkpoints */
    return record_faults(L);
}

/* Every 10 s, from the main thread: what the window has measured so far is kept in the
 * results database as a "running" run, so one killed outright (SIGKILL, the OOM killer, power
 * lost) leaves its seconds behind. Its histograms come from the series' small ones (2
 * significant digits); the finished run replaces all of it. A checkpoint that cannot be
 * written is said once and the run goes on. */
void life_partial_record(struct life *L, const struct dg_checkpoint *cp, struct dg_run_record *rec,
                         struct dg_run_result *part)
{
    const struct dg_series *se = cp->series;
    *part = (struct dg_run_result){.ntypes = se->ntypes, .warmup_s = cp->warmup_s, .measured_s = cp->measured_s,
                                   .client_cpu_s = cp->client_cpu_s, .started_wall = cp->started_wall,
                                   .ended_wall = dg_wall_s()};
    for (int k = 0; k < se->ntypes; k++) {
        part->counts[k] = (struct dg_type_counts){.committed = se->measured[k].committed,
                                                  .rollbacks = se->measured[k].rollbacks,
                                                  .retries = se->measured[k].retries, .errors = se->measured[k].errors};
        part->hist[k] = dg_series_measured_hist(se, k);
    }
    part->series.pts = se->pts; /* lent: the record gives it back below */
    part->series.n = se->n;
    *rec = (struct dg_run_record){.id = L->ckpt_id};
    record_base(L, rec, part);
    for (int k = 0; k < se->ntypes; k++) /* the series counts retries and errors, not their causes */
        rec->txn[k].error_causes_known = rec->txn[k].retry_causes_known = 0;
    snprintf(rec->status, sizeof rec->status, "running");
    if (L->rr.size > 1)
        snprintf(rec->error, sizeof rec->error, "checkpoint of rank 0's share (%d of %d virtual users)", L->share.n, L->p->c.vus);
}

void life_checkpoint(void *ctx, const struct dg_checkpoint *cp)
{
    struct life *L = ctx;
    struct dg_run_record rec;
    struct dg_run_result part;
    life_partial_record(L, cp, &rec, &part);
    struct dg_err err = {0};
    if (dg_store_checkpoint(L->store, &rec, &L->ckpt_series, &err) && !L->ckpt_failed++)
        fprintf(stderr, "dbgauge %s: checkpoint: %s; the run goes on, kept only at its end\n", L->cmd, err.msg);
    L->ckpt_id = rec.id;
    rec.series = NULL;
    rec.nseries = 0;
    dg_run_record_free(&rec);
    dg_run_result_free(&part);
}

