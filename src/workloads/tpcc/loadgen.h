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

/* The load's units: ITEM is unit 0; warehouse w's rows come in TPCC_PARTS parts, unit
 * w * TPCC_UNIT_STRIDE + part, so that a warehouse spreads over the jobs and no unit is much
 * larger than ITEM (100,000 rows). */
enum tpcc_part {
    TPCC_PART_WAREHOUSE,       /* its row and its 10 districts */
    TPCC_PART_STOCK_LOW,       /* stock of items 1 to 50,000 */
    TPCC_PART_STOCK_HIGH,      /* stock of items 50,001 to 100,000 */
    TPCC_PART_CUSTOMER,        /* 30,000 customers */
    TPCC_PART_HISTORY,         /* 30,000 history rows */
    TPCC_PART_ORDERS,          /* + d - 1: district d's orders, new orders and order lines */
    TPCC_PARTS = TPCC_PART_ORDERS + TPCC_DISTRICTS
};
enum { TPCC_UNIT_STRIDE = 16 };
static inline int tpcc_unit_of(int w, int part) { return w * TPCC_UNIT_STRIDE + part; }
/* The rows unit makes (for an order part, the expected count: 5 to 15 lines an order). */
uint64_t tpcc_unit_rows(int unit);

/* Every row of unit into g->out, one table after another, from the unit's own random stream.
 * Returns 0, or -1 with err (the table open is closed). */
int tpcc_gen_unit(struct tpcc_gen *g, int unit, struct dg_err *err);

#endif
