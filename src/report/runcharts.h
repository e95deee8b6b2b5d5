/* runcharts.h — the charts of stored runs, groups and experiments, built as generic dg_charts
 * from records read from the results database. No HTML here. */
#ifndef DG_REPORT_RUNCHARTS_H
#define DG_REPORT_RUNCHARTS_H

#include "report/chart.h"
#include "report/experiment.h"
#include "report/model.h"

/* Each fills *c (the caller frees it with dg_chart_free) and returns 0, or -1 out of memory.
 * id_prefix makes the chart ids unique within a page. */
/* Throughput per second (all types completed; the first type apart), warm-up shaded. */
int dg_chart_run_throughput(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r);
/* p95 and p99 per second of each type (the first type shown, the others in the legend). */
int dg_chart_run_latency(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r);
/* Errors (all types), reconnects (runs stored from schema 10 on) and retries (off the plot until
 * turned on) per second. Every per-second chart shades the warm-up and draws the run's
 * outages (shaded) and faults (marked from start to end). */
int dg_chart_run_errors(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r);
/* Whether that chart has something to say: reconnects were recorded, or a second had errors
 * or retries. */
int dg_chart_run_has_errors(const struct dg_run_record *r);
/* An empty latency-by-percentile chart: x at the curve's percentiles (in nines), log y. */
int dg_chart_curve_init(struct dg_chart *c, const char *id, const char *title);
/* Latency percentile curve per type from the full histograms, log scale. */
int dg_chart_run_percentiles(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r);

/* The monitor's samples per second, warm-up shaded: host CPU user/system/iowait %, the
 * watched device's read/write MB/s, or its read/write IOPS (with the mean I/O time in ms as a
 * series off the plot until turned on). Not available figures are gaps. */
enum dg_monitor_chart { DG_MON_CPU = 0, DG_MON_DISK, DG_MON_IOPS };
int dg_chart_run_monitor(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r,
                         enum dg_monitor_chart which);
/* The replication rows per second (x: every second from the first row's to the last's), one
 * series per target and peer: replay lag in s, or (bytes) the bytes not replayed yet; a
 * second without a row is a gap. dg_chart_run_has_repl: whether any row has that figure. */
int dg_chart_run_repl(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r, int bytes);
int dg_chart_run_has_repl(const struct dg_run_record *r, int bytes);
/* A run with several targets (r->ntargets >= 1): bars per target (x "#1".."#n"), then the
 * plain mean of the targets and (throughput) the run's total; the headline and the second
 * figure, or (latency) the all-types avg and p95 in ms. Each target's percent from the mean
 * (of the headline, or of avg) is written on the chart. */
int dg_chart_run_targets(struct dg_chart *c, const char *id_prefix, const struct dg_run_record *r,
                         int latency);

/* What a step chart plots for one run: its headline figure, its run time, its second figure,
 * the first type's p95. The name and unit are r's (a step of the group). */
enum dg_step_figure { DG_STEP_HEADLINE = 0, DG_STEP_RUN_TIME, DG_STEP_SECOND, DG_STEP_P95 };
double dg_step_value(const struct dg_run_record *r, enum dg_step_figure f);
const char *dg_step_name(const struct dg_run_record *r, enum dg_step_figure f, const char **unit);
/* One figure per step of a group (bars by thread count, x in step order) with the percent
 * change from the previous step written on the chart. */
int dg_chart_group_steps(struct dg_chart *c, const char *id_prefix, const struct dg_report_item *g,
                         enum dg_step_figure f);
/* Latency p50/p95/p99 per step of a group. */
int dg_chart_group_latency(struct dg_chart *c, const char *id_prefix, const struct dg_report_item *g);

/* One figure of an experiment (report/experiment.h: enum dg_exp_figure) per step, bars by
 * swept value (x in step order), each step's percent change from the step before written on
 * the chart. */
int dg_chart_exp_steps(struct dg_chart *c, const char *id_prefix, const struct dg_exp_table *t,
                       enum dg_exp_figure f);
#endif
