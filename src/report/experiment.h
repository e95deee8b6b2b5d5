/* experiment.h — the step table of an experiment (one row per step: the swept values, the
 * throughput, latency, the change from the previous and the first step) as text, JSON and
 * CSV. Reads the results database only, so `dbgauge experiment show ID` renders it again. */
#ifndef DG_REPORT_EXPERIMENT_H
#define DG_REPORT_EXPERIMENT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "results/store.h"

/* Renders experiment id from s: text to text (may be NULL), a new JSON document into *json
 * (may be NULL; the caller's, cJSON_Delete), CSV to csv (may be NULL). Returns 0, 1 when there
 * is no such experiment, -1 on error. *failed_steps is set to the steps not complete. */
int dg_report_experiment(struct dg_store *s, int64_t id, FILE *text, cJSON **json, FILE *csv,
                         int *failed_steps, struct dg_err *err);

#endif
