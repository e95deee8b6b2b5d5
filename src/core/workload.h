/* workload.h — what a workload gives the runner: transaction types, a per-terminal state
 * the runner can save and restore (so a retry repeats the same inputs), and one call that
 * runs one transaction on one connection. A workload knows nothing of threads or time. */
#ifndef DG_WORKLOAD_H
#define DG_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/driver.h"

#define DG_MAX_TYPES 8

struct dg_figure_def; /* core/figures.h */
struct dg_wl_cli;     /* core/wlcli.h */

struct dg_workload {
    const char *name;    /* as stored with each run: "tpcc" */
    const char *command; /* its dbgauge subcommand: "tpcc" */
    const char *summary; /* one line for `dbgauge --help` */
    /* Its headline figures, most important first (core/figures.h): derived from the counts
     * by the run life, kept by the store, rendered by report/ without asking which workload. */
    const struct dg_figure_def *figures;
    int nfigures;
    /* Its command line: options, subcommands and the run life's hooks (core/wlcli.h). */
    const struct dg_wl_cli *cli;
    int ntypes;
    const char *const *type_names;
    /* Keying time and mean think time per type, in seconds (NULL: the workload has none). */
    const double *keying_s;
    const double *think_mean_s;
    /* Bytes of one terminal's state; the runner owns the memory and copies it to retry. */
    size_t terminal_size;

    /* Per connection: prepares statements. *wctx is the workload's, freed by worker_close. */
    int (*worker_open)(void *shared, struct dg_conn_h *conn, void **wctx, struct dg_err *err);
    void (*worker_close)(void *wctx);
    /* Sets up terminal number index (0-based) of nterminals, seeded with seed. */
    void (*terminal_init)(void *shared, int index, int nterminals, void *term, uint64_t seed);
    /* Picks the next transaction type for a terminal (draws from its RNG state). */
    int (*next_type)(void *term);
    /* Runs one transaction of type on the worker's connection. Returns 0 when committed;
     * -1 with err filled otherwise. DG_ERR_EXPECTED means the workload rolled back on
     * purpose and that counts as done; for any other class the runner rolls back. */
    int (*run)(void *wctx, void *term, int type, struct dg_err *err);
    /* Optional: rows and bytes the last run() fetched, handed over and reset, so the runner
     * counts them in the phase the transaction belongs to. */
    void (*take_volume)(void *wctx, uint64_t *rows, uint64_t *bytes);
};

/* Registry (src/workloads/registry.c): the workloads built into this binary, NULL-terminated,
 * in the order `dbgauge --help` lists them. */
extern const struct dg_workload *const dg_workloads[];
/* The workload stored as name (struct dg_workload.name), or NULL. */
const struct dg_workload *dg_workload_find(const char *name);

#endif
