/* load.c — populates the TPC-C tables per clause 4.3.3.1 through the driver's bulk path:
 * ITEM once, then whole warehouses handed out to --jobs connections (the core's pool); keys
 * and indexes after the data; ANALYZE last. Generates rows in fixed buffers: no allocation
 * per row. Starts no thread itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/pool.h"
#include "core/wlcli.h"
#include "workloads/tpcc/tpcc_internal.h"

struct loader {
    const struct tpcc_load_opts *o;
    struct tpcc_nurand c_load;
    char now[24]; /* load date/time, as text */
    size_t now_len;
    /* Folded in by the pool's item_done, one call at a time. */
    int warehouses_done;
    uint64_t rows, bytes;
    dg_ns t0;
    int first_unit; /* the pool's item i is unit first_unit + i (several ranks: this one's share) */
    int nwarehouses; /* of them here */
};

struct gen {
    struct loader *ld;
    struct dg_conn_h h;
    struct dg_rng rng;
    uint64_t rows, bytes; /* since the last progress report */
};

/* A unit is loaded: its rows into the totals, and the progress told (the pool's item_done:
 * one call at a time). */
static void report(void *ctx, void *state, int item)
{
    struct loader *ld = ctx;
    struct gen *g = state;
    int warehouse_done = ld->first_unit + item != 0;
    ld->rows += g->rows;
    ld->bytes += g->bytes;
    ld->warehouses_done += warehouse_done;
    struct tpcc_load_progress p = {ld->warehouses_done, ld->nwarehouses, ld->rows, ld->bytes,
                                   (double)(dg_now_ns() - ld->t0) / 1e9};
    if (ld->o->progress)
        ld->o->progress(ld->o->progress_ctx, &p);
    g->rows = g->bytes = 0;
}

/* Counts a generated row: bytes are the values' sizes (text length, 8 per number). */
static int put_row(struct gen *g, struct dg_bulk *b, const struct dg_value *v, int n, struct dg_err *err)
{
    for (int i = 0; i < n; i++)
        g->bytes += v[i].type == DG_T_TEXT ? v[i].s.n : v[i].type == DG_T_NULL ? 0 : 8;
    g->rows++;
    return dg_bulk_row(&g->h, b, v, err);
}

#define BULK(g, table, cols, b, err)                                                             \
    dg_bulk_begin(&(g)->h, table, cols, (int)(sizeof cols / sizeof *cols), &(b), err)

static int load_items(struct gen *g, struct dg_err *err)
{
    static const char *const cols[] = {"i_id", "i_im_id", "i_name", "i_price", "i_data"};
    struct dg_bulk *b;
    char name[24], data[50];
    if (BULK(g, "item", cols, b, err))
        return -1;
    int rc = 0;
    for (int i = 1; i <= TPCC_ITEMS && rc == 0; i++) {
        int orig, nn = tpcc_astring(&g->rng, name, 14, 24);
        int dn = tpcc_data_original(&g->rng, data, &orig);
        struct dg_value v[5] = {dg_int(i), dg_int(dg_rng_range(&g->rng, 1, 10000)),
                                dg_txt(name, (size_t)nn), dg_dec(dg_rng_range(&g->rng, 100, 10000), 2),
                                dg_txt(data, (size_t)dn)};
        rc = put_row(g, b, v, 5, err);
    }
    if (rc) {
        struct dg_err ignore;
        dg_bulk_end(&g->h, b, &ignore);
        return -1;
    }
    return dg_bulk_end(&g->h, b, err);
}

/* Address columns shared by WAREHOUSE and DISTRICT: name, street 1/2, city, state, zip. */
struct address {
    char name[10], street1[20], street2[20], city[20], state[2], zip[9];
    int nn, s1, s2, cn;
};

static void gen_address(struct dg_rng *r, struct address *a, int name_lo, int name_hi)
{
    if (name_hi) /* customers have no name here */
        a->nn = tpcc_astring(r, a->name, name_lo, name_hi);
    a->s1 = tpcc_astring(r, a->street1, 10, 20);
    a->s2 = tpcc_astring(r, a->street2, 10, 20);
    a->cn = tpcc_astring(r, a->city, 10, 20);
    dg_rng_chars(r, a->state, 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", 26);
    tpcc_zip(r, a->zip);
}

static void address_values(const struct address *a, struct dg_value *v)
{
    v[0] = dg_txt(a->street1, (size_t)a->s1);
    v[1] = dg_txt(a->street2, (size_t)a->s2);
    v[2] = dg_txt(a->city, (size_t)a->cn);
    v[3] = dg_txt(a->state, 2);
    v[4] = dg_txt(a->zip, 9);
}

static int finish(struct gen *g, struct dg_bulk *b, int rc, struct dg_err *err)
{
    if (rc) {
        struct dg_err ignore;
        dg_bulk_end(&g->h, b, &ignore);
        return -1;
    }
    return dg_bulk_end(&g->h, b, err);
}

static int load_warehouse_row(struct gen *g, int w, struct dg_err *err)
{
    static const char *const cols[] = {"w_id", "w_name", "w_street_1", "w_street_2", "w_city",
                                       "w_state", "w_zip", "w_tax", "w_ytd"};
    struct dg_bulk *b;
    struct address a;
    if (BULK(g, "warehouse", cols, b, err))
        return -1;
    gen_address(&g->rng, &a, 6, 10);
    struct dg_value v[9];
    v[0] = dg_int(w);
    v[1] = dg_txt(a.name, (size_t)a.nn);
    address_values(&a, v + 2);
    v[7] = dg_dec(dg_rng_range(&g->rng, 0, 2000), 4);
    v[8] = dg_dec(30000000, 2);
    return finish(g, b, put_row(g, b, v, 9, err), err);
}

static int load_stock(struct gen *g, int w, struct dg_err *err)
{
    static const char *const cols[] = {
        "s_i_id", "s_w_id", "s_quantity", "s_dist_01", "s_dist_02", "s_dist_03", "s_dist_04",
        "s_dist_05", "s_dist_06", "s_dist_07", "s_dist_08", "s_dist_09", "s_dist_10", "s_ytd",
        "s_order_cnt", "s_remote_cnt", "s_data"};
    struct dg_bulk *b;
    char dist[10 * 24], data[50];
    if (BULK(g, "stock", cols, b, err))
        return -1;
    int rc = 0;
    for (int i = 1; i <= TPCC_ITEMS && rc == 0; i++) {
        struct dg_value v[17];
        v[0] = dg_int(i);
        v[1] = dg_int(w);
        v[2] = dg_int(dg_rng_range(&g->rng, 10, 100));
        dg_rng_chars(&g->rng, dist, sizeof dist,
                     "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 62);
        for (int d = 0; d < 10; d++)
            v[3 + d] = dg_txt(dist + d * 24, 24);
        v[13] = dg_int(0);
        v[14] = dg_int(0);
        v[15] = dg_int(0);
        int orig, dn = tpcc_data_original(&g->rng, data, &orig);
        v[16] = dg_txt(data, (size_t)dn);
        rc = put_row(g, b, v, 17, err);
    }
    return finish(g, b, rc, err);
}

static int load_districts(struct gen *g, int w, struct dg_err *err)
{
    static const char *const cols[] = {"d_id", "d_w_id", "d_name", "d_street_1", "d_street_2",
                                       "d_city", "d_state", "d_zip", "d_tax", "d_ytd", "d_next_o_id"};
    struct dg_bulk *b;
    if (BULK(g, "district", cols, b, err))
        return -1;
    int rc = 0;
    for (int d = 1; d <= TPCC_DISTRICTS && rc == 0; d++) {
        struct address a;
        gen_address(&g->rng, &a, 6, 10);
        struct dg_value v[11];
        v[0] = dg_int(d);
        v[1] = dg_int(w);
        v[2] = dg_txt(a.name, (size_t)a.nn);
        address_values(&a, v + 3);
        v[8] = dg_dec(dg_rng_range(&g->rng, 0, 2000), 4);
        v[9] = dg_dec(3000000, 2);
        v[10] = dg_int(TPCC_ORDERS + 1);
        rc = put_row(g, b, v, 11, err);
    }
    return finish(g, b, rc, err);
}

static int load_customers(struct gen *g, int w, struct dg_err *err)
{
    static const char *const cols[] = {
        "c_id", "c_d_id", "c_w_id", "c_first", "c_middle", "c_last", "c_street_1", "c_street_2",
        "c_city", "c_state", "c_zip", "c_phone", "c_since", "c_credit", "c_credit_lim",
        "c_discount", "c_balance", "c_ytd_payment", "c_payment_cnt", "c_delivery_cnt", "c_data"};
    struct dg_bulk *b;
    char first[16], last[16], phone[16], data[500];
    struct loader *ld = g->ld;
    if (BULK(g, "customer", cols, b, err))
        return -1;
    int rc = 0;
    for (int d = 1; d <= TPCC_DISTRICTS && rc == 0; d++)
        for (int c = 1; c <= TPCC_CUSTOMERS && rc == 0; c++) {
            struct address a;
            struct dg_value v[21];
            int ln = tpcc_last_name(c <= 1000 ? c - 1 : tpcc_nurand(&g->rng, 255, ld->c_load.c_last, 0, 999),
                                    last);
            int fn = tpcc_astring(&g->rng, first, 8, 16);
            gen_address(&g->rng, &a, 0, 0);
            v[0] = dg_int(c);
            v[1] = dg_int(d);
            v[2] = dg_int(w);
            v[3] = dg_txt(first, (size_t)fn);
            v[4] = dg_txt("OE", 2);
            v[5] = dg_txt(last, (size_t)ln);
            address_values(&a, v + 6);
            int pn = tpcc_nstring(&g->rng, phone, 16, 16);
            v[11] = dg_txt(phone, (size_t)pn);
            v[12] = dg_txt(ld->now, ld->now_len);
            v[13] = dg_txt(dg_rng_range(&g->rng, 1, 100) <= 10 ? "BC" : "GC", 2);
            v[14] = dg_dec(5000000, 2);
            v[15] = dg_dec(dg_rng_range(&g->rng, 0, 5000), 4);
            v[16] = dg_dec(-1000, 2);
            v[17] = dg_dec(1000, 2);
            v[18] = dg_int(1);
            v[19] = dg_int(0);
            int dn = tpcc_astring(&g->rng, data, 300, 500);
            v[20] = dg_txt(data, (size_t)dn);
            rc = put_row(g, b, v, 21, err);
        }
    return finish(g, b, rc, err);
}

static int load_history(struct gen *g, int w, struct dg_err *err)
{
    static const char *const cols[] = {"h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id",
                                       "h_w_id", "h_date", "h_amount", "h_data"};
    struct dg_bulk *b;
    char data[24];
    if (BULK(g, "history", cols, b, err))
        return -1;
    int rc = 0;
    for (int d = 1; d <= TPCC_DISTRICTS && rc == 0; d++)
        for (int c = 1; c <= TPCC_CUSTOMERS && rc == 0; c++) {
            int dn = tpcc_astring(&g->rng, data, 12, 24);
            struct dg_value v[8] = {dg_int(c), dg_int(d), dg_int(w), dg_int(d), dg_int(w),
                                    dg_txt(g->ld->now, g->ld->now_len), dg_dec(1000, 2),
                                    dg_txt(data, (size_t)dn)};
            rc = put_row(g, b, v, 8, err);
        }
    return finish(g, b, rc, err);
}

/* ORDER, NEW-ORDER and ORDER-LINE of one district: three bulk streams in turn (a connection
 * has one COPY at a time), sharing the order line counts. */
static int load_orders(struct gen *g, int w, int d, struct dg_err *err)
{
    static const char *const ocols[] = {"o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d",
                                        "o_carrier_id", "o_ol_cnt", "o_all_local"};
    static const char *const ncols[] = {"no_o_id", "no_d_id", "no_w_id"};
    static const char *const lcols[] = {"ol_o_id", "ol_d_id", "ol_w_id", "ol_number",
                                        "ol_i_id", "ol_supply_w_id", "ol_delivery_d",
                                        "ol_quantity", "ol_amount", "ol_dist_info"};
    int perm[TPCC_ORDERS];
    unsigned char ol_cnt[TPCC_ORDERS + 1];
    struct loader *ld = g->ld;
    struct dg_bulk *b;
    int rc = 0;

    for (int i = 0; i < TPCC_ORDERS; i++)
        perm[i] = i + 1;
    for (int i = TPCC_ORDERS - 1; i > 0; i--) {
        int j = (int)dg_rng_range(&g->rng, 0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    if (BULK(g, "orders", ocols, b, err))
        return -1;
    for (int o = 1; o <= TPCC_ORDERS && rc == 0; o++) {
        int delivered = o <= TPCC_ORDERS - TPCC_NEW_ORDERS;
        ol_cnt[o] = (unsigned char)dg_rng_range(&g->rng, 5, 15);
        struct dg_value v[8] = {dg_int(o), dg_int(d), dg_int(w), dg_int(perm[o - 1]),
                                dg_txt(ld->now, ld->now_len),
                                delivered ? dg_int(dg_rng_range(&g->rng, 1, 10)) : dg_null(),
                                dg_int(ol_cnt[o]), dg_int(1)};
        rc = put_row(g, b, v, 8, err);
    }
    if (finish(g, b, rc, err))
        return -1;

    if (BULK(g, "new_order", ncols, b, err))
        return -1;
    for (int o = TPCC_ORDERS - TPCC_NEW_ORDERS + 1; o <= TPCC_ORDERS && rc == 0; o++) {
        struct dg_value v[3] = {dg_int(o), dg_int(d), dg_int(w)};
        rc = put_row(g, b, v, 3, err);
    }
    if (finish(g, b, rc, err))
        return -1;

    if (BULK(g, "order_line", lcols, b, err))
        return -1;
    char info[24];
    for (int o = 1; o <= TPCC_ORDERS && rc == 0; o++) {
        int delivered = o <= TPCC_ORDERS - TPCC_NEW_ORDERS;
        for (int l = 1; l <= ol_cnt[o] && rc == 0; l++) {
            dg_rng_chars(&g->rng, info, 24,
                         "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 62);
            struct dg_value v[10] = {
                dg_int(o), dg_int(d), dg_int(w), dg_int(l), dg_int(dg_rng_range(&g->rng, 1, TPCC_ITEMS)),
                dg_int(w), delivered ? dg_txt(ld->now, ld->now_len) : dg_null(), dg_int(5),
                dg_dec(delivered ? 0 : dg_rng_range(&g->rng, 1, 999999), 2), dg_txt(info, 24)};
            rc = put_row(g, b, v, 10, err);
        }
    }
    return finish(g, b, rc, err);
}

/* One unit in one transaction: 0 is ITEM, w a whole warehouse. Each unit has its own random
 * stream, so the data do not depend on which connection loads it. */
static int load_unit(void *ctx, void *state, int item, struct dg_err *err)
{
    const struct loader *ld = ctx;
    struct gen *g = state;
    int unit = ld->first_unit + item;
    dg_rng_seed(&g->rng, dg_mix64(g->ld->o->seed) ^ (uint64_t)unit * 0x9e3779b97f4a7c15ull);
    if (dg_begin(&g->h, DG_ISO_DEFAULT, 1, err))
        return -1;
    int rc;
    if (unit == 0) {
        rc = load_items(g, err);
    } else {
        int w = unit;
        rc = load_warehouse_row(g, w, err);
        if (!rc)
            rc = load_districts(g, w, err);
        if (!rc)
            rc = load_stock(g, w, err);
        if (!rc)
            rc = load_customers(g, w, err);
        if (!rc)
            rc = load_history(g, w, err);
        for (int d = 1; d <= TPCC_DISTRICTS && !rc; d++)
            rc = load_orders(g, w, d, err);
    }
    if (rc) {
        struct dg_err ignore;
        dg_rollback(&g->h, &ignore);
        return -1;
    }
    return dg_commit(&g->h, err);
}

/* A loading connection, one per pool thread (data with create, so SQLite makes the file). */
static int open_gen(void *ctx, int thread, void **state, struct dg_err *err)
{
    (void)thread;
    struct gen *g = calloc(1, sizeof *g);
    if (!g)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    g->ld = ctx;
    *state = g;
    struct dg_connect_opts co = {.create = 1, .application = "dbgauge-load"};
    return dg_connect(g->ld->o->target, &co, &g->h, err) || dg_load_mode(&g->h, 1, NULL, err) ? -1 : 0;
}

static void close_gen(void *ctx, void *state)
{
    (void)ctx;
    struct gen *g = state;
    if (g)
        dg_disconnect(&g->h);
    free(g);
}

/* Keys and indexes: item i is the dialect's i-th statement, on connections of their own. */
struct index_ctx {
    const struct dg_target *target;
    const char *const *sql;
};

static int index_item(void *ctx, void *state, int item, struct dg_err *err)
{
    const struct index_ctx *ic = ctx;
    struct gen *g = state;
    return dg_exec(&g->h, ic->sql[item], err);
}

static int open_index_conn(void *ctx, int thread, void **state, struct dg_err *err)
{
    (void)thread;
    const struct index_ctx *ic = ctx;
    struct gen *g = calloc(1, sizeof *g);
    if (!g)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    *state = g;
    struct dg_connect_opts co = {.application = "dbgauge-load"};
    if (dg_connect(ic->target, &co, &g->h, err))
        return -1;
    struct dg_err ignore;
    dg_load_mode(&g->h, 1, NULL, &ignore);
    return 0;
}

/* The tables, made by rank 0 (or the only process). */
static int make_schema(const struct tpcc_load_opts *o, struct dg_conn_h *h, struct dg_err *err)
{
    if (o->drop && tpcc_schema_drop(h, err))
        return -1;
    if (tpcc_schema_create(h, err)) {
        if (err->cls == DG_ERR_USER || strstr(err->msg, "already exists"))
            dg_err_set(err, DG_ERR_USER, err->code,
                       "cannot create the TPC-C tables (%.300s); use --drop to rebuild", err->msg);
        return -1;
    }
    return 0;
}

/* This process's units over its jobs: ITEM and its warehouses. */
static int load_data(struct loader *ld, int jobs, int nunits, struct dg_err *err)
{
    struct dg_pool_job data = {.ctx = ld, .thread_open = open_gen, .item = load_unit, .item_done = report,
                               .thread_close = close_gen};
    return dg_pool_run(&data, jobs, nunits, err);
}

/* Keys and indexes after the data, spread over the jobs; statistics; the run's constants;
 * the server-side transactions of --mode procedures, where the engine has them. */
static int make_keys(const struct tpcc_load_opts *o, struct loader *ld, struct dg_conn_h *h, int jobs,
                     struct dg_err *err)
{
    struct index_ctx ic = {o->target, tpcc_schema_index_sql(dg_conn_dialect(h))};
    int nindex = 0;
    while (ic.sql[nindex])
        nindex++;
    struct dg_pool_job index = {.ctx = &ic, .thread_open = open_index_conn, .item = index_item,
                                .thread_close = close_gen};
    if (dg_pool_run(&index, jobs, nindex, err))
        return -1;
    if (dg_exec(h, tpcc_analyze_sql(dg_conn_dialect(h)), err) || tpcc_meta_write(h, &ld->c_load, o->warehouses, err))
        return -1;
    return tpcc_proc_dialect(dg_conn_dialect(h)) && tpcc_procedures_install(h, err) ? -1 : 0;
}

/* Several ranks meet: 0 when none failed; else -1 with err (the first failing rank's). */
static int meet(const struct dg_wl_ranks *rk, int rc, struct dg_err *err)
{
    return rk ? rk->agree(rk->ctx, rc != 0, err) : rc;
}

int tpcc_load(const struct tpcc_load_opts *o, struct tpcc_load_result *res, struct dg_err *err)
{
    memset(res, 0, sizeof *res);
    const struct dg_wl_ranks *rk = o->ranks && o->ranks->size > 1 ? o->ranks : NULL;
    const int lead = !rk || rk->rank == 0;
    struct loader ld = {.o = o};
    struct dg_conn_h h = {0};
    struct dg_rng rng;
    dg_rng_seed(&rng, o->seed ^ 0x5eedull);
    ld.c_load.c_last = (int)dg_rng_range(&rng, 0, 255);
    ld.c_load.c_id = (int)dg_rng_range(&rng, 0, 1023);
    ld.c_load.ol_i_id = (int)dg_rng_range(&rng, 0, 8191);
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    ld.now_len = strftime(ld.now, sizeof ld.now, "%Y-%m-%d %H:%M:%S", &tm);
    /* Rank r's warehouses; rank 0 also ITEM (unit 0). One file with one writer at a time
     * (SQLite) gains nothing from several: rank 0 loads it all, the others only meet. */
    int split = rk && !dg_dialect(dg_driver_dialect(o->target->drv))->single_writer;
    int lo = split ? (int)((int64_t)o->warehouses * rk->rank / rk->size) : 0;
    int hi = split ? (int)((int64_t)o->warehouses * (rk->rank + 1) / rk->size) : lead ? o->warehouses : 0;
    ld.first_unit = lead ? 0 : lo + 1;
    ld.nwarehouses = hi - lo;
    int nunits = hi - lo + lead;

    /* Every rank meets at each step, whatever happened before it, so none waits alone. */
    struct dg_connect_opts co = {.create = 1, .application = "dbgauge-load"};
    int rc = lead ? dg_connect(o->target, &co, &h, err) || dg_load_mode(&h, 1, &res->settings, err) ||
                        make_schema(o, &h, err)
                  : 0;
    if ((rc = meet(rk, rc, err)) == 0 && !lead && nunits > 0)
        rc = dg_connect(o->target, &co, &h, err) || dg_load_mode(&h, 1, NULL, err);
    /* One SQLite file has one writer at a time: more jobs would only queue on its lock. */
    int jobs = o->jobs < 1 ? 1 : o->jobs > 64 ? 64 : o->jobs;
    if (!rc && h.drv && dg_dialect(dg_conn_dialect(&h))->single_writer)
        jobs = 1;
    if (jobs > nunits)
        jobs = nunits > 0 ? nunits : 1;
    res->jobs_used = jobs;
    ld.t0 = dg_now_ns();
    if (!rc && nunits > 0)
        rc = load_data(&ld, jobs, nunits, err);
    rc = meet(rk, rc, err); /* every rank's warehouses are in */
    dg_ns t_data = dg_now_ns();
    if (!rc && lead)
        rc = make_keys(o, &ld, &h, jobs, err);
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
    dg_disconnect(&h);
    return rc ? -1 : 0;
}
