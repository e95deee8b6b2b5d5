/* monitor.c — the sampler thread: once the run's clock is known it snapshots /proc (and the
 * engine's cache counters, through the callback) at every second boundary of the run's series
 * and turns two snapshots into one point; a second thread asks each target's replication at
 * the same boundaries. They share only their mutex with the caller; they never touch a worker
 * or a connection of the run. */
#include "core/monitor.h"

#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TEXT_CAP (64 * 1024)

struct snap {
    dg_ns t;
    int cpu_ok, disk_ok, io_ok, cache_ok;
    struct dg_mon_cpu cpu;
    struct dg_mon_disk disk;
    struct dg_mon_io io;     /* summed over the server's processes */
    double rss;              /* -1: none */
    long pid;                /* the server process io and rss are of */
    uint64_t hits, misses;
};

struct dg_monitor {
    struct dg_monitor_opts o;
    char device[32], proc_root[128];
    char *text; /* TEXT_CAP bytes, the thread's */
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int have_epoch, stop;
    dg_ns start_ns, warm_end_ns;
    struct dg_monitor_point *pts;
    size_t n, cap;
    pthread_t rth; /* the replication thread, when o.repl_targets > 0 */
    int rth_on;
    struct dg_repl_point *rpts;
    size_t rn, rcap;
};

static long read_proc(struct dg_monitor *m, const char *rel)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", m->proc_root, rel);
    return dg_mon_read_file(path, m->text, TEXT_CAP);
}

/* Adds one process's I/O and memory; returns 0 when its files could be read. */
static int add_process(struct dg_monitor *m, long pid, struct snap *s, uint64_t *anon_file,
                       uint64_t *shmem_max)
{
    char rel[64];
    struct dg_mon_io io;
    struct dg_mon_rss rss;
    int ok = -1;
    snprintf(rel, sizeof rel, "%ld/io", pid);
    if (read_proc(m, rel) >= 0 && dg_mon_parse_pid_io(m->text, &io) == 0) {
        s->io.read_bytes += io.read_bytes;
        s->io.write_bytes += io.write_bytes;
        s->io_ok = 1;
        ok = 0;
    }
    snprintf(rel, sizeof rel, "%ld/status", pid);
    if (read_proc(m, rel) >= 0 && dg_mon_parse_pid_rss(m->text, &rss) == 0) {
        /* Shared memory (PostgreSQL's buffers) is mapped by every process: count it once. */
        *anon_file += rss.anon || rss.file || rss.shmem ? rss.anon + rss.file : rss.rss;
        if (rss.shmem > *shmem_max)
            *shmem_max = rss.shmem;
        ok = 0;
    }
    return ok;
}

/* The server process and its direct children (a PostgreSQL postmaster's backends). */
static void sample_server(struct dg_monitor *m, struct snap *s)
{
    uint64_t anon_file = 0, shmem = 0;
    long pid = m->o.server_pid;
    if (add_process(m, pid, s, &anon_file, &shmem)) {
        s->io_ok = 0;
        return;
    }
    /* An embedded engine's server is this process, which starts no other. */
    DIR *d = pid == (long)getpid() ? NULL : opendir(m->proc_root);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        char rel[64];
        snprintf(rel, sizeof rel, "%s/stat", e->d_name);
        long child = strtol(e->d_name, NULL, 10);
        if (child != pid && read_proc(m, rel) >= 0 && dg_mon_parse_ppid(m->text) == pid)
            add_process(m, child, s, &anon_file, &shmem);
    }
    if (d)
        closedir(d);
    s->rss = (double)(anon_file + shmem);
}

static void take(struct dg_monitor *m, struct snap *s)
{
    memset(s, 0, sizeof *s);
    s->rss = -1;
    s->cpu_ok = read_proc(m, "stat") >= 0 && dg_mon_parse_stat(m->text, &s->cpu) == 0;
    s->disk_ok = m->device[0] && read_proc(m, "diskstats") >= 0 &&
                 dg_mon_parse_diskstats(m->text, m->device, 0, 0, &s->disk) == 0;
    s->pid = m->o.server_pid;
    if (m->o.server_pid > 0)
        sample_server(m, s);
    if (m->o.cache) /* may move the watch to another server process (a failover): the next snap's */
        s->cache_ok = m->o.cache(m->o.cache_ctx, &s->hits, &s->misses, &m->o.server_pid) == 0;
    s->t = dg_now_ns();
}

/* Appends *p to the points, under mu (dg_monitor_peek reads them while the run goes on). */
static int append_point(struct dg_monitor *m, const struct dg_monitor_point *p)
{
    int rc = 0;
    pthread_mutex_lock(&m->mu);
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 256;
        struct dg_monitor_point *grown = realloc(m->pts, cap * sizeof *grown);
        if (grown) {
            m->pts = grown;
            m->cap = cap;
        } else {
            rc = -1;
        }
    }
    if (!rc)
        m->pts[m->n++] = *p;
    pthread_mutex_unlock(&m->mu);
    return rc;
}

static int emit(struct dg_monitor *m, int64_t second, const struct snap *a, const struct snap *b)
{
    struct dg_monitor_point point, *p = &point;
    double dt = (double)(b->t - a->t) / 1e9;
    *p = (struct dg_monitor_point){.second = second, .cpu_user_pct = -1, .cpu_sys_pct = -1,
                                   .cpu_iowait_pct = -1, .disk_read_mb_s = -1, .disk_write_mb_s = -1,
                                   .disk_read_iops = -1, .disk_write_iops = -1, .disk_await_ms = -1,
                                   .server_rss_bytes = b->rss, .server_read_mb_s = -1,
                                   .server_write_mb_s = -1, .cache_hits_per_s = -1,
                                   .cache_misses_per_s = -1};
    if (a->cpu_ok && b->cpu_ok) {
        struct dg_mon_cpu_pct c;
        dg_mon_cpu_delta(&a->cpu, &b->cpu, &c);
        p->cpu_user_pct = c.user;
        p->cpu_sys_pct = c.sys;
        p->cpu_iowait_pct = c.iowait;
    }
    if (a->disk_ok && b->disk_ok) {
        struct dg_mon_disk_rate r;
        dg_mon_disk_delta(&a->disk, &b->disk, dt, &r);
        p->disk_read_mb_s = r.read_mb_s;
        p->disk_write_mb_s = r.write_mb_s;
        p->disk_read_iops = r.read_iops;
        p->disk_write_iops = r.write_iops;
        p->disk_await_ms = r.await_ms;
    }
    /* a process that exited takes its bytes along: clamp; another server's say nothing of it */
    if (a->io_ok && b->io_ok && dt > 0 && a->pid == b->pid) {
        p->server_read_mb_s = b->io.read_bytes > a->io.read_bytes
                                  ? (double)(b->io.read_bytes - a->io.read_bytes) / 1e6 / dt : 0;
        p->server_write_mb_s = b->io.write_bytes > a->io.write_bytes
                                   ? (double)(b->io.write_bytes - a->io.write_bytes) / 1e6 / dt : 0;
    }
    /* Counters that went back (a reconnect, a statistics reset) say nothing for that second. */
    if (a->cache_ok && b->cache_ok && dt > 0 && b->hits >= a->hits && b->misses >= a->misses) {
        p->cache_hits_per_s = (double)(b->hits - a->hits) / dt;
        p->cache_misses_per_s = (double)(b->misses - a->misses) / dt;
    }
    return append_point(m, p);
}

/* Waits for the run's clock; 0 with it, -1 when stopped before it came. */
static int wait_epoch(struct dg_monitor *m, dg_ns *start, dg_ns *warm_end)
{
    pthread_mutex_lock(&m->mu);
    while (!m->have_epoch && !m->stop)
        pthread_cond_wait(&m->cv, &m->mu);
    int have = m->have_epoch;
    *start = m->start_ns;
    *warm_end = m->warm_end_ns;
    pthread_mutex_unlock(&m->mu);
    return have ? 0 : -1;
}

/* Waits for the end of second k (warm_end + (k + 1) s). 1: reached; 0: stopped inside it. */
static int wait_second_end(struct dg_monitor *m, dg_ns warm_end, int64_t k)
{
    for (;;) {
        dg_ns boundary = (dg_ns)((int64_t)warm_end + (k + 1) * (int64_t)DG_NS_PER_S);
        struct timespec ts = {(time_t)(boundary / DG_NS_PER_S), (long)(boundary % DG_NS_PER_S)};
        pthread_mutex_lock(&m->mu);
        while (!m->stop && dg_now_ns() < boundary)
            pthread_cond_timedwait(&m->cv, &m->mu, &ts);
        int stop = m->stop;
        pthread_mutex_unlock(&m->mu);
        if (dg_now_ns() >= boundary)
            return 1;
        if (stop)
            return 0;
    }
}

static void *monitor_main(void *arg)
{
    struct dg_monitor *m = arg;
    dg_ns start, warm_end;
    if (wait_epoch(m, &start, &warm_end))
        return NULL;
    /* The first point is the first second of the series: the warm-up's, rounded up. */
    int64_t k = -(int64_t)((warm_end - start + DG_NS_PER_S - 1) / DG_NS_PER_S);
    struct snap prev, cur;
    take(m, &prev);
    for (;;) {
        int reached = wait_second_end(m, warm_end, k);
        take(m, &cur);
        if (cur.t > prev.t && emit(m, k, &prev, &cur))
            break; /* out of memory: keep what we have */
        if (!reached)
            break; /* stopped inside second k: that was its last, partial point */
        prev = cur;
        k++;
    }
    return NULL;
}

/* Asks every target's replication, as of the end of second k; -1 when memory ran out. */
static int repl_sample(struct dg_monitor *m, int64_t k)
{
    struct dg_repl_row rows[DG_REPL_MAX];
    for (int t = 0; t < m->o.repl_targets; t++) {
        int n = m->o.repl(m->o.repl_ctx, t, rows, DG_REPL_MAX);
        pthread_mutex_lock(&m->mu); /* dg_monitor_peek reads them while the run goes on */
        for (int i = 0; i < n && i < DG_REPL_MAX; i++) {
            if (m->rn == m->rcap) {
                size_t cap = m->rcap ? m->rcap * 2 : 256;
                struct dg_repl_point *p = realloc(m->rpts, cap * sizeof *p);
                if (!p) {
                    pthread_mutex_unlock(&m->mu);
                    return -1;
                }
                m->rpts = p;
                m->rcap = cap;
            }
            m->rpts[m->rn++] = (struct dg_repl_point){.second = k, .target = t, .row = rows[i]};
        }
        pthread_mutex_unlock(&m->mu);
    }
    return 0;
}

static void *repl_main(void *arg)
{
    struct dg_monitor *m = arg;
    dg_ns start, warm_end;
    if (wait_epoch(m, &start, &warm_end))
        return NULL;
    int64_t k = -(int64_t)((warm_end - start + DG_NS_PER_S - 1) / DG_NS_PER_S);
    for (;;) {
        int reached = wait_second_end(m, warm_end, k);
        if (repl_sample(m, k) || !reached)
            break;
        /* A slow server: the seconds that went by while it answered have no rows. */
        int64_t now_k = ((int64_t)dg_now_ns() - (int64_t)warm_end) / (int64_t)DG_NS_PER_S;
        if ((int64_t)dg_now_ns() < (int64_t)warm_end)
            now_k -= 1;
        k = now_k > k ? now_k : k + 1;
    }
    return NULL;
}

int dg_monitor_start(const struct dg_monitor_opts *o, struct dg_monitor **out, struct dg_err *err)
{
    struct dg_monitor *m = calloc(1, sizeof *m);
    if (!m || !(m->text = malloc(TEXT_CAP))) {
        free(m);
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    }
    m->o = *o;
    if (o->device && strcmp(o->device, "none"))
        snprintf(m->device, sizeof m->device, "%s", o->device);
    snprintf(m->proc_root, sizeof m->proc_root, "%s", o->proc_root ? o->proc_root : "/proc");
    pthread_mutex_init(&m->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* boundaries are on the run's clock */
    pthread_cond_init(&m->cv, &ca);
    pthread_condattr_destroy(&ca);
    int bad = pthread_create(&m->th, NULL, monitor_main, m) != 0;
    if (!bad && o->repl && o->repl_targets > 0) {
        m->rth_on = pthread_create(&m->rth, NULL, repl_main, m) == 0;
        if (!m->rth_on) { /* the sampler waits for its clock: stopping it ends it at once */
            pthread_mutex_lock(&m->mu);
            m->stop = 1;
            pthread_cond_broadcast(&m->cv);
            pthread_mutex_unlock(&m->mu);
            pthread_join(m->th, NULL);
            bad = 1;
        }
    }
    if (bad) {
        pthread_cond_destroy(&m->cv);
        pthread_mutex_destroy(&m->mu);
        free(m->text);
        free(m);
        return dg_err_set(err, DG_ERR_FATAL, 0, "cannot start the monitor thread");
    }
    *out = m;
    return 0;
}

void dg_monitor_epoch(struct dg_monitor *m, dg_ns start_ns, dg_ns warm_end_ns)
{
    pthread_mutex_lock(&m->mu);
    if (!m->have_epoch) {
        m->start_ns = start_ns;
        m->warm_end_ns = warm_end_ns;
        m->have_epoch = 1;
        pthread_cond_broadcast(&m->cv);
    }
    pthread_mutex_unlock(&m->mu);
}

void dg_monitor_stop(struct dg_monitor *m, struct dg_monitor_point **pts, size_t *n)
{
    dg_monitor_stop_all(m, pts, n, NULL, NULL);
}

void dg_monitor_stop_all(struct dg_monitor *m, struct dg_monitor_point **pts, size_t *n,
                         struct dg_repl_point **repl, size_t *nrepl)
{
    *pts = NULL;
    *n = 0;
    if (repl)
        *repl = NULL, *nrepl = 0;
    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    m->stop = 1;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    pthread_join(m->th, NULL);
    if (m->rth_on)
        pthread_join(m->rth, NULL);
    if (m->n) {
        *pts = m->pts;
        *n = m->n;
    } else {
        free(m->pts);
    }
    if (repl && m->rn) {
        *repl = m->rpts;
        *nrepl = m->rn;
    } else {
        free(m->rpts);
    }
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->mu);
    free(m->text);
    free(m);
}

/* Copies src[*have .. n) to the end of *dst (grown with realloc). Under m->mu. */
static int copy_new(void **dst, size_t *have, size_t *cap, const void *src, size_t n, size_t size)
{
    if (n <= *have)
        return 0;
    if (n > *cap) {
        void *grown = realloc(*dst, n * size);
        if (!grown)
            return -1;
        *dst = grown;
        *cap = n;
    }
    memcpy((char *)*dst + *have * size, (const char *)src + *have * size, (n - *have) * size);
    *have = n;
    return 0;
}

int dg_monitor_peek(struct dg_monitor *m, struct dg_monitor_point **pts, size_t *n, size_t *cap,
                    struct dg_repl_point **repl, size_t *nrepl, size_t *rcap)
{
    pthread_mutex_lock(&m->mu);
    int rc = copy_new((void **)pts, n, cap, m->pts, m->n, sizeof **pts) ||
             copy_new((void **)repl, nrepl, rcap, m->rpts, m->rn, sizeof **repl);
    pthread_mutex_unlock(&m->mu);
    return rc ? -1 : 0;
}
