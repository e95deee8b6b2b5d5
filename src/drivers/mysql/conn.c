/* conn.c — MariaDB/MySQL driver (MariaDB Connector/C): the URL, connecting, the secrets
 * scrubbed from messages, error classes by server code, transactions, server facts and
 * knobs, and the driver table. Must not leak a password into any message. */
#include "core/urlq.h"
#include "drivers/errcause.h"
#include "drivers/mysql/internal.h"

#include <errmsg.h>
#include <mysql.h>
#include <mysqld_error.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages and errors --------------------------------------------------------------- */

int dg_my_err(const struct dg_conn *c, struct dg_err *err, enum dg_err_class cls, unsigned code,
              const char *fmt, ...)
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
    err->cause = code == ER_LOCK_DEADLOCK ? DG_RETRY_DEADLOCK
               : code == ER_LOCK_WAIT_TIMEOUT ? DG_RETRY_LOCK_TIMEOUT : DG_RETRY_OTHER;
    err->error_cause = dg_drv_error_cause_mysql(code, tmp);
    err->code = (int)code;
    err->sqlstate[0] = '\0';
    dg_secret_scrub(c ? &c->secrets : NULL, err->msg, sizeof err->msg, tmp, DG_SCRUB_MAP);
    return -1;
}

enum dg_err_class dg_my_classify(unsigned code)
{
    switch (code) {
    case ER_LOCK_DEADLOCK:      /* 1213 */
    case ER_LOCK_WAIT_TIMEOUT:  /* 1205 */
        return DG_ERR_RETRY;
    case CR_SERVER_GONE_ERROR:  /* 2006 */
    case CR_SERVER_LOST:        /* 2013 */
    case CR_SERVER_LOST_EXTENDED: /* 2055 */
    case CR_CONNECTION_ERROR:   /* 2002 once connected */
    case CR_CONN_HOST_ERROR:    /* 2003 once connected (a reconnect refused) */
    case ER_CONNECTION_KILLED:  /* 1927 */
    case ER_SERVER_SHUTDOWN:    /* 1053 */
    case ER_QUERY_INTERRUPTED:
    /* 1047 (SQLSTATE 08S01) from a Galera node that took the connection but has not joined
     * yet: "WSREP has not yet prepared node for application use" (a server starting up). */
    case ER_UNKNOWN_COM_ERROR:
    /* MySQL 8's ER_CLIENT_INTERACTION_TIMEOUT (the server dropped an idle session). MariaDB
     * gives 4031 to a CREATE TRIGGER ... FOLLOWS naming no trigger: never sent by dbgauge. */
    case 4031:
        return DG_ERR_CONN;
    case ER_PARSE_ERROR:        /* 1064 */
    case ER_SYNTAX_ERROR:
    case ER_NO_SUCH_TABLE:      /* 1146 */
    case ER_BAD_FIELD_ERROR:    /* 1054 */
    case ER_BAD_TABLE_ERROR:
    case ER_BAD_DB_ERROR:       /* 1049 */
    case ER_ACCESS_DENIED_ERROR:
    case ER_DBACCESS_DENIED_ERROR:
    case ER_TABLEACCESS_DENIED_ERROR:
    case ER_SPECIFIC_ACCESS_DENIED_ERROR:
    case ER_SP_DOES_NOT_EXIST:
    case ER_WRONG_VALUE_COUNT_ON_ROW:
    case ER_NO_DB_ERROR:
    case ER_UNKNOWN_SYSTEM_VARIABLE:
        return DG_ERR_USER;
    default:
        return DG_ERR_FATAL; /* 1062 during a run is a workload bug, not the user's target */
    }
}

/* at_commit: the error came from COMMIT (on a Galera node, a 1213 there is the cluster's). */
static int fill(struct dg_conn *c, struct dg_err *err, unsigned code, const char *state,
                const char *what, const char *msg, int at_commit)
{
    dg_my_err(c, err, dg_my_classify(code), code, "%s: %s (%u)", what, msg && *msg ? msg : "error",
              code);
    if (err && state && strlen(state) == 5 && strcmp(state, "00000") != 0)
        memcpy(err->sqlstate, state, 6);
    if (err && c && c->wsrep && code == ER_LOCK_DEADLOCK) /* after the copies: it runs a query */
        err->cause = dg_my_wsrep_cause(c, at_commit);
    if (err && c)
        dg_my_idle_judge(c, code, err);
    return -1;
}

int dg_my_conn_err(struct dg_conn *c, const char *what, struct dg_err *err)
{
    return fill(c, err, mysql_errno(c->my), mysql_sqlstate(c->my), what, mysql_error(c->my), 0);
}

int dg_my_stmt_err(struct dg_stmt *s, const char *what, struct dg_err *err)
{
    unsigned code = mysql_stmt_errno(s->st);
    if (code == 0) /* some failures leave the code on the connection only */
        return dg_my_conn_err(s->c, what, err);
    return fill(s->c, err, code, mysql_stmt_sqlstate(s->st), what, mysql_stmt_error(s->st), 0);
}

/* ---- the URL: mysql://user[:password]@host[:port][,host[:port]...]/database[?load=...] ---- */

/* The servers of one target, tried in order on every connect (the library takes one host). */
struct my_host {
    char name[256]; /* decoded; an IPv6 address without its brackets */
    unsigned port;
};

struct my_url {
    char user[128], pass[256], db[128];
    struct my_host hosts[DG_URL_MAX_HOSTS];
    int nhosts;
    int have_pass;
    enum my_load load;
};

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Percent-decodes p[0..n) into out; -1 when it does not fit or an escape is bad. */
static int decode(const char *p, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = p[i];
        if (ch == '%') {
            int a = i + 2 < n ? hexval(p[i + 1]) : -1, b = i + 2 < n ? hexval(p[i + 2]) : -1;
            if (a < 0 || b < 0)
                return -1;
            int h = a * 16 + b;
            ch = (char)h;
            i += 2;
        }
        if (o + 1 >= cap)
            return -1;
        out[o++] = ch;
    }
    out[o] = '\0';
    return 0;
}

/* The host list into u->hosts (port 3306 where a part names none). */
static int parse_hosts(const char *url, const char *shown, struct my_url *u, struct dg_err *err)
{
    struct dg_url_host h[DG_URL_MAX_HOSTS];
    int n = dg_url_hosts(url, shown, h, DG_URL_MAX_HOSTS, err);
    if (n < 0)
        return -1;
    if (n == 0)
        return dg_my_err(NULL, err, DG_ERR_USER, 0, "target %s: the URL names no host", shown);
    for (int i = 0; i < n; i++) {
        const char *p = h[i].host;
        size_t len = h[i].hlen;
        if (len >= 2 && p[0] == '[') /* [::1]: the library wants the bare address */
            p++, len -= 2;
        if (len == 0 || decode(p, len, u->hosts[i].name, sizeof u->hosts[i].name))
            return dg_my_err(NULL, err, DG_ERR_USER, 0, "target %s: bad host '%.*s'", shown,
                             (int)h[i].hlen, h[i].host);
        u->hosts[i].port = h[i].port ? (unsigned)h[i].port : 3306;
    }
    u->nhosts = n;
    return 0;
}

static int parse_url(const char *url, const char *shown, struct my_url *u, struct dg_err *err)
{
    memset(u, 0, sizeof *u);
    const char *p = strstr(url, "://");
    if (!p)
        return dg_my_err(NULL, err, DG_ERR_USER, 0,
                         "target %s: expected mysql://user[:password]@host[:port]/database", shown);
    p += 3;
    const char *end = p + strcspn(p, "/?#");
    const char *at = NULL;
    for (const char *q = p; q < end; q++)
        if (*q == '@')
            at = q;
    if (!at || at == p)
        return dg_my_err(NULL, err, DG_ERR_USER, 0, "target %s: the URL names no user (user@host)",
                         shown);
    const char *colon = memchr(p, ':', (size_t)(at - p));
    size_t ulen = (size_t)((colon ? colon : at) - p);
    if (ulen == 0 || decode(p, ulen, u->user, sizeof u->user))
        return dg_my_err(NULL, err, DG_ERR_USER, 0, "target %s: bad user name in the URL", shown);
    if (colon) {
        if (decode(colon + 1, (size_t)(at - colon - 1), u->pass, sizeof u->pass))
            return dg_my_err(NULL, err, DG_ERR_USER, 0, "target %s: bad password part in the URL",
                             shown);
        u->have_pass = 1;
    }
    if (parse_hosts(url, shown, u, err))
        return -1;
    if (*end != '/')
        return dg_my_err(NULL, err, DG_ERR_USER, 0, "target %s: the URL names no database (/db)",
                         shown);
    const char *d = end + 1;
    size_t dlen = strcspn(d, "?#");
    if (dlen == 0 || decode(d, dlen, u->db, sizeof u->db))
        return dg_my_err(NULL, err, DG_ERR_USER, 0, "target %s: the URL names no database (/db)",
                         shown);
    const char *q = d[dlen] == '?' ? d + dlen + 1 : NULL;
    struct dg_urlq_pair kv;
    while (dg_urlq_next(&q, "#", &kv)) {
        if (kv.len == 11 && strncmp(kv.text, "load=infile", 11) == 0)
            u->load = MY_LOAD_INFILE;
        else if (kv.len == 11 && strncmp(kv.text, "load=insert", 11) == 0)
            u->load = MY_LOAD_INSERT;
        else
            return dg_my_err(NULL, err, DG_ERR_USER, 0,
                             "target %s: unknown parameter '%.*s' (known: load=infile|insert)",
                             shown, (int)kv.len, kv.text);
    }
    return 0;
}

/* ---- connection ------------------------------------------------------------------------ */

static void conn_free(struct dg_conn *c)
{
    if (!c)
        return;
    if (c->bulk)
        dg_my_bulk_free(c->bulk);
    for (struct dg_link *n; (n = dg_list_pop(&c->stmts));)
        dg_my_stmt_free(DG_LIST_ENTRY(n, struct dg_stmt, link));
    if (c->my)
        mysql_close(c->my);
    dg_secrets_free(&c->secrets);
    free(c);
}

/* A new handle with dbgauge's options, or NULL out of memory. The application's name goes as
 * the program_name connection attribute: the server shows it in
 * performance_schema.session_connect_attrs, as PostgreSQL shows application_name. */
static MYSQL *my_handle(const char *pass, const char *application)
{
    MYSQL *my = mysql_init(NULL);
    if (!my)
        return NULL;
    unsigned timeout_s = 10;
    my_bool on = 1;
    mysql_options(my, MYSQL_OPT_CONNECT_TIMEOUT, &timeout_s);
    mysql_options(my, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    mysql_options(my, MYSQL_OPT_LOCAL_INFILE, &on);
    mysql_optionsv(my, MYSQL_OPT_CONNECT_ATTR_ADD, "program_name", application);
    if (!pass) /* the [client] group of the option files may hold the password */
        mysql_options(my, MYSQL_READ_DEFAULT_GROUP, "client");
    return my;
}

/* A server that refused us only for now: shutting down. Anything else at connect (refused,
 * unknown host, bad password, no such database, a handshake lost to a port that is not a
 * MariaDB server's) is the user's to fix, as for the other drivers. */
static int passing_state(unsigned code) { return code == ER_SERVER_SHUTDOWN; }

/* Tries u's hosts in order (the library has no host list); c->my is the first that takes us.
 * When none does, the error names each host tried and what it said. */
static int connect_hosts(struct dg_conn *c, const struct my_url *u, const char *pass, const char *shown,
                         const char *application, struct dg_err *err)
{
    char tried[1024] = "", last[512] = "";
    size_t used = 0;
    unsigned code = 0;
    int passing = 0;
    for (int i = 0; i < u->nhosts; i++) {
        const struct my_host *h = &u->hosts[i];
        if (!(c->my = my_handle(pass, application)))
            return dg_my_err(c, err, DG_ERR_FATAL, 0, "out of memory connecting to %s", shown);
        /* CLIENT_FOUND_ROWS: changes() counts the rows matched, as other engines do. */
        if (mysql_real_connect(c->my, h->name, u->user, pass, u->db, h->port, NULL, CLIENT_FOUND_ROWS)) {
            snprintf(c->where, sizeof c->where, strchr(h->name, ':') ? "[%s]:%u" : "%s:%u", h->name, h->port);
            return 0;
        }
        code = mysql_errno(c->my);
        passing |= passing_state(code);
        snprintf(last, sizeof last, "%s (%u)", mysql_error(c->my), code);
        if (used < sizeof tried)
            used += (size_t)snprintf(tried + used, sizeof tried - used, "%s%s:%u: %s", i ? "; " : "", h->name,
                                     h->port, last);
        mysql_close(c->my);
        c->my = NULL;
    }
    return dg_my_err(c, err, passing ? DG_ERR_CONN : DG_ERR_USER, code, "cannot connect to %s: %s", shown,
                     u->nhosts > 1 ? tried : last);
}

static int my_connect(const char *url, const struct dg_connect_opts *opts, struct dg_conn **out,
                      struct dg_err *err)
{
    *out = NULL;
    char shown[1024];
    dg_redact_url(url, shown, sizeof shown);
    struct my_url u;
    struct dg_conn *c = calloc(1, sizeof *c);
    if (!c)
        return dg_my_err(NULL, err, DG_ERR_FATAL, 0, "out of memory");
    size_t n;
    const char *raw = dg_url_password(url, &n);
    if (raw)
        dg_secret_add(&c->secrets, raw, n);
    if (parse_url(url, shown, &u, err))
        goto fail;
    const char *pass = u.have_pass ? u.pass : getenv("DG_MYSQL_PASSWORD");
    if (!pass)
        pass = getenv("MYSQL_PWD");
    if (pass)
        dg_secret_add(&c->secrets, pass, strlen(pass));
    c->load = u.load;
    if (connect_hosts(c, &u, pass, shown, opts && opts->application && *opts->application ? opts->application : "dbgauge", err))
        goto fail;
    dg_secret_wipe(u.pass, sizeof u.pass);
    dg_my_wsrep_probe(c);
    dg_my_idle_probe(c);
    dg_my_infile_install(c);
    *out = c;
    return 0;
fail:
    dg_secret_wipe(u.pass, sizeof u.pass);
    conn_free(c);
    return -1;
}

static int my_check_url(const char *url, struct dg_err *err)
{
    char shown[1024];
    dg_redact_url(url, shown, sizeof shown);
    struct my_url u;
    int rc = parse_url(url, shown, &u, err);
    dg_secret_wipe(u.pass, sizeof u.pass);
    return rc;
}

static void my_disconnect(struct dg_conn *c) { conn_free(c); }

static void my_conn_where(struct dg_conn *c, char *buf, size_t n) { snprintf(buf, n, "%s", c->where); }

/* Runs sql with the text protocol, discarding any rows. */
static int run(struct dg_conn *c, const char *sql, const char *what, struct dg_err *err)
{
    if (mysql_query(c->my, sql))
        return dg_my_conn_err(c, what, err);
    do {
        MYSQL_RES *r = mysql_store_result(c->my);
        if (r)
            mysql_free_result(r);
        else if (mysql_field_count(c->my))
            return dg_my_conn_err(c, what, err);
    } while (mysql_next_result(c->my) == 0);
    if (mysql_errno(c->my))
        return dg_my_conn_err(c, what, err);
    dg_my_answered(c);
    return 0;
}

static int my_exec(struct dg_conn *c, const char *sql, struct dg_err *err)
{
    char what[96];
    snprintf(what, sizeof what, "exec '%.60s'", sql);
    return run(c, sql, what, err);
}

/* ---- transactions ---------------------------------------------------------------------- */

static int my_begin(struct dg_conn *c, enum dg_isolation iso, int write, struct dg_err *err)
{
    (void)write; /* InnoDB takes row locks as it goes */
    static const char *const level[] = {
        [DG_ISO_DEFAULT] = NULL,
        [DG_ISO_READ_COMMITTED] = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
        [DG_ISO_REPEATABLE_READ] = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
        [DG_ISO_SERIALIZABLE] = "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
    };
    if ((unsigned)iso >= sizeof level / sizeof *level)
        return dg_my_err(c, err, DG_ERR_USER, 0, "unknown isolation level %d", (int)iso);
    if (level[iso] && run(c, level[iso], level[iso], err))
        return -1;
    return run(c, "START TRANSACTION", "START TRANSACTION", err);
}

static int my_commit(struct dg_conn *c, struct dg_err *err)
{
    if (!mysql_commit(c->my)) {
        dg_my_answered(c);
        return 0;
    }
    return fill(c, err, mysql_errno(c->my), mysql_sqlstate(c->my), "COMMIT", mysql_error(c->my), 1);
}

static int my_rollback(struct dg_conn *c, struct dg_err *err)
{
    if (mysql_rollback(c->my))
        return dg_my_conn_err(c, "ROLLBACK", err);
    dg_my_answered(c);
    return 0;
}

/* ---- server facts and knobs ------------------------------------------------------------ */

/* The parts of wsrep_provider_options that shape a Galera run (the whole text is kilobytes):
 * "gcache.size = 128M; gcs.fc_limit = 16; ..." as far as value[96] holds. */
static void add_provider_options(struct dg_server_info *info, const char *all)
{
    static const char *const keys[] = {"gcache.size", "gcs.fc_limit", "gcs.fc_factor",
                                       "evs.suspect_timeout", "repl.commit_order"};
    char out[96] = "";
    size_t o = 0;
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        const char *p = all ? strstr(all, keys[k]) : NULL;
        if (!p || (p > all && p[-1] != ' ' && p[-1] != ';'))
            continue;
        size_t len = strcspn(p, ";");
        int w = snprintf(out + o, sizeof out - o, "%s%.*s", o ? "; " : "", (int)len, p);
        if (w < 0 || (size_t)w >= sizeof out - o) {
            out[o] = '\0'; /* whole parts only */
            break;
        }
        o += (size_t)w;
    }
    if (o) /* nothing for a server without Galera */
        dg_server_info_add(info, "wsrep_provider_options", out);
}

static int my_server_info(struct dg_conn *c, struct dg_server_info *info, struct dg_err *err)
{
    memset(info, 0, sizeof *info);
    const char *v = mysql_get_server_info(c->my);
    snprintf(info->engine, sizeof info->engine, "%s", v && strstr(v, "MariaDB") ? "mariadb" : "mysql");
    snprintf(info->version, sizeof info->version, "%s", v ? v : "?");
    if (mysql_query(c->my, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ("
                           "'innodb_buffer_pool_size','innodb_flush_log_at_trx_commit',"
                           "'sync_binlog','max_connections','transaction_isolation',"
                           "'tx_isolation','innodb_log_file_size','innodb_flush_method',"
                           "'innodb_doublewrite','log_bin','innodb_io_capacity',"
                           "'version_comment','binlog_format','wsrep_on','wsrep_sync_wait',"
                           "'wsrep_provider_options','read_only')"))
        return dg_my_conn_err(c, "server settings", err);
    MYSQL_RES *r = mysql_store_result(c->my);
    if (!r)
        return dg_my_conn_err(c, "server settings", err);
    MYSQL_ROW row;
    while ((row = mysql_fetch_row(r)) != NULL) {
        if (!strcmp(row[0], "wsrep_provider_options"))
            add_provider_options(info, row[1]);
        else
            dg_server_info_add(info, row[0], row[1]);
        if (!strcmp(row[0], "read_only") && strcmp(row[1], "OFF") && strcmp(row[1], "0"))
            snprintf(info->read_only, sizeof info->read_only, "the server is read_only=%s (a replica?)", row[1]);
    }
    mysql_free_result(r);
    /* The cluster's size at connect (a status, not a variable; none without Galera). */
    if (mysql_query(c->my, "SHOW GLOBAL STATUS LIKE 'wsrep_cluster_size'") ||
        !(r = mysql_store_result(c->my)))
        return dg_my_conn_err(c, "server status", err);
    if ((row = mysql_fetch_row(r)) != NULL)
        dg_server_info_add(info, row[0], row[1]);
    mysql_free_result(r);
    return 0;
}

static int my_set_memory(struct dg_conn *c, uint64_t bytes, struct dg_err *err)
{
    char sql[96];
    snprintf(sql, sizeof sql, "SET GLOBAL innodb_buffer_pool_size = %llu", (unsigned long long)bytes);
    return run(c, sql, sql, err);
}

static int run_setting(struct dg_conn *c, const char *sql, struct dg_err *err) { return run(c, sql, sql, err); }

/* A load session's settings: the dialect's (core/dialect.c says why), recorded (chosen) and
 * set back to the server's when it ends; and how rows go in. Measured LOAD DATA LOCAL INFILE
 * (the default) against ?load=insert on W=4 --jobs 2 (3 alternated runs, 2 cores, another
 * build beside): 28.2 s against 45.4 s median. */
static int my_load_mode(struct dg_conn *c, int on, struct dg_server_info *chosen, struct dg_err *err)
{
    if (dg_load_settings_run(DG_DIALECT_MYSQL, on, c, run_setting, chosen, err))
        return -1;
    if (on && chosen)
        dg_server_info_add(chosen, "load", c->load == MY_LOAD_INSERT ? "insert" : "infile");
    return 0;
}

static const char *const my_schemes[] = {"mysql", "mariadb", NULL};

const struct dg_driver dg_driver_mysql = {
    .name = "mysql",
    .schemes = my_schemes,
    .dialect = DG_DIALECT_MYSQL,
    .caps = DG_CAP_MEMORY_LIVE | DG_CAP_CLUSTER,
    .connect = my_connect,
    .disconnect = my_disconnect,
    .exec = my_exec,
    .prepare = dg_my_prepare,
    .finalize = dg_my_finalize,
    .execute = dg_my_execute,
    .next_row = dg_my_next_row,
    .reset = dg_my_reset,
    .changes = dg_my_changes,
    .ncols = dg_my_ncols,
    .col_is_null = dg_my_col_is_null,
    .col_int = dg_my_col_int,
    .col_double = dg_my_col_double,
    .col_text = dg_my_col_text,
    .begin = my_begin,
    .commit = my_commit,
    .rollback = my_rollback,
    .bulk_begin = dg_my_bulk_begin,
    .bulk_row = dg_my_bulk_row,
    .bulk_end = dg_my_bulk_end,
    .server_info = my_server_info,
    .set_memory = my_set_memory,
    .load_mode = my_load_mode,
    .set_streaming = dg_my_set_streaming,
    .cache_stats = dg_my_cache_stats,
    .server_local = dg_my_server_local,
    .conn_where = my_conn_where,
    .replication = dg_my_replication,
    .check_url = my_check_url,
};
