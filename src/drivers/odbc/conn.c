/* conn.c — the ODBC driver (unixODBC): connection strings (DSN= or DSN-less Driver=...),
 * the dialect from SQL_DBMS_NAME, diagnostics classified by SQLSTATE, transactions, server
 * facts, the memory knob per engine, and the driver table. Never prints a connection string:
 * it may hold PWD=; the target's redacted copy is what others show. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/secret.h"
#include "drivers/errcause.h"
#include "drivers/odbc/internal.h"

static int ok(SQLRETURN rc) { return rc == SQL_SUCCESS || rc == SQL_SUCCESS_WITH_INFO; }

/* Whether a diagnostic says the session is gone: SQLSTATE class 08 (08S01 "communication
 * link failure"), PostgreSQL's shutdown states, MariaDB/MySQL's lost-server codes, and the
 * words drivers put in a general error (HY000) when the socket died under them (psqlodbc:
 * "the connection has been lost", MariaDB's driver: "Broken pipe", "server has gone away"). */
static int conn_lost(const char *state, SQLINTEGER native, const char *msg, enum dg_dialect d)
{
    static const char *const words[] = {"broken pipe", "server has gone away", "lost connection",
                                        "connection reset", "server closed the connection",
                                        "no connection to the server", "terminating connection",
                                        "communication link failure"};
    if (!strncmp(state, "08", 2) || !strcmp(state, "57P01") || !strcmp(state, "57P02") ||
        !strcmp(state, "57P03") || !strcmp(state, "57P05") || !strcmp(state, "25P03") || !strcmp(state, "HYT01"))
        return 1;
    if (d == DG_DIALECT_MYSQL)
        switch (native) {
        case 1053: case 1927: case 2002: case 2003: case 2006: case 2013: case 2055: case 4031:
            return 1;
        }
    if (strncmp(state, "HY", 2) != 0) /* the words only judge general errors */
        return 0;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcasestr(msg, words[i]))
            return 1;
    /* psqlodbc reports a dead socket as a general error naming the connection. */
    return strstr(msg, "connection") && (strstr(msg, "dead") || strstr(msg, "closed") ||
                                         strstr(msg, "terminat") || strstr(msg, "lost"));
}

/* The class of one diagnostic record. */
static enum dg_err_class classify(const char *state, SQLINTEGER native, const char *msg,
                                  enum dg_dialect d)
{
    if (!strcmp(state, "40001") || !strcmp(state, "40P01"))
        return DG_ERR_RETRY;
    if (d == DG_DIALECT_MYSQL && (native == 1213 || native == 1205))
        return DG_ERR_RETRY;
    if (d == DG_DIALECT_MSSQL && (native == 1205 || native == 1222))
        return DG_ERR_RETRY;
    if (strstr(msg, "database is locked") || strstr(msg, "database table is locked"))
        return DG_ERR_RETRY;
    if (conn_lost(state, native, msg, d))
        return DG_ERR_CONN;
    if (!strncmp(state, "23", 2) || strstr(msg, "constraint failed") || strstr(msg, "UNIQUE constraint"))
        return DG_ERR_FATAL;
    if (!strncmp(state, "42", 2) || !strcmp(state, "HY000") || !strncmp(state, "3D", 2) ||
        !strncmp(state, "28", 2) || !strncmp(state, "IM", 2) || !strcmp(state, "37000") ||
        !strcmp(state, "07002") || !strcmp(state, "07009"))
        return DG_ERR_USER;
    return DG_ERR_FATAL;
}

/* Why a retryable diagnostic happened: the engine's own code first (SQL Server reports its
 * deadlock 1205 as SQLSTATE 40001), then the SQLSTATE; SQLite's lock messages are busy. */
static enum dg_retry_cause retry_cause(const char *state, SQLINTEGER native, enum dg_dialect d)
{
    if ((d == DG_DIALECT_MYSQL && native == 1213) || (d == DG_DIALECT_MSSQL && native == 1205))
        return DG_RETRY_DEADLOCK;
    if ((d == DG_DIALECT_MYSQL && native == 1205) || (d == DG_DIALECT_MSSQL && native == 1222))
        return DG_RETRY_LOCK_TIMEOUT;
    if (d == DG_DIALECT_SQLITE)
        return DG_RETRY_BUSY;
    return dg_retry_cause_of_sqlstate(state);
}

/* Why a diagnostic failed its transaction for good: a MariaDB/MySQL driver's native code first
 * (its SQLSTATEs are generic: HY000 for a statement timeout), then the SQLSTATE. A lost
 * connection the driver said no more about is counted as connection by the core. */
static enum dg_error_cause error_cause(const char *state, SQLINTEGER native, const char *msg, enum dg_dialect d)
{
    enum dg_error_cause c = d == DG_DIALECT_MYSQL ? dg_drv_error_cause_mysql((unsigned)native, msg) : DG_ERROR_OTHER;
    return c != DG_ERROR_OTHER ? c : dg_drv_error_cause_sqlstate(state);
}

int dg_odbc_fail(struct dg_conn *c, SQLSMALLINT type, SQLHANDLE h, const char *what, struct dg_err *err)
{
    SQLCHAR state[6] = "", msg[400] = "";
    SQLINTEGER native = 0;
    SQLSMALLINT len = 0;
    SQLRETURN rc = SQLGetDiagRec(type, h, 1, state, &native, msg, sizeof msg, &len);
    if (!ok(rc)) {
        snprintf((char *)state, sizeof state, "HY000");
        snprintf((char *)msg, sizeof msg, "no diagnostic record");
    }
    /* Drivers prefix messages with [vendor][driver]: keep them, they name the layer. */
    enum dg_dialect d = c ? c->dialect : DG_DIALECT_NONE;
    enum dg_err_class cls = classify((const char *)state, native, (const char *)msg, d);
    if (c && c->in_txn)
        c->txn_failed = 1;
    char text[sizeof err->msg];
    snprintf(text, sizeof text, "%s: %s (SQLSTATE %s)", what, (const char *)msg, (const char *)state);
    dg_err_set(err, cls, (int)native, "%s", text);
    if (err) {
        dg_secret_scrub(c ? &c->secrets : NULL, err->msg, sizeof err->msg, text, DG_SCRUB_MAP);
        snprintf(err->sqlstate, sizeof err->sqlstate, "%s", (const char *)state);
        err->cause = cls == DG_ERR_RETRY ? retry_cause((const char *)state, native, d) : DG_RETRY_OTHER;
        err->error_cause = error_cause((const char *)state, native, (const char *)msg, d);
    }
    return -1;
}

int dg_odbc_exec(struct dg_conn *c, const char *sql, struct dg_err *err)
{
    SQLRETURN rc = SQLExecDirect(c->scratch, (SQLCHAR *)sql, SQL_NTS);
    int r = 0;
    if (!ok(rc) && rc != SQL_NO_DATA)
        r = dg_odbc_fail(c, SQL_HANDLE_STMT, c->scratch, "exec", err);
    /* Later statements of a batch report their errors here. */
    while (r == 0 && (rc = SQLMoreResults(c->scratch)) != SQL_NO_DATA)
        if (!ok(rc))
            r = dg_odbc_fail(c, SQL_HANDLE_STMT, c->scratch, "exec", err);
    SQLFreeStmt(c->scratch, SQL_CLOSE);
    return r;
}

/* Where the pair KEY=VALUE of s starts (NULL if absent); *len is its length up to the ';'
 * that ends it. Braced values may hold ';' ('}' doubled inside). */
static const char *find_pair(const char *s, const char *key, size_t *len)
{
    size_t n = strlen(key);
    for (const char *p = s; *p;) {
        while (*p == ' ' || *p == ';')
            p++;
        const char *start = p;
        int hit = !strncasecmp(p, key, n) && (p[n] == '=' || p[n] == ' ');
        const char *eq = strchr(p, '=');
        if (!eq)
            break;
        p = eq + 1;
        if (*p == '{') {
            for (p++; *p && !(p[0] == '}' && p[1] != '}'); p += p[0] == '}' ? 2 : 1) {
            }
        }
        p += strcspn(p, ";");
        if (hit) {
            *len = (size_t)(p - start);
            return start;
        }
    }
    return NULL;
}

static int has_key(const char *s, const char *key)
{
    size_t len;
    return find_pair(s, key, &len) != NULL;
}

/* The password's forms to scrub from messages: DG_ODBC_PASSWORD, and the PWD= or Password=
 * value of the string as written and, when braced, unescaped ('}}' is one '}'). */
static void collect_secrets(struct dg_conn *c, const char *s)
{
    const char *env = getenv("DG_ODBC_PASSWORD");
    if (env)
        dg_secret_add(&c->secrets, env, strlen(env));
    static const char *const keys[] = {"PWD", "Password"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        size_t len;
        const char *p = find_pair(s, keys[k], &len);
        if (!p)
            continue;
        const char *v = strchr(p, '=') + 1;
        size_t vlen = len - (size_t)(v - p);
        dg_secret_add(&c->secrets, v, vlen);
        if (vlen >= 2 && v[0] == '{') {
            char plain[512];
            size_t n = 0;
            for (size_t i = 1; i + 1 < vlen && n + 1 < sizeof plain; i++) {
                plain[n++] = v[i];
                if (v[i] == '}')
                    i++; /* '}}' */
            }
            dg_secret_add(&c->secrets, plain, n);
            dg_secret_wipe(plain, sizeof plain);
        }
    }
}

/* dbgauge's own key in the connection string, taken out before the driver sees it:
 * dg_batch=auto (the default: a step's statements joined into one text where the driver is
 * known to send it in one exchange) or off (one statement per round trip). */
static int take_batch_key(char *cs, int *batch_off, struct dg_err *err)
{
    size_t len;
    char *p = (char *)find_pair(cs, "dg_batch", &len);
    *batch_off = 0;
    if (!p)
        return 0;
    const char *v = strchr(p, '=') + 1;
    size_t vlen = len - (size_t)(v - p);
    while (vlen && v[vlen - 1] == ' ')
        vlen--;
    if (vlen == 3 && !strncasecmp(v, "off", 3))
        *batch_off = 1;
    else if (!(vlen == 4 && !strncasecmp(v, "auto", 4)))
        return dg_err_set(err, DG_ERR_USER, 0, "target: dg_batch=%.*s in the ODBC string: expected auto or off",
                          (int)(vlen > 20 ? 20 : vlen), v);
    size_t drop = len + (p[len] == ';');
    memmove(p, p + drop, strlen(p + drop) + 1);
    return 0;
}

/* The connection string: the target after "odbc:", plus PWD from DG_ODBC_PASSWORD when the
 * string has none (braced, '}' doubled, so any character may be in it). */
static int conn_string(const char *url, char *out, size_t cap, int *batch_off, struct dg_err *err)
{
    const char *s = url + strlen("odbc:");
    if (!*s)
        return dg_err_set(err, DG_ERR_USER, 0,
                          "target 'odbc:' is empty: expected odbc:DSN=NAME;... or odbc:Driver=...;Server=...");
    if (!strchr(s, '='))
        return dg_err_set(err, DG_ERR_USER, 0,
                          "target 'odbc:%.60s' is not a connection string (KEY=VALUE;...), e.g. odbc:DSN=NAME", s);
    size_t n = (size_t)snprintf(out, cap, "%s", s);
    if (n + 2 >= cap)
        return dg_err_set(err, DG_ERR_USER, 0, "target: the ODBC connection string is too long");
    if (take_batch_key(out, batch_off, err))
        return -1;
    n = strlen(out);
    s = out; /* the keys the driver will see */
    const char *pw = getenv("DG_ODBC_PASSWORD");
    if (pw && *pw && !has_key(s, "PWD") && !has_key(s, "Password")) {
        n += (size_t)snprintf(out + n, cap - n, "%sPWD={", n && out[n - 1] != ';' ? ";" : "");
        for (const char *p = pw; *p && n + 3 < cap; p++) {
            out[n++] = *p;
            if (*p == '}')
                out[n++] = '}';
        }
        if (n + 2 < cap) {
            out[n++] = '}';
            out[n] = '\0';
        }
    }
    if (n + 2 >= cap)
        return dg_err_set(err, DG_ERR_USER, 0, "target: the ODBC connection string is too long");
    return 0;
}

static enum dg_dialect dialect_of(const char *dbms)
{
    if (strcasestr(dbms, "postgres"))
        return DG_DIALECT_PGSQL;
    if (strcasestr(dbms, "mysql") || strcasestr(dbms, "mariadb"))
        return DG_DIALECT_MYSQL;
    if (strcasestr(dbms, "sqlite"))
        return DG_DIALECT_SQLITE;
    if (strcasestr(dbms, "sql server"))
        return DG_DIALECT_MSSQL;
    return DG_DIALECT_NONE;
}

static void odbc_disconnect(struct dg_conn *c)
{
    dg_odbc_batches_drop(c, NULL);
    while (c->stmts.head)
        dg_odbc_finalize(DG_LIST_ENTRY(c->stmts.head, struct dg_stmt, link));
    if (c->scratch)
        SQLFreeHandle(SQL_HANDLE_STMT, c->scratch);
    if (c->dbc) {
        if (c->in_txn && !c->sql_txn)
            SQLEndTran(SQL_HANDLE_DBC, c->dbc, SQL_ROLLBACK);
        SQLDisconnect(c->dbc);
        SQLFreeHandle(SQL_HANDLE_DBC, c->dbc);
    }
    if (c->env)
        SQLFreeHandle(SQL_HANDLE_ENV, c->env);
    dg_secrets_free(&c->secrets);
    free(c);
}

static void info_str(struct dg_conn *c, SQLUSMALLINT what, char *out, size_t cap)
{
    SQLSMALLINT len = 0;
    if (!ok(SQLGetInfo(c->dbc, what, out, (SQLSMALLINT)cap, &len)))
        out[0] = '\0';
}

static int odbc_check_url(const char *url, struct dg_err *err)
{
    char cs[1280];
    int batch_off;
    int rc = conn_string(url, cs, sizeof cs, &batch_off, err);
    dg_secret_wipe(cs, sizeof cs);
    return rc;
}

static int odbc_connect(const char *url, const struct dg_connect_opts *opts, struct dg_conn **out,
                        struct dg_err *err)
{
    (void)opts;
    char cs[1280] = ""; /* may hold PWD=: wiped once the driver has it, and on failure */
    int batch_off = 0;
    struct dg_conn *c = calloc(1, sizeof *c);
    if (!c)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    if (conn_string(url, cs, sizeof cs, &batch_off, err))
        goto fail;
    collect_secrets(c, cs);
    if (!ok(SQLAllocHandle(SQL_HANDLE_ENV, SQL_NULL_HANDLE, &c->env)) ||
        !ok(SQLSetEnvAttr(c->env, SQL_ATTR_ODBC_VERSION, (SQLPOINTER)SQL_OV_ODBC3, 0)) ||
        !ok(SQLAllocHandle(SQL_HANDLE_DBC, c->env, &c->dbc))) {
        dg_err_set(err, DG_ERR_FATAL, 0, "ODBC: cannot allocate the environment (unixODBC)");
        goto fail;
    }
    SQLRETURN rc = SQLDriverConnect(c->dbc, NULL, (SQLCHAR *)cs, SQL_NTS, NULL, 0, NULL, SQL_DRIVER_NOPROMPT);
    dg_secret_wipe(cs, sizeof cs);
    if (!ok(rc)) {
        dg_odbc_fail(c, SQL_HANDLE_DBC, c->dbc, "ODBC connect", err);
        /* A target that does not connect is the user's to fix (driver, server, password). */
        err->cls = DG_ERR_USER;
        SQLFreeHandle(SQL_HANDLE_DBC, c->dbc);
        c->dbc = NULL;
        goto fail;
    }
    if (!ok(SQLAllocHandle(SQL_HANDLE_STMT, c->dbc, &c->scratch))) {
        dg_odbc_fail(c, SQL_HANDLE_DBC, c->dbc, "ODBC statement handle", err);
        goto fail;
    }
    info_str(c, SQL_DBMS_NAME, c->dbms, sizeof c->dbms);
    info_str(c, SQL_DBMS_VER, c->dbms_ver, sizeof c->dbms_ver);
    info_str(c, SQL_DRIVER_NAME, c->driver, sizeof c->driver);
    info_str(c, SQL_DRIVER_VER, c->driver_ver, sizeof c->driver_ver);
    info_str(c, SQL_SERVER_NAME, c->server, sizeof c->server);
    c->dialect = dialect_of(c->dbms);
    if (c->dialect == DG_DIALECT_NONE) {
        dg_err_set(err, DG_ERR_USER, 0,
                   "ODBC: the server calls itself '%s'; dbgauge speaks PostgreSQL, MySQL/MariaDB, "
                   "SQLite and Microsoft SQL Server", c->dbms);
        goto fail;
    }
    /* SQLite's ODBC driver begins its own deferred transactions; BEGIN IMMEDIATE as text
     * takes the write lock up front as the native driver does. */
    c->sql_txn = c->dialect == DG_DIALECT_SQLITE;
    /* psqlodbc sends a prepared multi-statement text in one exchange and returns one result
     * per statement (measured: bench/odbc.sh); other drivers run a step call by call until
     * the same is shown for them. */
    c->batch_ok = !batch_off && c->dialect == DG_DIALECT_PGSQL && !strncasecmp(c->driver, "psqlodbc", 8);
    *out = c;
    return 0;
fail:
    dg_secret_wipe(cs, sizeof cs);
    odbc_disconnect(c);
    return -1;
}

static enum dg_dialect odbc_conn_dialect(struct dg_conn *c) { return c->dialect; }

static int odbc_exec(struct dg_conn *c, const char *sql, struct dg_err *err)
{
    return dg_odbc_exec(c, sql, err);
}

static SQLULEN iso_attr(enum dg_isolation iso)
{
    switch (iso) {
    case DG_ISO_READ_COMMITTED: return SQL_TXN_READ_COMMITTED;
    case DG_ISO_REPEATABLE_READ: return SQL_TXN_REPEATABLE_READ;
    case DG_ISO_SERIALIZABLE: return SQL_TXN_SERIALIZABLE;
    default: return 0;
    }
}

int dg_odbc_begin(struct dg_conn *c, enum dg_isolation iso, int write, struct dg_err *err)
{
    c->txn_failed = 0;
    if (c->sql_txn) { /* SQLite: serializable always */
        if (dg_odbc_exec(c, write ? "BEGIN IMMEDIATE" : "BEGIN", err))
            return -1;
        c->in_txn = 1;
        return 0;
    }
    SQLULEN want = iso_attr(iso);
    if (want && want != c->iso_now) {
        if (!ok(SQLSetConnectAttr(c->dbc, SQL_ATTR_TXN_ISOLATION, (SQLPOINTER)want, 0)))
            return dg_odbc_fail(c, SQL_HANDLE_DBC, c->dbc, "set isolation", err);
        c->iso_now = want;
    }
    if (!ok(SQLSetConnectAttr(c->dbc, SQL_ATTR_AUTOCOMMIT, (SQLPOINTER)SQL_AUTOCOMMIT_OFF, 0)))
        return dg_odbc_fail(c, SQL_HANDLE_DBC, c->dbc, "autocommit off", err);
    c->in_txn = 1;
    return 0;
}

/* Ends the open transaction; back to autocommit. */
static int end_txn(struct dg_conn *c, SQLSMALLINT how, struct dg_err *err)
{
    int r = 0;
    if (c->sql_txn) {
        r = dg_odbc_exec(c, how == SQL_COMMIT ? "COMMIT" : "ROLLBACK", err);
        if (r && how == SQL_COMMIT) {
            struct dg_err ignore;
            dg_odbc_exec(c, "ROLLBACK", &ignore);
        }
        c->in_txn = 0;
        return r;
    }
    if (!ok(SQLEndTran(SQL_HANDLE_DBC, c->dbc, how)))
        r = dg_odbc_fail(c, SQL_HANDLE_DBC, c->dbc, how == SQL_COMMIT ? "commit" : "rollback", err);
    c->in_txn = 0;
    if (!ok(SQLSetConnectAttr(c->dbc, SQL_ATTR_AUTOCOMMIT, (SQLPOINTER)SQL_AUTOCOMMIT_ON, 0)) && r == 0)
        r = dg_odbc_fail(c, SQL_HANDLE_DBC, c->dbc, "autocommit on", err);
    return r;
}

int dg_odbc_commit(struct dg_conn *c, struct dg_err *err)
{
    if (!c->in_txn)
        return 0;
    /* PostgreSQL turns COMMIT of an aborted transaction into a rollback without an error;
     * the work is lost, so say so. */
    if (c->txn_failed && c->dialect == DG_DIALECT_PGSQL) {
        struct dg_err ignore;
        end_txn(c, SQL_ROLLBACK, &ignore);
        return dg_err_set(err, DG_ERR_FATAL, 0,
                          "commit: the transaction had failed earlier and was rolled back");
    }
    return end_txn(c, SQL_COMMIT, err);
}

int dg_odbc_rollback(struct dg_conn *c, struct dg_err *err)
{
    if (!c->in_txn)
        return 0;
    return end_txn(c, SQL_ROLLBACK, err);
}

static int odbc_begin(struct dg_conn *c, enum dg_isolation iso, int write, struct dg_err *err)
{
    return dg_odbc_begin(c, iso, write, err);
}
static int odbc_commit(struct dg_conn *c, struct dg_err *err) { return dg_odbc_commit(c, err); }
static int odbc_rollback(struct dg_conn *c, struct dg_err *err) { return dg_odbc_rollback(c, err); }

static int odbc_server_info(struct dg_conn *c, struct dg_server_info *info, struct dg_err *err)
{
    (void)err;
    memset(info, 0, sizeof *info);
    snprintf(info->engine, sizeof info->engine, "%s", c->dbms);
    for (char *p = info->engine; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    snprintf(info->version, sizeof info->version, "%s", c->dbms_ver);
    dg_server_info_add(info, "odbc_driver", c->driver);
    dg_server_info_add(info, "odbc_driver_version", c->driver_ver);
    dg_server_info_add(info, "dialect", dg_dialect_name(c->dialect));
    /* How a step's statements travel: psqlodbc sends a joined text as one simple query with
     * the values written in, so the server parses it each time (dg_batch=off: prepared). */
    dg_server_info_add(info, "odbc_step", c->batch_ok ? "one joined text per step (dg_batch=auto)"
                                                      : "one prepared statement per round trip");
    return 0;
}

static int odbc_set_memory(struct dg_conn *c, uint64_t bytes, struct dg_err *err)
{
    char sql[256];
    unsigned long long kb = (unsigned long long)((bytes + 1023) / 1024);
    switch (c->dialect) {
    case DG_DIALECT_PGSQL: /* takes effect at the next server restart, the caller's to do */
        snprintf(sql, sizeof sql, "ALTER SYSTEM SET shared_buffers = '%llukB'", kb);
        break;
    case DG_DIALECT_MYSQL:
        snprintf(sql, sizeof sql, "SET GLOBAL innodb_buffer_pool_size = %llu", (unsigned long long)bytes);
        break;
    case DG_DIALECT_SQLITE: snprintf(sql, sizeof sql, "PRAGMA cache_size=-%llu", kb); break;
    case DG_DIALECT_MSSQL:
        snprintf(sql, sizeof sql,
                 "EXEC sp_configure 'show advanced options', 1; RECONFIGURE; "
                 "EXEC sp_configure 'max server memory (MB)', %llu; RECONFIGURE",
                 (unsigned long long)((bytes + (1u << 20) - 1) >> 20));
        break;
    default: return dg_err_set(err, DG_ERR_USER, 0, "ODBC: no memory knob for '%s'", c->dbms);
    }
    return dg_odbc_exec(c, sql, err);
}

/* A load session's settings: the engine's own (core/dialect.c, as its native driver sets
 * them), and SQLite's unsynced writes; recorded (chosen) and taken back when it ends. */
static int odbc_load_mode(struct dg_conn *c, int on, struct dg_server_info *chosen, struct dg_err *err)
{
    if (c->dialect == DG_DIALECT_SQLITE) {
        if (dg_odbc_exec(c, on ? "PRAGMA synchronous=OFF" : "PRAGMA synchronous=NORMAL", err))
            return -1;
        if (on && chosen)
            dg_server_info_add(chosen, "synchronous", "OFF");
        return 0;
    }
    return dg_load_settings_run(c->dialect, on, c, dg_odbc_exec, chosen, err);
}

/* What the ODBC driver says the server is (SQL_SERVER_NAME: a host, a DSN's server, a file
 * for SQLite's driver), read at connect; "" when it will not say. */
static void odbc_conn_where(struct dg_conn *c, char *buf, size_t n) { snprintf(buf, n, "%s", c->server); }

static const char *const schemes[] = {"odbc", NULL};

const struct dg_driver dg_driver_odbc = {
    .name = "odbc",
    .schemes = schemes,
    .dialect = DG_DIALECT_NONE, /* per connection: conn_dialect */
    .caps = 0,
    .connect = odbc_connect,
    .disconnect = odbc_disconnect,
    .exec = odbc_exec,
    .prepare = dg_odbc_prepare,
    .finalize = dg_odbc_finalize,
    .execute = dg_odbc_execute,
    .next_row = dg_odbc_next_row,
    .reset = dg_odbc_reset,
    .changes = dg_odbc_changes,
    .ncols = dg_odbc_ncols,
    .col_is_null = dg_odbc_col_is_null,
    .col_int = dg_odbc_col_int,
    .col_double = dg_odbc_col_double,
    .col_text = dg_odbc_col_text,
    .begin = odbc_begin,
    .commit = odbc_commit,
    .rollback = odbc_rollback,
    .bulk_begin = dg_odbc_bulk_begin,
    .bulk_row = dg_odbc_bulk_row,
    .bulk_end = dg_odbc_bulk_end,
    .server_info = odbc_server_info,
    .set_memory = odbc_set_memory,
    .load_mode = odbc_load_mode,
    .conn_dialect = odbc_conn_dialect,
    .execute_calls = dg_odbc_execute_calls,
    .conn_where = odbc_conn_where,
    .check_url = odbc_check_url,
};
