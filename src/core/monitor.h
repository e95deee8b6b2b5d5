/* monitor.h — the host and engine monitor: pure parsers of /proc text (CPU, block device,
 * process I/O and memory), the device that holds a path, and a sampler thread that turns
 * snapshots into one point per second of a run, numbered as the run's per-second series.
 * Knows no database: engine cache figures and replication rows come through callbacks. Never
 * on the hot path. */
#ifndef DG_MONITOR_H
#define DG_MONITOR_H

#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"
#include "core/driver.h"
#include "core/err.h"

/* ---- parsers: text in, struct out; 0 on success, -1 when the text lacks what is asked ---- */

/* The first "cpu" line of /proc/stat, in clock ticks. */
struct dg_mon_cpu {
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};
int dg_mon_parse_stat(const char *text, struct dg_mon_cpu *out);

/* One line of /proc/diskstats. */
struct dg_mon_disk {
    unsigned major, minor;
    char name[32];
    uint64_t reads, sectors_read, read_ms, writes, sectors_written, write_ms;
};
/* The line of device name (when name is non-NULL and non-empty) or else major:minor. */
int dg_mon_parse_diskstats(const char *text, const char *name, unsigned major, unsigned minor,
                           struct dg_mon_disk *out);

/* /proc/PID/io: the bytes the process made the block layer read and write. */
struct dg_mon_io {
    uint64_t read_bytes, write_bytes;
};
int dg_mon_parse_pid_io(const char *text, struct dg_mon_io *out);

/* /proc/PID/status, in bytes: VmRSS and its parts (RssAnon, RssFile, RssShmem; 0 if absent). */
struct dg_mon_rss {
    uint64_t rss, anon, file, shmem;
};
int dg_mon_parse_pid_rss(const char *text, struct dg_mon_rss *out);

/* The parent pid from the text of /proc/PID/stat (read after the command's last ')', which
 * may itself hold parentheses), or -1. */
long dg_mon_parse_ppid(const char *stat_text);

/* ---- derived figures between two snapshots dt_s apart (-1 when not available) ---- */

struct dg_mon_cpu_pct {
    double user, sys, iowait; /* user+nice; system+irq+softirq; iowait; % of all ticks */
};
void dg_mon_cpu_delta(const struct dg_mon_cpu *a, const struct dg_mon_cpu *b, struct dg_mon_cpu_pct *out);
struct dg_mon_disk_rate {
    double read_mb_s, write_mb_s, read_iops, write_iops, await_ms;
};
void dg_mon_disk_delta(const struct dg_mon_disk *a, const struct dg_mon_disk *b, double dt_s,
                       struct dg_mon_disk_rate *out);

/* The block device holding path: stat(path)'s st_dev found as major:minor in diskstats_text
 * (a partition counts as itself). Returns 0 with name filled, 1 with name "none" when the
 * file system has no block device (tmpfs, overlay, ...), -1 with err when path cannot be
 * stat'ed. dg_mon_device_for_path reads /proc/diskstats itself. */
int dg_mon_device_in(const char *path, const char *diskstats_text, char *name, size_t n,
                     struct dg_err *err);
int dg_mon_device_for_path(const char *path, char *name, size_t n, struct dg_err *err);

/* Reads a whole small file (under /proc) into buf; returns its length or -1. */
long dg_mon_read_file(const char *path, char *buf, size_t n);

/* ---- the sampler ---- */

/* One second of a run. second as in the run's series: [second, second + 1) s after the start of
 * the measured window, negative in the warm-up. A figure that is not available is -1. */
struct dg_monitor_point {
    int64_t second;
    double cpu_user_pct, cpu_sys_pct, cpu_iowait_pct;
    double disk_read_mb_s, disk_write_mb_s, disk_read_iops, disk_write_iops, disk_await_ms;
    double server_rss_bytes, server_read_mb_s, server_write_mb_s;
    double cache_hits_per_s, cache_misses_per_s;
};

/* One row of a server's replication in one second of a run (core/driver.h's struct
 * dg_repl_row), as the sampler gives them and the store keeps them. */
struct dg_repl_point {
    int64_t second; /* as the series': sampled at the end of [second, second + 1) */
    int target;     /* index of the target that told it */
    struct dg_repl_row row;
};

/* Engine cache counters since some fixed moment; return 0, or -1 when not available now.
 * *server_pid holds the server process watched; a callback that found the server elsewhere
 * (reconnected after a failover to a server on this host) sets the new one's pid there. */
typedef int (*dg_monitor_cache_fn)(void *ctx, uint64_t *hits, uint64_t *misses, long *server_pid);
/* Target target's replication now: up to max rows, their count (0: none), -1 when it cannot
 * tell now (a lost server: the callback reconnects when it sees fit). Called once a second
 * from the replication thread only, never concurrently; it should not block for long. */
typedef int (*dg_monitor_repl_fn)(void *ctx, int target, struct dg_repl_row *rows, int max);

struct dg_monitor_opts {
    const char *device;         /* block device name in /proc/diskstats; NULL/"" / "none": no disk */
    long server_pid;            /* > 0: that process and its children; 0: none */
    dg_monitor_cache_fn cache;  /* may be NULL; called from the monitor thread only */
    void *cache_ctx;
    /* Replication: repl_targets > 0 starts a thread of its own (a slow server never delays
     * the host's points) asking repl for targets 0 .. repl_targets - 1 each second. */
    dg_monitor_repl_fn repl;
    void *repl_ctx;
    int repl_targets;
    const char *proc_root;      /* "/proc" unless a test says otherwise */
};

struct dg_monitor;

/* Starts the thread; it takes a first snapshot at once and waits for dg_monitor_epoch.
 * *out is the caller's until dg_monitor_stop. */
int dg_monitor_start(const struct dg_monitor_opts *o, struct dg_monitor **out, struct dg_err *err);
/* The run's clock (from any thread, once): start_ns when it started, warm_end_ns when the
 * measured window begins. From then on each second boundary warm_end_ns + k s ends a point. */
void dg_monitor_epoch(struct dg_monitor *m, dg_ns start_ns, dg_ns warm_end_ns);
/* Ends the thread (a last partial second is emitted) and frees m. *pts (malloc'd, the caller's)
 * and *n receive the points, seconds in order; NULL and 0 when none. */
void dg_monitor_stop(struct dg_monitor *m, struct dg_monitor_point **pts, size_t *n);
/* The same, also handing over the replication rows (second, then target, in order; NULL and
 * 0 when none) when repl is non-NULL. */
void dg_monitor_stop_all(struct dg_monitor *m, struct dg_monitor_point **pts, size_t *n,
                         struct dg_repl_point **repl, size_t *nrepl);
/* Keeps the points with first <= second <= last (in place); returns the new count. */
/* While it runs, from any thread: appends the points and replication rows made since the last
 * call (the caller's counts *n and *nrepl say what it has) to the caller's arrays, grown with
 * realloc (the caller frees them). Returns 0, or -1 out of memory (what was copied is kept). */
int dg_monitor_peek(struct dg_monitor *m, struct dg_monitor_point **pts, size_t *n, size_t *cap,
                    struct dg_repl_point **repl, size_t *nrepl, size_t *rcap);
size_t dg_monitor_trim(struct dg_monitor_point *pts, size_t n, int64_t first, int64_t last);
size_t dg_monitor_trim_repl(struct dg_repl_point *pts, size_t n, int64_t first, int64_t last);

/* Means of the measured window (second >= 0), each over the points where it is available
 * (-1 when none is); cache_hit_ratio = hits / (hits + misses) over the window, -1 without. */
struct dg_monitor_summary {
    size_t n; /* measured points */
    double cpu_user_pct, cpu_sys_pct, cpu_iowait_pct;
    double disk_read_mb_s, disk_write_mb_s, disk_read_iops, disk_write_iops, disk_await_ms;
    double server_rss_bytes, server_read_mb_s, server_write_mb_s;
    double cache_hits_per_s, cache_misses_per_s, cache_hit_ratio;
};
void dg_monitor_summarise(const struct dg_monitor_point *pts, size_t n, struct dg_monitor_summary *out);

#endif
