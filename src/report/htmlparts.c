/* htmlparts.c — the parts of a run's HTML section that only some runs have: the monitor's
 * headline cards, measured means and charts, a multi-target run's per-target charts, table
 * and spread, a ranked run's per-rank table and spread, and the tables of outages and faults. Every user text through dg_html_text; reads records only, computes only means. */
#include "report/htmlparts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/spread.h"
#include "report/runcharts.h"
#include "report/summary.h"

/* -1 (not available) as NAN: an empty cell */
static double avail(double v) { return v < 0 ? NAN : v; }

void dg_html_monitor_cards(FILE *out, const struct dg_run_record *r)
{
    if (!r->nmonitor)
        return;
    struct dg_monitor_summary s;
    dg_monitor_summarise(r->monitor, r->nmonitor, &s);
    if (s.disk_read_mb_s >= 0)
        dg_html_card(out, "mon_disk_read_mb_s", "disk read MB/s", s.disk_read_mb_s, 2);
    if (s.disk_write_mb_s >= 0)
        dg_html_card(out, "mon_disk_write_mb_s", "disk write MB/s", s.disk_write_mb_s, 2);
    if (s.cache_hit_ratio >= 0)
        dg_html_card(out, "mon_cache_hit_pct", "cache hit %", 100 * s.cache_hit_ratio, 2);
    if (s.cpu_user_pct >= 0)
        dg_html_card(out, "mon_cpu_busy_pct", "host CPU user+sys %",
                     s.cpu_user_pct + (s.cpu_sys_pct >= 0 ? s.cpu_sys_pct : 0), 1);
}

void dg_html_monitor_means(FILE *out, const struct dg_run_record *r)
{
    if (!r->nmonitor)
        return;
    struct dg_monitor_summary s;
    dg_monitor_summarise(r->monitor, r->nmonitor, &s);
    const struct {
        const char *key, *name;
        double v;
        int decimals;
    } rows[] = {
        {"cpu_user_pct", "CPU user %", s.cpu_user_pct, 2},
        {"cpu_sys_pct", "CPU system %", s.cpu_sys_pct, 2},
        {"cpu_iowait_pct", "CPU iowait %", s.cpu_iowait_pct, 2},
        {"disk_read_mb_s", "disk read MB/s", s.disk_read_mb_s, 3},
        {"disk_write_mb_s", "disk write MB/s", s.disk_write_mb_s, 3},
        {"disk_read_iops", "disk read IOPS", s.disk_read_iops, 1},
        {"disk_write_iops", "disk write IOPS", s.disk_write_iops, 1},
        {"disk_await_ms", "disk mean I/O time ms", s.disk_await_ms, 3},
        {"server_rss_bytes", "server resident bytes", s.server_rss_bytes, 0},
        {"server_read_mb_s", "server read MB/s", s.server_read_mb_s, 3},
        {"server_write_mb_s", "server write MB/s", s.server_write_mb_s, 3},
        {"cache_hits_per_s", "engine cache hits/s", s.cache_hits_per_s, 0},
        {"cache_misses_per_s", "engine cache misses/s", s.cache_misses_per_s, 0},
        {"cache_hit_ratio", "engine cache hit ratio", s.cache_hit_ratio, 4},
    };
    fprintf(out, "<h3>monitor (means of the %zu measured seconds)</h3><table class=\"kv monitor\">\n"
                 "<tr><td>device</td><td class=\"code\">",
            s.n);
    dg_html_text(out, r->monitor_device[0] ? r->monitor_device : "none");
    fprintf(out, "</td></tr>\n");
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        fprintf(out, "<tr data-mean=\"%s\"><td>%s</td>", rows[i].key, rows[i].name);
        dg_html_num_td(out, avail(rows[i].v), rows[i].decimals);
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</table>\n");
}

int dg_html_monitor_charts(FILE *out, const char *prefix, const struct dg_run_record *r)
{
    struct dg_chart c;
    int rc = 0;
    for (int bytes = 0; bytes < 2; bytes++)
        if (dg_chart_run_has_repl(r, bytes))
            rc |= dg_html_emit(out, &c, dg_chart_run_repl(&c, prefix, r, bytes));
    if (!r->nmonitor)
        return rc;
    rc |= dg_html_emit(out, &c, dg_chart_run_monitor(&c, prefix, r, DG_MON_CPU));
    rc |= dg_html_emit(out, &c, dg_chart_run_monitor(&c, prefix, r, DG_MON_DISK));
    rc |= dg_html_emit(out, &c, dg_chart_run_monitor(&c, prefix, r, DG_MON_IOPS));
    return rc;
}

/* The spread table's title and head: the mean of what (of), its members named who ("#", "rank"). */
static void spread_head(FILE *out, const char *of, const char *who)
{
    fprintf(out, "<h3>spread (around the plain mean of the %s)</h3>"
                 "<table class=\"data spread\"><thead><tr><th>figure</th><th>mean</th><th>min</th>"
                 "<th>min %s</th><th>min from mean %%</th><th>max</th><th>max %s</th><th>max from mean %%</th>"
                 "</tr></thead><tbody>\n", of, who, who);
}

/* One row of it: the members numbered index + base (targets from 1, ranks by rank number). */
static void spread_row(FILE *out, const char *key, const char *name, const struct dg_spread *s, int decimals, int base)
{
    fprintf(out, "<tr data-spread=\"%s\"><td>%s</td>", key, name);
    dg_html_num_td(out, s->mean, decimals);
    dg_html_num_td(out, s->min, decimals);
    dg_html_num_td(out, s->min_idx + base, 0);
    dg_html_num_td(out, s->min_pct, 1);
    dg_html_num_td(out, s->max, decimals);
    dg_html_num_td(out, s->max_idx + base, 0);
    dg_html_num_td(out, s->max_pct, 1);
    fprintf(out, "</tr>\n");
}

int dg_html_targets(FILE *out, const char *prefix, const struct dg_run_record *r)
{
    int n = r->ntargets;
    if (n < 1)
        return 0;
    double *v = malloc(sizeof *v * (size_t)n * 3);
    if (!v)
        return -1;
    double *pct = v + n, *lat_pct = v + 2 * n;
    struct dg_spread head, lat;
    const struct dg_figure *f0 = dg_target_fig(&r->targets[0], 0), *f1 = dg_target_fig(&r->targets[0], 1);
    const char *h0 = f0 ? f0->label : "", *h1 = f1 ? f1->label : "";
    for (int k = 0; k < n; k++)
        v[k] = dg_target_fig_value(&r->targets[k], 0);
    dg_spread_compute(v, n, &head, pct);
    for (int k = 0; k < n; k++)
        v[k] = r->targets[k].avg_ms;
    dg_spread_compute(v, n, &lat, lat_pct);
    fprintf(out, "<h3>per target (%d at once, one measured window)</h3><table class=\"data targets\"><thead><tr>"
                 "<th>#</th><th>target (redacted)</th><th>engine</th><th>W</th><th>VUs</th><th>%s</th>"
                 "<th>%s</th><th>%s from mean %%</th><th>avg ms</th><th>p50 ms</th><th>p95 ms</th>"
                 "<th>p99 ms</th><th>max ms</th><th>avg from mean %%</th><th>VUs stopped</th></tr></thead><tbody>\n",
            n, h0, h1, h0);
    for (int k = 0; k < n; k++) {
        const struct dg_target_summary *t = &r->targets[k];
        fprintf(out, "<tr data-target-idx=\"%d\">", t->idx);
        dg_html_num_td(out, k + 1, 0);
        fprintf(out, "<td class=\"code\">");
        dg_html_text(out, t->target);
        if (t->cluster) {
            char node[48];
            fprintf(out, " <span class=\"note\">(%s)</span>", dg_target_label(r, k, node, sizeof node));
        }
        fprintf(out, "</td><td>");
        dg_html_text(out, t->engine);
        fprintf(out, " ");
        dg_html_text(out, t->engine_version);
        fprintf(out, "</td>");
        const struct dg_figure *g0 = dg_target_fig(t, 0), *g1 = dg_target_fig(t, 1);
        const double x[] = {t->warehouses, t->vus, g0 ? g0->value : NAN, g1 ? g1->value : NAN, pct[k], t->avg_ms,
                            t->p50_ms, t->p95_ms, t->p99_ms, t->max_ms, lat_pct[k], t->workers_failed};
        const int d[] = {0, 0, g0 ? g0->decimals : 0, g1 ? g1->decimals : 0, 1, 3, 3, 3, 3, 3, 1, 0};
        for (size_t i = 0; i < sizeof x / sizeof *x; i++)
            dg_html_num_td(out, x[i], d[i]);
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</tbody></table>\n");
    spread_head(out, "targets", "#");
    spread_row(out, f0 ? f0->name : "", h0, &head, f0 ? f0->decimals : 0, 1);
    spread_row(out, "avg_ms", "avg latency ms", &lat, 3, 1);
    fprintf(out, "</tbody></table>\n<p class=\"spread-note\">fastest: target #%d (%+.1f%% from the mean %s); "
                 "slowest: target #%d (%+.1f%%).</p>\n",
            head.max_idx + 1, head.max_pct, h0, head.min_idx + 1, head.min_pct);
    free(v);
    struct dg_chart c;
    int rc = 0;
    rc |= dg_html_emit(out, &c, dg_chart_run_targets(&c, prefix, r, 0));
    rc |= dg_html_emit(out, &c, dg_chart_run_targets(&c, prefix, r, 1));
    return rc;
}

/* Rank x's row of the per-rank table (pct: its percent from the mean, NAN: not counted); a
 * dead rank measured nothing: empty cells. */
static void rank_row(FILE *out, const struct dg_rank_summary *x, double pct)
{
    const int dead = !strcmp(x->state, "dead");
    const struct dg_figure *g0 = dg_rank_fig(x, 0), *g1 = dg_rank_fig(x, 1);
    fprintf(out, "<tr data-rank=\"%d\" data-state=\"", x->rank);
    dg_html_text(out, x->state);
    fprintf(out, "\">");
    dg_html_num_td(out, x->rank, 0);
    fprintf(out, "<td class=\"code\">");
    dg_html_text(out, x->host);
    fprintf(out, "</td><td>");
    dg_html_text(out, x->state);
    fprintf(out, "</td>");
    const double m = dead ? NAN : 1; /* what the window measured */
    const double v[] = {x->vus, x->terminals, m * (double)x->committed, m * (double)x->errors,
                        g0 ? g0->value : NAN, g1 ? g1->value : NAN, pct, m * x->p50_ms, m * x->p95_ms,
                        m * x->p99_ms, m * x->client_cpu_s, x->clock_offset_ms, x->start_offset_ms,
                        x->workers_failed};
    const int d[] = {0, 0, 0, 0, g0 ? g0->decimals : 0, g1 ? g1->decimals : 0, 1, 3, 3, 3, 3, 3, 3, 0};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        dg_html_num_td(out, v[i], d[i]);
    fprintf(out, "</tr>\n");
}

int dg_html_ranks(FILE *out, const struct dg_run_record *r)
{
    if (r->nranks < 1)
        return 0;
    struct dg_spread s;
    double *pct = malloc(sizeof *pct * (size_t)r->nranks);
    int n = pct ? dg_ranks_spread(r, &s, pct) : -1;
    if (n < 0) {
        free(pct);
        return -1;
    }
    const struct dg_figure *f0 = dg_ranks_fig(r, 0), *f1 = dg_ranks_fig(r, 1);
    const char *h0 = f0 ? f0->label : "", *h1 = f1 ? f1->label : "";
    fprintf(out, "<h3>per rank (%d client processes, one measured window)</h3><table class=\"data ranks\"><thead><tr>"
                 "<th>rank</th><th>host</th><th>state</th><th>VUs</th><th>terminals</th><th>committed</th>"
                 "<th>errors</th><th>%s</th><th>%s</th><th>%s from mean %%</th><th>p50 ms</th><th>p95 ms</th>"
                 "<th>p99 ms</th><th>client CPU s</th><th>clock offset ms</th><th>start offset ms</th>"
                 "<th>VUs stopped</th></tr></thead><tbody>\n",
            r->nranks, h0, h1, h0);
    for (int k = 0; k < r->nranks; k++)
        rank_row(out, &r->ranks[k], pct[k]);
    fprintf(out, "</tbody></table>\n");
    if (n > 1) {
        spread_head(out, "ranks that reported", "rank");
        spread_row(out, f0 ? f0->name : "", h0, &s, f0 ? f0->decimals : 0, 0);
        fprintf(out, "</tbody></table>\n<p class=\"spread-note\">fastest: rank %d (%+.1f%% from the mean %s); "
                     "slowest: rank %d (%+.1f%%).</p>\n",
                s.max_idx, s.max_pct, h0, s.min_idx, s.min_pct);
    }
    free(pct);
    return 0;
}

/* A time that never came (stored -1) as an empty cell. */
static double came(double s) { return s < 0 ? NAN : s; }

/* One row of the outages or faults table: n numbers (d[i] decimals each), then code as text. */
static void event_row(FILE *out, const char *attr, int k, const double *x, const int *d, size_t n, const char *code)
{
    fprintf(out, "<tr %s=\"%d\">", attr, k);
    for (size_t i = 0; i < n; i++)
        dg_html_num_td(out, x[i], d[i]);
    fprintf(out, "<td class=\"code\">");
    dg_html_text(out, code);
    fprintf(out, "</td></tr>\n");
}

/* The failover's figures together: RTO, recovery, RPO (lost writes and seconds of them). */
static void failover_table(FILE *out, const struct dg_run_record *r)
{
    struct dg_failover f;
    if (!dg_run_failover(r, &f))
        return;
    fprintf(out, "<h3>failover (RTO: no commit from the last before the outage to the first after it; RPO: the "
                 "audit after the run)</h3><table class=\"data failover\"><thead><tr><th>target</th><th>RTO s</th>"
                 "<th>recovery s</th><th>acknowledged writes lost</th><th>seconds of them</th><th>audit</th>"
                 "</tr></thead><tbody>\n");
    const double x[] = {f.target + 1, came(f.rto_s), came(f.recovery_s), f.audited ? (double)f.lost : NAN,
                        came(f.lost_seconds)};
    const int d[] = {0, 3, 3, 0, 3};
    event_row(out, "data-failover", 0, x, d, sizeof x / sizeof *x,
              !r->audited ? "not made" : r->audit.pass ? "pass" : "FAIL");
    fprintf(out, "</tbody></table>\n");
}

void dg_html_events(FILE *out, const struct dg_run_record *r)
{
    failover_table(out, r);
    if (r->noutages) {
        fprintf(out, "<h3>outages (seconds from the start of the measured window; after: from the outage's start)</h3>"
                     "<table class=\"data outages\"><thead><tr><th>#</th><th>target</th><th>start s</th>"
                     "<th>duration s</th><th>errors</th><th>reconnects</th><th>first commit after s</th>"
                     "<th>back to 90%% after s</th><th>back on</th></tr></thead><tbody>\n");
        for (int k = 0; k < r->noutages; k++) {
            const struct dg_outage *o = &r->outages[k];
            const double x[] = {k + 1, o->target < 0 ? NAN : o->target + 1, o->start_s, came(o->duration_s),
                                (double)o->errors, (double)o->reconnects, came(o->first_commit_s), came(o->recovery_s)};
            const int d[] = {0, 0, 3, 3, 0, 0, 3, 3};
            char stalled[48];
            snprintf(stalled, sizeof stalled, "cluster %d stalled: no node committed", -o->target);
            event_row(out, "data-outage", k, x, d, sizeof x / sizeof *x, o->target < 0 ? stalled : o->back_on);
        }
        fprintf(out, "</tbody></table>\n");
    }
    if (!r->nfaults)
        return;
    fprintf(out, "<h3>faults (seconds from the start of the measured window)</h3><table class=\"data faults\">"
                 "<thead><tr><th>#</th><th>asked at s</th><th>start s</th><th>end s</th><th>exit status</th>"
                 "<th>command (redacted)</th></tr></thead><tbody>\n");
    for (int k = 0; k < r->nfaults; k++) {
        const struct dg_fault_event *f = &r->faults[k];
        const double x[] = {k + 1, f->offset_s, came(f->start_s), came(f->end_s), f->exit_status};
        const int d[] = {0, 3, 3, 3, 0};
        event_row(out, "data-fault", k, x, d, sizeof x / sizeof *x, f->command);
    }
    fprintf(out, "</tbody></table>\n");
}
