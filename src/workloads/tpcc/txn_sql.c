/* txn_sql.c — the SQL of the client-side TPC-C transactions (clauses 2.4-2.8): one text per
 * statement with its parameter count, the per-district stock reads, and the SELECTs that stand
 * in for UPDATE ... RETURNING where a dialect lacks it. Texts only: txn.c prepares and runs them. */
#include <stdio.h>

#include "workloads/tpcc/tpcc_internal.h"
#include "workloads/tpcc/txn_sql.h"

/* Statement texts; "%L" stands for the row-lock clause of the dialect (" FOR UPDATE", or
 * nothing where the transaction already holds the write lock, as on SQLite). */
const struct tpcc_stmt_def tpcc_stmt_defs[S_COUNT] = {
    [S_NO_WAREHOUSE] = {"SELECT w_tax FROM warehouse WHERE w_id = ?", 1},
    [S_NO_DISTRICT] = {"UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND "
                       "d_id = ? RETURNING d_tax, d_next_o_id - 1", 2},
    [S_NO_CUSTOMER] = {"SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND "
                       "c_d_id = ? AND c_id = ?", 3},
    [S_NO_ITEM] = {"SELECT i_price, i_name, i_data FROM item WHERE i_id = ?", 1},
    [S_NO_STOCK_UPDATE] = {"UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = "
                           "s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND "
                           "s_w_id = ?", 5},
    [S_NO_ORDER] = {"INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, "
                    "o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, NULL, ?, ?)", 6},
    [S_NO_NEW_ORDER] = {"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)", 3},
    [S_NO_LINE] = {"INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, "
                   "ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) "
                   "VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)", 9},
    [S_PAY_WAREHOUSE] = {"UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ? RETURNING w_name, "
                         "w_street_1, w_street_2, w_city, w_state, w_zip", 2},
    [S_PAY_DISTRICT] = {"UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ? "
                        "RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip", 3},
    [S_CUST_BY_NAME] = {"SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? "
                        "ORDER BY c_first", 3},
    [S_PAY_CUSTOMER] = {"SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, "
                        "c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, "
                        "c_balance, CASE WHEN c_credit = 'BC' THEN c_data END FROM customer "
                        "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?%L", 3},
    [S_PAY_UPDATE] = {"UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = "
                      "c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND "
                      "c_d_id = ? AND c_id = ?", 5},
    [S_PAY_UPDATE_BC] = {"UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = "
                         "c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE "
                         "c_w_id = ? AND c_d_id = ? AND c_id = ?", 6},
    [S_PAY_HISTORY] = {"INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, "
                       "h_amount, h_data) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?)", 7},
    [S_OS_CUSTOMER] = {"SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? "
                       "AND c_d_id = ? AND c_id = ?", 3},
    [S_OS_ORDER] = {"SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND "
                    "o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1", 3},
    [S_OS_LINES] = {"SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM "
                    "order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?", 3},
    [S_DL_NEW_ORDER] = {"SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY "
                        "no_o_id LIMIT 1%L", 2},
    [S_DL_DELETE] = {"DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?", 3},
    [S_DL_ORDER] = {"UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND "
                    "o_id = ? RETURNING o_c_id", 4},
    [S_DL_LINES] = {"UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = ? AND "
                    "ol_d_id = ? AND ol_o_id = ?", 3},
    [S_DL_SUM] = {"SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND "
                  "ol_o_id = ?", 3},
    [S_DL_CUSTOMER] = {"UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = "
                       "c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?", 4},
    [S_SL_DISTRICT] = {"SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?", 2},
    [S_SL_COUNT] = {"SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND "
                    "ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND "
                    "s_i_id = ol_i_id AND s_quantity < ?", 6},
};

static const char stock_sql[] = "SELECT s_quantity, s_data, s_dist_%02d FROM stock WHERE s_i_id = ? "
                                "AND s_w_id = ?%s";

/* MySQL/MariaDB have no UPDATE ... RETURNING: the UPDATE runs without it and these SELECTs,
 * run just after it in the same transaction (so they read the row as updated, under its
 * lock), return the same columns. They take the UPDATE's parameters, laid out alike: a SET
 * value the SELECT does not need is bound to a trailing select-list column nobody reads. */
const struct tpcc_returning_def tpcc_returning_sql[] = {
    {S_NO_DISTRICT, "SELECT d_tax, d_next_o_id - 1 FROM district WHERE d_w_id = ? AND d_id = ?"},
    {S_PAY_WAREHOUSE, "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip, ? FROM "
                      "warehouse WHERE w_id = ?"},
    {S_PAY_DISTRICT, "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip, ? FROM "
                     "district WHERE d_w_id = ? AND d_id = ?"},
    {S_DL_ORDER, "SELECT o_c_id, ? FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"},
};

const size_t tpcc_nreturning = sizeof tpcc_returning_sql / sizeof *tpcc_returning_sql;

int tpcc_txn_sql(enum dg_dialect d, int i, char *out, size_t cap)
{
    char tmp[1024];
    if (i < 0 || i >= S_COUNT + TPCC_DISTRICTS)
        return -1;
    if (i >= S_COUNT)
        snprintf(tmp, sizeof tmp, stock_sql, i - S_COUNT + 1, "%L");
    return tpcc_dialect_sql(d, i < S_COUNT ? tpcc_stmt_defs[i].sql : tmp, out, cap);
}

