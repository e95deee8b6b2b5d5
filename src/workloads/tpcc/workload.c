/* workload.c — TPC-C as a struct dg_workload: terminals with home warehouses and the
 * 23-card deck, and dispatch to the transactions. No threads, no clocks. */
#include <stdlib.h>
#include <string.h>

#include "core/figures.h"
#include "core/wlcli.h"
#include "workloads/tpcc/tpcc_internal.h"

const char *const tpcc_type_names[TPCC_NTYPES] = {"new_order", "payment", "order_status",
                                                  "delivery", "stock_level"};

/* A worker runs in one mode for the whole run; the mode tag picks the statement set. */
struct mode_worker {
    enum tpcc_mode mode;
    struct tpcc_worker *sql;
    struct tpcc_proc_worker *proc;
    struct tpcc_ack ack; /* the last transaction's, until take_ack */
};

static int wl_worker_open(void *shared, struct dg_conn_h *conn, void **wctx, struct dg_err *err)
{
    const struct tpcc_shared *sh = shared;
    struct mode_worker *m = calloc(1, sizeof *m);
    if (!m)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    m->mode = sh->mode;
    int rc = sh->mode == TPCC_MODE_PROCEDURES ? tpcc_proc_worker_open(sh, conn, &m->proc, err)
                                              : tpcc_sql_worker_open(sh, conn, &m->sql, err);
    if (rc) {
        free(m);
        return -1;
    }
    *wctx = m;
    return 0;
}

static void wl_worker_close(void *wctx)
{
    struct mode_worker *m = wctx;
    if (m->proc)
        tpcc_proc_worker_close(m->proc);
    if (m->sql)
        tpcc_sql_worker_close(m->sql);
    free(m);
}

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
    struct mode_worker *m = wctx;
    m->ack.has = 0; /* a retry starts afresh; a rolled-back New-Order never fills it */
    return m->mode == TPCC_MODE_PROCEDURES ? tpcc_proc_run(m->proc, term, type, &m->ack, err)
                                           : tpcc_sql_run(m->sql, term, type, &m->ack, err);
}

/* After a commit or an in-doubt error: the New-Order's or Payment's keys, copied out of the
 * worker's own record (no lock, no allocation). */
static int wl_take_ack(void *wctx, struct dg_ack *out)
{
    struct mode_worker *m = wctx;
    if (!m->ack.has)
        return 0;
    m->ack.has = 0;
    out->kind = m->ack.a.kind;
    out->amount = m->ack.a.amount;
    out->count = m->ack.a.count;
    memcpy(out->k, m->ack.a.k, sizeof out->k);
    return 1;
}

/* Clause 5.2.5: keying times and mean think times, seconds, in type order. */
static const double keying_s[TPCC_NTYPES] = {18, 3, 2, 2, 2};
static const double think_mean_s[TPCC_NTYPES] = {12, 12, 10, 5, 5};
const double tpcc_p90_limit_s[TPCC_NTYPES] = {5, 5, 5, 5, 20};

/* NOPM: committed New-Orders per minute (HammerDB's figure); TPM: every committed
 * transaction per minute; tpmC: completed New-Orders per minute, only where the standard's
 * keying and think times were kept (clause 5.4). */
static const struct dg_figure_def figures[] = {
    {.name = "nopm", .label = "NOPM", .unit = "/min", .count = DG_FIG_COMMITTED, .type = TPCC_NEW_ORDER, .scale = 60},
    {.name = "tpm", .label = "TPM", .unit = "/min", .count = DG_FIG_COMMITTED, .type = DG_FIG_ALL_TYPES, .scale = 60},
    {.name = "tpmc", .label = "tpmC", .unit = "/min", .count = DG_FIG_COMPLETED, .type = TPCC_NEW_ORDER, .scale = 60,
     .flags = DG_FIG_STANDARD_TIMES},
};

extern const struct dg_wl_cli tpcc_cli; /* cli.c */

const struct dg_workload tpcc_workload = {
    .command = "tpcc",
    .summary = "TPC-C: load, run, check (see dbgauge tpcc --help)",
    .figures = figures,
    .nfigures = sizeof figures / sizeof *figures,
    .cli = &tpcc_cli,
    .keying_s = keying_s,
    .think_mean_s = think_mean_s,
    .name = "tpcc",
    .ntypes = TPCC_NTYPES,
    .type_names = tpcc_type_names,
    .terminal_size = sizeof(struct tpcc_term),
    .read_only_types = 1u << TPCC_ORDER_STATUS | 1u << TPCC_STOCK_LEVEL,
    .worker_open = wl_worker_open,
    .worker_close = wl_worker_close,
    .terminal_init = wl_terminal_init,
    .next_type = wl_next_type,
    .run = wl_run,
    .take_ack = wl_take_ack,
};
