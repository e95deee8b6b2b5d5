/* summary.h — renders stored runs as text tables and JSON documents. Reads only records
 * that came from the results database; never live state. */
#ifndef DG_REPORT_SUMMARY_H
#define DG_REPORT_SUMMARY_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "results/store.h"

#define DG_JSON_SCHEMA_VERSION 1

void dg_report_run_text(FILE *out, const struct dg_run_record *r);
/* A new cJSON object the caller owns (cJSON_Delete). */
cJSON *dg_report_run_json(const struct dg_run_record *r);
/* The per-second series: one line per second (all types together, New-Order apart). */
void dg_report_series_text(FILE *out, const struct dg_run_record *r);
/* The monitor: one text line of measured means ("" when the run was not monitored), the
 * means as a new JSON object (NULL when not monitored), the per-second points as text and
 * as a new JSON array. */
void dg_report_monitor_line(FILE *out, const char *indent, const struct dg_run_record *r);
cJSON *dg_report_monitor_json(const struct dg_run_record *r);
void dg_report_monitor_text(FILE *out, const struct dg_run_record *r);
cJSON *dg_report_monitor_series_json(const struct dg_run_record *r);
/* One line per run for `dbgauge runs`. */
void dg_report_run_line(FILE *out, const struct dg_run_record *r);
void dg_report_run_line_header(FILE *out);
/* The per-type object of a run's JSON ({"new_order": {...}, ...}), a new cJSON the caller owns. */
cJSON *dg_report_txns_json(const struct dg_txn_summary *txn, int ntypes);
/* targets.c: a run with several targets: the per-target table and the spread (text), or
 * "targets" and "spread" added to the run's JSON object o. */
void dg_report_targets_text(FILE *out, const struct dg_run_record *r);
void dg_report_targets_json(cJSON *o, const struct dg_run_record *r);
/* "1,234,568" for 1234567.8, into buf (n bytes); returns buf. */
const char *dg_report_thousands(double v, char *buf, size_t n);
/* The retries of txn[0..ntypes) by cause, summed over the types, as "deadlock 3, lock_timeout 1"
 * (causes with none left out) into buf; "" when there were no retries or the run was stored
 * before causes were kept. Returns buf. */
const char *dg_report_retry_causes(const struct dg_txn_summary *txn, int ntypes, char *buf, size_t n);
/* Completed transactions of one type: committed plus rolled back on purpose. */
uint64_t dg_txn_count(const struct dg_txn_summary *t);

#endif
