/* html.h — the self-contained HTML report (scripts, styles and data inline; nothing loaded
 * from the network) of runs and groups read from the results database. */
#ifndef DG_REPORT_HTML_H
#define DG_REPORT_HTML_H

#include <stdio.h>

#include "report/chart.h"
#include "report/model.h"

/* The whole page for items. Returns 0, or -1 when a chart could not be built (out of memory). */
int dg_report_html(FILE *out, const struct dg_report_item *items, int n);
/* The page's frame, for other pages (compare): head with inline uPlot and glue, header. */
void dg_html_begin(FILE *out, const char *title, const char *subtitle);
void dg_html_end(FILE *out);
/* Writes a chart and frees it; a chart that failed to build (ok != 0) is freed and -1 returned. */
int dg_html_emit(FILE *out, struct dg_chart *c, int ok);
/* A headline figure: <div class="card" data-key=KEY data-v=V>. */
void dg_html_card(FILE *out, const char *key, const char *title, double v, int decimals);

#endif
