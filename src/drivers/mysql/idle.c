/* idle.c — the MariaDB/MySQL driver telling a server's idle close from any other lost
 * connection. A session idle longer than its wait_timeout is closed by the server; MySQL 8.0.24+
 * says so first (4031), MariaDB 10.11 does not: the next statement fails with 2006 "Server has
 * gone away" or 2013, word for word a crashed server's. So the driver asks the session's
 * wait_timeout once at connect and notes when the server last answered (a coarse clock read per
 * statement); a 2006 or 2013 after at least that long idle is the server's close. Asks the
 * server nothing after connect. */
#include <errmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/mysql/internal.h"

/* SHOW, not SELECT @@wait_timeout: the server counts it apart from the workload's statements
 * (Com_show_variables), so its Com_select stays exactly the workload's (e2e/oltp checks it). */
void dg_my_idle_probe(struct dg_conn *c)
{
    c->wait_timeout_s = 0;
    if (!mysql_query(c->my, "SHOW SESSION VARIABLES LIKE 'wait_timeout'")) {
        MYSQL_RES *r = mysql_store_result(c->my);
        MYSQL_ROW row = r && mysql_num_fields(r) == 2 ? mysql_fetch_row(r) : NULL;
        if (row && row[1])
            c->wait_timeout_s = strtol(row[1], NULL, 10);
        if (r)
            mysql_free_result(r);
    }
    dg_my_answered(c);
}

void dg_my_idle_judge(const struct dg_conn *c, unsigned code, struct dg_err *err)
{
    if ((code != CR_SERVER_GONE_ERROR && code != CR_SERVER_LOST) || c->wait_timeout_s <= 0 || !c->answered_ns)
        return;
    uint64_t idle = dg_my_coarse_ns() - c->answered_ns;
    /* The server's timer starts when it has sent its answer, a little before we note it; the
     * coarse clock may lag a few ms. 50 ms of slack keeps an idle close from looking short. */
    if (idle + 50000000u < (uint64_t)c->wait_timeout_s * 1000000000u)
        return;
    err->error_cause = DG_ERROR_CLOSED_BY_SERVER;
    size_t len = strlen(err->msg);
    snprintf(err->msg + len, sizeof err->msg - len,
             " (idle %.1f s: the server closes sessions idle %ld s, wait_timeout)", (double)idle / 1e9,
             c->wait_timeout_s);
}
