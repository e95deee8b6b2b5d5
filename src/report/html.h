/* html.h — the self-contained HTML report (scripts, styles and data inline; nothing loaded
 * from the network) of runs and groups read from the results database. */
#ifndef DG_REPORT_HTML_H
#define DG_REPORT_HTML_H

#include <stdio.h>

#include "report/model.h"

/* The whole page for items. Returns 0, or -1 when a chart could not be built (out of memory). */
int dg_report_html(FILE *out, const struct dg_report_item *items, int n);
/* One run's section of that page (what the live page shows of the run so far); 0 or -1 as above. */
int dg_report_html_run(FILE *out, const struct dg_run_record *r);

#endif
