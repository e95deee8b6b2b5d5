/* model.h — what a report is made of, read from the results database only: items (a run, a
 * group: the steps of one sweep, or an experiment: the steps of a job file), the percentile
 * curve computed from a stored full histogram, percent changes. No rendering here: renderers
 * include this header, never the reverse. */
#ifndef DG_REPORT_MODEL_H
#define DG_REPORT_MODEL_H

#include <stdint.h>

#include "core/err.h"
#include "report/experiment.h"
#include "report/runfig.h"
#include "results/store.h"

enum dg_item_kind { DG_ITEM_RUN = 0, DG_ITEM_GROUP, DG_ITEM_EXPERIMENT };

struct dg_report_item {
    enum dg_item_kind kind;
    int64_t id;
    struct dg_run_record *runs; /* owned; one for a run, the steps by id for a group; NULL for an experiment */
    int nruns;
    struct dg_exp_table *exp; /* owned; an experiment's step table (its runs in it), else NULL */
};

/* "12" is run 12, "group:12" (or "g12") the group 12, "exp:12" (or "experiment:12") the
 * experiment 12. DG_ERR_USER naming arg otherwise. */
int dg_report_item_parse(const char *arg, enum dg_item_kind *kind, int64_t *id, struct dg_err *err);
/* "run", "group" or "experiment": how messages name a kind. */
const char *dg_report_item_kind_name(enum dg_item_kind kind);
/* Loads the item with series and histograms. Returns 0, 1 when there is no such run, group or
 * experiment (err says which), -1 on a database error. The caller frees it with dg_report_item_free. */
int dg_report_item_load(struct dg_store *s, enum dg_item_kind kind, int64_t id,
                        struct dg_report_item *out, struct dg_err *err);
void dg_report_item_free(struct dg_report_item *it);

/* The percentiles of a latency curve; the last (100) is the maximum. */
#define DG_CURVE_POINTS 14
extern const double dg_curve_percentiles[DG_CURVE_POINTS];
/* Where percentile p sits on the curve's x axis: -log10(1 - p/100), 6 for the maximum. */
double dg_curve_x(double p);
/* Latency in ms at percentile p of a stored histogram (NAN when it is empty or absent). */
double dg_curve_ms(const struct dg_hist *h, double p);
/* "+12.3%" or "n/a" (a zero base) into buf. */
const char *dg_pct_change(char *buf, size_t n, double from, double to);
/* A percent from a mean already computed (core/spread), as "+12.3%" ("n/a" when not finite). */
const char *dg_pct_from_mean(char *buf, size_t n, double pct);

#endif
