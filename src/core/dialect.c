/* dialect.c — the one table of SQL dialect facts (core/dialect.h), and lookups by id and name.
 * Data only: no SQL is run and no engine header is included here. */
#include "core/dialect.h"

#include <stdio.h>
#include <string.h>

/* PostgreSQL's load settings. Measured here (2 cores, PostgreSQL 15, another build beside;
 * W=4 --jobs 2, 4 alternated runs, medians of the index phase): maintenance_work_mem 64MB (the
 * default) 4.06 s, 256MB 4.10 s, 1GB 3.96 s; max_parallel_maintenance_workers 0 3.90 s against
 * 2 4.10 s: all within the noise. Alone (one ADD PRIMARY KEY on W=4's order_line, 3 runs) 256MB
 * against 64MB: 1.31 s against 1.46 s serial, 0.97 s against 1.0 s with 2 workers. So:
 * synchronous_commit off (a warehouse's COMMIT does not wait for its WAL flush);
 * maintenance_work_mem 256MB (each key sorts in memory; 1GB gained nothing more and costs up to
 * a GB per job); max_parallel_maintenance_workers 2 (the default of 15, made explicit and
 * recorded: more workers than cores only queue). */
static const struct dg_setting pgsql_load[] = {
    {"synchronous_commit", "off"},
    {"maintenance_work_mem", "256MB"},
    {"max_parallel_maintenance_workers", "2"},
    {NULL, NULL},
};

/* MySQL/MariaDB's: the foreign key checks the loader's data does not need are skipped.
 * unique_checks stays 1, on purpose: with both off, InnoDB (MariaDB 10.6+, MDEV-24818) loads an
 * empty table in bulk but holds an exclusive lock on it until the transaction ends, so only the
 * job loading warehouse 1 ran while the other waited on every table. Measured on W=4 --jobs 2,
 * 3 alternated runs on a quiet 2-core machine: 19.9 s (median) with both off against 14.9 s
 * with unique_checks kept (-25%). Left out on purpose: sql_log_bin = 0 (needs SUPER or BINLOG
 * ADMIN, and a primary's replicas would then miss the rows: not dbgauge's call);
 * innodb_flush_log_at_trx_commit, the buffer pool and the redo log are global, the server's
 * owner's. */
static const struct dg_setting mysql_load[] = {
    {"unique_checks", "1"},
    {"foreign_key_checks", "0"},
    {NULL, NULL},
};

static const struct dg_dialect_desc descs[DG_DIALECT_COUNT] = {
    [DG_DIALECT_NONE] = {
        .id = DG_DIALECT_NONE, .name = "none", .display = "no SQL engine",
        .row_lock = "", .returning = DG_RETURNING_CLAUSE, .limit = DG_LIMIT_CLAUSE,
        .timestamp_type = "TIMESTAMP", .clustered_table_suffix = "", .table_suffix = "",
        .analyze_table = "ANALYZE ", .analyze_all = "ANALYZE",
    },
    [DG_DIALECT_SQLITE] = {
        .id = DG_DIALECT_SQLITE, .name = "sqlite", .display = "SQLite",
        .embedded = 1, .single_writer = 1, .procedures = 0,
        .row_lock = "", .returning = DG_RETURNING_CLAUSE, .limit = DG_LIMIT_CLAUSE,
        .timestamp_type = "TIMESTAMP", .clustered_table_suffix = " WITHOUT ROWID", .table_suffix = "",
        .analyze_table = "ANALYZE ", .analyze_all = "ANALYZE",
    },
    [DG_DIALECT_PGSQL] = {
        .id = DG_DIALECT_PGSQL, .name = "pgsql", .display = "PostgreSQL", .procedures = 1,
        .row_lock = " FOR UPDATE", .returning = DG_RETURNING_CLAUSE, .limit = DG_LIMIT_CLAUSE,
        .timestamp_type = "TIMESTAMP", .clustered_table_suffix = "", .table_suffix = "",
        .analyze_table = "ANALYZE ", .analyze_all = "ANALYZE", .load_settings = pgsql_load,
    },
    [DG_DIALECT_MYSQL] = {
        /* TIMESTAMP is a 2038-bounded type with implicit defaults there: dates are DATETIME. */
        .id = DG_DIALECT_MYSQL, .name = "mysql", .display = "MySQL/MariaDB", .procedures = 1,
        .row_lock = " FOR UPDATE", .returning = DG_RETURNING_NONE, .limit = DG_LIMIT_CLAUSE,
        .timestamp_type = "DATETIME", .clustered_table_suffix = " ENGINE=InnoDB",
        .table_suffix = " ENGINE=InnoDB", .analyze_table = "ANALYZE TABLE ", .analyze_all = NULL,
        .load_settings = mysql_load,
    },
    [DG_DIALECT_MSSQL] = {
        /* TIMESTAMP is a row version in T-SQL: dates are DATETIME2. */
        .id = DG_DIALECT_MSSQL, .name = "mssql", .display = "SQL Server", .procedures = 1,
        .row_lock = "", .table_lock_hint = " WITH (UPDLOCK, ROWLOCK)",
        .returning = DG_RETURNING_OUTPUT, .limit = DG_LIMIT_TOP, .timestamp_type = "DATETIME2(3)",
        .clustered_table_suffix = "", .table_suffix = "", .analyze_table = "UPDATE STATISTICS ",
        .analyze_all = "EXEC sp_updatestats", .batch_separator = "GO",
    },
};

const struct dg_dialect_desc *dg_dialect(enum dg_dialect d)
{
    return (unsigned)d < DG_DIALECT_COUNT ? &descs[d] : &descs[DG_DIALECT_NONE];
}

const char *dg_dialect_name(enum dg_dialect d) { return dg_dialect(d)->name; }

enum dg_dialect dg_dialect_by_name(const char *name)
{
    for (int i = 1; name && i < DG_DIALECT_COUNT; i++)
        if (!strcmp(descs[i].name, name))
            return (enum dg_dialect)i;
    return DG_DIALECT_NONE;
}

int dg_load_setting_sql(enum dg_dialect d, int i, int on, char *out, size_t cap)
{
    const struct dg_setting *set = dg_dialect(d)->load_settings;
    if (!set || i < 0)
        return 0;
    for (int k = 0; k <= i; k++) /* past the last: none */
        if (!set[k].name)
            return 0;
    int n;
    switch (d) { /* each engine's own way to set a session's value and to take it back */
    case DG_DIALECT_PGSQL:
        n = on ? snprintf(out, cap, "SET %s = '%s'", set[i].name, set[i].value)
               : snprintf(out, cap, "RESET %s", set[i].name);
        break;
    case DG_DIALECT_MYSQL:
        n = snprintf(out, cap, "SET SESSION %s = %s", set[i].name, on ? set[i].value : "DEFAULT");
        break;
    default: return -1; /* settings in the table without a way to write them */
    }
    return n < 0 || (size_t)n >= cap ? -1 : n;
}
