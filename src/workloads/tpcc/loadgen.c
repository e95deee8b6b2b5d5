/* loadgen.c — the rows of TPC-C's initial population (clause 4.3.3.1), unit by unit: unit 0 is
 * ITEM, the others one part of a warehouse (loadgen.h). Each unit has its own random stream
 * from the seed, so its rows do not depend on which thread makes them or in which order. Rows go out through
 * struct dg_rows (to a connection, or to the one writer); fixed buffers, no allocation. */
#include <string.h>

#include "workloads/tpcc/loadgen.h"

#define BULK(g, table, cols, err) dg_rows_begin(&(g)->out, table, cols, (int)(sizeof cols / sizeof *cols), err)

/* A table's rows are all out (rc 0), or generating them failed (rc -1: closed, err kept). */
static int finish(struct tpcc_gen *g, int rc, struct dg_err *err)
{
    return dg_rows_end(&g->out, rc != 0, err);
}

static int load_items(struct tpcc_gen *g, struct dg_err *err)
{
    static const char *const cols[] = {"i_id", "i_im_id", "i_name", "i_price", "i_data"};
    char name[24], data[50];
    if (BULK(g, "item", cols, err))
        return -1;
    int rc = 0;
    for (int i = 1; i <= TPCC_ITEMS && rc == 0; i++) {
        int orig, nn = tpcc_astring(&g->rng, name, 14, 24);
        int dn = tpcc_data_original(&g->rng, data, &orig);
        struct dg_value v[5] = {dg_int(i), dg_int(dg_rng_range(&g->rng, 1, 10000)),
                                dg_txt(name, (size_t)nn), dg_dec(dg_rng_range(&g->rng, 100, 10000), 2),
                                dg_txt(data, (size_t)dn)};
        rc = dg_rows_put(&g->out, v, err);
    }
    return finish(g, rc, err);
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

static int load_warehouse_row(struct tpcc_gen *g, int w, struct dg_err *err)
{
    static const char *const cols[] = {"w_id", "w_name", "w_street_1", "w_street_2", "w_city",
                                       "w_state", "w_zip", "w_tax", "w_ytd"};
    struct address a;
    if (BULK(g, "warehouse", cols, err))
        return -1;
    gen_address(&g->rng, &a, 6, 10);
    struct dg_value v[9];
    v[0] = dg_int(w);
    v[1] = dg_txt(a.name, (size_t)a.nn);
    address_values(&a, v + 2);
    v[7] = dg_dec(dg_rng_range(&g->rng, 0, 2000), 4);
    v[8] = dg_dec(30000000, 2);
    return finish(g, dg_rows_put(&g->out, v, err), err);
}

/* Stock of items lo to hi of warehouse w. */
static int load_stock(struct tpcc_gen *g, int w, int lo, int hi, struct dg_err *err)
{
    static const char *const cols[] = {
        "s_i_id", "s_w_id", "s_quantity", "s_dist_01", "s_dist_02", "s_dist_03", "s_dist_04",
        "s_dist_05", "s_dist_06", "s_dist_07", "s_dist_08", "s_dist_09", "s_dist_10", "s_ytd",
        "s_order_cnt", "s_remote_cnt", "s_data"};
    char dist[10 * 24], data[50];
    if (BULK(g, "stock", cols, err))
        return -1;
    int rc = 0;
    for (int i = lo; i <= hi && rc == 0; i++) {
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
        rc = dg_rows_put(&g->out, v, err);
    }
    return finish(g, rc, err);
}

static int load_districts(struct tpcc_gen *g, int w, struct dg_err *err)
{
    static const char *const cols[] = {"d_id", "d_w_id", "d_name", "d_street_1", "d_street_2",
                                       "d_city", "d_state", "d_zip", "d_tax", "d_ytd", "d_next_o_id"};
    if (BULK(g, "district", cols, err))
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
        rc = dg_rows_put(&g->out, v, err);
    }
    return finish(g, rc, err);
}

static int load_customers(struct tpcc_gen *g, int w, struct dg_err *err)
{
    static const char *const cols[] = {
        "c_id", "c_d_id", "c_w_id", "c_first", "c_middle", "c_last", "c_street_1", "c_street_2",
        "c_city", "c_state", "c_zip", "c_phone", "c_since", "c_credit", "c_credit_lim",
        "c_discount", "c_balance", "c_ytd_payment", "c_payment_cnt", "c_delivery_cnt", "c_data"};
    char first[16], last[16], phone[16], data[500];
    const struct tpcc_gen_consts *k = g->k;
    if (BULK(g, "customer", cols, err))
        return -1;
    int rc = 0;
    for (int d = 1; d <= TPCC_DISTRICTS && rc == 0; d++)
        for (int c = 1; c <= TPCC_CUSTOMERS && rc == 0; c++) {
            struct address a;
            struct dg_value v[21];
            int ln = tpcc_last_name(c <= 1000 ? c - 1 : tpcc_nurand(&g->rng, 255, k->c_load.c_last, 0, 999),
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
            v[12] = dg_txt(k->now, k->now_len);
            v[13] = dg_txt(dg_rng_range(&g->rng, 1, 100) <= 10 ? "BC" : "GC", 2);
            v[14] = dg_dec(5000000, 2);
            v[15] = dg_dec(dg_rng_range(&g->rng, 0, 5000), 4);
            v[16] = dg_dec(-1000, 2);
            v[17] = dg_dec(1000, 2);
            v[18] = dg_int(1);
            v[19] = dg_int(0);
            int dn = tpcc_astring(&g->rng, data, 300, 500);
            v[20] = dg_txt(data, (size_t)dn);
            rc = dg_rows_put(&g->out, v, err);
        }
    return finish(g, rc, err);
}

static int load_history(struct tpcc_gen *g, int w, struct dg_err *err)
{
    static const char *const cols[] = {"h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id",
                                       "h_w_id", "h_date", "h_amount", "h_data"};
    char data[24];
    if (BULK(g, "history", cols, err))
        return -1;
    int rc = 0;
    for (int d = 1; d <= TPCC_DISTRICTS && rc == 0; d++)
        for (int c = 1; c <= TPCC_CUSTOMERS && rc == 0; c++) {
            int dn = tpcc_astring(&g->rng, data, 12, 24);
            struct dg_value v[8] = {dg_int(c), dg_int(d), dg_int(w), dg_int(d), dg_int(w),
                                    dg_txt(g->k->now, g->k->now_len), dg_dec(1000, 2),
                                    dg_txt(data, (size_t)dn)};
            rc = dg_rows_put(&g->out, v, err);
        }
    return finish(g, rc, err);
}

/* ORDER, NEW-ORDER and ORDER-LINE of one district: three bulk streams in turn (a connection
 * has one COPY at a time), sharing the order line counts. */
static int load_orders(struct tpcc_gen *g, int w, int d, struct dg_err *err)
{
    static const char *const ocols[] = {"o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d",
                                        "o_carrier_id", "o_ol_cnt", "o_all_local"};
    static const char *const ncols[] = {"no_o_id", "no_d_id", "no_w_id"};
    static const char *const lcols[] = {"ol_o_id", "ol_d_id", "ol_w_id", "ol_number",
                                        "ol_i_id", "ol_supply_w_id", "ol_delivery_d",
                                        "ol_quantity", "ol_amount", "ol_dist_info"};
    int perm[TPCC_ORDERS];
    unsigned char ol_cnt[TPCC_ORDERS + 1];
    const struct tpcc_gen_consts *k = g->k;
    int rc = 0;

    for (int i = 0; i < TPCC_ORDERS; i++)
        perm[i] = i + 1;
    for (int i = TPCC_ORDERS - 1; i > 0; i--) {
        int j = (int)dg_rng_range(&g->rng, 0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    if (BULK(g, "orders", ocols, err))
        return -1;
    for (int o = 1; o <= TPCC_ORDERS && rc == 0; o++) {
        int delivered = o <= TPCC_ORDERS - TPCC_NEW_ORDERS;
        ol_cnt[o] = (unsigned char)dg_rng_range(&g->rng, 5, 15);
        struct dg_value v[8] = {dg_int(o), dg_int(d), dg_int(w), dg_int(perm[o - 1]),
                                dg_txt(k->now, k->now_len),
                                delivered ? dg_int(dg_rng_range(&g->rng, 1, 10)) : dg_null(),
                                dg_int(ol_cnt[o]), dg_int(1)};
        rc = dg_rows_put(&g->out, v, err);
    }
    if (finish(g, rc, err))
        return -1;

    if (BULK(g, "new_order", ncols, err))
        return -1;
    for (int o = TPCC_ORDERS - TPCC_NEW_ORDERS + 1; o <= TPCC_ORDERS && rc == 0; o++) {
        struct dg_value v[3] = {dg_int(o), dg_int(d), dg_int(w)};
        rc = dg_rows_put(&g->out, v, err);
    }
    if (finish(g, rc, err))
        return -1;

    if (BULK(g, "order_line", lcols, err))
        return -1;
    char info[24];
    for (int o = 1; o <= TPCC_ORDERS && rc == 0; o++) {
        int delivered = o <= TPCC_ORDERS - TPCC_NEW_ORDERS;
        for (int l = 1; l <= ol_cnt[o] && rc == 0; l++) {
            dg_rng_chars(&g->rng, info, 24,
                         "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 62);
            struct dg_value v[10] = {
                dg_int(o), dg_int(d), dg_int(w), dg_int(l), dg_int(dg_rng_range(&g->rng, 1, TPCC_ITEMS)),
                dg_int(w), delivered ? dg_txt(k->now, k->now_len) : dg_null(), dg_int(5),
                dg_dec(delivered ? 0 : dg_rng_range(&g->rng, 1, 999999), 2), dg_txt(info, 24)};
            rc = dg_rows_put(&g->out, v, err);
        }
    }
    return finish(g, rc, err);
}

uint64_t tpcc_unit_rows(int unit)
{
    if (unit == 0)
        return TPCC_ITEMS;
    switch (unit % TPCC_UNIT_STRIDE) {
    case TPCC_PART_WAREHOUSE: return 1 + TPCC_DISTRICTS;
    case TPCC_PART_STOCK_LOW:
    case TPCC_PART_STOCK_HIGH: return TPCC_ITEMS / 2;
    case TPCC_PART_CUSTOMER:
    case TPCC_PART_HISTORY: return TPCC_CUSTOMERS * TPCC_DISTRICTS;
    default: return TPCC_ORDERS + TPCC_NEW_ORDERS + TPCC_ORDERS * (5 + 15) / 2; /* lines: 10 an order on average */
    }
}

int tpcc_gen_unit(struct tpcc_gen *g, int unit, struct dg_err *err)
{
    dg_rng_seed(&g->rng, dg_mix64(g->k->seed) ^ (uint64_t)unit * 0x9e3779b97f4a7c15ull);
    if (unit == 0)
        return load_items(g, err);
    int w = unit / TPCC_UNIT_STRIDE, part = unit % TPCC_UNIT_STRIDE;
    switch (part) {
    case TPCC_PART_WAREHOUSE: return load_warehouse_row(g, w, err) || load_districts(g, w, err) ? -1 : 0;
    case TPCC_PART_STOCK_LOW: return load_stock(g, w, 1, TPCC_ITEMS / 2, err);
    case TPCC_PART_STOCK_HIGH: return load_stock(g, w, TPCC_ITEMS / 2 + 1, TPCC_ITEMS, err);
    case TPCC_PART_CUSTOMER: return load_customers(g, w, err);
    case TPCC_PART_HISTORY: return load_history(g, w, err);
    default:
        if (part < TPCC_PARTS)
            return load_orders(g, w, part - TPCC_PART_ORDERS + 1, err);
        return dg_err_set(err, DG_ERR_FATAL, 0, "no such load unit: %d", unit);
    }
}
