/* syncwait.c — before anything reads a target: waits, bounded, until its server has applied
 * what it received (no row of the driver's optional replication slot says behind: a Galera
 * node catching up after a load through another node, a standby replaying). Knows the rows'
 * generic fields only, no engine; never waits on a driver without the slot. */
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "core/clock.h"
#include "core/opts.h"

#define POLL_NS (200 * DG_NS_PER_MS)

/* Why the server is behind, from its first behind row: "Joined, recv queue 1234". */
static void behind_text(const struct dg_repl_row *r, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "%s", r->state[0] ? r->state : r->name);
    if (used < n && r->recv_queue >= 0)
        used += (size_t)snprintf(buf + used, n - used, ", recv queue %.0f", r->recv_queue);
    if (used < n && r->lag_bytes >= 0)
        used += (size_t)snprintf(buf + used, n - used, ", %.0f bytes not replayed", r->lag_bytes);
    if (used < n && r->replay_lag_s >= 0)
        snprintf(buf + used, n - used, ", replay lag %.1f s", r->replay_lag_s);
}

/* 1 when a row of h's server says behind (why into buf), 0 when none does, -1 with err. */
static int behind(struct dg_conn_h *h, char *buf, size_t n, struct dg_err *err)
{
    struct dg_repl_row rows[DG_REPL_MAX];
    int got = dg_replication(h, rows, DG_REPL_MAX, err);
    for (int i = 0; i < got; i++)
        if (rows[i].behind && !strcmp(rows[i].name, "self")) { /* not a primary's standbys */
            behind_text(&rows[i], buf, n);
            return 1;
        }
    return got < 0 ? -1 : 0;
}

int dg_sync_wait(const char *cmd, const struct dg_target *t, struct dg_conn_h *h, dg_ns wait_ns, struct dg_err *err)
{
    if (!wait_ns) /* (a driver without the slot gives no row: no wait either) */
        return 0;
    char where[300], why[160] = "";
    dg_conn_where(h, where, sizeof where);
    if (!where[0])
        snprintf(where, sizeof where, "%s", t->redacted);
    const dg_ns deadline = dg_now_ns() + wait_ns;
    int was = 0; /* it was behind: once caught up, one more look a poll later says it stays so */
    for (;;) {
        int b = behind(h, why, sizeof why, err);
        if (b < 0)
            return -1;
        if (!b && was != 1)
            return 0;
        if (b && !was)
            fprintf(stderr, "dbgauge %s: waiting for %s to apply what it received (%s)...\n", cmd, where, why);
        was = b ? 1 : 2;
        if (dg_now_ns() >= deadline && b) {
            char w[32];
            dg_format_duration(wait_ns, w, sizeof w);
            return dg_err_set(err, DG_ERR_USER, 0, "%s has not applied what it received after %s (%s): give it "
                              "time (--sync-wait T) or read it as it is (--sync-wait 0)", where, w, why);
        }
        struct timespec ts = {0, (long)POLL_NS};
        nanosleep(&ts, NULL);
    }
}

int dg_sync_wait_targets(const char *cmd, const struct dg_run_opts *c, struct dg_err *err)
{
    for (int k = 0; c->sync_wait_ns && k < c->ntargets; k++) {
        struct dg_target t;
        struct dg_conn_h h = {0};
        struct dg_err e;
        if (dg_target_parse(c->targets[k], &t, &e) || !dg_driver_has(t.drv, replication) || dg_connect(&t, NULL, &h, &e))
            continue; /* the command says what is wrong with it when it gets there */
        int rc = dg_sync_wait(cmd, &t, &h, c->sync_wait_ns, err);
        dg_disconnect(&h);
        if (rc)
            return -1;
    }
    return 0;
}
