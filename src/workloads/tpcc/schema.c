/* schema.c — the nine TPC-C tables with the standard's names in lower case, keys and
 * secondary indexes per dialect, and the small dbgauge_tpcc_meta table that remembers the
 * load-time NURand constants. DDL only; no data. */
#include <stdio.h>
#include <string.h>

#include "workloads/tpcc/tpcc.h"

/* Column lists. On SQLite and InnoDB the keys go in the CREATE TABLE (rows arrive in key
 * order, and WITHOUT ROWID / InnoDB tables are clustered on them: adding the key afterwards
 * would rebuild the table); elsewhere keys are built after the data. */
struct table_def {
    const char *name;
    const char *columns;
    const char *key; /* NULL: no primary key (history) */
    /* PostgreSQL: percent of each heap page filled at load (0: the default 100). Rows that are
     * updated in place keep room on their own page, so the update stays HOT: no new index
     * entries, less WAL. Measured on W=4, 1 user, procedures: +13% NOPM. */
    int fillfactor;
};

static const struct table_def tables[] = {
    {"warehouse",
     "w_id INTEGER NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20), "
     "w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2)",
     "w_id", 10},
    {"district",
     "d_id INTEGER NOT NULL, d_w_id INTEGER NOT NULL, d_name VARCHAR(10), d_street_1 VARCHAR(20), "
     "d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), "
     "d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), d_next_o_id INTEGER",
     "d_w_id, d_id", 10},
    {"customer",
     "c_id INTEGER NOT NULL, c_d_id INTEGER NOT NULL, c_w_id INTEGER NOT NULL, "
     "c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16), c_street_1 VARCHAR(20), "
     "c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9), "
     "c_phone CHAR(16), c_since TIMESTAMP, c_credit CHAR(2), c_credit_lim DECIMAL(12,2), "
     "c_discount DECIMAL(4,4), c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2), "
     "c_payment_cnt INTEGER, c_delivery_cnt INTEGER, c_data VARCHAR(500)",
     "c_w_id, c_d_id, c_id", 80},
    {"history",
     "h_c_id INTEGER, h_c_d_id INTEGER, h_c_w_id INTEGER, h_d_id INTEGER, h_w_id INTEGER, "
     "h_date TIMESTAMP, h_amount DECIMAL(6,2), h_data VARCHAR(24)",
     NULL, 0},
    {"new_order", "no_o_id INTEGER NOT NULL, no_d_id INTEGER NOT NULL, no_w_id INTEGER NOT NULL",
     "no_w_id, no_d_id, no_o_id", 0},
    {"orders",
     "o_id INTEGER NOT NULL, o_d_id INTEGER NOT NULL, o_w_id INTEGER NOT NULL, o_c_id INTEGER, "
     "o_entry_d TIMESTAMP, o_carrier_id INTEGER, o_ol_cnt INTEGER, o_all_local INTEGER",
     "o_w_id, o_d_id, o_id", 90},
    {"order_line",
     "ol_o_id INTEGER NOT NULL, ol_d_id INTEGER NOT NULL, ol_w_id INTEGER NOT NULL, "
     "ol_number INTEGER NOT NULL, ol_i_id INTEGER, ol_supply_w_id INTEGER, "
     "ol_delivery_d TIMESTAMP, ol_quantity INTEGER, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24)",
     "ol_w_id, ol_d_id, ol_o_id, ol_number", 90},
    {"item",
     "i_id INTEGER NOT NULL, i_im_id INTEGER, i_name VARCHAR(24), i_price DECIMAL(5,2), "
     "i_data VARCHAR(50)",
     "i_id", 0},
    {"stock",
     "s_i_id INTEGER NOT NULL, s_w_id INTEGER NOT NULL, s_quantity INTEGER, "
     "s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), "
     "s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), "
     "s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd INTEGER, s_order_cnt INTEGER, "
     "s_remote_cnt INTEGER, s_data VARCHAR(50)",
     "s_w_id, s_i_id", 80},
};
#define NTABLES (sizeof tables / sizeof *tables)

static const char meta_ddl[] =
    "CREATE TABLE dbgauge_tpcc_meta (c_last_load INTEGER, c_id INTEGER, ol_i_id INTEGER, "
    "warehouses INTEGER, loaded_at VARCHAR(32))";
/* What a load has done (load.c): the plan (unit -1: warehouses, seed), each unit committed
 * (0: ITEM, w: warehouse w) and each key or index built (-2 - its number), each marked in the
 * transaction that did it, so --resume knows what is there. */
static const char load_ddl[] =
    "CREATE TABLE dbgauge_tpcc_load (unit INTEGER NOT NULL, warehouses INTEGER, seed VARCHAR(24))";

/* Where TPC-C puts the keys in CREATE TABLE (engines whose tables are stored in key order). */
static int keys_inline(enum dg_dialect d) { return d == DG_DIALECT_SQLITE || d == DG_DIALECT_MYSQL; }

/* The column list in the dialect's types: the date and time type is spelled per engine
 * (core/dialect.c says why). */
static void columns_for(enum dg_dialect d, const char *cols, char *out, size_t cap)
{
    const char *date = dg_dialect(d)->timestamp_type;
    size_t o = 0;
    for (const char *p = cols; *p && o + 16 < cap;) {
        if (strncmp(p, "TIMESTAMP", 9) == 0) {
            o += (size_t)snprintf(out + o, cap - o, "%s", date);
            p += 9;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
}

int tpcc_schema_sql(enum dg_dialect d, int i, char *out, size_t cap)
{
    if (i < 0 || i > (int)NTABLES + 1)
        return -1;
    if (i >= (int)NTABLES)
        return snprintf(out, cap, "%s", i == (int)NTABLES ? meta_ddl : load_ddl);
    const struct table_def *t = &tables[i];
    const struct dg_dialect_desc *dd = dg_dialect(d);
    char cols[1536];
    columns_for(d, t->columns, cols, sizeof cols);
    if (keys_inline(d) && t->key) /* rows arrive in key order */
        return snprintf(out, cap, "CREATE TABLE %s (%s, PRIMARY KEY (%s))%s", t->name, cols, t->key,
                        dd->clustered_table_suffix);
    if (t->fillfactor && d == DG_DIALECT_PGSQL)
        return snprintf(out, cap, "CREATE TABLE %s (%s) WITH (fillfactor = %d)", t->name, cols, t->fillfactor);
    return snprintf(out, cap, "CREATE TABLE %s (%s)%s", t->name, cols, dd->table_suffix);
}

int tpcc_schema_create(struct dg_conn_h *h, struct dg_err *err)
{
    char sql[2048];
    for (int i = 0; tpcc_schema_sql(dg_conn_dialect(h), i, sql, sizeof sql) >= 0; i++)
        if (dg_exec(h, sql, err))
            return -1;
    return 0;
}

int tpcc_schema_drop(struct dg_conn_h *h, struct dg_err *err)
{
    char sql[128];
    for (size_t i = 0; i < NTABLES; i++) {
        snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS %s", tables[i].name);
        if (dg_exec(h, sql, err))
            return -1;
    }
    return dg_exec(h, "DROP TABLE IF EXISTS dbgauge_tpcc_meta", err) ||
           dg_exec(h, "DROP TABLE IF EXISTS dbgauge_tpcc_load", err);
}

/* Secondary access paths the transactions need: customers by last name (Payment,
 * Order-Status), a customer's latest order (Order-Status). Built after the data everywhere.
 * InnoDB: declared in CREATE TABLE instead, loading W=2 with 2 jobs (LOAD DATA, 5 runs each,
 * alternated) took 6.55 s median against 6.41 s for after: no gain, so after it stays. */
static const char *const sqlite_indexes[] = { /* and MySQL: the keys are inline. IF NOT EXISTS: a
                                                * MySQL DDL commits by itself, before the load
                                                * can mark it done, so --resume may meet it */
    "CREATE INDEX IF NOT EXISTS customer_name ON customer (c_w_id, c_d_id, c_last, c_first)",
    "CREATE INDEX IF NOT EXISTS orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)",
    NULL,
};
/* Longest first, so the jobs finish together (W=4, each alone: order_line 1.28 s, stock 0.42,
 * customer 0.28, customer_name 0.28, orders and orders_customer 0.18, the rest less). */
static const char *const pgsql_indexes[] = {
    "ALTER TABLE order_line ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)",
    "ALTER TABLE stock ADD PRIMARY KEY (s_w_id, s_i_id)",
    "ALTER TABLE customer ADD PRIMARY KEY (c_w_id, c_d_id, c_id)",
    "CREATE INDEX customer_name ON customer (c_w_id, c_d_id, c_last, c_first)",
    "ALTER TABLE orders ADD PRIMARY KEY (o_w_id, o_d_id, o_id)",
    "CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)",
    "ALTER TABLE new_order ADD PRIMARY KEY (no_w_id, no_d_id, no_o_id)",
    "ALTER TABLE district ADD PRIMARY KEY (d_w_id, d_id)",
    "ALTER TABLE warehouse ADD PRIMARY KEY (w_id)",
    "ALTER TABLE item ADD PRIMARY KEY (i_id)",
    NULL,
};

/* SQL Server: clustered primary keys (the table is stored in key order), named. */
static const char *const mssql_indexes[] = {
    "ALTER TABLE warehouse ADD CONSTRAINT warehouse_pk PRIMARY KEY CLUSTERED (w_id)",
    "ALTER TABLE district ADD CONSTRAINT district_pk PRIMARY KEY CLUSTERED (d_w_id, d_id)",
    "ALTER TABLE customer ADD CONSTRAINT customer_pk PRIMARY KEY CLUSTERED (c_w_id, c_d_id, c_id)",
    "ALTER TABLE new_order ADD CONSTRAINT new_order_pk PRIMARY KEY CLUSTERED (no_w_id, no_d_id, no_o_id)",
    "ALTER TABLE orders ADD CONSTRAINT orders_pk PRIMARY KEY CLUSTERED (o_w_id, o_d_id, o_id)",
    "ALTER TABLE order_line ADD CONSTRAINT order_line_pk PRIMARY KEY CLUSTERED "
    "(ol_w_id, ol_d_id, ol_o_id, ol_number)",
    "ALTER TABLE item ADD CONSTRAINT item_pk PRIMARY KEY CLUSTERED (i_id)",
    "ALTER TABLE stock ADD CONSTRAINT stock_pk PRIMARY KEY CLUSTERED (s_w_id, s_i_id)",
    "CREATE NONCLUSTERED INDEX customer_name ON customer (c_w_id, c_d_id, c_last, c_first)",
    "CREATE NONCLUSTERED INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)",
    NULL,
};

static const char *const *const indexes[DG_DIALECT_COUNT] = {
    [DG_DIALECT_NONE] = pgsql_indexes, [DG_DIALECT_SQLITE] = sqlite_indexes,
    [DG_DIALECT_PGSQL] = pgsql_indexes, [DG_DIALECT_MYSQL] = sqlite_indexes,
    [DG_DIALECT_MSSQL] = mssql_indexes,
};

const char *const *tpcc_schema_index_sql(enum dg_dialect d)
{
    return indexes[dg_dialect(d)->id];
}

int tpcc_analyze_table_sql(enum dg_dialect d, int i, char *out, size_t cap)
{
    const char *prefix = dg_dialect(d)->analyze_table;
    if (!prefix || i < 0 || i >= (int)NTABLES)
        return -1;
    return snprintf(out, cap, "%s%s", prefix, tables[i].name);
}

const char *tpcc_analyze_sql(enum dg_dialect d)
{
    const char *all = dg_dialect(d)->analyze_all;
    return all ? all /* else the engine wants the tables named */
               : "ANALYZE TABLE warehouse, district, customer, history, new_order, orders, order_line, "
                 "item, stock";
}

int tpcc_meta_write(struct dg_conn_h *h, const struct tpcc_nurand *c, int warehouses,
                    struct dg_err *err)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "INSERT INTO dbgauge_tpcc_meta VALUES (%d, %d, %d, %d, CURRENT_TIMESTAMP)", c->c_last,
             c->c_id, c->ol_i_id, warehouses);
    return dg_exec(h, sql, err);
}

int tpcc_meta_read(struct dg_conn_h *h, struct tpcc_nurand *c, struct dg_err *err)
{
    struct dg_stmt *s = NULL;
    struct dg_err ignored;
    if (dg_prepare(h, "SELECT c_last_load, c_id, ol_i_id FROM dbgauge_tpcc_meta", 0, &s,
                        &ignored))
        return 0; /* a database loaded by another kit */
    int found = 0;
    if (dg_execute(h, s, NULL, err) == 0 && dg_next_row(h, s, err) == 1) {
        c->c_last = (int)dg_col_int(h, s, 0);
        c->c_id = (int)dg_col_int(h, s, 1);
        c->ol_i_id = (int)dg_col_int(h, s, 2);
        found = 1;
        dg_reset(h, s);
    }
    dg_finalize(h, s);
    return found;
}

int tpcc_schema_probe(struct dg_conn_h *h, int *warehouses, struct dg_err *err)
{
    char sql[128];
    for (size_t i = 0; i < NTABLES; i++) {
        int64_t n;
        if (dg_dialect(dg_conn_dialect(h))->limit == DG_LIMIT_TOP)
            snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM (SELECT TOP (1) 1 AS one FROM %s) t",
                     tables[i].name);
        else
            snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM (SELECT 1 FROM %s LIMIT 1) t", tables[i].name);
        if (dg_query_int(h, sql, &n, err)) {
            if (err->cls != DG_ERR_CONN) {
                char msg[sizeof err->msg];
                snprintf(msg, sizeof msg, "%s", err->msg);
                dg_err_set(err, DG_ERR_USER, err->code,
                           "the target has no usable TPC-C table '%s' (run 'dbgauge tpcc load' "
                           "first): %.300s", tables[i].name, msg);
            }
            return -1;
        }
    }
    int64_t w;
    if (dg_query_int(h, "SELECT COUNT(*) FROM warehouse", &w, err))
        return -1;
    if (w < 1)
        return dg_err_set(err, DG_ERR_USER, 0,
                          "the TPC-C tables are empty (run 'dbgauge tpcc load' first)");
    *warehouses = (int)w;
    return 0;
}
