/* loadgen.h — TPC-C's initial population, generated unit by unit (loadgen.c), for load.c.
 * Private to src/workloads/tpcc/. */
#ifndef DG_TPCC_LOADGEN_H
#define DG_TPCC_LOADGEN_H

#include "core/bulkpipe.h"
#include "workloads/tpcc/tpcc_internal.h"

/* What every unit of one load shares: the seed, the NURand constant C of the load, and the
 * load's date and time as text. */
struct tpcc_gen_consts {
    uint64_t seed;
    struct tpcc_nurand c_load;
    char now[24];
    size_t now_len;
};

/* A generating thread's own: its random stream (reseeded per unit) and where its rows go. */
struct tpcc_gen {
    const struct tpcc_gen_consts *k;
    struct dg_rng rng;
    struct dg_rows out;
};

/* Every row of unit (0: ITEM; w: warehouse w and all below it) into g->out, one table after
 * another. Returns 0, or -1 with err (the table open is closed). */
int tpcc_gen_unit(struct tpcc_gen *g, int unit, struct dg_err *err);

#endif
