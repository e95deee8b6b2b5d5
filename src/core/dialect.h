/* dialect.h — the SQL dialects dbgauge speaks and one descriptor per dialect: the facts about
 * an engine's SQL that more than one place needs (names, row locks, RETURNING, LIMIT/TOP, type
 * names, statistics). Pure data; never includes a database header, never runs SQL.
 * What only one workload cares about (TPC-C's procedures, its key strategy) stays there. */
#ifndef DG_DIALECT_H
#define DG_DIALECT_H

#include <stddef.h>

enum dg_dialect {
    DG_DIALECT_NONE = 0, /* the null driver, or an ODBC source of no known engine */
    DG_DIALECT_SQLITE,
    DG_DIALECT_PGSQL,
    DG_DIALECT_MYSQL,
    DG_DIALECT_MSSQL,
    DG_DIALECT_COUNT
};

/* How an UPDATE hands back the columns it wrote. */
enum dg_returning {
    DG_RETURNING_NONE = 0, /* no such clause (MySQL/MariaDB): SELECT the row afterwards */
    DG_RETURNING_CLAUSE,   /* UPDATE ... WHERE ... RETURNING a, b (PostgreSQL, SQLite >= 3.35) */
    DG_RETURNING_OUTPUT,   /* UPDATE ... SET ... OUTPUT inserted.a WHERE ... (T-SQL) */
};

/* Where "the first n rows" goes. */
enum dg_limit {
    DG_LIMIT_CLAUSE = 0, /* SELECT ... LIMIT n */
    DG_LIMIT_TOP,        /* SELECT TOP (n) ... */
};

/* A session setting, as the engine's SET takes its name and value. */
struct dg_setting {
    const char *name, *value;
};

struct dg_dialect_desc {
    enum dg_dialect id;
    const char *name;      /* as users type it and as it is recorded: "sqlite", "pgsql", ... */
    const char *display;   /* as messages say it: "SQLite", "PostgreSQL", ... */
    int embedded;          /* the engine runs inside dbgauge's process (SQLite) */
    int single_writer;     /* one writer at a time per database: parallel writers only queue */
    int procedures;        /* the engine has stored procedures / functions */
    /* Appended to a SELECT that locks the rows it reads (" FOR UPDATE"); "" where there is
     * no such clause (SQLite: the write transaction holds the lock; T-SQL: table_lock_hint). */
    const char *row_lock;
    /* Put after the table name of a SELECT that locks rows (T-SQL " WITH (UPDLOCK, ROWLOCK)");
     * NULL where row_lock does it. */
    const char *table_lock_hint;
    enum dg_returning returning;
    enum dg_limit limit;
    const char *timestamp_type; /* a date and time column: TIMESTAMP, DATETIME, DATETIME2(3) */
    /* After CREATE TABLE (...) of a table stored in its primary key's order (" WITHOUT ROWID",
     * " ENGINE=InnoDB"), and after any other CREATE TABLE (" ENGINE=InnoDB"); "" for none. */
    const char *clustered_table_suffix;
    const char *table_suffix;
    /* Refreshes the planner statistics: of one table (this prefix, then the table's name),
     * and of the whole database (NULL where the engine has no such form: name the tables). */
    const char *analyze_table;
    const char *analyze_all;
    /* The line that ends one batch of a script (T-SQL "GO"); NULL where statements end with ';'. */
    const char *batch_separator;
    /* The session settings a bulk load puts on each of its connections and takes back when it
     * ends, whichever driver reaches the engine (its own or ODBC), chosen by measurement
     * (dialect.c says why); ended by {NULL}; NULL for none. dg_load_setting_sql writes them. */
    const struct dg_setting *load_settings;
};

/* The descriptor of d; DG_DIALECT_NONE's (name "none") for any value out of range. Static:
 * never freed. */
const struct dg_dialect_desc *dg_dialect(enum dg_dialect d);
/* The statement that puts d's i-th load setting on a session (on), or the server's own value
 * back (off): PostgreSQL "SET name = 'value'" / "RESET name", MySQL "SET SESSION name = value"
 * / "SET SESSION name = DEFAULT". Returns its length; 0 past the last setting (and for a
 * dialect without load settings); -1 when it does not fit in cap, or when d has settings but
 * no way to write them here. */
int dg_load_setting_sql(enum dg_dialect d, int i, int on, char *out, size_t cap);
/* dg_dialect(d)->name. */
const char *dg_dialect_name(enum dg_dialect d);
/* The dialect a name denotes (exactly as dg_dialect_name gives it); DG_DIALECT_NONE when no
 * dialect has that name (or for "none"). */
enum dg_dialect dg_dialect_by_name(const char *name);

#endif
