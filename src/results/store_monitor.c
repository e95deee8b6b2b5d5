/* store_monitor.c — the host and engine monitor of a run in the results database: the device
 * watched (run.monitor_device) and one run_monitor row per second, -1 (not available) kept
 * as NULL. Writes inside store.c's transaction; never samples anything itself. */
#include <stdio.h>
#include <stdlib.h>

#include "results/store_internal.h"

/* The monitor's figures, in column order; -1 (not available) is stored as NULL. */
#define MON_FIELDS(X)                                                                              \
    X(cpu_user_pct) X(cpu_sys_pct) X(cpu_iowait_pct) X(disk_read_mb_s) X(disk_write_mb_s)           \
    X(disk_read_iops) X(disk_write_iops) X(disk_await_ms) X(server_rss_bytes) X(server_read_mb_s)   \
    X(server_write_mb_s) X(cache_hits_per_s) X(cache_misses_per_s)
#define MON_NAME(f) ", " #f
#define MON_COUNT(f) +1

/* The points of one host into table (run_monitor, or run_rank_monitor when rank >= 0). */
int dg_store_put_points(struct dg_store *s, const char *table, int64_t run_id, int rank,
                        const struct dg_monitor_point *pts, size_t n, struct dg_err *err)
{
    if (!n)
        return 0;
    char sql[512];
    sqlite3_stmt *st;
    int nf = 0 MON_FIELDS(MON_COUNT);
    int o = snprintf(sql, sizeof sql, "INSERT INTO %s (run_id, %ssecond" MON_FIELDS(MON_NAME) ") VALUES (?,?%s",
                     table, rank >= 0 ? "rank, " : "", rank >= 0 ? ",?" : "");
    for (int i = 0; i < nf; i++)
        o += snprintf(sql + o, sizeof sql - (size_t)o, ",?");
    snprintf(sql + o, sizeof sql - (size_t)o, ")");
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    for (size_t k = 0; k < n; k++) {
        const struct dg_monitor_point *p = &pts[k];
        int i = 1;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, i++, run_id);
        if (rank >= 0)
            sqlite3_bind_int(st, i++, rank);
        sqlite3_bind_int64(st, i++, p->second);
#define MON_BIND(f)                                                                                \
    if (p->f >= 0)                                                                                 \
        sqlite3_bind_double(st, i++, p->f);                                                        \
    else                                                                                           \
        sqlite3_bind_null(st, i++);
        MON_FIELDS(MON_BIND)
        if (sqlite3_step(st) != SQLITE_DONE) {
            sqlite3_finalize(st);
            return dg_store_fail(err, s->db, "insert monitor points");
        }
    }
    sqlite3_finalize(st);
    return 0;
}

int dg_store_put_monitor(struct dg_store *s, const struct dg_run_record *r, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (r->monitor_device[0]) {
        if (sqlite3_prepare_v2(s->db, "UPDATE run SET monitor_device = ? WHERE id = ?", -1, &st,
                               NULL) != SQLITE_OK)
            return dg_store_fail(err, s->db, "prepare");
        sqlite3_bind_text(st, 1, r->monitor_device, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 2, r->id);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return dg_store_fail(err, s->db, "set monitor_device");
    }
    return dg_store_put_points(s, "run_monitor", r->id, -1, r->monitor, r->nmonitor, err);
}

/* The points of one host from table (rank as in dg_store_put_points), seconds in order, into
 * *pts (malloc'd, the caller's) and *n. */
int dg_store_get_points(struct dg_store *s, const char *table, int64_t run_id, int rank,
                        struct dg_monitor_point **pts, size_t *n, struct dg_err *err)
{
    char sql[512];
    sqlite3_stmt *st;
    snprintf(sql, sizeof sql, "SELECT second" MON_FIELDS(MON_NAME) " FROM %s WHERE run_id = ?%s ORDER BY second",
             table, rank >= 0 ? " AND rank = ?" : "");
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, run_id);
    if (rank >= 0)
        sqlite3_bind_int(st, 2, rank);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 256;
            struct dg_monitor_point *p = realloc(*pts, cap * sizeof *p);
            if (!p) {
                sqlite3_finalize(st);
                return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
            }
            *pts = p;
        }
        struct dg_monitor_point *p = &(*pts)[(*n)++];
        int i = 0;
        p->second = sqlite3_column_int64(st, i++);
#define MON_READ(f)                                                                                \
    p->f = sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_double(st, i);          \
    i++;
        MON_FIELDS(MON_READ)
    }
    sqlite3_finalize(st);
    return 0;
}

int dg_store_get_monitor(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT monitor_device FROM run WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, r->id);
    if (sqlite3_step(st) == SQLITE_ROW)
        dg_store_copy_col(st, 0, r->monitor_device, sizeof r->monitor_device);
    sqlite3_finalize(st);
    return dg_store_get_points(s, "run_monitor", r->id, -1, &r->monitor, &r->nmonitor, err);
}
