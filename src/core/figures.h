/* figures.h — a workload's headline figures as data (NOPM, TPM, tpmC; rows/s, MB/s; TPS,
 * QPS) and the one function that derives a figure's value from a run's counts. Pure: no
 * store, no printing; the run life derives, the store keeps, report/ renders. */
#ifndef DG_FIGURES_H
#define DG_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "core/runner.h"

/* What a figure counts, per type, before dividing by the measured seconds. */
enum dg_fig_count {
    DG_FIG_COMMITTED = 0, /* transactions the database committed */
    DG_FIG_COMPLETED,     /* committed + rolled back on purpose (TPC-C's 1% New-Orders) */
    DG_FIG_ROWS,          /* rows fetched (take_volume) */
    DG_FIG_BYTES,         /* bytes fetched (take_volume) */
    DG_FIG_RUN_TIME,      /* not a rate: the measured seconds themselves */
};

#define DG_FIG_ALL_TYPES (-1)
/* Flags. */
#define DG_FIG_STANDARD_TIMES (1u << 0) /* only when the run kept the workload's keying and
                                         * think times unscaled (tpmC); else not reported */
#define DG_FIG_TOTAL (1u << 1)          /* a total over the window (count x weight x scale),
                                         * not divided by its seconds: oltp's queries.read */

/* value = (sum over the counted types of count x weight[type]) / measured_s x scale
 * (DG_FIG_RUN_TIME: measured_s; DG_FIG_TOTAL: not divided by measured_s). A name "a.b" is
 * shown in JSON as key b of object a. A workload lists its figures most important first:
 * figures[0] is the headline, figures[1] the second column of a step table. */
struct dg_figure_def {
    const char *name;     /* key in JSON, CSV and the store: "nopm" (lower case, [a-z0-9_]) */
    const char *label;    /* as shown: "NOPM" */
    const char *unit;     /* "/min", "/s", "MB/s", "s" */
    enum dg_fig_count count;
    int type;             /* one type's counts, or DG_FIG_ALL_TYPES */
    const double *weight; /* NULL (each transaction counts 1), or one per type: e.g. the
                           * read queries one transaction of that type runs */
    double scale;         /* 60: per minute; 1e-6: bytes to MB; 1: per second */
    unsigned flags;
    int decimals;         /* digits after the point when shown */
};

#define DG_MAX_FIGURES 12

/* A derived figure, as stored and rendered: a plain value, no pointers. */
struct dg_figure {
    char name[24], label[24], unit[16];
    int decimals;
    double value;
};

/* What a figure derivation needs to know of the run besides its counts. */
struct dg_fig_run {
    double measured_s;
    int standard_times; /* the think-time model at scale 1 */
};

/* The value of f over counts[0..ntypes) (a whole run, one target, or one interval).
 * Returns 0 and sets *out, or 1 when the figure does not apply (no measured time, or a
 * DG_FIG_STANDARD_TIMES figure of a run that did not keep them). */
int dg_figure_value(const struct dg_figure_def *f, const struct dg_type_counts *counts, int ntypes,
                    const struct dg_fig_run *run, double *out);
/* Derives every figure of defs[0..n) that applies into out[] (at most DG_MAX_FIGURES), in
 * order, and returns how many. */
int dg_figures_derive(const struct dg_figure_def *defs, int n, const struct dg_type_counts *counts,
                      int ntypes, const struct dg_fig_run *run, struct dg_figure *out);
/* The figure called name in figs[0..n), or NULL. */
const struct dg_figure *dg_figure_find(const struct dg_figure *figs, int n, const char *name);

#endif
