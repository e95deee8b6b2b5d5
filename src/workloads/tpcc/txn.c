/* txn.c — the five TPC-C transactions (clauses 2.4-2.8) as client-side SQL: inputs drawn
 * from the terminal's RNG, statements prepared once per connection, each step's independent
 * statements (and the COMMIT) sent as one call list: one round trip where the driver can.
 * No allocation per transaction; the procedures mode (procedures.c) draws the same inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/tpcc/tpcc_internal.h"
#include "workloads/tpcc/txn_sql.h"

struct tpcc_worker {
    struct dg_conn_h *h;
    const struct tpcc_shared *sh;
    struct dg_stmt *st[S_COUNT];
    struct dg_stmt *stock[TPCC_DISTRICTS]; /* S_DIST_xx differs per district */
    struct dg_stmt *ret[S_COUNT]; /* no UPDATE ... RETURNING: the SELECT run after the UPDATE */
};

int tpcc_sql_worker_open(const struct tpcc_shared *sh, struct dg_conn_h *h, struct tpcc_worker **out,
                         struct dg_err *err)
{
    struct tpcc_worker *w = calloc(1, sizeof *w);
    if (!w)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    w->h = h;
    w->sh = sh;
    char sql[1024];
    int returning = dg_dialect(dg_conn_dialect(h))->returning != DG_RETURNING_NONE;
    for (int i = 0; i < S_COUNT + TPCC_DISTRICTS; i++) {
        struct dg_stmt **st = i < S_COUNT ? &w->st[i] : &w->stock[i - S_COUNT];
        if (tpcc_txn_sql(dg_conn_dialect(h), i, sql, sizeof sql) < 0) {
            dg_err_set(err, DG_ERR_FATAL, 0, "TPC-C statement %d does not fit its dialect", i);
            goto fail;
        }
        char *r = returning ? NULL : strstr(sql, " RETURNING ");
        if (r)
            *r = '\0';
        if (dg_prepare(h, sql, i < S_COUNT ? tpcc_stmt_defs[i].nparams : 2, st, err))
            goto fail;
    }
    for (size_t i = 0; !returning && i < tpcc_nreturning; i++) {
        int id = tpcc_returning_sql[i].id;
        if (dg_prepare(h, tpcc_returning_sql[i].sql, tpcc_stmt_defs[id].nparams, &w->ret[id], err))
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
    for (int i = 0; i < S_COUNT; i++) {
        if (w->st[i])
            dg_finalize(w->h, w->st[i]);
        if (w->ret[i])
            dg_finalize(w->h, w->ret[i]);
    }
    for (int d = 0; d < TPCC_DISTRICTS; d++)
        if (w->stock[d])
            dg_finalize(w->h, w->stock[d]);
    free(w);
}

/* --- small helpers over the driver table --- */

static struct dg_call call(struct tpcc_worker *w, int id, const struct dg_value *p, int nsets,
                           dg_row_fn fn, void *ctx)
{
    return (struct dg_call){.stmt = w->st[id], .nparams = tpcc_stmt_defs[id].nparams, .params = p,
                            .nsets = nsets, .fn = fn, .ctx = ctx};
}

/* Appends the call of id to calls[*n], rows to fn; where the dialect has no RETURNING, the
 * UPDATE and then its SELECT (two calls, same parameters). */
static void add_call(struct tpcc_worker *w, struct dg_call *calls, int *n, int id,
                     const struct dg_value *p, int nsets, dg_row_fn fn, void *ctx)
{
    if (!w->ret[id]) {
        calls[(*n)++] = call(w, id, p, nsets, fn, ctx);
        return;
    }
    calls[(*n)++] = call(w, id, p, nsets, NULL, NULL);
    calls[*n] = call(w, id, p, nsets, fn, ctx);
    calls[(*n)++].stmt = w->ret[id];
}

/* One step of a transaction: calls in order, and with commit the COMMIT, in one go. */
static int run_calls(struct tpcc_worker *w, struct dg_call *calls, int n, int commit,
                     struct dg_err *err)
{
    return dg_execute_calls(w->h, calls, n, commit, err);
}

/* A statement that must return a row did not. */
static int no_row(int id, struct dg_err *err)
{
    return dg_err_set(err, DG_ERR_FATAL, 0, "no row for: %.120s", tpcc_stmt_defs[id].sql);
}

static int64_t money_cents(double v) { return llround(v * 100.0); }

/* The first column of a one-row result, as an integer. */
struct int_row {
    const struct dg_conn_h *h;
    int64_t v;
    int got;
};

static int on_int(void *ctx, int k, struct dg_stmt *s)
{
    struct int_row *r = ctx;
    (void)k;
    r->v = dg_col_int(r->h, s, 0);
    r->got = 1;
    return 0;
}

/* Clause 2.5.2.2: customers with this last name, ordered by C_FIRST; take the one at
 * position ceil(n/2). The ids are gathered by on_by_name, then picked by by_name_pick. */
struct by_name {
    const struct dg_conn_h *h;
    int ids[256], n;
};

static int on_by_name(void *ctx, int k, struct dg_stmt *s)
{
    struct by_name *b = ctx;
    (void)k;
    if (b->n < 256)
        b->ids[b->n] = (int)dg_col_int(b->h, s, 0);
    b->n++;
    return 0;
}

static int by_name_pick(const struct by_name *b, int c_w, int c_d, const char *last, int *c_id,
                        struct dg_err *err)
{
    if (b->n == 0)
        return dg_err_set(err, DG_ERR_FATAL, 0, "no customer named %s in warehouse %d district %d",
                          last, c_w, c_d);
    int pick = (b->n + 1) / 2 - 1;
    if (pick >= 256)
        return dg_err_set(err, DG_ERR_FATAL, 0, "%d customers named %s: more than dbgauge reads",
                          b->n, last);
    *c_id = b->ids[pick];
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

enum { GOT_W = 1, GOT_D = 2, GOT_C = 4 };

struct no_txn {
    const struct dg_conn_h *h;
    struct line *lines;
    double w_tax, d_tax, c_discount;
    int o_id;
    unsigned got; /* GOT_* */
};

static int on_no_warehouse(void *ctx, int k, struct dg_stmt *s)
{
    struct no_txn *x = ctx;
    (void)k;
    x->w_tax = dg_col_double(x->h, s, 0);
    x->got |= GOT_W;
    return 0;
}

static int on_no_district(void *ctx, int k, struct dg_stmt *s)
{
    struct no_txn *x = ctx;
    (void)k;
    x->d_tax = dg_col_double(x->h, s, 0);
    x->o_id = (int)dg_col_int(x->h, s, 1);
    x->got |= GOT_D;
    return 0;
}

static int on_no_customer(void *ctx, int k, struct dg_stmt *s)
{
    struct no_txn *x = ctx;
    (void)k;
    x->c_discount = dg_col_double(x->h, s, 0);
    x->got |= GOT_C;
    return 0;
}

static int on_item(void *ctx, int k, struct dg_stmt *s)
{
    struct no_txn *x = ctx;
    struct line *l = &x->lines[k];
    size_t n;
    l->found = 1;
    l->price_cents = money_cents(dg_col_double(x->h, s, 0));
    const char *data = dg_col_text(x->h, s, 2, &n);
    l->brand_original = memmem(data, n, "ORIGINAL", 8) != NULL;
    return 0;
}

static int on_stock(void *ctx, int k, struct dg_stmt *s)
{
    struct no_txn *x = ctx;
    struct line *l = &x->lines[k];
    size_t n;
    l->s_qty = (int)dg_col_int(x->h, s, 0);
    const char *data = dg_col_text(x->h, s, 1, &n);
    l->brand_original &= memmem(data, n, "ORIGINAL", 8) != NULL;
    const char *dist = dg_col_text(x->h, s, 2, &n);
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

/* Two steps: (1) everything the inputs name: warehouse, district (next order id), customer,
 * the items and their stock rows, locked in item order; (2) the writes and the COMMIT. */
void tpcc_ack_new_order(struct tpcc_ack *ack, int w_id, int d_id, int o_id, int ol_cnt, int c_id)
{
    ack->has = 1;
    ack->a = (struct dg_ack){.kind = DG_ACK_TPCC_NEW_ORDER, .k = {(uint32_t)w_id, (uint32_t)d_id, (uint32_t)o_id},
                             .count = (uint16_t)ol_cnt, .amount = c_id};
}

void tpcc_ack_payment(struct tpcc_ack *ack, int w_id, int d_id, int c_id, int64_t amount_cents)
{
    ack->has = 1;
    ack->a = (struct dg_ack){.kind = DG_ACK_TPCC_PAYMENT, .k = {(uint32_t)w_id, (uint32_t)d_id, (uint32_t)c_id},
                             .amount = amount_cents};
}

static int new_order(struct tpcc_worker *w, struct tpcc_term *t, struct tpcc_ack *ack, struct dg_err *err)
{
    struct tpcc_no_input in;
    tpcc_new_order_inputs(w->sh, t, &in);
    /* Stock rows are locked in item order so that concurrent New-Orders cannot deadlock. */
    tpcc_new_order_sort(&in);
    struct line lines[15];
    for (int i = 0; i < in.ol_cnt; i++)
        lines[i] = (struct line){.i_id = in.i_id[i], .supply_w = in.supply_w[i], .qty = in.qty[i]};

    if (dg_begin(w->h, w->sh->isolation, 1, err))
        return -1;
    struct no_txn x = {.h = w->h, .lines = lines};
    struct dg_value pw[1] = {dg_int(t->w_id)};
    struct dg_value pd[2] = {dg_int(t->w_id), dg_int(in.d_id)};
    struct dg_value pc[3] = {dg_int(t->w_id), dg_int(in.d_id), dg_int(in.c_id)};
    struct dg_value pi[15], ps[15 * 2];
    for (int i = 0; i < in.ol_cnt; i++) {
        pi[i] = dg_int(lines[i].i_id);
        ps[2 * i] = dg_int(lines[i].i_id);
        ps[2 * i + 1] = dg_int(lines[i].supply_w);
    }
    struct dg_call reads[6] = {call(w, S_NO_WAREHOUSE, pw, 1, on_no_warehouse, &x)};
    int nr = 1;
    add_call(w, reads, &nr, S_NO_DISTRICT, pd, 1, on_no_district, &x);
    reads[nr++] = call(w, S_NO_CUSTOMER, pc, 1, on_no_customer, &x);
    reads[nr++] = call(w, S_NO_ITEM, pi, in.ol_cnt, on_item, &x);
    reads[nr++] = (struct dg_call){.stmt = w->stock[in.d_id - 1], .nparams = 2, .params = ps,
                                   .nsets = in.ol_cnt, .fn = on_stock, .ctx = &x};
    if (run_calls(w, reads, nr, 0, err))
        return -1;
    if (!(x.got & GOT_W))
        return no_row(S_NO_WAREHOUSE, err);
    if (!(x.got & GOT_D))
        return no_row(S_NO_DISTRICT, err);
    if (!(x.got & GOT_C))
        return no_row(S_NO_CUSTOMER, err);
    for (int i = 0; i < in.ol_cnt; i++)
        if (!lines[i].found) { /* clause 2.4.2.3: "Item number is not valid" */
            struct dg_err ignore;
            dg_rollback(w->h, &ignore);
            return dg_err_set(err, DG_ERR_EXPECTED, 0, "item number is not valid");
        }

    struct dg_value pu[15 * 5], pl[15 * 9];
    int64_t total_cents = 0;
    for (int i = 0; i < in.ol_cnt; i++) {
        struct line *l = &lines[i];
        int q = l->s_qty >= l->qty + 10 ? l->s_qty - l->qty : l->s_qty - l->qty + 91;
        struct dg_value *v = pu + 5 * i;
        v[0] = dg_int(q);
        v[1] = dg_int(l->qty);
        v[2] = dg_int(l->supply_w != t->w_id);
        v[3] = dg_int(l->i_id);
        v[4] = dg_int(l->supply_w);
        int64_t amount = l->price_cents * l->qty;
        total_cents += amount;
        v = pl + 9 * i;
        v[0] = dg_int(x.o_id);
        v[1] = dg_int(in.d_id);
        v[2] = dg_int(t->w_id);
        v[3] = dg_int(i + 1);
        v[4] = dg_int(l->i_id);
        v[5] = dg_int(l->supply_w);
        v[6] = dg_int(l->qty);
        v[7] = dg_dec(amount, 2);
        v[8] = dg_txt(l->dist, strlen(l->dist));
    }
    struct dg_value po[6] = {dg_int(x.o_id), dg_int(in.d_id),     dg_int(t->w_id),
                             dg_int(in.c_id), dg_int(in.ol_cnt), dg_int(in.all_local)};
    struct dg_value pn[3] = {dg_int(x.o_id), dg_int(in.d_id), dg_int(t->w_id)};
    struct dg_call writes[4] = {
        call(w, S_NO_STOCK_UPDATE, pu, in.ol_cnt, NULL, NULL),
        call(w, S_NO_ORDER, po, 1, NULL, NULL),
        call(w, S_NO_NEW_ORDER, pn, 1, NULL, NULL),
        call(w, S_NO_LINE, pl, in.ol_cnt, NULL, NULL),
    };
    /* The terminal's total (output only): sum * (1 - discount) * (1 + w_tax + d_tax). */
    t->last_total = (double)total_cents / 100.0 * (1 - x.c_discount) * (1 + x.w_tax + x.d_tax);
    tpcc_ack_new_order(ack, t->w_id, in.d_id, x.o_id, in.ol_cnt, in.c_id); /* before the COMMIT leaves */
    return run_calls(w, writes, 4, 1, err);
}

/* --- Payment (clause 2.5) --- */

struct pay_txn {
    const struct dg_conn_h *h;
    char w_name[11], d_name[11];
    unsigned got; /* GOT_* */
    int bad_credit;
    char data[512]; /* the new C_DATA of a bad-credit customer */
    size_t data_len;
    struct by_name names;
};

static void copy_name(char out[11], const struct dg_conn_h *h, struct dg_stmt *s)
{
    size_t n;
    const char *p = dg_col_text(h, s, 0, &n);
    snprintf(out, 11, "%.*s", (int)n, p ? p : "");
}

static int on_pay_warehouse(void *ctx, int k, struct dg_stmt *s)
{
    struct pay_txn *x = ctx;
    (void)k;
    copy_name(x->w_name, x->h, s);
    x->got |= GOT_W;
    return 0;
}

static int on_pay_district(void *ctx, int k, struct dg_stmt *s)
{
    struct pay_txn *x = ctx;
    (void)k;
    copy_name(x->d_name, x->h, s);
    x->got |= GOT_D;
    return 0;
}

/* The customer row (locked); its C_DATA comes only when C_CREDIT is BC, and then goes behind
 * the payment's ids and amount already in x->data (clause 2.5.2.2), kept to 500 characters. */
static int on_pay_customer(void *ctx, int k, struct dg_stmt *s)
{
    struct pay_txn *x = ctx;
    (void)k;
    size_t n;
    const char *credit = dg_col_text(x->h, s, 10, &n);
    x->bad_credit = n >= 2 && credit[0] == 'B' && credit[1] == 'C';
    x->got |= GOT_C;
    if (x->bad_credit) {
        const char *old = dg_col_text(x->h, s, 14, &n);
        size_t room = 500 - x->data_len;
        if (n > room)
            n = room;
        if (n)
            memcpy(x->data + x->data_len, old, n);
        x->data_len += n;
    }
    return 0;
}

/* Steps: (1) warehouse and district updates, and the customer by id or the ids by name;
 * (2) by name only: the customer; (3) customer update, history row and COMMIT. */
static int payment(struct tpcc_worker *w, struct tpcc_term *t, struct tpcc_ack *ack, struct dg_err *err)
{
    struct tpcc_pay_input in;
    tpcc_payment_inputs(w->sh, t, &in);
    int d_id = in.d_id, c_w = in.c_w, c_d = in.c_d, c_id = in.c_id;
    int64_t amount = in.amount_cents;

    if (dg_begin(w->h, w->sh->isolation, 1, err))
        return -1;
    struct pay_txn x = {.h = w->h, .names = {.h = w->h}};
    struct dg_value pw[2] = {dg_dec(amount, 2), dg_int(t->w_id)};
    struct dg_value pd[3] = {dg_dec(amount, 2), dg_int(t->w_id), dg_int(d_id)};
    struct dg_value pn[3] = {dg_int(c_w), dg_int(c_d), dg_txt(in.c_last, (size_t)in.c_last_len)};
    struct dg_value pc[3] = {dg_int(c_w), dg_int(c_d), dg_int(c_id)};
    struct dg_call calls[5];
    int nc = 0;
    add_call(w, calls, &nc, S_PAY_WAREHOUSE, pw, 1, on_pay_warehouse, &x);
    add_call(w, calls, &nc, S_PAY_DISTRICT, pd, 1, on_pay_district, &x);
    calls[nc++] = in.c_last_len ? call(w, S_CUST_BY_NAME, pn, 1, on_by_name, &x.names)
                                : call(w, S_PAY_CUSTOMER, pc, 1, on_pay_customer, &x);
    if (!in.c_last_len)
        x.data_len = (size_t)snprintf(x.data, sizeof x.data, "%d %d %d %d %d %lld.%02lld|", c_id,
                                      c_d, c_w, d_id, t->w_id, (long long)(amount / 100),
                                      (long long)(amount % 100));
    if (run_calls(w, calls, nc, 0, err))
        return -1;
    if (!(x.got & GOT_W))
        return no_row(S_PAY_WAREHOUSE, err);
    if (!(x.got & GOT_D))
        return no_row(S_PAY_DISTRICT, err);
    if (in.c_last_len) {
        if (by_name_pick(&x.names, c_w, c_d, in.c_last, &c_id, err))
            return -1;
        pc[2] = dg_int(c_id);
        x.data_len = (size_t)snprintf(x.data, sizeof x.data, "%d %d %d %d %d %lld.%02lld|", c_id,
                                      c_d, c_w, d_id, t->w_id, (long long)(amount / 100),
                                      (long long)(amount % 100));
        calls[0] = call(w, S_PAY_CUSTOMER, pc, 1, on_pay_customer, &x);
        if (run_calls(w, calls, 1, 0, err))
            return -1;
    }
    if (!(x.got & GOT_C))
        return no_row(S_PAY_CUSTOMER, err);

    struct dg_value u[6] = {dg_dec(amount, 2), dg_dec(amount, 2)};
    int nu = 2;
    if (x.bad_credit)
        u[nu++] = dg_txt(x.data, x.data_len);
    u[nu++] = dg_int(c_w);
    u[nu++] = dg_int(c_d);
    u[nu++] = dg_int(c_id);
    char h_data[32];
    int hn = snprintf(h_data, sizeof h_data, "%s    %s", x.w_name, x.d_name);
    struct dg_value h[7] = {dg_int(c_id), dg_int(c_d), dg_int(c_w), dg_int(d_id), dg_int(t->w_id),
                            dg_dec(amount, 2), dg_txt(h_data, (size_t)(hn > 24 ? 24 : hn))};
    struct dg_call writes[2] = {
        call(w, x.bad_credit ? S_PAY_UPDATE_BC : S_PAY_UPDATE, u, 1, NULL, NULL),
        call(w, S_PAY_HISTORY, h, 1, NULL, NULL),
    };
    tpcc_ack_payment(ack, t->w_id, d_id, c_id, amount); /* the history row's h_w_id and h_amount */
    return run_calls(w, writes, 2, 1, err);
}

/* --- Order-Status (clause 2.6) --- */

static int on_os_customer(void *ctx, int k, struct dg_stmt *s)
{
    (void)k;
    (void)s;
    *(int *)ctx = 1;
    return 0;
}

static int on_count(void *ctx, int k, struct dg_stmt *s)
{
    (void)k;
    (void)s;
    ++*(int *)ctx;
    return 0;
}

/* Steps: (1) by name only: the ids; (2) customer and last order; (3) its lines and COMMIT. */
static int order_status(struct tpcc_worker *w, struct tpcc_term *t, struct dg_err *err)
{
    struct tpcc_os_input in;
    tpcc_order_status_inputs(w->sh, t, &in);
    int d_id = in.d_id, c_id = in.c_id;

    if (dg_begin(w->h, w->sh->isolation, 0, err))
        return -1;
    struct dg_call calls[2];
    if (in.c_last_len) {
        struct by_name names = {.h = w->h};
        struct dg_value pn[3] = {dg_int(t->w_id), dg_int(d_id),
                                 dg_txt(in.c_last, (size_t)in.c_last_len)};
        calls[0] = call(w, S_CUST_BY_NAME, pn, 1, on_by_name, &names);
        if (run_calls(w, calls, 1, 0, err) ||
            by_name_pick(&names, t->w_id, d_id, in.c_last, &c_id, err))
            return -1;
    }
    int got_customer = 0;
    struct int_row order = {.h = w->h};
    struct dg_value p[3] = {dg_int(t->w_id), dg_int(d_id), dg_int(c_id)};
    calls[0] = call(w, S_OS_CUSTOMER, p, 1, on_os_customer, &got_customer);
    calls[1] = call(w, S_OS_ORDER, p, 1, on_int, &order);
    if (run_calls(w, calls, 2, 0, err))
        return -1;
    if (!got_customer)
        return no_row(S_OS_CUSTOMER, err);
    if (!order.got)
        return no_row(S_OS_ORDER, err);
    struct dg_value pl[3] = {dg_int(t->w_id), dg_int(d_id), dg_int(order.v)};
    int lines = 0;
    calls[0] = call(w, S_OS_LINES, pl, 1, on_count, &lines);
    if (run_calls(w, calls, 1, 1, err))
        return -1;
    t->last_count = lines;
    return 0;
}

/* --- Delivery (clause 2.7), all ten districts in one database transaction --- */

struct dl_txn {
    const struct dg_conn_h *h;
    int o_id[TPCC_DISTRICTS]; /* by district - 1; 0: no new order */
    int c_id[TPCC_DISTRICTS]; /* by delivered district's index */
    int64_t sum_cents[TPCC_DISTRICTS];
    int got_orders, got_sums;
};

static int on_dl_new_order(void *ctx, int k, struct dg_stmt *s)
{
    struct dl_txn *x = ctx;
    x->o_id[k] = (int)dg_col_int(x->h, s, 0);
    return 0;
}

static int on_dl_order(void *ctx, int k, struct dg_stmt *s)
{
    struct dl_txn *x = ctx;
    x->c_id[k] = (int)dg_col_int(x->h, s, 0);
    x->got_orders++;
    return 0;
}

static int on_dl_sum(void *ctx, int k, struct dg_stmt *s)
{
    struct dl_txn *x = ctx;
    x->sum_cents[k] = money_cents(dg_col_double(x->h, s, 0));
    x->got_sums++;
    return 0;
}

/* Steps: (1) the oldest new order of each district, locked; (2) for the districts that have
 * one: delete it, set the carrier (reading the customer), date the lines, sum them;
 * (3) credit the customers and COMMIT. */
static int delivery(struct tpcc_worker *w, struct tpcc_term *t, struct dg_err *err)
{
    int carrier = (int)dg_rng_range(&t->rng, 1, 10);
    if (dg_begin(w->h, w->sh->isolation, 1, err))
        return -1;
    struct dl_txn x = {.h = w->h};
    struct dg_value pn[TPCC_DISTRICTS * 2];
    for (int d = 0; d < TPCC_DISTRICTS; d++) {
        pn[2 * d] = dg_int(t->w_id);
        pn[2 * d + 1] = dg_int(d + 1);
    }
    struct dg_call calls[5] = {call(w, S_DL_NEW_ORDER, pn, TPCC_DISTRICTS, on_dl_new_order, &x)};
    if (run_calls(w, calls, 1, 0, err))
        return -1;

    /* Clause 2.7.4.2: a district without a new order is skipped. */
    struct dg_value pk[TPCC_DISTRICTS * 3], po[TPCC_DISTRICTS * 4], pc[TPCC_DISTRICTS * 4];
    int dist[TPCC_DISTRICTS], m = 0;
    for (int d = 1; d <= TPCC_DISTRICTS; d++) {
        int o_id = x.o_id[d - 1];
        if (!o_id)
            continue;
        dist[m] = d;
        struct dg_value *v = pk + 3 * m;
        v[0] = dg_int(t->w_id), v[1] = dg_int(d), v[2] = dg_int(o_id);
        v = po + 4 * m;
        v[0] = dg_int(carrier), v[1] = dg_int(t->w_id), v[2] = dg_int(d), v[3] = dg_int(o_id);
        m++;
    }
    int skipped = TPCC_DISTRICTS - m;
    if (m) {
        int nc = 0;
        calls[nc++] = call(w, S_DL_DELETE, pk, m, NULL, NULL);
        add_call(w, calls, &nc, S_DL_ORDER, po, m, on_dl_order, &x);
        calls[nc++] = call(w, S_DL_LINES, pk, m, NULL, NULL);
        calls[nc++] = call(w, S_DL_SUM, pk, m, on_dl_sum, &x);
        if (run_calls(w, calls, nc, 0, err))
            return -1;
        if (calls[0].changes != m) /* a concurrent Delivery took one first */
            return dg_err_set(err, DG_ERR_RETRY, 0, "%d of %d new orders were taken",
                              m - (int)calls[0].changes, m);
        if (x.got_orders != m)
            return no_row(S_DL_ORDER, err);
        if (x.got_sums != m)
            return no_row(S_DL_SUM, err);
        for (int j = 0; j < m; j++) {
            struct dg_value *v = pc + 4 * j;
            v[0] = dg_dec(x.sum_cents[j], 2), v[1] = dg_int(t->w_id), v[2] = dg_int(dist[j]);
            v[3] = dg_int(x.c_id[j]);
        }
        calls[0] = call(w, S_DL_CUSTOMER, pc, m, NULL, NULL);
    }
    t->last_count = skipped;
    t->skipped_deliveries += (uint64_t)skipped;
    return run_calls(w, calls, m ? 1 : 0, 1, err);
}

/* --- Stock-Level (clause 2.8) --- */

/* Steps: (1) the district's next order id; (2) the count and COMMIT. */
static int stock_level(struct tpcc_worker *w, struct tpcc_term *t, struct dg_err *err)
{
    int threshold = (int)dg_rng_range(&t->rng, 10, 20);
    if (dg_begin(w->h, w->sh->isolation, 0, err))
        return -1;
    struct int_row next = {.h = w->h}, count = {.h = w->h};
    struct dg_value p[6] = {dg_int(t->w_id), dg_int(t->sl_d_id)};
    struct dg_call c = call(w, S_SL_DISTRICT, p, 1, on_int, &next);
    if (run_calls(w, &c, 1, 0, err))
        return -1;
    if (!next.got)
        return no_row(S_SL_DISTRICT, err);
    p[2] = dg_int(next.v);
    p[3] = dg_int(next.v - 20);
    p[4] = dg_int(t->w_id);
    p[5] = dg_int(threshold);
    c = call(w, S_SL_COUNT, p, 1, on_int, &count);
    if (run_calls(w, &c, 1, 1, err))
        return -1;
    if (!count.got)
        return no_row(S_SL_COUNT, err);
    t->last_count = (int)count.v;
    return 0;
}

int tpcc_sql_run(struct tpcc_worker *w, struct tpcc_term *t, int type, struct tpcc_ack *ack, struct dg_err *err)
{
    switch (type) {
    case TPCC_NEW_ORDER: return new_order(w, t, ack, err);
    case TPCC_PAYMENT: return payment(w, t, ack, err);
    case TPCC_ORDER_STATUS: return order_status(w, t, err);
    case TPCC_DELIVERY: return delivery(w, t, err);
    case TPCC_STOCK_LEVEL: return stock_level(w, t, err);
    }
    return dg_err_set(err, DG_ERR_FATAL, 0, "unknown TPC-C transaction type %d", type);
}
