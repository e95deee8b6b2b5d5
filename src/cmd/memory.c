/* memory.c — applies --db-memory / --mem-cap / --drop-caches before a run: the driver's
 * set_memory, a server restart (the user's command, or the driver's server_restart on a local
 * data directory) and a wait for the server to answer again, then the cgroup (the server's PID
 * from the driver's server_pid) and the page cache (core/memctl.c). Knows no engine's files.
 * Never prints or stores the restart command. */
#include "cmd/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/clock.h"
#include "core/opts.h"
#include "core/proc.h"

int dg_memory_opt(struct dg_memory_opts *m, int opt, const char *arg, struct dg_err *err)
{
    switch (opt) {
    case DG_MEM_DB_MEMORY:
        if (dg_parse_size("--db-memory", arg, &m->db_memory, err))
            return -1;
        if (m->db_memory < 64 * 1024)
            return dg_err_set(err, DG_ERR_USER, 0, "--db-memory: '%s' is below 64k", DG_TEXT(arg));
        return 0;
    case DG_MEM_MEM_CAP:
        if (dg_parse_size("--mem-cap", arg, &m->mem_cap, err))
            return -1;
        if (m->mem_cap < 16 * 1024 * 1024)
            return dg_err_set(err, DG_ERR_USER, 0, "--mem-cap: '%s' is below 16M", DG_TEXT(arg));
        return 0;
    case DG_MEM_RESTART_CMD: m->restart_cmd = arg; return 0;
    case DG_MEM_PG_DATADIR: m->pg_datadir = arg; return 0;
    case DG_MEM_PG_CTL: m->pg_ctl = arg; return 0;
    case DG_MEM_DROP_CACHES: m->drop_caches = 1; return 0;
    default: return dg_err_set(err, DG_ERR_FATAL, 0, "memory option %d unknown", opt);
    }
}

int dg_memory_check(const struct dg_memory_opts *m, struct dg_err *err)
{
    if (m->restart_cmd && m->pg_datadir)
        return dg_err_set(err, DG_ERR_USER, 0, "--restart-cmd and --pg-datadir: give one way to restart");
    if (m->pg_ctl && !m->pg_datadir)
        return dg_err_set(err, DG_ERR_USER, 0, "--pg-ctl goes with --pg-datadir");
    if (m->pg_datadir && !*m->pg_datadir)
        return dg_err_set(err, DG_ERR_USER, 0, "--pg-datadir: empty");
    return 0;
}

static void note(cJSON *arr, const char *what, const char *text)
{
    fprintf(stderr, "dbgauge: %s%s\n", what, text);
    char buf[700];
    snprintf(buf, sizeof buf, "%s%s", what, text);
    cJSON_AddItemToArray(arr, cJSON_CreateString(buf));
}

/* pg_datadir= and pg_ctl= name a PostgreSQL server on this machine, whichever driver reaches
 * it (pgsql or ODBC): its engine's driver controls it. */
static const struct dg_driver *pg_control(void) { return dg_server_ctl_driver(DG_DIALECT_PGSQL); }

/* The user's restart command, or the driver's restart of the server on pg_datadir. */
static int restart_server(const struct dg_memory_opts *m, struct dg_err *err)
{
    if (m->restart_cmd) {
        fprintf(stderr, "restarting the server (restart_cmd)\n");
        const char *argv[] = {"/bin/sh", "-c", m->restart_cmd, NULL};
        return dg_run_wait(argv, NULL, "restart_cmd", err);
    }
    return dg_server_restart(pg_control(), m->pg_datadir, m->pg_ctl, err);
}

/* Connects until the server answers (60 s at most). */
static int reconnect(const struct dg_target *t, struct dg_conn_h *h, struct dg_err *err)
{
    dg_ns until = dg_now_ns() + 60 * DG_NS_PER_S;
    for (;;) {
        if (dg_connect(t, NULL, h, err) == 0)
            return 0;
        if (dg_now_ns() > until)
            return -1;
        usleep(200000);
    }
}

int dg_memory_apply(const struct dg_target *t, const struct dg_memory_opts *m,
                    struct dg_memory_state *st, struct dg_err *err)
{
    memset(st, 0, sizeof *st);
    cJSON *j = cJSON_CreateObject(), *ok = cJSON_AddArrayToObject(j, "applied"),
          *no = cJSON_AddArrayToObject(j, "not_applied");
    int rc = -1;
    char buf[600];
    if (m->db_memory) {
        cJSON_AddNumberToObject(j, "db_memory_bytes", (double)m->db_memory);
        if (!dg_driver_has(t->drv, set_memory)) {
            snprintf(buf, sizeof buf, "the %s driver has no memory knob", dg_driver_name(t->drv));
            note(no, "db_memory not applied: ", buf);
        } else if (dg_driver_caps(t->drv) & DG_CAP_MEMORY_SESSION) {
            st->session_bytes = m->db_memory; /* every connection of the run sets it */
            snprintf(buf, sizeof buf, "%llu bytes on every connection", (unsigned long long)m->db_memory);
            note(ok, "db_memory: ", buf);
        } else {
            struct dg_conn_h h;
            if (dg_connect(t, NULL, &h, err))
                goto out;
            int bad = dg_set_memory(&h, m->db_memory, err);
            dg_disconnect(&h);
            if (bad)
                goto out;
            if (dg_driver_caps(t->drv) & DG_CAP_MEMORY_LIVE) { /* MariaDB resizes its buffer pool live */
                snprintf(buf, sizeof buf, "%llu bytes, applied at once (the engine may round it up)",
                         (unsigned long long)m->db_memory);
                note(ok, "db_memory: ", buf);
            } else if (!m->restart_cmd && !m->pg_datadir) {
                note(no, "db_memory not applied: ", "set for the next server start, but nothing restarts "
                                                     "it (give restart_cmd= or pg_datadir=)");
            } else {
                if (restart_server(m, err) || reconnect(t, &h, err))
                    goto out;
                dg_disconnect(&h);
                snprintf(buf, sizeof buf, "%llu bytes, server restarted", (unsigned long long)m->db_memory);
                note(ok, "db_memory: ", buf);
            }
        }
    }
    if (m->mem_cap) {
        cJSON_AddNumberToObject(j, "mem_cap_bytes", (double)m->mem_cap);
        pid_t pids[DG_MEMCG_MAX_PIDS];
        int n = 0;
        if (dg_dialect(dg_driver_dialect(t->drv))->embedded) {
            pids[n++] = getpid(); /* the engine runs inside dbgauge */
        } else if (m->pg_datadir && (pids[0] = (pid_t)dg_server_pid(pg_control(), m->pg_datadir)) > 0) {
            n = 1 + dg_child_pids(pids[0], pids + 1, DG_MEMCG_MAX_PIDS - 1);
        }
        struct dg_err e2;
        if (n == 0)
            note(no, "mem_cap not applied: ", "no local process to cap (SQLite, or a PostgreSQL given pg_datadir=)");
        else if (dg_memcg_enter(&st->cg, m->mem_cap, pids, n, &e2))
            note(no, "mem_cap not applied: ", e2.msg);
        else {
            snprintf(buf, sizeof buf, "%llu bytes on %d process%s in %s", (unsigned long long)m->mem_cap, n,
                     n == 1 ? "" : "es", st->cg.path);
            note(ok, "mem_cap: ", buf);
        }
    }
    if (m->drop_caches) {
        struct dg_err e2;
        if (dg_drop_caches(&e2))
            note(no, "drop_caches not applied: ", e2.msg + strlen("drop_caches: "));
        else
            note(ok, "drop_caches: ", "page cache emptied");
    }
    rc = 0;
out:
    if (rc == 0 && (m->db_memory || m->mem_cap || m->drop_caches))
        st->json = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (rc)
        dg_memcg_leave(&st->cg);
    return rc;
}

void dg_memory_release(struct dg_memory_state *st)
{
    dg_memcg_leave(&st->cg);
    free(st->json);
    st->json = NULL;
}
