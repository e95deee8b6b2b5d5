-- dbgauge TPC-C SQL, dialect 4

-- tables
CREATE TABLE warehouse (w_id INTEGER NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20), w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2));
CREATE TABLE district (d_id INTEGER NOT NULL, d_w_id INTEGER NOT NULL, d_name VARCHAR(10), d_street_1 VARCHAR(20), d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), d_next_o_id INTEGER);
CREATE TABLE customer (c_id INTEGER NOT NULL, c_d_id INTEGER NOT NULL, c_w_id INTEGER NOT NULL, c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16), c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16), c_since DATETIME2(3), c_credit CHAR(2), c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4), c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2), c_payment_cnt INTEGER, c_delivery_cnt INTEGER, c_data VARCHAR(500));
CREATE TABLE history (h_c_id INTEGER, h_c_d_id INTEGER, h_c_w_id INTEGER, h_d_id INTEGER, h_w_id INTEGER, h_date DATETIME2(3), h_amount DECIMAL(6,2), h_data VARCHAR(24));
CREATE TABLE new_order (no_o_id INTEGER NOT NULL, no_d_id INTEGER NOT NULL, no_w_id INTEGER NOT NULL);
CREATE TABLE orders (o_id INTEGER NOT NULL, o_d_id INTEGER NOT NULL, o_w_id INTEGER NOT NULL, o_c_id INTEGER, o_entry_d DATETIME2(3), o_carrier_id INTEGER, o_ol_cnt INTEGER, o_all_local INTEGER);
CREATE TABLE order_line (ol_o_id INTEGER NOT NULL, ol_d_id INTEGER NOT NULL, ol_w_id INTEGER NOT NULL, ol_number INTEGER NOT NULL, ol_i_id INTEGER, ol_supply_w_id INTEGER, ol_delivery_d DATETIME2(3), ol_quantity INTEGER, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24));
CREATE TABLE item (i_id INTEGER NOT NULL, i_im_id INTEGER, i_name VARCHAR(24), i_price DECIMAL(5,2), i_data VARCHAR(50));
CREATE TABLE stock (s_i_id INTEGER NOT NULL, s_w_id INTEGER NOT NULL, s_quantity INTEGER, s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd INTEGER, s_order_cnt INTEGER, s_remote_cnt INTEGER, s_data VARCHAR(50));
CREATE TABLE dbgauge_tpcc_meta (c_last_load INTEGER, c_id INTEGER, ol_i_id INTEGER, warehouses INTEGER, loaded_at VARCHAR(32));
CREATE TABLE dbgauge_tpcc_load (unit INTEGER NOT NULL, warehouses INTEGER, seed VARCHAR(24));

-- keys and indexes (after the data)
ALTER TABLE warehouse ADD CONSTRAINT warehouse_pk PRIMARY KEY CLUSTERED (w_id);
ALTER TABLE district ADD CONSTRAINT district_pk PRIMARY KEY CLUSTERED (d_w_id, d_id);
ALTER TABLE customer ADD CONSTRAINT customer_pk PRIMARY KEY CLUSTERED (c_w_id, c_d_id, c_id);
ALTER TABLE new_order ADD CONSTRAINT new_order_pk PRIMARY KEY CLUSTERED (no_w_id, no_d_id, no_o_id);
ALTER TABLE orders ADD CONSTRAINT orders_pk PRIMARY KEY CLUSTERED (o_w_id, o_d_id, o_id);
ALTER TABLE order_line ADD CONSTRAINT order_line_pk PRIMARY KEY CLUSTERED (ol_w_id, ol_d_id, ol_o_id, ol_number);
ALTER TABLE item ADD CONSTRAINT item_pk PRIMARY KEY CLUSTERED (i_id);
ALTER TABLE stock ADD CONSTRAINT stock_pk PRIMARY KEY CLUSTERED (s_w_id, s_i_id);
CREATE NONCLUSTERED INDEX customer_name ON customer (c_w_id, c_d_id, c_last, c_first);
CREATE NONCLUSTERED INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id);
EXEC sp_updatestats;

-- SQL mode statements
SELECT w_tax FROM warehouse WHERE w_id = ?;
UPDATE district SET d_next_o_id = d_next_o_id + 1 OUTPUT inserted.d_tax, inserted.d_next_o_id - 1 WHERE d_w_id = ? AND d_id = ?;
SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;
SELECT i_price, i_name, i_data FROM item WHERE i_id = ?;
UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?;
INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, NULL, ?, ?);
INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?);
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?);
UPDATE warehouse SET w_ytd = w_ytd + ? OUTPUT inserted.w_name, inserted.w_street_1, inserted.w_street_2, inserted.w_city, inserted.w_state, inserted.w_zip WHERE w_id = ?;
UPDATE district SET d_ytd = d_ytd + ? OUTPUT inserted.d_name, inserted.d_street_1, inserted.d_street_2, inserted.d_city, inserted.d_state, inserted.d_zip WHERE d_w_id = ? AND d_id = ?;
SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first;
SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, CASE WHEN c_credit = 'BC' THEN c_data END FROM customer WITH (UPDLOCK, ROWLOCK) WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;
UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;
UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;
INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?);
SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;
SELECT TOP (1) o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC;
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?;
SELECT TOP (1) no_o_id FROM new_order WITH (UPDLOCK, ROWLOCK) WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id;
DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?;
UPDATE orders SET o_carrier_id = ? OUTPUT inserted.o_c_id WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?;
UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?;
SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?;
UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;
SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?;
SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?;
SELECT s_quantity, s_data, s_dist_01 FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_i_id = ? AND s_w_id = ?;
SELECT s_quantity, s_data, s_dist_02 FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_i_id = ? AND s_w_id = ?;
SELECT s_quantity, s_data, s_dist_03 FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_i_id = ? AND s_w_id = ?;
SELECT s_quantity, s_data, s_dist_04 FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_i_id = ? AND s_w_id = ?;
SELECT s_quantity, s_data, s_dist_05 FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_i_id = ? AND s_w_id = ?;
SELECT s_quantity, s_data, s_dist_06 FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_i_id = ? AND s_w_id = ?;
SELECT s_quantity, s_data, s_dist_07 FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_i_id = ? AND s_w_id = ?;
SELECT s_quantity, s_data, s_dist_08 FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_i_id = ? AND s_w_id = ?;
SELECT s_quantity, s_data, s_dist_09 FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_i_id = ? AND s_w_id = ?;
SELECT s_quantity, s_data, s_dist_10 FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_i_id = ? AND s_w_id = ?;

-- procedures (one batch each)
CREATE OR ALTER PROCEDURE dbgauge_new_order @w int, @d int, @c int, @all_local int,
    @items varchar(200), @supply varchar(200), @qty varchar(200)
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @w_tax decimal(4,4), @d_tax decimal(4,4), @o_id int, @disc decimal(4,4),
        @last varchar(16), @credit char(2), @n int, @found int, @total decimal(12,2);
    DECLARE @l TABLE (n int PRIMARY KEY, i_id int, sw int, q int);
    DECLARE @s TABLE (n int, i_id int, sw int, q int, s_data varchar(50), dist char(24));
    INSERT INTO @l (n, i_id, sw, q)
        SELECT CAST(a.[key] AS int) + 1, CAST(a.value AS int), CAST(b.value AS int),
            CAST(q.value AS int)
        FROM OPENJSON(REPLACE(REPLACE(@items, '{', '['), '}', ']')) a
        JOIN OPENJSON(REPLACE(REPLACE(@supply, '{', '['), '}', ']')) b ON b.[key] = a.[key]
        JOIN OPENJSON(REPLACE(REPLACE(@qty, '{', '['), '}', ']')) q ON q.[key] = a.[key];
    SELECT @n = COUNT(*) FROM @l;
    BEGIN TRANSACTION;
    SELECT @w_tax = w_tax FROM warehouse WHERE w_id = @w;
    UPDATE district SET @d_tax = d_tax, @o_id = d_next_o_id, d_next_o_id = d_next_o_id + 1
        WHERE d_w_id = @w AND d_id = @d;
    SELECT @disc = c_discount, @last = c_last, @credit = c_credit FROM customer
        WHERE c_w_id = @w AND c_d_id = @d AND c_id = @c;
    SELECT @found = COUNT(*) FROM @l l JOIN item i ON i.i_id = l.i_id;
    IF @found < @n
    BEGIN
        ROLLBACK TRANSACTION;
        THROW 50001, 'item number is not valid', 1;
    END;
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,
        o_all_local) VALUES (@o_id, @d, @w, @c, SYSDATETIME(), NULL, @n, @all_local);
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (@o_id, @d, @w);
    UPDATE s SET s_quantity = CASE WHEN s.s_quantity >= l.q + 10 THEN s.s_quantity - l.q
            ELSE s.s_quantity - l.q + 91 END,
        s_ytd = s.s_ytd + l.q, s_order_cnt = s.s_order_cnt + 1,
        s_remote_cnt = s.s_remote_cnt + CASE WHEN l.sw <> @w THEN 1 ELSE 0 END
    OUTPUT l.n, l.i_id, l.sw, l.q, inserted.s_data, CASE @d WHEN 1 THEN inserted.s_dist_01
        WHEN 2 THEN inserted.s_dist_02 WHEN 3 THEN inserted.s_dist_03
        WHEN 4 THEN inserted.s_dist_04 WHEN 5 THEN inserted.s_dist_05
        WHEN 6 THEN inserted.s_dist_06 WHEN 7 THEN inserted.s_dist_07
        WHEN 8 THEN inserted.s_dist_08 WHEN 9 THEN inserted.s_dist_09
        ELSE inserted.s_dist_10 END INTO @s
    FROM stock s WITH (ROWLOCK) JOIN @l l ON s.s_i_id = l.i_id AND s.s_w_id = l.sw;
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
        ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        SELECT @o_id, @d, @w, s.n, s.i_id, s.sw, NULL, s.q, s.q * i.i_price, s.dist
        FROM @s s JOIN item i ON i.i_id = s.i_id;
    SELECT @total = SUM(s.q * i.i_price) FROM @s s JOIN item i ON i.i_id = s.i_id;
    COMMIT TRANSACTION;
    SELECT CAST(@total * (1 - @disc) * (1 + @w_tax + @d_tax) AS decimal(12,2)) AS total, @o_id AS o_id;
END
GO
CREATE OR ALTER PROCEDURE dbgauge_payment @w int, @d int, @c_w int, @c_d int, @c_id int,
    @c_last varchar(16), @amount decimal(6,2)
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @w_name varchar(10), @d_name varchar(10), @n int, @balance decimal(12,2);
    BEGIN TRANSACTION;
    UPDATE warehouse SET w_ytd = w_ytd + @amount, @w_name = w_name WHERE w_id = @w;
    UPDATE district SET d_ytd = d_ytd + @amount, @d_name = d_name
        WHERE d_w_id = @w AND d_id = @d;
    IF @c_last IS NOT NULL
    BEGIN
        SELECT @n = COUNT(*) FROM customer
            WHERE c_w_id = @c_w AND c_d_id = @c_d AND c_last = @c_last;
        IF @n = 0
        BEGIN
            IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;
            THROW 50002, 'no customer with that last name', 1;
        END;
        SELECT @c_id = c_id FROM customer
            WHERE c_w_id = @c_w AND c_d_id = @c_d AND c_last = @c_last
            ORDER BY c_first OFFSET (@n - 1) / 2 ROWS FETCH NEXT 1 ROWS ONLY;
    END;
    UPDATE customer SET c_balance = c_balance - @amount,
        c_ytd_payment = c_ytd_payment + @amount, c_payment_cnt = c_payment_cnt + 1,
        c_data = CASE WHEN c_credit = 'BC' THEN LEFT(CONCAT(@c_id, ' ', @c_d, ' ', @c_w, ' ',
            @d, ' ', @w, ' ', @amount, '|', c_data), 500) ELSE c_data END,
        @balance = c_balance - @amount
        WHERE c_w_id = @c_w AND c_d_id = @c_d AND c_id = @c_id;
    IF @@ROWCOUNT = 0
    BEGIN
        ROLLBACK TRANSACTION;
        THROW 50003, 'no such customer', 1;
    END;
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
        VALUES (@c_id, @c_d, @c_w, @d, @w, SYSDATETIME(), @amount,
            LEFT(CONCAT(@w_name, '    ', @d_name), 24));
    COMMIT TRANSACTION;
    SELECT @c_id AS c_id;
END
GO
CREATE OR ALTER PROCEDURE dbgauge_order_status @w int, @d int, @c_id int, @c_last varchar(16)
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @n int, @o_id int, @balance decimal(12,2), @first varchar(16), @lines int;
    IF @c_last IS NOT NULL
    BEGIN
        SELECT @n = COUNT(*) FROM customer
            WHERE c_w_id = @w AND c_d_id = @d AND c_last = @c_last;
        IF @n = 0
        BEGIN
            IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;
            THROW 50002, 'no customer with that last name', 1;
        END;
        SELECT @c_id = c_id FROM customer
            WHERE c_w_id = @w AND c_d_id = @d AND c_last = @c_last
            ORDER BY c_first OFFSET (@n - 1) / 2 ROWS FETCH NEXT 1 ROWS ONLY;
    END;
    SELECT @balance = c_balance, @first = c_first FROM customer
        WHERE c_w_id = @w AND c_d_id = @d AND c_id = @c_id;
    SELECT TOP (1) @o_id = o_id FROM orders
        WHERE o_w_id = @w AND o_d_id = @d AND o_c_id = @c_id ORDER BY o_id DESC;
    IF @o_id IS NULL
        THROW 50004, 'the customer has no order', 1;
    SELECT @lines = COUNT(*) FROM order_line
        WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id = @o_id;
    SELECT @lines AS lines;
END
GO
CREATE OR ALTER PROCEDURE dbgauge_delivery @w int, @carrier int
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @d int = 1, @o int, @c int, @sum decimal(12,2), @skipped int = 0;
    BEGIN TRANSACTION;
    WHILE @d <= 10
    BEGIN
        SET @o = NULL;
        SELECT TOP (1) @o = no_o_id FROM new_order WITH (UPDLOCK, ROWLOCK)
            WHERE no_w_id = @w AND no_d_id = @d ORDER BY no_o_id;
        IF @o IS NULL
            SET @skipped = @skipped + 1;
        ELSE
        BEGIN
            DELETE FROM new_order WHERE no_w_id = @w AND no_d_id = @d AND no_o_id = @o;
            UPDATE orders SET o_carrier_id = @carrier, @c = o_c_id
                WHERE o_w_id = @w AND o_d_id = @d AND o_id = @o;
            UPDATE order_line SET ol_delivery_d = SYSDATETIME()
                WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id = @o;
            SELECT @sum = SUM(ol_amount) FROM order_line
                WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id = @o;
            UPDATE customer SET c_balance = c_balance + @sum,
                c_delivery_cnt = c_delivery_cnt + 1
                WHERE c_w_id = @w AND c_d_id = @d AND c_id = @c;
        END;
        SET @d = @d + 1;
    END;
    COMMIT TRANSACTION;
    SELECT @skipped AS skipped;
END
GO
CREATE OR ALTER PROCEDURE dbgauge_stock_level @w int, @d int, @threshold int
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @next int, @count int;
    SELECT @next = d_next_o_id FROM district WHERE d_w_id = @w AND d_id = @d;
    SELECT @count = COUNT(DISTINCT s_i_id) FROM order_line, stock
        WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id < @next AND ol_o_id >= @next - 20
            AND s_w_id = @w AND s_i_id = ol_i_id AND s_quantity < @threshold;
    SELECT @count AS low_stock;
END
GO
CREATE OR ALTER FUNCTION dbo.dbgauge_procedures_version() RETURNS int AS BEGIN RETURN 2; END
GO

-- calls
EXEC dbgauge_new_order ?, ?, ?, ?, ?, ?, ?;
EXEC dbgauge_payment ?, ?, ?, ?, ?, ?, ?;
EXEC dbgauge_order_status ?, ?, ?, ?;
EXEC dbgauge_delivery ?, ?;
EXEC dbgauge_stock_level ?, ?, ?;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;
