/* cmptable.h — the model of a comparison: runs (or groups paired by thread count, or
 * experiments paired by swept value) side by side, each figure for each side and its percent
 * difference from the first side, computed from the stored figures. No rendering here
 * (compare.h renders it). */
#ifndef DG_REPORT_CMPTABLE_H
#define DG_REPORT_CMPTABLE_H

#include "core/err.h"
#include "report/model.h"

#define DG_CMP_MAX_SIDES 8
#define DG_CMP_MAX_KEYS 256

struct dg_cmp_row {
    char name[96];
    int decimals;
    double v[DG_CMP_MAX_SIDES]; /* NAN where a side lacks the figure */
};

/* A run driven from several processes (MPI ranks): how many, how many reported figures, and
 * the spread of the headline over those (core/spread; its indexes are rank numbers). */
struct dg_cmp_ranks {
    int nranks, counted;   /* nranks 0: a run of one process */
    struct dg_spread head;
    struct dg_figure fig;  /* the headline as the ranks have it (its label and decimals) */
};

struct dg_compare {
    int nsides;
    char side[DG_CMP_MAX_SIDES][64]; /* "run 3" / "group 7", with the label */
    struct dg_cmp_ranks ranks[DG_CMP_MAX_SIDES]; /* runs compared: each side's ranks */
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
/* Finds or appends the row called name; NULL out of memory. */
struct dg_cmp_row *dg_compare_row(struct dg_compare *c, const char *name, int decimals);
/* Experiments paired by swept value (steps a side lacks are NAN: "-"). */
int dg_compare_exp_rows(struct dg_compare *c, const struct dg_report_item *items, int n);

/* Pairing: the sorted thread counts of all groups (at most cap; returns how many) and the step
 * of group g with that many threads (NULL: none); the ordered union of every experiment's
 * step keys (pointers into the items, at most DG_CMP_MAX_KEYS) and the step of t swept at key
 * (NULL: none; the first such step when a value repeats). */
int dg_cmp_thread_counts(const struct dg_report_item *items, int n, int *out, int cap);
const struct dg_run_record *dg_cmp_step_of(const struct dg_report_item *g, int threads);
int dg_cmp_union_keys(const struct dg_report_item *items, int n, const char **keys);
const struct dg_exp_step *dg_cmp_step_at(const struct dg_exp_table *t, const char *key);

#endif
