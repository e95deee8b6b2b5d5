/* experiment.c — the model of one experiment's step table, computed once from its stored runs:
 * each step's headline and second figure as stored (whatever the workload), the changes of the
 * headline, latency and the monitor's means. Reads the store only; renders nothing. */
#include "report/experiment.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/monitor.h"

static double known(double v) { return v >= 0 ? v : NAN; }

static double pct(double now, double then)
{
    return isnan(now) || isnan(then) || then == 0 ? NAN : 100.0 * (now / then - 1.0);
}

/* Latency over every transaction type of the run, from its stored histograms. */
static void latency(const struct dg_run_record *r, double *avg_ms, double *p95_ms)
{
    struct dg_hist *all = dg_hist_new();
    *avg_ms = *p95_ms = NAN;
    if (!all)
        return;
    for (int k = 0; k < r->ntypes; k++)
        if (r->txn[k].hist)
            dg_hist_merge(all, r->txn[k].hist);
    if (all->total) {
        *avg_ms = dg_hist_mean_ns(all) / 1e6;
        *p95_ms = (double)dg_hist_percentile(all, 95) / 1e6;
    }
    dg_hist_free(all);
}

static void fill(struct dg_exp_step *w)
{
    const struct dg_run_record *r = &w->rec;
    int ok = r->measured_s > 0 && strcmp(r->status, "failed");
    w->head = ok ? dg_run_fig_value(r, 0) : NAN;
    w->second = ok ? dg_run_fig_value(r, 1) : NAN;
    latency(r, &w->avg_ms, &w->p95_ms);
    struct dg_monitor_summary m;
    dg_monitor_summarise(r->monitor, r->nmonitor, &m);
    int mon = m.n > 0;
    w->disk_read_mb_s = mon ? known(m.disk_read_mb_s) : NAN;
    w->disk_write_mb_s = mon ? known(m.disk_write_mb_s) : NAN;
    w->hit_ratio = mon ? known(m.cache_hit_ratio) : NAN;
    if (!ok)
        w->avg_ms = w->p95_ms = NAN;
}

/* The column heads and what the changes are of (dg_exp_heads), once the steps are read. */
static void heads(struct dg_exp_table *t)
{
    const struct dg_run_record *runs[64];
    int n = 0, same = 1;
    for (int i = 0; i < t->n && n < 64; i++)
        runs[n++] = &t->steps[i].rec;
    dg_figs_head(t->head_first, sizeof t->head_first, runs, n, 1);
    dg_figs_head(t->head_second, sizeof t->head_second, runs, n, 0);
    for (int i = 1; i < t->n; i++)
        same &= dg_run_same_fig(&t->steps[i].rec, &t->steps[0].rec, 0);
    if (same) {
        snprintf(t->change_of, sizeof t->change_of, "%s", t->head_second);
        return;
    }
    size_t o = 0;
    for (int i = 0; i < t->n; i++) { /* each headline once, with the workload whose it is */
        const struct dg_figure *f = dg_run_fig(&t->steps[i].rec, 0);
        int seen = 0;
        for (int j = 0; f && j < i && !seen; j++)
            seen = dg_run_same_fig(&t->steps[j].rec, &t->steps[i].rec, 0);
        if (f && !seen && o < sizeof t->change_of)
            o += (size_t)snprintf(t->change_of + o, sizeof t->change_of - o, "%s%s (%s steps)", o ? " or " : "",
                                  f->label, t->steps[i].rec.workload);
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* "k=v, k=v" with the keys sorted, so that two experiments pair whatever order they swept in. */
static void pair_key(struct dg_exp_step *w)
{
    const char *k[DG_EXP_MAX_SWEPT];
    int n = 0;
    size_t o = 0;
    for (cJSON *kv = w->swept ? w->swept->child : NULL; kv && n < DG_EXP_MAX_SWEPT; kv = kv->next)
        k[n++] = kv->string;
    qsort(k, (size_t)n, sizeof *k, cmp_str);
    w->key[0] = '\0';
    for (int i = 0; i < n && o < sizeof w->key; i++) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w->swept, k[i]));
        o += (size_t)snprintf(w->key + o, sizeof w->key - o, "%s%s=%s", i ? ", " : "", k[i], v ? v : "");
    }
    if (!n)
        snprintf(w->key, sizeof w->key, "step %d", w->rec.experiment_step);
}

int dg_exp_table_load(struct dg_store *s, int64_t id, int with_series, struct dg_exp_table *t,
                      struct dg_err *err)
{
    int64_t *ids = NULL;
    int n = 0;
    memset(t, 0, sizeof *t);
    int got = dg_store_experiment_get(s, id, &t->ex, &ids, &n, err);
    if (got == 1)
        dg_err_set(err, DG_ERR_USER, 0, "no experiment %lld", (long long)id);
    if (got)
        return got;
    int rc = -1;
    t->steps = calloc((size_t)(n ? n : 1), sizeof *t->steps);
    if (!t->steps) {
        dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        struct dg_exp_step *w = &t->steps[i];
        int g = dg_store_get(s, ids[i], with_series, &w->rec, err);
        if (g == 1) /* listed by its experiment, yet not there: a damaged file */
            dg_err_set(err, DG_ERR_USER, 0, "results database: experiment %lld lists run %lld, which is not there",
                       (long long)id, (long long)ids[i]);
        if (g)
            goto out;
        t->n++;
        fill(w);
        w->d_prev = i ? pct(w->head, w[-1].head) : NAN;
        w->d_first = i ? pct(w->head, t->steps[0].head) : NAN;
        if (i && !dg_run_same_fig(&w->rec, &t->steps[0].rec, 0)) {
            w->d_first = NAN; /* different figures: no change to tell */
            snprintf(w->mark, sizeof w->mark, " (%s)", w->rec.workload);
        }
        if (i && !dg_run_same_fig(&w->rec, &w[-1].rec, 0))
            w->d_prev = NAN;
        t->failed_steps += strcmp(w->rec.status, "complete") != 0;
        w->swept = w->rec.swept_json ? cJSON_Parse(w->rec.swept_json) : NULL;
        pair_key(w);
        for (cJSON *kv = w->swept ? w->swept->child : NULL; kv; kv = kv->next)
            if (dg_exp_find(t->keys, t->nkeys, kv->string) < 0 && t->nkeys < DG_EXP_MAX_SWEPT)
                t->keys[t->nkeys++] = kv->string;
    }
    heads(t);
    rc = 0;
out:
    free(ids);
    return rc;
}

void dg_exp_table_free(struct dg_exp_table *t)
{
    for (int i = 0; t->steps && i < t->n; i++) {
        dg_run_record_free(&t->steps[i].rec);
        cJSON_Delete(t->steps[i].swept);
    }
    free(t->steps);
    memset(t, 0, sizeof *t);
}

const char *dg_exp_swept(const struct dg_exp_table *t, int i, int k)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t->steps[i].swept, t->keys[k]));
}

const char *dg_exp_x_text(const struct dg_exp_table *t, int i)
{
    const char *v = t->nkeys == 1 ? dg_exp_swept(t, i, 0) : NULL;
    return v ? v : t->steps[i].key;
}

int dg_exp_find(const char *const *keys, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(keys[i], key))
            return i;
    return -1;
}

int dg_exp_union(const char **all, int n, int cap, const char *const *side, int nside)
{
    for (int j = 0; j < nside; j++) {
        if (dg_exp_find(all, n, side[j]) >= 0 || n == cap)
            continue;
        int at = n; /* before the first later key of this side already placed */
        for (int l = j + 1; l < nside && at == n; l++) {
            int p = dg_exp_find(all, n, side[l]);
            if (p >= 0)
                at = p;
        }
        memmove(&all[at + 1], &all[at], (size_t)(n - at) * sizeof *all);
        all[at] = side[j];
        n++;
    }
    return n;
}

void dg_exp_step_figures(const struct dg_exp_step *w, double v[DG_EXP_NFIG], int decimals[DG_EXP_NFIG])
{
    const struct dg_figure *f0 = dg_run_fig(&w->rec, 0), *f1 = dg_run_fig(&w->rec, 1);
    const double fig[DG_EXP_NFIG] = {w->second, w->head, w->avg_ms, w->p95_ms,
                                     w->disk_read_mb_s, w->disk_write_mb_s, 100 * w->hit_ratio};
    const int dec[DG_EXP_NFIG] = {f1 ? f1->decimals : 0, f0 ? f0->decimals : 0, 3, 3, 2, 2, 2};
    memcpy(v, fig, sizeof fig);
    memcpy(decimals, dec, sizeof dec);
}

struct dg_exp_heads dg_exp_heads(const struct dg_exp_table *t)
{
    return (struct dg_exp_heads){t->head_first, t->head_second, t->change_of};
}

double dg_exp_fig(const struct dg_exp_step *w, const char *name)
{
    return isnan(w->head) && isnan(w->second) ? NAN : dg_figs_value(w->rec.figures, w->rec.nfigures, name);
}

const char *dg_exp_other_workload(const struct dg_exp_table *t, int i) { return t->steps[i].mark; }

/* Whether step w's second figure gets a chart of its own (its unit is not the headline's). */
int dg_exp_second_apart(const struct dg_exp_step *w)
{
    const struct dg_figure *f0 = dg_run_fig(&w->rec, 0), *f1 = dg_run_fig(&w->rec, 1);
    return f0 && f1 && strcmp(f0->unit, f1->unit);
}

double dg_exp_value(const struct dg_exp_step *w, enum dg_exp_figure f, int k)
{
    double sum = w->disk_read_mb_s + w->disk_write_mb_s;
    switch (f) {
    case DG_EXP_THROUGHPUT: return k ? w->second : w->head;
    case DG_EXP_SECOND: return w->second;
    case DG_EXP_LATENCY: return k ? w->p95_ms : w->avg_ms;
    case DG_EXP_STORAGE: return k == 0 ? w->disk_read_mb_s : k == 1 ? w->disk_write_mb_s : sum;
    }
    return NAN;
}

int dg_exp_nseries(const struct dg_exp_step *w, enum dg_exp_figure f)
{
    static const int n[] = {2, 1, 2, 3};
    if (f == DG_EXP_THROUGHPUT) /* the headline, and the second beside it when in its unit */
        return dg_run_fig(&w->rec, 1) && !dg_exp_second_apart(w) ? 2 : 1;
    return n[f];
}

const char *dg_exp_series_name(const struct dg_exp_step *w, enum dg_exp_figure f, int k, const char **unit)
{
    static const char *const names[][3] = {{"", "", ""}, {"", "", ""}, {"avg", "p95", ""},
                                           {"disk read", "disk write", "read + write"}};
    static const char *const units[] = {"", "", "ms", "MB/s"};
    if (f == DG_EXP_THROUGHPUT || f == DG_EXP_SECOND) {
        const struct dg_figure *fig = w ? dg_run_fig(&w->rec, f == DG_EXP_SECOND ? 1 : k) : NULL;
        *unit = fig ? fig->unit : "";
        return fig ? fig->label : "";
    }
    *unit = units[f];
    return names[f][k];
}

int dg_exp_has_storage(const struct dg_exp_table *t, int traffic)
{
    for (int i = 0; i < t->n; i++) {
        double r = t->steps[i].disk_read_mb_s, w = t->steps[i].disk_write_mb_s;
        if (traffic ? r > 0 || w > 0 : isfinite(r) || isfinite(w))
            return 1;
    }
    return 0;
}
