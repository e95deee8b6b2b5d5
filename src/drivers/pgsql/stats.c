/* stats.c — PostgreSQL facts for the monitor: the database's buffer cache counters
 * (pg_stat_database) and, when the server runs on this machine, its data directory and
 * postmaster PID. Reads; never changes a setting or the session's transaction state. */
#include "drivers/pgsql/internal.h"
#include "core/monitor.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One row of text columns; NULL (with err) when the query fails. The caller PQclears. */
static PGresult *one_row(struct dg_conn *c, const char *sql, int ncols, struct dg_err *err)
{
    if (dg_pg_flush_begin(c, err))
        return NULL;
    PGresult *res = PQexec(c->pg, sql);
    if (!res || PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1 || PQnfields(res) != ncols) {
        dg_pg_res_err(c, res && PQresultStatus(res) != PGRES_TUPLES_OK ? res : NULL, sql, err);
        PQclear(res);
        return NULL;
    }
    return res;
}

int dg_pg_cache_stats(struct dg_conn *c, uint64_t *hits, uint64_t *misses, struct dg_err *err)
{
    /* Outside a transaction each statement takes a fresh statistics snapshot. Backends
     * publish their counts when they go idle, at most once a second. */
    PGresult *res = one_row(c, "SELECT blks_hit, blks_read FROM pg_stat_database "
                               "WHERE datname = current_database()", 2, err);
    if (!res)
        return -1;
    *hits = (uint64_t)dg_pg_parse_i64(PQgetvalue(res, 0, 0));
    *misses = (uint64_t)dg_pg_parse_i64(PQgetvalue(res, 0, 1));
    PQclear(res);
    return 0;
}

/* The parent pid in /proc/PID/stat when PID is a postgres process, or 0 (a server in another
 * pid namespace, behind a forwarded port, would show someone else's process here). */
static long parent_pid(long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    long ppid = strstr(buf, " (postgres") ? dg_mon_parse_ppid(buf) : 0;
    return ppid > 0 ? ppid : 0;
}

int dg_pg_server_local(struct dg_conn *c, char *data_dir, size_t n, long *pid, struct dg_err *err)
{
    data_dir[0] = '\0';
    *pid = 0;
    const char *host = PQhost(c->pg);
    if (!host || !(host[0] == '/' || !strcmp(host, "127.0.0.1") || !strcmp(host, "localhost") ||
                   !strcmp(host, "::1")))
        return 1; /* another machine's disk and processes are not ours to watch */
    struct dg_err ignore;
    PGresult *res = one_row(c, "SHOW data_directory", 1, &ignore); /* needs pg_read_all_settings */
    if (res) {
        snprintf(data_dir, n, "%s", PQgetvalue(res, 0, 0));
        PQclear(res);
        *pid = dg_pg_server_pid(data_dir);
    }
    if (*pid <= 0) { /* our backend's parent is the postmaster, when /proc lets us see it */
        res = one_row(c, "SELECT pg_backend_pid()", 1, err);
        if (!res)
            return -1;
        *pid = parent_pid(strtol(PQgetvalue(res, 0, 0), NULL, 10));
        PQclear(res);
    }
    if (!data_dir[0] && *pid > 0) { /* the postmaster works in its data directory */
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/cwd", *pid);
        ssize_t len = readlink(path, data_dir, n - 1);
        data_dir[len > 0 ? len : 0] = '\0';
    }
    if (*pid <= 0)
        *pid = 0;
    return data_dir[0] || *pid ? 0 : 1;
}
