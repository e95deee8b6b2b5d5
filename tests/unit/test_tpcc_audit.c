/* test_tpcc_audit.c — the TPC-C durability audit's check (workloads/tpcc/audit.c) and the
 * acknowledged writes tpcc hands the runner (take_ack), on a loaded database: `test_tpcc_audit
 * [URL]` (a scratch SQLite file without one) loads one warehouse, runs New-Orders and Payments
 * through the workload and audits what take_ack gave; then hand-made acks against orders
 * deleted, torn and missing behind dbgauge's back. Driver API only: no engine header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/driver.h"
#include "workloads/tpcc/tpcc.h"
#include "check.h"

static struct dg_test T;

static int64_t q_int(struct dg_conn_h *h, const char *sql)
{
    int64_t v = -1;
    struct dg_err err = {0};
    if (dg_query_int(h, sql, &v, &err))
        printf("# query failed: %s: %s\n", sql, err.msg);
    return v;
}

static int x(struct dg_conn_h *h, const char *sql)
{
    struct dg_err err = {0};
    int rc = dg_exec(h, sql, &err);
    if (rc)
        printf("# exec failed: %s: %s\n", sql, err.msg);
    return rc;
}

/* Audits acks[0..n) (target 0) into *res; 0 on success. */
static int audit(struct dg_conn_h *h, const struct dg_ack *acks, size_t n, struct tpcc_audit *res)
{
    struct dg_err err = {0};
    tpcc_audit_free(res);
    memset(res, 0, sizeof *res);
    if (tpcc_audit_check(h, 0, acks, n, res, &err) == 0)
        return 0;
    printf("# audit failed: %s\n", err.msg);
    return -1;
}

/* New-Orders and Payments run through the workload in mode (SQL, or the stored procedures
 * that return the order's id), each commit's take_ack kept; a rolled-back New-Order (clause
 * 2.4.2.3) gives none. */
static void check_take_ack(struct dg_conn_h *h, enum tpcc_mode mode)
{
    const struct dg_workload *wl = &tpcc_workload;
    struct tpcc_shared sh = {.warehouses = 1, .dialect = dg_conn_dialect(h), .mode = mode};
    struct dg_err err = {0};
    tpcc_meta_read(h, &sh.c_run, &err);
    void *wctx = NULL;
    char term[512];
    const char *m = mode == TPCC_MODE_SQL ? "sql" : "procedures";
    char name[4][120];
    snprintf(name[0], sizeof name[0], "take_ack (%s): one ack per committed New-Order or Payment, of its kind, taken once", m);
    snprintf(name[1], sizeof name[1], "take_ack (%s): a rolled-back New-Order has no ack", m);
    snprintf(name[2], sizeof name[2], "audit of take_ack's (%s): every committed New-Order found with its lines", m);
    snprintf(name[3], sizeof name[3], "audit of take_ack's (%s): the Payments' amounts are in the history", m);
    if (wl->terminal_size > sizeof term || (mode == TPCC_MODE_PROCEDURES && tpcc_procedures_ensure(h, &err)) ||
        wl->worker_open(&sh, h, &wctx, &err)) {
        CHECK(&T, 0, "take_ack: the workload opens a worker", "%s", err.msg);
        return;
    }
    wl->terminal_init(&sh, 0, 1, term, 42);
    /* 60 of both, then New-Orders until one draws the unused item (1 in 100) */
    enum { N = 60, MAX = 3000 };
    static struct dg_ack acks[MAX + 1];
    size_t nacks = 0;
    int committed[2] = {0}, rolled = 0, ack_after_rollback = 0, failed = 0, wrong_kind = 0, i;
    for (i = 0; (i < N || !rolled) && i < MAX; i++) {
        int type = i < N && i % 2 ? TPCC_PAYMENT : TPCC_NEW_ORDER;
        int rc = wl->run(wctx, term, type, &err);
        struct dg_ack a = {0};
        int got = wl->take_ack(wctx, &a);
        if (rc && err.cls == DG_ERR_EXPECTED) {
            rolled++;
            ack_after_rollback += got;
            dg_rollback(h, &err);
            continue;
        }
        if (rc) {
            failed++;
            printf("# %s failed: %s\n", tpcc_type_names[type], err.msg);
            dg_rollback(h, &err);
            continue;
        }
        committed[type]++;
        wrong_kind += !got || a.kind != (type == TPCC_PAYMENT ? DG_ACK_TPCC_PAYMENT : DG_ACK_TPCC_NEW_ORDER);
        if (got)
            acks[nacks++] = (struct dg_ack){.t_ms = i, .kind = a.kind, .k = {a.k[0], a.k[1], a.k[2]}, .count = a.count,
                                            .amount = a.amount};
    }
    struct dg_ack none;
    int after = wl->take_ack(wctx, &none);
    wl->worker_close(wctx);
    CHECK(&T, failed == 0 && wrong_kind == 0 && !after && committed[0] + committed[1] + rolled == i,
          name[0],
          "failed %d wrong kind %d after %d", failed, wrong_kind, after);
    CHECK(&T, rolled > 0 && ack_after_rollback == 0, name[1],
          "%d rolled back, %d acks", rolled, ack_after_rollback);
    /* the baseline of before the Payments: history now minus what they paid */
    int64_t paid = 0, now = 0;
    for (size_t i = 0; i < nacks; i++)
        paid += acks[i].kind == DG_ACK_TPCC_PAYMENT ? acks[i].amount : 0;
    tpcc_history_sums(h, &now, 1, &err);
    acks[nacks++] = (struct dg_ack){.kind = DG_ACK_TPCC_BASELINE, .k = {1}, .amount = now - paid};
    struct tpcc_audit res = {0};
    int ok = audit(h, acks, nacks, &res) == 0;
    CHECK(&T, ok && res.acknowledged == (uint64_t)committed[0] && res.found == res.acknowledged && res.lost == 0,
          name[2],
          "acknowledged %llu found %llu lost %llu (committed %d)", (unsigned long long)res.acknowledged,
          (unsigned long long)res.found, (unsigned long long)res.lost, committed[0]);
    CHECK(&T, ok && res.nwh == 1 && res.payments == (uint64_t)committed[1] && tpcc_audit_wh_verdict(&res.wh[0]) == 0 &&
                  res.wh[0].now - res.wh[0].baseline == res.wh[0].acked && res.wh[0].acked == paid,
          name[3],
          "nwh %d payments %llu", res.nwh, (unsigned long long)res.payments);
    tpcc_audit_free(&res);
}

/* The loaded last 5 orders of each district of warehouse 1 as acks, t_ms rising with o_id
 * then district: the last three are order 3000 of districts 8, 9 and 10. */
static size_t newest_orders(struct dg_conn_h *h, struct dg_ack *acks)
{
    size_t n = 0;
    for (int64_t o = TPCC_ORDERS - 4; o <= TPCC_ORDERS; o++)
        for (int d = 1; d <= TPCC_DISTRICTS; d++) {
            char sql[160];
            snprintf(sql, sizeof sql, "SELECT o_ol_cnt FROM orders WHERE o_w_id = 1 AND o_d_id = %d AND o_id = %lld", d,
                     (long long)o);
            int64_t cnt = q_int(h, sql);
            snprintf(sql, sizeof sql, "SELECT o_c_id FROM orders WHERE o_w_id = 1 AND o_d_id = %d AND o_id = %lld", d,
                     (long long)o);
            if (cnt > 0)
                acks[n++] = (struct dg_ack){.t_ms = (int64_t)n * 10, .kind = DG_ACK_TPCC_NEW_ORDER,
                                            .k = {1, (uint32_t)d, (uint32_t)o}, .count = (uint16_t)cnt,
                                            .amount = q_int(h, sql)};
        }
    return n;
}

static void delete_order(struct dg_conn_h *h, const struct dg_ack *a)
{
    char sql[200];
    static const char *const fmt[] = {"DELETE FROM order_line WHERE ol_w_id = %u AND ol_d_id = %u AND ol_o_id = %u",
                                      "DELETE FROM new_order WHERE no_w_id = %u AND no_d_id = %u AND no_o_id = %u",
                                      "DELETE FROM orders WHERE o_w_id = %u AND o_d_id = %u AND o_id = %u"};
    for (int i = 0; i < 3; i++) {
        snprintf(sql, sizeof sql, fmt[i], a->k[0], a->k[1], a->k[2]);
        x(h, sql);
    }
}

/* Hand-made acks: untouched, in doubt, the last three deleted, one torn, money lost. */
static void check_losses(struct dg_conn_h *h)
{
    struct dg_ack acks[64];
    struct tpcc_audit res = {0};
    size_t n = newest_orders(h, acks);
    int ok = n == 50 && audit(h, acks, n, &res) == 0;
    CHECK(&T, ok && res.acknowledged == 50 && res.found == 50 && res.lost == 0 && !tpcc_audit_failed(&res),
          "untouched: 50 acknowledged, 50 found, 0 lost, the audit passes", "n %zu found %llu lost %llu", n,
          (unsigned long long)res.found, (unsigned long long)res.lost);

    struct dg_ack more[64];
    memcpy(more, acks, n * sizeof *acks);
    more[n] = (struct dg_ack){.kind = DG_ACK_TPCC_NEW_ORDER, .k = {1, 3, 99999}, .count = 5, .in_doubt = 1};
    more[n + 1] = acks[0];
    more[n + 1].in_doubt = 1; /* in doubt, and there */
    more[n + 2] = (struct dg_ack){.kind = DG_ACK_TPCC_NEW_ORDER, .k = {1, 4, 0}, .count = 7, .in_doubt = 1};
    ok = audit(h, more + 1, n + 2, &res) == 0; /* acks[0] only as the in-doubt copy */
    CHECK(&T, ok && res.acknowledged == 49 && res.lost == 0 && res.in_doubt == 2 && res.in_doubt_found == 1 &&
                  res.in_doubt_no_key == 1 && !tpcc_audit_failed(&res),
          "in doubt: one found, one absent, one without a key: none of them lost",
          "in doubt %llu found %llu no key %llu lost %llu", (unsigned long long)res.in_doubt,
          (unsigned long long)res.in_doubt_found, (unsigned long long)res.in_doubt_no_key, (unsigned long long)res.lost);

    /* An o_id acknowledged twice: the in-doubt order never committed and a later order (another
     * customer's) took its id; or an acknowledged order was lost and its id taken again. */
    memcpy(more, acks, n * sizeof *acks);
    more[n] = acks[1];
    more[n].in_doubt = 1;
    more[n].amount = acks[1].amount % 3000 + 1; /* another customer */
    more[n].count = 9;
    more[n].t_ms = -5; /* before the order that took its id */
    ok = audit(h, more, n + 1, &res) == 0;
    CHECK(&T, ok && res.acknowledged == 50 && res.found == 50 && res.lost == 0 && res.in_doubt == 1 &&
                  res.in_doubt_found == 0 && !tpcc_audit_failed(&res),
          "o_id taken again after an in-doubt order: the acknowledged one found, the in-doubt one absent",
          "found %llu lost %llu in doubt found %llu", (unsigned long long)res.found, (unsigned long long)res.lost,
          (unsigned long long)res.in_doubt_found);
    more[n].amount = acks[1].amount; /* the same customer (or one not kept): lines tell them apart */
    ok = audit(h, more, n + 1, &res) == 0;
    CHECK(&T, ok && res.lost == 0 && res.in_doubt == 1 && res.in_doubt_found == 0 && !tpcc_audit_failed(&res),
          "o_id taken again by the same customer after an in-doubt order: another count of lines, not lost",
          "lost %llu in doubt found %llu", (unsigned long long)res.lost, (unsigned long long)res.in_doubt_found);
    more[n].amount = acks[1].amount % 3000 + 1;
    more[n].in_doubt = 0;
    ok = audit(h, more, n + 1, &res) == 0;
    CHECK(&T, ok && res.acknowledged == 51 && res.found == 50 && res.lost == 1 && res.nkeys == 1 &&
                  res.keys[0].o_id == acks[1].k[2] && res.keys[0].lines_found == -1 && tpcc_audit_failed(&res),
          "o_id taken again after an acknowledged order was lost: that one is lost",
          "found %llu lost %llu", (unsigned long long)res.found, (unsigned long long)res.lost);

    for (size_t i = n - 3; i < n; i++) /* the last three acknowledged, behind dbgauge's back */
        delete_order(h, &acks[i]);
    ok = audit(h, acks, n, &res) == 0;
    int same = ok && res.nkeys == 3;
    for (int i = 0; same && i < 3; i++)
        same = res.keys[i].w == 1 && res.keys[i].d == acks[n - 3 + (size_t)i].k[1] &&
               res.keys[i].o_id == acks[n - 3 + (size_t)i].k[2] && res.keys[i].lines_found == -1;
    CHECK(&T, same && res.lost == 3 && res.found == 47 && tpcc_audit_failed(&res) &&
                  res.lost_first_ms == acks[n - 3].t_ms && res.lost_last_ms == acks[n - 1].t_ms,
          "the last three deleted: exactly those three keys lost, their span of time, the audit fails",
          "lost %llu keys %d first %lld last %lld", (unsigned long long)res.lost, res.nkeys,
          (long long)res.lost_first_ms, (long long)res.lost_last_ms);

    char sql[200];
    snprintf(sql, sizeof sql, "DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = %u AND ol_o_id = %u AND ol_number = 1",
             acks[0].k[1], acks[0].k[2]);
    x(h, sql);
    ok = audit(h, acks, 1, &res) == 0;
    CHECK(&T, ok && res.lost == 1 && res.nkeys == 1 && res.keys[0].lines_found == (int)acks[0].count - 1,
          "an order missing one line is lost, with the lines found", "lost %llu lines %d", (unsigned long long)res.lost,
          res.nkeys ? res.keys[0].lines_found : -9);
    tpcc_audit_free(&res);
}

/* Payments: history now minus the baseline against the amounts acknowledged. */
static void check_money(struct dg_conn_h *h)
{
    struct dg_err err = {0};
    int64_t base = 0;
    int ok = tpcc_history_sums(h, &base, 1, &err) == 0;
    CHECK(&T, ok && base == (int64_t)TPCC_DISTRICTS * TPCC_CUSTOMERS * 1000,
          "history sums: the loaded warehouse's 30000 payments of 10.00, exactly", "%lld %s", (long long)base, err.msg);
    x(h, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_amount, h_data) VALUES (1, 1, 1, 1, 1, 12.34, 'x')");
    x(h, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_amount, h_data) VALUES (2, 1, 1, 1, 1, 0.66, 'x')");
    struct dg_ack a[5] = {
        {.kind = DG_ACK_TPCC_BASELINE, .k = {1}, .amount = base},
        {.kind = DG_ACK_TPCC_PAYMENT, .k = {1, 1, 1}, .amount = 1234},
        {.kind = DG_ACK_TPCC_PAYMENT, .k = {1, 1, 2}, .amount = 66},
        {.kind = DG_ACK_TPCC_PAYMENT, .k = {1, 2, 3}, .amount = 500},
        {.kind = DG_ACK_TPCC_PAYMENT, .k = {1, 2, 4}, .amount = 100, .in_doubt = 1},
    };
    struct tpcc_audit res = {0};
    ok = audit(h, a, 3, &res) == 0;
    CHECK(&T, ok && res.nwh == 1 && res.wh[0].now - res.wh[0].baseline == 1300 && tpcc_audit_wh_verdict(&res.wh[0]) == 0 &&
                  !tpcc_audit_failed(&res),
          "payments found: history grew by what was acknowledged", "nwh %d", res.nwh);
    ok = audit(h, a, 4, &res) == 0;
    CHECK(&T, ok && res.nwh == 1 && tpcc_audit_wh_verdict(&res.wh[0]) == -1 && tpcc_audit_failed(&res),
          "a payment acknowledged but not in the history: money lost, the audit fails", "nwh %d", res.nwh);
    x(h, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_amount, h_data) VALUES (3, 1, 1, 1, 1, 1.00, 'x')");
    ok = audit(h, a, 3, &res) == 0;
    CHECK(&T, ok && res.nwh == 1 && tpcc_audit_wh_verdict(&res.wh[0]) == 1 && !tpcc_audit_failed(&res),
          "more in the history than acknowledged: said (another run since?), not a loss", "nwh %d", res.nwh);
    struct dg_ack b[4] = {a[0], a[1], a[2], a[4]};
    ok = audit(h, b, 4, &res) == 0;
    CHECK(&T, ok && res.nwh == 1 && tpcc_audit_wh_verdict(&res.wh[0]) == 0 && res.payments_in_doubt == 1,
          "more in the history by what was in doubt: as acknowledged", "nwh %d", res.nwh);
    ok = audit(h, a + 1, 2, &res) == 0;
    CHECK(&T, ok && res.nwh == 1 && tpcc_audit_wh_verdict(&res.wh[0]) == 2 && !tpcc_audit_failed(&res),
          "payments without a baseline are not judged", "nwh %d", res.nwh);
    tpcc_audit_free(&res);
}

int main(int argc, char **argv)
{
    char scratch[64] = "", url[1100];
    if (argc > 1) {
        snprintf(url, sizeof url, "%s", argv[1]);
    } else {
        snprintf(scratch, sizeof scratch, "/tmp/dg-audit-%ld.db", (long)getpid());
        snprintf(url, sizeof url, "sqlite:%s", scratch);
    }
    struct dg_target t;
    struct dg_err err = {0};
    struct dg_conn_h h = {0};
    struct tpcc_load_opts lo = {.target = &t, .warehouses = 1, .jobs = 2, .drop = 1, .seed = 7};
    struct tpcc_load_result lr;
    int ready = dg_target_parse(url, &t, &err) == 0 && tpcc_load(&lo, &lr, &err) == 0 &&
                dg_connect(&t, NULL, &h, &err) == 0;
    CHECK(&T, ready, "one warehouse loaded", "%s", err.msg);
    if (ready) {
        check_money(&h);  /* on the history as loaded */
        check_losses(&h); /* on the orders as loaded */
        check_take_ack(&h, TPCC_MODE_SQL);
        if (dg_dialect(dg_conn_dialect(&h))->procedures)
            check_take_ack(&h, TPCC_MODE_PROCEDURES);
    }
    dg_disconnect(&h);
    if (scratch[0]) {
        char f[96];
        unlink(scratch);
        snprintf(f, sizeof f, "%s-wal", scratch), unlink(f);
        snprintf(f, sizeof f, "%s-shm", scratch), unlink(f);
    }
    return dg_test_done(&T);
}
