/* compare.h — runs (or groups paired by thread count, or experiments paired by swept value)
 * side by side: each figure for each side and its percent difference from the first side,
 * computed from the stored figures; as a terminal table and as an HTML page with the charts
 * side by side. Reads records only. */
#ifndef DG_REPORT_COMPARE_H
#define DG_REPORT_COMPARE_H

#include <stdio.h>

#include "core/err.h"
#include "report/chart.h"
#include "report/model.h"

#define DG_CMP_MAX_SIDES 8

struct dg_cmp_row {
    char name[96];
    int decimals;
    double v[DG_CMP_MAX_SIDES]; /* NAN where a side lacks the figure */
};

struct dg_compare {
    int nsides;
    char side[DG_CMP_MAX_SIDES][64]; /* "run 3" / "group 7", with the label */
    struct dg_cmp_row *rows;         /* owned */
    int nrows, cap;
};

/* Builds the comparison of items (2..DG_CMP_MAX_SIDES, all runs of one workload, all groups
 * or all experiments of one workload). DG_ERR_USER when they cannot be compared. Free with
 * dg_compare_free. */
int dg_compare_build(struct dg_compare *c, const struct dg_report_item *items, int n, struct dg_err *err);
void dg_compare_free(struct dg_compare *c);
/* Percent difference of side i from side 0 on row r (NAN when not defined). */
double dg_compare_pct(const struct dg_cmp_row *r, int i);
void dg_compare_text(FILE *out, const struct dg_compare *c);
/* The page. Returns 0, or -1 when a chart could not be built. */
int dg_compare_html(FILE *out, const struct dg_compare *c, const struct dg_report_item *items, int n);

/* Shared by compare.c and expcompare.c. */
/* Finds or appends the row called name; NULL out of memory. */
struct dg_cmp_row *dg_compare_row(struct dg_compare *c, const char *name, int decimals);
/* A bar chart of one figure: one series per side (names[i]) over k x positions (x_text[j]),
 * v[i * k + j] the value of side i at j (NAN: none), each side's change from side 0 written on
 * its own bar. 0, or -1 out of memory; the caller frees *ch. */
int dg_compare_sides_chart(struct dg_chart *ch, const char *id, const char *title, const char *x_label,
                           const char *unit, const char *const *x_text, int k, const char (*names)[64],
                           int n, const double *v);
/* expcompare.c: experiments paired by swept value (steps a side lacks are NAN: "-"). */
int dg_compare_exp_rows(struct dg_compare *c, const struct dg_report_item *items, int n);
/* The experiments' charts for the page: 0, or -1 out of memory. */
int dg_compare_exp_charts(FILE *out, const struct dg_report_item *items, int n);

#endif
