/* txn.c — the five TPC-C transactions (clauses 2.4-2.8) as client-side SQL: inputs drawn
 * from the terminal's RNG, statements prepared once per connection, independent reads and
 * writes sent as batches (pipelined where the driver can). No allocation per transaction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/tpcc/tpcc_internal.h"

enum {
    S_NO_WAREHOUSE, S_NO_DISTRICT, S_NO_CUSTOMER, S_NO_ITEM, S_NO_STOCK_UPDATE, S_NO_ORDER,
    S_NO_NEW_ORDER, S_NO_LINE,
    S_PAY_WAREHOUSE, S_PAY_DISTRICT, S_CUST_BY_NAME, S_PAY_CUSTOMER, S_PAY_CDATA,
    S_PAY_UPDATE, S_PAY_UPDATE_BC, S_PAY_HISTORY,
    S_OS_CUSTOMER, S_OS_ORDER, S_OS_LINES,
    S_DL_NEW_ORDER, S_DL_DELETE, S_DL_ORDER, S_DL_LINES, S_DL_SUM, S_DL_CUSTOMER,
    S_SL_DISTRICT, S_SL_COUNT,
    S_COUNT
};

/* Statement texts; "%L" stands for the row-lock clause of the dialect (" FOR UPDATE", or
 * nothing where the transaction already holds the write lock, as on SQLite). */
static const struct {
    const char *sql;
    int nparams;
} stmt_defs[S_COUNT] = {
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
                        "c_balance FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?%L", 3},
    [S_PAY_CDATA] = {"SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?", 3},
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

struct tpcc_worker {
    struct dg_conn_h *h;
    const struct tpcc_shared *sh;
    struct dg_stmt *st[S_COUNT];
    struct dg_stmt *stock[TPCC_DISTRICTS]; /* S_DIST_xx differs per district */
};

static const char *lock_clause(enum dg_dialect d)
{
    return d == DG_DIALECT_SQLITE ? "" : " FOR UPDATE";
}

/* Expands %L in a statement text. */
static void expand(const char *in, const char *lock, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *p = in; *p && o + 1 < cap; p++) {
        if (p[0] == '%' && p[1] == 'L') {
            for (const char *l = lock; *l && o + 1 < cap; l++)
                out[o++] = *l;
            p++;
        } else {
            out[o++] = *p;
        }
    }
    out[o] = '\0';
}

int tpcc_sql_worker_open(const struct tpcc_shared *sh, struct dg_conn_h *h, struct tpcc_worker **out,
                         struct dg_err *err)
{
    struct tpcc_worker *w = calloc(1, sizeof *w);
    if (!w)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    w->h = h;
    w->sh = sh;
    const char *lock = lock_clause(h->drv->dialect);
    char sql[1024];
    for (int i = 0; i < S_COUNT; i++) {
        expand(stmt_defs[i].sql, lock, sql, sizeof sql);
        if (h->drv->prepare(h->c, sql, stmt_defs[i].nparams, &w->st[i], err))
            goto fail;
    }
    for (int d = 0; d < TPCC_DISTRICTS; d++) {
        snprintf(sql, sizeof sql, stock_sql, d + 1, lock);
        if (h->drv->prepare(h->c, sql, 2, &w->stock[d], err))
            goto fail;
    }
    *out = w;
    return 0;
fail:
    tpcc_sql_worker_close(w);
    return -1;
}

void tpcc_sql_worker_close(struct tpcc_worker *w)
{
    if (!w)
        return;
    for (int i = 0; i < S_COUNT; i++)
        if (w->st[i])
            w->h->drv->finalize(w->st[i]);
    for (int d = 0; d < TPCC_DISTRICTS; d++)
        if (w->stock[d])
            w->h->drv->finalize(w->stock[d]);
    free(w);
}

/* --- small helpers over the driver table --- */

#define DRV(w) ((w)->h->drv)

static int exec_stmt(struct tpcc_worker *w, int id, const struct dg_value *p, struct dg_err *err)
{
    return DRV(w)->execute(w->st[id], p, err);
}

/* Executes and reads exactly one row; a missing row is a fatal error naming the statement. */
static int one_row(struct tpcc_worker *w, int id, const struct dg_value *p, struct dg_err *err)
{
    if (DRV(w)->execute(w->st[id], p, err))
        return -1;
    int r = DRV(w)->next_row(w->st[id], err);
    if (r == 1)
        return 0;
    if (r == 0)
        dg_err_set(err, DG_ERR_FATAL, 0, "no row for: %.120s", stmt_defs[id].sql);
    return -1;
}

static void done_rows(struct tpcc_worker *w, int id) { DRV(w)->reset(w->st[id]); }

static int64_t money_cents(double v) { return llround(v * 100.0); }

/* Clause 2.5.2.2: customers with this last name, ordered by C_FIRST; take the one at
 * position ceil(n/2). */
static int customer_by_name(struct tpcc_worker *w, int c_w, int c_d, const char *last, int ln,
                            int *c_id, struct dg_err *err)
{
    struct dg_value p[3] = {dg_int(c_w), dg_int(c_d), dg_txt(last, (size_t)ln)};
    int ids[256], n = 0, rc;
    struct dg_stmt *s = w->st[S_CUST_BY_NAME];
    if (DRV(w)->execute(s, p, err))
        return -1;
    while ((rc = DRV(w)->next_row(s, err)) == 1) {
        if (n < 256)
            ids[n] = (int)DRV(w)->col_int(s, 0);
        n++;
    }
    if (rc < 0)
        return -1;
    if (n == 0)
        return dg_err_set(err, DG_ERR_FATAL, 0, "no customer named %s in warehouse %d district %d",
                          last, c_w, c_d);
    int pick = (n + 1) / 2 - 1;
    if (pick >= 256)
        return dg_err_set(err, DG_ERR_FATAL, 0, "%d customers named %s: more than dbgauge reads", n,
                          last);
    *c_id = ids[pick];
    return 0;
}

/* --- New-Order (clause 2.4) --- */

struct line {
    int i_id, supply_w, qty;
    int found;
    int64_t price_cents;
    int s_qty;
    char dist[25];
    int brand_original; /* I_DATA and S_DATA both hold "ORIGINAL" */
};

struct no_batch {
    struct tpcc_worker *w;
    struct line *lines;
};

static int on_item(void *ctx, int k, struct dg_stmt *s)
{
    struct no_batch *b = ctx;
    const struct dg_driver *drv = DRV(b->w);
    struct line *l = &b->lines[k];
    size_t n;
    l->found = 1;
    l->price_cents = money_cents(drv->col_double(s, 0));
    const char *data = drv->col_text(s, 2, &n);
    l->brand_original = memmem(data, n, "ORIGINAL", 8) != NULL;
    return 0;
}

static int on_stock(void *ctx, int k, struct dg_stmt *s)
{
    struct no_batch *b = ctx;
    const struct dg_driver *drv = DRV(b->w);
    struct line *l = &b->lines[k];
    size_t n;
    l->s_qty = (int)drv->col_int(s, 0);
    const char *data = drv->col_text(s, 1, &n);
    l->brand_original &= memmem(data, n, "ORIGINAL", 8) != NULL;
    const char *dist = drv->col_text(s, 2, &n);
    if (n > 24)
        n = 24;
    memcpy(l->dist, dist, n);
    l->dist[n] = '\0';
    return 0;
}

int tpcc_new_order_inputs(const struct tpcc_shared *sh, struct tpcc_term *t, struct tpcc_no_input *in)
{
    struct dg_rng *r = &t->rng;
    in->d_id = (int)dg_rng_range(r, 1, TPCC_DISTRICTS);
    in->c_id = tpcc_nurand(r, 1023, sh->c_run.c_id, 1, TPCC_CUSTOMERS);
    in->ol_cnt = (int)dg_rng_range(r, 5, 15);
    int rbk = (int)dg_rng_range(r, 1, 100);
    in->all_local = 1;
    for (int i = 0; i < in->ol_cnt; i++) {
        int id, dup;
        do { /* distinct items within one order */
            id = tpcc_nurand(r, 8191, sh->c_run.ol_i_id, 1, TPCC_ITEMS);
            dup = 0;
            for (int j = 0; j < i; j++)
                dup |= in->i_id[j] == id;
        } while (dup);
        in->i_id[i] = id;
        in->supply_w[i] = t->w_id;
        if (sh->warehouses > 1 && dg_rng_range(r, 1, 100) == 1) {
            int other = (int)dg_rng_range(r, 1, sh->warehouses - 1);
            in->supply_w[i] = other >= t->w_id ? other + 1 : other;
            in->all_local = 0;
        }
        in->qty[i] = (int)dg_rng_range(r, 1, 10);
    }
    in->rollback = rbk == 1;
    if (in->rollback)
        in->i_id[in->ol_cnt - 1] = TPCC_ITEMS + 1; /* an unused item number */
    return 0;
}

void tpcc_new_order_sort(struct tpcc_no_input *in)
{
    for (int i = 1; i < in->ol_cnt; i++) /* insertion sort: at most 15 lines */
        for (int j = i; j > 0 && in->i_id[j - 1] > in->i_id[j]; j--) {
            int a = in->i_id[j], b = in->supply_w[j], c = in->qty[j];
            in->i_id[j] = in->i_id[j - 1], in->supply_w[j] = in->supply_w[j - 1], in->qty[j] = in->qty[j - 1];
            in->i_id[j - 1] = a, in->supply_w[j - 1] = b, in->qty[j - 1] = c;
        }
}

void tpcc_payment_inputs(const struct tpcc_shared *sh, struct tpcc_term *t, struct tpcc_pay_input *in)
{
    struct dg_rng *r = &t->rng;
    in->d_id = (int)dg_rng_range(r, 1, TPCC_DISTRICTS);
    in->c_w = t->w_id, in->c_d = in->d_id;
    if (sh->warehouses > 1 && dg_rng_range(r, 1, 100) > 85) {
        in->c_d = (int)dg_rng_range(r, 1, TPCC_DISTRICTS);
        int other = (int)dg_rng_range(r, 1, sh->warehouses - 1);
        in->c_w = other >= t->w_id ? other + 1 : other;
    }
    int by_name = dg_rng_range(r, 1, 100) <= 60;
    in->c_id = by_name ? 0 : tpcc_nurand(r, 1023, sh->c_run.c_id, 1, TPCC_CUSTOMERS);
    in->amount_cents = dg_rng_range(r, 100, 500000); /* 1.00 .. 5,000.00 */
    in->c_last_len = by_name ? tpcc_last_name(tpcc_nurand(r, 255, sh->c_run.c_last, 0, 999), in->c_last) : 0;
}

void tpcc_order_status_inputs(const struct tpcc_shared *sh, struct tpcc_term *t, struct tpcc_os_input *in)
{
    struct dg_rng *r = &t->rng;
    in->d_id = (int)dg_rng_range(r, 1, TPCC_DISTRICTS);
    int by_name = dg_rng_range(r, 1, 100) <= 60;
    in->c_id = by_name ? 0 : tpcc_nurand(r, 1023, sh->c_run.c_id, 1, TPCC_CUSTOMERS);
    in->c_last_len = by_name ? tpcc_last_name(tpcc_nurand(r, 255, sh->c_run.c_last, 0, 999), in->c_last) : 0;
}

static int new_order(struct tpcc_worker *w, struct tpcc_term *t, struct dg_err *err)
{
    const struct dg_driver *drv = DRV(w);
    struct tpcc_no_input in;
    tpcc_new_order_inputs(w->sh, t, &in);
    /* Stock rows are locked in item order so that concurrent New-Orders cannot deadlock. */
    tpcc_new_order_sort(&in);
    struct line lines[15];
    for (int i = 0; i < in.ol_cnt; i++)
        lines[i] = (struct line){.i_id = in.i_id[i], .supply_w = in.supply_w[i], .qty = in.qty[i]};

    if (drv->begin(w->h->c, w->sh->isolation, 1, err))
        return -1;
    struct dg_value p[15 * 9];
    p[0] = dg_int(t->w_id);
    if (one_row(w, S_NO_WAREHOUSE, p, err))
        return -1;
    double w_tax = drv->col_double(w->st[S_NO_WAREHOUSE], 0);
    done_rows(w, S_NO_WAREHOUSE);

    p[0] = dg_int(t->w_id);
    p[1] = dg_int(in.d_id);
    if (one_row(w, S_NO_DISTRICT, p, err))
        return -1;
    double d_tax = drv->col_double(w->st[S_NO_DISTRICT], 0);
    int o_id = (int)drv->col_int(w->st[S_NO_DISTRICT], 1);
    done_rows(w, S_NO_DISTRICT);

    p[0] = dg_int(t->w_id);
    p[1] = dg_int(in.d_id);
    p[2] = dg_int(in.c_id);
    if (one_row(w, S_NO_CUSTOMER, p, err))
        return -1;
    double c_discount = drv->col_double(w->st[S_NO_CUSTOMER], 0);
    done_rows(w, S_NO_CUSTOMER);

    struct no_batch b = {w, lines};
    for (int i = 0; i < in.ol_cnt; i++)
        p[i] = dg_int(lines[i].i_id);
    if (dg_execute_batch(drv, w->st[S_NO_ITEM], 1, p, in.ol_cnt, on_item, &b, err))
        return -1;
    for (int i = 0; i < in.ol_cnt; i++)
        if (!lines[i].found) { /* clause 2.4.2.3: "Item number is not valid" */
            struct dg_err ignore;
            drv->rollback(w->h->c, &ignore);
            return dg_err_set(err, DG_ERR_EXPECTED, 0, "item number is not valid");
        }

    for (int i = 0; i < in.ol_cnt; i++) {
        p[2 * i] = dg_int(lines[i].i_id);
        p[2 * i + 1] = dg_int(lines[i].supply_w);
    }
    if (dg_execute_batch(drv, w->stock[in.d_id - 1], 2, p, in.ol_cnt, on_stock, &b, err))
        return -1;

    for (int i = 0; i < in.ol_cnt; i++) {
        struct line *l = &lines[i];
        int q = l->s_qty >= l->qty + 10 ? l->s_qty - l->qty : l->s_qty - l->qty + 91;
        struct dg_value *v = p + 5 * i;
        v[0] = dg_int(q);
        v[1] = dg_int(l->qty);
        v[2] = dg_int(l->supply_w != t->w_id);
        v[3] = dg_int(l->i_id);
        v[4] = dg_int(l->supply_w);
    }
    if (dg_execute_batch(drv, w->st[S_NO_STOCK_UPDATE], 5, p, in.ol_cnt, NULL, NULL, err))
        return -1;

    p[0] = dg_int(o_id);
    p[1] = dg_int(in.d_id);
    p[2] = dg_int(t->w_id);
    p[3] = dg_int(in.c_id);
    p[4] = dg_int(in.ol_cnt);
    p[5] = dg_int(in.all_local);
    if (exec_stmt(w, S_NO_ORDER, p, err))
        return -1;
    p[0] = dg_int(o_id);
    p[1] = dg_int(in.d_id);
    p[2] = dg_int(t->w_id);
    if (exec_stmt(w, S_NO_NEW_ORDER, p, err))
        return -1;

    int64_t total_cents = 0;
    for (int i = 0; i < in.ol_cnt; i++) {
        struct line *l = &lines[i];
        int64_t amount = l->price_cents * l->qty;
        total_cents += amount;
        struct dg_value *v = p + 9 * i;
        v[0] = dg_int(o_id);
        v[1] = dg_int(in.d_id);
        v[2] = dg_int(t->w_id);
        v[3] = dg_int(i + 1);
        v[4] = dg_int(l->i_id);
        v[5] = dg_int(l->supply_w);
        v[6] = dg_int(l->qty);
        v[7] = dg_dec(amount, 2);
        v[8] = dg_txt(l->dist, strlen(l->dist));
    }
    if (dg_execute_batch(drv, w->st[S_NO_LINE], 9, p, in.ol_cnt, NULL, NULL, err))
        return -1;
    /* The terminal's total (output only): sum * (1 - discount) * (1 + w_tax + d_tax). */
    t->last_total = (double)total_cents / 100.0 * (1 - c_discount) * (1 + w_tax + d_tax);
    return drv->commit(w->h->c, err);
}

/* --- Payment (clause 2.5) --- */

static int payment(struct tpcc_worker *w, struct tpcc_term *t, struct dg_err *err)
{
    const struct dg_driver *drv = DRV(w);
    struct tpcc_pay_input in;
    tpcc_payment_inputs(w->sh, t, &in);
    int d_id = in.d_id, c_w = in.c_w, c_d = in.c_d, c_id = in.c_id;
    int64_t amount = in.amount_cents;

    if (drv->begin(w->h->c, w->sh->isolation, 1, err))
        return -1;
    struct dg_value p[7];
    char w_name[11], d_name[11];
    size_t n;
    p[0] = dg_dec(amount, 2);
    p[1] = dg_int(t->w_id);
    if (one_row(w, S_PAY_WAREHOUSE, p, err))
        return -1;
    const char *s = drv->col_text(w->st[S_PAY_WAREHOUSE], 0, &n);
    snprintf(w_name, sizeof w_name, "%.*s", (int)n, s);
    done_rows(w, S_PAY_WAREHOUSE);

    p[0] = dg_dec(amount, 2);
    p[1] = dg_int(t->w_id);
    p[2] = dg_int(d_id);
    if (one_row(w, S_PAY_DISTRICT, p, err))
        return -1;
    s = drv->col_text(w->st[S_PAY_DISTRICT], 0, &n);
    snprintf(d_name, sizeof d_name, "%.*s", (int)n, s);
    done_rows(w, S_PAY_DISTRICT);

    if (in.c_last_len && customer_by_name(w, c_w, c_d, in.c_last, in.c_last_len, &c_id, err))
        return -1;
    p[0] = dg_int(c_w);
    p[1] = dg_int(c_d);
    p[2] = dg_int(c_id);
    if (one_row(w, S_PAY_CUSTOMER, p, err))
        return -1;
    const char *credit = drv->col_text(w->st[S_PAY_CUSTOMER], 10, &n);
    int bad_credit = n >= 2 && credit[0] == 'B' && credit[1] == 'C';
    done_rows(w, S_PAY_CUSTOMER);

    if (bad_credit) {
        /* Clause 2.5.2.2: the payment's ids and amount go in front of C_DATA, kept to 500. */
        char data[512];
        int k = snprintf(data, sizeof data, "%d %d %d %d %d %lld.%02lld|", c_id, c_d, c_w, d_id,
                         t->w_id, (long long)(amount / 100), (long long)(amount % 100));
        if (one_row(w, S_PAY_CDATA, p, err))
            return -1;
        const char *old = drv->col_text(w->st[S_PAY_CDATA], 0, &n);
        size_t room = 500 - (size_t)k;
        memcpy(data + k, old, n < room ? n : room);
        size_t total = (size_t)k + (n < room ? n : room);
        done_rows(w, S_PAY_CDATA);
        struct dg_value u[6] = {dg_dec(amount, 2), dg_dec(amount, 2), dg_txt(data, total),
                                dg_int(c_w), dg_int(c_d), dg_int(c_id)};
        if (exec_stmt(w, S_PAY_UPDATE_BC, u, err))
            return -1;
    } else {
        struct dg_value u[5] = {dg_dec(amount, 2), dg_dec(amount, 2), dg_int(c_w), dg_int(c_d),
                                dg_int(c_id)};
        if (exec_stmt(w, S_PAY_UPDATE, u, err))
            return -1;
    }

    char h_data[32];
    int hn = snprintf(h_data, sizeof h_data, "%s    %s", w_name, d_name);
    struct dg_value h[7] = {dg_int(c_id), dg_int(c_d), dg_int(c_w), dg_int(d_id), dg_int(t->w_id),
                            dg_dec(amount, 2), dg_txt(h_data, (size_t)(hn > 24 ? 24 : hn))};
    if (exec_stmt(w, S_PAY_HISTORY, h, err))
        return -1;
    return drv->commit(w->h->c, err);
}

/* --- Order-Status (clause 2.6) --- */

static int order_status(struct tpcc_worker *w, struct tpcc_term *t, struct dg_err *err)
{
    const struct dg_driver *drv = DRV(w);
    struct tpcc_os_input in;
    tpcc_order_status_inputs(w->sh, t, &in);
    int d_id = in.d_id, c_id = in.c_id;

    if (drv->begin(w->h->c, w->sh->isolation, 0, err))
        return -1;
    if (in.c_last_len && customer_by_name(w, t->w_id, d_id, in.c_last, in.c_last_len, &c_id, err))
        return -1;
    struct dg_value p[3] = {dg_int(t->w_id), dg_int(d_id), dg_int(c_id)};
    if (one_row(w, S_OS_CUSTOMER, p, err))
        return -1;
    done_rows(w, S_OS_CUSTOMER);
    if (one_row(w, S_OS_ORDER, p, err))
        return -1;
    int o_id = (int)drv->col_int(w->st[S_OS_ORDER], 0);
    done_rows(w, S_OS_ORDER);
    p[2] = dg_int(o_id);
    if (exec_stmt(w, S_OS_LINES, p, err))
        return -1;
    int rc, lines = 0;
    while ((rc = drv->next_row(w->st[S_OS_LINES], err)) == 1)
        lines++;
    if (rc < 0)
        return -1;
    t->last_count = lines;
    return drv->commit(w->h->c, err);
}

/* --- Delivery (clause 2.7), all ten districts in one database transaction --- */

static int delivery(struct tpcc_worker *w, struct tpcc_term *t, struct dg_err *err)
{
    const struct dg_driver *drv = DRV(w);
    int carrier = (int)dg_rng_range(&t->rng, 1, 10);
    if (drv->begin(w->h->c, w->sh->isolation, 1, err))
        return -1;
    int skipped = 0;
    for (int d = 1; d <= TPCC_DISTRICTS; d++) {
        struct dg_value p[4] = {dg_int(t->w_id), dg_int(d)};
        struct dg_stmt *s = w->st[S_DL_NEW_ORDER];
        if (drv->execute(s, p, err))
            return -1;
        int rc = drv->next_row(s, err);
        if (rc < 0)
            return -1;
        if (rc == 0) { /* clause 2.7.4.2: no new order in this district; skip it */
            skipped++;
            continue;
        }
        int o_id = (int)drv->col_int(s, 0);
        drv->reset(s);
        p[2] = dg_int(o_id);
        if (exec_stmt(w, S_DL_DELETE, p, err))
            return -1;
        if (drv->changes(w->st[S_DL_DELETE]) != 1) /* a concurrent Delivery took it first */
            return dg_err_set(err, DG_ERR_RETRY, 0, "new order %d of district %d was taken", o_id, d);
        struct dg_value u[4] = {dg_int(carrier), dg_int(t->w_id), dg_int(d), dg_int(o_id)};
        if (one_row(w, S_DL_ORDER, u, err))
            return -1;
        int c_id = (int)drv->col_int(w->st[S_DL_ORDER], 0);
        done_rows(w, S_DL_ORDER);
        if (exec_stmt(w, S_DL_LINES, p, err))
            return -1;
        if (one_row(w, S_DL_SUM, p, err))
            return -1;
        int64_t sum = money_cents(drv->col_double(w->st[S_DL_SUM], 0));
        done_rows(w, S_DL_SUM);
        struct dg_value c[4] = {dg_dec(sum, 2), dg_int(t->w_id), dg_int(d), dg_int(c_id)};
        if (exec_stmt(w, S_DL_CUSTOMER, c, err))
            return -1;
    }
    t->last_count = skipped;
    t->skipped_deliveries += (uint64_t)skipped;
    return drv->commit(w->h->c, err);
}

/* --- Stock-Level (clause 2.8) --- */

static int stock_level(struct tpcc_worker *w, struct tpcc_term *t, struct dg_err *err)
{
    const struct dg_driver *drv = DRV(w);
    int threshold = (int)dg_rng_range(&t->rng, 10, 20);
    if (drv->begin(w->h->c, w->sh->isolation, 0, err))
        return -1;
    struct dg_value p[6] = {dg_int(t->w_id), dg_int(t->sl_d_id)};
    if (one_row(w, S_SL_DISTRICT, p, err))
        return -1;
    int next_o = (int)drv->col_int(w->st[S_SL_DISTRICT], 0);
    done_rows(w, S_SL_DISTRICT);
    p[2] = dg_int(next_o);
    p[3] = dg_int(next_o - 20);
    p[4] = dg_int(t->w_id);
    p[5] = dg_int(threshold);
    if (one_row(w, S_SL_COUNT, p, err))
        return -1;
    t->last_count = (int)drv->col_int(w->st[S_SL_COUNT], 0);
    done_rows(w, S_SL_COUNT);
    return drv->commit(w->h->c, err);
}

int tpcc_sql_run(struct tpcc_worker *w, struct tpcc_term *t, int type, struct dg_err *err)
{
    switch (type) {
    case TPCC_NEW_ORDER: return new_order(w, t, err);
    case TPCC_PAYMENT: return payment(w, t, err);
    case TPCC_ORDER_STATUS: return order_status(w, t, err);
    case TPCC_DELIVERY: return delivery(w, t, err);
    case TPCC_STOCK_LEVEL: return stock_level(w, t, err);
    }
    return dg_err_set(err, DG_ERR_FATAL, 0, "unknown TPC-C transaction type %d", type);
}
