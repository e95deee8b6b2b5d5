/* experiment.c — the step table rendered from the stored runs of one experiment: the
 * headline figure is NOPM for TPC-C and MB/s for query stress, and the percent changes are
 * computed from it. Reads the store only; never live state. */
#include "report/experiment.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/monitor.h"
#include "report/summary.h"

#define MAX_SWEPT 16

struct row {
    struct dg_run_record rec;
    double rows_s, mb_s, avg_ms, p95_ms, head, d_prev, d_first; /* NAN: no figure */
    /* The monitor's measured-window means: the storage traffic behind the step and the
     * engine's cache hit ratio (NAN: not monitored or not available). */
    double disk_read_mb_s, disk_write_mb_s, hit_ratio;
};

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

static void fill(struct row *w)
{
    const struct dg_run_record *r = &w->rec;
    int ok = r->measured_s > 0 && strcmp(r->status, "failed");
    w->rows_s = ok ? (double)r->rows / r->measured_s : NAN;
    w->mb_s = ok ? (double)r->bytes / 1e6 / r->measured_s : NAN;
    latency(r, &w->avg_ms, &w->p95_ms);
    struct dg_monitor_summary m;
    dg_monitor_summarise(r->monitor, r->nmonitor, &m);
    int mon = m.n > 0;
    w->disk_read_mb_s = mon ? known(m.disk_read_mb_s) : NAN;
    w->disk_write_mb_s = mon ? known(m.disk_write_mb_s) : NAN;
    w->hit_ratio = mon ? known(m.cache_hit_ratio) : NAN;
    if (!ok)
        w->avg_ms = w->p95_ms = NAN;
    w->head = !ok ? NAN : !strcmp(r->workload, "stress") ? w->mb_s : r->nopm;
}

static void num(cJSON *o, const char *k, double v)
{
    if (isnan(v))
        cJSON_AddNullToObject(o, k);
    else
        cJSON_AddNumberToObject(o, k, v);
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

static void csv_num(FILE *f, double v)
{
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

int dg_report_experiment(struct dg_store *s, int64_t id, FILE *text, cJSON **json, FILE *csv,
                         int *failed_steps, struct dg_err *err)
{
    struct dg_experiment ex;
    int64_t *ids = NULL;
    int n = 0;
    int got = dg_store_experiment_get(s, id, &ex, &ids, &n, err);
    if (got)
        return got;
    struct row *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
    cJSON **swept = calloc((size_t)(n ? n : 1), sizeof *swept);
    const char *keys[MAX_SWEPT];
    int nkeys = 0, rc = -1;
    *failed_steps = 0;
    if (!rows || !swept) {
        dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        if (dg_store_get(s, ids[i], 0, &rows[i].rec, err)) {
            if (!err->msg[0])
                dg_err_set(err, DG_ERR_FATAL, 0, "run %lld vanished", (long long)ids[i]);
            n = i;
            goto out;
        }
        fill(&rows[i]);
        rows[i].d_prev = i ? pct(rows[i].head, rows[i - 1].head) : NAN;
        rows[i].d_first = i ? pct(rows[i].head, rows[0].head) : NAN;
        if (i && strcmp(rows[i].rec.workload, rows[0].rec.workload))
            rows[i].d_first = NAN; /* different figures: no change to tell */
        if (i && strcmp(rows[i].rec.workload, rows[i - 1].rec.workload))
            rows[i].d_prev = NAN;
        *failed_steps += strcmp(rows[i].rec.status, "complete") != 0;
        swept[i] = rows[i].rec.swept_json ? cJSON_Parse(rows[i].rec.swept_json) : NULL;
        for (cJSON *kv = swept[i] ? swept[i]->child : NULL; kv; kv = kv->next) {
            int k;
            for (k = 0; k < nkeys && strcmp(keys[k], kv->string); k++)
                ;
            if (k == nkeys && nkeys < MAX_SWEPT)
                keys[nkeys++] = kv->string;
        }
    }
#define SWEPT_VAL(i, k) (cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(swept[i], keys[k])))
    if (text) {
        fprintf(text, "\nExperiment %lld (%s%s%s): %d step%s, %s\n", (long long)ex.id, ex.file,
                ex.label[0] ? ", " : "", ex.label, n, n == 1 ? "" : "s", ex.status);
        /* TPC-C: TPM and NOPM; query stress: rows/s and MB/s, in the same two columns */
        int stress0 = n && !strcmp(rows[0].rec.workload, "stress");
        fprintf(text, "%4s", "step");
        for (int k = 0; k < nkeys; k++)
            fprintf(text, "  %10s", keys[k]);
        fprintf(text, "  %10s  %10s  %9s  %9s  %8s  %8s  %6s  %9s  %9s  %6s  %s\n",
                stress0 ? "rows/s" : "TPM", stress0 ? "MB/s" : "NOPM", "avg ms", "p95 ms", "disk rd",
                "disk wr", "hit %", "vs prev", "vs first", "run", "status");
        for (int i = 0; i < n; i++) {
            const struct row *w = &rows[i];
            int stress = !strcmp(w->rec.workload, "stress"), ok = !isnan(w->head);
            fprintf(text, "%4d", w->rec.experiment_step);
            for (int k = 0; k < nkeys; k++) {
                const char *v = SWEPT_VAL(i, k);
                fprintf(text, "  %10s", v ? v : "");
            }
            cell(text, "  %*.0f", 10, !ok ? NAN : stress ? w->rows_s : w->rec.tpm);
            cell(text, stress ? "  %*.2f" : "  %*.0f", 10, !ok ? NAN : stress ? w->mb_s : w->rec.nopm);
            cell(text, "  %*.2f", 9, w->avg_ms);
            cell(text, "  %*.2f", 9, w->p95_ms);
            cell(text, "  %*.1f", 8, w->disk_read_mb_s);
            cell(text, "  %*.1f", 8, w->disk_write_mb_s);
            cell(text, "  %*.1f", 6, 100 * w->hit_ratio);
            pct_cell(text, w->d_prev);
            pct_cell(text, w->d_first);
            fprintf(text, "  %6lld  %s%s%s%s\n", (long long)w->rec.id, w->rec.status,
                    stress != stress0 ? (stress ? " (stress)" : " (tpcc)") : "",
                    w->rec.error[0] && strcmp(w->rec.status, "complete") ? ": " : "",
                    strcmp(w->rec.status, "complete") ? w->rec.error : "");
        }
        if (n)
            fprintf(text, "(changes are of %s; latency over all transaction types; disk MB/s and the "
                          "cache hit ratio are the monitor's means over the measured window)\n",
                    stress0 ? "MB/s" : "NOPM");
    }
    if (csv) {
        fprintf(csv, "experiment_id,step");
        for (int k = 0; k < nkeys; k++) {
            fputc(',', csv);
            csv_str(csv, keys[k]);
        }
        fprintf(csv, ",workload,run_id,status,tpm,nopm,rows_per_s,mb_per_s,avg_ms,p95_ms,"
                     "disk_read_mb_s,disk_write_mb_s,cache_hit_ratio,change_prev_pct,change_first_pct\n");
        for (int i = 0; i < n; i++) {
            const struct row *w = &rows[i];
            fprintf(csv, "%lld,%d", (long long)ex.id, w->rec.experiment_step);
            for (int k = 0; k < nkeys; k++) {
                const char *v = SWEPT_VAL(i, k);
                fputc(',', csv);
                csv_str(csv, v ? v : "");
            }
            fprintf(csv, ",%s,%lld,%s,", w->rec.workload, (long long)w->rec.id, w->rec.status);
            int stress = !strcmp(w->rec.workload, "stress");
            csv_num(csv, stress ? NAN : w->rec.tpm);
            fputc(',', csv);
            csv_num(csv, stress ? NAN : w->rec.nopm);
            fputc(',', csv);
            csv_num(csv, stress ? w->rows_s : NAN);
            fputc(',', csv);
            csv_num(csv, stress ? w->mb_s : NAN);
            fputc(',', csv);
            csv_num(csv, w->avg_ms);
            fputc(',', csv);
            csv_num(csv, w->p95_ms);
            fputc(',', csv);
            csv_num(csv, w->disk_read_mb_s);
            fputc(',', csv);
            csv_num(csv, w->disk_write_mb_s);
            fputc(',', csv);
            csv_num(csv, w->hit_ratio);
            fputc(',', csv);
            csv_num(csv, w->d_prev);
            fputc(',', csv);
            csv_num(csv, w->d_first);
            fputc('\n', csv);
        }
    }
    if (json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddNumberToObject(doc, "schema_version", DG_JSON_SCHEMA_VERSION);
        cJSON_AddNumberToObject(doc, "experiment_id", (double)ex.id);
        cJSON_AddStringToObject(doc, "file", ex.file);
        cJSON_AddStringToObject(doc, "label", ex.label);
        cJSON_AddStringToObject(doc, "status", ex.status);
        cJSON *arr = cJSON_AddArrayToObject(doc, "steps");
        for (int i = 0; i < n; i++) {
            const struct row *w = &rows[i];
            int stress = !strcmp(w->rec.workload, "stress");
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "step", w->rec.experiment_step);
            for (cJSON *kv = swept[i] ? swept[i]->child : NULL; kv; kv = kv->next)
                cJSON_AddStringToObject(o, kv->string, cJSON_GetStringValue(kv));
            cJSON_AddNumberToObject(o, "run_id", (double)w->rec.id);
            cJSON_AddStringToObject(o, "workload", w->rec.workload);
            cJSON_AddStringToObject(o, "status", w->rec.status);
            if (stress) {
                num(o, "rows_per_s", w->rows_s);
                num(o, "mb_per_s", w->mb_s);
            } else {
                num(o, "tpm", isnan(w->head) ? NAN : w->rec.tpm);
                num(o, "nopm", isnan(w->head) ? NAN : w->rec.nopm);
            }
            num(o, "avg_ms", w->avg_ms);
            num(o, "p95_ms", w->p95_ms);
            num(o, "disk_read_mb_s", w->disk_read_mb_s);
            num(o, "disk_write_mb_s", w->disk_write_mb_s);
            num(o, "cache_hit_ratio", w->hit_ratio);
            num(o, "change_prev_pct", w->d_prev);
            num(o, "change_first_pct", w->d_first);
            cJSON_AddItemToObject(o, "summary", dg_report_run_json(&w->rec));
            cJSON_AddItemToArray(arr, o);
        }
        *json = doc;
    }
#undef SWEPT_VAL
    rc = 0;
out:
    for (int i = 0; rows && i < n; i++)
        dg_run_record_free(&rows[i].rec);
    for (int i = 0; swept && i < n; i++)
        cJSON_Delete(swept[i]);
    free(rows);
    free(swept);
    free(ids);
    return rc;
}
