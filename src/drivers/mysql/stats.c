/* stats.c — what the MariaDB/MySQL driver tells the monitor: InnoDB's buffer pool hits and
 * misses, and, when the server runs on this machine, its data directory and process id. Reads
 * server variables, the server's pid file and /proc only; changes nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "drivers/mysql/internal.h"

/* The monitor's engine cache figures: InnoDB's buffer pool, server-wide. A read request the
 * pool served is a hit; Innodb_buffer_pool_reads counts those it had to read from disk. */
int dg_my_cache_stats(struct dg_conn *c, uint64_t *hits, uint64_t *misses, struct dg_err *err)
{
    if (mysql_query(c->my, "SHOW GLOBAL STATUS WHERE Variable_name IN "
                           "('Innodb_buffer_pool_read_requests', 'Innodb_buffer_pool_reads')"))
        return dg_my_conn_err(c, "buffer pool status", err);
    MYSQL_RES *r = mysql_store_result(c->my);
    if (!r)
        return dg_my_conn_err(c, "buffer pool status", err);
    uint64_t requests = 0, reads = 0;
    int found = 0;
    MYSQL_ROW row;
    while ((row = mysql_fetch_row(r)) != NULL) {
        if (!row[0] || !row[1])
            continue;
        uint64_t v = strtoull(row[1], NULL, 10);
        if (!strcmp(row[0], "Innodb_buffer_pool_read_requests"))
            requests = v, found |= 1;
        else if (!strcmp(row[0], "Innodb_buffer_pool_reads"))
            reads = v, found |= 2;
    }
    mysql_free_result(r);
    if (found != 3)
        return dg_my_err(c, err, DG_ERR_FATAL, 0, "the server does not report InnoDB buffer pool reads");
    *misses = reads;
    *hits = requests > reads ? requests - reads : 0;
    return 0;
}

/* The first row of sql, two text columns, into a and b. */
static int two_values(struct dg_conn *c, const char *sql, char *a, size_t an, char *b, size_t bn,
                      struct dg_err *err)
{
    if (mysql_query(c->my, sql))
        return dg_my_conn_err(c, sql, err);
    MYSQL_RES *r = mysql_store_result(c->my);
    if (!r)
        return dg_my_conn_err(c, sql, err);
    MYSQL_ROW row = mysql_fetch_row(r);
    int ok = row && mysql_num_fields(r) >= 2;
    snprintf(a, an, "%s", ok && row[0] ? row[0] : "");
    snprintf(b, bn, "%s", ok && row[1] ? row[1] : "");
    mysql_free_result(r);
    return 0;
}

/* The pid in the server's pid file when that process is a MariaDB or MySQL server, else 0. */
static long server_pid(const char *dir, const char *pid_file)
{
    char path[2100], comm[32] = "";
    if (!pid_file[0])
        return 0;
    if (pid_file[0] == '/')
        snprintf(path, sizeof path, "%s", pid_file);
    else
        snprintf(path, sizeof path, "%s/%s", dir, pid_file);
    long pid = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (fscanf(f, "%ld", &pid) != 1)
        pid = 0;
    fclose(f);
    if (pid <= 0)
        return 0;
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    if (!(f = fopen(path, "r")))
        return 0;
    if (!fgets(comm, sizeof comm, f))
        comm[0] = '\0';
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    return !strcmp(comm, "mariadbd") || !strcmp(comm, "mysqld") ? pid : 0;
}

int dg_my_server_local(struct dg_conn *c, char *data_dir, size_t n, long *pid, struct dg_err *err)
{
    data_dir[0] = '\0';
    *pid = 0;
    /* "Localhost via UNIX socket", "127.0.0.1 via TCP/IP", "::1 via TCP/IP" */
    const char *info = mysql_get_host_info(c->my);
    if (!info || !(!strncasecmp(info, "localhost ", 10) || !strncmp(info, "127.0.0.1 ", 10) ||
                   !strncmp(info, "::1 ", 4)))
        return 1; /* another machine's disk and processes are not ours to watch */
    char dir[1024], pid_file[1024];
    if (two_values(c, "SELECT @@datadir, @@pid_file", dir, sizeof dir, pid_file, sizeof pid_file, err))
        return -1;
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        dir[--len] = '\0';
    snprintf(data_dir, n, "%s", dir);
    *pid = server_pid(dir, pid_file);
    return data_dir[0] || *pid ? 0 : 1;
}
