/* repl.c — PostgreSQL replication for the monitor (the driver's replication slot): on a
 * primary one row per standby from pg_stat_replication, on a standby one row about itself.
 * One query a call, answered within REPL_WAIT_MS or the connection counts as lost: a frozen
 * server never holds the monitor. Reads only. */
#include "drivers/pgsql/internal.h"
#include "core/clock.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPL_WAIT_MS 3000

/* Both branches in one statement: a primary's branch never runs on a standby (where
 * pg_current_wal_lsn() fails) and the other way round. A standby with nothing received and not
 * replayed is not behind, however old its last replayed transaction (an idle primary).
 * A standby's replay lag on its primary is what can be measured now: 0 with nothing left to
 * replay; else the longer of the server's replay_lag and the time since the standby last
 * replied (reply_time): a standby that stopped taking WAL sends no replies, and replay_lag
 * keeps its last value however long that lasts. */
static const char repl_sql[] =
    "SELECT application_name, COALESCE(state, ''), COALESCE(sync_state, ''),"
    " COALESCE(EXTRACT(epoch FROM write_lag), -1), COALESCE(EXTRACT(epoch FROM flush_lag), -1),"
    " CASE WHEN pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) <= 0 THEN 0 ELSE"
    " COALESCE(GREATEST(EXTRACT(epoch FROM replay_lag), EXTRACT(epoch FROM now() - reply_time)), -1) END,"
    " COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), -1)"
    " FROM pg_stat_replication WHERE NOT pg_is_in_recovery()"
    " UNION ALL "
    "SELECT 'self', COALESCE((SELECT status FROM pg_stat_wal_receiver LIMIT 1), 'standby'), '',"
    " -1, -1,"
    " CASE WHEN rcv IS NOT NULL AND rcv = rpl THEN 0 ELSE"
    " COALESCE(GREATEST(EXTRACT(epoch FROM now() - pg_last_xact_replay_timestamp()), 0), -1) END,"
    " COALESCE(pg_wal_lsn_diff(rcv, rpl), -1)"
    " FROM (SELECT pg_last_wal_receive_lsn() AS rcv, pg_last_wal_replay_lsn() AS rpl) l"
    " WHERE pg_is_in_recovery() ORDER BY 1";

/* sql's result, or NULL with err: DG_ERR_CONN when the server does not answer in time (the
 * query is still out: the caller drops the connection). */
static PGresult *exec_within(struct dg_conn *c, const char *sql, int wait_ms, struct dg_err *err)
{
    if (dg_pg_flush_begin(c, err))
        return NULL;
    if (!PQsendQuery(c->pg, sql)) {
        dg_pg_res_err(c, NULL, "replication", err);
        return NULL;
    }
    dg_ns deadline = dg_now_ns() + (dg_ns)wait_ms * 1000000u;
    while (PQisBusy(c->pg)) {
        dg_ns now = dg_now_ns();
        if (now >= deadline) {
            dg_pg_err(c, err, DG_ERR_CONN, NULL, "replication: no answer from the server in %d ms", wait_ms);
            return NULL;
        }
        struct pollfd p = {.fd = PQsocket(c->pg), .events = POLLIN};
        int ms = (int)((deadline - now + 999999) / 1000000);
        if ((poll(&p, 1, ms) < 0 && errno != EINTR) || !PQconsumeInput(c->pg)) {
            dg_pg_res_err(c, NULL, "replication", err);
            return NULL;
        }
    }
    PGresult *res = PQgetResult(c->pg);
    for (PGresult *more; (more = PQgetResult(c->pg)) != NULL;)
        PQclear(more);
    return res;
}

int dg_pg_replication(struct dg_conn *c, struct dg_repl_row *rows, int max, struct dg_err *err)
{
    PGresult *res = exec_within(c, repl_sql, REPL_WAIT_MS, err);
    if (!res)
        return -1;
    if (PQresultStatus(res) != PGRES_TUPLES_OK || PQnfields(res) != 7) {
        int rc = dg_pg_res_err(c, res, "replication", err);
        PQclear(res);
        return rc;
    }
    int n = PQntuples(res) < max ? PQntuples(res) : max;
    for (int r = 0; r < n; r++) {
        struct dg_repl_row *x = &rows[r];
        *x = (struct dg_repl_row){.cluster_size = -1, .flow_paused = -1, .recv_queue = -1,
                                  .send_queue = -1, .cert_failures = -1};
        snprintf(x->name, sizeof x->name, "%s", PQgetvalue(res, r, 0));
        snprintf(x->state, sizeof x->state, "%s", PQgetvalue(res, r, 1));
        snprintf(x->sync, sizeof x->sync, "%s", PQgetvalue(res, r, 2));
        x->write_lag_s = strtod(PQgetvalue(res, r, 3), NULL);
        x->flush_lag_s = strtod(PQgetvalue(res, r, 4), NULL);
        x->replay_lag_s = strtod(PQgetvalue(res, r, 5), NULL);
        x->lag_bytes = strtod(PQgetvalue(res, r, 6), NULL);
        /* A standby's row on its primary: WAL not replayed there yet. The server's own row
         * ("self"): catching up, i.e. WAL received and not replayed and the last replayed
         * transaction over a second old — a standby of a busy primary always has a little in
         * flight, and is not to be waited for (cmd/syncwait.c reads only "self" rows). */
        x->behind = x->lag_bytes > 0 && (strcmp(x->name, "self") || x->replay_lag_s > 1.0);
    }
    PQclear(res);
    return n;
}
