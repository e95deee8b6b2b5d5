/* html.c — renders runs, groups and experiments as one self-contained HTML page: headline figures, the
 * latency table, charts (with a table of the same numbers each) and the full configuration.
 * Every text that came from a user goes through dg_html_text / dg_html_json. Reads records only. */
#include "report/html.h"

#include <math.h>
#include <string.h>

#include "report/htmlpage.h"
#include "report/htmlparts.h"
#include "report/runcharts.h"
#include "report/summary.h"

/* The user's label as text in <span class="label"> after a heading; nothing when empty. */
static void label_span(FILE *out, const char *label)
{
    if (!label[0])
        return;
    fprintf(out, " <span class=\"label\">");
    dg_html_text(out, label);
    fprintf(out, "</span>");
}

/* "sqlite 3.40.1" */
static void engine_text(FILE *out, const struct dg_run_record *r)
{
    dg_html_text(out, r->engine);
    fprintf(out, " ");
    dg_html_text(out, r->engine_version);
}

static void kv_text(FILE *out, const char *k, const char *v, int code)
{
    if (!v || !*v)
        return;
    fprintf(out, "<tr><td>");
    dg_html_text(out, k);
    fprintf(out, "</td><td%s>", code ? " class=\"code\"" : "");
    dg_html_text(out, v);
    fprintf(out, "</td></tr>\n");
}

static void kv_num(FILE *out, const char *k, double v, int decimals)
{
    fprintf(out, "<tr><td>");
    dg_html_text(out, k);
    fprintf(out, "</td>");
    dg_html_num_td(out, v, decimals);
    fprintf(out, "</tr>\n");
}

/* A stored JSON object (settings, options) as a two-column table. */
static void kv_json(FILE *out, const char *title, const char *json, const char *cls)
{
    cJSON *o = json ? cJSON_Parse(json) : NULL;
    fprintf(out, "<h3>");
    dg_html_text(out, title);
    fprintf(out, "</h3><table class=\"kv %s\">\n", cls);
    cJSON *it;
    cJSON_ArrayForEach(it, o)
    {
        char *printed = NULL;
        const char *v = cJSON_IsString(it) ? it->valuestring : (printed = cJSON_PrintUnformatted(it));
        kv_text(out, it->string, v ? v : "", 1);
        cJSON_free(printed);
    }
    if (!o || !o->child)
        fprintf(out, "<tr><td>(none recorded)</td></tr>\n");
    fprintf(out, "</table>\n");
    cJSON_Delete(o);
}

static void run_config(FILE *out, const struct dg_run_record *r)
{
    fprintf(out, "<details class=\"config\" open><summary>configuration</summary>\n<div class=\"side\"><div>"
                 "<h3>run</h3><table class=\"kv run\">\n");
    kv_text(out, "target (redacted)", r->target, 1);
    kv_text(out, "engine", r->engine, 0);
    kv_text(out, "engine version", r->engine_version, 0);
    kv_text(out, "workload", r->workload, 0);
    kv_text(out, "status", r->status, 0);
    kv_text(out, "label", r->label, 0);
    kv_text(out, "started (UTC)", r->started_at, 0);
    kv_text(out, "ended (UTC)", r->ended_at, 0);
    kv_text(out, "load model", r->load_model, 0);
    if (r->warehouses > 0)
        kv_num(out, "warehouses", r->warehouses, 0);
    kv_num(out, r->query ? "threads" : "virtual users", r->vus, 0); /* a query's sweep: threads */
    kv_num(out, "warm-up s", r->warmup_s, 1);
    kv_num(out, "measured s", r->measured_s, 3);
    kv_num(out, "dbgauge CPU s", r->client_cpu_s, 3);
    if (!strcmp(r->load_model, "rate") && dg_run_schedule_counted(r)) {
        char late[64];
        snprintf(late, sizeof late, "late (started over %.0f ms after due)", (double)DG_LATE_AFTER_NS / 1e6);
        kv_num(out, "arrivals", (double)r->arrivals, 0);
        kv_num(out, late, (double)r->late, 0);
        kv_num(out, "skipped", (double)r->skipped, 0);
    }
    if (r->group_id)
        kv_num(out, "group", (double)r->group_id, 0);
    kv_text(out, "query", r->query, 1);
    kv_text(out, "command line (redacted)", r->command_line, 1);
    kv_text(out, dg_report_error_label(r), r->error, 1);
    kv_text(out, "dbgauge version", r->dbgauge_version, 0);
    fprintf(out, "</table>\n<h3>host</h3><table class=\"kv host\">\n");
    kv_text(out, "name", r->host.hostname, 0);
    kv_text(out, "CPU", r->host.cpu_model, 0);
    kv_num(out, "cores", r->host.cores, 0);
    kv_num(out, "memory GiB", (double)r->host.mem_bytes / 1073741824.0, 1);
    kv_text(out, "kernel", r->host.kernel, 0);
    fprintf(out, "</table></div><div>\n");
    kv_json(out, "engine settings", r->settings_json, "settings");
    kv_json(out, "options", r->options_json, "options");
    dg_html_monitor_means(out, r);
    fprintf(out, "</div></div></details>\n");
}

static int scheduled(const struct dg_run_record *r)
{
    return !strcmp(r->load_model, "rate") || !strcmp(r->load_model, "think");
}

static void latency_table(FILE *out, const struct dg_run_record *r)
{
    uint64_t all = dg_run_completed(r);
    int doubt = r->ntypes && r->txn[0].in_doubt_known; /* recorded from schema 10 on */
    fprintf(out, "<h3>per type</h3><table class=\"data txn\"><thead><tr><th>type</th><th>count</th>"
                 "<th>mix %%</th><th>committed</th><th>rollbacks</th><th>retries</th><th>errors</th>%s"
                 "<th>avg ms</th><th>p50 ms</th><th>p90 ms</th><th>p95 ms</th><th>p99 ms</th>"
                 "<th>max ms</th></tr></thead><tbody>\n",
            doubt ? "<th>in doubt</th>" : "");
    for (int t = 0; t < r->ntypes; t++) {
        const struct dg_txn_summary *x = &r->txn[t];
        fprintf(out, "<tr data-type=\"");
        dg_html_text(out, x->name);
        fprintf(out, "\"><td>");
        dg_html_text(out, x->name);
        fprintf(out, "</td>");
        dg_html_num_td(out, (double)dg_txn_count(x), 0);
        dg_html_num_td(out, all ? 100.0 * (double)dg_txn_count(x) / (double)all : 0, 2);
        dg_html_num_td(out, (double)x->committed, 0);
        dg_html_num_td(out, (double)x->rollbacks, 0);
        dg_html_num_td(out, (double)x->retries, 0);
        dg_html_num_td(out, (double)x->errors, 0);
        if (doubt)
            dg_html_num_td(out, (double)x->in_doubt, 0);
        const double ms[] = {x->avg_ms, x->p50_ms, x->p90_ms, x->p95_ms, x->p99_ms, x->max_ms};
        for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
            dg_html_num_td(out, ms[i], 3);
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</tbody></table>\n");
    char causes[160];
    if (*dg_report_retry_causes(r->txn, r->ntypes, causes, sizeof causes)) {
        fprintf(out, "<p class=\"note retry-causes\">retries by cause: ");
        dg_html_text(out, causes);
        fprintf(out, "</p>\n");
    }
    if (*dg_report_error_causes(r->txn, r->ntypes, causes, sizeof causes)) {
        fprintf(out, "<p class=\"note error-causes\">errors by cause: ");
        dg_html_text(out, causes);
        fprintf(out, "</p>\n");
    }
    if (!scheduled(r))
        return;
    fprintf(out, "<h3>service time (from the actual start)</h3><table class=\"data service\"><thead><tr>"
                 "<th>type</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th></tr></thead><tbody>\n");
    for (int t = 0; t < r->ntypes; t++) {
        fprintf(out, "<tr><td>");
        dg_html_text(out, r->txn[t].name);
        fprintf(out, "</td>");
        dg_html_num_td(out, r->txn[t].service_p50_ms, 3);
        dg_html_num_td(out, r->txn[t].service_p95_ms, 3);
        dg_html_num_td(out, r->txn[t].service_p99_ms, 3);
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</tbody></table>\n");
}

static void cards(FILE *out, const struct dg_run_record *r)
{
    fprintf(out, "<div class=\"cards\">\n");
    for (int k = 0; k < r->nfigures; k++) /* the headline figures, whatever they are */
        dg_html_card(out, r->figures[k].name, r->figures[k].label, r->figures[k].value, r->figures[k].decimals);
    if (!dg_run_has_time_fig(r))
        dg_html_card(out, "measured_s", "measured s", r->measured_s, 1);
    if (!strcmp(r->load_model, "rate")) {
        dg_html_card(out, "rate_asked", "asked /s", r->rate_asked, 1);
        dg_html_card(out, "rate_achieved", "achieved /s", dg_run_per_s(r, (double)dg_run_completed(r)), 1);
        if (dg_run_schedule_counted(r)) {
            dg_html_card(out, "arrivals", "arrivals", (double)r->arrivals, 0);
            dg_html_card(out, "late_skipped_pct", dg_run_kept_up(r) ? "late or skipped % (kept up)"
                                                                    : "late or skipped % (FELL BEHIND)",
                         dg_run_late_pct(r), 2);
        }
    }
    if (scheduled(r))
        dg_html_card(out, "lag_p99_ms", "start lag p99 ms", r->lag_p99_ms, 3);
    if (r->ntypes) {
        char p95[64], p99[64]; /* of several types, the first's: named */
        snprintf(p95, sizeof p95, r->ntypes > 1 ? "p95 ms (%s)" : "p95 ms", r->txn[0].name);
        snprintf(p99, sizeof p99, r->ntypes > 1 ? "p99 ms (%s)" : "p99 ms", r->txn[0].name);
        dg_html_card(out, "p95_ms", p95, r->txn[0].p95_ms, 2);
        dg_html_card(out, "p99_ms", p99, r->txn[0].p99_ms, 2);
    }
    dg_html_monitor_cards(out, r);
    fprintf(out, "</div>\n");
}

int dg_report_html_run(FILE *out, const struct dg_run_record *r)
{
    char prefix[32];
    struct dg_chart c;
    snprintf(prefix, sizeof prefix, "run%lld", (long long)r->id);
    fprintf(out, "<section class=\"item run\" id=\"%s\" data-run-id=\"%lld\">\n<h2>Run %lld: ",
            prefix, (long long)r->id, (long long)r->id);
    dg_html_text(out, r->workload);
    label_span(out, r->label);
    fprintf(out, "</h2>\n<p>");
    engine_text(out, r);
    fprintf(out, ", ");
    dg_html_text(out, r->status);
    fprintf(out, ", started ");
    dg_html_text(out, r->started_at);
    fprintf(out, " UTC. Latency: %s.</p>\n",
            scheduled(r) ? "response time, from each transaction's intended start"
                : "service time, from the start of each transaction to its commit");
    cards(out, r);
    latency_table(out, r);
    int rc = 0;
    if (r->nseries) {
        rc |= dg_html_emit(out, &c, dg_chart_run_throughput(&c, prefix, r));
        rc |= dg_html_emit(out, &c, dg_chart_run_latency(&c, prefix, r));
        if (dg_chart_run_has_errors(r))
            rc |= dg_html_emit(out, &c, dg_chart_run_errors(&c, prefix, r));
    }
    dg_html_events(out, r);
    rc |= dg_html_emit(out, &c, dg_chart_run_percentiles(&c, prefix, r));
    rc |= dg_html_targets(out, prefix, r);
    rc |= dg_html_ranks(out, r);
    rc |= dg_html_monitor_charts(out, prefix, r);
    run_config(out, r);
    fprintf(out, "</section>\n");
    return rc;
}

static int group_section(FILE *out, const struct dg_report_item *g)
{
    char prefix[32];
    struct dg_chart c;
    const struct dg_run_record *f = &g->runs[0];
    snprintf(prefix, sizeof prefix, "group%lld", (long long)g->id);
    fprintf(out, "<section class=\"item group\" id=\"%s\" data-group-id=\"%lld\">\n<h2>Group %lld: ",
            prefix, (long long)g->id, (long long)g->id);
    dg_html_text(out, f->workload);
    fprintf(out, " sweep of %d steps", g->nruns);
    label_span(out, f->label);
    fprintf(out, "</h2>\n<p>");
    dg_html_text(out, f->target);
    fprintf(out, " (");
    engine_text(out, f);
    fprintf(out, "), runs %lld..%lld.</p>\n", (long long)f->id, (long long)g->runs[g->nruns - 1].id);
    if (f->query) {
        fprintf(out, "<p>query: <code>");
        dg_html_text(out, f->query);
        fprintf(out, "</code></p>\n");
    }
    const struct dg_figure *h0 = dg_run_fig(f, 0), *h1 = dg_run_fig(f, 1);
    fprintf(out, "<h3>steps</h3><table class=\"data steps\"><thead><tr><th>threads</th><th>run</th>"
                 "<th>run time s</th><th>iterations</th><th>iterations/s</th><th>%s</th>"
                 "<th>%s</th><th>change</th><th>avg ms</th><th>p95 ms</th><th>p99 ms</th>"
                 "<th>max ms</th><th>errors</th></tr></thead><tbody>\n",
            h1 ? h1->label : "", h0 ? h0->label : "");
    for (int i = 0; i < g->nruns; i++) {
        const struct dg_run_record *r = &g->runs[i];
        const struct dg_txn_summary *x = &r->txn[0];
        char pct[32] = "";
        double it = (double)dg_run_completed(r);
        fprintf(out, "<tr data-run-id=\"%lld\">", (long long)r->id);
        dg_html_num_td(out, r->vus, 0);
        dg_html_num_td(out, (double)r->id, 0);
        dg_html_num_td(out, r->measured_s, 3);
        dg_html_num_td(out, it, 0);
        dg_html_num_td(out, dg_run_per_s(r, it), 2);
        for (int k = 1; k >= 0; k--) { /* the second figure, then the headline */
            const struct dg_figure *fig = dg_run_fig(r, k);
            dg_html_num_td(out, fig ? fig->value : NAN, fig ? fig->decimals : 0);
        }
        if (i > 0 && dg_run_same_fig(&g->runs[i - 1], r, 0))
            dg_pct_change(pct, sizeof pct, dg_run_fig_value(&g->runs[i - 1], 0), dg_run_fig_value(r, 0));
        fprintf(out, "<td class=\"n\">%s</td>", pct);
        const double ms[] = {x->avg_ms, x->p95_ms, x->p99_ms, x->max_ms};
        for (size_t k = 0; k < sizeof ms / sizeof *ms; k++)
            dg_html_num_td(out, r->ntypes ? ms[k] : NAN, 3);
        dg_html_num_td(out, (double)x->errors, 0);
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</tbody></table>\n");
    int rc = 0;
    rc |= dg_html_emit(out, &c, dg_chart_group_steps(&c, prefix, g, DG_STEP_HEADLINE));
    rc |= dg_html_emit(out, &c, dg_chart_group_steps(&c, prefix, g, DG_STEP_RUN_TIME));
    rc |= dg_html_emit(out, &c, dg_chart_group_latency(&c, prefix, g));
    fprintf(out, "<p class=\"note\">The configuration below is the first step's; the steps differ in threads.</p>\n");
    run_config(out, f);
    fprintf(out, "</section>\n");
    return rc;
}

/* An experiment: its step table (computed once in experiment.c) and a chart per figure by
 * swept value, each with the percent change per step written on it and a table under it. */
static int experiment_section(FILE *out, const struct dg_exp_table *t)
{
    char prefix[32];
    struct dg_chart c;
    struct dg_exp_heads heads = dg_exp_heads(t);
    snprintf(prefix, sizeof prefix, "exp%lld", (long long)t->ex.id);
    fprintf(out, "<section class=\"item experiment\" id=\"%s\" data-experiment-id=\"%lld\">\n<h2>Experiment %lld: ",
            prefix, (long long)t->ex.id, (long long)t->ex.id);
    dg_html_text(out, t->ex.file);
    label_span(out, t->ex.label);
    fprintf(out, "</h2>\n<p>%d step%s, ", t->n, t->n == 1 ? "" : "s");
    dg_html_text(out, t->ex.status);
    fprintf(out, ", started ");
    dg_html_text(out, t->ex.started_at);
    fprintf(out, " UTC");
    if (t->n) {
        const struct dg_run_record *f = &t->steps[0].rec;
        fprintf(out, "; ");
        dg_html_text(out, f->workload);
        fprintf(out, " on ");
        dg_html_text(out, f->target);
        fprintf(out, " (");
        engine_text(out, f);
        fprintf(out, "), runs %lld..%lld", (long long)f->id, (long long)t->steps[t->n - 1].rec.id);
    }
    fprintf(out, ". Changes are of %s; latency over all transaction types; disk MB/s and the cache "
                 "hit ratio are the monitor's means over each step's measured window.</p>\n",
            heads.change_of);
    fprintf(out, "<h3>steps</h3><table class=\"data steps exp\"><thead><tr><th>step</th>");
    for (int k = 0; k < t->nkeys; k++) {
        fprintf(out, "<th>");
        dg_html_text(out, t->keys[k]);
        fprintf(out, "</th>");
    }
    fprintf(out, "<th>run</th><th>%s</th><th>%s</th><th>avg ms</th><th>p95 ms</th><th>disk read MB/s</th>"
                 "<th>disk write MB/s</th><th>cache hit %%</th><th>vs prev</th><th>vs first</th>"
                 "<th>status</th></tr></thead><tbody>\n",
            heads.first, heads.second);
    for (int i = 0; i < t->n; i++) {
        const struct dg_exp_step *w = &t->steps[i];
        fprintf(out, "<tr data-step=\"%d\" data-run-id=\"%lld\">", w->rec.experiment_step, (long long)w->rec.id);
        dg_html_num_td(out, w->rec.experiment_step, 0);
        for (int k = 0; k < t->nkeys; k++) {
            fprintf(out, "<td>");
            dg_html_text(out, dg_exp_swept(t, i, k));
            fprintf(out, "</td>");
        }
        dg_html_num_td(out, (double)w->rec.id, 0);
        double v[DG_EXP_NFIG];
        int dec[DG_EXP_NFIG];
        dg_exp_step_figures(w, v, dec);
        for (int k = 0; k < DG_EXP_NFIG; k++)
            dg_html_num_td(out, v[k], dec[k]);
        if (i) {
            dg_html_pct_td(out, w->d_prev);
            dg_html_pct_td(out, w->d_first);
        } else {
            fprintf(out, "<td></td><td></td>");
        }
        fprintf(out, "<td>");
        dg_html_text(out, w->rec.status);
        fprintf(out, "%s", dg_exp_other_workload(t, i));
        if (strcmp(w->rec.status, "complete") && w->rec.error[0]) {
            fprintf(out, ": ");
            dg_html_text(out, w->rec.error);
        }
        fprintf(out, "</td></tr>\n");
    }
    fprintf(out, "</tbody></table>\n");
    int rc = 0;
    if (t->n) {
        rc |= dg_html_emit(out, &c, dg_chart_exp_steps(&c, prefix, t, DG_EXP_THROUGHPUT));
        if (dg_exp_second_apart(&t->steps[0]))
            rc |= dg_html_emit(out, &c, dg_chart_exp_steps(&c, prefix, t, DG_EXP_SECOND));
        rc |= dg_html_emit(out, &c, dg_chart_exp_steps(&c, prefix, t, DG_EXP_LATENCY));
        if (dg_exp_has_storage(t, 1))
            rc |= dg_html_emit(out, &c, dg_chart_exp_steps(&c, prefix, t, DG_EXP_STORAGE));
        else
            fprintf(out, "<p class=\"note\">No storage chart: %s.</p>\n",
                    dg_exp_has_storage(t, 0) ? "the monitor measured 0 MB/s read and written on the disk in every step"
                                             : "the steps were not monitored, or the monitor had no block device");
        fprintf(out, "<p class=\"note\">Each step is a stored run (<code>dbgauge report RUN</code> shows it "
                     "in full). The configuration below is the first step's; the steps differ in the swept "
                     "values.</p>\n");
        run_config(out, &t->steps[0].rec);
    }
    fprintf(out, "</section>\n");
    return rc;
}

int dg_report_html(FILE *out, const struct dg_report_item *items, int n)
{
    char title[128], sub[256] = "";
    size_t o = 0;
    snprintf(title, sizeof title, "dbgauge report");
    for (int i = 0; i < n && o + 40 < sizeof sub; i++)
        o += (size_t)snprintf(sub + o, sizeof sub - o, "%s%s %lld", i ? ", " : "",
                              dg_report_item_kind_name(items[i].kind), (long long)items[i].id);
    if (n == 0)
        snprintf(sub, sizeof sub, "nothing selected");
    dg_html_begin(out, title, sub);
    int rc = 0;
    for (int i = 0; i < n; i++)
        rc |= items[i].kind == DG_ITEM_EXPERIMENT ? experiment_section(out, items[i].exp)
              : items[i].kind == DG_ITEM_GROUP    ? group_section(out, &items[i])
                                                  : dg_report_html_run(out, &items[i].runs[0]);
    dg_html_end(out);
    return rc;
}
