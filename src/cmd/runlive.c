/* runlive.c — a measured run seen while it goes on (--live): the reporter (the main thread,
 * once a second) turns its tick into the documents live/server.c serves. /metrics is made
 * every second; the run's section and JSON (a partial record, as a checkpoint keeps it, with
 * the monitor's points so far) only while someone reads them, so a scraper alone costs one
 * small text a second. No worker is involved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd/life.h"
#include "live/metrics.h"
#include "live/page.h"
#include "live/server.h"
#include "report/export.h"
#include "report/html.h"

int dg_cmd_live_open(const char *cmd, const char *spec, struct dg_live **out)
{
    struct dg_live_addr a;
    struct dg_err err;
    if (dg_live_parse_addr(spec, &a, &err))
        return dg_usage_error(cmd, "--live: %s", err.msg);
    if (dg_live_start(&a, out, &err))
        return dg_report_err(cmd, &err);
    fprintf(stderr, "live: http://%s:%d/ (charts), /metrics (OpenMetrics), /api/run (JSON)\n", a.host,
            dg_live_port(*out));
    return 0;
}

int life_live_begin(struct life *L)
{
    struct life_live *lv = &L->live;
    if (L->rr.rank > 0)
        return 0; /* rank 0 serves the run */
    if (L->in->live) { /* a sweep's or an experiment's */
        lv->srv = L->in->live;
        snprintf(lv->step, sizeof lv->step, "%s", L->in->live_step);
    } else if (!L->p->c.live) {
        return 0;
    } else {
        int rc = dg_cmd_live_open(L->cmd, L->p->c.live, &lv->srv);
        if (rc)
            return rc;
        lv->own = 1;
    }
    char title[96], sub[1100];
    size_t len;
    snprintf(title, sizeof title, "dbgauge %s%s%s (live)", L->cmd, lv->step[0] ? ", " : "", lv->step);
    snprintf(sub, sizeof sub, "%s%s", L->ts[0].t.redacted, L->n > 1 ? " and the other targets" : "");
    char *page = dg_live_page(title, sub, &len);
    if (page)
        dg_live_set(lv->srv, DG_LIVE_PAGE, page, len, "text/html; charset=utf-8");
    lv->last = (struct dg_tick){.phase = DG_PHASE_CONNECT, .ntypes = L->p->wl->ntypes};
    life_live_tick(L, &lv->last);
    return 0;
}

/* Adds the series points since the last call into the per-target commits. */
static void sum_commits(struct life_live *lv, const struct dg_series *se, int ntargets)
{
    for (; se && lv->summed < se->n; lv->summed++)
        for (int k = 0; k < ntargets && k < DG_SERIES_TARGETS; k++)
            lv->commits[k] += se->pts[lv->summed].target_committed[k];
}

/* The rows of the latest second of replication (they come last), as [*first, nrepl). */
static int latest_repl(const struct life_live *lv, size_t *first)
{
    size_t i = lv->nrepl;
    while (i > 0 && lv->repl[i - 1].second == lv->repl[lv->nrepl - 1].second && lv->nrepl - i < DG_LIVE_MAX_REPL)
        i--;
    *first = i;
    return (int)(lv->nrepl - i);
}

static void publish_metrics(struct life *L, const struct dg_tick *t)
{
    struct life_live *lv = &L->live;
    const struct dg_run_opts *c = &L->p->c;
    const char *names[DG_MAX_TARGETS];
    for (int k = 0; k < L->n; k++)
        names[k] = L->ts[k].t.redacted;
    size_t first = 0;
    int nrepl = latest_repl(lv, &first);
    struct dg_live_view v = {.command = L->cmd, .workload = L->p->wl->name, .label = c->label, .step = lv->step,
                             .phase = t->phase, .elapsed_s = t->elapsed_s, .vus = c->vus, .ranks = L->rr.size,
                             .ntypes = t->ntypes, .type_names = L->p->wl->type_names, .total = t->total,
                             .measured_hist = t->series ? (const uint32_t(*)[DG_SEC_SLOTS])t->series->measured_hist : NULL,
                             .ntargets = L->n, .target_names = names, .target_commits = lv->commits,
                             .outages = t->outages, .outage_open = t->outage_open,
                             .mon = lv->nmon ? &lv->mon[lv->nmon - 1] : NULL,
                             .repl = nrepl ? &lv->repl[first] : NULL, .nrepl = nrepl};
    if (!c->txns_per_vu)
        v.planned_s = (double)(c->warmup_ns + c->duration_ns) / 1e9;
    size_t len;
    char *text = dg_live_metrics(&v, &len);
    if (text)
        dg_live_set(lv->srv, DG_LIVE_METRICS, text, len, DG_LIVE_METRICS_TYPE);
}

/* The run so far as the report shows a run: its section (charts and tables) and its JSON. */
static void publish_run(struct life *L, const struct dg_tick *t)
{
    struct life_live *lv = &L->live;
    const struct dg_series *se = t->series;
    struct dg_checkpoint cp = {.series = se, .started_wall = L->res.started_wall,
                               .warmup_s = (double)L->p->c.warmup_ns / 1e9};
    if (se->n && se->pts[se->n - 1].second >= 0)
        cp.measured_s = (double)(se->pts[se->n - 1].second + 1);
    struct dg_run_record rec;
    struct dg_run_result part;
    life_partial_record(L, &cp, &rec, &part);
    rec.monitor = lv->mon; /* lent, as the series is, and given back below */
    rec.nmonitor = lv->nmon;
    rec.repl = lv->repl;
    rec.nrepl = lv->nrepl;
    rec.outages = (struct dg_outage *)t->outage_list;
    rec.noutages = t->noutage_list;
    char *html = NULL;
    size_t hlen = 0;
    FILE *o = open_memstream(&html, &hlen);
    int bad = !o || dg_report_html_run(o, &rec);
    if (o && fclose(o))
        bad = 1;
    if (!bad)
        dg_live_set(lv->srv, DG_LIVE_SECTION, html, hlen, "text/html; charset=utf-8");
    else
        free(html);
    struct dg_report_item item = {.kind = DG_ITEM_RUN, .runs = &rec, .nruns = 1};
    cJSON *doc = dg_report_json(&item, 1);
    char *json = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (json)
        dg_live_set(lv->srv, DG_LIVE_RUN, json, strlen(json), "application/json");
    rec.series = NULL, rec.nseries = 0;
    rec.monitor = NULL, rec.nmonitor = 0;
    rec.repl = NULL, rec.nrepl = 0;
    rec.outages = NULL, rec.noutages = 0;
    dg_run_record_free(&rec);
    dg_run_result_free(&part);
}

void life_live_tick(struct life *L, const struct dg_tick *t)
{
    struct life_live *lv = &L->live;
    if (!lv->srv)
        return;
    if (t != &lv->last)
        lv->last = *t;
    if (L->mon.mon && dg_monitor_peek(L->mon.mon, &lv->mon, &lv->nmon, &lv->capmon, &lv->repl, &lv->nrepl,
                                      &lv->caprepl))
        fprintf(stderr, "dbgauge %s: --live: out of memory for the monitor's points\n", L->cmd);
    sum_commits(lv, t->series, L->n);
    publish_metrics(L, t);
    if (t->series && dg_live_watched(lv->srv))
        publish_run(L, t);
}

void life_live_end(struct life *L)
{
    struct life_live *lv = &L->live;
    if (lv->srv && lv->last.phase != DG_PHASE_DONE) { /* the runner's own "done" tick did not come */
        lv->last.phase = DG_PHASE_DONE;
        lv->last.series = NULL; /* gone with the run: the counts stay, the latency histograms go */
        publish_metrics(L, &lv->last);
    }
    if (lv->srv) {
        if (lv->own)
            dg_live_stop(lv->srv);
    }
    free(lv->mon);
    free(lv->repl);
    memset(lv, 0, sizeof *lv);
}
