/* exptable.c — renders an experiment's step table (report/experiment.h's model) as text, CSV
 * and JSON, and `dbgauge experiment show`. Formatting only: the figures, heads and changes
 * come computed from the model. */
#include <math.h>
#include <string.h>

#include "report/summary.h"

/* The CSV's figure columns, named after figures (empty where a step has none of that name). */
static const char *const csv_figs[] = {"tpm", "nopm", "rows_per_s", "mb_per_s"};
#define DG_EXP_CSV_FIGS ((int)(sizeof csv_figs / sizeof *csv_figs))

static void cell(FILE *f, int width, int decimals, double v)
{
    if (isnan(v))
        fprintf(f, "  %*s", width, "-");
    else
        fprintf(f, "  %*.*f", width, decimals, v);
}

static void pct_cell(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, "  %9s", "-");
    else
        fprintf(f, "  %+8.1f%%", v);
}

void dg_exp_table_text(FILE *text, const struct dg_exp_table *t)
{
    const struct dg_experiment *ex = &t->ex;
    int n = t->n;
    fprintf(text, "\nExperiment %lld (%s%s%s): %d step%s, %s\n", (long long)ex->id, ex->file,
            ex->label[0] ? ", " : "", ex->label, n, n == 1 ? "" : "s", ex->status);
    /* the second figure and the headline of each step, in two columns */
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
        /* the figures with their own decimals; latency, disk and hit % as the page's less one */
        static const int text_dec[DG_EXP_NFIG] = {0, 0, 2, 2, 1, 1, 1};
        double v[DG_EXP_NFIG];
        int dec[DG_EXP_NFIG];
        dg_exp_step_figures(w, v, dec);
        for (int k = 0; k < DG_EXP_NFIG; k++)
            cell(text, width[k], k < 2 ? dec[k] : text_dec[k], v[k]);
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
    fputs(",workload,run_id,status", csv);
    for (int k = 0; k < DG_EXP_CSV_FIGS; k++)
        fprintf(csv, ",%s", csv_figs[k]);
    fputs(",avg_ms,p95_ms,disk_read_mb_s,disk_write_mb_s,cache_hit_ratio,change_prev_pct,change_first_pct\n", csv);
    for (int i = 0; i < t->n; i++) {
        const struct dg_exp_step *w = &t->steps[i];
        fprintf(csv, "%lld,%d", (long long)t->ex.id, w->rec.experiment_step);
        for (int k = 0; k < t->nkeys; k++) {
            const char *v = dg_exp_swept(t, i, k);
            fputc(',', csv);
            csv_str(csv, v ? v : "");
        }
        fprintf(csv, ",%s,%lld,%s", w->rec.workload, (long long)w->rec.id, w->rec.status);
        for (int k = 0; k < DG_EXP_CSV_FIGS; k++)
            csv_num(csv, dg_exp_fig(w, csv_figs[k]));
        const double v[] = {w->avg_ms,          w->p95_ms,       w->disk_read_mb_s, w->disk_write_mb_s,
                            w->hit_ratio,       w->d_prev,       w->d_first};
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
    /* the second figure and the headline under their names (null: the step measured nothing) */
    for (int k = 1; k >= 0; k--) {
        const struct dg_figure *f = dg_run_fig(&w->rec, k);
        if (f)
            num(o, f->name, k ? w->second : w->head);
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
