/* procedures_mssql.c — --mode procedures on Microsoft SQL Server: the five transactions as
 * T-SQL stored procedures, one EXEC per transaction (as HammerDB runs SQL Server), each its
 * own transaction with XACT_ABORT. Texts only; procedures.c installs and calls them.
 * Not run against a live server here: checked against tests/golden/mssql/ and by eye. */
#include "workloads/tpcc/tpcc_internal.h"

/* Line lists arrive as "{1,2,3}" (the PostgreSQL array text procedures.c builds); brackets
 * make that a JSON array, which OPENJSON reads with its position ([key]). */
#define LIST(v) "OPENJSON(REPLACE(REPLACE(" v ", '{', '['), '}', ']'))"

static const char new_order[] =
    "CREATE OR ALTER PROCEDURE dbgauge_new_order @w int, @d int, @c int, @all_local int,\n"
    "    @items varchar(200), @supply varchar(200), @qty varchar(200)\n"
    "AS\n"
    "BEGIN\n"
    "    SET NOCOUNT ON;\n"
    "    SET XACT_ABORT ON;\n"
    "    DECLARE @w_tax decimal(4,4), @d_tax decimal(4,4), @o_id int, @disc decimal(4,4),\n"
    "        @last varchar(16), @credit char(2), @n int, @found int, @total decimal(12,2);\n"
    "    DECLARE @l TABLE (n int PRIMARY KEY, i_id int, sw int, q int);\n"
    "    DECLARE @s TABLE (n int, i_id int, sw int, q int, s_data varchar(50), dist char(24));\n"
    "    INSERT INTO @l (n, i_id, sw, q)\n"
    "        SELECT CAST(a.[key] AS int) + 1, CAST(a.value AS int), CAST(b.value AS int),\n"
    "            CAST(q.value AS int)\n"
    "        FROM " LIST("@items") " a\n"
    "        JOIN " LIST("@supply") " b ON b.[key] = a.[key]\n"
    "        JOIN " LIST("@qty") " q ON q.[key] = a.[key];\n"
    "    SELECT @n = COUNT(*) FROM @l;\n"
    "    BEGIN TRANSACTION;\n"
    "    SELECT @w_tax = w_tax FROM warehouse WHERE w_id = @w;\n"
    "    UPDATE district SET @d_tax = d_tax, @o_id = d_next_o_id, d_next_o_id = d_next_o_id + 1\n"
    "        WHERE d_w_id = @w AND d_id = @d;\n"
    "    SELECT @disc = c_discount, @last = c_last, @credit = c_credit FROM customer\n"
    "        WHERE c_w_id = @w AND c_d_id = @d AND c_id = @c;\n"
    "    SELECT @found = COUNT(*) FROM @l l JOIN item i ON i.i_id = l.i_id;\n"
    "    IF @found < @n\n"
    "    BEGIN\n"
    "        ROLLBACK TRANSACTION;\n"
    "        THROW 50001, 'item number is not valid', 1;\n"
    "    END;\n"
    "    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,\n"
    "        o_all_local) VALUES (@o_id, @d, @w, @c, SYSDATETIME(), NULL, @n, @all_local);\n"
    "    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (@o_id, @d, @w);\n"
    "    UPDATE s SET s_quantity = CASE WHEN s.s_quantity >= l.q + 10 THEN s.s_quantity - l.q\n"
    "            ELSE s.s_quantity - l.q + 91 END,\n"
    "        s_ytd = s.s_ytd + l.q, s_order_cnt = s.s_order_cnt + 1,\n"
    "        s_remote_cnt = s.s_remote_cnt + CASE WHEN l.sw <> @w THEN 1 ELSE 0 END\n"
    "    OUTPUT l.n, l.i_id, l.sw, l.q, inserted.s_data, CASE @d WHEN 1 THEN inserted.s_dist_01\n"
    "        WHEN 2 THEN inserted.s_dist_02 WHEN 3 THEN inserted.s_dist_03\n"
    "        WHEN 4 THEN inserted.s_dist_04 WHEN 5 THEN inserted.s_dist_05\n"
    "        WHEN 6 THEN inserted.s_dist_06 WHEN 7 THEN inserted.s_dist_07\n"
    "        WHEN 8 THEN inserted.s_dist_08 WHEN 9 THEN inserted.s_dist_09\n"
    "        ELSE inserted.s_dist_10 END INTO @s\n"
    "    FROM stock s WITH (ROWLOCK) JOIN @l l ON s.s_i_id = l.i_id AND s.s_w_id = l.sw;\n"
    "    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,\n"
    "        ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)\n"
    "        SELECT @o_id, @d, @w, s.n, s.i_id, s.sw, NULL, s.q, s.q * i.i_price, s.dist\n"
    "        FROM @s s JOIN item i ON i.i_id = s.i_id;\n"
    "    SELECT @total = SUM(s.q * i.i_price) FROM @s s JOIN item i ON i.i_id = s.i_id;\n"
    "    COMMIT TRANSACTION;\n"
    "    SELECT CAST(@total * (1 - @disc) * (1 + @w_tax + @d_tax) AS decimal(12,2)) AS total, @o_id AS o_id;\n"
    "END";

/* By last name: the customer at position ceil(n/2) in C_FIRST order (clause 2.5.2.2). */
#define BY_NAME(w, d)                                                                          \
    "    IF @c_last IS NOT NULL\n"                                                             \
    "    BEGIN\n"                                                                              \
    "        SELECT @n = COUNT(*) FROM customer\n"                                             \
    "            WHERE c_w_id = " w " AND c_d_id = " d " AND c_last = @c_last;\n"               \
    "        IF @n = 0\n"                                                                      \
    "        BEGIN\n"                                                                          \
    "            IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;\n"                                   \
    "            THROW 50002, 'no customer with that last name', 1;\n"                          \
    "        END;\n"                                                                           \
    "        SELECT @c_id = c_id FROM customer\n"                                              \
    "            WHERE c_w_id = " w " AND c_d_id = " d " AND c_last = @c_last\n"               \
    "            ORDER BY c_first OFFSET (@n - 1) / 2 ROWS FETCH NEXT 1 ROWS ONLY;\n"           \
    "    END;\n"

static const char payment[] =
    "CREATE OR ALTER PROCEDURE dbgauge_payment @w int, @d int, @c_w int, @c_d int, @c_id int,\n"
    "    @c_last varchar(16), @amount decimal(6,2)\n"
    "AS\n"
    "BEGIN\n"
    "    SET NOCOUNT ON;\n"
    "    SET XACT_ABORT ON;\n"
    "    DECLARE @w_name varchar(10), @d_name varchar(10), @n int, @balance decimal(12,2);\n"
    "    BEGIN TRANSACTION;\n"
    "    UPDATE warehouse SET w_ytd = w_ytd + @amount, @w_name = w_name WHERE w_id = @w;\n"
    "    UPDATE district SET d_ytd = d_ytd + @amount, @d_name = d_name\n"
    "        WHERE d_w_id = @w AND d_id = @d;\n"
    BY_NAME("@c_w", "@c_d")
    "    UPDATE customer SET c_balance = c_balance - @amount,\n"
    "        c_ytd_payment = c_ytd_payment + @amount, c_payment_cnt = c_payment_cnt + 1,\n"
    "        c_data = CASE WHEN c_credit = 'BC' THEN LEFT(CONCAT(@c_id, ' ', @c_d, ' ', @c_w, ' ',\n"
    "            @d, ' ', @w, ' ', @amount, '|', c_data), 500) ELSE c_data END,\n"
    "        @balance = c_balance - @amount\n"
    "        WHERE c_w_id = @c_w AND c_d_id = @c_d AND c_id = @c_id;\n"
    "    IF @@ROWCOUNT = 0\n"
    "    BEGIN\n"
    "        ROLLBACK TRANSACTION;\n"
    "        THROW 50003, 'no such customer', 1;\n"
    "    END;\n"
    "    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)\n"
    "        VALUES (@c_id, @c_d, @c_w, @d, @w, SYSDATETIME(), @amount,\n"
    "            LEFT(CONCAT(@w_name, '    ', @d_name), 24));\n"
    "    COMMIT TRANSACTION;\n"
    "    SELECT @c_id AS c_id;\n"
    "END";

static const char order_status[] =
    "CREATE OR ALTER PROCEDURE dbgauge_order_status @w int, @d int, @c_id int, @c_last varchar(16)\n"
    "AS\n"
    "BEGIN\n"
    "    SET NOCOUNT ON;\n"
    "    DECLARE @n int, @o_id int, @balance decimal(12,2), @first varchar(16), @lines int;\n"
    BY_NAME("@w", "@d")
    "    SELECT @balance = c_balance, @first = c_first FROM customer\n"
    "        WHERE c_w_id = @w AND c_d_id = @d AND c_id = @c_id;\n"
    "    SELECT TOP (1) @o_id = o_id FROM orders\n"
    "        WHERE o_w_id = @w AND o_d_id = @d AND o_c_id = @c_id ORDER BY o_id DESC;\n"
    "    IF @o_id IS NULL\n"
    "        THROW 50004, 'the customer has no order', 1;\n"
    "    SELECT @lines = COUNT(*) FROM order_line\n"
    "        WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id = @o_id;\n"
    "    SELECT @lines AS lines;\n"
    "END";

static const char delivery[] =
    "CREATE OR ALTER PROCEDURE dbgauge_delivery @w int, @carrier int\n"
    "AS\n"
    "BEGIN\n"
    "    SET NOCOUNT ON;\n"
    "    SET XACT_ABORT ON;\n"
    "    DECLARE @d int = 1, @o int, @c int, @sum decimal(12,2), @skipped int = 0;\n"
    "    BEGIN TRANSACTION;\n"
    "    WHILE @d <= 10\n"
    "    BEGIN\n"
    "        SET @o = NULL;\n"
    "        SELECT TOP (1) @o = no_o_id FROM new_order WITH (UPDLOCK, ROWLOCK)\n"
    "            WHERE no_w_id = @w AND no_d_id = @d ORDER BY no_o_id;\n"
    "        IF @o IS NULL\n"
    "            SET @skipped = @skipped + 1;\n"
    "        ELSE\n"
    "        BEGIN\n"
    "            DELETE FROM new_order WHERE no_w_id = @w AND no_d_id = @d AND no_o_id = @o;\n"
    "            UPDATE orders SET o_carrier_id = @carrier, @c = o_c_id\n"
    "                WHERE o_w_id = @w AND o_d_id = @d AND o_id = @o;\n"
    "            UPDATE order_line SET ol_delivery_d = SYSDATETIME()\n"
    "                WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id = @o;\n"
    "            SELECT @sum = SUM(ol_amount) FROM order_line\n"
    "                WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id = @o;\n"
    "            UPDATE customer SET c_balance = c_balance + @sum,\n"
    "                c_delivery_cnt = c_delivery_cnt + 1\n"
    "                WHERE c_w_id = @w AND c_d_id = @d AND c_id = @c;\n"
    "        END;\n"
    "        SET @d = @d + 1;\n"
    "    END;\n"
    "    COMMIT TRANSACTION;\n"
    "    SELECT @skipped AS skipped;\n"
    "END";

static const char stock_level[] =
    "CREATE OR ALTER PROCEDURE dbgauge_stock_level @w int, @d int, @threshold int\n"
    "AS\n"
    "BEGIN\n"
    "    SET NOCOUNT ON;\n"
    "    DECLARE @next int, @count int;\n"
    "    SELECT @next = d_next_o_id FROM district WHERE d_w_id = @w AND d_id = @d;\n"
    "    SELECT @count = COUNT(DISTINCT s_i_id) FROM order_line, stock\n"
    "        WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id < @next AND ol_o_id >= @next - 20\n"
    "            AND s_w_id = @w AND s_i_id = ol_i_id AND s_quantity < @threshold;\n"
    "    SELECT @count AS low_stock;\n"
    "END";

/* CREATE PROCEDURE must be alone in its batch: one exec per text. */
static const char *const install[] = {new_order, payment, order_status, delivery, stock_level, NULL};

static const char *const calls[] = {
    "EXEC dbgauge_new_order ?, ?, ?, ?, ?, ?, ?", "EXEC dbgauge_payment ?, ?, ?, ?, ?, ?, ?",
    "EXEC dbgauge_order_status ?, ?, ?, ?", "EXEC dbgauge_delivery ?, ?", "EXEC dbgauge_stock_level ?, ?, ?"};

const struct tpcc_proc_dialect tpcc_proc_mssql = {
    .install = install,
    .version_fmt = "CREATE OR ALTER FUNCTION dbo.dbgauge_procedures_version() RETURNS int AS "
                   "BEGIN RETURN %d; END",
    .version_query = "SELECT dbo.dbgauge_procedures_version()",
    .calls = calls,
    .iso_sql = {[DG_ISO_READ_COMMITTED] = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
                [DG_ISO_REPEATABLE_READ] = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
                [DG_ISO_SERIALIZABLE] = "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE"},
    .bad_item_code = 50001,
};
