/* metrics.c — OpenMetrics text of a run's view. Families follow the format's rules: a counter's
 * samples end in _total, a histogram's buckets are cumulative and end at +Inf with _count and
 * _sum, a stateset's label is the family's name, an info's sample ends in _info, and the text
 * ends with "# EOF". A family with nothing to say is left out, not written empty. */
#include "live/metrics.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/err.h"

const double dg_live_bucket_s[DG_LIVE_NBUCKETS] = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1,
                                                   0.2,    0.5,   1,     2,     5,    10,   30,   60};

/* A label value with \, " and newlines escaped. */
static void label_value(FILE *o, const char *s)
{
    fputc('"', o);
    for (; s && *s; s++) {
        if (*s == '\\' || *s == '"')
            fprintf(o, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", o);
        else
            fputc(*s, o);
    }
    fputc('"', o);
}

static void family(FILE *o, const char *name, const char *type, const char *help)
{
    fprintf(o, "# TYPE %s %s\n# HELP %s %s\n", name, type, name, help);
}

/* name{k=v} value, with one label (k NULL: none). */
static void sample1(FILE *o, const char *name, const char *k, const char *v, double value)
{
    fputs(name, o);
    if (k) {
        fprintf(o, "{%s=", k);
        label_value(o, v);
        fputc('}', o);
    }
    fprintf(o, " %.17g\n", value);
}

static void identity(FILE *o, const struct dg_live_view *v)
{
    family(o, "dbgauge_run", "info", "the run being measured (targets with passwords redacted)");
    fputs("dbgauge_run_info{command=", o);
    label_value(o, v->command);
    fputs(",workload=", o);
    label_value(o, v->workload);
    fputs(",label=", o);
    label_value(o, v->label);
    fputs(",step=", o);
    label_value(o, v->step);
    fputs(",version=", o);
    label_value(o, DG_VERSION);
    fputs("} 1\n", o);
    family(o, "dbgauge_phase", "stateset", "the run's phase");
    for (int p = DG_PHASE_CONNECT; p <= DG_PHASE_DONE; p++) {
        fputs("dbgauge_phase{dbgauge_phase=", o);
        label_value(o, dg_phase_name((enum dg_phase)p));
        fprintf(o, "} %d\n", (int)v->phase == p);
    }
    family(o, "dbgauge_elapsed_seconds", "gauge", "time since the run started, warm-up included");
    sample1(o, "dbgauge_elapsed_seconds", NULL, NULL, v->elapsed_s);
    if (v->planned_s > 0) {
        family(o, "dbgauge_planned_seconds", "gauge", "the warm-up and the measured window as asked");
        sample1(o, "dbgauge_planned_seconds", NULL, NULL, v->planned_s);
    }
    family(o, "dbgauge_virtual_users", "gauge", "virtual users over every rank");
    sample1(o, "dbgauge_virtual_users", NULL, NULL, v->vus);
    family(o, "dbgauge_ranks", "gauge", "processes driving the run (MPI ranks)");
    sample1(o, "dbgauge_ranks", NULL, NULL, v->ranks);
}

static void typed(FILE *o, const char *name, const char *type, const char *k2, const char *v2, double value)
{
    fprintf(o, "%s{type=", name);
    label_value(o, type);
    if (k2) {
        fprintf(o, ",%s=", k2);
        label_value(o, v2);
    }
    fprintf(o, "} %.17g\n", (double)value);
}

static void transactions(FILE *o, const struct dg_live_view *v)
{
    family(o, "dbgauge_transactions", "counter", "transactions finished since the start, by type and outcome");
    for (int k = 0; k < v->ntypes; k++) {
        const struct dg_type_counts *c = &v->total[k];
        typed(o, "dbgauge_transactions_total", v->type_names[k], "outcome", "committed", (double)c->committed);
        typed(o, "dbgauge_transactions_total", v->type_names[k], "outcome", "rolled_back", (double)c->rollbacks);
        typed(o, "dbgauge_transactions_total", v->type_names[k], "outcome", "error", (double)c->errors);
    }
    family(o, "dbgauge_retries", "counter", "extra attempts after a retryable error, by type");
    for (int k = 0; k < v->ntypes; k++)
        typed(o, "dbgauge_retries_total", v->type_names[k], NULL, NULL, (double)v->total[k].retries);
    family(o, "dbgauge_in_doubt", "counter", "errors lost with their commit sent (may have committed), this process");
    for (int k = 0; k < v->ntypes; k++)
        typed(o, "dbgauge_in_doubt_total", v->type_names[k], NULL, NULL, (double)v->total[k].in_doubt);
    family(o, "dbgauge_retry_causes", "counter", "retries by cause, this process's workers");
    for (int i = 0; i < DG_RETRY_NCAUSES; i++) {
        enum dg_retry_cause c = dg_retry_cause_at(i);
        uint64_t n = 0;
        for (int k = 0; k < v->ntypes; k++)
            n += v->total[k].retry_causes[c];
        sample1(o, "dbgauge_retry_causes_total", "cause", dg_retry_cause_name(c), (double)n);
    }
    family(o, "dbgauge_error_causes", "counter", "errors by cause, this process's workers");
    for (int i = 0; i < DG_ERROR_NCAUSES; i++) {
        enum dg_error_cause c = dg_error_cause_at(i);
        uint64_t n = 0;
        for (int k = 0; k < v->ntypes; k++)
            n += v->total[k].error_causes[c];
        sample1(o, "dbgauge_error_causes_total", "cause", dg_error_cause_name(c), (double)n);
    }
}

/* One type's histogram: the small histogram's slots folded into the fixed buckets. */
static void latency_type(FILE *o, const char *type, const uint32_t *hist)
{
    uint64_t in[DG_LIVE_NBUCKETS + 1] = {0}, count = 0;
    double sum = 0;
    for (size_t s = 0; s < DG_SEC_SLOTS; s++) {
        if (!hist[s])
            continue;
        double secs = (double)dg_sec_slot_value(s) / 1e9;
        int b = 0;
        while (b < DG_LIVE_NBUCKETS && secs > dg_live_bucket_s[b])
            b++;
        in[b] += hist[s];
        count += hist[s];
        sum += secs * hist[s];
    }
    uint64_t cum = 0;
    for (int b = 0; b <= DG_LIVE_NBUCKETS; b++) {
        char le[32];
        cum += in[b];
        if (b < DG_LIVE_NBUCKETS)
            snprintf(le, sizeof le, "%g", dg_live_bucket_s[b]);
        else
            snprintf(le, sizeof le, "+Inf");
        typed(o, "dbgauge_latency_seconds_bucket", type, "le", le, (double)cum);
    }
    typed(o, "dbgauge_latency_seconds_count", type, NULL, NULL, (double)count);
    typed(o, "dbgauge_latency_seconds_sum", type, NULL, NULL, sum);
}

static void outages_and_targets(FILE *o, const struct dg_live_view *v)
{
    family(o, "dbgauge_outages", "counter",
           "outages so far: spans with connection errors and no commit, and clusters stalled (no node committing)");
    sample1(o, "dbgauge_outages_total", NULL, NULL, v->outages);
    family(o, "dbgauge_outage_open", "gauge", "1 while a target is in an outage or a cluster stalled");
    sample1(o, "dbgauge_outage_open", NULL, NULL, v->outage_open);
    if (!v->ntargets)
        return;
    family(o, "dbgauge_target_commits", "counter", "commits since the start per target, by this process (rank 0's share when ranks drive the run)");
    for (int t = 0; t < v->ntargets; t++)
        sample1(o, "dbgauge_target_commits_total", "target", v->target_names[t], (double)v->target_commits[t]);
}

/* A monitor gauge, only when the figure is available (>= 0). */
static void gauge_if(FILE *o, const char *name, const char *help, double value, double scale)
{
    if (value < 0)
        return;
    family(o, name, "gauge", help);
    sample1(o, name, NULL, NULL, value * scale);
}

static void monitor(FILE *o, const struct dg_monitor_point *m)
{
    if (m->cpu_user_pct >= 0) {
        family(o, "dbgauge_host_cpu_ratio", "gauge", "the host's CPU time in the last second, by mode (0 to 1)");
        sample1(o, "dbgauge_host_cpu_ratio", "mode", "user", m->cpu_user_pct / 100);
        sample1(o, "dbgauge_host_cpu_ratio", "mode", "system", m->cpu_sys_pct / 100);
        sample1(o, "dbgauge_host_cpu_ratio", "mode", "iowait", m->cpu_iowait_pct / 100);
    }
    gauge_if(o, "dbgauge_disk_read_bytes_per_second", "the watched device's reads", m->disk_read_mb_s, 1e6);
    gauge_if(o, "dbgauge_disk_write_bytes_per_second", "the watched device's writes", m->disk_write_mb_s, 1e6);
    gauge_if(o, "dbgauge_disk_read_iops", "the watched device's read operations per second", m->disk_read_iops, 1);
    gauge_if(o, "dbgauge_disk_write_iops", "the watched device's write operations per second", m->disk_write_iops, 1);
    gauge_if(o, "dbgauge_server_resident_bytes", "the server's processes' resident memory", m->server_rss_bytes, 1);
    if (m->cache_hits_per_s >= 0 && m->cache_misses_per_s >= 0 && m->cache_hits_per_s + m->cache_misses_per_s > 0)
        gauge_if(o, "dbgauge_cache_hit_ratio", "the engine cache's hits over hits and misses in the last second",
                 m->cache_hits_per_s / (m->cache_hits_per_s + m->cache_misses_per_s), 1);
}

/* The replay lag of each row that has one: a Galera node's rows have none (its queues and flow
 * control are no seconds), so a view of Galera targets alone writes no family. */
static void replication(FILE *o, const struct dg_live_view *v)
{
    int header = 0;
    for (int i = 0; i < v->nrepl; i++) {
        const struct dg_repl_point *p = &v->repl[i];
        if (p->row.replay_lag_s < 0)
            continue;
        if (!header++)
            family(o, "dbgauge_replication_lag_seconds", "gauge",
                   "replay lag per target and peer, as the target tells it");
        char t[16];
        snprintf(t, sizeof t, "%d", p->target + 1);
        fputs("dbgauge_replication_lag_seconds{target=", o);
        label_value(o, t);
        fputs(",peer=", o);
        label_value(o, p->row.name);
        fprintf(o, "} %.17g\n", p->row.replay_lag_s);
    }
}

char *dg_live_metrics(const struct dg_live_view *v, size_t *len)
{
    char *text = NULL;
    FILE *o = open_memstream(&text, len);
    if (!o)
        return NULL;
    identity(o, v);
    transactions(o, v);
    if (v->measured_hist) {
        family(o, "dbgauge_latency_seconds", "histogram", "latency in the measured window, by type (2 significant digits)");
        for (int k = 0; k < v->ntypes; k++)
            latency_type(o, v->type_names[k], v->measured_hist[k]);
    }
    outages_and_targets(o, v);
    if (v->mon)
        monitor(o, v->mon);
    replication(o, v);
    fputs("# EOF\n", o);
    if (fclose(o)) {
        free(text);
        return NULL;
    }
    return text;
}
