/* experiment.c — the step table of one experiment computed once from its stored runs (the
 * headline figure is NOPM for TPC-C and MB/s for query stress, and the percent changes are
 * computed from it), rendered as text, CSV and JSON. Reads the store only; never live state. */
#include "report/experiment.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/monitor.h"
#include "report/summary.h"

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
    w->stress = !strcmp(r->workload, "stress");
    w->rows_s = ok && w->stress ? (double)r->rows / r->measured_s : NAN;
    w->mb_s = ok && w->stress ? (double)r->bytes / 1e6 / r->measured_s : NAN;
    w->tpm = ok && !w->stress ? r->tpm : NAN;
    w->nopm = ok && !w->stress ? r->nopm : NAN;
    latency(r, &w->avg_ms, &w->p95_ms);
    struct dg_monitor_summary m;
    dg_monitor_summarise(r->monitor, r->nmonitor, &m);
    int mon = m.n > 0;
    w->disk_read_mb_s = mon ? known(m.disk_read_mb_s) : NAN;
    w->disk_write_mb_s = mon ? known(m.disk_write_mb_s) : NAN;
    w->hit_ratio = mon ? known(m.cache_hit_ratio) : NAN;
    if (!ok)
        w->avg_ms = w->p95_ms = NAN;
    w->head = w->stress ? w->mb_s : w->nopm;
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
        if (dg_store_get(s, ids[i], with_series, &w->rec, err)) {
            if (!err->msg[0])
                dg_err_set(err, DG_ERR_FATAL, 0, "run %lld vanished", (long long)ids[i]);
            goto out;
        }
        t->n++;
        fill(w);
        w->d_prev = i ? pct(w->head, w[-1].head) : NAN;
        w->d_first = i ? pct(w->head, t->steps[0].head) : NAN;
        if (i && w->stress != t->steps[0].stress)
            w->d_first = NAN; /* different figures: no change to tell */
        if (i && w->stress != w[-1].stress)
            w->d_prev = NAN;
        t->failed_steps += strcmp(w->rec.status, "complete") != 0;
        w->swept = w->rec.swept_json ? cJSON_Parse(w->rec.swept_json) : NULL;
        pair_key(w);
        for (cJSON *kv = w->swept ? w->swept->child : NULL; kv; kv = kv->next)
            if (dg_exp_find(t->keys, t->nkeys, kv->string) < 0 && t->nkeys < DG_EXP_MAX_SWEPT)
                t->keys[t->nkeys++] = kv->string;
    }
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

static void cell(FILE *f, const char *fmt, int width, double v)
{
    if (isnan(v))
        fprintf(f, "%*s", width, "-");
    else
        fprintf(f, fmt, width, v);
}

static void pct_cell(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, "  %9s", "-");
    else
        fprintf(f, "  %+8.1f%%", v);
}

void dg_exp_step_figures(const struct dg_exp_step *w, double v[DG_EXP_NFIG], int decimals[DG_EXP_NFIG])
{
    const double fig[DG_EXP_NFIG] = {w->stress ? w->rows_s : w->tpm, w->head, w->avg_ms, w->p95_ms,
                                     w->disk_read_mb_s, w->disk_write_mb_s, 100 * w->hit_ratio};
    const int dec[DG_EXP_NFIG] = {0, w->stress ? 2 : 0, 3, 3, 2, 2, 2};
    memcpy(v, fig, sizeof fig);
    memcpy(decimals, dec, sizeof dec);
}

struct dg_exp_heads dg_exp_heads(const struct dg_exp_table *t)
{
    int stress = 0, tpcc = 0;
    for (int i = 0; i < t->n; i++)
        *(t->steps[i].stress ? &stress : &tpcc) = 1;
    if (stress && tpcc)
        return (struct dg_exp_heads){"TPM or rows/s", "NOPM or MB/s", "NOPM (tpcc steps) or MB/s (stress steps)"};
    if (stress)
        return (struct dg_exp_heads){"rows/s", "MB/s", "MB/s"};
    return (struct dg_exp_heads){"TPM", "NOPM", "NOPM"};
}

const char *dg_exp_other_workload(const struct dg_exp_table *t, int i)
{
    int s = t->steps[i].stress;
    return s == t->steps[0].stress ? "" : s ? " (stress)" : " (tpcc)";
}

void dg_exp_table_text(FILE *text, const struct dg_exp_table *t)
{
    const struct dg_experiment *ex = &t->ex;
    int n = t->n;
    fprintf(text, "\nExperiment %lld (%s%s%s): %d step%s, %s\n", (long long)ex->id, ex->file,
            ex->label[0] ? ", " : "", ex->label, n, n == 1 ? "" : "s", ex->status);
    /* TPC-C: TPM and NOPM; query stress: rows/s and MB/s, in the same two columns */
    struct dg_exp_heads h = dg_exp_heads(t);
    int width[DG_EXP_NFIG] = {10, 10, 9, 9, 8, 8, 6};
    width[0] = (int)strlen(h.first) > width[0] ? (int)strlen(h.first) : width[0];
    width[1] = (int)strlen(h.second) > width[1] ? (int)strlen(h.second) : width[1];
    fprintf(text, "%4s", "step");
    for (int k = 0; k < t->nkeys; k++)
        fprintf(text, "  %10s", t->keys[k]);
    fprintf(text, "  %*s  %*s  %9s  %9s  %8s  %8s  %6s  %9s  %9s  %6s  %s\n", width[0], h.first, width[1],
            h.second, "avg ms", "p95 ms", "disk rd", "disk wr", "hit %", "vs prev", "vs first", "run", "status");
    for (int i = 0; i < n; i++) {
        const struct dg_exp_step *w = &t->steps[i];
        fprintf(text, "%4d", w->rec.experiment_step);
        for (int k = 0; k < t->nkeys; k++) {
            const char *v = dg_exp_swept(t, i, k);
            fprintf(text, "  %10s", v ? v : "");
        }
        static const char *const fmt[DG_EXP_NFIG] = {"  %*.0f", "  %*.0f", "  %*.2f", "  %*.2f",
                                                      "  %*.1f", "  %*.1f", "  %*.1f"};
        double v[DG_EXP_NFIG];
        int dec[DG_EXP_NFIG];
        dg_exp_step_figures(w, v, dec);
        for (int k = 0; k < DG_EXP_NFIG; k++)
            cell(text, k == 1 && w->stress ? "  %*.2f" : fmt[k], width[k], v[k]);
        pct_cell(text, w->d_prev);
        pct_cell(text, w->d_first);
        int bad = strcmp(w->rec.status, "complete") != 0;
        fprintf(text, "  %6lld  %s%s%s%s\n", (long long)w->rec.id, w->rec.status, dg_exp_other_workload(t, i),
                w->rec.error[0] && bad ? ": " : "", bad ? w->rec.error : "");
    }
    if (n)
        fprintf(text, "(changes are of %s; latency over all transaction types; disk MB/s and the "
                      "cache hit ratio are the monitor's means over the measured window)\n",
                h.change_of);
}

static void csv_num(FILE *f, double v)
{
    fputc(',', f);
    if (!isnan(v))
        fprintf(f, "%.6g", v);
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void dg_exp_table_csv(FILE *csv, const struct dg_exp_table *t)
{
    fprintf(csv, "experiment_id,step");
    for (int k = 0; k < t->nkeys; k++) {
        fputc(',', csv);
        csv_str(csv, t->keys[k]);
    }
    fprintf(csv, ",workload,run_id,status,tpm,nopm,rows_per_s,mb_per_s,avg_ms,p95_ms,"
                 "disk_read_mb_s,disk_write_mb_s,cache_hit_ratio,change_prev_pct,change_first_pct\n");
    for (int i = 0; i < t->n; i++) {
        const struct dg_exp_step *w = &t->steps[i];
        fprintf(csv, "%lld,%d", (long long)t->ex.id, w->rec.experiment_step);
        for (int k = 0; k < t->nkeys; k++) {
            const char *v = dg_exp_swept(t, i, k);
            fputc(',', csv);
            csv_str(csv, v ? v : "");
        }
        fprintf(csv, ",%s,%lld,%s", w->rec.workload, (long long)w->rec.id, w->rec.status);
        const double v[] = {w->tpm,    w->nopm,           w->rows_s,          w->mb_s,
                            w->avg_ms, w->p95_ms,         w->disk_read_mb_s,  w->disk_write_mb_s,
                            w->hit_ratio, w->d_prev,      w->d_first};
        for (size_t k = 0; k < sizeof v / sizeof *v; k++)
            csv_num(csv, v[k]);
        fputc('\n', csv);
    }
}

static void num(cJSON *o, const char *k, double v)
{
    if (isnan(v))
        cJSON_AddNullToObject(o, k);
    else
        cJSON_AddNumberToObject(o, k, v);
}

cJSON *dg_exp_step_json(const struct dg_exp_table *t, int i, int flat)
{
    const struct dg_exp_step *w = &t->steps[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "step", w->rec.experiment_step);
    cJSON *sw = flat ? o : cJSON_AddObjectToObject(o, "swept");
    for (cJSON *kv = w->swept ? w->swept->child : NULL; kv; kv = kv->next)
        cJSON_AddStringToObject(sw, kv->string, cJSON_GetStringValue(kv));
    cJSON_AddNumberToObject(o, "run_id", (double)w->rec.id);
    cJSON_AddStringToObject(o, "workload", w->rec.workload);
    cJSON_AddStringToObject(o, "status", w->rec.status);
    if (w->stress) {
        num(o, "rows_per_s", w->rows_s);
        num(o, "mb_per_s", w->mb_s);
    } else {
        num(o, "tpm", w->tpm);
        num(o, "nopm", w->nopm);
    }
    num(o, "avg_ms", w->avg_ms);
    num(o, "p95_ms", w->p95_ms);
    num(o, "disk_read_mb_s", w->disk_read_mb_s);
    num(o, "disk_write_mb_s", w->disk_write_mb_s);
    num(o, "cache_hit_ratio", w->hit_ratio);
    num(o, "change_prev_pct", w->d_prev);
    num(o, "change_first_pct", w->d_first);
    if (flat)
        cJSON_AddItemToObject(o, "summary", dg_report_run_json(&w->rec));
    return o;
}

int dg_report_experiment(struct dg_store *s, int64_t id, FILE *text, cJSON **json, FILE *csv,
                         int *failed_steps, struct dg_err *err)
{
    struct dg_exp_table t;
    *failed_steps = 0;
    int rc = dg_exp_table_load(s, id, 0, &t, err);
    if (rc) {
        dg_exp_table_free(&t);
        return rc;
    }
    *failed_steps = t.failed_steps;
    if (text)
        dg_exp_table_text(text, &t);
    if (csv)
        dg_exp_table_csv(csv, &t);
    if (json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddNumberToObject(doc, "schema_version", DG_JSON_SCHEMA_VERSION);
        cJSON_AddNumberToObject(doc, "experiment_id", (double)t.ex.id);
        cJSON_AddStringToObject(doc, "file", t.ex.file);
        cJSON_AddStringToObject(doc, "label", t.ex.label);
        cJSON_AddStringToObject(doc, "status", t.ex.status);
        cJSON *arr = cJSON_AddArrayToObject(doc, "steps");
        for (int i = 0; i < t.n; i++)
            cJSON_AddItemToArray(arr, dg_exp_step_json(&t, i, 1));
        *json = doc;
    }
    dg_exp_table_free(&t);
    return 0;
}
