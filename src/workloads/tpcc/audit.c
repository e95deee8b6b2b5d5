/* audit.c — TPC-C's durability audit (clause 3.5): the New-Orders and Payments a run had
 * acknowledged, looked for in the database after it (after a crash and its recovery, on a
 * promoted replica). New-Orders are read per district with two range queries (orders, lines
 * per order), never one query per order; Payments by one history sum per warehouse. No store,
 * no printing: audit_cli.c reads the run and says what was found. */
#include <stdlib.h>
#include <string.h>

#include "workloads/tpcc/tpcc.h"

/* Each amount rounded to cents before the sum, so SQLite's REAL adds integers exactly too. */
static const char history_sql[] = "SELECT h_w_id, SUM(ROUND(h_amount * 100, 0)) FROM history GROUP BY h_w_id";
static const char orders_sql[] =
    "SELECT o_id, o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id BETWEEN ? AND ? ORDER BY o_id";
static const char lines_sql[] = "SELECT ol_o_id, COUNT(*) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND "
                                "ol_o_id BETWEEN ? AND ? GROUP BY ol_o_id ORDER BY ol_o_id";

int tpcc_history_sums(struct dg_conn_h *h, int64_t *cents, int nw, struct dg_err *err)
{
    struct dg_stmt *s = NULL;
    memset(cents, 0, (size_t)nw * sizeof *cents);
    if (dg_prepare(h, history_sql, 0, &s, err))
        return -1;
    int rc = dg_execute(h, s, NULL, err), r = 0;
    while (rc == 0 && (r = dg_next_row(h, s, err)) == 1) {
        int64_t w = dg_col_int(h, s, 0);
        if (w >= 1 && w <= nw && !dg_col_is_null(h, s, 1))
            cents[w - 1] = (int64_t)dg_col_double(h, s, 1); /* integral, well inside 2^53 */
    }
    dg_finalize(h, s);
    return rc || r < 0 ? -1 : 0;
}

static int key_cmp(const void *pa, const void *pb)
{
    const struct dg_ack *a = pa, *b = pb;
    for (int i = 0; i < 3; i++)
        if (a->k[i] != b->k[i])
            return a->k[i] < b->k[i] ? -1 : 1;
    return a->t_ms < b->t_ms ? -1 : a->t_ms > b->t_ms; /* one key acked twice: in time order */
}

/* Where a district's keys are: keys[0..n) sorted, their o_id between lo and hi. */
struct district {
    const struct dg_ack *keys;
    int *lines; /* per key: -1 no order, else its order lines found */
    size_t n;
    int64_t lo, hi;
};

/* The position of o_id in d's keys from *at on (keys sorted), or -1; advances *at. */
static long find_from(const struct district *d, size_t *at, int64_t o_id)
{
    while (*at < d->n && (int64_t)d->keys[*at].k[2] < o_id)
        (*at)++;
    return *at < d->n && (int64_t)d->keys[*at].k[2] == o_id ? (long)*at : -1;
}

/* Runs one range query of d (stmt s) and, per row, for every ack of that o_id: with the
 * orders query, marks it present (lines 0) when the order is its customer's (an o_id can be
 * acked twice: an in-doubt order that never committed, or one lost in a crash, and the order
 * that took the id after it); with the lines query, sets the line count of those present. */
static int read_range(struct dg_conn_h *h, struct dg_stmt *s, struct district *d, int with_count, struct dg_err *err)
{
    struct dg_value p[4] = {dg_int(d->keys[0].k[0]), dg_int(d->keys[0].k[1]), dg_int(d->lo), dg_int(d->hi)};
    if (dg_execute(h, s, p, err))
        return -1;
    size_t at = 0;
    int r;
    while ((r = dg_next_row(h, s, err)) == 1) {
        int64_t o_id = dg_col_int(h, s, 0), v = dg_col_int(h, s, 1);
        for (long i = find_from(d, &at, o_id); i >= 0 && (size_t)i < d->n && (int64_t)d->keys[i].k[2] == o_id; i++) {
            const struct dg_ack *a = &d->keys[i];
            if (with_count && d->lines[i] >= 0)
                d->lines[i] = (int)v;
            else if (!with_count && (a->amount == 0 || a->amount == v)) /* amount 0: customer not kept */
                d->lines[i] = 0;
        }
    }
    return r < 0 ? -1 : 0;
}

/* Adds one key's verdict to res. */
static void judge(struct tpcc_audit *res, int target, const struct dg_ack *a, int lines)
{
    int whole = lines == (int)a->count;
    if (a->in_doubt) {
        /* There whole, or not: either is a possible outcome. An order there with another count
         * of lines is not this one torn (a commit is whole) but a later order that took the id
         * this one never committed (after a crash that lost commits: synchronous_commit=off),
         * the customer the same by chance or not kept: this one is not there. */
        res->in_doubt++;
        res->in_doubt_found += whole;
        return;
    } else {
        res->acknowledged++;
        res->found += whole;
        if (whole)
            return;
    }
    res->lost++;
    if (res->lost == 1 || a->t_ms < res->lost_first_ms)
        res->lost_first_ms = a->t_ms;
    if (res->lost == 1 || a->t_ms > res->lost_last_ms)
        res->lost_last_ms = a->t_ms;
    if (res->nkeys < TPCC_AUDIT_KEYS)
        res->keys[res->nkeys++] = (struct tpcc_audit_lost){
            .target = target, .w = a->k[0], .d = a->k[1], .o_id = a->k[2], .lines_acked = a->count,
            .lines_found = lines, .t_ms = a->t_ms, .in_doubt = a->in_doubt};
}

/* The New-Orders of keys[0..n) (sorted by w, d, o_id), district by district. */
static int check_orders(struct dg_conn_h *h, int target, const struct dg_ack *keys, size_t n, struct tpcc_audit *res,
                        struct dg_err *err)
{
    struct dg_stmt *so = NULL, *sl = NULL;
    int *lines = malloc((n ? n : 1) * sizeof *lines); /* owned here: one per key */
    int rc = -1;
    if (!lines) {
        dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        goto out;
    }
    if (dg_prepare(h, orders_sql, 4, &so, err) || dg_prepare(h, lines_sql, 4, &sl, err))
        goto out;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && keys[j].k[0] == keys[i].k[0] && keys[j].k[1] == keys[i].k[1]; j++)
            lines[j] = -1;
        struct district d = {keys + i, lines + i, j - i, keys[i].k[2], keys[j - 1].k[2]};
        if (read_range(h, so, &d, 0, err) || read_range(h, sl, &d, 1, err))
            goto out;
        for (size_t k = i; k < j; k++)
            judge(res, target, &keys[k], lines[k]);
    }
    rc = 0;
out:
    dg_finalize(h, so);
    dg_finalize(h, sl);
    free(lines);
    return rc;
}

/* The warehouse record of (target, w) in res, made when absent; NULL out of memory. */
static struct tpcc_audit_wh *wh_of(struct tpcc_audit *res, int target, uint32_t w)
{
    for (int i = 0; i < res->nwh; i++)
        if (res->wh[i].target == target && res->wh[i].w == w)
            return &res->wh[i];
    struct tpcc_audit_wh *grown = realloc(res->wh, (size_t)(res->nwh + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    res->wh = grown;
    res->wh[res->nwh] = (struct tpcc_audit_wh){.target = target, .w = w};
    return &res->wh[res->nwh++];
}

/* Payments and baselines of target into res's warehouses, then each one's history now. */
static int check_payments(struct dg_conn_h *h, int target, const struct dg_ack *acks, size_t n,
                          struct tpcc_audit *res, struct dg_err *err)
{
    int first = res->nwh, nw = 0;
    for (size_t i = 0; i < n; i++) {
        const struct dg_ack *a = &acks[i];
        if (a->target != target || (a->kind != DG_ACK_TPCC_PAYMENT && a->kind != DG_ACK_TPCC_BASELINE))
            continue;
        struct tpcc_audit_wh *w = wh_of(res, target, a->k[0]);
        if (!w)
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        if (a->kind == DG_ACK_TPCC_BASELINE) {
            w->has_baseline = 1;
            w->baseline = a->amount;
        } else {
            *(a->in_doubt ? &w->in_doubt : &w->acked) += a->amount;
            *(a->in_doubt ? &res->payments_in_doubt : &res->payments) += 1;
        }
        if ((int)a->k[0] > nw)
            nw = (int)a->k[0];
    }
    if (nw == 0)
        return 0;
    int64_t *cents = calloc((size_t)nw, sizeof *cents); /* owned here */
    if (!cents)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    int rc = tpcc_history_sums(h, cents, nw, err);
    for (int i = first; rc == 0 && i < res->nwh; i++)
        res->wh[i].now = res->wh[i].w >= 1 ? cents[res->wh[i].w - 1] : 0;
    free(cents);
    return rc;
}

int tpcc_audit_check(struct dg_conn_h *h, int target, const struct dg_ack *acks, size_t n,
                     struct tpcc_audit *res, struct dg_err *err)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += acks[i].target == target && acks[i].kind == DG_ACK_TPCC_NEW_ORDER;
    struct dg_ack *keys = malloc((m ? m : 1) * sizeof *keys); /* owned here: the sorted copy */
    if (!keys)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    m = 0;
    for (size_t i = 0; i < n; i++) {
        const struct dg_ack *a = &acks[i];
        if (a->target != target || a->kind != DG_ACK_TPCC_NEW_ORDER)
            continue;
        if (a->k[2] == 0) /* in doubt in procedures mode: the server's id never came back */
            res->in_doubt_no_key++;
        else
            keys[m++] = *a;
    }
    qsort(keys, m, sizeof *keys, key_cmp);
    int rc = check_orders(h, target, keys, m, res, err);
    free(keys);
    return rc ? rc : check_payments(h, target, acks, n, res, err);
}

int tpcc_audit_wh_verdict(const struct tpcc_audit_wh *w)
{
    if (!w->has_baseline)
        return 2;
    int64_t found = w->now - w->baseline;
    if (found < w->acked)
        return -1;
    return found > w->acked + w->in_doubt ? 1 : 0;
}

int tpcc_audit_failed(const struct tpcc_audit *res)
{
    if (res->lost)
        return 1;
    for (int i = 0; i < res->nwh; i++)
        if (tpcc_audit_wh_verdict(&res->wh[i]) < 0)
            return 1;
    return 0;
}

void tpcc_audit_free(struct tpcc_audit *res)
{
    free(res->wh);
    res->wh = NULL;
    res->nwh = 0;
}
