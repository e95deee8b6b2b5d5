/* export.c — CSV, JSON and Markdown of runs, groups and experiments, every number as stored (doubles at full
 * precision) or computed from a stored histogram; headline figures as the runs have them.
 * Formatting only; reads records only; never asks which workload a run is. */
#include "report/export.h"

#include <math.h>
#include <string.h>

#include "report/chart.h"
#include "report/repl.h"
#include "report/summary.h"

static const char csv_header[] =
    "schema_version,kind,run_id,group_id,workload,label,engine,type,second,percentile,threads,"
    "measured_s,committed,rollbacks,retries,errors,count,avg_ms,p50_ms,p90_ms,p95_ms,p99_ms,max_ms,"
    "latency_ms,nopm,tpm,rows,bytes,mb_per_s,"
    "cpu_user_pct,cpu_sys_pct,cpu_iowait_pct,disk_read_mb_s,disk_write_mb_s,disk_read_iops,"
    "disk_write_iops,disk_await_ms,server_rss_bytes,server_read_mb_s,server_write_mb_s,"
    "cache_hits_per_s,cache_misses_per_s,"
    "experiment_id,experiment_step,rows_per_s,cache_hit_ratio,change_prev_pct,change_first_pct,swept,"
    "retries_deadlock,retries_serialization,retries_lock_timeout,retries_busy,retries_certification,retries_other,in_doubt,"
    "errors_connection,errors_timeout,errors_too_many_connections,errors_closed_by_server,errors_read_only,"
    "errors_gave_up,errors_other\n";
enum { C_TYPE = 7, C_SECOND, C_PCT, C_THREADS, C_MEASURED, C_COMMITTED, C_ROLLBACKS, C_RETRIES,
       C_ERRORS, C_COUNT, C_AVG, C_P50, C_P90, C_P95, C_P99, C_MAX, C_LAT, C_NOPM, C_TPM, C_ROWS,
       C_BYTES, C_MBPS, C_MON, C_EXP = C_MON + 13, C_ESTEP, C_ROWSPS, C_HIT, C_DPREV, C_DFIRST,
       C_END, /* then swept, the one text column, then the retries by cause, in_doubt and the
               * errors by cause (added later) */
       C_CAUSE0 = C_END + 1, C_IN_DOUBT = C_CAUSE0 + DG_RETRY_NCAUSES, C_ECAUSE0,
       C_ALL = C_ECAUSE0 + DG_ERROR_NCAUSES };

/* One CSV row under construction: numeric cells as text, empty when unset. */
struct row {
    char cell[C_ALL][40]; /* cell[C_END] unused: swept is written from the record */
};

static void csv_text(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void setn(struct row *w, int col, double v) { dg_fmt_exact(w->cell[col], sizeof w->cell[col], v); }
/* setn, or an empty cell when there is no figure (NAN) */
static void setf(struct row *w, int col, double v)
{
    if (isfinite(v))
        setn(w, col, v);
}
static void setu(struct row *w, int col, uint64_t v) { snprintf(w->cell[col], sizeof w->cell[col], "%llu", (unsigned long long)v); }

/* One CSV line; a run of an experiment carries its experiment and step on every line, and a
 * step line its swept values (the stored JSON object, as text). */
static void emit(FILE *out, const char *kind, const struct dg_run_record *r, const char *type,
                 struct row *w)
{
    if (r->experiment_id) {
        setu(w, C_EXP, (uint64_t)r->experiment_id);
        setu(w, C_ESTEP, (uint64_t)r->experiment_step);
    }
    fprintf(out, "%d,%s,%lld,", DG_REPORT_SCHEMA_VERSION, kind, (long long)r->id);
    if (r->group_id)
        fprintf(out, "%lld", (long long)r->group_id);
    fputc(',', out);
    csv_text(out, r->workload);
    fputc(',', out);
    csv_text(out, r->label);
    fputc(',', out);
    csv_text(out, r->engine);
    fputc(',', out);
    if (type)
        csv_text(out, type);
    for (int c = C_SECOND; c < C_END; c++)
        fprintf(out, ",%s", w->cell[c]);
    fputc(',', out);
    if (!strcmp(kind, "step") && r->swept_json)
        csv_text(out, r->swept_json);
    for (int c = C_CAUSE0; c < C_ALL; c++)
        fprintf(out, ",%s", w->cell[c]);
    fputc('\n', out);
}

/* The run line's figure columns, named after figures: 0 in a column whose figure the run has
 * not (as the CSV always had it); a figure without a column is in the JSON. */
static const struct {
    int col;
    const char *name;
} run_figs[] = {{C_NOPM, "nopm"}, {C_TPM, "tpm"}, {C_MBPS, "mb_per_s"}};
/* A step line's: empty where the step has no such figure or measured nothing. */
static const struct {
    int col;
    const char *name;
} step_figs[] = {{C_NOPM, "nopm"}, {C_TPM, "tpm"}, {C_MBPS, "mb_per_s"}, {C_ROWSPS, "rows_per_s"}};

static void csv_run(FILE *out, const struct dg_run_record *r)
{
    struct row w;
    memset(&w, 0, sizeof w);
    setn(&w, C_THREADS, r->vus);
    setn(&w, C_MEASURED, r->measured_s);
    setu(&w, C_COUNT, dg_run_completed(r));
    for (size_t k = 0; k < sizeof run_figs / sizeof *run_figs; k++) {
        double v = dg_figs_value(r->figures, r->nfigures, run_figs[k].name);
        setn(&w, run_figs[k].col, isfinite(v) ? v : 0);
    }
    setu(&w, C_ROWS, r->rows);
    setu(&w, C_BYTES, r->bytes);
    emit(out, "run", r, NULL, &w);
    for (int t = 0; t < r->ntypes; t++) {
        const struct dg_txn_summary *x = &r->txn[t];
        memset(&w, 0, sizeof w);
        setu(&w, C_COMMITTED, x->committed);
        setu(&w, C_ROLLBACKS, x->rollbacks);
        setu(&w, C_RETRIES, x->retries);
        for (int k = 0; k < DG_RETRY_NCAUSES && x->retry_causes_known; k++)
            setu(&w, C_CAUSE0 + k, x->retry_causes[dg_retry_cause_at(k)]);
        setu(&w, C_ERRORS, x->errors);
        if (x->in_doubt_known)
            setu(&w, C_IN_DOUBT, x->in_doubt);
        for (int k = 0; k < DG_ERROR_NCAUSES; k++)
            if (dg_txn_error_cause_known(x, dg_error_cause_at(k)))
                setu(&w, C_ECAUSE0 + k, x->error_causes[dg_error_cause_at(k)]);
        setu(&w, C_COUNT, dg_txn_count(x));
        setn(&w, C_AVG, x->avg_ms);
        setn(&w, C_P50, x->p50_ms);
        setn(&w, C_P90, x->p90_ms);
        setn(&w, C_P95, x->p95_ms);
        setn(&w, C_P99, x->p99_ms);
        setn(&w, C_MAX, x->max_ms);
        emit(out, "txn", r, x->name, &w);
    }
    for (int t = 0; t < r->ntypes; t++)
        for (int i = 0; i < DG_CURVE_POINTS && r->txn[t].hist && r->txn[t].hist->total; i++) {
            memset(&w, 0, sizeof w);
            setn(&w, C_PCT, dg_curve_percentiles[i]);
            setn(&w, C_LAT, dg_curve_ms(r->txn[t].hist, dg_curve_percentiles[i]));
            emit(out, "percentile", r, r->txn[t].name, &w);
        }
    for (size_t k = 0; k < r->nseries; k++)
        for (int t = 0; t < r->ntypes; t++) {
            const struct dg_series_type *x = &r->series[k].t[t];
            memset(&w, 0, sizeof w);
            setn(&w, C_SECOND, (double)r->series[k].second);
            setu(&w, C_COMMITTED, x->c.committed);
            setu(&w, C_ROLLBACKS, x->c.rollbacks);
            setu(&w, C_RETRIES, x->c.retries);
            setu(&w, C_ERRORS, x->c.errors);
            setn(&w, C_P50, x->p50_ms);
            setn(&w, C_P95, x->p95_ms);
            setn(&w, C_P99, x->p99_ms);
            emit(out, "series", r, r->txn[t].name, &w);
        }
    for (size_t k = 0; k < r->nmonitor; k++) {
        const struct dg_monitor_point *p = &r->monitor[k];
        const double v[] = {p->cpu_user_pct,     p->cpu_sys_pct,       p->cpu_iowait_pct,
                            p->disk_read_mb_s,   p->disk_write_mb_s,   p->disk_read_iops,
                            p->disk_write_iops,  p->disk_await_ms,     p->server_rss_bytes,
                            p->server_read_mb_s, p->server_write_mb_s, p->cache_hits_per_s,
                            p->cache_misses_per_s};
        _Static_assert(sizeof v / sizeof *v == C_EXP - C_MON, "one CSV column per monitor figure");
        memset(&w, 0, sizeof w);
        setn(&w, C_SECOND, (double)p->second);
        for (int i = 0; i < C_EXP - C_MON; i++)
            if (v[i] >= 0) /* -1: not available, an empty cell */
                setn(&w, C_MON + i, v[i]);
        emit(out, "monitor", r, NULL, &w);
    }
}

/* An experiment: one `step` line per step (the step table's figures), then each step's run. */
static void csv_experiment(FILE *out, const struct dg_exp_table *t)
{
    struct row w;
    for (int i = 0; i < t->n; i++) {
        const struct dg_exp_step *x = &t->steps[i];
        memset(&w, 0, sizeof w);
        setn(&w, C_THREADS, x->rec.vus);
        setn(&w, C_MEASURED, x->rec.measured_s);
        for (size_t k = 0; k < sizeof step_figs / sizeof *step_figs; k++)
            setf(&w, step_figs[k].col, dg_exp_fig(x, step_figs[k].name));
        setf(&w, C_AVG, x->avg_ms);
        setf(&w, C_P95, x->p95_ms);
        setf(&w, C_MON + 3, x->disk_read_mb_s);
        setf(&w, C_MON + 4, x->disk_write_mb_s);
        setf(&w, C_HIT, x->hit_ratio);
        setf(&w, C_DPREV, x->d_prev);
        setf(&w, C_DFIRST, x->d_first);
        emit(out, "step", &x->rec, NULL, &w);
    }
    for (int i = 0; i < t->n; i++)
        csv_run(out, &t->steps[i].rec);
}

void dg_report_csv(FILE *out, const struct dg_report_item *items, int n)
{
    fputs(csv_header, out);
    for (int i = 0; i < n; i++) {
        if (items[i].exp)
            csv_experiment(out, items[i].exp);
        for (int k = 0; k < items[i].nruns; k++)
            csv_run(out, &items[i].runs[k]);
    }
}

static cJSON *run_json(const struct dg_run_record *r)
{
    cJSON *o = dg_report_run_json(r);
    cJSON_DeleteItemFromObject(o, "schema_version"); /* the document's own applies */
    if (r->query) /* a query's sweep step: its threads (its figures: dg_report_run_json) */
        cJSON_AddNumberToObject(o, "threads", r->vus);
    if (r->nmonitor) /* "monitor" holds the measured means; the samples sit beside them */
        cJSON_AddItemToObject(o, "monitor_series", dg_report_monitor_series_json(r));
    if (r->nrepl) { /* as `runs show ID --monitor --json` */
        cJSON_AddItemToObject(o, "replication", dg_report_repl_json(r));
        cJSON_AddItemToObject(o, "replication_summary", dg_report_repl_summary_json(r));
    }
    cJSON *pct = cJSON_AddObjectToObject(o, "percentiles");
    for (int t = 0; t < r->ntypes; t++) {
        cJSON *arr = cJSON_AddArrayToObject(pct, r->txn[t].name);
        for (int i = 0; i < DG_CURVE_POINTS && r->txn[t].hist && r->txn[t].hist->total; i++) {
            cJSON *p = cJSON_CreateObject();
            cJSON_AddNumberToObject(p, "percentile", dg_curve_percentiles[i]);
            cJSON_AddNumberToObject(p, "ms", dg_curve_ms(r->txn[t].hist, dg_curve_percentiles[i]));
            cJSON_AddItemToArray(arr, p);
        }
    }
    return o;
}

/* An experiment item: what it is, its swept keys, the step table and each step's run. */
static void exp_json(cJSON *o, const struct dg_exp_table *t)
{
    cJSON_AddStringToObject(o, "file", t->ex.file);
    cJSON_AddStringToObject(o, "label", t->ex.label);
    cJSON_AddStringToObject(o, "status", t->ex.status);
    cJSON_AddStringToObject(o, "started_at", t->ex.started_at);
    cJSON_AddStringToObject(o, "ended_at", t->ex.ended_at);
    const struct dg_figure *head = t->n ? dg_run_fig(&t->steps[0].rec, 0) : NULL;
    cJSON_AddStringToObject(o, "headline", head ? head->name : "");
    cJSON *keys = cJSON_AddArrayToObject(o, "swept_keys");
    for (int k = 0; k < t->nkeys; k++)
        cJSON_AddItemToArray(keys, cJSON_CreateString(t->keys[k]));
    cJSON *steps = cJSON_AddArrayToObject(o, "steps");
    for (int i = 0; i < t->n; i++)
        cJSON_AddItemToArray(steps, dg_exp_step_json(t, i, 0));
    cJSON *runs = cJSON_AddArrayToObject(o, "runs");
    for (int i = 0; i < t->n; i++)
        cJSON_AddItemToArray(runs, run_json(&t->steps[i].rec));
}

cJSON *dg_report_json(const struct dg_report_item *items, int n)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "schema_version", DG_REPORT_SCHEMA_VERSION);
    cJSON_AddStringToObject(doc, "generator", "dbgauge " DG_VERSION);
    cJSON *arr = cJSON_AddArrayToObject(doc, "items");
    for (int i = 0; i < n; i++) {
        const struct dg_report_item *it = &items[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", it->kind == DG_ITEM_EXPERIMENT ? "experiment"
                                           : it->kind == DG_ITEM_GROUP    ? "group"
                                                                          : "run");
        cJSON_AddNumberToObject(o, "id", (double)it->id);
        if (it->exp) {
            exp_json(o, it->exp);
            cJSON_AddItemToArray(arr, o);
            continue;
        }
        if (it->kind == DG_ITEM_GROUP) {
            cJSON *steps = cJSON_AddArrayToObject(o, "steps");
            for (int k = 0; k < it->nruns; k++) {
                const struct dg_run_record *r = &it->runs[k];
                cJSON *s = cJSON_CreateObject();
                char pct[32];
                cJSON_AddNumberToObject(s, "run_id", (double)r->id);
                cJSON_AddNumberToObject(s, "threads", r->vus);
                cJSON_AddNumberToObject(s, "measured_seconds", r->measured_s);
                const struct dg_figure *f = dg_run_fig(r, 0); /* the headline, and its change */
                char key[64];
                if (f)
                    cJSON_AddNumberToObject(s, f->name, f->value);
                if (f && k > 0 && dg_run_same_fig(&it->runs[k - 1], r, 0)) {
                    snprintf(key, sizeof key, "%s_change", f->name);
                    cJSON_AddStringToObject(s, key, dg_pct_change(pct, sizeof pct, dg_run_fig_value(&it->runs[k - 1], 0),
                                                                  f->value));
                }
                cJSON_AddItemToArray(steps, s);
            }
        }
        cJSON *runs = cJSON_AddArrayToObject(o, "runs");
        for (int k = 0; k < it->nruns; k++)
            cJSON_AddItemToArray(runs, run_json(&it->runs[k]));
        cJSON_AddItemToArray(arr, o);
    }
    return doc;
}

static void md_text(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (strchr("|\\`*_<>[]", *s))
            fputc('\\', out);
        fputc(*s == '\n' ? ' ' : *s, out);
    }
}

/* The headline and the second figure, and the threads (a query's sweep) or virtual users. */
static void md_figures(FILE *out, const struct dg_run_record *r)
{
    int n = r->nfigures < 2 ? r->nfigures : 2;
    fputc('|', out);
    for (int k = 0; k < n; k++)
        fprintf(out, " %s |", r->figures[k].label);
    fprintf(out, " %s |\n|", r->query ? "threads" : "VUs");
    for (int k = 0; k <= n; k++)
        fprintf(out, "---:|");
    fputs("\n|", out);
    for (int k = 0; k < n; k++)
        fprintf(out, " %.*f |", r->figures[k].decimals, r->figures[k].value);
    fprintf(out, " %d |\n\n", r->vus);
}

static void md_run(FILE *out, const struct dg_run_record *r)
{
    fprintf(out, "## Run %lld: %s", (long long)r->id, r->workload);
    if (r->label[0]) {
        fprintf(out, " (");
        md_text(out, r->label);
        fprintf(out, ")");
    }
    fprintf(out, "\n\n");
    md_text(out, r->target);
    fprintf(out, ", ");
    md_text(out, r->engine);
    fprintf(out, " ");
    md_text(out, r->engine_version);
    fprintf(out, ", %s, %.3f s measured.\n\n", r->status, r->measured_s);
    md_figures(out, r);
    fprintf(out, "| type | count | errors | avg ms | p50 | p90 | p95 | p99 | max |\n"
                 "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int t = 0; t < r->ntypes; t++) {
        const struct dg_txn_summary *x = &r->txn[t];
        fprintf(out, "| ");
        md_text(out, x->name);
        fprintf(out, " | %llu | %llu", (unsigned long long)dg_txn_count(x), (unsigned long long)x->errors);
        if (x->in_doubt) /* of the errors (known from schema 10 on) */
            fprintf(out, " (%llu in doubt)", (unsigned long long)x->in_doubt);
        fprintf(out, " | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", x->avg_ms, x->p50_ms, x->p90_ms, x->p95_ms,
                x->p99_ms, x->max_ms);
    }
    fprintf(out, "\n");
}

static void md_num(FILE *out, double v, int decimals)
{
    char b[64];
    fprintf(out, " %s |", isfinite(v) ? dg_fmt_num(b, sizeof b, v, decimals) : "-");
}

static void md_pct(FILE *out, double v)
{
    char b[32];
    fprintf(out, " %s |", isfinite(v) ? dg_pct_from_mean(b, sizeof b, v) : "");
}

/* The step table, each figure as in experiment.c's table. */
static void md_experiment(FILE *out, const struct dg_exp_table *t)
{
    struct dg_exp_heads heads = dg_exp_heads(t);
    fprintf(out, "## Experiment %lld: ", (long long)t->ex.id);
    md_text(out, t->ex.file);
    if (t->ex.label[0]) {
        fprintf(out, " (");
        md_text(out, t->ex.label);
        fprintf(out, ")");
    }
    fprintf(out, "\n\n%d steps, %s. Changes are of %s; latency over all transaction types; disk MB/s "
                 "are the monitor's means.\n\n| step |", t->n, t->ex.status, heads.change_of);
    for (int k = 0; k < t->nkeys; k++) {
        fputc(' ', out);
        md_text(out, t->keys[k]);
        fprintf(out, " |");
    }
    fprintf(out, " run | %s | %s | avg ms | p95 ms | disk read MB/s | disk write MB/s | cache hit %% | vs prev | vs first |\n|---:|",
            heads.first, heads.second);
    for (int k = 0; k < t->nkeys; k++)
        fprintf(out, "---|");
    fprintf(out, "---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < t->n; i++) {
        const struct dg_exp_step *w = &t->steps[i];
        fprintf(out, "| %d%s |", w->rec.experiment_step, dg_exp_other_workload(t, i));
        for (int k = 0; k < t->nkeys; k++) {
            fputc(' ', out);
            md_text(out, dg_exp_swept(t, i, k));
            fprintf(out, " |");
        }
        fprintf(out, " %lld |", (long long)w->rec.id);
        double v[DG_EXP_NFIG];
        int dec[DG_EXP_NFIG];
        dg_exp_step_figures(w, v, dec);
        for (int k = 0; k < DG_EXP_NFIG; k++)
            md_num(out, v[k], dec[k]);
        md_pct(out, w->d_prev);
        md_pct(out, w->d_first);
        fputc('\n', out);
    }
    fprintf(out, "\n");
}

void dg_report_md(FILE *out, const struct dg_report_item *items, int n)
{
    fprintf(out, "# dbgauge report\n\n");
    for (int i = 0; i < n; i++) {
        const struct dg_report_item *it = &items[i];
        if (it->exp) {
            md_experiment(out, it->exp);
            continue;
        }
        if (it->kind != DG_ITEM_GROUP) {
            md_run(out, &it->runs[0]);
            continue;
        }
        const struct dg_figure *h = dg_run_fig(&it->runs[0], 0);
        fprintf(out, "## Group %lld: %d steps\n\n| threads | run | run time s | %s | change | p95 ms |\n"
                     "|---:|---:|---:|---:|---:|---:|\n",
                (long long)it->id, it->nruns, h ? h->label : "");
        for (int k = 0; k < it->nruns; k++) {
            const struct dg_run_record *r = &it->runs[k];
            const struct dg_figure *f = dg_run_fig(r, 0);
            char pct[32] = "";
            if (k > 0 && dg_run_same_fig(&it->runs[k - 1], r, 0))
                dg_pct_change(pct, sizeof pct, dg_run_fig_value(&it->runs[k - 1], 0), f ? f->value : NAN);
            fprintf(out, "| %d | %lld | %.3f | %.*f | %s | %.3f |\n", r->vus, (long long)r->id, r->measured_s,
                    f ? f->decimals : 0, f ? f->value : NAN, pct, r->ntypes ? r->txn[0].p95_ms : NAN);
        }
        fprintf(out, "\n");
    }
}
