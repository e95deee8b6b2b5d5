/* summary.h — renders stored runs, sweep groups and experiment step tables as text tables,
 * CSV and JSON documents, from records read from the results database (report/model.h);
 * never live state, and never asks which workload a run is: it shows the figures it has. */
#ifndef DG_REPORT_SUMMARY_H
#define DG_REPORT_SUMMARY_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "report/model.h"
#include "results/store.h"

#define DG_JSON_SCHEMA_VERSION 1

void dg_report_run_text(FILE *out, const struct dg_run_record *r);
/* How a run's error is labelled: "failed" (why it failed), "lost", "stored" (the parts of it
 * the results database could not keep, and no error), else "first error". */
const char *dg_report_error_label(const struct dg_run_record *r);
/* A new cJSON object the caller owns (cJSON_Delete). */
cJSON *dg_report_run_json(const struct dg_run_record *r);
/* The per-second series: one line per second (all types together, New-Order apart). */
void dg_report_series_text(FILE *out, const struct dg_run_record *r);
/* The monitor: one text line of measured means ("" when the run was not monitored), the
 * means as a new JSON object (NULL when not monitored), the per-second points as text and
 * as a new JSON array. */
/* "12.3" by fmt into buf, or "-" when v < 0 (not available); returns buf. */
const char *dg_report_fig(double v, const char *fmt, char *buf, size_t n);
/* Adds v to o as name, or null when v < 0 (not available). */
void dg_report_json_num(cJSON *o, const char *name, double v);
void dg_report_monitor_line(FILE *out, const char *indent, const struct dg_run_record *r);
cJSON *dg_report_monitor_json(const struct dg_run_record *r);
void dg_report_monitor_text(FILE *out, const struct dg_run_record *r);
cJSON *dg_report_monitor_series_json(const struct dg_run_record *r);
/* One line per run for `dbgauge runs`. */
void dg_report_run_line(FILE *out, const struct dg_run_record *r);
void dg_report_run_line_header(FILE *out);
/* The per-type object of a run's JSON ({"new_order": {...}, ...}), a new cJSON the caller owns. */
/* Adds each figure to o under its name; a name "group.key" goes into o's object "group" as
 * "key" (oltp's queries.read ...), so a workload shapes its JSON by naming its figures. */
void dg_report_figures_json(cJSON *o, const struct dg_figure *figs, int n);
cJSON *dg_report_txns_json(const struct dg_txn_summary *txn, int ntypes);
/* targets.c: a run with several targets: the per-target table and the spread (text), or
 * "targets" and "spread" added to the run's JSON object o. */
void dg_report_targets_text(FILE *out, const struct dg_run_record *r);
void dg_report_targets_json(cJSON *o, const struct dg_run_record *r);
/* The spread s of the figure head (with decimals) as one line into buf: "NOPM mean 1,234, min
 * 1,100 (#2, -10.9%), max 1,300 (#1, +5.3%): fastest #1, slowest #2", each member named who and
 * its index + base ("#", 1 for targets; "rank ", 0 for ranks, whose indexes are rank numbers).
 * Returns buf. As a new JSON object (the caller's): mean, min, max, "min_"who and "max_"who
 * (index + base), min_pct_from_mean, max_pct_from_mean. */
const char *dg_report_spread_text(char *buf, size_t n, const char *head, int decimals, const struct dg_spread *s,
                                  const char *who, int base);
cJSON *dg_report_spread_json(const struct dg_spread *s, const char *who, int base);
/* Figure f with its decimals and thousands ("1,234.5"), "-" when f is NULL; into buf, returned. */
const char *dg_report_fig_text(const struct dg_figure *f, char *buf, size_t n);
/* ranks.c: a run driven from several processes (MPI ranks): the per-rank table and the
 * headline's spread over the ranks (text; nothing when r->nranks is 0), or "ranks" and
 * "ranks_spread" added to the run's JSON object o (nothing when r->nranks is 0). */
void dg_report_ranks_text(FILE *out, const struct dg_run_record *r);
void dg_report_ranks_json(cJSON *o, const struct dg_run_record *r);
/* events.c: what the run went through. Text: one line per fault and outage in order of time
 * (nothing when none), the in-doubt errors of all types (nothing when none), the --rate
 * schedule (nothing for other runs and runs stored before schema 10). JSON: "outages" and
 * "faults" arrays added to o (always, empty when none) and "schedule" (as its text). */
void dg_report_events_text(FILE *out, const struct dg_run_record *r);
void dg_report_in_doubt_text(FILE *out, const struct dg_run_record *r);
void dg_report_schedule_text(FILE *out, const struct dg_run_record *r);
void dg_report_events_json(cJSON *o, const struct dg_run_record *r);
/* "1,234,568" for 1234567.8, into buf (n bytes); returns buf. */
const char *dg_report_thousands(double v, char *buf, size_t n);
/* The retries of txn[0..ntypes) by cause, summed over the types, as "deadlock 3, lock_timeout 1"
 * (causes with none left out) into buf; "" when there were no retries or the run was stored
 * before causes were kept. Returns buf. */
const char *dg_report_retry_causes(const struct dg_txn_summary *txn, int ntypes, char *buf, size_t n);
/* The errors of txn[0..ntypes) by cause, the same way: "timeout 12, connection 3"; "" when
 * there were none or a type does not know its causes (runs stored before, checkpoints). */
const char *dg_report_error_causes(const struct dg_txn_summary *txn, int ntypes, char *buf, size_t n);
/* Adds x's "error_causes" object (every cause, in stored order) to j when x knows them. */
void dg_report_error_causes_json(cJSON *j, const struct dg_txn_summary *x);
/* v with decimals digits after the point and "," between thousands ("1,234,567.89"), into
 * buf; returns buf. */
const char *dg_report_thousands_dec(double v, int decimals, char *buf, size_t n);

/* group.c: the step table of a thread sweep (runs[0..n) of one group, in step order): per step
 * the threads, seconds, iterations, iterations/s, the second figure, the headline and its
 * change from the step before, latency over the first type and the run id; as text
 * (`dbgauge stress`'s table) and as a new JSON array the caller owns (its "steps"). */
void dg_report_group_text(FILE *out, const struct dg_run_record *runs, int n);
cJSON *dg_report_group_json(const struct dg_run_record *runs, int n);

/* exptable.c: an experiment's step table (report/experiment.h) as text and CSV; step i as a
 * new JSON object (the caller's): the swept values as top-level keys and the run's summary
 * when flat (`experiment --json`), else under "swept" and without the summary. */
void dg_exp_table_text(FILE *out, const struct dg_exp_table *t);
void dg_exp_table_csv(FILE *out, const struct dg_exp_table *t);
cJSON *dg_exp_step_json(const struct dg_exp_table *t, int i, int flat);
/* Renders experiment id from s: text to text (may be NULL), a new JSON document into *json
 * (may be NULL; the caller's, cJSON_Delete), CSV to csv (may be NULL). Returns 0, 1 when there
 * is no such experiment, -1 on error. *failed_steps is set to the steps not complete. */
int dg_report_experiment(struct dg_store *s, int64_t id, FILE *text, cJSON **json, FILE *csv,
                         int *failed_steps, struct dg_err *err);

#endif
