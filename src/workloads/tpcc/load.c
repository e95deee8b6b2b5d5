/* load.c — `tpcc load`: the tables, then ITEM and the warehouses' parts in one transaction per
 * unit (loadgen.c makes the rows), then keys and indexes, statistics and the run's constants.
 * Engines with many writers load whole units on --jobs connections (the core's pool); an
 * engine with one writer (SQLite) gets its rows from J-1 generating threads through the
 * core's pipe, so generating never waits on writing. Every unit committed and every key built
 * is marked in dbgauge_tpcc_load by the transaction that did it: an interrupted load says
 * what is complete, and --resume finishes the rest. Starts no thread itself. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/pool.h"
#include "core/wlcli.h"
#include "workloads/tpcc/loadgen.h"

/* The plan row's unit: -1 was the plan of a load whose units were whole warehouses (before
 * parts); --resume cannot finish such a load. -2 - i marks key or index i. */
enum { UNIT_PLAN = -64, UNIT_PLAN_WHOLE_WAREHOUSES = -1 };

struct loader {
    const struct tpcc_load_opts *o;
    struct tpcc_gen_consts k;
    int warehouses;          /* the plan's */
    unsigned char *done;     /* [unit], units 0 to nunits_all - 1: committed; owned here */
    int nunits_all;          /* (warehouses + 1) * TPCC_UNIT_STRIDE */
    unsigned index_done;     /* bit i: key or index i built (--resume) */
    int *units;              /* the units this process loads, in order; owned here */
    int nunits;
    atomic_int stop;         /* the signal that stopped the load, 0 while none did */
    const struct dg_conn_h *writer; /* the one writing connection (the pipe) */
    /* Folded in by item_done, one call at a time. */
    int warehouses_done;
    uint64_t rows, bytes, rows_expected;
    dg_ns t0;
};

/* A generating thread (and, on the pool, its connection). */
struct gen {
    const struct loader *ld;
    struct dg_conn_h h;
    struct tpcc_gen g;
};

/* ---- marks in dbgauge_tpcc_load ------------------------------------------------------------- */

static int mark(const struct dg_conn_h *h, int unit, struct dg_err *err)
{
    char sql[96];
    snprintf(sql, sizeof sql, "INSERT INTO dbgauge_tpcc_load (unit) VALUES (%d)", unit);
    return dg_exec(h, sql, err);
}

static int write_plan(const struct dg_conn_h *h, const struct loader *ld, struct dg_err *err)
{
    char sql[160];
    snprintf(sql, sizeof sql, "INSERT INTO dbgauge_tpcc_load (unit, warehouses, seed) VALUES (%d, %d, '%" PRIu64 "')",
             UNIT_PLAN, ld->warehouses, ld->k.seed);
    return dg_exec(h, sql, err);
}

/* --resume: the plan and what is done already. */
static int read_plan(struct dg_conn_h *h, struct loader *ld, struct dg_err *err)
{
    struct dg_stmt *s = NULL;
    if (dg_prepare(h, "SELECT unit, warehouses, seed FROM dbgauge_tpcc_load WHERE unit IN (-1, -64) ORDER BY unit", 0,
                   &s, err))
        return dg_err_set(err, DG_ERR_USER, 0,
                          "--resume: the target has no interrupted dbgauge load to finish (no table "
                          "dbgauge_tpcc_load: %.200s)", err->msg);
    int found = dg_execute(h, s, NULL, err) == 0 ? dg_next_row(h, s, err) : -1;
    int64_t plan_unit = 0;
    if (found == 1) {
        plan_unit = dg_col_int(h, s, 0);
        ld->warehouses = (int)dg_col_int(h, s, 1);
        ld->k.seed = strtoull(dg_col_text(h, s, 2, NULL), NULL, 10);
        dg_reset(h, s);
    }
    dg_finalize(h, s);
    if (found < 0)
        return -1;
    if (found == 0 || ld->warehouses < 1 || ld->warehouses > TPCC_MAX_WAREHOUSES)
        return dg_err_set(err, DG_ERR_USER, 0, "--resume: dbgauge_tpcc_load has no plan row; load again with --drop");
    if (plan_unit == UNIT_PLAN_WHOLE_WAREHOUSES)
        return dg_err_set(err, DG_ERR_USER, 0, "--resume: the interrupted load was made by an earlier dbgauge, "
                          "which loaded whole warehouses; load again with --drop");
    return 0;
}

static int read_done(struct dg_conn_h *h, struct loader *ld, struct dg_err *err)
{
    struct dg_stmt *s = NULL;
    if (dg_prepare(h, "SELECT unit FROM dbgauge_tpcc_load WHERE unit <> -1", 0, &s, err))
        return -1;
    int rc = dg_execute(h, s, NULL, err), row;
    while (rc == 0 && (row = dg_next_row(h, s, err)) == 1) {
        int64_t u = dg_col_int(h, s, 0);
        if (u >= 0 && u < ld->nunits_all)
            ld->done[u] = 1;
        else if (u <= -2 && u > -2 - 32)
            ld->index_done |= 1u << (-2 - u);
    }
    if (rc == 0 && row < 0)
        rc = -1;
    dg_finalize(h, s);
    return rc;
}

/* ---- one unit ------------------------------------------------------------------------------- */

/* Whether every part of warehouse w is committed. */
static int warehouse_complete(const struct loader *ld, int w)
{
    for (int p = 0; p < TPCC_PARTS; p++)
        if (!ld->done[tpcc_unit_of(w, p)])
            return 0;
    return 1;
}

int tpcc_load_unfinished(struct dg_conn_h *h, char *why, size_t n)
{
    struct loader ld = {0};
    struct dg_err e;
    struct dg_stmt *s = NULL;
    if (dg_prepare(h, "SELECT warehouses FROM dbgauge_tpcc_load WHERE unit = -64", 0, &s, &e))
        return 0; /* no table of ours: not a dbgauge load */
    int found = dg_execute(h, s, NULL, &e) == 0 ? dg_next_row(h, s, &e) : -1;
    if (found == 1) {
        ld.warehouses = (int)dg_col_int(h, s, 0);
        dg_reset(h, s);
    }
    dg_finalize(h, s);
    if (found != 1 || ld.warehouses < 1 || ld.warehouses > TPCC_MAX_WAREHOUSES)
        return 0;
    ld.nunits_all = (ld.warehouses + 1) * TPCC_UNIT_STRIDE;
    if (!(ld.done = calloc((size_t)ld.nunits_all, 1)))
        return 0;
    int whole = 0, rc = read_done(h, &ld, &e);
    for (int w = 1; w <= ld.warehouses; w++)
        whole += warehouse_complete(&ld, w);
    snprintf(why, n, "%d of %d warehouses loaded%s%s", whole, ld.warehouses, ld.done[0] ? "" : ", ITEM not loaded",
             whole == ld.warehouses && ld.done[0] ? ", its keys, indexes or statistics not made" : "");
    free(ld.done);
    return rc == 0;
}

/* Folds a committed unit into the totals and tells the progress (one call at a time). */
static void unit_done(struct loader *ld, int unit, uint64_t rows, uint64_t bytes)
{
    ld->done[unit] = 1;
    ld->rows += rows;
    ld->bytes += bytes;
    ld->warehouses_done += unit != 0 && warehouse_complete(ld, unit / TPCC_UNIT_STRIDE);
    struct tpcc_load_progress p = {ld->warehouses_done, ld->warehouses, ld->rows, ld->bytes,
                                   (double)(dg_now_ns() - ld->t0) / 1e9, ld->rows_expected};
    if (ld->o->progress)
        ld->o->progress(ld->o->progress_ctx, &p);
}

/* The pool: a whole unit on this thread's connection, in one transaction with its mark. */
static int load_unit(void *ctx, void *state, int item, struct dg_err *err)
{
    const struct loader *ld = ctx;
    struct gen *g = state;
    int unit = ld->units[item];
    if (dg_begin(&g->h, DG_ISO_DEFAULT, 1, err))
        return -1;
    if (tpcc_gen_unit(&g->g, unit, err) || mark(&g->h, unit, err)) {
        struct dg_err ignore;
        dg_rollback(&g->h, &ignore);
        return -1;
    }
    return dg_commit(&g->h, err);
}

static void pool_unit_done(void *ctx, void *state, int item)
{
    struct loader *ld = ctx;
    struct gen *g = state;
    unit_done(ld, ld->units[item], g->g.out.rows, g->g.out.bytes);
    g->g.out.rows = g->g.out.bytes = 0;
}

static struct gen *new_gen(const struct loader *ld, struct dg_err *err)
{
    struct gen *g = calloc(1, sizeof *g);
    if (!g)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory"), NULL;
    g->ld = ld;
    g->g.k = &ld->k;
    g->g.out.stop = &ld->stop;
    return g;
}

/* A loading connection, one per pool thread (data with create, so SQLite makes the file). */
static int open_loading_conn(void *ctx, int thread, void **state, struct dg_err *err)
{
    (void)thread;
    struct gen *g = new_gen(ctx, err);
    if (!(*state = g))
        return -1;
    g->g.out.h = &g->h;
    struct dg_connect_opts co = {.create = 1, .application = "dbgauge-load"};
    return dg_connect(g->ld->o->target, &co, &g->h, err) || dg_load_mode(&g->h, 1, NULL, err) ? -1 : 0;
}

static void close_gen(void *ctx, void *state)
{
    (void)ctx;
    struct gen *g = state;
    if (g && g->h.drv)
        dg_disconnect(&g->h);
    free(g);
}

/* The pipe: a generating thread has no connection; the writer wraps each unit. */
static int open_producer(void *ctx, int thread, void **state, struct dg_err *err)
{
    (void)thread;
    return (*state = new_gen(ctx, err)) ? 0 : -1;
}

static int produce_unit(void *ctx, void *state, int item, struct dg_rows *rows, struct dg_err *err)
{
    const struct loader *ld = ctx;
    struct gen *g = state;
    g->g.out = *rows;
    int rc = tpcc_gen_unit(&g->g, ld->units[item], err);
    *rows = g->g.out;
    return rc;
}

static int writer_begin(void *ctx, int item, struct dg_err *err)
{
    (void)item;
    const struct loader *ld = ctx;
    return dg_begin(ld->writer, DG_ISO_DEFAULT, 1, err);
}

static int writer_end(void *ctx, int item, struct dg_err *err)
{
    const struct loader *ld = ctx;
    return mark(ld->writer, ld->units[item], err) || dg_commit(ld->writer, err) ? -1 : 0;
}

static void writer_abort(void *ctx, int item)
{
    (void)item;
    const struct loader *ld = ctx;
    struct dg_err ignore;
    dg_rollback(ld->writer, &ignore);
}

static void writer_unit_done(void *ctx, int item, uint64_t rows, uint64_t bytes)
{
    struct loader *ld = ctx;
    unit_done(ld, ld->units[item], rows, bytes);
}

/* This process's units: over jobs connections, or (one writer) through the pipe. */
static int load_data(struct loader *ld, struct dg_conn_h *h, int jobs, int single_writer, struct dg_err *err)
{
    if (single_writer) {
        ld->writer = h;
        struct dg_pipe_job pipe = {.ctx = ld, .writer = h, .thread_open = open_producer, .produce = produce_unit,
                                   .thread_close = close_gen, .item_begin = writer_begin, .item_end = writer_end,
                                   .item_abort = writer_abort, .item_done = writer_unit_done, .stop = &ld->stop};
        return dg_pipe_run(&pipe, jobs > 1 ? jobs - 1 : 1, ld->nunits, err);
    }
    struct dg_pool_job data = {.ctx = ld, .thread_open = open_loading_conn, .item = load_unit,
                               .item_done = pool_unit_done, .thread_close = close_gen, .stop = &ld->stop};
    return dg_pool_run(&data, jobs, ld->nunits, err);
}

/* ---- keys, indexes, statistics ---------------------------------------------------------------- */

/* Item i: the i-th key or index (each in a transaction with its mark, skipped when --resume
 * found it built), then the tables' statistics. */
struct index_ctx {
    const struct loader *ld;
    const char *const *sql;
    int nindex;
    char analyze[16][64]; /* one statement per table, where the engine takes them so */
    int nanalyze;
};

static int index_item(void *ctx, void *state, int item, struct dg_err *err)
{
    const struct index_ctx *ic = ctx;
    struct gen *g = state;
    if (item >= ic->nindex)
        return dg_exec(&g->h, ic->analyze[item - ic->nindex], err);
    if (ic->ld->index_done & (1u << item))
        return 0;
    if (dg_begin(&g->h, DG_ISO_DEFAULT, 1, err))
        return -1;
    if (dg_exec(&g->h, ic->sql[item], err) || mark(&g->h, -2 - item, err)) {
        struct dg_err ignore;
        dg_rollback(&g->h, &ignore);
        return -1;
    }
    return dg_commit(&g->h, err);
}

static int open_index_conn(void *ctx, int thread, void **state, struct dg_err *err)
{
    (void)thread;
    const struct index_ctx *ic = ctx;
    struct gen *g = new_gen(ic->ld, err);
    if (!(*state = g))
        return -1;
    struct dg_connect_opts co = {.application = "dbgauge-load"};
    if (dg_connect(ic->ld->o->target, &co, &g->h, err))
        return -1;
    struct dg_err ignore;
    dg_load_mode(&g->h, 1, NULL, &ignore);
    return 0;
}

/* Keys and indexes after the data, with the statistics, spread over the jobs; the run's
 * constants; the server-side transactions of --mode procedures, where the engine has them.
 * The constants go last: their row says the load is complete. */
static int make_keys(struct loader *ld, struct dg_conn_h *h, int jobs, struct dg_err *err)
{
    enum dg_dialect d = dg_conn_dialect(h);
    struct index_ctx ic = {.ld = ld, .sql = tpcc_schema_index_sql(d)};
    while (ic.sql[ic.nindex])
        ic.nindex++;
    while (ic.nanalyze < 16 && tpcc_analyze_table_sql(d, ic.nanalyze, ic.analyze[ic.nanalyze], sizeof ic.analyze[0]) >= 0)
        ic.nanalyze++;
    struct dg_pool_job index = {.ctx = &ic, .thread_open = open_index_conn, .item = index_item,
                                .thread_close = close_gen, .stop = &ld->stop};
    if (dg_pool_run(&index, dg_dialect(d)->single_writer ? 1 : jobs, ic.nindex + ic.nanalyze, err))
        return -1;
    if ((!ic.nanalyze && dg_exec(h, tpcc_analyze_sql(d), err)) ||
        (tpcc_proc_dialect(d) && tpcc_procedures_install(h, err)))
        return -1;
    return tpcc_meta_write(h, &ld->k.c_load, ld->warehouses, err);
}

/* ---- the whole load --------------------------------------------------------------------------- */

/* Several ranks meet: 0 when none failed; else -1 with err (the first failing rank's). */
static int meet(const struct dg_wl_ranks *rk, int rc, struct dg_err *err)
{
    return rk ? rk->agree(rk->ctx, rc != 0, err) : rc;
}

/* The tables and the plan, made by rank 0 (or the only process). */
static int make_schema(const struct loader *ld, struct dg_conn_h *h, struct dg_err *err)
{
    if (ld->o->drop && tpcc_schema_drop(h, err))
        return -1;
    if (tpcc_schema_create(h, err)) {
        if (err->cls == DG_ERR_USER || strstr(err->msg, "already exists"))
            dg_err_set(err, DG_ERR_USER, err->code,
                       "cannot create the TPC-C tables (%.300s); use --drop to rebuild, or --resume to "
                       "finish an interrupted load", err->msg);
        return -1;
    }
    return write_plan(h, ld, err);
}

/* --resume: the plan replaces --warehouses and --seed, which must agree when given. */
static int resume_plan(struct loader *ld, struct dg_conn_h *h, struct dg_err *err)
{
    const struct tpcc_load_opts *o = ld->o;
    if (read_plan(h, ld, err))
        return -1;
    if (o->warehouses_set && o->warehouses != ld->warehouses)
        return dg_err_set(err, DG_ERR_USER, 0, "--resume: the interrupted load was of %d warehouses, not %d "
                          "(--warehouses)", ld->warehouses, o->warehouses);
    if (o->seed_set && o->seed != ld->k.seed)
        return dg_err_set(err, DG_ERR_USER, 0, "--resume: the interrupted load had seed %" PRIu64 ", not %" PRIu64
                          " (--seed)", ld->k.seed, o->seed);
    return 0;
}

/* Rank r's units, those not done: ITEM on rank 0, then the parts of its share of the
 * warehouses. One file with one writer (SQLite) gains nothing from several ranks: rank 0
 * loads it all. */
static int plan_units(struct loader *ld, const struct dg_wl_ranks *rk, int lead, int single_writer,
                      struct dg_err *err)
{
    int split = rk && !single_writer;
    int lo = split ? (int)((int64_t)ld->warehouses * rk->rank / rk->size) : 0;
    int hi = split ? (int)((int64_t)ld->warehouses * (rk->rank + 1) / rk->size) : lead ? ld->warehouses : 0;
    if (!(ld->units = malloc(sizeof *ld->units * ((size_t)(hi - lo) * TPCC_PARTS + 1))))
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    if (lead && !ld->done[0])
        ld->units[ld->nunits++] = 0;
    for (int w = lo + 1; w <= hi; w++)
        for (int p = 0; p < TPCC_PARTS; p++)
            if (!ld->done[tpcc_unit_of(w, p)])
                ld->units[ld->nunits++] = tpcc_unit_of(w, p);
    for (int i = 0; i < ld->nunits; i++)
        ld->rows_expected += tpcc_unit_rows(ld->units[i]);
    for (int w = 1; w <= ld->warehouses; w++)
        ld->warehouses_done += warehouse_complete(ld, w);
    return 0;
}

/* Several ranks: the units the others committed are marked in the database, not in ld->done.
 * The lead reads the marks again (on its connection, else on a new one) so that what it says
 * is complete is every rank's; when the database cannot be read, its own view stays. */
static void read_every_ranks_done(struct loader *ld, struct dg_conn_h *h)
{
    struct dg_err ignore;
    if (!ld->done || (h->drv && read_done(h, ld, &ignore) == 0))
        return;
    struct dg_conn_h fresh = {0};
    struct dg_connect_opts co = {.application = "dbgauge-load"};
    if (dg_connect(ld->o->target, &co, &fresh, &ignore) == 0) {
        read_done(&fresh, ld, &ignore);
        dg_disconnect(&fresh);
    }
}

/* The warehouses known complete, as ranges: "1-3, 5". */
static void complete_text(const struct loader *ld, struct tpcc_load_result *res)
{
    size_t o = 0;
    res->complete[0] = '\0';
    for (int w = 1; ld->done && w <= ld->warehouses; w++) {
        if (!warehouse_complete(ld, w))
            continue;
        int end = w;
        while (end < ld->warehouses && warehouse_complete(ld, end + 1))
            end++;
        res->warehouses_complete += end - w + 1;
        if (o < sizeof res->complete - 16)
            o += (size_t)snprintf(res->complete + o, sizeof res->complete - o, end > w ? "%s%d-%d" : "%s%d",
                                  o ? ", " : "", w, end);
        else if (o < sizeof res->complete - 4)
            o += (size_t)snprintf(res->complete + o, sizeof res->complete - o, "...");
        w = end;
    }
}

/* Connects, and makes (rank 0) or reads (--resume) the plan and what is done. The other ranks
 * of a one-writer engine load nothing (plan_units) and stay away from its file. */
static int prepare(struct loader *ld, struct dg_conn_h *h, const struct dg_wl_ranks *rk, int lead,
                   int single_writer, struct tpcc_load_result *res, struct dg_err *err)
{
    const struct tpcc_load_opts *o = ld->o;
    struct dg_connect_opts co = {.create = !o->resume, .application = "dbgauge-load"};
    int rc = lead ? dg_connect(o->target, &co, h, err) || dg_load_mode(h, 1, &res->settings, err) ||
                        (o->resume ? resume_plan(ld, h, err) : make_schema(ld, h, err))
                  : 0;
    if ((rc = meet(rk, rc, err)) == 0 && !lead && !single_writer)
        rc = dg_connect(o->target, &co, h, err) || dg_load_mode(h, 1, NULL, err) || (o->resume && resume_plan(ld, h, err));
    ld->nunits_all = (ld->warehouses + 1) * TPCC_UNIT_STRIDE;
    if (!rc && !(ld->done = calloc((size_t)ld->nunits_all, 1)))
        rc = dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    if (!rc && o->resume && h->drv) {
        struct tpcc_nurand c;
        struct dg_err ignore;
        res->already_complete = tpcc_meta_read(h, &c, &ignore) == 1;
        rc = read_done(h, ld, err);
    }
    return meet(rk, rc, err);
}

int tpcc_load(const struct tpcc_load_opts *o, struct tpcc_load_result *res, struct dg_err *err)
{
    memset(res, 0, sizeof *res);
    const struct dg_wl_ranks *rk = o->ranks && o->ranks->size > 1 ? o->ranks : NULL;
    const int lead = !rk || rk->rank == 0;
    int single_writer = dg_dialect(dg_driver_dialect(o->target->drv))->single_writer;
    struct loader ld = {.o = o, .warehouses = o->warehouses, .k.seed = o->seed};
    struct dg_conn_h h = {0};
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    ld.k.now_len = strftime(ld.k.now, sizeof ld.k.now, "%Y-%m-%d %H:%M:%S", &tm);

    /* Every rank meets at each step, whatever happened before it, so none waits alone. */
    int rc = prepare(&ld, &h, rk, lead, single_writer, res, err);
    /* ODBC learns its engine on connecting: SQLite behind it has one writer too, and two
     * connections writing its file fail with "database is locked" (seen under ASan). */
    if (!rc && h.drv && dg_dialect(dg_conn_dialect(&h))->single_writer)
        single_writer = 1;
    res->warehouses = ld.warehouses;
    res->seed = ld.k.seed;
    struct dg_rng rng;
    dg_rng_seed(&rng, ld.k.seed ^ 0x5eedull);
    ld.k.c_load.c_last = (int)dg_rng_range(&rng, 0, 255);
    ld.k.c_load.c_id = (int)dg_rng_range(&rng, 0, 1023);
    ld.k.c_load.ol_i_id = (int)dg_rng_range(&rng, 0, 8191);
    if (!rc && !res->already_complete)
        rc = plan_units(&ld, rk, lead, single_writer, err);
    res->warehouses_skipped = ld.warehouses_done;
    /* One writer: J-1 threads generate for it (at least one). */
    int jobs = o->jobs < 1 ? 1 : o->jobs > 64 ? 64 : o->jobs;
    if (!single_writer && jobs > ld.nunits)
        jobs = ld.nunits > 0 ? ld.nunits : 1;
    res->jobs_used = jobs;
    ld.t0 = dg_now_ns();
    if (!rc && ld.nunits > 0)
        rc = load_data(&ld, &h, jobs, single_writer, err);
    rc = meet(rk, rc, err); /* every rank's warehouses are in */
    dg_ns t_data = dg_now_ns();
    if (!rc && lead && !res->already_complete)
        rc = make_keys(&ld, &h, jobs, err);
    if (!rc && h.drv)
        rc = dg_load_mode(&h, 0, NULL, err);
    rc = meet(rk, rc, err);
    dg_ns t_end = dg_now_ns();
    uint64_t totals[2] = {ld.rows, ld.bytes};
    if (rk && rk->sum(rk->ctx, totals, 2) && !rc)
        rc = dg_err_set(err, DG_ERR_FATAL, 0, "the ranks' row counts could not be summed");
    res->rows = totals[0];
    res->bytes = totals[1];
    res->data_seconds = (double)(t_data - ld.t0) / 1e9;
    res->index_seconds = (double)(t_end - t_data) / 1e9;
    res->seconds = (double)(t_end - ld.t0) / 1e9;
    if (rc && rk && lead)
        read_every_ranks_done(&ld, &h);
    if (rc)
        complete_text(&ld, res);
    dg_disconnect(&h);
    free(ld.done);
    free(ld.units);
    return rc ? -1 : 0;
}
