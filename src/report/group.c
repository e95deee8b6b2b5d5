/* group.c — the step table of a thread sweep (the runs of one group, in step order) as text and
 * JSON: per step its threads, seconds, iterations, the runs' second and headline figures and
 * the headline's change from the step before. Generic over figures: never asks the workload. */
#include <math.h>
#include <string.h>

#include "report/summary.h"

/* The headline's change from the step before as "+12.3%", "" when not comparable. */
static const char *change(char *buf, size_t n, const struct dg_run_record *runs, int i)
{
    double a = i ? dg_run_fig_value(&runs[i - 1], 0) : NAN, b = dg_run_fig_value(&runs[i], 0);
    buf[0] = '\0';
    if (i && dg_run_same_fig(&runs[i - 1], &runs[i], 0) && a > 0 && isfinite(b))
        snprintf(buf, n, "%+.1f%%", 100.0 * (b / a - 1));
    return buf;
}

static void fig_cell(FILE *out, int width, const struct dg_figure *f)
{
    if (f)
        fprintf(out, "  %*.*f", width, f->decimals, f->value);
    else
        fprintf(out, "  %*s", width, "-");
}

void dg_report_group_text(FILE *out, const struct dg_run_record *runs, int n)
{
    const struct dg_figure *h0 = n ? dg_run_fig(&runs[0], 0) : NULL, *h1 = n ? dg_run_fig(&runs[0], 1) : NULL;
    fprintf(out, "\n%7s  %10s  %10s  %10s  %12s  %8s  %8s  %9s  %9s  %9s  %6s\n", "threads", "run time s",
            "iterations", "iter/s", h1 ? h1->label : "", h0 ? h0->label : "", "change", "avg ms", "p95 ms",
            "max ms", "run");
    for (int i = 0; i < n; i++) {
        const struct dg_run_record *r = &runs[i];
        uint64_t it = dg_txn_count(&r->txn[0]);
        char pct[16];
        fprintf(out, "%7d  %10.2f  %10llu  %10.1f", r->vus, r->measured_s, (unsigned long long)it,
                dg_run_per_s(r, (double)it));
        fig_cell(out, 12, dg_run_fig(r, 1));
        fig_cell(out, 8, dg_run_fig(r, 0));
        fprintf(out, "  %8s  %9.2f  %9.2f  %9.2f  %6lld\n", change(pct, sizeof pct, runs, i), r->txn[0].avg_ms,
                r->txn[0].p95_ms, r->txn[0].max_ms, (long long)r->id);
        char causes[160];
        int known = *dg_report_error_causes(r->txn, 1, causes, sizeof causes) != '\0';
        if (r->txn[0].errors)
            fprintf(out, "         %llu iterations failed%s%s%s: %s\n", (unsigned long long)r->txn[0].errors,
                    known ? " (" : "", causes, known ? ")" : "", r->error);
    }
    if (n && runs[0].server_blocks_hit >= 0) {
        for (int i = 0; i < n; i++)
            fprintf(out, "%s%d threads: %.1f blocks hit, %.1f read per iteration", i ? "; " : "server: ",
                    runs[i].vus, runs[i].server_blocks_hit, runs[i].server_blocks_read);
        fprintf(out, "\n");
    }
    for (int i = 0; i < n; i++)
        if (runs[i].nmonitor) {
            fprintf(out, "%7d threads ", runs[i].vus);
            dg_report_monitor_line(out, "", &runs[i]);
        }
}

cJSON *dg_report_group_json(const struct dg_run_record *runs, int n)
{
    cJSON *steps = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        const struct dg_run_record *r = &runs[i];
        const struct dg_txn_summary *x = &r->txn[0];
        double it = (double)dg_txn_count(x);
        cJSON *s = cJSON_CreateObject();
        cJSON_AddNumberToObject(s, "threads", r->vus);
        cJSON_AddNumberToObject(s, "seconds", r->measured_s);
        cJSON_AddNumberToObject(s, "iterations", it);
        cJSON_AddNumberToObject(s, "errors", (double)x->errors);
        dg_report_error_causes_json(s, x);
        cJSON_AddNumberToObject(s, "rows", (double)r->rows);
        cJSON_AddNumberToObject(s, "bytes", (double)r->bytes);
        cJSON_AddNumberToObject(s, "iterations_per_s", dg_run_per_s(r, it));
        for (int k = 1; k >= 0; k--) { /* the table's two figures: the second, then the headline */
            const struct dg_figure *f = dg_run_fig(r, k);
            if (f)
                cJSON_AddNumberToObject(s, f->name, f->value);
        }
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
    return steps;
}
