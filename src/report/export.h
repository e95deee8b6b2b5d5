/* export.h — machine formats of report items read from the results database: one CSV table
 * (a `kind` column: run, txn, series, percentile) and one JSON document, both carrying
 * schema_version (docs/report-schema.md); and a Markdown rendering for pasting. */
#ifndef DG_REPORT_EXPORT_H
#define DG_REPORT_EXPORT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "report/model.h"

#define DG_REPORT_SCHEMA_VERSION 1

void dg_report_csv(FILE *out, const struct dg_report_item *items, int n);
/* A new document the caller owns (cJSON_Delete). */
cJSON *dg_report_json(const struct dg_report_item *items, int n);
void dg_report_md(FILE *out, const struct dg_report_item *items, int n);

#endif
