/* targets.c — renders a stored run with several targets at once: each target's headline
 * figures, and the spread of the headline and of latency around the plain mean of the targets
 * (core/spread). Formatting of a record read from the results database only; computes nothing
 * the record does not hold but the spread; never asks which workload it is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/spread.h"
#include "report/summary.h"

/* The spread of the headline (each target's figures[0]) and of the all-types average latency
 * over r's targets; pct arrays hold r->ntargets values each (the caller's). */
struct spreads {
    struct dg_spread head, avg_ms;
};

/* The label (or name) of the targets' figure k, "" when the first target has none. */
static const char *fig_label(const struct dg_run_record *r, int k, int name)
{
    const struct dg_figure *f = r->ntargets ? dg_target_fig(&r->targets[0], k) : NULL;
    return f ? name ? f->name : f->label : "";
}

static int compute(const struct dg_run_record *r, struct spreads *s, double *head_pct, double *avg_pct)
{
    double *v = malloc(sizeof *v * (size_t)r->ntargets);
    if (!v)
        return -1;
    for (int k = 0; k < r->ntargets; k++)
        v[k] = dg_target_fig_value(&r->targets[k], 0);
    dg_spread_compute(v, r->ntargets, &s->head, head_pct);
    for (int k = 0; k < r->ntargets; k++)
        v[k] = r->targets[k].avg_ms;
    dg_spread_compute(v, r->ntargets, &s->avg_ms, avg_pct);
    free(v);
    return 0;
}

const char *dg_report_fig_text(const struct dg_figure *f, char *buf, size_t n)
{
    if (!f)
        snprintf(buf, n, "-");
    return f ? dg_report_thousands_dec(f->value, f->decimals, buf, n) : buf;
}

static uint64_t committed(const struct dg_target_summary *t)
{
    uint64_t n = 0;
    for (int ty = 0; ty < t->ntypes; ty++)
        n += t->txn[ty].committed;
    return n;
}

void dg_report_targets_text(FILE *out, const struct dg_run_record *r)
{
    double *pct = calloc((size_t)r->ntargets * 2, sizeof *pct);
    struct spreads s;
    if (!pct || compute(r, &s, pct, pct + r->ntargets)) {
        free(pct);
        fprintf(out, "\n  (per-target table: out of memory)\n");
        return;
    }
    char a[32], b[32], pm[32];
    const char *head = fig_label(r, 0, 0);
    snprintf(pm, sizeof pm, "%s+-%%", head);
    int clusters = 0;
    for (int k = 0; k < r->ntargets; k++)
        clusters = r->targets[k].cluster > clusters ? r->targets[k].cluster : clusters;
    fprintf(out, "\n  per target (percent from the plain mean of the %d targets)%s\n", r->ntargets,
            clusters ? "; the nodes of a cluster are one database: its W counts once in the run's" : "");
    fprintf(out, "  %2s  %-34s %-18s %4s %4s %10s %10s %8s %8s %8s %8s %8s %8s\n", "#", "target",
            "engine", "W", "VUs", head, fig_label(r, 1, 0), pm, "avg ms", "p50", "p95", "p99", "avg+-%");
    for (int k = 0; k < r->ntargets; k++) {
        const struct dg_target_summary *t = &r->targets[k];
        char eng[64], name[1100];
        snprintf(eng, sizeof eng, "%s %s", t->engine, t->engine_version);
        snprintf(name, sizeof name, "%s%s", t->target, !strcmp(t->role, "read") ? " (read)" : "");
        char node[48] = "";
        if (t->cluster)
            dg_target_label(r, k, node, sizeof node);
        fprintf(out, "  %2d  %-34s %-18.18s %4d %4d %10s %10s %+7.1f%% %8.2f %8.2f %8.2f %8.2f %+7.1f%%%s%s%s\n",
                k + 1, name, eng, t->warehouses, t->vus, dg_report_fig_text(dg_target_fig(t, 0), a, sizeof a),
                dg_report_fig_text(dg_target_fig(t, 1), b, sizeof b), pct[k], t->avg_ms, t->p50_ms, t->p95_ms,
                t->p99_ms, pct[r->ntargets + k], node[0] ? "  " : "", node,
                t->workers_failed ? "  (VUs stopped on errors)" : "");
    }
    const struct dg_figure *f = dg_target_fig(&r->targets[0], 0);
    int d = f ? f->decimals : 0;
    for (int k = 0; k < r->ntargets; k++)
        if (!strcmp(r->targets[k].role, "read")) { /* a replica's share of one database: no race to rank */
            free(pct);
            return;
        }
    char line[256];
    fprintf(out, "  spread   %s\n", dg_report_spread_text(line, sizeof line, head, d, &s.head, "#", 1));
    fprintf(out, "           avg latency mean %.2f ms, min %.2f ms (#%d, %+.1f%%), max %.2f ms (#%d, %+.1f%%)\n",
            s.avg_ms.mean, s.avg_ms.min, s.avg_ms.min_idx + 1, s.avg_ms.min_pct, s.avg_ms.max,
            s.avg_ms.max_idx + 1, s.avg_ms.max_pct);
    free(pct);
}

const char *dg_report_spread_text(char *buf, size_t n, const char *head, int decimals, const struct dg_spread *s,
                                  const char *who, int base)
{
    char a[32], b[32], c[32];
    snprintf(buf, n, "%s mean %s, min %s (%s%d, %+.1f%%), max %s (%s%d, %+.1f%%): fastest %s%d, slowest %s%d", head,
             dg_report_thousands_dec(s->mean, decimals, a, sizeof a), dg_report_thousands_dec(s->min, decimals, b, sizeof b),
             who, s->min_idx + base, s->min_pct, dg_report_thousands_dec(s->max, decimals, c, sizeof c), who,
             s->max_idx + base, s->max_pct, who, s->max_idx + base, who, s->min_idx + base);
    return buf;
}

cJSON *dg_report_spread_json(const struct dg_spread *s, const char *who, int base)
{
    char key[32];
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "mean", s->mean);
    cJSON_AddNumberToObject(j, "min", s->min);
    cJSON_AddNumberToObject(j, "max", s->max);
    snprintf(key, sizeof key, "min_%s", who);
    cJSON_AddNumberToObject(j, key, s->min_idx + base);
    snprintf(key, sizeof key, "max_%s", who);
    cJSON_AddNumberToObject(j, key, s->max_idx + base);
    cJSON_AddNumberToObject(j, "min_pct_from_mean", s->min_pct);
    cJSON_AddNumberToObject(j, "max_pct_from_mean", s->max_pct);
    return j;
}

void dg_report_targets_json(cJSON *o, const struct dg_run_record *r)
{
    double *pct = calloc((size_t)r->ntargets * 2, sizeof *pct);
    struct spreads s;
    if (!pct || compute(r, &s, pct, pct + r->ntargets)) {
        free(pct);
        return;
    }
    cJSON *arr = cJSON_AddArrayToObject(o, "targets");
    for (int k = 0; k < r->ntargets; k++) {
        const struct dg_target_summary *t = &r->targets[k];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "index", k + 1);
        cJSON_AddStringToObject(j, "target", t->target);
        char label[48];
        cJSON_AddStringToObject(j, "label", dg_target_label(r, k, label, sizeof label));
        if (t->role[0]) /* "read", "node"; null: a database of its own */
            cJSON_AddStringToObject(j, "role", t->role);
        else
            cJSON_AddNullToObject(j, "role");
        if (t->cluster) { /* a node of cluster k: the same database as its other nodes */
            cJSON_AddNumberToObject(j, "cluster", t->cluster);
            cJSON_AddNumberToObject(j, "node", dg_target_node(r, k));
        }
        cJSON_AddStringToObject(j, "engine", t->engine);
        cJSON_AddStringToObject(j, "engine_version", t->engine_version);
        cJSON_AddNumberToObject(j, "warehouses", t->warehouses);
        cJSON_AddNumberToObject(j, "vus", t->vus);
        cJSON_AddNumberToObject(j, "workers_failed", t->workers_failed);
        cJSON_AddNumberToObject(j, "committed", (double)committed(t));
        dg_report_figures_json(j, t->figures, t->nfigures);
        cJSON_AddNumberToObject(j, "avg_ms", t->avg_ms);
        cJSON_AddNumberToObject(j, "p50_ms", t->p50_ms);
        cJSON_AddNumberToObject(j, "p95_ms", t->p95_ms);
        cJSON_AddNumberToObject(j, "p99_ms", t->p99_ms);
        cJSON_AddNumberToObject(j, "max_ms", t->max_ms);
        cJSON_AddNumberToObject(j, "pct_from_mean", pct[k]);
        cJSON_AddNumberToObject(j, "avg_ms_pct_from_mean", pct[r->ntargets + k]);
        cJSON_AddItemToObject(j, "transactions", dg_report_txns_json(t->txn, t->ntypes));
        cJSON *settings = t->settings_json ? cJSON_Parse(t->settings_json) : NULL;
        cJSON_AddItemToObject(j, "settings", settings ? settings : cJSON_CreateObject());
        cJSON_AddItemToArray(arr, j);
    }
    cJSON *sp = cJSON_AddObjectToObject(o, "spread");
    cJSON_AddStringToObject(sp, "mean_of", "targets");
    cJSON_AddItemToObject(sp, fig_label(r, 0, 1), dg_report_spread_json(&s.head, "target", 1)); /* the headline's name */
    cJSON_AddItemToObject(sp, "avg_ms", dg_report_spread_json(&s.avg_ms, "target", 1));
    cJSON_AddNumberToObject(sp, "fastest", s.head.max_idx + 1);
    cJSON_AddNumberToObject(sp, "slowest", s.head.min_idx + 1);
    free(pct);
}
