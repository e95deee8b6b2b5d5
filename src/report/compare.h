/* compare.h — renders a comparison (report/cmptable.h: runs, groups paired by thread count or
 * experiments paired by swept value, side by side) as a terminal table and as an HTML page with
 * the charts side by side. Reads records only. */
#ifndef DG_REPORT_COMPARE_H
#define DG_REPORT_COMPARE_H

#include <stdio.h>

#include "report/chart.h"
#include "report/cmptable.h"

void dg_compare_text(FILE *out, const struct dg_compare *c);
/* The page. Returns 0, or -1 when a chart could not be built. */
int dg_compare_html(FILE *out, const struct dg_compare *c, const struct dg_report_item *items, int n);
/* A bar chart of one figure: one series per side (names[i]) over k x positions (x_text[j]),
 * v[i * k + j] the value of side i at j (NAN: none), each side's change from side 0 written on
 * its own bar. 0, or -1 out of memory; the caller frees *ch. */
int dg_compare_sides_chart(struct dg_chart *ch, const char *id, const char *title, const char *x_label,
                           const char *unit, const char *const *x_text, int k, const char (*names)[64],
                           int n, const double *v);

#endif
