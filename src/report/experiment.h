/* experiment.h — the model of an experiment's step table (one row per step: the swept values,
 * the run's first two headline figures, latency, storage traffic, the change of the headline
 * from the previous and the first step), computed once from the results database. No
 * rendering here (text, CSV, JSON: exptable.c; HTML: html.c); includes no renderer. */
#ifndef DG_REPORT_EXPERIMENT_H
#define DG_REPORT_EXPERIMENT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "report/runfig.h"
#include "results/store.h"

#define DG_EXP_MAX_SWEPT 16

/* One step: its stored run and the figures derived from it (NAN: no figure). */
struct dg_exp_step {
    struct dg_run_record rec; /* owned by the table */
    cJSON *swept;             /* owned by the table; {"key": "value"} or NULL */
    char key[256];            /* the swept values as "k=v, k=v" (keys sorted): what pairs steps */
    /* The run's headline figure (figures[0]) and the second (figures[1]), NAN when it has
     * none or measured nothing; the headline's percent change from the previous and the first
     * step (NAN when their headlines are not the same figure). */
    double head, second, avg_ms, p95_ms;
    double d_prev, d_first;
    char mark[24]; /* " (WORKLOAD)" when its headline is not the first step's figure, else "" */
    /* The monitor's measured-window means: the storage traffic behind the step and the
     * engine's cache hit ratio (NAN: not monitored or not available). */
    double disk_read_mb_s, disk_write_mb_s, hit_ratio;
};

struct dg_exp_table {
    struct dg_experiment ex;
    struct dg_exp_step *steps; /* owned, n of them in step order */
    int n;
    const char *keys[DG_EXP_MAX_SWEPT]; /* every swept key, first seen first (point into steps) */
    int nkeys;
    int failed_steps; /* steps not complete */
    char head_first[64], head_second[64], change_of[160]; /* see dg_exp_heads */
};

/* Loads experiment id with its steps' runs (their per-second series too when with_series).
 * Returns 0, 1 when there is no such experiment (err says so), -1 on error. The caller frees
 * *t with dg_exp_table_free (also after a failure). */
int dg_exp_table_load(struct dg_store *s, int64_t id, int with_series, struct dg_exp_table *t,
                      struct dg_err *err);
void dg_exp_table_free(struct dg_exp_table *t);
/* The value of swept key k at step i, or NULL. Points into t. */
const char *dg_exp_swept(const struct dg_exp_table *t, int i, int k);
/* How step i is named on a chart's x axis: the value alone when one key is swept, else its key. */
const char *dg_exp_x_text(const struct dg_exp_table *t, int i);

/* The figure columns of step w's row, in table order: the second figure, the headline, avg
 * ms, p95 ms, disk read MB/s, disk write MB/s, cache hit % (NAN: none); and the decimals a
 * page (HTML, Markdown) shows each with (the figures': their own). */
#define DG_EXP_NFIG 7
void dg_exp_step_figures(const struct dg_exp_step *w, double v[DG_EXP_NFIG], int decimals[DG_EXP_NFIG]);

/* The heads of the first two figure columns (the steps' second figures, then their headlines:
 * each distinct label, joined by " or " when the steps differ) and the figure the changes are
 * of ("NOPM", or "NOPM (tpcc steps) or MB/s (stress steps)": a change across figures is
 * n/a). Point into t. */
struct dg_exp_heads {
    const char *first, *second, *change_of;
};
struct dg_exp_heads dg_exp_heads(const struct dg_exp_table *t);
/* The figure called name of step w's run, NAN when it has none or measured nothing: for the
 * columns of a fixed table (CSV) named after figures. */
double dg_exp_fig(const struct dg_exp_step *w, const char *name);

/* " (stress)" when step i's headline is not the first step's figure (its workload named),
 * else "". Points into t. */
const char *dg_exp_other_workload(const struct dg_exp_table *t, int i);

/* The figures an experiment is charted and compared by, per step: throughput (the headline,
 * and the second figure beside it when in the same unit, the change of the headline as in the
 * step table), the second figure on its own (when in another unit: dg_exp_second_apart),
 * latency (avg and p95 over all types, the change of p95), storage (the monitor's disk read,
 * write and their sum in MB/s, the change of the sum). Steps whose headline is not the first
 * step's figure are gaps. */
enum dg_exp_figure { DG_EXP_THROUGHPUT = 0, DG_EXP_SECOND, DG_EXP_LATENCY, DG_EXP_STORAGE };
/* Series k (0..2) of figure f at step w, NAN when none; and how many series f has. */
double dg_exp_value(const struct dg_exp_step *w, enum dg_exp_figure f, int k);
int dg_exp_nseries(const struct dg_exp_step *w, enum dg_exp_figure f);
/* The name and unit of series k of f (the figures' from step w, which may be NULL). */
const char *dg_exp_series_name(const struct dg_exp_step *w, enum dg_exp_figure f, int k, const char **unit);
int dg_exp_second_apart(const struct dg_exp_step *w);
/* Whether any step has the monitor's disk figures (traffic: and any of them above zero, so
 * that a chart of them would not be blank). */
int dg_exp_has_storage(const struct dg_exp_table *t, int traffic);


/* Pairing steps by swept value: merges the keys of one more side into the ordered union all
 * (n keys, room for cap). A key already there stays; a new one goes just before the next key
 * of side that is already there (so sides swept in the same order keep it), else at the end.
 * Returns the new count (keys beyond cap are dropped). Pointers are copied, not the text. */
int dg_exp_union(const char **all, int n, int cap, const char *const *side, int nside);
/* The index of key in keys[0..n), or -1. */
int dg_exp_find(const char *const *keys, int n, const char *key);

#endif
