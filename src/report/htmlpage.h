/* htmlpage.h — the frame of a self-contained HTML page (scripts, styles and data inline;
 * nothing loaded from the network) and its primitives, shared by the report (html.c) and the
 * comparison (compare.c). Knows nothing of runs: no report model here. */
#ifndef DG_REPORT_HTMLPAGE_H
#define DG_REPORT_HTMLPAGE_H

#include <stdio.h>

#include "report/chart.h"

/* The page's frame: head with inline uPlot and glue, header; then the closing part. */
void dg_html_begin(FILE *out, const char *title, const char *subtitle);
void dg_html_end(FILE *out);
/* The same frame for a page that fetches from the server that gave it (connect_self: the live
 * page), and its end saying where it was made from ("while the run goes on"). */
void dg_html_begin_page(FILE *out, const char *title, const char *subtitle, int connect_self);
void dg_html_end_page(FILE *out, const char *made_from);
/* Writes a chart and frees it; a chart that failed to build (ok != 0) is freed and -1 returned. */
int dg_html_emit(FILE *out, struct dg_chart *c, int ok);
/* A headline figure: <div class="card" data-key=KEY data-v=V>. */
void dg_html_card(FILE *out, const char *key, const char *title, double v, int decimals);

#endif
