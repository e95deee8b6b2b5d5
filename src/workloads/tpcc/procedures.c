/* procedures.c — --mode procedures: the five transactions as PL/pgSQL functions (MySQL's in
 * procedures_mysql.c, same parameters), one call
 * (one round trip, one implicit transaction) per transaction, inputs drawn exactly as in the
 * SQL mode. Must not draw inputs differently from txn.c, nor allocate per transaction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/tpcc/tpcc_internal.h"

/* Bumped whenever a function body below changes, so `tpcc run` replaces old versions. */
#define PROC_VERSION 4
/* SQLSTATE raised by dbgauge_new_order for the unused item of clause 2.4.2.3. */
#define SQLSTATE_BAD_ITEM "DG001"

static const char install_sql[] =
    /* New-Order (clause 2.4.2.2). The lines arrive sorted by item id; one statement reads each
     * line's item and stock row, locking the stock rows in that order (LockRows sits above the
     * Sort) so that concurrent New-Orders cannot deadlock, then updates the stock and inserts
     * the order lines from what it read. An unknown item drops out of the join: fewer lines
     * than asked raise DG001, and the implicit transaction leaves nothing behind. Returns the
     * terminal's total and the order's id (the audit's key). Version 3 returned the total
     * alone: a function's result type cannot be replaced, so it is dropped first. */
    "DROP FUNCTION IF EXISTS dbgauge_new_order(int, int, int, int, int[], int[], int[]);\n"
    "CREATE FUNCTION dbgauge_new_order(p_w int, p_d int, p_c int, p_all_local int,\n"
    "    p_items int[], p_supply int[], p_qty int[], OUT out_total numeric, OUT out_o_id int)\n"
    "    LANGUAGE plpgsql AS $dg$\n"
    "DECLARE\n"
    "    v_w_tax numeric; v_d_tax numeric; v_disc numeric; v_last varchar; v_credit char(2);\n"
    "    v_o_id int; v_found int; v_total numeric; v_brand_b int;\n"
    "BEGIN\n"
    "    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d\n"
    "        RETURNING d_tax, d_next_o_id - 1 INTO v_d_tax, v_o_id;\n"
    "    SELECT c_discount, c_last, c_credit, w_tax INTO v_disc, v_last, v_credit, v_w_tax\n"
    "        FROM customer, warehouse WHERE w_id = p_w AND c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;\n"
    "    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,\n"
    "        o_all_local) VALUES (v_o_id, p_d, p_w, p_c, current_timestamp, NULL,\n"
    "        cardinality(p_items), p_all_local);\n"
    "    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);\n"
    "    WITH l AS (SELECT * FROM unnest(p_items, p_supply, p_qty) WITH ORDINALITY\n"
    "                   AS l(i_id, sw, q, n)),\n"
    "         k AS MATERIALIZED (SELECT l.n, l.i_id, l.sw, l.q, i.i_price, i.i_data, s.s_data,\n"
    "                   CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03\n"
    "                   WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06\n"
    "                   WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09\n"
    "                   ELSE s_dist_10 END AS dist\n"
    "               FROM l JOIN item i ON i.i_id = l.i_id\n"
    "                   JOIN stock s ON s.s_i_id = l.i_id AND s.s_w_id = l.sw\n"
    "               ORDER BY s.s_i_id, s.s_w_id FOR UPDATE OF s),\n"
    "         u AS (UPDATE stock SET s_quantity = CASE WHEN s_quantity >= k.q + 10\n"
    "                       THEN s_quantity - k.q ELSE s_quantity - k.q + 91 END,\n"
    "                   s_ytd = s_ytd + k.q, s_order_cnt = s_order_cnt + 1,\n"
    "                   s_remote_cnt = s_remote_cnt + CASE WHEN k.sw <> p_w THEN 1 ELSE 0 END\n"
    "               FROM k WHERE s_i_id = k.i_id AND s_w_id = k.sw),\n"
    "         o AS (INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id,\n"
    "                   ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)\n"
    "               SELECT v_o_id, p_d, p_w, k.n, k.i_id, k.sw, NULL, k.q, k.q * k.i_price, k.dist\n"
    "               FROM k)\n"
    "    SELECT count(*), sum(k.q * k.i_price), count(*) FILTER (WHERE strpos(k.i_data, 'ORIGINAL') > 0\n"
    "            AND strpos(k.s_data, 'ORIGINAL') > 0)\n"
    "        INTO v_found, v_total, v_brand_b FROM k;\n"
    "    IF v_found < cardinality(p_items) THEN\n"
    "        RAISE EXCEPTION 'item number is not valid' USING ERRCODE = '" SQLSTATE_BAD_ITEM "';\n"
    "    END IF;\n"
    "    out_total := v_total * (1 - v_disc) * (1 + v_w_tax + v_d_tax);\n"
    "    out_o_id := v_o_id;\n"
    "END $dg$;\n"

    /* Payment (clause 2.5.2.2). By name when p_c_last is not NULL: ceil(n/2) on C_FIRST order. */
    "CREATE OR REPLACE FUNCTION dbgauge_payment(p_w int, p_d int, p_c_w int, p_c_d int, p_c_id int,\n"
    "    p_c_last varchar, p_amount numeric) RETURNS int LANGUAGE plpgsql AS $dg$\n"
    "DECLARE\n"
    "    v_wh record; v_di record; v_cu record; v_c_id int := p_c_id; v_ids int[];\n"
    "BEGIN\n"
    "    UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w\n"
    "        RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip INTO v_wh;\n"
    "    UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d\n"
    "        RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip INTO v_di;\n"
    "    IF p_c_last IS NOT NULL THEN\n"
    "        SELECT array_agg(c_id ORDER BY c_first) INTO v_ids FROM customer\n"
    "            WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last;\n"
    "        IF v_ids IS NULL THEN\n"
    "            RAISE EXCEPTION 'no customer named % in warehouse % district %', p_c_last, p_c_w, p_c_d;\n"
    "        END IF;\n"
    "        v_c_id := v_ids[(cardinality(v_ids) + 1) / 2];\n"
    "    END IF;\n"
    "    UPDATE customer SET c_balance = c_balance - p_amount,\n"
    "        c_ytd_payment = c_ytd_payment + p_amount, c_payment_cnt = c_payment_cnt + 1,\n"
    "        c_data = CASE WHEN c_credit = 'BC' THEN substr(v_c_id || ' ' || p_c_d || ' ' || p_c_w\n"
    "            || ' ' || p_d || ' ' || p_w || ' ' || p_amount || '|' || c_data, 1, 500)\n"
    "            ELSE c_data END\n"
    "        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id\n"
    "        RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip,\n"
    "            c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance INTO v_cu;\n"
    "    IF NOT FOUND THEN\n"
    "        RAISE EXCEPTION 'no customer % in warehouse % district %', v_c_id, p_c_w, p_c_d;\n"
    "    END IF;\n"
    "    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)\n"
    "        VALUES (v_c_id, p_c_d, p_c_w, p_d, p_w, current_timestamp, p_amount,\n"
    "            substr(v_wh.w_name || '    ' || v_di.d_name, 1, 24));\n"
    "    RETURN v_c_id;\n"
    "END $dg$;\n"

    /* Order-Status (clause 2.6.2.2): read-only; returns the number of lines read. */
    "CREATE OR REPLACE FUNCTION dbgauge_order_status(p_w int, p_d int, p_c_id int, p_c_last varchar)\n"
    "    RETURNS int LANGUAGE plpgsql AS $dg$\n"
    "DECLARE\n"
    "    v_c_id int := p_c_id; v_ids int[]; v_cu record; v_o record; v_l record; v_n int := 0;\n"
    "BEGIN\n"
    "    IF p_c_last IS NOT NULL THEN\n"
    "        SELECT array_agg(c_id ORDER BY c_first) INTO v_ids FROM customer\n"
    "            WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_c_last;\n"
    "        IF v_ids IS NULL THEN\n"
    "            RAISE EXCEPTION 'no customer named % in warehouse % district %', p_c_last, p_w, p_d;\n"
    "        END IF;\n"
    "        v_c_id := v_ids[(cardinality(v_ids) + 1) / 2];\n"
    "    END IF;\n"
    "    SELECT c_balance, c_first, c_middle, c_last INTO v_cu FROM customer\n"
    "        WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c_id;\n"
    "    SELECT o_id, o_carrier_id, o_entry_d INTO v_o FROM orders\n"
    "        WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c_id ORDER BY o_id DESC LIMIT 1;\n"
    "    IF NOT FOUND THEN\n"
    "        RAISE EXCEPTION 'customer % of warehouse % district % has no order', v_c_id, p_w, p_d;\n"
    "    END IF;\n"
    "    FOR v_l IN SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d\n"
    "        FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_o.o_id LOOP\n"
    "        v_n := v_n + 1;\n"
    "    END LOOP;\n"
    "    RETURN v_n;\n"
    "END $dg$;\n"

    /* Delivery (clause 2.7.4.2): the ten districts in one transaction and one statement: the
     * oldest new order of each district, deleted; its order, lines and customer updated from
     * what the deletes returned. A district whose oldest new order a concurrent Delivery took
     * between the read and the delete falls out of the delete: then the whole transaction is
     * run again (40001), as the per-district loop did. Returns the districts skipped for want
     * of a new order. */
    "CREATE OR REPLACE FUNCTION dbgauge_delivery(p_w int, p_carrier int) RETURNS int\n"
    "    LANGUAGE plpgsql AS $dg$\n"
    "DECLARE\n"
    "    v_wanted int; v_done int;\n"
    "BEGIN\n"
    "    WITH f AS MATERIALIZED (SELECT d.d, (SELECT min(no_o_id) FROM new_order\n"
    "                   WHERE no_w_id = p_w AND no_d_id = d.d) AS o FROM generate_series(1, 10) AS d(d)),\n"
    "         n AS (DELETE FROM new_order USING f\n"
    "               WHERE no_w_id = p_w AND no_d_id = f.d AND no_o_id = f.o RETURNING no_d_id, no_o_id),\n"
    "         o AS (UPDATE orders SET o_carrier_id = p_carrier FROM n\n"
    "               WHERE o_w_id = p_w AND o_d_id = n.no_d_id AND o_id = n.no_o_id\n"
    "               RETURNING o_d_id, o_c_id),\n"
    "         l AS (UPDATE order_line SET ol_delivery_d = current_timestamp FROM n\n"
    "               WHERE ol_w_id = p_w AND ol_d_id = n.no_d_id AND ol_o_id = n.no_o_id\n"
    "               RETURNING ol_d_id, ol_amount),\n"
    "         c AS (UPDATE customer SET c_balance = c_balance + s.amount,\n"
    "                   c_delivery_cnt = c_delivery_cnt + 1\n"
    "               FROM o, (SELECT ol_d_id, sum(ol_amount) AS amount FROM l GROUP BY ol_d_id) s\n"
    "               WHERE s.ol_d_id = o.o_d_id AND c_w_id = p_w AND c_d_id = o.o_d_id\n"
    "                   AND c_id = o.o_c_id)\n"
    "    SELECT (SELECT count(o) FROM f), (SELECT count(*) FROM n) INTO v_wanted, v_done;\n"
    "    IF v_done < v_wanted THEN\n"
    "        RAISE EXCEPTION 'a new order of warehouse % was taken by another Delivery', p_w\n"
    "            USING ERRCODE = '40001';\n"
    "    END IF;\n"
    "    RETURN 10 - v_wanted;\n"
    "END $dg$;\n"

    /* Stock-Level (clause 2.8.2.2): read-only; returns the count. */
    "CREATE OR REPLACE FUNCTION dbgauge_stock_level(p_w int, p_d int, p_threshold int) RETURNS int\n"
    "    LANGUAGE plpgsql AS $dg$\n"
    "DECLARE\n"
    "    v_next int; v_count int;\n"
    "BEGIN\n"
    "    SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;\n"
    "    SELECT count(DISTINCT s_i_id) INTO v_count FROM order_line, stock\n"
    "        WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20\n"
    "            AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;\n"
    "    RETURN v_count;\n"
    "END $dg$;\n";

enum { P_NEW_ORDER, P_PAYMENT, P_ORDER_STATUS, P_DELIVERY, P_STOCK_LEVEL, P_COUNT };

static const int call_nparams[P_COUNT] = {7, 7, 4, 2, 3};

static const char *const pgsql_install[] = {install_sql, NULL};

static const char *const pgsql_calls[P_COUNT] = {
    "SELECT out_total, out_o_id FROM dbgauge_new_order(?, ?, ?, ?, ?, ?, ?)",
    "SELECT dbgauge_payment(?, ?, ?, ?, ?, ?, ?)",
    "SELECT dbgauge_order_status(?, ?, ?, ?)", "SELECT dbgauge_delivery(?, ?)",
    "SELECT dbgauge_stock_level(?, ?, ?)"};

static const struct tpcc_proc_dialect proc_pgsql = {
    .install = pgsql_install,
    .version_fmt = "CREATE OR REPLACE FUNCTION dbgauge_procedures_version() RETURNS int "
                   "LANGUAGE sql IMMUTABLE AS 'SELECT %d'",
    .version_query = "SELECT dbgauge_procedures_version()",
    .calls = pgsql_calls,
    .iso_sql = {[DG_ISO_READ_COMMITTED] = "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED",
                [DG_ISO_REPEATABLE_READ] = "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ",
                [DG_ISO_SERIALIZABLE] = "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE"},
};

/* MySQL/MariaDB: procedures_mysql.c installs its own version marker. */
static const struct tpcc_proc_dialect proc_mysql = {
    .install_fn = tpcc_mysql_procedures_install,
    .version_query = "SELECT dbgauge_procedures_version()",
    .calls = tpcc_mysql_call_sql,
    .iso_sql = {[DG_ISO_READ_COMMITTED] = "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
                [DG_ISO_REPEATABLE_READ] = "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
                [DG_ISO_SERIALIZABLE] = "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE"},
};

const struct tpcc_proc_dialect *tpcc_proc_dialect(enum dg_dialect d)
{
    switch (d) {
    case DG_DIALECT_PGSQL: return &proc_pgsql;
    case DG_DIALECT_MYSQL: return &proc_mysql;
    case DG_DIALECT_MSSQL: return &tpcc_proc_mssql;
    default: return NULL;
    }
}

struct tpcc_proc_worker {
    struct dg_conn_h *h;
    const struct tpcc_shared *sh;
    const struct tpcc_proc_dialect *pd;
    struct dg_stmt *st[P_COUNT];
};

static int no_procedures(enum dg_dialect d, struct dg_err *err)
{
    if (d != DG_DIALECT_NONE && !dg_dialect(d)->procedures)
        return dg_err_set(err, DG_ERR_USER, 0, "%s has no stored procedures; use --mode sql",
                          dg_dialect(d)->display);
    return dg_err_set(err, DG_ERR_USER, 0,
                      "--mode procedures is not available for this target yet; use --mode sql");
}

int tpcc_procedures_install(struct dg_conn_h *h, struct dg_err *err)
{
    const struct tpcc_proc_dialect *pd = tpcc_proc_dialect(dg_conn_dialect(h));
    if (!pd)
        return no_procedures(dg_conn_dialect(h), err);
    char version[256] = "";
    if (pd->version_fmt) /* engines with an install_fn record their version themselves */
        snprintf(version, sizeof version, pd->version_fmt, PROC_VERSION);
    int rc = 0;
    if (pd->install_fn)
        rc = pd->install_fn(h, PROC_VERSION, err);
    for (int i = 0; !pd->install_fn && pd->install[i] && rc == 0; i++)
        rc = dg_exec(h, pd->install[i], err);
    if (rc || (!pd->install_fn && dg_exec(h, version, err))) {
        if (err->cls != DG_ERR_CONN) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            dg_err_set(err, DG_ERR_USER, err->code, "cannot install the TPC-C procedures: %.400s", msg);
        }
        return -1;
    }
    return 0;
}

int tpcc_procedures_ensure(struct dg_conn_h *h, struct dg_err *err)
{
    const struct tpcc_proc_dialect *pd = tpcc_proc_dialect(dg_conn_dialect(h));
    if (!pd)
        return no_procedures(dg_conn_dialect(h), err);
    int64_t v = 0;
    struct dg_err ignore;
    dg_err_clear(&ignore);
    /* Absent (an error outside any transaction: harmless) or older: install this version. */
    if (dg_query_int(h, pd->version_query, &v, &ignore) == 0 && v == PROC_VERSION)
        return 0;
    if (ignore.cls == DG_ERR_CONN && v == 0) {
        *err = ignore;
        return -1;
    }
    return tpcc_procedures_install(h, err);
}

int tpcc_proc_worker_open(const struct tpcc_shared *sh, struct dg_conn_h *h,
                          struct tpcc_proc_worker **out, struct dg_err *err)
{
    *out = NULL;
    const struct tpcc_proc_dialect *pd = tpcc_proc_dialect(dg_conn_dialect(h));
    if (!pd)
        return no_procedures(dg_conn_dialect(h), err);
    /* Each call is its own transaction (one round trip); the isolation level is the
     * session's default, so it applies to every call and to every retry. */
    if (sh->isolation != DG_ISO_DEFAULT) {
        if ((unsigned)sh->isolation > DG_ISO_SERIALIZABLE || !pd->iso_sql[sh->isolation])
            return dg_err_set(err, DG_ERR_USER, 0, "unknown isolation level %d", (int)sh->isolation);
        if (dg_exec(h, pd->iso_sql[sh->isolation], err))
            return -1;
    }
    struct tpcc_proc_worker *w = calloc(1, sizeof *w);
    if (!w)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    w->h = h;
    w->sh = sh;
    w->pd = pd;
    for (int i = 0; i < P_COUNT; i++)
        if (dg_prepare(h, pd->calls[i], call_nparams[i], &w->st[i], err)) {
            tpcc_proc_worker_close(w);
            return -1;
        }
    *out = w;
    return 0;
}

void tpcc_proc_worker_close(struct tpcc_proc_worker *w)
{
    if (!w)
        return;
    for (int i = 0; i < P_COUNT; i++)
        if (w->st[i])
            dg_finalize(w->h, w->st[i]);
    free(w);
}

/* Writes n integers as a PostgreSQL array literal "{1,2,3}" into out (>= 12 * n + 3 bytes);
 * returns the length. */
static size_t int_array(char *out, const int *v, int n)
{
    size_t o = 0;
    out[o++] = '{';
    for (int i = 0; i < n; i++) {
        if (i)
            out[o++] = ',';
        unsigned x = (unsigned)v[i]; /* ids and quantities are positive */
        char tmp[12];
        int k = 0;
        do
            tmp[k++] = (char)('0' + x % 10);
        while ((x /= 10) != 0);
        while (k)
            out[o++] = tmp[--k];
    }
    out[o++] = '}';
    out[o] = '\0';
    return o;
}

/* What one call gives back: its row's first column as an integer or a number (i0, d0: the
 * one the caller asks for) and its second as an integer (i1, when it has one). */
struct call_out {
    int64_t *i0, *i1;
    double *d0;
};

/* Runs one call and reads its row. A failed call has already ended its implicit transaction
 * on the server; the runner's rollback afterwards finds nothing open. A write's call commits
 * by itself: a connection lost during it leaves the write in doubt (writes: 1). */
static int call(struct tpcc_proc_worker *w, int id, const struct dg_value *p, struct call_out out, int writes,
                struct dg_err *err)
{
    struct dg_stmt *s = w->st[id];
    if (dg_execute(w->h, s, p, err)) {
        if (id == P_NEW_ORDER && (w->pd->bad_item_code ? err->code == w->pd->bad_item_code
                                                        : strcmp(err->sqlstate, SQLSTATE_BAD_ITEM) == 0))
            /* clause 2.4.2.3: "Item number is not valid"; nothing of it remains */
            return dg_err_set(err, DG_ERR_EXPECTED, 0, "item number is not valid");
        err->in_doubt = writes && err->cls == DG_ERR_CONN;
        return -1;
    }
    int rc = dg_next_row(w->h, s, err);
    if (rc != 1) {
        if (rc == 0)
            dg_err_set(err, DG_ERR_FATAL, 0, "no result from: %s", w->pd->calls[id]);
        else /* the row is the COMMIT's answer: lost with it, the write is in doubt */
            err->in_doubt = writes && err->cls == DG_ERR_CONN;
        return -1;
    }
    if (out.i0)
        *out.i0 = dg_col_int(w->h, s, 0);
    if (out.d0)
        *out.d0 = dg_col_double(w->h, s, 0);
    if (out.i1)
        *out.i1 = dg_ncols(w->h, s) > 1 ? dg_col_int(w->h, s, 1) : 0;
    dg_reset(w->h, s);
    return 0;
}

static int new_order(struct tpcc_proc_worker *w, struct tpcc_term *t, struct tpcc_ack *ack, struct dg_err *err)
{
    struct tpcc_no_input in;
    tpcc_new_order_inputs(w->sh, t, &in);
    tpcc_new_order_sort(&in);
    char items[15 * 12 + 3], supply[15 * 12 + 3], qty[15 * 12 + 3];
    size_t ni = int_array(items, in.i_id, in.ol_cnt), ns = int_array(supply, in.supply_w, in.ol_cnt),
           nq = int_array(qty, in.qty, in.ol_cnt);
    struct dg_value p[7] = {dg_int(t->w_id), dg_int(in.d_id), dg_int(in.c_id), dg_int(in.all_local),
                            dg_txt(items, ni), dg_txt(supply, ns), dg_txt(qty, nq)};
    /* The server assigns the order id: an order in doubt is kept with o_id 0 (key unknown).
     * One with the unused item rolls back whatever happens: no ack. */
    if (!in.rollback)
        tpcc_ack_new_order(ack, t->w_id, in.d_id, 0, in.ol_cnt, in.c_id);
    int64_t o_id = 0;
    if (call(w, P_NEW_ORDER, p, (struct call_out){.d0 = &t->last_total, .i1 = &o_id}, !in.rollback, err))
        return -1;
    ack->a.k[2] = (uint32_t)o_id;
    return 0;
}

static int payment(struct tpcc_proc_worker *w, struct tpcc_term *t, struct tpcc_ack *ack, struct dg_err *err)
{
    struct tpcc_pay_input in;
    tpcc_payment_inputs(w->sh, t, &in);
    struct dg_value p[7] = {dg_int(t->w_id), dg_int(in.d_id), dg_int(in.c_w), dg_int(in.c_d),
                            dg_int(in.c_id),
                            in.c_last_len ? dg_txt(in.c_last, (size_t)in.c_last_len) : dg_null(),
                            dg_dec(in.amount_cents, 2)};
    tpcc_ack_payment(ack, t->w_id, in.d_id, in.c_id, in.amount_cents); /* by name: c_id when it answers */
    int64_t c_id = 0;
    if (call(w, P_PAYMENT, p, (struct call_out){.i0 = &c_id}, 1, err))
        return -1;
    ack->a.k[2] = (uint32_t)c_id;
    return 0;
}

static int order_status(struct tpcc_proc_worker *w, struct tpcc_term *t, struct dg_err *err)
{
    struct tpcc_os_input in;
    tpcc_order_status_inputs(w->sh, t, &in);
    struct dg_value p[4] = {dg_int(t->w_id), dg_int(in.d_id), dg_int(in.c_id),
                            in.c_last_len ? dg_txt(in.c_last, (size_t)in.c_last_len) : dg_null()};
    int64_t lines;
    if (call(w, P_ORDER_STATUS, p, (struct call_out){.i0 = &lines}, 0, err))
        return -1;
    t->last_count = (int)lines;
    return 0;
}

static int delivery(struct tpcc_proc_worker *w, struct tpcc_term *t, struct dg_err *err)
{
    int carrier = (int)dg_rng_range(&t->rng, 1, 10);
    struct dg_value p[2] = {dg_int(t->w_id), dg_int(carrier)};
    int64_t skipped;
    if (call(w, P_DELIVERY, p, (struct call_out){.i0 = &skipped}, 1, err))
        return -1;
    t->last_count = (int)skipped;
    t->skipped_deliveries += (uint64_t)skipped;
    return 0;
}

static int stock_level(struct tpcc_proc_worker *w, struct tpcc_term *t, struct dg_err *err)
{
    int threshold = (int)dg_rng_range(&t->rng, 10, 20);
    struct dg_value p[3] = {dg_int(t->w_id), dg_int(t->sl_d_id), dg_int(threshold)};
    int64_t count;
    if (call(w, P_STOCK_LEVEL, p, (struct call_out){.i0 = &count}, 0, err))
        return -1;
    t->last_count = (int)count;
    return 0;
}

int tpcc_proc_run(struct tpcc_proc_worker *w, struct tpcc_term *t, int type, struct tpcc_ack *ack,
                  struct dg_err *err)
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
