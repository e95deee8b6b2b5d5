/* procedures.c — --mode procedures: the five transactions as server-side procedures, one
 * call per transaction, with the same inputs as the SQL mode. Installs them per dialect.
 * (PostgreSQL PL/pgSQL; other engines report that they have none yet.) */
#include <stdlib.h>

#include "workloads/tpcc/tpcc_internal.h"

struct tpcc_proc_worker {
    int unused;
};

int tpcc_procedures_install(struct dg_conn_h *h, struct dg_err *err)
{
    (void)h;
    return dg_err_set(err, DG_ERR_USER, 0, "--mode procedures is not available for this target yet");
}

int tpcc_procedures_ensure(struct dg_conn_h *h, struct dg_err *err)
{
    return tpcc_procedures_install(h, err);
}

int tpcc_proc_worker_open(const struct tpcc_shared *sh, struct dg_conn_h *h,
                          struct tpcc_proc_worker **out, struct dg_err *err)
{
    (void)sh, (void)h, (void)out;
    return dg_err_set(err, DG_ERR_USER, 0, "--mode procedures is not available for this target yet");
}

void tpcc_proc_worker_close(struct tpcc_proc_worker *w) { free(w); }

int tpcc_proc_run(struct tpcc_proc_worker *w, struct tpcc_term *t, int type, struct dg_err *err)
{
    (void)w, (void)t, (void)type;
    return dg_err_set(err, DG_ERR_FATAL, 0, "procedures mode not available");
}
