/* oltp_internal.h — what the oltp files share and nothing outside src/workloads/oltp/ may
 * use: the terminal, and the worker calls txn.c gives workload.c. */
#ifndef DG_OLTP_INTERNAL_H
#define DG_OLTP_INTERNAL_H

#include "workloads/oltp/oltp.h"

/* A terminal is its random state and the run's test: the runner copies it to retry, so a
 * retried transaction picks the same tables, ids and strings. */
struct oltp_term {
    struct dg_rng rng;
    int test;
};

/* txn.c: the workload's per-connection calls (struct dg_workload's fields). shared is the
 * run's struct oltp_config, read-only during the run. */
int oltp_worker_open(void *shared, struct dg_conn_h *conn, void **wctx, struct dg_err *err);
void oltp_worker_close(void *wctx);
int oltp_run(void *wctx, void *term, int type, struct dg_err *err);
void oltp_take_volume(void *wctx, uint64_t *rows, uint64_t *bytes);

#endif
