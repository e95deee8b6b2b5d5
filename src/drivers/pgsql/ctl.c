/* ctl.c — control of a PostgreSQL server on this machine, by its data directory: the
 * postmaster's PID from postmaster.pid, and `pg_ctl restart` (as the directory's owner when
 * root). Needs no connection; never prints a password (there is none here to print). */
#include <stdio.h>
#include <stdlib.h>

#include "core/proc.h"
#include "drivers/pgsql/internal.h"

#define DEFAULT_PG_CTL "/usr/lib/postgresql/15/bin/pg_ctl"

long dg_pg_server_pid(const char *data_dir)
{
    char path[1100], line[32];
    snprintf(path, sizeof path, "%s/postmaster.pid", data_dir);
    FILE *f = fopen(path, "r");
    long pid = 0;
    if (f) { /* its first line */
        if (fgets(line, sizeof line, f))
            pid = strtol(line, NULL, 10);
        fclose(f);
    }
    return pid > 0 ? pid : 0;
}

int dg_pg_server_restart(const char *data_dir, const char *ctl, struct dg_err *err)
{
    char log[1100];
    snprintf(log, sizeof log, "%s/dbgauge-restart.log", data_dir);
    fprintf(stderr, "restarting PostgreSQL in %s (pg_ctl restart; its log: %s)\n", data_dir, log);
    const char *argv[] = {ctl ? ctl : DEFAULT_PG_CTL, "restart", "-w", "-t", "60", "-m", "fast",
                          "-D", data_dir, "-l", log, NULL};
    return dg_run_wait(argv, data_dir, "pg_ctl restart", err);
}
