/* check.c — `tpcc check`: every table's cardinality against the warehouse count, and the
 * consistency conditions of clause 3.3.2 (CC1-CC12) as queries that return the offending
 * rows. Money is compared with a half-cent tolerance so engines storing REAL pass too.
 * Reads only; changes nothing. */
#include <stdio.h>
#include <string.h>

#include "workloads/tpcc/tpcc.h"

/* Customers' delivered order-line totals: shared by CC10 and CC12. */
#define DELIVERED_SUMS                                                                       \
    "(SELECT o.o_w_id, o.o_d_id, o.o_c_id, SUM(l.ol_amount) AS s FROM orders o "             \
    "JOIN order_line l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id " \
    "WHERE l.ol_delivery_d IS NOT NULL GROUP BY o.o_w_id, o.o_d_id, o.o_c_id) ol "            \
    "ON ol.o_w_id = c.c_w_id AND ol.o_d_id = c.c_d_id AND ol.o_c_id = c.c_id"

static const struct {
    const char *name, *what, *sql;
} conditions[] = {
    {"CC1", "W_YTD = sum(D_YTD) per warehouse",
     "SELECT w.w_id, w.w_ytd, d.s FROM warehouse w JOIN (SELECT d_w_id, SUM(d_ytd) AS s FROM "
     "district GROUP BY d_w_id) d ON d.d_w_id = w.w_id WHERE ABS(w.w_ytd - d.s) > 0.005"},
    {"CC2", "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) per district",
     "SELECT d.d_w_id, d.d_id, d.d_next_o_id, o.mx_o, n.mx_no FROM district d "
     "LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS mx_o FROM orders GROUP BY o_w_id, o_d_id) o "
     "ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id "
     "LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS mx_no FROM new_order GROUP BY no_w_id, "
     "no_d_id) n ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id "
     "WHERE o.mx_o IS NULL OR d.d_next_o_id - 1 <> o.mx_o OR (n.mx_no IS NOT NULL AND "
     "d.d_next_o_id - 1 <> n.mx_no)"},
    {"CC3", "max(NO_O_ID) - min(NO_O_ID) + 1 = NEW-ORDER rows per district",
     "SELECT no_w_id, no_d_id, COUNT(*) FROM new_order GROUP BY no_w_id, no_d_id "
     "HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)"},
    {"CC4", "sum(O_OL_CNT) = ORDER-LINE rows per district",
     /* both sides summed in one UNION ALL: a FULL OUTER JOIN that MySQL/MariaDB lack */
     "SELECT w, d, SUM(s), SUM(c) FROM (SELECT o_w_id AS w, o_d_id AS d, SUM(o_ol_cnt) AS s, 0 AS c "
     "FROM orders GROUP BY o_w_id, o_d_id UNION ALL SELECT ol_w_id, ol_d_id, 0, COUNT(*) FROM "
     "order_line GROUP BY ol_w_id, ol_d_id) x GROUP BY w, d HAVING SUM(s) <> SUM(c)"},
    {"CC5", "O_CARRIER_ID is null exactly when a NEW-ORDER row exists",
     "SELECT o.o_w_id, o.o_d_id, o.o_id FROM orders o LEFT JOIN new_order n ON n.no_w_id = "
     "o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id WHERE (o.o_carrier_id IS NULL AND "
     "n.no_o_id IS NULL) OR (o.o_carrier_id IS NOT NULL AND n.no_o_id IS NOT NULL) UNION ALL "
     "SELECT n.no_w_id, n.no_d_id, n.no_o_id FROM new_order n LEFT JOIN orders o ON o.o_w_id = "
     "n.no_w_id AND o.o_d_id = n.no_d_id AND o.o_id = n.no_o_id WHERE o.o_id IS NULL"},
    {"CC6", "O_OL_CNT = ORDER-LINE rows per order",
     "SELECT o.o_w_id, o.o_d_id, o.o_id, o.o_ol_cnt, COALESCE(l.c, 0) FROM orders o LEFT JOIN "
     "(SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS c FROM order_line GROUP BY ol_w_id, ol_d_id, "
     "ol_o_id) l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id WHERE "
     "COALESCE(l.c, 0) <> o.o_ol_cnt"},
    {"CC7", "OL_DELIVERY_D is null exactly when O_CARRIER_ID is null",
     "SELECT ol.ol_w_id, ol.ol_d_id, ol.ol_o_id, ol.ol_number FROM order_line ol JOIN orders o ON "
     "o.o_w_id = ol.ol_w_id AND o.o_d_id = ol.ol_d_id AND o.o_id = ol.ol_o_id WHERE "
     "(o.o_carrier_id IS NULL AND ol.ol_delivery_d IS NOT NULL) OR (o.o_carrier_id IS NOT NULL "
     "AND ol.ol_delivery_d IS NULL)"},
    {"CC8", "W_YTD = sum(H_AMOUNT) per warehouse",
     "SELECT w.w_id, w.w_ytd, h.s FROM warehouse w LEFT JOIN (SELECT h_w_id, SUM(h_amount) AS s "
     "FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id WHERE ABS(w.w_ytd - COALESCE(h.s, 0)) "
     "> 0.005"},
    {"CC9", "D_YTD = sum(H_AMOUNT) per district",
     "SELECT d.d_w_id, d.d_id, d.d_ytd, h.s FROM district d LEFT JOIN (SELECT h_w_id, h_d_id, "
     "SUM(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) h ON h.h_w_id = d.d_w_id AND "
     "h.h_d_id = d.d_id WHERE ABS(d.d_ytd - COALESCE(h.s, 0)) > 0.005"},
    {"CC10", "C_BALANCE = delivered OL_AMOUNT - H_AMOUNT per customer",
     "SELECT c.c_w_id, c.c_d_id, c.c_id, c.c_balance, COALESCE(ol.s, 0), COALESCE(h.s, 0) FROM "
     "customer c LEFT JOIN " DELIVERED_SUMS " LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, "
     "SUM(h_amount) AS s FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id) h ON h.h_c_w_id = "
     "c.c_w_id AND h.h_c_d_id = c.c_d_id AND h.h_c_id = c.c_id WHERE ABS(c.c_balance - "
     "(COALESCE(ol.s, 0) - COALESCE(h.s, 0))) > 0.005"},
    {"CC11", "ORDER rows - NEW-ORDER rows = 2100 per district (before any Delivery)",
     "SELECT d.d_w_id, d.d_id, COALESCE(o.c, 0), COALESCE(n.c, 0) FROM district d LEFT JOIN "
     "(SELECT o_w_id, o_d_id, COUNT(*) AS c FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = "
     "d.d_w_id AND o.o_d_id = d.d_id LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) AS c FROM "
     "new_order GROUP BY no_w_id, no_d_id) n ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id "
     "WHERE COALESCE(o.c, 0) - COALESCE(n.c, 0) <> 2100"},
    {"CC12", "C_BALANCE + C_YTD_PAYMENT = delivered OL_AMOUNT per customer",
     "SELECT c.c_w_id, c.c_d_id, c.c_id, c.c_balance + c.c_ytd_payment, COALESCE(ol.s, 0) FROM "
     "customer c LEFT JOIN " DELIVERED_SUMS " WHERE ABS(c.c_balance + c.c_ytd_payment - "
     "COALESCE(ol.s, 0)) > 0.005"},
};

static struct tpcc_check_item *add(struct tpcc_check_result *res, const char *name, const char *what)
{
    struct tpcc_check_item *it = &res->items[res->n++];
    memset(it, 0, sizeof *it);
    snprintf(it->name, sizeof it->name, "%s", name);
    snprintf(it->what, sizeof it->what, "%s", what);
    it->applicable = 1;
    return it;
}

/* Runs a violation query: pass when it yields no row; otherwise the first row goes in detail. */
static int violations(struct dg_conn_h *h, const char *sql, struct tpcc_check_item *it,
                      struct dg_err *err)
{
    struct dg_stmt *s;
    if (dg_prepare(h, sql, 0, &s, err) || dg_execute(h, s, NULL, err)) {
        if (s)
            dg_finalize(h, s);
        return -1;
    }
    int64_t rows = 0;
    int rc;
    while ((rc = dg_next_row(h, s, err)) == 1) {
        if (rows++ == 0) {
            size_t pos = 0;
            int nc = dg_ncols(h, s);
            for (int i = 0; i < nc && pos + 2 < sizeof it->detail; i++) {
                const char *v = dg_col_is_null(h, s, i) ? "NULL" : dg_col_text(h, s, i, NULL);
                pos += (size_t)snprintf(it->detail + pos, sizeof it->detail - pos, "%s%s",
                                        i ? ", " : "first offending row: ", v);
            }
        }
    }
    dg_finalize(h, s);
    if (rc < 0)
        return -1;
    it->pass = rows == 0;
    if (rows > 1) {
        size_t len = strlen(it->detail);
        snprintf(it->detail + len, sizeof it->detail - len, " (%lld rows)", (long long)rows);
    }
    return 0;
}

static int count(struct dg_conn_h *h, const char *table, int64_t *n, struct dg_err *err)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", table);
    return dg_query_int(h, sql, n, err);
}

int tpcc_check(struct dg_conn_h *h, struct tpcc_check_result *res, struct dg_err *err)
{
    memset(res, 0, sizeof *res);
    int w;
    if (tpcc_schema_probe(h, &w, err))
        return -1;
    res->warehouses = w;

    /* Cardinalities (clause 4.3.1): fixed tables exactly, growing tables at least. */
    static const struct {
        const char *table;
        int64_t per_w, fixed;
        int exact;
    } card[] = {
        {"warehouse", 1, 0, 1},      {"district", 10, 0, 1},  {"customer", 30000, 0, 1},
        {"stock", 100000, 0, 1},     {"item", 0, 100000, 1},  {"history", 30000, 0, 0},
        {"orders", 30000, 0, 0},
    };
    int64_t counts[7];
    for (size_t i = 0; i < sizeof card / sizeof *card; i++) {
        char name[32], what[120];
        int64_t want = card[i].per_w * w + card[i].fixed;
        snprintf(name, sizeof name, "rows.%s", card[i].table);
        snprintf(what, sizeof what, "%s has %s%lld rows", card[i].table, card[i].exact ? "" : ">= ",
                 (long long)want);
        struct tpcc_check_item *it = add(res, name, what);
        if (count(h, card[i].table, &counts[i], err))
            return -1;
        it->pass = card[i].exact ? counts[i] == want : counts[i] >= want;
        snprintf(it->detail, sizeof it->detail, "%lld rows", (long long)counts[i]);
    }
    int64_t orders = counts[6], lines, new_orders, delivered;
    if (count(h, "order_line", &lines, err) || count(h, "new_order", &new_orders, err) ||
        dg_query_int(h, "SELECT COUNT(*) FROM orders WHERE o_carrier_id IS NOT NULL", &delivered, err))
        return -1;
    struct tpcc_check_item *it = add(res, "rows.order_line", "order_line has 5..15 rows per order");
    it->pass = lines >= 5 * orders && lines <= 15 * orders;
    snprintf(it->detail, sizeof it->detail, "%lld rows for %lld orders", (long long)lines,
             (long long)orders);
    /* Before any Delivery, exactly 2,100 orders per district carry a carrier id. */
    int fresh = delivered == 2100LL * TPCC_DISTRICTS * w;
    it = add(res, "rows.new_order", "new_order has 9,000 rows per warehouse (before any Delivery)");
    it->applicable = fresh;
    it->pass = new_orders == 9000LL * w + (orders - 30000LL * w);
    snprintf(it->detail, sizeof it->detail, "%lld rows", (long long)new_orders);

    for (size_t i = 0; i < sizeof conditions / sizeof *conditions; i++) {
        it = add(res, conditions[i].name, conditions[i].what);
        if (strcmp(conditions[i].name, "CC11") == 0 && !fresh) {
            it->applicable = 0;
            snprintf(it->detail, sizeof it->detail, "not applicable: Deliveries have run");
            continue;
        }
        if (violations(h, conditions[i].sql, it, err))
            return -1;
    }
    for (int i = 0; i < res->n; i++)
        if (res->items[i].applicable && !res->items[i].pass)
            res->failed++;
    return 0;
}
