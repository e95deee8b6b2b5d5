/* workload.c — TPC-C as a struct dg_workload: terminals with home warehouses and the
 * 23-card deck, and dispatch to the transactions. No threads, no clocks. */
#include <string.h>

#include "workloads/tpcc/tpcc_internal.h"

const char *const tpcc_type_names[TPCC_NTYPES] = {"new_order", "payment", "order_status",
                                                  "delivery", "stock_level"};

static int wl_worker_open(void *shared, struct dg_conn_h *conn, void **wctx, struct dg_err *err)
{
    struct tpcc_worker *w;
    if (tpcc_sql_worker_open(shared, conn, &w, err))
        return -1;
    *wctx = w;
    return 0;
}

static void wl_worker_close(void *wctx) { tpcc_sql_worker_close(wctx); }

/* Terminal i has home warehouse (i mod W) + 1 (round-robin) and, for Stock-Level, district
 * (i div W) mod 10 + 1, so a warehouse's ten terminals own ten different districts. */
static void wl_terminal_init(void *shared, int index, int nterminals, void *term, uint64_t seed)
{
    (void)nterminals;
    const struct tpcc_shared *sh = shared;
    struct tpcc_term *t = term;
    memset(t, 0, sizeof *t);
    dg_rng_seed(&t->rng, seed);
    t->w_id = index % sh->warehouses + 1;
    t->sl_d_id = index / sh->warehouses % TPCC_DISTRICTS + 1;
    t->deck_pos = TPCC_DECK; /* shuffle on first draw */
}

static int wl_next_type(void *term)
{
    struct tpcc_term *t = term;
    if (t->deck_pos >= TPCC_DECK) {
        tpcc_deck_shuffle(&t->rng, t->deck);
        t->deck_pos = 0;
    }
    return t->deck[t->deck_pos++];
}

static int wl_run(void *wctx, void *term, int type, struct dg_err *err)
{
    return tpcc_sql_run(wctx, term, type, err);
}

const struct dg_workload tpcc_workload = {
    .name = "tpcc",
    .ntypes = TPCC_NTYPES,
    .type_names = tpcc_type_names,
    .terminal_size = sizeof(struct tpcc_term),
    .worker_open = wl_worker_open,
    .worker_close = wl_worker_close,
    .terminal_init = wl_terminal_init,
    .next_type = wl_next_type,
    .run = wl_run,
};
