/* runcharts.c — builds the charts of runs (per second: throughput, latency, errors and
 * reconnects, the monitor's series and replication lag, each with the run's outages and
 * faults drawn on it;
 * percentile curves from the full histograms; each target's figures), of groups and of
 * experiments (a figure per step, with percent changes).
 * Reads records only; renders nothing. */
#include "report/runcharts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/spread.h"
#include "report/repl.h"


static void make_id(char *buf, size_t n, const char *prefix, const char *what)
{
    snprintf(buf, n, "%s-%s", prefix, what);
}

/* Shades the warm-up, from the first (negative) second to 0; nothing when there is none. */
/* The y axis of a figure's chart: "per minute" for "/min", else its unit. */
static const char *unit_words(const struct dg_figure *f)
{
    return !f ? "" : !strcmp(f->unit, "/min") ? "per minute" : f->unit;
}

static void shade_warmup(struct dg_chart *c, size_t n, int64_t first_second)
{
    if (!n || first_second >= 0)
        return;
    c->has_shade = 1;
    c->shade_lo = (double)first_second;
    c->shade_hi = 0;
    snprintf(c->shade_label, sizeof c->shade_label, "warm-up");
}

/* What the run went through, on a per-second chart: each outage shaded from its first error
 * to its first connection made again, each fault marked from its start to its end. A span
 * still open when the run ended runs to the chart's last second. 0, or -1 out of memory. */
static int mark_events(struct dg_chart *c, const struct dg_run_record *r)
{
    char label[96];
    double end = c->nx ? c->x[c->nx - 1] + 1 : r->measured_s;
    for (int k = 0; k < r->noutages; k++) {
        const struct dg_outage *o = &r->outages[k];
        if (r->ntargets > 1) {
            char who[48];
            snprintf(label, sizeof label, "%s, %s", o->target < 0 ? "stall" : "outage",
                     dg_target_label(r, o->target, who, sizeof who));
        }
        else
            snprintf(label, sizeof label, "outage");
        if (dg_chart_span(c, DG_SPAN_SHADE, o->start_s, o->duration_s >= 0 ? o->start_s + o->duration_s : end, label))
            return -1;
    }
    for (int k = 0; k < r->nfaults; k++) {
        const struct dg_fault_event *f = &r->faults[k];
        double from = f->start_s >= 0 ? f->start_s : f->offset_s;
        snprintf(label, sizeof label, "fault: %.60s%s", f->command, strlen(f->command) > 60 ? "..." : "");
        if (dg_chart_span(c, DG_SPAN_MARK, from, f->end_s >= 0 ? f->end_s : end, label))
            return -1;
    }
    return 0;
}

int dg_chart_run_throughput(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r)
{
    char id[40], title[200];
    make_id(id, sizeof id, id_prefix, "tput");
    int iter = r->query != NULL; /* a run of one query counts its iterations */
    snprintf(title, sizeof title, "Run %lld: %s per second", (long long)r->id,
             iter ? "iterations" : "transactions");
    if (dg_chart_init(c, id, title, "second", iter ? "iterations/s" : "txn/s", r->nseries))
        return -1;
    double *all = dg_chart_add(c, iter ? "iterations" : "all types, completed", "/s", 0);
    double *first = !iter && r->ntypes > 1 ? dg_chart_add(c, r->txn[0].name, "committed/s", 0) : NULL;
    if (!all || (!iter && r->ntypes > 1 && !first))
        return -1;
    for (size_t k = 0; k < r->nseries; k++) {
        const struct dg_series_point *p = &r->series[k];
        c->x[k] = (double)p->second;
        uint64_t n = 0;
        for (int t = 0; t < r->ntypes; t++)
            n += p->t[t].c.committed + p->t[t].c.rollbacks;
        all[k] = (double)n;
        if (first)
            first[k] = (double)p->t[0].c.committed;
    }
    shade_warmup(c, r->nseries, r->nseries ? r->series[0].second : 0);
    return mark_events(c, r);
}

int dg_chart_run_latency(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r)
{
    char id[40], title[200], name[96];
    make_id(id, sizeof id, id_prefix, "lat");
    snprintf(title, sizeof title, "Run %lld: p95 and p99 latency per second", (long long)r->id);
    if (dg_chart_init(c, id, title, "second", "ms", r->nseries))
        return -1;
    for (int t = 0; t < r->ntypes && c->nseries + 2 <= DG_CHART_MAX_SERIES; t++) {
        snprintf(name, sizeof name, "%s p95", r->txn[t].name);
        double *p95 = dg_chart_add(c, name, "ms", t > 0);
        snprintf(name, sizeof name, "%s p99", r->txn[t].name);
        double *p99 = dg_chart_add(c, name, "ms", t > 0);
        if (!p95 || !p99)
            return -1;
        for (size_t k = 0; k < r->nseries; k++) {
            const struct dg_series_type *x = &r->series[k].t[t];
            int any = x->c.committed + x->c.rollbacks > 0;
            p95[k] = any ? x->p95_ms : NAN;
            p99[k] = any ? x->p99_ms : NAN;
        }
    }
    for (size_t k = 0; k < r->nseries; k++)
        c->x[k] = (double)r->series[k].second;
    shade_warmup(c, r->nseries, r->nseries ? r->series[0].second : 0);
    return mark_events(c, r);
}

int dg_chart_run_has_errors(const struct dg_run_record *r)
{
    if (dg_run_events_recorded(r))
        return 1;
    for (size_t k = 0; k < r->nseries; k++)
        for (int t = 0; t < r->ntypes; t++)
            if (r->series[k].t[t].c.errors || r->series[k].t[t].c.retries)
                return 1;
    return 0;
}

int dg_chart_run_errors(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r)
{
    char id[40], title[200];
    int rec = dg_run_events_recorded(r); /* reconnects were not kept before schema 10 */
    make_id(id, sizeof id, id_prefix, "err");
    snprintf(title, sizeof title, "Run %lld: errors%s per second", (long long)r->id, rec ? " and reconnects" : "");
    if (dg_chart_init(c, id, title, "second", "per second", r->nseries))
        return -1;
    double *errors = dg_chart_add(c, "errors", "/s", 0);
    double *reconnects = rec ? dg_chart_add(c, "reconnects", "/s", 0) : NULL;
    double *retries = dg_chart_add(c, "retries", "/s", 1);
    if (!errors || (rec && !reconnects) || !retries)
        return -1;
    for (size_t k = 0; k < r->nseries; k++) {
        const struct dg_series_point *p = &r->series[k];
        uint64_t e = 0, re = 0;
        for (int t = 0; t < r->ntypes; t++) {
            e += p->t[t].c.errors;
            re += p->t[t].c.retries;
        }
        c->x[k] = (double)p->second;
        errors[k] = (double)e;
        retries[k] = (double)re;
        if (reconnects)
            reconnects[k] = (double)p->reconnects;
    }
    shade_warmup(c, r->nseries, r->nseries ? r->series[0].second : 0);
    return mark_events(c, r);
}

int dg_chart_curve_init(struct dg_chart *c, const char *id, const char *title)
{
    char text[32];
    if (dg_chart_init(c, id, title, "percentile", "ms", DG_CURVE_POINTS))
        return -1;
    c->x_kind = DG_X_NINES;
    c->log_y = 1;
    for (int i = 0; i < DG_CURVE_POINTS; i++) {
        double p = dg_curve_percentiles[i];
        c->x[i] = dg_curve_x(p);
        if (p >= 100)
            snprintf(text, sizeof text, "max");
        else
            snprintf(text, sizeof text, "%g%%", p);
        if (dg_chart_x_text(c, (size_t)i, text))
            return -1;
    }
    return 0;
}

int dg_chart_run_percentiles(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r)
{
    char id[40], title[200];
    make_id(id, sizeof id, id_prefix, "pct");
    snprintf(title, sizeof title, "Run %lld: latency by percentile (full histograms, log scale)",
             (long long)r->id);
    if (dg_chart_curve_init(c, id, title))
        return -1;
    for (int t = 0; t < r->ntypes && t < DG_CHART_MAX_SERIES; t++) {
        double *v = dg_chart_add(c, r->txn[t].name, "ms", 0);
        if (!v)
            return -1;
        for (int i = 0; i < DG_CURVE_POINTS; i++)
            v[i] = dg_curve_ms(r->txn[t].hist, dg_curve_percentiles[i]);
    }
    return 0;
}

double dg_step_value(const struct dg_run_record *r, enum dg_step_figure f)
{
    switch (f) {
    case DG_STEP_HEADLINE: return dg_run_fig_value(r, 0);
    case DG_STEP_RUN_TIME: return r->measured_s;
    case DG_STEP_SECOND: return dg_run_fig_value(r, 1);
    case DG_STEP_P95: return r->ntypes ? r->txn[0].p95_ms : NAN;
    }
    return NAN;
}

const char *dg_step_name(const struct dg_run_record *r, enum dg_step_figure f, const char **unit)
{
    static const char *const names[] = {"", "run time", "", "p95 latency"};
    static const char *const units[] = {"", "s", "", "ms"};
    const struct dg_figure *fig = f == DG_STEP_HEADLINE ? dg_run_fig(r, 0) : f == DG_STEP_SECOND ? dg_run_fig(r, 1) : NULL;
    if (unit)
        *unit = fig ? fig->unit : units[f];
    return fig ? fig->label : names[f];
}

int dg_chart_group_steps(struct dg_chart *c, const char *id_prefix, const struct dg_report_item *g,
                         enum dg_step_figure f)
{
    static const char *const ids[] = {"mbps", "time", "rows", "p95"}; /* "mbps": the headline */
    char id[40], title[200], text[32];
    const char *unit;
    const char *name = dg_step_name(&g->runs[0], f, &unit);
    make_id(id, sizeof id, id_prefix, ids[f]);
    snprintf(title, sizeof title, "Group %lld: %s per thread count (percent change from the step before)",
             (long long)g->id, name);
    if (dg_chart_init(c, id, title, "threads", unit, (size_t)g->nruns))
        return -1;
    c->bars = 1;
    double *v = dg_chart_add(c, name, unit, 0);
    if (!v)
        return -1;
    for (int i = 0; i < g->nruns; i++) {
        c->x[i] = i + 1;
        v[i] = dg_step_value(&g->runs[i], f);
        snprintf(text, sizeof text, "%d", g->runs[i].vus);
        if (dg_chart_x_text(c, (size_t)i, text))
            return -1;
        if (i > 0 && dg_chart_label(c, 0, (size_t)i, dg_pct_change(text, sizeof text, v[i - 1], v[i])))
            return -1;
    }
    return 0;
}

int dg_chart_group_latency(struct dg_chart *c, const char *id_prefix, const struct dg_report_item *g)
{
    char id[40], title[200], text[32];
    make_id(id, sizeof id, id_prefix, "steplat");
    snprintf(title, sizeof title, "Group %lld: latency per thread count", (long long)g->id);
    if (dg_chart_init(c, id, title, "threads", "ms", (size_t)g->nruns))
        return -1;
    double *p50 = dg_chart_add(c, "p50", "ms", 0), *p95 = dg_chart_add(c, "p95", "ms", 0),
           *p99 = dg_chart_add(c, "p99", "ms", 0);
    if (!p50 || !p95 || !p99)
        return -1;
    for (int i = 0; i < g->nruns; i++) {
        const struct dg_run_record *r = &g->runs[i];
        c->x[i] = i + 1;
        snprintf(text, sizeof text, "%d", r->vus);
        if (dg_chart_x_text(c, (size_t)i, text))
            return -1;
        p50[i] = r->ntypes ? r->txn[0].p50_ms : NAN;
        p95[i] = r->ntypes ? r->txn[0].p95_ms : NAN;
        p99[i] = r->ntypes ? r->txn[0].p99_ms : NAN;
    }
    return 0;
}

/* The monitor's figure k of a point (in the order of struct dg_monitor_point after second). */
static double mon_fig(const struct dg_monitor_point *p, int k)
{
    const double v[] = {p->cpu_user_pct,    p->cpu_sys_pct,     p->cpu_iowait_pct, p->disk_read_mb_s,
                        p->disk_write_mb_s, p->disk_read_iops,  p->disk_write_iops, p->disk_await_ms};
    return v[k] < 0 ? NAN : v[k]; /* -1: not available */
}

int dg_chart_run_monitor(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r,
                         enum dg_monitor_chart which)
{
    static const char *const ids[] = {"moncpu", "mondisk", "moniops"};
    static const char *const what[] = {"host CPU", "disk MB/s", "disk IOPS and mean I/O time"};
    static const char *const units[] = {"%", "MB/s", "IOPS"};
    static const char *const names[][3] = {{"user", "system", "iowait"},
                                           {"read", "write", NULL},
                                           {"read IOPS", "write IOPS", "await ms"}};
    static const int first[] = {0, 3, 5};
    char id[40], title[200];
    make_id(id, sizeof id, id_prefix, ids[which]);
    snprintf(title, sizeof title, "Run %lld: monitor, %s per second (device %s)", (long long)r->id,
             what[which], which == DG_MON_CPU ? "-" : r->monitor_device[0] ? r->monitor_device : "none");
    if (dg_chart_init(c, id, title, "second", units[which], r->nmonitor))
        return -1;
    for (int k = 0; k < 3 && names[which][k]; k++) {
        /* await is in ms, not IOPS: in the table and the legend, off the plot until asked */
        double *v = dg_chart_add(c, names[which][k], which == DG_MON_CPU ? "%" : k == 2 ? "ms" : units[which],
                                 which == DG_MON_IOPS && k == 2);
        if (!v)
            return -1;
        for (size_t i = 0; i < r->nmonitor; i++)
            v[i] = mon_fig(&r->monitor[i], first[which] + k);
    }
    for (size_t i = 0; i < r->nmonitor; i++)
        c->x[i] = (double)r->monitor[i].second;
    shade_warmup(c, r->nmonitor, r->nmonitor ? r->monitor[0].second : 0);
    return mark_events(c, r);
}

int dg_chart_run_has_repl(const struct dg_run_record *r, int bytes)
{
    for (size_t k = 0; k < r->nrepl; k++)
        if ((bytes ? r->repl[k].row.lag_bytes : r->repl[k].row.replay_lag_s) >= 0)
            return 1;
    return 0;
}

int dg_chart_run_repl(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r, int bytes)
{
    struct dg_repl_peer peers[DG_REPL_MAX_PEERS];
    int n = dg_repl_peers(r, peers, DG_CHART_MAX_SERIES);
    int64_t lo = r->nrepl ? r->repl[0].second : 0, hi = r->nrepl ? r->repl[r->nrepl - 1].second : -1;
    char id[40], title[200], name[64];
    make_id(id, sizeof id, id_prefix, bytes ? "replbytes" : "repllag");
    snprintf(title, sizeof title, "Run %lld: replication, %s per second and peer", (long long)r->id,
             bytes ? "bytes sent (or received) and not replayed" : "replay lag");
    if (dg_chart_init(c, id, title, "second", bytes ? "bytes" : "s", (size_t)(hi - lo + 1)))
        return -1;
    double *v[DG_REPL_MAX_PEERS];
    for (int i = 0; i < n; i++) {
        if (r->ntargets > 1)
            snprintf(name, sizeof name, "#%d %s", peers[i].target + 1, peers[i].name);
        else
            snprintf(name, sizeof name, "%s", peers[i].name);
        if (!(v[i] = dg_chart_add(c, name, bytes ? "bytes" : "s", 0)))
            return -1;
    }
    for (int64_t s = lo; s <= hi; s++)
        c->x[s - lo] = (double)s;
    for (size_t k = 0; k < r->nrepl; k++) {
        const struct dg_repl_point *p = &r->repl[k];
        int i = dg_repl_peer_index(peers, n, p);
        double y = bytes ? p->row.lag_bytes : p->row.replay_lag_s;
        if (i >= 0 && y >= 0)
            v[i][p->second - lo] = y;
    }
    shade_warmup(c, c->nx, lo);
    return mark_events(c, r);
}

int dg_chart_run_targets(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r,
                         int latency)
{
    char id[40], title[200], text[32];
    int n = r->ntargets;
    double *v = malloc(sizeof *v * (size_t)(n ? n : 1)), *pct = malloc(sizeof *pct * (size_t)(n ? n : 1));
    struct dg_spread sp;
    int rc = -1;
    if (!v || !pct || n < 1)
        goto out;
    const struct dg_figure *f0 = dg_target_fig(&r->targets[0], 0), *f1 = dg_target_fig(&r->targets[0], 1);
    make_id(id, sizeof id, id_prefix, latency ? "tlat" : "tnopm"); /* "tnopm": the headline's */
    if (latency)
        snprintf(title, sizeof title, "Run %lld: each target's latency, all types (percent from the mean of avg)",
                 (long long)r->id);
    else
        snprintf(title, sizeof title, "Run %lld: each target's %s and %s beside the mean and the total (percent from the mean)",
                 (long long)r->id, f0 ? f0->label : "", f1 ? f1->label : "");
    /* x: the targets, then the mean of the targets, then (throughput only) the run's total */
    if (dg_chart_init(c, id, title, "target", latency ? "ms" : unit_words(f0), (size_t)n + (latency ? 1 : 2)))
        goto out;
    c->bars = 1;
    double *a = dg_chart_add(c, latency ? "avg" : f0 ? f0->label : "", latency ? "ms" : f0 ? f0->unit : "", 0);
    double *b = dg_chart_add(c, latency ? "p95" : f1 ? f1->label : "", latency ? "ms" : f1 ? f1->unit : "", 0);
    if (!a || !b)
        goto out;
    for (int k = 0; k < n; k++)
        v[k] = latency ? r->targets[k].avg_ms : dg_target_fig_value(&r->targets[k], 0);
    dg_spread_compute(v, n, &sp, pct);
    double mean_b = 0;
    for (int k = 0; k < n; k++) {
        const struct dg_target_summary *t = &r->targets[k];
        c->x[k] = k + 1;
        a[k] = v[k];
        b[k] = latency ? t->p95_ms : dg_target_fig_value(t, 1);
        mean_b += b[k] / n;
        if (t->cluster) /* the nodes of one cluster: "c1 n2" */
            snprintf(text, sizeof text, "c%d n%d", t->cluster, dg_target_node(r, k));
        else
            snprintf(text, sizeof text, "#%d", k + 1);
        if (dg_chart_x_text(c, (size_t)k, text) ||
            dg_chart_label(c, 0, (size_t)k, dg_pct_from_mean(text, sizeof text, pct[k])))
            goto out;
    }
    c->x[n] = n + 1;
    a[n] = sp.mean;
    b[n] = mean_b;
    if (dg_chart_x_text(c, (size_t)n, "mean"))
        goto out;
    if (!latency) {
        c->x[n + 1] = n + 2;
        a[n + 1] = f0 ? dg_figs_value(r->figures, r->nfigures, f0->name) : NAN; /* the run's own */
        b[n + 1] = f1 ? dg_figs_value(r->figures, r->nfigures, f1->name) : NAN;
        if (dg_chart_x_text(c, (size_t)n + 1, "total"))
            goto out;
    }
    rc = 0;
out:
    free(v);
    free(pct);
    return rc;
}

int dg_chart_exp_steps(struct dg_chart *c, const char *id_prefix, const struct dg_exp_table *t,
                       enum dg_exp_figure f)
{
    static const char *const ids[] = {"tput", "rows", "lat", "disk"}; /* "rows": the second figure's */
    static const char *const what[] = {"throughput", NULL, "latency (all types)",
                                       "storage traffic (monitor, measured-window means)"};
    static const int labelled[] = {0, 0, 1, 2};
    char id[40], title[200], text[32];
    const char *unit, *x_label = t->nkeys == 1 ? t->keys[0] : "step";
    const struct dg_exp_step *first = t->n ? &t->steps[0] : NULL;
    int ns = first ? dg_exp_nseries(first, f) : 1;
    make_id(id, sizeof id, id_prefix, ids[f]);
    const char *lab = dg_exp_series_name(first, f, labelled[f], &unit);
    snprintf(title, sizeof title, "Experiment %lld: %s per %s (percent change of %s from the step before)",
             (long long)t->ex.id, what[f] ? what[f] : lab, x_label, lab);
    if (dg_chart_init(c, id, title, x_label, unit, (size_t)t->n))
        return -1;
    c->bars = 1;
    double *v[3] = {NULL, NULL, NULL};
    for (int k = 0; k < ns; k++)
        if (!(v[k] = dg_chart_add(c, dg_exp_series_name(first, f, k, &unit), unit, 0)))
            return -1;
    for (int i = 0; i < t->n; i++) {
        const struct dg_exp_step *w = &t->steps[i];
        c->x[i] = i + 1;
        int other = !dg_run_same_fig(&w->rec, &first->rec, 0); /* other figures than the first step's */
        for (int k = 0; k < ns; k++)
            v[k][i] = (f == DG_EXP_THROUGHPUT || f == DG_EXP_SECOND) && other ? NAN : dg_exp_value(w, f, k);
        if (dg_chart_x_text(c, (size_t)i, dg_exp_x_text(t, i)))
            return -1;
        if (!i || !dg_run_same_fig(&w->rec, &w[-1].rec, 0)) /* a change across figures is n/a */
            continue;
        /* throughput: the step table's own change; the others from the plotted values */
        const char *lab = f == DG_EXP_THROUGHPUT ? dg_pct_from_mean(text, sizeof text, w->d_prev)
                                                 : dg_pct_change(text, sizeof text, v[labelled[f]][i - 1],
                                                                 v[labelled[f]][i]);
        if (dg_chart_label(c, labelled[f], (size_t)i, lab))
            return -1;
    }
    return 0;
}
