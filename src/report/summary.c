/* summary.c — text and JSON renderings of a stored run: its headline figures (whatever the
 * workload: the ones it has), the per-type table with the mix shares, the configuration.
 * Pure formatting of a record; never asks which workload it is. */
#include "report/summary.h"

#include <math.h>
#include <string.h>

/* 1234567.8, 2 -> "1,234,567.80" */
const char *dg_report_thousands_dec(double v, int decimals, char *buf, size_t n)
{
    char raw[48];
    snprintf(raw, sizeof raw, "%.*f", decimals, v);
    const char *dot = strchr(raw, '.');
    size_t len = dot ? (size_t)(dot - raw) : strlen(raw), o = 0;
    size_t start = raw[0] == '-' ? 1 : 0;
    for (size_t i = 0; i < len && o + 2 < n; i++) {
        if (i > start && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = raw[i];
    }
    for (size_t i = len; raw[i] && o + 1 < n; i++)
        buf[o++] = raw[i];
    buf[o] = '\0';
    return buf;
}

/* 1234567.8 -> "1,234,568" */
const char *dg_report_thousands(double v, char *buf, size_t n) { return dg_report_thousands_dec(v, 0, buf, n); }

static int scheduled(const struct dg_run_record *r)
{
    return !strcmp(r->load_model, "rate") || !strcmp(r->load_model, "think");
}

static double all_completed_per_s(const struct dg_run_record *r)
{
    uint64_t all = 0;
    for (int t = 0; t < r->ntypes; t++)
        all += dg_txn_count(&r->txn[t]);
    return r->measured_s > 0 ? (double)all / r->measured_s : 0;
}

const char *dg_report_error_label(const struct dg_run_record *r)
{
    if (!strcmp(r->status, "lost") || !strcmp(r->status, "failed"))
        return r->status;
    /* a run the results database took only in part, and met no error (store_put.c) */
    return strncmp(r->error, DG_NOT_KEPT, strlen(DG_NOT_KEPT)) ? "first error" : "stored";
}

void dg_report_run_text(FILE *out, const struct dg_run_record *r)
{
    char a[32], b[32];
    uint64_t all = 0;
    for (int t = 0; t < r->ntypes; t++)
        all += dg_txn_count(&r->txn[t]);
    if (r->id > 0)
        fprintf(out, "\nRun %lld (%s)", (long long)r->id, r->status);
    else /* a run the results database did not take: it has no id */
        fprintf(out, "\nRun not stored (%s)", r->status);
    fprintf(out, "%s%s%s\n", r->label[0] ? ", label \"" : "", r->label, r->label[0] ? "\"" : "");
    fprintf(out, "  target   %s (%s %s)\n", r->target, r->engine, r->engine_version);
    fprintf(out, "  load     ");
    if (r->warehouses > 0) /* a scale in warehouses, for the workloads that have one */
        fprintf(out, "%d warehouse%s, ", r->warehouses, r->warehouses == 1 ? "" : "s");
    fprintf(out, "%d virtual user%s, %.1f s measured", r->vus, r->vus == 1 ? "" : "s", r->measured_s);
    if (r->warmup_s > 0)
        fprintf(out, " after %.1f s warm-up", r->warmup_s);
    fprintf(out, "\n");
    if (!strcmp(r->load_model, "rate")) {
        double got = all_completed_per_s(r);
        int kept = dg_run_kept_up(r);
        fprintf(out, "  rate     %.1f/s asked, %.1f/s achieved: %s; start lag p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
                r->rate_asked, got, kept ? "kept up" : "FELL BEHIND (latency below includes the queueing)",
                r->lag_p50_ms, r->lag_p99_ms, r->lag_max_ms);
        dg_report_schedule_text(out, r);
    }
    if (!strcmp(r->load_model, "think"))
        fprintf(out, "  terminals %d with keying and think times%s; schedule lag p50 %.3f ms, p99 %.3f ms\n",
                r->terminals, r->think_scale != 1.0 ? " (time-scaled: no tpmC)" : "", r->lag_p50_ms,
                r->lag_p99_ms);
    fprintf(out, "  result ");
    for (int k = 0; k < 2 && k < r->nfigures; k++) /* the headline and the second figure */
        fprintf(out, "  %s%s %s", k ? " " : "", r->figures[k].label,
                dg_report_thousands_dec(r->figures[k].value, r->figures[k].decimals, a, sizeof a));
    if (!r->nfigures)
        fprintf(out, "  (no figures: nothing measured)");
    if (all && r->client_cpu_s > 0)
        fprintf(out, "   dbgauge CPU %.3f ms/txn", r->client_cpu_s * 1e3 / (double)all);
    fprintf(out, "\n");
    dg_report_monitor_line(out, "  ", r);
    /* The think model's ceiling is of the figure stored as "tpmc" (absent: scaled times). */
    double tpmc = dg_figs_value(r->figures, r->nfigures, "tpmc");
    if (isfinite(tpmc) || !strcmp(r->load_model, "think"))
        fprintf(out, "  tpmC     %s of a %s ceiling (%.1f%%)%s\n",
                dg_report_thousands(isfinite(tpmc) ? tpmc : 0, a, sizeof a),
                dg_report_thousands(r->tpmc_ceiling, b, sizeof b),
                r->tpmc_ceiling > 0 && isfinite(tpmc) ? 100.0 * tpmc / r->tpmc_ceiling : 0.0,
                isfinite(tpmc) ? "" : " (not reported: scaled times)");
    dg_report_events_text(out, r);
    fprintf(out, "\n");
    fprintf(out, "  %-13s %9s %6s %9s %7s %7s %8s %8s %8s %8s %8s %8s\n", "transaction", "count",
            "mix%", "rollbacks", "retries", "errors", "avg ms", "p50", "p90", "p95", "p99", "max");
    for (int t = 0; t < r->ntypes; t++) {
        const struct dg_txn_summary *x = &r->txn[t];
        double share = all ? 100.0 * (double)dg_txn_count(x) / (double)all : 0.0;
        fprintf(out, "  %-13s %9llu %6.2f %9llu %7llu %7llu %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f",
                x->name, (unsigned long long)dg_txn_count(x), share,
                (unsigned long long)x->rollbacks, (unsigned long long)x->retries,
                (unsigned long long)x->errors, x->avg_ms, x->p50_ms, x->p90_ms, x->p95_ms,
                x->p99_ms, x->max_ms);
        if (x->p90_limit_ms > 0)
            fprintf(out, "   p90 limit %.0f s: %s", x->p90_limit_ms / 1e3,
                    x->p90_ms <= x->p90_limit_ms ? "pass" : "FAIL");
        fprintf(out, "\n");
    }
    if (scheduled(r)) {
        fprintf(out, "\n  service time (from the actual start):\n");
        for (int t = 0; t < r->ntypes; t++)
            fprintf(out, "  %-13s p50 %8.2f   p95 %8.2f   p99 %8.2f ms\n", r->txn[t].name,
                    r->txn[t].service_p50_ms, r->txn[t].service_p95_ms, r->txn[t].service_p99_ms);
    }
    char causes[160];
    if (*dg_report_retry_causes(r->txn, r->ntypes, causes, sizeof causes))
        fprintf(out, "  retries by cause: %s\n", causes);
    if (*dg_report_error_causes(r->txn, r->ntypes, causes, sizeof causes))
        fprintf(out, "  errors by cause: %s\n", causes);
    dg_report_in_doubt_text(out, r);
    if (r->ntargets)
        dg_report_targets_text(out, r);
    dg_report_ranks_text(out, r); /* nothing for a run of one process */
    if (r->error[0]) /* a lost run's says why its figures stop at its last checkpoint */
        fprintf(out, "\n  %s: %s\n", dg_report_error_label(r), r->error);
    if (scheduled(r))
        fprintf(out, "\n  Latency above runs from each transaction's intended start to its commit: "
                     "response time, queueing included.\n");
    else
        fprintf(out, "\n  Latency runs from the start of a transaction to its commit, retries included "
                     "(closed loop: service time).\n");
}

/* Appends "name v" (", " between) to buf when v is not 0. */
static void cause_item(char *buf, size_t n, size_t *o, const char *name, uint64_t v)
{
    if (v && *o < n)
        *o += (size_t)snprintf(buf + *o, n - *o, "%s%s %llu", *o ? ", " : "", name, (unsigned long long)v);
}

/* The retries (errors 0) or the errors (errors 1) of txn[0..ntypes) by cause, summed over the
 * types, as "name n, name n" in stored order; "" when a type does not know them. */
static const char *causes_text(const struct dg_txn_summary *txn, int ntypes, int errors, char *buf, size_t n)
{
    enum { NMAX = (int)DG_RETRY_NCAUSES > (int)DG_ERROR_NCAUSES ? (int)DG_RETRY_NCAUSES : (int)DG_ERROR_NCAUSES };
    uint64_t sum[NMAX] = {0};
    const int nc = errors ? DG_ERROR_NCAUSES : DG_RETRY_NCAUSES;
    size_t o = 0;
    buf[0] = '\0';
    for (int t = 0; t < ntypes; t++) {
        if (!(errors ? txn[t].error_causes_known : txn[t].retry_causes_known))
            return buf;
        for (int k = 0; k < nc; k++)
            sum[k] += errors ? txn[t].error_causes[k] : txn[t].retry_causes[k];
    }
    for (int k = 0; k < nc; k++) {
        int c = errors ? (int)dg_error_cause_at(k) : (int)dg_retry_cause_at(k);
        const char *name = errors ? dg_error_cause_name((enum dg_error_cause)c)
                                  : dg_retry_cause_name((enum dg_retry_cause)c);
        cause_item(buf, n, &o, name, sum[c]);
    }
    return buf;
}

const char *dg_report_retry_causes(const struct dg_txn_summary *txn, int ntypes, char *buf, size_t n)
{
    return causes_text(txn, ntypes, 0, buf, n);
}

const char *dg_report_error_causes(const struct dg_txn_summary *txn, int ntypes, char *buf, size_t n)
{
    return causes_text(txn, ntypes, 1, buf, n);
}

void dg_report_error_causes_json(cJSON *j, const struct dg_txn_summary *x)
{
    if (!x->error_causes_known) /* runs stored before causes were kept: none rather than zeros */
        return;
    cJSON *ec = cJSON_AddObjectToObject(j, "error_causes");
    for (int k = 0; k < DG_ERROR_NCAUSES; k++) {
        enum dg_error_cause c = dg_error_cause_at(k);
        if (dg_txn_error_cause_known(x, c)) /* a cause added since the run was stored: absent */
            cJSON_AddNumberToObject(ec, dg_error_cause_name(c), (double)x->error_causes[c]);
    }
}

cJSON *dg_report_txns_json(const struct dg_txn_summary *txn, int ntypes)
{
    cJSON *txns = cJSON_CreateObject();
    for (int t = 0; t < ntypes; t++) {
        const struct dg_txn_summary *x = &txn[t];
        cJSON *j = cJSON_AddObjectToObject(txns, x->name);
        cJSON_AddNumberToObject(j, "count", (double)dg_txn_count(x));
        cJSON_AddNumberToObject(j, "committed", (double)x->committed);
        cJSON_AddNumberToObject(j, "rollbacks", (double)x->rollbacks);
        cJSON_AddNumberToObject(j, "retries", (double)x->retries);
        if (x->retry_causes_known) {
            cJSON *rc = cJSON_AddObjectToObject(j, "retry_causes");
            for (int k = 0; k < DG_RETRY_NCAUSES; k++)
                cJSON_AddNumberToObject(rc, dg_retry_cause_name(dg_retry_cause_at(k)),
                                        (double)x->retry_causes[dg_retry_cause_at(k)]);
        }
        cJSON_AddNumberToObject(j, "errors", (double)x->errors);
        dg_report_error_causes_json(j, x);
        if (x->in_doubt_known) /* of the errors; not recorded before schema 10 */
            cJSON_AddNumberToObject(j, "in_doubt", (double)x->in_doubt);
        cJSON_AddNumberToObject(j, "avg_ms", x->avg_ms);
        cJSON_AddNumberToObject(j, "p50_ms", x->p50_ms);
        cJSON_AddNumberToObject(j, "p90_ms", x->p90_ms);
        cJSON_AddNumberToObject(j, "p95_ms", x->p95_ms);
        cJSON_AddNumberToObject(j, "p99_ms", x->p99_ms);
        cJSON_AddNumberToObject(j, "max_ms", x->max_ms);
        if (x->service_hist) {
            cJSON_AddNumberToObject(j, "service_p50_ms", x->service_p50_ms);
            cJSON_AddNumberToObject(j, "service_p95_ms", x->service_p95_ms);
            cJSON_AddNumberToObject(j, "service_p99_ms", x->service_p99_ms);
        }
        if (x->p90_limit_ms > 0) {
            cJSON_AddNumberToObject(j, "p90_limit_ms", x->p90_limit_ms);
            cJSON_AddBoolToObject(j, "p90_pass", x->p90_ms <= x->p90_limit_ms);
        }
    }
    return txns;
}

/* The per-second series of r as o's "series" array. */
static void series_json(cJSON *o, const struct dg_run_record *r)
{
    cJSON *arr = cJSON_AddArrayToObject(o, "series");
    for (size_t k = 0; k < r->nseries; k++) {
        const struct dg_series_point *p = &r->series[k];
        cJSON *pt = cJSON_CreateObject();
        cJSON_AddNumberToObject(pt, "second", (double)p->second);
        cJSON_AddStringToObject(pt, "phase", p->second < 0 ? "warmup" : "measure");
        if (dg_run_events_recorded(r))
            cJSON_AddNumberToObject(pt, "reconnects", (double)p->reconnects);
        cJSON *types = cJSON_AddObjectToObject(pt, "transactions");
        for (int t = 0; t < r->ntypes; t++) {
            const struct dg_series_type *x = &p->t[t];
            cJSON *j = cJSON_AddObjectToObject(types, r->txn[t].name);
            cJSON_AddNumberToObject(j, "committed", (double)x->c.committed);
            cJSON_AddNumberToObject(j, "rollbacks", (double)x->c.rollbacks);
            cJSON_AddNumberToObject(j, "retries", (double)x->c.retries);
            cJSON_AddNumberToObject(j, "errors", (double)x->c.errors);
            cJSON_AddNumberToObject(j, "p50_ms", x->p50_ms);
            cJSON_AddNumberToObject(j, "p95_ms", x->p95_ms);
            cJSON_AddNumberToObject(j, "p99_ms", x->p99_ms);
        }
        cJSON_AddItemToArray(arr, pt);
    }
}

void dg_report_figures_json(cJSON *o, const struct dg_figure *figs, int n)
{
    for (int k = 0; k < n; k++) {
        const char *dot = strchr(figs[k].name, '.');
        if (!dot) {
            cJSON_AddNumberToObject(o, figs[k].name, figs[k].value);
            continue;
        }
        char group[sizeof figs[k].name];
        snprintf(group, sizeof group, "%.*s", (int)(dot - figs[k].name), figs[k].name);
        cJSON *g = cJSON_GetObjectItemCaseSensitive(o, group);
        if (!g)
            g = cJSON_AddObjectToObject(o, group);
        if (cJSON_IsObject(g))
            cJSON_AddNumberToObject(g, dot + 1, figs[k].value);
    }
}

cJSON *dg_report_run_json(const struct dg_run_record *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "schema_version", DG_JSON_SCHEMA_VERSION);
    cJSON_AddNumberToObject(o, "run_id", (double)r->id);
    cJSON_AddStringToObject(o, "workload", r->workload);
    cJSON_AddStringToObject(o, "status", r->status);
    cJSON_AddStringToObject(o, "label", r->label);
    cJSON_AddStringToObject(o, "started_at", r->started_at);
    cJSON_AddStringToObject(o, "ended_at", r->ended_at);
    cJSON_AddStringToObject(o, "target", r->target);
    cJSON_AddStringToObject(o, "engine", r->engine);
    cJSON_AddStringToObject(o, "engine_version", r->engine_version);
    cJSON_AddNumberToObject(o, "warehouses", r->warehouses);
    cJSON_AddNumberToObject(o, "vus", r->vus);
    cJSON_AddNumberToObject(o, "warmup_seconds", r->warmup_s);
    cJSON_AddNumberToObject(o, "measured_seconds", r->measured_s);
    dg_report_figures_json(o, r->figures, r->nfigures);
    cJSON_AddNumberToObject(o, "client_cpu_seconds", r->client_cpu_s);
    if (r->error[0])
        cJSON_AddStringToObject(o, "error", r->error);
    if (r->group_id)
        cJSON_AddNumberToObject(o, "group_id", (double)r->group_id);
    if (r->experiment_id) {
        cJSON_AddNumberToObject(o, "experiment_id", (double)r->experiment_id);
        cJSON_AddNumberToObject(o, "experiment_step", r->experiment_step);
    }
    cJSON *sw = r->swept_json ? cJSON_Parse(r->swept_json) : NULL;
    if (sw)
        cJSON_AddItemToObject(o, "swept", sw);
    cJSON *kn = r->knobs_json ? cJSON_Parse(r->knobs_json) : NULL;
    if (kn)
        cJSON_AddItemToObject(o, "memory", kn);
    if (r->query) {
        cJSON_AddStringToObject(o, "query", r->query);
        cJSON_AddNumberToObject(o, "rows", (double)r->rows);
        cJSON_AddNumberToObject(o, "bytes", (double)r->bytes);
    }
    cJSON_AddStringToObject(o, "load_model", r->load_model[0] ? r->load_model : "closed");
    cJSON_AddStringToObject(o, "latency_from", scheduled(r) ? "intended_start" : "actual_start");
    if (!strcmp(r->load_model, "rate")) {
        cJSON *rt = cJSON_AddObjectToObject(o, "rate");
        double got = all_completed_per_s(r);
        cJSON_AddNumberToObject(rt, "asked_per_s", r->rate_asked);
        cJSON_AddNumberToObject(rt, "achieved_per_s", got);
        cJSON_AddBoolToObject(rt, "kept_up", dg_run_kept_up(r));
    }
    if (scheduled(r)) {
        cJSON_AddNumberToObject(o, "terminals", r->terminals);
        cJSON_AddNumberToObject(o, "lag_p50_ms", r->lag_p50_ms);
        cJSON_AddNumberToObject(o, "lag_p99_ms", r->lag_p99_ms);
        cJSON_AddNumberToObject(o, "lag_max_ms", r->lag_max_ms);
    }
    if (!strcmp(r->load_model, "think")) {
        cJSON_AddNumberToObject(o, "think_time_scale", r->think_scale);
        cJSON_AddNumberToObject(o, "tpmc_ceiling", r->tpmc_ceiling);
    }
    cJSON_AddItemToObject(o, "transactions", dg_report_txns_json(r->txn, r->ntypes));
    if (r->ntargets)
        dg_report_targets_json(o, r);
    dg_report_ranks_json(o, r); /* nothing for a run of one process */
    dg_report_events_json(o, r);
    cJSON *host = cJSON_AddObjectToObject(o, "host");
    cJSON_AddStringToObject(host, "name", r->host.hostname);
    cJSON_AddStringToObject(host, "cpu", r->host.cpu_model);
    cJSON_AddNumberToObject(host, "cores", r->host.cores);
    cJSON_AddNumberToObject(host, "memory_bytes", (double)r->host.mem_bytes);
    cJSON_AddStringToObject(host, "kernel", r->host.kernel);
    cJSON *settings = r->settings_json ? cJSON_Parse(r->settings_json) : NULL;
    cJSON_AddItemToObject(o, "settings", settings ? settings : cJSON_CreateObject());
    cJSON *options = r->options_json ? cJSON_Parse(r->options_json) : NULL;
    cJSON_AddItemToObject(o, "options", options ? options : cJSON_CreateObject());
    if (r->command_line)
        cJSON_AddStringToObject(o, "command_line", r->command_line);
    cJSON *mon = dg_report_monitor_json(r);
    if (mon)
        cJSON_AddItemToObject(o, "monitor", mon);
    if (r->series)
        series_json(o, r);
    cJSON_AddStringToObject(o, "dbgauge_version", r->dbgauge_version);
    return o;
}

/* The list's two figure columns, named after figures: a run shows 0 in a column whose
 * figure it has not (as the list always did); `runs show ID` shows every figure of a run. */
static const struct {
    const char *name, *head;
} list_figs[] = {{"nopm", "NOPM"}, {"tpm", "TPM"}};

void dg_report_run_line_header(FILE *out)
{
    fprintf(out, "%5s  %-20s  %-10s  %-8s  %4s  %4s  %8s  %10s  %10s  %-9s  %s\n", "id", "started (UTC)",
            "status", "engine", "W", "VUs", "seconds", list_figs[0].head, list_figs[1].head, "exp.step",
            "target / label");
}

void dg_report_run_line(FILE *out, const struct dg_run_record *r)
{
    char exp[24] = "-";
    double v[2];
    for (int k = 0; k < 2; k++) {
        v[k] = dg_figs_value(r->figures, r->nfigures, list_figs[k].name);
        v[k] = isfinite(v[k]) ? v[k] : 0;
    }
    if (r->experiment_id)
        snprintf(exp, sizeof exp, "%lld.%d", (long long)r->experiment_id, r->experiment_step);
    fprintf(out, "%5lld  %-20s  %-10s  %-8s  %4d  %4d  %8.1f  %10.0f  %10.0f  %-9s  %s%s%s\n",
            (long long)r->id, r->started_at, r->status, r->engine, r->warehouses, r->vus,
            r->measured_s, v[0], v[1], exp, r->target, r->label[0] ? "  " : "", r->label);
}

void dg_report_series_text(FILE *out, const struct dg_run_record *r)
{
    fprintf(out, "Run %lld, per second (second 0 starts the measured window)\n", (long long)r->id);
    fprintf(out, "%7s  %-7s  %9s  %9s  %7s  %7s  %9s  %9s  %9s\n", "second", "phase", "committed",
            r->ntypes ? r->txn[0].name : "", "retries", "errors", "p50 ms", "p95 ms", "p99 ms");
    for (size_t k = 0; k < r->nseries; k++) {
        const struct dg_series_point *p = &r->series[k];
        uint64_t committed = 0, retries = 0, errors = 0;
        for (int t = 0; t < r->ntypes; t++) {
            committed += p->t[t].c.committed;
            retries += p->t[t].c.retries;
            errors += p->t[t].c.errors;
        }
        fprintf(out, "%7lld  %-7s  %9llu  %9llu  %7llu  %7llu  %9.2f  %9.2f  %9.2f\n",
                (long long)p->second, p->second < 0 ? "warm-up" : "measure",
                (unsigned long long)committed, (unsigned long long)p->t[0].c.committed,
                (unsigned long long)retries, (unsigned long long)errors, p->t[0].p50_ms,
                p->t[0].p95_ms, p->t[0].p99_ms);
    }
    fprintf(out, "(latency columns: %s)\n", r->ntypes ? r->txn[0].name : "");
}
