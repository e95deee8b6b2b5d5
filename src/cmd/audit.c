/* audit.c (cmd) — the audit after a run: when the run had an outage (or --audit always), the
 * workload's audit hook checks on fresh connections that every write the run saw
 * acknowledged is in the database (the failover's RPO). The server may still be coming back
 * when the window ends: each target is sought for up to a minute (or --reconnect-timeout); a
 * node of a cluster that stays away is read through another node of it.
 * An audit that was due and could not be made is said on stderr and kept with the run
 * (rec->audit_not_made): the run is then no pass, nor is one whose audit found a loss. */
#include <time.h>

#include "cmd/cmd.h"

/* Whether this run is to be audited (why not in rec->audit_not_made when it was asked and cannot be). */
static int wanted(const struct dg_wl_cli *cli, const struct dg_run_opts *c, struct dg_run_record *rec,
                  const char *cmd)
{
    if (c->audit_when == DG_AUDIT_NEVER || (c->audit_when == DG_AUDIT_AFTER_OUTAGE && !rec->noutages))
        return 0;
    if (!cli->audit || !rec->nacks) {
        if (c->audit_when == DG_AUDIT_ALWAYS) {
            snprintf(rec->audit_not_made, sizeof rec->audit_not_made, "--audit always: %s",
                     !cli->audit ? "this workload keeps nothing to audit" : "the run kept no acknowledged write");
            fprintf(stderr, "dbgauge %s: %s\n", cmd, rec->audit_not_made);
        }
        return 0;
    }
    return 1;
}

/* Connects to t, trying again every half second until wait_ns has passed. */
static int connect_patiently(const struct dg_target *t, dg_ns wait_ns, struct dg_conn_h *h, const char *cmd,
                             struct dg_err *err)
{
    dg_ns until = dg_now_ns() + wait_ns;
    int said = 0;
    while (dg_connect(t, NULL, h, err)) {
        if (err->cls != DG_ERR_CONN && err->cls != DG_ERR_USER)
            return -1;
        if (dg_now_ns() >= until)
            return -1;
        if (!said++)
            fprintf(stderr, "dbgauge %s: audit: waiting for %s to take connections (%s)\n", cmd, t->redacted,
                    err->msg);
        nanosleep(&(struct timespec){.tv_nsec = 500 * 1000 * 1000}, NULL);
    }
    return 0;
}

/* Connects h to target k, or, for a node of a cluster (Galera: one database, any node can
 * answer for all), to the first node of the same cluster that takes a connection, trying the
 * nodes in turn until wait_ns has passed: the audit needs the database, not that node. A peer
 * is waited on until it has applied what it received (dg_sync_wait), then named on stderr. */
static int connect_node_or_peer(const struct dg_target *const *targets, int n, int k, dg_ns wait_ns,
                                struct dg_conn_h *h, const char *cmd, struct dg_err *err)
{
    const struct dg_target *t = targets[k];
    if (!t->cluster)
        return connect_patiently(t, wait_ns, h, cmd, err);
    dg_ns until = dg_now_ns() + wait_ns;
    struct dg_err first = {0}; /* why the node itself did not answer: the one said on failure */
    for (int said = 0;; said = 1) {
        for (int i = 0; i < n; i++) {
            int j = (k + i) % n;
            if (targets[j]->cluster != t->cluster)
                continue;
            struct dg_err e;
            if (dg_connect(targets[j], NULL, h, &e)) {
                if (j == k)
                    first = e;
                continue;
            }
            if (j != k)
                fprintf(stderr, "dbgauge %s: audit: %s does not answer (%s); its writes are read on %s, a node of the "
                        "same cluster\n", cmd, t->redacted, first.msg, targets[j]->redacted);
            if (j == k || dg_sync_wait(cmd, targets[j], h, wait_ns, err) == 0)
                return 0;
            dg_disconnect(h);
            return -1;
        }
        *err = first;
        if (dg_now_ns() >= until)
            return -1;
        if (!said)
            fprintf(stderr, "dbgauge %s: audit: waiting for a node of %s's cluster to take connections (%s)\n", cmd,
                    t->redacted, first.msg);
        nanosleep(&(struct timespec){.tv_nsec = 500 * 1000 * 1000}, NULL);
    }
}

void dg_cmd_audit_after(const struct dg_wl_cli *cli, const struct dg_run_opts *c, const struct dg_target *const *targets,
                        int n, struct dg_run_record *rec, const char *cmd)
{
    rec->audit_not_made[0] = '\0';
    if (!wanted(cli, c, rec, cmd))
        return;
    struct dg_conn_h h[DG_MAX_TARGETS] = {0};
    struct dg_err err = {0};
    dg_ns wait_ns = c->reconnect_timeout_ns ? c->reconnect_timeout_ns : 60 * DG_NS_PER_S;
    int k = 0;
    for (; k < n; k++)
        if (connect_node_or_peer(targets, n, k, wait_ns, &h[k], cmd, &err))
            break;
    if (k == n && cli->audit(h, n, rec->acks, rec->nacks, &rec->audit, &err) == 0) {
        rec->audited = 1;
    } else {
        snprintf(rec->audit_not_made, sizeof rec->audit_not_made, "%s%s%s", k < n ? targets[k]->redacted : "",
                 k < n ? ": " : "", err.msg);
        fprintf(stderr, "dbgauge %s: audit after the run not made: %s\n", cmd, rec->audit_not_made);
    }
    for (int i = 0; i < n; i++)
        dg_disconnect(&h[i]);
}
