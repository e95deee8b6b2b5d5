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

/* One write the database acknowledged (or may have: in_doubt), kept so that `audit` can look
 * for it later (TPC-C clause 3.5). What the key means is the workload's (tpcc: kind 1 is a
 * New-Order, k = w, d, o_id, count = its lines, amount = its customer; kind 2 a Payment, k = w, d, c, amount in
 * cents; kind 3 a baseline: per warehouse k[0], the history's sum before the run). */
struct dg_ack {
    int64_t t_ms;     /* when it was acknowledged: ms from the measured window's start
                       * (negative in the warm-up); set by the runner */
    int64_t amount;
    uint32_t k[3];
    uint16_t count;
    uint8_t kind;
    uint8_t in_doubt; /* set by the runner: the commit's answer was lost */
    uint16_t target;  /* set by the runner: index of the target (0 with one) */
};
enum { DG_ACK_TPCC_NEW_ORDER = 1, DG_ACK_TPCC_PAYMENT = 2, DG_ACK_TPCC_BASELINE = 3 };
struct dg_wl_cli;     /* core/wlcli.h */

/* What an audit of a run's acknowledged writes found (TPC-C: New-Orders; workload's
 * audit hook in core/wlcli.h), kept with the run for its failover figures (RPO). */
struct dg_audit_summary {
    int64_t acknowledged, found, lost, in_doubt, in_doubt_found;
    int64_t lost_first_ms, lost_last_ms; /* when the first and last lost were acknowledged; 0 without */
    int payment_lost;                    /* warehouses whose acknowledged money is missing */
    int pass;                            /* 1: nothing acknowledged was lost */
};

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
    /* The read-only types (bit t for type t): with --read-target they run on a connection to
     * the read target (a replica) through a second worker_open there. 0: none. */
    unsigned read_only_types;

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
    /* Optional: after a commit, or an error in doubt, the write the last run() made that an
     * audit can check: returns 1 with *out's kind, k, count and amount filled, 0 when it made
     * none worth keeping. Called once per transaction; must not allocate. */
    int (*take_ack)(void *wctx, struct dg_ack *out);
};

/* Registry (src/workloads/registry.c): the workloads built into this binary, NULL-terminated,
 * in the order `dbgauge --help` lists them. */
extern const struct dg_workload *const dg_workloads[];
/* The workload stored as name (struct dg_workload.name), or NULL. */
const struct dg_workload *dg_workload_find(const char *name);

#endif
