/* monitor_proc.c — the monitor's pure parts: parsers of /proc/stat, /proc/diskstats,
 * /proc/PID/io and /proc/PID/status text, the deltas between two snapshots, the device
 * holding a path, and the measured-window summary. No thread, no database, no allocation. */
#include "core/monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

long dg_mon_read_file(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || n == 0)
        return fd < 0 ? -1 : (close(fd), -1);
    size_t len = 0;
    while (len + 1 < n) {
        ssize_t got = read(fd, buf + len, n - 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    buf[len] = '\0';
    return (long)len;
}

int dg_mon_parse_stat(const char *text, struct dg_mon_cpu *out)
{
    memset(out, 0, sizeof *out);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, "cpu ", 4) != 0)
            continue;
        int got = sscanf(l + 4, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                                " %" SCNu64 " %" SCNu64,
                         &out->user, &out->nice, &out->system, &out->idle, &out->iowait, &out->irq,
                         &out->softirq, &out->steal);
        return got >= 4 ? 0 : -1; /* the oldest kernels stop after idle */
    }
    return -1;
}

int dg_mon_parse_diskstats(const char *text, const char *name, unsigned major, unsigned minor,
                           struct dg_mon_disk *out)
{
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        struct dg_mon_disk d;
        uint64_t merged_r, merged_w;
        memset(&d, 0, sizeof d);
        int got = sscanf(l, "%u %u %31s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                            " %" SCNu64 " %" SCNu64 " %" SCNu64,
                         &d.major, &d.minor, d.name, &d.reads, &merged_r, &d.sectors_read, &d.read_ms,
                         &d.writes, &merged_w, &d.sectors_written, &d.write_ms);
        if (got != 11)
            continue;
        int match = name && *name ? strcmp(d.name, name) == 0 : d.major == major && d.minor == minor;
        if (match) {
            *out = d;
            return 0;
        }
    }
    return -1;
}

/* The number after "key" at the start of a line, or -1 if there is no such line. */
static int field_u64(const char *text, const char *key, uint64_t *out)
{
    size_t k = strlen(key);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, key, k) == 0) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(l + k, &end, 10);
            if (end == l + k || errno)
                return -1;
            *out = v;
            return 0;
        }
    return -1;
}

int dg_mon_parse_pid_io(const char *text, struct dg_mon_io *out)
{
    memset(out, 0, sizeof *out);
    return field_u64(text, "read_bytes:", &out->read_bytes) ||
                   field_u64(text, "write_bytes:", &out->write_bytes)
               ? -1
               : 0;
}

int dg_mon_parse_pid_rss(const char *text, struct dg_mon_rss *out)
{
    memset(out, 0, sizeof *out);
    if (field_u64(text, "VmRSS:", &out->rss))
        return -1; /* a kernel thread or a zombie has none */
    field_u64(text, "RssAnon:", &out->anon);
    field_u64(text, "RssFile:", &out->file);
    field_u64(text, "RssShmem:", &out->shmem);
    out->rss *= 1024; /* the file says kB */
    out->anon *= 1024;
    out->file *= 1024;
    out->shmem *= 1024;
    return 0;
}

long dg_mon_parse_ppid(const char *stat_text)
{
    const char *p = strrchr(stat_text, ')');
    char state;
    long ppid;
    return p && sscanf(p + 1, " %c %ld", &state, &ppid) == 2 ? ppid : -1;
}

static uint64_t since(uint64_t a, uint64_t b) { return b > a ? b - a : 0; }

void dg_mon_cpu_delta(const struct dg_mon_cpu *a, const struct dg_mon_cpu *b, struct dg_mon_cpu_pct *out)
{
    uint64_t user = since(a->user + a->nice, b->user + b->nice);
    uint64_t sys = since(a->system + a->irq + a->softirq, b->system + b->irq + b->softirq);
    uint64_t iow = since(a->iowait, b->iowait);
    uint64_t total = user + sys + iow + since(a->idle, b->idle) + since(a->steal, b->steal);
    if (total == 0) { /* the same tick: nothing to say */
        out->user = out->sys = out->iowait = -1;
        return;
    }
    out->user = 100.0 * (double)user / (double)total;
    out->sys = 100.0 * (double)sys / (double)total;
    out->iowait = 100.0 * (double)iow / (double)total;
}

void dg_mon_disk_delta(const struct dg_mon_disk *a, const struct dg_mon_disk *b, double dt_s,
                       struct dg_mon_disk_rate *out)
{
    if (dt_s <= 0) {
        out->read_mb_s = out->write_mb_s = out->read_iops = out->write_iops = out->await_ms = -1;
        return;
    }
    uint64_t r = since(a->reads, b->reads), w = since(a->writes, b->writes);
    /* diskstats sectors are 512 bytes whatever the device's own sector size */
    out->read_mb_s = (double)since(a->sectors_read, b->sectors_read) * 512.0 / 1e6 / dt_s;
    out->write_mb_s = (double)since(a->sectors_written, b->sectors_written) * 512.0 / 1e6 / dt_s;
    out->read_iops = (double)r / dt_s;
    out->write_iops = (double)w / dt_s;
    uint64_t ms = since(a->read_ms, b->read_ms) + since(a->write_ms, b->write_ms);
    out->await_ms = r + w ? (double)ms / (double)(r + w) : 0;
}

int dg_mon_device_in(const char *path, const char *diskstats_text, char *name, size_t n,
                     struct dg_err *err)
{
    struct stat st;
    if (stat(path, &st))
        return dg_err_set(err, DG_ERR_USER, errno, "monitor: cannot find the device of '%s': %s", path,
                          strerror(errno));
    struct dg_mon_disk d;
    unsigned maj = major(st.st_dev), min = minor(st.st_dev);
    if (maj == 0 || dg_mon_parse_diskstats(diskstats_text, NULL, maj, min, &d)) {
        snprintf(name, n, "none"); /* tmpfs, overlay, NFS...: no block device of its own */
        return 1;
    }
    snprintf(name, n, "%s", d.name);
    return 0;
}

int dg_mon_device_for_path(const char *path, char *name, size_t n, struct dg_err *err)
{
    static const size_t cap = 64 * 1024;
    char *text = malloc(cap);
    if (!text)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    if (dg_mon_read_file("/proc/diskstats", text, cap) < 0)
        text[0] = '\0';
    int rc = dg_mon_device_in(path, text, name, n, err);
    free(text);
    return rc;
}

size_t dg_monitor_trim(struct dg_monitor_point *pts, size_t n, int64_t first, int64_t last)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].second >= first && pts[i].second <= last)
            pts[o++] = pts[i];
    return o;
}

size_t dg_monitor_trim_repl(struct dg_repl_point *pts, size_t n, int64_t first, int64_t last)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].second >= first && pts[i].second <= last)
            pts[o++] = pts[i];
    return o;
}

struct mean {
    double sum;
    size_t n;
};

static void add(struct mean *m, double v)
{
    if (v >= 0) {
        m->sum += v;
        m->n++;
    }
}

static double mean_of(const struct mean *m) { return m->n ? m->sum / (double)m->n : -1; }

void dg_monitor_summarise(const struct dg_monitor_point *pts, size_t n, struct dg_monitor_summary *out)
{
    enum { USER, SYS, IOW, DR, DW, RI, WI, AW, RSS, SR, SW, CH, CM, NF };
    struct mean m[NF];
    memset(m, 0, sizeof m);
    memset(out, 0, sizeof *out);
    double hits = 0, misses = 0;
    int cache_points = 0;
    for (size_t i = 0; i < n; i++) {
        const struct dg_monitor_point *p = &pts[i];
        if (p->second < 0)
            continue;
        out->n++;
        add(&m[USER], p->cpu_user_pct);
        add(&m[SYS], p->cpu_sys_pct);
        add(&m[IOW], p->cpu_iowait_pct);
        add(&m[DR], p->disk_read_mb_s);
        add(&m[DW], p->disk_write_mb_s);
        add(&m[RI], p->disk_read_iops);
        add(&m[WI], p->disk_write_iops);
        add(&m[AW], p->disk_await_ms);
        add(&m[RSS], p->server_rss_bytes);
        add(&m[SR], p->server_read_mb_s);
        add(&m[SW], p->server_write_mb_s);
        add(&m[CH], p->cache_hits_per_s);
        add(&m[CM], p->cache_misses_per_s);
        if (p->cache_hits_per_s >= 0 && p->cache_misses_per_s >= 0) {
            hits += p->cache_hits_per_s;
            misses += p->cache_misses_per_s;
            cache_points++;
        }
    }
    out->cpu_user_pct = mean_of(&m[USER]);
    out->cpu_sys_pct = mean_of(&m[SYS]);
    out->cpu_iowait_pct = mean_of(&m[IOW]);
    out->disk_read_mb_s = mean_of(&m[DR]);
    out->disk_write_mb_s = mean_of(&m[DW]);
    out->disk_read_iops = mean_of(&m[RI]);
    out->disk_write_iops = mean_of(&m[WI]);
    out->disk_await_ms = mean_of(&m[AW]);
    out->server_rss_bytes = mean_of(&m[RSS]);
    out->server_read_mb_s = mean_of(&m[SR]);
    out->server_write_mb_s = mean_of(&m[SW]);
    out->cache_hits_per_s = mean_of(&m[CH]);
    out->cache_misses_per_s = mean_of(&m[CM]);
    out->cache_hit_ratio = cache_points && hits + misses > 0 ? hits / (hits + misses) : -1;
}
