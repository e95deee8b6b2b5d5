/* metrics.h — a run's state as OpenMetrics text (what Prometheus scrapes from /metrics): the
 * run's identity and phase, transaction counters by type and outcome, retries and errors by
 * cause, latency histograms with fixed buckets, outages, per-target commits and the monitor's
 * latest gauges. Pure: a view in, text out; no thread, no server. */
#ifndef DG_LIVE_METRICS_H
#define DG_LIVE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "core/monitor.h"
#include "core/runner.h"
#include "core/series.h"

/* The latency histogram's upper bounds in seconds (then +Inf): fixed, so that scrapes of any
 * run, any workload, add up in Prometheus. */
#define DG_LIVE_NBUCKETS 16
extern const double dg_live_bucket_s[DG_LIVE_NBUCKETS];

#define DG_LIVE_MAX_REPL 16

/* What a scrape says, filled by the reporter each second. Pointers are lent for the call. */
struct dg_live_view {
    const char *command;  /* "tpcc run" */
    const char *workload; /* "tpcc" */
    const char *label;    /* --label ("" none) */
    const char *step;     /* "step 3 of 7" in an experiment, else "" */
    enum dg_phase phase;
    double elapsed_s;     /* since the start of the run, warm-up included */
    double planned_s;     /* warm-up + window of a timed run; 0 for a counted one */
    int vus, ranks;
    int ntypes;
    const char *const *type_names;
    /* Since the start (warm-up included), over every rank; the causes and in_doubt of this
     * process's workers only (the ranks' beats carry the counts, not their causes). */
    const struct dg_type_counts *total;
    /* The measured window's latency per type (the series' small histograms: 2 significant
     * digits), this process only; NULL before the window's first final second. */
    const uint32_t (*measured_hist)[DG_SEC_SLOTS];
    int ntargets;
    const char *const *target_names;  /* redacted URLs */
    const uint64_t *target_commits;   /* since the start, per target */
    int outages, outage_open;         /* outages so far; whether one is open now */
    const struct dg_monitor_point *mon; /* the monitor's latest second, or NULL */
    const struct dg_repl_point *repl;   /* the latest replication rows (one second's) */
    int nrepl;
};

/* The text (malloc'd, NUL-terminated, ending "# EOF\n"; its length in *len), or NULL out of memory. */
char *dg_live_metrics(const struct dg_live_view *v, size_t *len);

/* OpenMetrics' Content-Type. */
#define DG_LIVE_METRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

#endif
