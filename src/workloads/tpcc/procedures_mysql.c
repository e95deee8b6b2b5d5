/* procedures_mysql.c — --mode procedures on MariaDB/MySQL: the five transactions as stored
 * procedures, each its own transaction (START TRANSACTION ... COMMIT, rolled back and the
 * error re-raised on any exception), called with one CALL that ends in a one-row result.
 * They take exactly the parameters of the PL/pgSQL functions (item lists as "{1,2,3}"), so
 * procedures.c draws and binds inputs once for both engines. DDL and call texts only. */
#include <stdio.h>
#include <string.h>

#include "workloads/tpcc/tpcc_internal.h"

/* Element i (1-based) of a "{a,b,c}" list, as an integer. */
#define NTH(list, i) "CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(TRIM(BOTH '{' FROM TRIM(BOTH '}' FROM " \
    list ")), ',', " i "), ',', -1) AS SIGNED)"

#define ON_ERROR "    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;\n"

static const char *const drop_sql[] = {
    "DROP PROCEDURE IF EXISTS dbgauge_new_order",
    "DROP PROCEDURE IF EXISTS dbgauge_payment",
    "DROP PROCEDURE IF EXISTS dbgauge_order_status",
    "DROP PROCEDURE IF EXISTS dbgauge_delivery",
    "DROP PROCEDURE IF EXISTS dbgauge_stock_level",
    "DROP FUNCTION IF EXISTS dbgauge_procedures_version",
};

static const char *const create_sql[] = {
    /* New-Order (clause 2.4.2.2): lines arrive sorted by item id, so stock rows are locked in
     * one order and concurrent New-Orders cannot deadlock on them. An unknown item signals
     * DG001 and the handler rolls everything back (clause 2.4.2.3). Returns the terminal's
     * total and the order's id (the audit's key). */
    "CREATE PROCEDURE dbgauge_new_order(p_w INT, p_d INT, p_c INT, p_all_local INT,\n"
    "    p_items VARCHAR(200), p_supply VARCHAR(200), p_qty VARCHAR(200))\n"
    "BEGIN\n"
    "    DECLARE v_w_tax, v_d_tax, v_disc DECIMAL(4,4);\n"
    "    DECLARE v_o_id, v_n, v_i, v_item, v_sw, v_q, v_s_qty INT;\n"
    "    DECLARE v_price DECIMAL(5,2);\n"
    "    DECLARE v_dist CHAR(24);\n"
    "    DECLARE v_total DECIMAL(14,2) DEFAULT 0;\n"
    ON_ERROR
    "    SET v_n = CHAR_LENGTH(p_items) - CHAR_LENGTH(REPLACE(p_items, ',', '')) + 1;\n"
    "    START TRANSACTION;\n"
    "    SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;\n"
    "    SELECT d_tax, d_next_o_id INTO v_d_tax, v_o_id FROM district\n"
    "        WHERE d_w_id = p_w AND d_id = p_d FOR UPDATE;\n"
    "    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;\n"
    "    SELECT c_discount INTO v_disc FROM customer\n"
    "        WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;\n"
    "    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,\n"
    "        o_all_local) VALUES (v_o_id, p_d, p_w, p_c, NOW(), NULL, v_n, p_all_local);\n"
    "    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);\n"
    "    SET v_i = 1;\n"
    "    WHILE v_i <= v_n DO\n"
    "        SET v_item = " NTH("p_items", "v_i") ";\n"
    "        SET v_sw = " NTH("p_supply", "v_i") ";\n"
    "        SET v_q = " NTH("p_qty", "v_i") ";\n"
    "        SET v_price = NULL;\n"
    "        SELECT i_price INTO v_price FROM item WHERE i_id = v_item;\n"
    "        IF v_price IS NULL THEN\n"
    "            SIGNAL SQLSTATE 'DG001' SET MESSAGE_TEXT = 'item number is not valid';\n"
    "        END IF;\n"
    "        SELECT s_quantity, CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02\n"
    "            WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05\n"
    "            WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08\n"
    "            WHEN 9 THEN s_dist_09 ELSE s_dist_10 END INTO v_s_qty, v_dist\n"
    "            FROM stock WHERE s_i_id = v_item AND s_w_id = v_sw FOR UPDATE;\n"
    "        UPDATE stock SET s_quantity = IF(v_s_qty >= v_q + 10, v_s_qty - v_q, v_s_qty - v_q + 91),\n"
    "            s_ytd = s_ytd + v_q, s_order_cnt = s_order_cnt + 1,\n"
    "            s_remote_cnt = s_remote_cnt + IF(v_sw <> p_w, 1, 0)\n"
    "            WHERE s_i_id = v_item AND s_w_id = v_sw;\n"
    "        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,\n"
    "            ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)\n"
    "            VALUES (v_o_id, p_d, p_w, v_i, v_item, v_sw, NULL, v_q, v_q * v_price, v_dist);\n"
    "        SET v_total = v_total + v_q * v_price;\n"
    "        SET v_i = v_i + 1;\n"
    "    END WHILE;\n"
    "    COMMIT;\n"
    "    SELECT v_total * (1 - v_disc) * (1 + v_w_tax + v_d_tax), v_o_id;\n"
    "END",

    /* Payment (clause 2.5.2.2). By name when p_c_last is not NULL: ceil(n/2) on C_FIRST order. */
    "CREATE PROCEDURE dbgauge_payment(p_w INT, p_d INT, p_c_w INT, p_c_d INT, p_c_id INT,\n"
    "    p_c_last VARCHAR(16), p_amount DECIMAL(6,2))\n"
    "BEGIN\n"
    "    DECLARE v_w_name, v_d_name VARCHAR(10);\n"
    "    DECLARE v_w_street_1, v_w_street_2, v_w_city, v_d_street_1, v_d_street_2, v_d_city VARCHAR(20);\n"
    "    DECLARE v_w_state, v_d_state CHAR(2);\n"
    "    DECLARE v_w_zip, v_d_zip CHAR(9);\n"
    "    DECLARE v_c_id INT DEFAULT p_c_id;\n"
    "    DECLARE v_n, v_off INT;\n"
    "    DECLARE v_first, v_last VARCHAR(16);\n"
    "    DECLARE v_credit CHAR(2);\n"
    "    DECLARE v_balance DECIMAL(12,2);\n"
    ON_ERROR
    "    START TRANSACTION;\n"
    "    UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;\n"
    "    SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip INTO v_w_name, v_w_street_1,\n"
    "        v_w_street_2, v_w_city, v_w_state, v_w_zip FROM warehouse WHERE w_id = p_w;\n"
    "    UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;\n"
    "    SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip INTO v_d_name, v_d_street_1,\n"
    "        v_d_street_2, v_d_city, v_d_state, v_d_zip FROM district WHERE d_w_id = p_w AND d_id = p_d;\n"
    "    IF p_c_last IS NOT NULL THEN\n"
    "        SELECT COUNT(*) INTO v_n FROM customer\n"
    "            WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last;\n"
    "        IF v_n = 0 THEN\n"
    "            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer with that last name';\n"
    "        END IF;\n"
    "        SET v_off = (v_n + 1) DIV 2 - 1;\n"
    "        SELECT c_id INTO v_c_id FROM customer WHERE c_w_id = p_c_w AND c_d_id = p_c_d\n"
    "            AND c_last = p_c_last ORDER BY c_first LIMIT v_off, 1;\n"
    "    END IF;\n"
    "    SELECT c_first, c_last, c_credit, c_balance INTO v_first, v_last, v_credit, v_balance\n"
    "        FROM customer WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id FOR UPDATE;\n"
    "    IF v_credit IS NULL THEN\n"
    "        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no such customer';\n"
    "    END IF;\n"
    "    UPDATE customer SET c_balance = c_balance - p_amount,\n"
    "        c_ytd_payment = c_ytd_payment + p_amount, c_payment_cnt = c_payment_cnt + 1,\n"
    "        c_data = IF(c_credit = 'BC', LEFT(CONCAT(v_c_id, ' ', p_c_d, ' ', p_c_w, ' ', p_d, ' ',\n"
    "            p_w, ' ', p_amount, '|', c_data), 500), c_data)\n"
    "        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id;\n"
    "    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)\n"
    "        VALUES (v_c_id, p_c_d, p_c_w, p_d, p_w, NOW(), p_amount,\n"
    "            LEFT(CONCAT(v_w_name, '    ', v_d_name), 24));\n"
    "    COMMIT;\n"
    "    SELECT v_c_id;\n"
    "END",

    /* Order-Status (clause 2.6.2.2): read-only; returns the number of lines read. */
    "CREATE PROCEDURE dbgauge_order_status(p_w INT, p_d INT, p_c_id INT, p_c_last VARCHAR(16))\n"
    "BEGIN\n"
    "    DECLARE v_c_id INT DEFAULT p_c_id;\n"
    "    DECLARE v_n, v_off, v_o, v_carrier, v_items, v_qty INT;\n"
    "    DECLARE v_first, v_last VARCHAR(16);\n"
    "    DECLARE v_middle CHAR(2);\n"
    "    DECLARE v_balance, v_amount DECIMAL(12,2);\n"
    "    DECLARE v_entry, v_delivery DATETIME;\n"
    ON_ERROR
    "    START TRANSACTION;\n"
    "    IF p_c_last IS NOT NULL THEN\n"
    "        SELECT COUNT(*) INTO v_n FROM customer\n"
    "            WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_c_last;\n"
    "        IF v_n = 0 THEN\n"
    "            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer with that last name';\n"
    "        END IF;\n"
    "        SET v_off = (v_n + 1) DIV 2 - 1;\n"
    "        SELECT c_id INTO v_c_id FROM customer WHERE c_w_id = p_w AND c_d_id = p_d\n"
    "            AND c_last = p_c_last ORDER BY c_first LIMIT v_off, 1;\n"
    "    END IF;\n"
    "    SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last\n"
    "        FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c_id;\n"
    "    SELECT o_id, o_carrier_id, o_entry_d INTO v_o, v_carrier, v_entry FROM orders\n"
    "        WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c_id ORDER BY o_id DESC LIMIT 1;\n"
    "    IF v_o IS NULL THEN\n"
    "        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'the customer has no order';\n"
    "    END IF;\n"
    "    SELECT COUNT(*), MAX(ol_i_id) + MAX(ol_supply_w_id), SUM(ol_quantity), SUM(ol_amount),\n"
    "        MAX(ol_delivery_d) INTO v_n, v_items, v_qty, v_amount, v_delivery\n"
    "        FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_o;\n"
    "    COMMIT;\n"
    "    SELECT v_n;\n"
    "END",

    /* Delivery (clause 2.7.4.2): ten districts in one transaction; returns the districts
     * skipped for want of a new order. */
    "CREATE PROCEDURE dbgauge_delivery(p_w INT, p_carrier INT)\n"
    "BEGIN\n"
    "    DECLARE v_d INT DEFAULT 1;\n"
    "    DECLARE v_skipped INT DEFAULT 0;\n"
    "    DECLARE v_o, v_c INT;\n"
    "    DECLARE v_sum DECIMAL(12,2);\n"
    ON_ERROR
    "    START TRANSACTION;\n"
    "    WHILE v_d <= 10 DO\n"
    "        SET v_o = NULL;\n"
    "        SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d\n"
    "            ORDER BY no_o_id LIMIT 1 FOR UPDATE;\n"
    "        IF v_o IS NULL THEN\n"
    "            SET v_skipped = v_skipped + 1;\n"
    "        ELSE\n"
    "            DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o;\n"
    "            IF ROW_COUNT() = 0 THEN /* a concurrent Delivery took it first: run again */\n"
    "                SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1213,\n"
    "                    MESSAGE_TEXT = 'the new order was taken by another Delivery';\n"
    "            END IF;\n"
    "            SELECT o_c_id INTO v_c FROM orders WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;\n"
    "            UPDATE orders SET o_carrier_id = p_carrier\n"
    "                WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;\n"
    "            UPDATE order_line SET ol_delivery_d = NOW()\n"
    "                WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;\n"
    "            SELECT SUM(ol_amount) INTO v_sum FROM order_line\n"
    "                WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;\n"
    "            UPDATE customer SET c_balance = c_balance + v_sum,\n"
    "                c_delivery_cnt = c_delivery_cnt + 1\n"
    "                WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;\n"
    "        END IF;\n"
    "        SET v_d = v_d + 1;\n"
    "    END WHILE;\n"
    "    COMMIT;\n"
    "    SELECT v_skipped;\n"
    "END",

    /* Stock-Level (clause 2.8.2.2): read-only; returns the count. */
    "CREATE PROCEDURE dbgauge_stock_level(p_w INT, p_d INT, p_threshold INT)\n"
    "BEGIN\n"
    "    DECLARE v_next, v_count INT;\n"
    ON_ERROR
    "    START TRANSACTION;\n"
    "    SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;\n"
    "    SELECT COUNT(DISTINCT s_i_id) INTO v_count FROM order_line, stock\n"
    "        WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20\n"
    "            AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;\n"
    "    COMMIT;\n"
    "    SELECT v_count;\n"
    "END",
};

const char *const tpcc_mysql_call_sql[5] = {
    "CALL dbgauge_new_order(?, ?, ?, ?, ?, ?, ?)",
    "CALL dbgauge_payment(?, ?, ?, ?, ?, ?, ?)",
    "CALL dbgauge_order_status(?, ?, ?, ?)",
    "CALL dbgauge_delivery(?, ?)",
    "CALL dbgauge_stock_level(?, ?, ?)",
};

int tpcc_mysql_procedures_install(struct dg_conn_h *h, int version, struct dg_err *err)
{
    for (size_t i = 0; i < sizeof drop_sql / sizeof *drop_sql; i++)
        if (dg_exec(h, drop_sql[i], err))
            return -1;
    for (size_t i = 0; i < sizeof create_sql / sizeof *create_sql; i++)
        if (dg_exec(h, create_sql[i], err))
            return -1;
    char sql[160];
    snprintf(sql, sizeof sql,
             "CREATE FUNCTION dbgauge_procedures_version() RETURNS INT DETERMINISTIC NO SQL "
             "RETURN %d", version);
    return dg_exec(h, sql, err);
}
