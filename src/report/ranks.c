/* ranks.c — renders a stored run driven from several client processes (MPI ranks): each rank's
 * row (its host, state, share of the users, counts, headline figures, latency, CPU and start
 * offset) and the spread of the headline over the ranks that reported, as targets.c shows
 * several targets'. Formatting of a record only; computes nothing but the spread (runfig.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/summary.h"

static int dead(const struct dg_rank_summary *x) { return !strcmp(x->state, "dead"); }

/* The headline's spread over r's ranks and each rank's percent from its mean (*pct: r->nranks
 * values, malloc'd, the caller's). How many ranks it counts, or -1 out of memory. */
static int spread(const struct dg_run_record *r, struct dg_spread *s, double **pct)
{
    *pct = malloc(sizeof **pct * (size_t)r->nranks);
    int n = *pct ? dg_ranks_spread(r, s, *pct) : -1;
    if (n < 0) {
        free(*pct);
        *pct = NULL;
    }
    return n;
}

/* The points of rank k's host: rank 0's host is the run's own monitor. */
static void host_points(const struct dg_run_record *r, int k, const struct dg_monitor_point **pts, size_t *n)
{
    const struct dg_rank_summary *x = &r->ranks[k];
    *pts = x->rank == 0 ? r->monitor : x->monitor;
    *n = x->rank == 0 ? r->nmonitor : x->nmonitor;
}

/* Mean host CPU (user + system, %) of the measured window from pts, or -1 without. */
static double host_cpu(const struct dg_monitor_point *pts, size_t n)
{
    struct dg_monitor_summary m;
    dg_monitor_summarise(pts, n, &m);
    return m.n && m.cpu_user_pct >= 0 && m.cpu_sys_pct >= 0 ? m.cpu_user_pct + m.cpu_sys_pct : -1;
}

enum { C_VT, C_COMMITTED, C_ERRORS, C_F0, C_F1, C_PCT, C_P95, C_P99, C_CPU, C_START, C_HOST, NCELLS };

/* Rank x's cells of the text table ("-" where a dead rank measured nothing); host_cpu_pct: its
 * host's mean CPU (user + system), -1 unknown. */
static void cells(const struct dg_rank_summary *x, double pct, double host_cpu_pct, char c[NCELLS][32])
{
    if (x->terminals)
        snprintf(c[C_VT], sizeof c[C_VT], "%d/%d", x->vus, x->terminals);
    else
        snprintf(c[C_VT], sizeof c[C_VT], "%d", x->vus);
    snprintf(c[C_START], sizeof c[C_START], "%+.3f", x->start_offset_ms);
    if (host_cpu_pct >= 0)
        snprintf(c[C_HOST], sizeof c[C_HOST], "%.1f%%", host_cpu_pct);
    else
        snprintf(c[C_HOST], sizeof c[C_HOST], "-");
    if (dead(x)) {
        for (int i = C_COMMITTED; i < C_START; i++)
            snprintf(c[i], sizeof c[i], "-");
        return;
    }
    snprintf(c[C_COMMITTED], sizeof c[C_COMMITTED], "%llu", (unsigned long long)x->committed);
    snprintf(c[C_ERRORS], sizeof c[C_ERRORS], "%llu", (unsigned long long)x->errors);
    dg_report_fig_text(dg_rank_fig(x, 0), c[C_F0], sizeof c[C_F0]);
    dg_report_fig_text(dg_rank_fig(x, 1), c[C_F1], sizeof c[C_F1]);
    if (isfinite(pct))
        snprintf(c[C_PCT], sizeof c[C_PCT], "%+.1f%%", pct);
    else
        snprintf(c[C_PCT], sizeof c[C_PCT], "-");
    snprintf(c[C_P95], sizeof c[C_P95], "%.2f", x->p95_ms);
    snprintf(c[C_P99], sizeof c[C_P99], "%.2f", x->p99_ms);
    snprintf(c[C_CPU], sizeof c[C_CPU], "%.3f", x->client_cpu_s);
}

void dg_report_ranks_text(FILE *out, const struct dg_run_record *r)
{
    if (!r->nranks)
        return;
    struct dg_spread s;
    double *pct;
    int n = spread(r, &s, &pct);
    if (n < 0) {
        fprintf(out, "\n  (per-rank table: out of memory)\n");
        return;
    }
    const struct dg_figure *f0 = dg_ranks_fig(r, 0), *f1 = dg_ranks_fig(r, 1);
    const char *h0 = f0 ? f0->label : "", *h1 = f1 ? f1->label : "";
    char pm[32], c[NCELLS][32];
    snprintf(pm, sizeof pm, "%s+-%%", h0);
    fprintf(out, "\n  per rank (%d client processes, one measured window; percent from the plain mean of the %d "
                 "that reported)\n", r->nranks, n);
    fprintf(out, "  %4s  %-20s %-11s %9s %10s %7s %10s %10s %8s %8s %8s %8s %10s %9s\n", "rank", "host", "state",
            "VUs/terms", "committed", "errors", h0, h1, pm, "p95 ms", "p99 ms", "CPU s", "start ms", "host CPU");
    for (int k = 0; k < r->nranks; k++) {
        const struct dg_rank_summary *x = &r->ranks[k];
        const struct dg_monitor_point *pts;
        size_t npts;
        host_points(r, k, &pts, &npts);
        cells(x, pct[k], host_cpu(pts, npts), c);
        fprintf(out, "  %4d  %-20.20s %-11s %9s %10s %7s %10s %10s %8s %8s %8s %8s %10s %9s", x->rank, x->host,
                x->state, c[C_VT], c[C_COMMITTED], c[C_ERRORS], c[C_F0], c[C_F1], c[C_PCT], c[C_P95], c[C_P99],
                c[C_CPU], c[C_START], c[C_HOST]);
        if (x->workers_failed)
            fprintf(out, "  (%d VU%s gave up)", x->workers_failed, x->workers_failed == 1 ? "" : "s");
        fprintf(out, "\n");
    }
    char line[256];
    if (n > 1)
        fprintf(out, "  spread   %s\n", dg_report_spread_text(line, sizeof line, h0, f0 ? f0->decimals : 0, &s, "rank ", 0));
    free(pct);
}

/* {samples, cpu_user_pct, cpu_sys_pct, cpu_iowait_pct} of a rank's host over the window. */
static cJSON *host_json(const struct dg_monitor_point *pts, size_t n)
{
    struct dg_monitor_summary m;
    dg_monitor_summarise(pts, n, &m);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "samples", (double)m.n);
    const double v[] = {m.cpu_user_pct, m.cpu_sys_pct, m.cpu_iowait_pct};
    const char *names[] = {"cpu_user_pct", "cpu_sys_pct", "cpu_iowait_pct"};
    for (int i = 0; i < 3; i++)
        if (m.n && v[i] >= 0)
            cJSON_AddNumberToObject(j, names[i], v[i]);
        else
            cJSON_AddNullToObject(j, names[i]);
    return j;
}

/* Rank x as a new JSON object (pct: its percent from the ranks' mean, NAN: not counted). */
static cJSON *rank_json(const struct dg_rank_summary *x, double pct, const struct dg_monitor_point *pts, size_t npts)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "rank", x->rank);
    cJSON_AddStringToObject(j, "host", x->host);
    cJSON_AddStringToObject(j, "state", x->state);
    cJSON_AddNumberToObject(j, "vus", x->vus);
    cJSON_AddNumberToObject(j, "terminals", x->terminals);
    cJSON_AddNumberToObject(j, "workers_failed", x->workers_failed);
    cJSON_AddNumberToObject(j, "committed", (double)x->committed);
    cJSON_AddNumberToObject(j, "errors", (double)x->errors);
    cJSON_AddNumberToObject(j, "measured_s", x->measured_s);
    cJSON_AddNumberToObject(j, "client_cpu_s", x->client_cpu_s);
    cJSON_AddNumberToObject(j, "clock_offset_ms", x->clock_offset_ms);
    cJSON_AddNumberToObject(j, "start_offset_ms", x->start_offset_ms);
    cJSON_AddNumberToObject(j, "p50_ms", x->p50_ms);
    cJSON_AddNumberToObject(j, "p95_ms", x->p95_ms);
    cJSON_AddNumberToObject(j, "p99_ms", x->p99_ms);
    dg_report_figures_json(cJSON_AddObjectToObject(j, "figures"), x->figures, x->nfigures);
    if (isfinite(pct))
        cJSON_AddNumberToObject(j, "pct_from_mean", pct);
    else
        cJSON_AddNullToObject(j, "pct_from_mean");
    cJSON_AddItemToObject(j, "host_monitor", host_json(pts, npts));
    return j;
}

void dg_report_ranks_json(cJSON *o, const struct dg_run_record *r)
{
    if (!r->nranks)
        return;
    struct dg_spread s;
    double *pct;
    int n = spread(r, &s, &pct);
    if (n < 0)
        return;
    cJSON *arr = cJSON_AddArrayToObject(o, "ranks");
    for (int k = 0; k < r->nranks; k++) {
        const struct dg_monitor_point *pts;
        size_t npts;
        host_points(r, k, &pts, &npts);
        cJSON_AddItemToArray(arr, rank_json(&r->ranks[k], pct[k], pts, npts));
    }
    cJSON *sp = cJSON_AddObjectToObject(o, "ranks_spread");
    cJSON_AddStringToObject(sp, "mean_of", "ranks");
    cJSON_AddNumberToObject(sp, "counted", n); /* the ranks with figures: a dead rank has none */
    const struct dg_figure *f0 = dg_ranks_fig(r, 0);
    if (n > 0 && f0) {
        cJSON_AddItemToObject(sp, f0->name, dg_report_spread_json(&s, "rank", 0));
        cJSON_AddNumberToObject(sp, "fastest", s.max_idx);
        cJSON_AddNumberToObject(sp, "slowest", s.min_idx);
    }
    free(pct);
}
