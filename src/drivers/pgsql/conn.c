/* conn.c — PostgreSQL driver: connecting by URL, the secrets scrubbed from messages,
 * SQLSTATE error classes, transactions (BEGIN held back to travel with the first statement),
 * server facts and knobs, and the driver table. Must not leak a password into any message. */
#include "core/urlq.h"
#include "drivers/errcause.h"
#include "drivers/pgsql/internal.h"

#include <libpq-fe.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages and errors --------------------------------------------------------------- */

int dg_pg_err(const struct dg_conn *c, struct dg_err *err, enum dg_err_class cls,
              const char *sqlstate, const char *fmt, ...)
{
    if (!err)
        return -1;
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    err->cls = cls;
    err->in_doubt = 0; /* the core wrapper that sent a COMMIT says when it is */
    err->cause = dg_retry_cause_of_sqlstate(sqlstate);
    err->error_cause = dg_drv_error_cause_sqlstate(sqlstate);
    err->code = 0;
    err->sqlstate[0] = '\0';
    if (sqlstate && strlen(sqlstate) == 5) {
        memcpy(err->sqlstate, sqlstate, 6);
        /* The native code: the SQLSTATE packed six bits a character, as PostgreSQL does. */
        for (int i = 0; i < 5; i++)
            err->code |= ((sqlstate[i] - '0') & 0x3F) << (6 * i);
    }
    dg_secret_scrub(c ? &c->secrets : NULL, err->msg, sizeof err->msg, tmp, DG_SCRUB_FOLD);
    return -1;
}

static enum dg_err_class classify(PGconn *pg, const char *st)
{
    if (PQstatus(pg) == CONNECTION_BAD)
        return DG_ERR_CONN;
    if (!st || strlen(st) != 5)
        return DG_ERR_FATAL;
    if (strcmp(st, "40001") == 0 || strcmp(st, "40P01") == 0)
        return DG_ERR_RETRY;
    if (st[0] == '0' && st[1] == '8')
        return DG_ERR_CONN;
    /* admin_shutdown, crash_shutdown, cannot_connect_now, idle_session_timeout,
     * idle_in_transaction_session_timeout: the session is gone */
    if (strcmp(st, "57P01") == 0 || strcmp(st, "57P02") == 0 || strcmp(st, "57P03") == 0 ||
        strcmp(st, "57P05") == 0 || strcmp(st, "25P03") == 0)
        return DG_ERR_CONN;
    /* syntax, undefined object, privilege; bad credentials or database */
    if ((st[0] == '4' && st[1] == '2') || (st[0] == '2' && st[1] == '8') ||
        strcmp(st, "3D000") == 0)
        return DG_ERR_USER;
    return DG_ERR_FATAL; /* 23xxx during a run is a workload bug, not the user's target */
}

/* Fills err from a failed result (res may be NULL: then from the connection). */
int dg_pg_res_err(struct dg_conn *c, PGresult *res, const char *what, struct dg_err *err)
{
    const char *st = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    const char *detail = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL) : NULL;
    if (!primary && res && *PQresultErrorMessage(res))
        primary = PQresultErrorMessage(res);
    if (!primary)
        primary = PQerrorMessage(c->pg);
    if (!primary || !*primary)
        primary = res ? PQresStatus(PQresultStatus(res)) : "no result from server";
    return dg_pg_err(c, err, classify(c->pg, st), st, "%s: %s%s%s%s", what, primary,
                   detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
}

int dg_pg_commit_result(struct dg_conn *c, PGresult *res, struct dg_err *err)
{
    int rc = 0;
    if (!res || PQresultStatus(res) != PGRES_COMMAND_OK)
        rc = dg_pg_res_err(c, res, "COMMIT", err);
    else if (strcmp(PQcmdStatus(res), "ROLLBACK") == 0) /* the transaction had failed */
        rc = dg_pg_err(c, err, DG_ERR_FATAL, "25P02",
                       "COMMIT: the transaction was aborted by an earlier error and rolled back");
    PQclear(res);
    return rc;
}

/* PQexec's loop over what was sent, but a server that ends the session says why first (57P05
 * idle-session timeout, 57P01 terminated, 25P03 idle in transaction) and only then closes:
 * libpq's own loop keeps its "server closed the connection unexpectedly" that follows, which
 * has no SQLSTATE. This keeps the server's error. */
static PGresult *finish_exec(PGconn *pg)
{
    PGresult *keep = NULL, *r;
    while ((r = PQgetResult(pg)) != NULL) {
        if (keep && PQstatus(pg) == CONNECTION_BAD && PQresultStatus(keep) == PGRES_FATAL_ERROR &&
            PQresultErrorField(keep, PG_DIAG_SQLSTATE)) {
            PQclear(r);
            break;
        }
        PQclear(keep);
        keep = r;
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH || PQstatus(pg) == CONNECTION_BAD)
            break;
    }
    return keep;
}

/* Where it cannot be sent (in a pipeline, results pending, no connection) PQexec does as it
 * always did, and says why. */
PGresult *dg_pg_exec(PGconn *pg, const char *sql)
{
    if (PQpipelineStatus(pg) == PQ_PIPELINE_OFF && PQsendQuery(pg, sql))
        return finish_exec(pg);
    return PQexec(pg, sql);
}

PGresult *dg_pg_exec_prepared(PGconn *pg, const char *name, int n, const char *const *values)
{
    if (PQpipelineStatus(pg) == PQ_PIPELINE_OFF && PQsendQueryPrepared(pg, name, n, values, NULL, NULL, 0))
        return finish_exec(pg);
    return PQexecPrepared(pg, name, n, values, NULL, NULL, 0);
}

/* Runs sql expecting no rows or discarding them. */
static int run_now(struct dg_conn *c, const char *sql, const char *what, struct dg_err *err)
{
    PGresult *res = dg_pg_exec(c->pg, sql);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    int rc = 0;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY)
        rc = dg_pg_res_err(c, res, what, err);
    PQclear(res);
    return rc;
}

/* Sends a deferred BEGIN on its own, before anything but an execute. */
int dg_pg_flush_begin(struct dg_conn *c, struct dg_err *err)
{
    const char *sql = c->pending_begin;
    if (!sql)
        return 0;
    c->pending_begin = NULL;
    return run_now(c, sql, sql, err);
}

/* run_now, after any held-back BEGIN. */
static int run(struct dg_conn *c, const char *sql, const char *what, struct dg_err *err)
{
    return dg_pg_flush_begin(c, err) ? -1 : run_now(c, sql, what, err);
}

/* ---- connection ------------------------------------------------------------------------ */

static void quiet_notice(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

/* Collects every form the password may take: as written in the URL (percent-encoded user
 * info or password= parameter), as libpq decodes it, and PGPASSWORD. */
static void collect_secrets(struct dg_conn *c, const char *url)
{
    size_t n;
    const char *pw = dg_url_password(url, &n);
    if (pw)
        dg_secret_add(&c->secrets, pw, n);
    for (const char *q = url; (q = strstr(q, "password=")) != NULL;) {
        q += 9;
        dg_secret_add(&c->secrets, q, strcspn(q, "&; "));
    }
    PQconninfoOption *opts = PQconninfoParse(url, NULL);
    for (PQconninfoOption *o = opts; o && o->keyword; o++)
        if (o->val && strcmp(o->keyword, "password") == 0)
            dg_secret_add(&c->secrets, o->val, strlen(o->val));
    PQconninfoFree(opts);
    const char *env = getenv("PGPASSWORD");
    if (env)
        dg_secret_add(&c->secrets, env, strlen(env));
}

static void conn_free(struct dg_conn *c);

/* The URL's form as libpq reads it, and its host list: errors scrubbed of c's secrets. */
static int check_form(struct dg_conn *c, const char *url, const char *shown, struct dg_err *err)
{
    char *perr = NULL;
    PQconninfoOption *parsed = PQconninfoParse(url, &perr);
    if (!parsed) {
        dg_pg_err(c, err, DG_ERR_USER, NULL, "bad PostgreSQL target %s: %s", shown,
                perr ? perr : "cannot parse");
        PQfreemem(perr);
        return -1;
    }
    PQconninfoFree(parsed);
    /* libpq takes "h1:p1,h2:p2" itself, but reads an empty part as the default socket and a
     * bad port only once it tries it: both are the user's to fix, said before connecting. */
    struct dg_url_host hosts[DG_URL_MAX_HOSTS];
    if (strstr(url, "://") && dg_url_hosts(url, shown, hosts, DG_URL_MAX_HOSTS, err) < 0) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return dg_pg_err(c, err, DG_ERR_USER, NULL, "%s", why);
    }
    return 0;
}

/* A new connection record for url: its secrets collected, the URL as shown (redacted), its
 * form checked. 0 with *out set (the caller's), or -1 with err (nothing left to free). */
static int conn_for(const char *url, char *shown, size_t n, struct dg_conn **out, struct dg_err *err)
{
    struct dg_conn *c = calloc(1, sizeof *c);
    if (!c)
        return dg_pg_err(NULL, err, DG_ERR_FATAL, NULL, "out of memory");
    collect_secrets(c, url);
    dg_redact_url(url, shown, n);
    if (check_form(c, url, shown, err)) {
        conn_free(c);
        return -1;
    }
    *out = c;
    return 0;
}

/* dbgauge's own URL key, which libpq would refuse: copy=binary|text (the bulk path's COPY
 * format, copy.c). Writes url without it into out (n bytes) and the choice into *text.
 * 0, or -1 with a DG_ERR_USER error (a bad value, a URL too long). */
static int take_copy_key(const char *url, char *out, size_t n, int *text, struct dg_err *err)
{
    *text = 0;
    const char *q = strstr(url, "://") ? dg_urlq_of(url) : NULL;
    size_t head = q ? (size_t)(q - url) : strlen(url); /* through the '?' */
    if (head >= n)
        return dg_pg_err(NULL, err, DG_ERR_USER, NULL, "PostgreSQL target too long");
    memcpy(out, url, head);
    size_t o = head;
    int kept = 0;
    struct dg_urlq_pair kv;
    const char *rest = q;
    while (rest && dg_urlq_next(&rest, "#", &kv)) {
        if (dg_urlq_key_is(&kv, "copy")) {
            if (kv.val && kv.vlen == 4 && strncmp(kv.val, "text", 4) == 0)
                *text = 1;
            else if (!(kv.val && kv.vlen == 6 && strncmp(kv.val, "binary", 6) == 0))
                return dg_pg_err(NULL, err, DG_ERR_USER, NULL,
                                 "PostgreSQL target: bad '%.*s' (known: copy=binary|text)", (int)kv.len, kv.text);
            continue;
        }
        if (o + kv.len + 2 >= n)
            return dg_pg_err(NULL, err, DG_ERR_USER, NULL, "PostgreSQL target too long");
        if (kept++)
            out[o++] = '&';
        memcpy(out + o, kv.text, kv.len);
        o += kv.len;
    }
    if (q && !kept) /* no pair left: no '?' either */
        o--;
    const char *frag = q ? strchr(q, '#') : NULL;
    size_t fl = frag ? strlen(frag) : 0;
    if (o + fl >= n)
        return dg_pg_err(NULL, err, DG_ERR_USER, NULL, "PostgreSQL target too long");
    memcpy(out + o, frag ? frag : "", fl);
    out[o + fl] = '\0';
    return 0;
}

static int pg_check_url(const char *url, struct dg_err *err)
{
    struct dg_conn *c;
    char shown[1024], plain[2048];
    int text;
    if (take_copy_key(url, plain, sizeof plain, &text, err) || conn_for(plain, shown, sizeof shown, &c, err))
        return -1;
    conn_free(c);
    return 0;
}

static int pg_connect(const char *url, const struct dg_connect_opts *opts, struct dg_conn **out,
                      struct dg_err *err)
{
    *out = NULL;
    struct dg_conn *c;
    char shown[1024], plain[2048];
    int copy_text;
    if (take_copy_key(url, plain, sizeof plain, &copy_text, err))
        return -1;
    url = plain;
    if (conn_for(url, shown, sizeof shown, &c, err))
        return -1;
    c->copy_text = copy_text;

    /* Entries before dbname are defaults the URL overrides: a connect timeout (so an address
     * that drops packets does not hang the run) unless PGCONNECT_TIMEOUT says otherwise, and
     * the application name unless the URL carries one. */
    const char *keys[5], *vals[5];
    char timeout[16] = "10";
    if (opts && opts->connect_timeout_s > 0)
        snprintf(timeout, sizeof timeout, "%d", opts->connect_timeout_s);
    int k = 0;
    if (!getenv("PGCONNECT_TIMEOUT") || (opts && opts->connect_timeout_s > 0))
        keys[k] = "connect_timeout", vals[k++] = timeout;
    if (opts && opts->application && *opts->application)
        keys[k] = "application_name", vals[k++] = opts->application;
    keys[k] = "dbname", vals[k++] = url;
    keys[k] = "fallback_application_name", vals[k++] = "dbgauge";
    keys[k] = NULL, vals[k] = NULL;
    c->pg = PQconnectdbParams(keys, vals, 1);
    if (!c->pg) {
        dg_pg_err(c, err, DG_ERR_FATAL, NULL, "out of memory connecting to %s", shown);
        goto fail;
    }
    const char *used = PQpass(c->pg); /* also a password found in ~/.pgpass */
    if (used)
        dg_secret_add(&c->secrets, used, strlen(used));
    if (PQstatus(c->pg) != CONNECTION_OK) {
        const char *m = PQerrorMessage(c->pg);
        /* Bad address, refused, bad password, missing database: the user must fix the target.
         * A server starting up or shutting down is a passing state. */
        enum dg_err_class cls = DG_ERR_USER;
        if (strstr(m, "starting up") || strstr(m, "shutting down") ||
            strstr(m, "not yet accepting connections"))
            cls = DG_ERR_CONN;
        dg_pg_err(c, err, cls, NULL, "cannot connect to %s: %s", shown, m);
        /* A refused connection comes without its SQLSTATE (53300): libpq keeps only the text. */
        if (err && dg_drv_says_too_many(m))
            err->error_cause = DG_ERROR_TOO_MANY_CONNECTIONS;
        goto fail;
    }
    PQsetNoticeProcessor(c->pg, quiet_notice, NULL);
    *out = c;
    return 0;
fail:
    conn_free(c);
    return -1;
}

static void conn_free(struct dg_conn *c)
{
    if (!c)
        return;
    if (c->bulk)
        dg_pg_bulk_free(c->bulk);
    for (struct dg_link *n; (n = dg_list_pop(&c->stmts));)
        dg_pg_stmt_free(DG_LIST_ENTRY(n, struct dg_stmt, link));
    if (c->pg)
        PQfinish(c->pg);
    dg_secrets_free(&c->secrets);
    free(c);
}

static void pg_disconnect(struct dg_conn *c) { conn_free(c); }

/* The server of the host list this connection reached (libpq tries them in order and keeps
 * the one that took it): "host:port", or the socket's path for a Unix socket. */
static void pg_conn_where(struct dg_conn *c, char *buf, size_t n)
{
    const char *host = PQhost(c->pg), *port = PQport(c->pg);
    if (!host || !*host)
        return;
    if (host[0] == '/')
        snprintf(buf, n, "%s/.s.PGSQL.%s", host, port && *port ? port : "5432");
    else
        snprintf(buf, n, "%s:%s", host, port && *port ? port : "5432");
}

static int pg_exec(struct dg_conn *c, const char *sql, struct dg_err *err)
{
    char what[96];
    snprintf(what, sizeof what, "exec '%.60s'", sql);
    return run(c, sql, what, err);
}

/* ---- transactions ---------------------------------------------------------------------- */

static int pg_begin(struct dg_conn *c, enum dg_isolation iso, int write, struct dg_err *err)
{
    /* write needs nothing here: PostgreSQL takes row locks as it goes. */
    (void)write;
    static const char *const sql[] = {
        [DG_ISO_DEFAULT] = "BEGIN",
        [DG_ISO_READ_COMMITTED] = "BEGIN ISOLATION LEVEL READ COMMITTED",
        [DG_ISO_REPEATABLE_READ] = "BEGIN ISOLATION LEVEL REPEATABLE READ",
        [DG_ISO_SERIALIZABLE] = "BEGIN ISOLATION LEVEL SERIALIZABLE",
    };
    if ((unsigned)iso >= sizeof sql / sizeof *sql)
        return dg_pg_err(c, err, DG_ERR_USER, NULL, "unknown isolation level %d", (int)iso);
    if (dg_pg_flush_begin(c, err)) /* BEGIN twice: let the server say what it thinks */
        return -1;
    c->pending_begin = sql[iso];
    return 0;
}

static int pg_commit(struct dg_conn *c, struct dg_err *err)
{
    if (c->pending_begin) { /* nothing was run: nothing to commit */
        c->pending_begin = NULL;
        return 0;
    }
    return dg_pg_commit_result(c, dg_pg_exec(c->pg, "COMMIT"), err);
}

/* Nothing to do (and no round trip) when no transaction is open: after a failed statement
 * outside BEGIN, or a failed implicit transaction, the server has already rolled back. */
static int pg_rollback(struct dg_conn *c, struct dg_err *err)
{
    if (c->pending_begin) {
        c->pending_begin = NULL;
        return 0;
    }
    if (PQtransactionStatus(c->pg) == PQTRANS_IDLE)
        return 0;
    return run(c, "ROLLBACK", "ROLLBACK", err);
}

/* ---- server facts and knobs ------------------------------------------------------------ */

static int pg_server_info(struct dg_conn *c, struct dg_server_info *info, struct dg_err *err)
{
    memset(info, 0, sizeof *info);
    snprintf(info->engine, sizeof info->engine, "postgresql");
    const char *v = PQparameterStatus(c->pg, "server_version");
    if (v)
        snprintf(info->version, sizeof info->version, "%s", v);
    else
        snprintf(info->version, sizeof info->version, "%d.%d", PQserverVersion(c->pg) / 10000,
                 PQserverVersion(c->pg) % 10000);
    if (dg_pg_flush_begin(c, err))
        return -1;
    PGresult *res = PQexec(c->pg,
                           "SELECT name, current_setting(name) FROM pg_settings WHERE name IN ("
                           "'shared_buffers','synchronous_commit','fsync','max_connections',"
                           "'work_mem','effective_cache_size','wal_level','full_page_writes',"
                           "'checkpoint_timeout','max_wal_size','default_transaction_isolation',"
                           "'server_version_num','synchronous_standby_names') "
                           "UNION ALL SELECT 'in_recovery', pg_is_in_recovery()::text "
                           "UNION ALL SELECT 'transaction_read_only', current_setting('transaction_read_only') "
                           "ORDER BY 1");
    if (!res || PQresultStatus(res) != PGRES_TUPLES_OK) {
        int rc = dg_pg_res_err(c, res, "server settings", err);
        PQclear(res);
        return rc;
    }
    for (int r = 0; r < PQntuples(res); r++) {
        const char *name = PQgetvalue(res, r, 0), *value = PQgetvalue(res, r, 1);
        dg_server_info_add(info, name, value);
        if (!strcmp(name, "in_recovery") && !strcmp(value, "true"))
            snprintf(info->read_only, sizeof info->read_only, "a standby (pg_is_in_recovery() is true)");
        else if (!strcmp(name, "transaction_read_only") && !strcmp(value, "on") && !info->read_only[0])
            snprintf(info->read_only, sizeof info->read_only,
                     "its transactions are read-only (default_transaction_read_only is on)");
    }
    PQclear(res);
    return 0;
}

static int pg_set_memory(struct dg_conn *c, uint64_t bytes, struct dg_err *err)
{
    /* Takes effect at the next server restart, which is the caller's to do. */
    char sql[96];
    uint64_t kb = (bytes + 1023) / 1024;
    snprintf(sql, sizeof sql, "ALTER SYSTEM SET shared_buffers = '%llukB'", (unsigned long long)kb);
    return run(c, sql, sql, err);
}

static int run_setting(struct dg_conn *c, const char *sql, struct dg_err *err) { return run(c, sql, sql, err); }

/* A load session's settings: the dialect's (core/dialect.c says why), recorded (chosen) and
 * each reset when it ends. */
static int pg_load_mode(struct dg_conn *c, int on, struct dg_server_info *chosen, struct dg_err *err)
{
    return dg_load_settings_run(DG_DIALECT_PGSQL, on, c, run_setting, chosen, err);
}

static const char *const pg_schemes[] = {"postgres", "postgresql", NULL};

const struct dg_driver dg_driver_pgsql = {
    .name = "pgsql",
    .schemes = pg_schemes,
    .dialect = DG_DIALECT_PGSQL,
    .caps = DG_CAP_PIPELINE,
    .connect = pg_connect,
    .disconnect = pg_disconnect,
    .exec = pg_exec,
    .prepare = dg_pg_prepare,
    .finalize = dg_pg_finalize,
    .execute = dg_pg_execute,
    .next_row = dg_pg_next_row,
    .reset = dg_pg_reset,
    .changes = dg_pg_changes,
    .ncols = dg_pg_ncols,
    .col_is_null = dg_pg_col_is_null,
    .col_int = dg_pg_col_int,
    .col_double = dg_pg_col_double,
    .col_text = dg_pg_col_text,
    .execute_batch = dg_pg_execute_batch,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .bulk_begin = dg_pg_bulk_begin,
    .bulk_row = dg_pg_bulk_row,
    .bulk_end = dg_pg_bulk_end,
    .server_info = pg_server_info,
    .set_memory = pg_set_memory,
    .load_mode = pg_load_mode,
    .execute_calls = dg_pg_execute_calls,
    .set_streaming = dg_pg_set_streaming,
    .cache_stats = dg_pg_cache_stats,
    .server_local = dg_pg_server_local,
    .conn_where = pg_conn_where,
    .replication = dg_pg_replication,
    .server_pid = dg_pg_server_pid,
    .server_restart = dg_pg_server_restart,
    .check_url = pg_check_url,
};
