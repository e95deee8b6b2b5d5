/* dialect.c — the one table of SQL dialect facts (core/dialect.h), and lookups by id and name.
 * Data only: no SQL is run and no engine header is included here. */
#include "core/dialect.h"

#include <string.h>

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
        .analyze_table = "ANALYZE ", .analyze_all = "ANALYZE",
    },
    [DG_DIALECT_MYSQL] = {
        /* TIMESTAMP is a 2038-bounded type with implicit defaults there: dates are DATETIME. */
        .id = DG_DIALECT_MYSQL, .name = "mysql", .display = "MySQL/MariaDB", .procedures = 1,
        .row_lock = " FOR UPDATE", .returning = DG_RETURNING_NONE, .limit = DG_LIMIT_CLAUSE,
        .timestamp_type = "DATETIME", .clustered_table_suffix = " ENGINE=InnoDB",
        .table_suffix = " ENGINE=InnoDB", .analyze_table = "ANALYZE TABLE ", .analyze_all = NULL,
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
