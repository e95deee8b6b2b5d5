/* wsrep.c — the MariaDB driver on a Galera node: whether the server runs wsrep (asked once at
 * connect), which of its 1213 errors are the cluster's (DG_RETRY_CERTIFICATION), and the
 * replication slot (one row "self" from its wsrep_% status). Runs only at connect, after a
 * 1213 and for the monitor, never on a transaction's way; changes nothing on the server.
 *
 * What a Galera node (MariaDB 10.11, galera-4) says, seen on a 3-node cluster: a transaction
 * that loses certification fails its COMMIT with 1213 "Deadlock found when trying to get
 * lock; try restarting transaction" (SQLSTATE 40001), word for word an InnoDB deadlock; one
 * that a replicated write set brute-force aborts (BF abort: the usual loser under TPC-C over
 * several nodes) fails its running or next statement with the same 1213. The diagnostics
 * area does not tell them apart reliably (a BF abort of a lock wait looks as a deadlock's).
 * So on a wsrep node: a 1213 at COMMIT is the cluster's (InnoDB takes no row lock at COMMIT,
 * no deadlock ends there); one at a statement is an InnoDB deadlock when the server's
 * Innodb_deadlocks went up since this connection last looked (at connect and at each 1213:
 * InnoDB counts its own deadlock victims, never a BF abort), else the cluster's. A deadlock
 * is so never taken for a conflict; a conflict is taken for a deadlock only when another
 * session of the same node had a real deadlock in between (none in a 3-node TPC-C run of
 * thousands of BF aborts). Off Galera every 1213 is a deadlock, with no extra round trip. */
#include <mysqld_error.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "drivers/mysql/internal.h"

/* The second column of the first row of sql (a SHOW ... LIKE), into buf; 0, or -1 when the
 * query fails or gives no row. */
static int show_value(struct dg_conn *c, const char *sql, char *buf, size_t n)
{
    if (mysql_query(c->my, sql))
        return -1;
    MYSQL_RES *r = mysql_store_result(c->my);
    if (!r)
        return -1;
    MYSQL_ROW row = mysql_fetch_row(r);
    int ok = row && mysql_num_fields(r) >= 2 && row[1];
    snprintf(buf, n, "%s", ok ? row[1] : "");
    mysql_free_result(r);
    return ok ? 0 : -1;
}

/* The server's InnoDB deadlock victims so far, -1 when it does not say. */
static long long innodb_deadlocks(struct dg_conn *c)
{
    char v[32];
    return show_value(c, "SHOW GLOBAL STATUS LIKE 'Innodb\\_deadlocks'", v, sizeof v) ? -1 : strtoll(v, NULL, 10);
}

void dg_my_wsrep_probe(struct dg_conn *c)
{
    char v[16];
    /* SHOW works on a node not ready for SQL yet (a joiner); MySQL has no such variable. */
    c->wsrep = !show_value(c, "SHOW GLOBAL VARIABLES LIKE 'wsrep\\_on'", v, sizeof v) && !strcasecmp(v, "ON");
    c->deadlocks_seen = c->wsrep ? innodb_deadlocks(c) : -1;
}

enum dg_retry_cause dg_my_wsrep_cause(struct dg_conn *c, int at_commit)
{
    if (at_commit)
        return DG_RETRY_CERTIFICATION;
    long long before = c->deadlocks_seen, now = innodb_deadlocks(c);
    c->deadlocks_seen = now;
    if (now < 0 || before < 0)
        return DG_RETRY_DEADLOCK; /* cannot tell: as off Galera */
    return now > before ? DG_RETRY_DEADLOCK : DG_RETRY_CERTIFICATION;
}

/* The figures of SHOW GLOBAL STATUS LIKE 'wsrep_%' a row takes. */
static void take(struct dg_repl_row *row, const char *name, const char *v)
{
    static const struct {
        const char *name;
        size_t off;
    } figs[] = {
        {"wsrep_cluster_size", offsetof(struct dg_repl_row, cluster_size)},
        {"wsrep_flow_control_paused", offsetof(struct dg_repl_row, flow_paused)},
        {"wsrep_local_recv_queue", offsetof(struct dg_repl_row, recv_queue)},
        {"wsrep_local_send_queue", offsetof(struct dg_repl_row, send_queue)},
        {"wsrep_local_cert_failures", offsetof(struct dg_repl_row, cert_failures)},
    };
    if (!strcmp(name, "wsrep_local_state_comment")) {
        snprintf(row->state, sizeof row->state, "%s", v);
        return;
    }
    for (size_t i = 0; i < sizeof figs / sizeof *figs; i++)
        if (!strcmp(name, figs[i].name))
            *(double *)((char *)row + figs[i].off) = strtod(v, NULL);
}

int dg_my_replication(struct dg_conn *c, struct dg_repl_row *rows, int max, struct dg_err *err)
{
    if (!c->wsrep || max < 1)
        return 0; /* plain replication (SHOW SLAVE STATUS) is not read */
    if (mysql_query(c->my, "SHOW GLOBAL STATUS LIKE 'wsrep\\_%'"))
        return dg_my_conn_err(c, "wsrep status", err);
    MYSQL_RES *r = mysql_store_result(c->my);
    if (!r)
        return dg_my_conn_err(c, "wsrep status", err);
    struct dg_repl_row *row = &rows[0];
    *row = (struct dg_repl_row){.name = "self", .write_lag_s = -1, .flush_lag_s = -1, .replay_lag_s = -1,
                                .lag_bytes = -1, .cluster_size = -1, .flow_paused = -1, .recv_queue = -1,
                                .send_queue = -1, .cert_failures = -1};
    MYSQL_ROW f;
    while ((f = mysql_fetch_row(r)) != NULL)
        if (mysql_num_fields(r) >= 2 && f[0] && f[1])
            take(row, f[0], f[1]);
    mysql_free_result(r);
    row->behind = strcmp(row->state, "Synced") != 0 || row->recv_queue > 0;
    return 1;
}
