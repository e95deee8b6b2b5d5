/* runfig.c — counts, rates and headline figures of one stored run, as every rendering reads
 * them. Pure lookups over a record: no store, no formatting beyond a column head. */
#include "report/runfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t dg_txn_count(const struct dg_txn_summary *t) { return t->committed + t->rollbacks; }

uint64_t dg_run_completed(const struct dg_run_record *r)
{
    uint64_t all = 0;
    for (int t = 0; t < r->ntypes; t++)
        all += dg_txn_count(&r->txn[t]);
    return all;
}

double dg_run_per_s(const struct dg_run_record *r, double v) { return r->measured_s > 0 ? v / r->measured_s : 0; }

const struct dg_figure *dg_run_fig(const struct dg_run_record *r, int k)
{
    return k >= 0 && k < r->nfigures ? &r->figures[k] : NULL;
}

double dg_run_fig_value(const struct dg_run_record *r, int k)
{
    const struct dg_figure *f = dg_run_fig(r, k);
    return f ? f->value : NAN;
}

const struct dg_figure *dg_target_fig(const struct dg_target_summary *t, int k)
{
    return k >= 0 && k < t->nfigures ? &t->figures[k] : NULL;
}

double dg_target_fig_value(const struct dg_target_summary *t, int k)
{
    const struct dg_figure *f = dg_target_fig(t, k);
    return f ? f->value : NAN;
}

const struct dg_figure *dg_rank_fig(const struct dg_rank_summary *x, int k)
{
    return k >= 0 && k < x->nfigures ? &x->figures[k] : NULL;
}

double dg_rank_fig_value(const struct dg_rank_summary *x, int k)
{
    const struct dg_figure *f = dg_rank_fig(x, k);
    return f ? f->value : NAN;
}

const struct dg_figure *dg_ranks_fig(const struct dg_run_record *r, int k)
{
    for (int i = 0; i < r->nranks; i++)
        if (dg_rank_fig(&r->ranks[i], k))
            return dg_rank_fig(&r->ranks[i], k);
    return NULL;
}

int dg_ranks_spread(const struct dg_run_record *r, struct dg_spread *s, double *pct)
{
    *s = (struct dg_spread){0};
    double *v = malloc(sizeof *v * 2 * (size_t)(r->nranks + 1)); /* the values counted, their pct */
    int *who = malloc(sizeof *who * (size_t)(r->nranks + 1));    /* the index of each in r->ranks */
    if (!v || !who) {
        free(v);
        free(who);
        return -1;
    }
    int n = 0;
    for (int k = 0; k < r->nranks; k++) {
        double x = dg_rank_fig_value(&r->ranks[k], 0);
        if (pct)
            pct[k] = NAN;
        if (isfinite(x)) {
            who[n] = k;
            v[n++] = x;
        }
    }
    if (n) {
        dg_spread_compute(v, n, s, v + n);
        for (int j = 0; pct && j < n; j++)
            pct[who[j]] = v[n + j];
        s->min_idx = r->ranks[who[s->min_idx]].rank;
        s->max_idx = r->ranks[who[s->max_idx]].rank;
    }
    free(v);
    free(who);
    return n;
}

int dg_target_node(const struct dg_run_record *r, int k)
{
    if (k < 0 || k >= r->ntargets || !r->targets[k].cluster)
        return 0;
    int node = 1;
    for (int i = 0; i < k; i++)
        node += r->targets[i].cluster == r->targets[k].cluster;
    return node;
}

const char *dg_target_label(const struct dg_run_record *r, int k, char *buf, size_t n)
{
    int node = dg_target_node(r, k);
    if (k < 0) /* an outage of a whole cluster: its stall */
        snprintf(buf, n, "cluster %d", -k);
    else if (node)
        snprintf(buf, n, "node %d of cluster %d", node, r->targets[k].cluster);
    else
        snprintf(buf, n, "target %d", k + 1);
    return buf;
}

double dg_figs_value(const struct dg_figure *figs, int n, const char *name)
{
    const struct dg_figure *f = dg_figure_find(figs, n, name);
    return f ? f->value : NAN;
}

int dg_run_has_time_fig(const struct dg_run_record *r)
{
    for (int k = 0; k < r->nfigures; k++)
        if (!strcmp(r->figures[k].unit, "s"))
            return 1;
    return 0;
}

int dg_run_same_fig(const struct dg_run_record *a, const struct dg_run_record *b, int k)
{
    const struct dg_figure *x = dg_run_fig(a, k), *y = dg_run_fig(b, k);
    return x && y ? !strcmp(x->name, y->name) : x == y;
}

const char *dg_figs_head(char *buf, size_t n_buf, const struct dg_run_record *const *runs, int n, int k)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        const struct dg_figure *f = dg_run_fig(runs[i], k);
        int seen = 0;
        for (int j = 0; f && j < i && !seen; j++) {
            const struct dg_figure *g = dg_run_fig(runs[j], k);
            seen = g && !strcmp(g->label, f->label);
        }
        if (f && !seen && o < n_buf)
            o += (size_t)snprintf(buf + o, n_buf - o, "%s%s", o ? " or " : "", f->label);
    }
    return buf;
}

int dg_run_events_recorded(const struct dg_run_record *r) { return r->schedule_known; }

uint64_t dg_run_in_doubt(const struct dg_run_record *r)
{
    uint64_t n = 0;
    for (int t = 0; t < r->ntypes; t++)
        n += r->txn[t].in_doubt;
    return n;
}

int dg_run_schedule_counted(const struct dg_run_record *r)
{
    /* A window that completed transactions had arrivals: none recorded means a runner that
     * did not count them (schema 10's columns filled with 0 before the runner counted). */
    return r->schedule_known && (r->arrivals > 0 || dg_run_completed(r) == 0);
}

double dg_run_late_pct(const struct dg_run_record *r)
{
    return r->arrivals ? 100.0 * (double)(r->late + r->skipped) / (double)r->arrivals : 0;
}

int dg_run_kept_up(const struct dg_run_record *r)
{
    if (dg_run_schedule_counted(r)) /* integers: exactly "at most 1%" */
        return (r->late + r->skipped) * 100 <= r->arrivals;
    return dg_run_per_s(r, (double)dg_run_completed(r)) >= 0.95 * r->rate_asked && r->lag_p99_ms < 100;
}

double dg_outage_rto(const struct dg_outage *o)
{
    if (o->first_commit_s < 0)
        return -1;
    return o->first_commit_s + (o->last_commit_s > 0 ? o->last_commit_s : 0);
}

int dg_run_failover(const struct dg_run_record *r, struct dg_failover *f)
{
    if (!r->noutages)
        return 0;
    int best = -1;
    for (int k = 0; k < r->noutages; k++) { /* one that never ended counts as the longest */
        if (r->outages[k].target < 0)
            continue; /* a cluster's stall: no server was lost, nothing failed over */
        double a = dg_outage_rto(&r->outages[k]), b = best >= 0 ? dg_outage_rto(&r->outages[best]) : 0;
        if (best < 0 || (b >= 0 && (a < 0 || a > b)))
            best = k;
    }
    if (best < 0)
        return 0;
    const struct dg_outage *o = &r->outages[best];
    double gap = o->last_commit_s > 0 ? o->last_commit_s : 0;
    *f = (struct dg_failover){.outage = best, .target = o->target, .rto_s = dg_outage_rto(o),
                              .recovery_s = o->recovery_s >= 0 ? o->recovery_s + gap : -1,
                              .audited = r->audited, .lost = r->audited ? r->audit.lost : -1,
                              .lost_seconds = -1};
    if (r->audited && r->audit.lost > 0) {
        double last_ms = (o->start_s - gap) * 1000.0; /* the last commit before the outage */
        double s = (last_ms - (double)r->audit.lost_first_ms) / 1000.0;
        f->lost_seconds = s > 0 ? s : 0;
    } else if (r->audited) {
        f->lost_seconds = 0;
    }
    return 1;
}
