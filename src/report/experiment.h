/* experiment.h — the step table of an experiment (one row per step: the swept values, the
 * throughput, latency, storage traffic, the change from the previous and the first step),
 * computed once from the results database and rendered as text, JSON and CSV here (HTML in
 * html.c, comparisons in compare.c). Reads the results database only; never live state. */
#ifndef DG_REPORT_EXPERIMENT_H
#define DG_REPORT_EXPERIMENT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "results/store.h"

#define DG_EXP_MAX_SWEPT 16

/* One step: its stored run and the figures derived from it (NAN: no figure). */
struct dg_exp_step {
    struct dg_run_record rec; /* owned by the table */
    cJSON *swept;             /* owned by the table; {"key": "value"} or NULL */
    char key[256];            /* the swept values as "k=v, k=v" (keys sorted): what pairs steps */
    int stress;               /* headline MB/s (stress) or NOPM (tpcc) */
    double tpm, nopm, rows_s, mb_s, avg_ms, p95_ms;
    double head, d_prev, d_first; /* the headline and its percent change from the previous/first step */
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

/* The figure columns of step w's row, in table order: TPM (stress: rows/s), NOPM (MB/s), avg
 * ms, p95 ms, disk read MB/s, disk write MB/s, cache hit % (NAN: none); and the decimals a
 * page (HTML, Markdown) shows each with. */
#define DG_EXP_NFIG 7
void dg_exp_step_figures(const struct dg_exp_step *w, double v[DG_EXP_NFIG], int decimals[DG_EXP_NFIG]);

/* The names of the first two figure columns and of the figure the changes are of: TPC-C's TPM,
 * NOPM (changes of NOPM), query stress's rows/s, MB/s (of MB/s), and both names when an
 * experiment holds steps of both workloads (a change across workloads is n/a). */
struct dg_exp_heads {
    const char *first, *second, *change_of;
};
struct dg_exp_heads dg_exp_heads(const struct dg_exp_table *t);

/* " (stress)" or " (tpcc)" when step i's workload is not the first step's, else "". */
const char *dg_exp_other_workload(const struct dg_exp_table *t, int i);

void dg_exp_table_text(FILE *out, const struct dg_exp_table *t);
void dg_exp_table_csv(FILE *out, const struct dg_exp_table *t);
/* Step i as a new JSON object (the caller's): the swept values as top-level keys and the run's
 * summary when flat (`experiment --json`), else under "swept" and without the summary. */
cJSON *dg_exp_step_json(const struct dg_exp_table *t, int i, int flat);

/* Renders experiment id from s: text to text (may be NULL), a new JSON document into *json
 * (may be NULL; the caller's, cJSON_Delete), CSV to csv (may be NULL). Returns 0, 1 when there
 * is no such experiment, -1 on error. *failed_steps is set to the steps not complete. */
int dg_report_experiment(struct dg_store *s, int64_t id, FILE *text, cJSON **json, FILE *csv,
                         int *failed_steps, struct dg_err *err);

/* Pairing steps by swept value: merges the keys of one more side into the ordered union all
 * (n keys, room for cap). A key already there stays; a new one goes just before the next key
 * of side that is already there (so sides swept in the same order keep it), else at the end.
 * Returns the new count (keys beyond cap are dropped). Pointers are copied, not the text. */
int dg_exp_union(const char **all, int n, int cap, const char *const *side, int nside);
/* The index of key in keys[0..n), or -1. */
int dg_exp_find(const char *const *keys, int n, const char *key);

#endif
