/* test_dialect.c — unit tests of the dialect table (core/dialect.h): every dialect has its
 * descriptor, names round-trip, the facts match the engines, the load settings as statements;
 * and of the driver table's rule
 * (core/driver.h): required slots filled by every built-in driver, absent optional slots give
 * their documented fallback. No database is opened. */
#include <string.h>

#include "dg_config.h"
#include "core/dialect.h"
#include "core/driver.h"
#include "check.h"

static void table(struct dg_test *t)
{
    int all = 1, round = 1;
    for (int i = 0; i < DG_DIALECT_COUNT; i++) {
        const struct dg_dialect_desc *d = dg_dialect((enum dg_dialect)i);
        all = all && d->id == (enum dg_dialect)i && d->name && d->display && d->row_lock &&
              d->timestamp_type && d->clustered_table_suffix && d->table_suffix && d->analyze_table;
        if (i != DG_DIALECT_NONE)
            round = round && dg_dialect_by_name(dg_dialect_name((enum dg_dialect)i)) == (enum dg_dialect)i;
    }
    CHECK(t, all, "every dialect has a complete descriptor with its own id", "a field is missing");
    CHECK(t, round, "names round-trip: dg_dialect_by_name(dg_dialect_name(d)) == d", "one does not");
    CHECK(t, !strcmp(dg_dialect_name(DG_DIALECT_SQLITE), "sqlite") && !strcmp(dg_dialect_name(DG_DIALECT_PGSQL), "pgsql") &&
                 !strcmp(dg_dialect_name(DG_DIALECT_MYSQL), "mysql") && !strcmp(dg_dialect_name(DG_DIALECT_MSSQL), "mssql"),
          "names are the ones users type", "%s %s %s %s", dg_dialect_name(DG_DIALECT_SQLITE),
          dg_dialect_name(DG_DIALECT_PGSQL), dg_dialect_name(DG_DIALECT_MYSQL), dg_dialect_name(DG_DIALECT_MSSQL));
    CHECK(t, dg_dialect_by_name("oracle") == DG_DIALECT_NONE && dg_dialect_by_name(NULL) == DG_DIALECT_NONE &&
                 dg_dialect_by_name("none") == DG_DIALECT_NONE && dg_dialect_by_name("SQLite") == DG_DIALECT_NONE,
          "unknown names (and NULL, \"none\", other case) are DG_DIALECT_NONE", "one is not");
    CHECK(t, dg_dialect((enum dg_dialect)99) == dg_dialect(DG_DIALECT_NONE) &&
                 dg_dialect((enum dg_dialect)-1) == dg_dialect(DG_DIALECT_NONE),
          "out-of-range ids get the none descriptor", "they do not");
}

static void facts(struct dg_test *t)
{
    const struct dg_dialect_desc *sq = dg_dialect(DG_DIALECT_SQLITE), *pg = dg_dialect(DG_DIALECT_PGSQL),
                                 *my = dg_dialect(DG_DIALECT_MYSQL), *ms = dg_dialect(DG_DIALECT_MSSQL);
    CHECK(t, !strcmp(pg->row_lock, " FOR UPDATE") && !strcmp(my->row_lock, " FOR UPDATE") && !*sq->row_lock &&
                 !*ms->row_lock && ms->table_lock_hint && !pg->table_lock_hint && !sq->table_lock_hint,
          "row locks: FOR UPDATE on PostgreSQL and MySQL, a table hint on SQL Server, none on SQLite", "differ");
    CHECK(t, pg->returning == DG_RETURNING_CLAUSE && sq->returning == DG_RETURNING_CLAUSE &&
                 my->returning == DG_RETURNING_NONE && ms->returning == DG_RETURNING_OUTPUT,
          "RETURNING: PostgreSQL and SQLite; OUTPUT on SQL Server; none on MySQL", "differ");
    CHECK(t, ms->limit == DG_LIMIT_TOP && pg->limit == DG_LIMIT_CLAUSE && my->limit == DG_LIMIT_CLAUSE &&
                 sq->limit == DG_LIMIT_CLAUSE,
          "TOP on SQL Server, LIMIT elsewhere", "differ");
    CHECK(t, sq->embedded && sq->single_writer && !pg->embedded && !my->embedded && !ms->embedded &&
                 !pg->single_writer && !my->single_writer,
          "SQLite alone is embedded and single-writer", "differ");
    CHECK(t, !sq->procedures && pg->procedures && my->procedures && ms->procedures,
          "stored procedures everywhere but SQLite", "differ");
    CHECK(t, !strcmp(my->timestamp_type, "DATETIME") && !strcmp(ms->timestamp_type, "DATETIME2(3)") &&
                 !strcmp(pg->timestamp_type, "TIMESTAMP") && !strcmp(sq->timestamp_type, "TIMESTAMP"),
          "date types: DATETIME (MySQL), DATETIME2(3) (T-SQL), TIMESTAMP elsewhere", "differ");
    CHECK(t, !strcmp(sq->clustered_table_suffix, " WITHOUT ROWID") && !*sq->table_suffix &&
                 !strcmp(my->table_suffix, " ENGINE=InnoDB") && !*pg->table_suffix,
          "table suffixes: WITHOUT ROWID for SQLite's keyed tables, InnoDB for MySQL's", "differ");
    CHECK(t, !my->analyze_all && !strcmp(ms->analyze_all, "EXEC sp_updatestats") &&
                 !strcmp(pg->analyze_all, "ANALYZE") && !strcmp(ms->analyze_table, "UPDATE STATISTICS ") &&
                 !strcmp(my->analyze_table, "ANALYZE TABLE "),
          "statistics statements per engine", "differ");
    CHECK(t, ms->batch_separator && !strcmp(ms->batch_separator, "GO") && !pg->batch_separator,
          "GO ends a T-SQL batch only", "differ");
}

/* Every built-in driver fills every required slot; a dialect it names is in range. */
static void drivers(struct dg_test *t)
{
    for (int i = 0; dg_drivers[i]; i++) {
        const struct dg_driver *d = dg_drivers[i];
        int ok = d->name && d->schemes && d->connect && d->disconnect && d->exec && d->prepare &&
                 d->finalize && d->execute && d->next_row && d->reset && d->changes && d->ncols &&
                 d->col_is_null && d->col_int && d->col_double && d->col_text && d->begin && d->commit &&
                 d->rollback && d->server_info && (unsigned)d->dialect < DG_DIALECT_COUNT &&
                 !d->bulk_begin == !d->bulk_row && !d->bulk_begin == !d->bulk_end;
        char name[96];
        snprintf(name, sizeof name, "driver %s fills its required slots", d->name);
        CHECK(t, ok, name, "a required slot is NULL");
    }
}

static int fake_exec(struct dg_conn *c, const char *sql, struct dg_err *err)
{
    (void)c, (void)sql, (void)err;
    return 0;
}

/* A driver with no optional slot: every wrapper gives its documented answer. */
static void fallbacks(struct dg_test *t)
{
    static const char *const schemes[] = {"fake", NULL};
    struct dg_driver fake = {.name = "fake", .schemes = schemes, .exec = fake_exec};
    struct dg_conn_h h = {.drv = &fake, .c = NULL};
    struct dg_err err;
    uint64_t hits, misses;
    char dir[16] = "x";
    long pid = 7;
    CHECK(t, dg_load_mode(&h, 1, NULL, &err) == 0, "load_mode absent: nothing to do", "error");
    CHECK(t, dg_set_streaming(&h, NULL, 1, &err) == 0, "set_streaming absent: nothing to do", "error");
    CHECK(t, dg_server_local(&h, dir, sizeof dir, &pid, &err) == 1 && !dir[0] && pid == 0,
          "server_local absent: 1, no directory, no pid", "dir '%s' pid %ld", dir, pid);
    dg_err_clear(&err);
    CHECK(t, dg_set_memory(&h, 1 << 20, &err) == -1 && err.cls == DG_ERR_USER && strstr(err.msg, "fake"),
          "set_memory absent: a user error naming the driver", "%s", err.msg);
    dg_err_clear(&err);
    CHECK(t, dg_cache_stats(&h, &hits, &misses, &err) == -1 && err.cls == DG_ERR_USER,
          "cache_stats absent: a user error", "%s", err.msg);
    dg_err_clear(&err);
    CHECK(t, dg_bulk_begin(&h, "t", schemes, 1, NULL, &err) == -1 && err.cls == DG_ERR_USER &&
                 strstr(err.msg, "not supported by driver fake"),
          "bulk absent: 'not supported by driver fake'", "%s", err.msg);
    dg_err_clear(&err);
    CHECK(t, dg_server_restart(&fake, "/nonexistent", NULL, &err) == -1 && err.cls == DG_ERR_USER,
          "server_restart absent: a user error", "%s", err.msg);
    dg_err_clear(&err);
    CHECK(t, dg_server_restart(NULL, "/nonexistent", NULL, &err) == -1 && err.cls == DG_ERR_USER,
          "no controlling driver: a user error", "%s", err.msg);
    CHECK(t, dg_server_pid(&fake, "/nonexistent") == 0 && dg_server_pid(NULL, "/x") == 0,
          "server_pid absent: 0", "not 0");
    CHECK(t, dg_server_ctl_driver(DG_DIALECT_SQLITE) == NULL && dg_server_ctl_driver(DG_DIALECT_NONE) == NULL,
          "no driver controls SQLite or no engine", "one does");
#if DG_HAVE_PGSQL
    const struct dg_driver *pg = dg_server_ctl_driver(DG_DIALECT_PGSQL);
    CHECK(t, pg && !strcmp(dg_driver_name(pg), "pgsql") && dg_driver_has(pg, server_pid),
          "the pgsql driver controls PostgreSQL servers", "%s", pg ? dg_driver_name(pg) : "none");
#endif
    CHECK(t, !dg_driver_has(&fake, set_memory) && dg_driver_has(&fake, exec) && dg_exec(&h, "x", &err) == 0,
          "dg_driver_has reads the slot; dg_exec calls it", "it does not");
}

/* A driver's exec for dg_load_settings_run: records each statement; fails the fail_at-th. */
static char seen[512];
static int fail_at, calls;
static int record_exec(struct dg_conn *c, const char *sql, struct dg_err *err)
{
    (void)c;
    if (calls++ == fail_at)
        return dg_err_set(err, DG_ERR_USER, 0, "refused");
    strcat(strcat(seen, sql), ";");
    return 0;
}

/* The load settings as statements: on and off, per engine; none past the last or for an engine
 * without them; too small a buffer is said. */
static void load_settings(struct dg_test *t)
{
    char sql[160], all[512] = "";
    for (int i = 0, n; (n = dg_load_setting_sql(DG_DIALECT_PGSQL, i, 1, sql, sizeof sql)) > 0; i++)
        strcat(strcat(all, sql), ";");
    CHECK(t, !strcmp(all, "SET synchronous_commit = 'off';SET maintenance_work_mem = '256MB';"
                          "SET max_parallel_maintenance_workers = '2';"),
          "PostgreSQL's load settings, on", "%s", all);
    CHECK(t, dg_load_setting_sql(DG_DIALECT_PGSQL, 1, 0, sql, sizeof sql) > 0 && !strcmp(sql, "RESET maintenance_work_mem"),
          "PostgreSQL's, off: RESET", "%s", sql);
    CHECK(t, dg_load_setting_sql(DG_DIALECT_MYSQL, 1, 1, sql, sizeof sql) > 0 && !strcmp(sql, "SET SESSION foreign_key_checks = 0"),
          "MySQL's, on", "%s", sql);
    CHECK(t, dg_load_setting_sql(DG_DIALECT_MYSQL, 0, 0, sql, sizeof sql) > 0 && !strcmp(sql, "SET SESSION unique_checks = DEFAULT"),
          "MySQL's, off: the server's value (DEFAULT)", "%s", sql);
    CHECK(t, dg_load_setting_sql(DG_DIALECT_MYSQL, 2, 1, sql, sizeof sql) == 0 &&
                 dg_load_setting_sql(DG_DIALECT_SQLITE, 0, 1, sql, sizeof sql) == 0 &&
                 dg_load_setting_sql(DG_DIALECT_MSSQL, 0, 1, sql, sizeof sql) == 0 &&
                 dg_load_setting_sql(DG_DIALECT_PGSQL, -1, 1, sql, sizeof sql) == 0,
          "none past the last, none for SQLite (its driver's own), SQL Server or a bad index", "-");
    CHECK(t, dg_load_setting_sql(DG_DIALECT_PGSQL, 0, 1, sql, 10) == -1, "a buffer too small: -1", "-");

    /* run through a driver's exec: each statement, each setting named; the first failure stops */
    struct dg_server_info chosen = {0};
    struct dg_err err = {0};
    seen[0] = '\0', fail_at = -1, calls = 0;
    int rc = dg_load_settings_run(DG_DIALECT_MYSQL, 1, NULL, record_exec, &chosen, &err);
    CHECK(t, rc == 0 && !strcmp(seen, "SET SESSION unique_checks = 1;SET SESSION foreign_key_checks = 0;") &&
                 chosen.nsettings == 2 && !strcmp(chosen.settings[1].name, "foreign_key_checks") &&
                 !strcmp(chosen.settings[1].value, "0"),
          "dg_load_settings_run: each statement run, each setting named", "%d %s %d", rc, seen, chosen.nsettings);
    seen[0] = '\0', fail_at = 1, calls = 0, chosen.nsettings = 0;
    rc = dg_load_settings_run(DG_DIALECT_PGSQL, 1, NULL, record_exec, &chosen, &err);
    CHECK(t, rc == -1 && calls == 2 && chosen.nsettings == 1 && !strcmp(err.msg, "refused"),
          "dg_load_settings_run: the first failure stops it, with its error", "%d %d %d %s", rc, calls, chosen.nsettings,
          err.msg);
}

int main(void)
{
    struct dg_test t = {0};
    table(&t);
    facts(&t);
    load_settings(&t);
    drivers(&t);
    fallbacks(&t);
    return dg_test_done(&t);
}
