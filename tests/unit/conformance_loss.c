/* conformance_loss.c — the conformance checks of a lost connection: a killed session and a
 * server stopped and started again give DG_ERR_CONN and a new connection works after; a
 * connection lost before COMMIT is not in doubt, one lost once COMMIT was sent is (through
 * the core's wrappers, dg_commit and dg_execute_calls). Through the driver API only. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conformance.h"

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The server's id of connection c's session (PostgreSQL backend pid, MariaDB thread id). */
static int session_id(struct dg_conn_h *c, enum dg_dialect d, int64_t *id, struct dg_err *err)
{
    return dg_query_int(c, d == DG_DIALECT_MYSQL ? "SELECT CONNECTION_ID()" : "SELECT pg_backend_pid()", id, err);
}

/* Ends session id from connection killer, as an administrator would. */
static int kill_session(struct dg_conn_h *killer, enum dg_dialect d, int64_t id, struct dg_err *err)
{
    char sql[96];
    if (d == DG_DIALECT_MYSQL) {
        snprintf(sql, sizeof sql, "KILL CONNECTION %lld", (long long)id);
        return xexec(killer, sql, err);
    }
    int64_t done = 0;
    snprintf(sql, sizeof sql, "SELECT pg_terminate_backend(%lld)::int", (long long)id);
    if (dg_query_int(killer, sql, &done, err))
        return -1;
    return done == 1 ? 0 : dg_err_set(err, DG_ERR_FATAL, 0, "pg_terminate_backend(%lld) found no session", (long long)id);
}

/* A new connection c with an open transaction that inserted row id into dg_conf_loss, and the
 * id of its session. */
static int open_txn(struct suite *t, struct dg_conn_h *c, int64_t *sid, int id, struct dg_err *err)
{
    char sql[96];
    snprintf(sql, sizeof sql, "INSERT INTO dg_conf_loss (id) VALUES (%d)", id);
    return dg_connect(&t->tgt, NULL, c, err) || session_id(c, t->dialect, sid, err) ||
           dg_begin(c, DG_ISO_DEFAULT, 1, err) || xexec(c, sql, err);
}

/* The COMMIT of the open transaction on c: by dg_commit (s NULL), or at the end of a call
 * list running s (prepared before the connection was lost) nsets times through
 * dg_execute_calls. */
static int commit_by(struct dg_conn_h *c, struct dg_stmt *s, int nsets, struct dg_err *err)
{
    if (!s)
        return dg_commit(c, err);
    struct dg_call call = {.stmt = s, .nsets = nsets};
    return dg_execute_calls(c, &call, 1, 1, err);
}

/* Killed sessions: a statement then gets DG_ERR_CONN not in doubt, a COMMIT gets it in doubt
 * (the client cannot tell that it never arrived), and a new connection works. */
static void check_killed(struct suite *t)
{
    const char *names[] = {"a killed session gives DG_ERR_CONN, and a new connection works after",
                           "lost before COMMIT: the next statement's DG_ERR_CONN is not in doubt",
                           "lost, then COMMIT: DG_ERR_CONN in doubt (dg_commit)",
                           "lost, then COMMIT: DG_ERR_CONN in doubt (dg_execute_calls: an empty call list and commit)"};
    for (int k = 0; k < 4; k++) {
        struct dg_err err = {0}, e2 = {0};
        struct dg_conn_h c = {0}, again = {0};
        struct dg_stmt *s = NULL;
        int64_t sid = 0, one = 0;
        int good = open_txn(t, &c, &sid, 10 + k, &err) == 0 &&
                   (k < 3 || dg_prepare(&c, "SELECT 1", 0, &s, &err) == 0) &&
                   kill_session(&t->a, t->dialect, sid, &err) == 0;
        if (!good) {
            check(t, names[k], 0, &err);
        } else if (k == 0) {
            int rc = xexec(&c, "SELECT 1", &e2);
            good = rc != 0 && e2.cls == DG_ERR_CONN;
            check(t, names[k], good && dg_connect(&t->tgt, NULL, &again, &err) == 0 &&
                                   dg_query_int(&again, "SELECT 1", &one, &err) == 0 && one == 1,
                  good ? &err : rc ? &e2 : NULL);
        } else if (k == 1) {
            int rc = xexec(&c, "INSERT INTO dg_conf_loss (id) VALUES (99)", &e2);
            check(t, names[k], rc != 0 && e2.cls == DG_ERR_CONN && e2.in_doubt == 0, rc ? &e2 : NULL);
        } else {
            int rc = commit_by(&c, s, 0, &e2);
            check(t, names[k], rc != 0 && e2.cls == DG_ERR_CONN && e2.in_doubt == 1, rc ? &e2 : NULL);
        }
        dg_finalize(&c, s);
        dg_disconnect(&again);
        dg_disconnect(&c);
    }
}

struct committer {
    struct dg_conn_h *c;
    struct dg_stmt *s;
    int rc;
    struct dg_err err;
};

static void *run_commit(void *arg)
{
    struct committer *w = arg;
    w->rc = commit_by(w->c, w->s, 1, &w->err);
    return NULL;
}

/* Waits (up to 10 s) until session sid waits for the synchronous standby. */
static int await_syncrep(struct dg_conn_h *watcher, int64_t sid, struct dg_err *err)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = %lld AND wait_event = 'SyncRep'",
             (long long)sid);
    for (int i = 0; i < 200; i++) {
        int64_t n = 0;
        if (dg_query_int(watcher, sql, &n, err))
            return -1;
        if (n == 1)
            return 0;
        sleep_ms(50);
    }
    return dg_err_set(err, DG_ERR_FATAL, 0, "the COMMIT never waited for the standby");
}

/* One COMMIT cut while the server holds it: committed locally, its answer never sent. */
static void cut_commit(struct suite *t, struct dg_conn_h *admin, int calls, const char *name)
{
    struct dg_err err = {0};
    struct dg_conn_h c = {0};
    int64_t sid = 0, n = 0;
    int id = 20 + calls;
    struct committer w = {.c = &c};
    if (open_txn(t, &c, &sid, id, &err) || (calls && dg_prepare(&c, "SELECT 1", 0, &w.s, &err))) {
        check(t, name, 0, &err);
        dg_disconnect(&c);
        return;
    }
    pthread_t th;
    pthread_create(&th, NULL, run_commit, &w);
    int good = await_syncrep(admin, sid, &err) == 0 && kill_session(admin, DG_DIALECT_PGSQL, sid, &err) == 0;
    if (!good) /* releases the waiting COMMIT so the thread ends */
        xexec(admin, "ALTER SYSTEM RESET synchronous_standby_names; SELECT pg_reload_conf()", &(struct dg_err){0});
    pthread_join(th, NULL);
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM dg_conf_loss WHERE id = %d", id);
    if (!good)
        check(t, name, 0, &err);
    else if (!check(t, name, w.rc != 0 && w.err.cls == DG_ERR_CONN && w.err.in_doubt == 1, w.rc ? &w.err : NULL))
        ;
    else {
        char also[160];
        snprintf(also, sizeof also, "%s: it did commit (its row is there)", name);
        check(t, also, count_where(&t->a, sql, &n, &err) == 0 && n == 1, &err);
    }
    dg_finalize(&c, w.s);
    dg_disconnect(&c);
}

/* PostgreSQL: every COMMIT waits for a standby that never comes (synchronous_standby_names),
 * the backend is ended while it waits: the client sees its connection lost during COMMIT. */
static void check_cut_commit(struct suite *t)
{
    const char *name = "lost during COMMIT: DG_ERR_CONN in doubt (dg_commit)";
    const char *url = getenv("DG_PG_ADMIN_URL");
    if (t->dialect != DG_DIALECT_PGSQL || !url) {
        skip(t, name, t->dialect != DG_DIALECT_PGSQL ? "recipe is PostgreSQL's (synchronous_standby_names)"
                                                     : "DG_PG_ADMIN_URL (a superuser) is not set");
        return;
    }
    struct dg_err err = {0};
    struct dg_target at;
    struct dg_conn_h admin = {0};
    int64_t one = 0;
    if (dg_target_parse(url, &at, &err) || dg_connect(&at, NULL, &admin, &err) ||
        xexec(&admin, "ALTER SYSTEM SET synchronous_standby_names = 'nobody'", &err) ||
        dg_query_int(&admin, "SELECT pg_reload_conf()::int", &one, &err)) {
        check(t, name, 0, &err);
        dg_disconnect(&admin);
        return;
    }
    sleep_ms(300); /* backends read the new setting when the postmaster's SIGHUP reaches them */
    cut_commit(t, &admin, 0, name);
    cut_commit(t, &admin, 1, "lost during COMMIT: DG_ERR_CONN in doubt (dg_execute_calls: a statement and commit)");
    xexec(&admin, "ALTER SYSTEM RESET synchronous_standby_names", &err);
    dg_query_int(&admin, "SELECT pg_reload_conf()::int", &one, &err);
    dg_disconnect(&admin);
}

/* DG_CONF_RESTART (a shell command, e.g. tests/servers.sh restart pg) stops the server hard
 * and starts it again: the connections it had give DG_ERR_CONN, a new one works. t->a and t->b
 * are connected again after. */
static void check_restart(struct suite *t)
{
    const char *name = "a server stopped and started again: DG_ERR_CONN, then a new connection works";
    const char *cmd = getenv("DG_CONF_RESTART");
    if (!cmd || !*cmd) {
        skip(t, name, "DG_CONF_RESTART (a command that restarts the server) is not set");
        return;
    }
    struct dg_err err = {0}, e2 = {0};
    struct dg_conn_h c = {0};
    int64_t one = 0;
    if (dg_connect(&t->tgt, NULL, &c, &err) || dg_query_int(&c, "SELECT 1", &one, &err)) {
        check(t, name, 0, &err);
        dg_disconnect(&c);
        return;
    }
    int st = system(cmd);
    int rc = xexec(&c, "SELECT 1", &e2);
    dg_disconnect(&c);
    if (st != 0)
        not_ok(t, name, "'%s' exited %d", cmd, st);
    else if (rc == 0 || e2.cls != DG_ERR_CONN)
        check(t, name, 0, rc ? &e2 : NULL);
    else
        check(t, name, dg_connect(&t->tgt, NULL, &c, &err) == 0 && dg_query_int(&c, "SELECT 1", &one, &err) == 0,
              &err);
    dg_disconnect(&c);
    dg_disconnect(&t->a);
    dg_disconnect(&t->b);
    if (dg_connect(&t->tgt, NULL, &t->a, &err) || dg_connect(&t->tgt, NULL, &t->b, &err))
        printf("# reconnecting after the restart: %s\n", err.msg);
}

void check_connection_loss(struct suite *t)
{
    if (t->dialect != DG_DIALECT_PGSQL && t->dialect != DG_DIALECT_MYSQL) {
        skip(t, "a killed session gives DG_ERR_CONN", "recipes for PostgreSQL and MariaDB only");
        return;
    }
    struct dg_err err = {0};
    xexec(&t->a, "DROP TABLE IF EXISTS dg_conf_loss", &err);
    if (!check(t, "connection loss: a table to write", xexec(&t->a, "CREATE TABLE dg_conf_loss (id INT PRIMARY KEY)",
                                                            &err) == 0, &err))
        return;
    check_killed(t);
    check_cut_commit(t);
    check_restart(t);
    xexec(&t->a, "DROP TABLE IF EXISTS dg_conf_loss", &err);
}
