/* hash.c — `tpcc check --hash`: one number for the content of the nine tables, so two loads
 * can be compared (the same seed must give the same data whatever the job count, and an
 * interrupted load finished with --resume the same data as an uninterrupted one). Every
 * column but the load's date and time (only whether it is set), row by row in key order,
 * through FNV-1a. Comparable between loads into the same engine: each engine spells numbers
 * its own way. Reads only. */
#include <stdio.h>

#include "workloads/tpcc/tpcc.h"

static const struct {
    const char *name, *sql;
} tables[] = {
    {"warehouse", "SELECT w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd "
                  "FROM warehouse ORDER BY w_id"},
    {"district", "SELECT d_w_id, d_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, d_ytd, "
                 "d_next_o_id FROM district ORDER BY d_w_id, d_id"},
    {"customer", "SELECT c_w_id, c_d_id, c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, "
                 "c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, "
                 "c_payment_cnt, c_delivery_cnt, c_data FROM customer ORDER BY c_w_id, c_d_id, c_id"},
    {"history", "SELECT h_c_w_id, h_c_d_id, h_c_id, h_d_id, h_w_id, h_amount, h_data FROM history "
                "ORDER BY h_c_w_id, h_c_d_id, h_c_id, h_d_id, h_w_id, h_amount, h_data"},
    {"new_order", "SELECT no_w_id, no_d_id, no_o_id FROM new_order ORDER BY no_w_id, no_d_id, no_o_id"},
    {"orders", "SELECT o_w_id, o_d_id, o_id, o_c_id, o_carrier_id, o_ol_cnt, o_all_local FROM orders "
               "ORDER BY o_w_id, o_d_id, o_id"},
    {"order_line", "SELECT ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id, "
                   "CASE WHEN ol_delivery_d IS NULL THEN 0 ELSE 1 END, ol_quantity, ol_amount, ol_dist_info "
                   "FROM order_line ORDER BY ol_w_id, ol_d_id, ol_o_id, ol_number"},
    {"item", "SELECT i_id, i_im_id, i_name, i_price, i_data FROM item ORDER BY i_id"},
    {"stock", "SELECT s_w_id, s_i_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, "
              "s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, "
              "s_data FROM stock ORDER BY s_w_id, s_i_id"},
};

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * FNV_PRIME;
    return h;
}

/* One table's rows; each value is hashed with its length (NULL as length ~0), so no two
 * different rows run together into the same bytes. */
static int hash_table(struct dg_conn_h *h, const char *sql, uint64_t *out, uint64_t *rows, struct dg_err *err)
{
    struct dg_stmt *s = NULL;
    if (dg_prepare(h, sql, 0, &s, err) || dg_set_streaming(h, s, 1, err) || dg_execute(h, s, NULL, err)) {
        if (s)
            dg_finalize(h, s);
        return -1;
    }
    uint64_t x = FNV_OFFSET, n = 0;
    int row;
    while ((row = dg_next_row(h, s, err)) == 1) {
        int ncols = dg_ncols(h, s);
        for (int i = 0; i < ncols; i++) {
            size_t len = SIZE_MAX;
            const char *v = dg_col_is_null(h, s, i) ? "" : dg_col_text(h, s, i, &len);
            x = fnv(x, &len, sizeof len);
            if (len != SIZE_MAX)
                x = fnv(x, v, len);
        }
        n++;
    }
    dg_finalize(h, s);
    *out = x;
    *rows = n;
    return row < 0 ? -1 : 0;
}

int tpcc_content_hash(struct dg_conn_h *h, struct tpcc_hash *res, struct dg_err *err)
{
    uint64_t all = FNV_OFFSET;
    res->rows = 0;
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        uint64_t x, n;
        if (hash_table(h, tables[i].sql, &x, &n, err))
            return -1;
        res->table[i] = x;
        res->table_name[i] = tables[i].name;
        res->rows += n;
        all = fnv(all, &x, sizeof x);
    }
    res->ntables = (int)(sizeof tables / sizeof *tables);
    res->all = all;
    return 0;
}
