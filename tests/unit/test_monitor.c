/* test_monitor.c — the monitor's pure parts on saved /proc files (tests/fixtures/proc/, two
 * snapshots each, deltas checked against hand-computed figures), the device of a path, the
 * summary, and the sampler thread on a fake /proc: second numbering, server process tree; the
 * replication thread with a callback: its rows numbered as the host's points, a target that
 * cannot tell (-1) or answers slowly never holding the host's points back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "core/monitor.h"

static char *load(const char *name)
{
    static char bufs[8][4096];
    static int next;
    char path[512];
    snprintf(path, sizeof path, "%s/proc/%s", DG_FIXTURES, name);
    char *b = bufs[next++ % 8];
    if (dg_mon_read_file(path, b, 4096) < 0) {
        printf("not ok - fixture %s: cannot read %s\n", name, path);
        b[0] = '\0';
    }
    return b;
}

static int near(double a, double b) { return fabs(a - b) < 1e-9; }

static void test_parsers(struct dg_test *t)
{
    struct dg_mon_cpu c1, c2;
    CHECK(t, dg_mon_parse_stat(load("stat.1"), &c1) == 0 && c1.user == 1000 && c1.nice == 50 &&
                 c1.system == 300 && c1.idle == 8000 && c1.iowait == 100 && c1.irq == 20 &&
                 c1.softirq == 30 && c1.steal == 0,
          "stat: the cpu line's fields", "user %llu idle %llu", (unsigned long long)c1.user,
          (unsigned long long)c1.idle);
    CHECK(t, dg_mon_parse_stat(load("stat.2"), &c2) == 0, "stat: second snapshot", "parse failed");
    struct dg_mon_cpu_pct p;
    dg_mon_cpu_delta(&c1, &c2, &p);
    /* 400 user + 200 system + 100 iowait + 300 idle ticks = 1000 */
    CHECK(t, near(p.user, 40) && near(p.sys, 20) && near(p.iowait, 10), "stat: CPU % between snapshots",
          "user %g sys %g iowait %g", p.user, p.sys, p.iowait);
    dg_mon_cpu_delta(&c1, &c1, &p);
    CHECK(t, p.user == -1 && p.sys == -1, "stat: no tick between snapshots is not available", "user %g", p.user);
    CHECK(t, dg_mon_parse_stat("intr 1\n", &c1) == -1, "stat: text without a cpu line is refused", "accepted");

    struct dg_mon_disk d1, d2, part;
    CHECK(t, dg_mon_parse_diskstats(load("diskstats.1"), "vda", 0, 0, &d1) == 0 && d1.major == 254 &&
                 d1.reads == 1000 && d1.sectors_read == 20000 && d1.read_ms == 500 &&
                 d1.writes == 2000 && d1.sectors_written == 40000 && d1.write_ms == 1500,
          "diskstats: vda by name", "reads %llu sectors %llu", (unsigned long long)d1.reads,
          (unsigned long long)d1.sectors_read);
    CHECK(t, dg_mon_parse_diskstats(load("diskstats.1"), NULL, 254, 1, &part) == 0 &&
                 !strcmp(part.name, "vda1") && part.reads == 7,
          "diskstats: a partition by major:minor is itself", "got %s", part.name);
    CHECK(t, dg_mon_parse_diskstats(load("diskstats.1"), "sdz", 0, 0, &part) == -1,
          "diskstats: an unknown device is refused", "found %s", part.name);
    dg_mon_parse_diskstats(load("diskstats.2"), NULL, 254, 0, &d2);
    struct dg_mon_disk_rate r;
    dg_mon_disk_delta(&d1, &d2, 2.0, &r);
    /* 2048 sectors read, 4096 written (512 bytes each), 100 reads and 300 writes in 2 s,
     * 100 + 400 ms of I/O over 400 I/Os */
    CHECK(t, near(r.read_mb_s, 1048576.0 / 1e6 / 2) && near(r.write_mb_s, 2097152.0 / 1e6 / 2),
          "diskstats: read and write MB/s", "read %g write %g", r.read_mb_s, r.write_mb_s);
    CHECK(t, near(r.read_iops, 50) && near(r.write_iops, 150), "diskstats: IOPS", "read %g write %g",
          r.read_iops, r.write_iops);
    CHECK(t, near(r.await_ms, 1.25), "diskstats: mean I/O time", "await %g", r.await_ms);
    dg_mon_disk_delta(&d1, &d1, 1.0, &r);
    CHECK(t, r.await_ms == 0 && r.read_iops == 0, "diskstats: no I/O, await 0", "await %g", r.await_ms);

    struct dg_mon_io i1, i2;
    CHECK(t, dg_mon_parse_pid_io(load("pid_io.1"), &i1) == 0 && i1.read_bytes == 4096 && i1.write_bytes == 8192,
          "pid io: read_bytes and write_bytes (not rchar)", "read %llu write %llu",
          (unsigned long long)i1.read_bytes, (unsigned long long)i1.write_bytes);
    dg_mon_parse_pid_io(load("pid_io.2"), &i2);
    CHECK(t, i2.read_bytes - i1.read_bytes == 1048576 && i2.write_bytes - i1.write_bytes == 2097152,
          "pid io: deltas", "read %llu", (unsigned long long)(i2.read_bytes - i1.read_bytes));
    CHECK(t, dg_mon_parse_pid_io("rchar: 5\n", &i1) == -1, "pid io: text without read_bytes is refused", "accepted");

    struct dg_mon_rss s1, s2;
    CHECK(t, dg_mon_parse_pid_rss(load("pid_status.1"), &s1) == 0 && s1.rss == 10240 * 1024ull &&
                 s1.anon == 2048 * 1024ull && s1.file == 4096 * 1024ull && s1.shmem == 4096 * 1024ull,
          "pid status: VmRSS and its parts in bytes", "rss %llu", (unsigned long long)s1.rss);
    dg_mon_parse_pid_rss(load("pid_status.2"), &s2);
    CHECK(t, s2.rss - s1.rss == 10240 * 1024ull, "pid status: RSS growth", "%llu",
          (unsigned long long)(s2.rss - s1.rss));
    CHECK(t, dg_mon_parse_ppid("77 (postgres: x (y) z) S 42 77 77 0") == 42 && dg_mon_parse_ppid("77 (x") == -1,
          "pid stat: the parent after the last ')'", "got %ld", dg_mon_parse_ppid("77 (postgres: x (y) z) S 42 77"));
    CHECK(t, dg_mon_parse_pid_rss("Name:\tkthreadd\n", &s1) == -1, "pid status: no VmRSS (kernel thread) is refused",
          "accepted");
}

static void test_device(struct dg_test *t)
{
    struct stat st;
    char text[256], name[32];
    struct dg_err err;
    stat(DG_FIXTURES, &st);
    snprintf(text, sizeof text, " %u %u fakedisk 1 0 8 1 1 0 8 1 0 1 2 0 0 0 0\n", major(st.st_dev),
             minor(st.st_dev));
    CHECK(t, dg_mon_device_in(DG_FIXTURES, text, name, sizeof name, &err) == 0 && !strcmp(name, "fakedisk"),
          "device: st_dev found as major:minor", "got %s", name);
    CHECK(t, dg_mon_device_in(DG_FIXTURES, "   7 0 loop0 0 0 0 0 0 0 0 0 0 0 0\n", name, sizeof name, &err) == 1 &&
                 !strcmp(name, "none"),
          "device: no block device is 'none', not an error", "got %s", name);
    CHECK(t, dg_mon_device_in("/proc/self", text, name, sizeof name, &err) == 1 && !strcmp(name, "none"),
          "device: a path on procfs (major 0) is 'none'", "got %s", name);
    CHECK(t, dg_mon_device_in("/no/such/file", text, name, sizeof name, &err) == -1 && err.cls == DG_ERR_USER &&
                 strstr(err.msg, "/no/such/file"),
          "device: a missing path is an error naming it", "%s", err.msg);
}

static void test_summary(struct dg_test *t)
{
    struct dg_monitor_point p[4];
    for (int i = 0; i < 4; i++)
        p[i] = (struct dg_monitor_point){.second = i - 1, .cpu_user_pct = 10.0 * i, .cpu_sys_pct = -1,
                                         .cpu_iowait_pct = 1, .disk_read_mb_s = i == 2 ? -1 : 4,
                                         .disk_write_mb_s = 2, .disk_read_iops = -1, .disk_write_iops = -1,
                                         .disk_await_ms = -1, .server_rss_bytes = -1, .server_read_mb_s = -1,
                                         .server_write_mb_s = -1, .cache_hits_per_s = 90.0 * i,
                                         .cache_misses_per_s = 10.0 * i};
    struct dg_monitor_summary s;
    dg_monitor_summarise(p, 4, &s);
    /* measured: seconds 0, 1, 2 (i = 1..3) */
    CHECK(t, s.n == 3 && near(s.cpu_user_pct, 20), "summary: means over the measured window only",
          "n %zu user %g", s.n, s.cpu_user_pct);
    CHECK(t, s.cpu_sys_pct == -1 && s.disk_read_iops == -1, "summary: never available stays -1", "sys %g",
          s.cpu_sys_pct);
    CHECK(t, near(s.disk_read_mb_s, 4), "summary: a missing second is left out of its mean", "read %g",
          s.disk_read_mb_s);
    CHECK(t, near(s.cache_hit_ratio, 0.9) && near(s.cache_hits_per_s, 180), "summary: cache hit ratio",
          "ratio %g hits %g", s.cache_hit_ratio, s.cache_hits_per_s);
    CHECK(t, dg_monitor_trim(p, 4, 0, 1) == 2 && p[0].second == 0 && p[1].second == 1,
          "trim keeps the series' seconds", "first %lld", (long long)p[0].second);
}

static int fake_cache(void *ctx, uint64_t *hits, uint64_t *misses, long *server_pid)
{
    (void)server_pid;
    uint64_t *n = ctx;
    *n += 1;
    *hits = *n * 300;
    *misses = *n * 100;
    return 0;
}

static void put(const char *dir, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Replaces a file whole (rename), so the sampler never reads half of it. The new text is
 * written beside dir, not in it, so the folder the sampler lists (readdir, for the server's
 * children) keeps the same names throughout: CI saw the child's RSS left out once on a loaded
 * machine, when a temporary name came and went in that folder during the listing. */
static void swap(const char *dir, const char *rel, const char *text)
{
    char tmp[512], path[512];
    snprintf(tmp, sizeof tmp, "%s.swap", dir);
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(tmp, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
        rename(tmp, path);
    }
}

/* A scratch /proc in root (a mkdtemp template) with the first host snapshot; -1 said. */
static int scratch_proc(struct dg_test *t, char *root, const char *what)
{
    if (!mkdtemp(root)) {
        CHECK(t, 0, "scratch /proc", "%s: mkdtemp failed", what);
        return -1;
    }
    put(root, "stat", load("stat.1"));
    put(root, "diskstats", load("diskstats.1"));
    return 0;
}

static void test_sampler(struct dg_test *t)
{
    char root[] = "/tmp/dg-monitor-test.XXXXXX", path[512];
    if (scratch_proc(t, root, "sampler"))
        return;
    snprintf(path, sizeof path, "%s/4242", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/4243", root);
    mkdir(path, 0755);
    put(root, "4242/io", load("pid_io.1"));
    put(root, "4242/status", load("pid_status.1"));
    put(root, "4242/stat", "4242 (postgres) S 1 4242 4242 0 -1\n");
    put(root, "4243/io", load("pid_io.2"));
    put(root, "4243/status", load("pid_status.2"));
    put(root, "4243/stat", "4243 (postgres: a (b) c) S 4242 4242 4242 0 -1\n");
    uint64_t calls = 0;
    struct dg_monitor_opts o = {.device = "vda", .server_pid = 4242, .cache = fake_cache,
                                .cache_ctx = &calls, .proc_root = root};
    struct dg_monitor *m;
    struct dg_err err;
    if (dg_monitor_start(&o, &m, &err)) {
        CHECK(t, 0, "sampler: starts", "%s", err.msg);
        return;
    }
    dg_ns now = dg_now_ns();
    dg_monitor_epoch(m, now, now + 1500 * DG_NS_PER_MS); /* 1.5 s warm-up: seconds -2, -1 */
    struct timespec ts = {1, 200 * 1000000};
    nanosleep(&ts, NULL); /* inside second -1 */
    swap(root, "stat", load("stat.2"));
    swap(root, "diskstats", load("diskstats.2"));
    swap(root, "4242/io", load("pid_io.2"));
    ts.tv_sec = 1;
    ts.tv_nsec = 800 * 1000000;
    nanosleep(&ts, NULL); /* into second 1 */
    struct dg_monitor_point *p;
    size_t n;
    dg_monitor_stop(m, &p, &n);
    int consecutive = n > 0;
    for (size_t i = 1; i < n; i++)
        consecutive &= p[i].second == p[i - 1].second + 1;
    CHECK(t, n >= 4 && p[0].second == -2 && consecutive && p[n - 1].second >= 1,
          "sampler: one point per second from the warm-up's first", "n %zu first %lld last %lld", n,
          n ? (long long)p[0].second : 0, n ? (long long)p[n - 1].second : 0);
    if (n) {
        /* the same files before the swap: no change, but the figures are there */
        CHECK(t, p[0].cpu_user_pct == -1 && p[0].disk_read_mb_s == 0 && p[0].disk_await_ms == 0 &&
                     p[0].server_read_mb_s == 0,
              "sampler: unchanged /proc gives idle figures", "cpu %g disk %g", p[0].cpu_user_pct,
              p[0].disk_read_mb_s);
        /* exactly one second saw the swap, with the fixtures' deltas */
        int seen = 0, exact = 1;
        for (size_t i = 0; i < n; i++)
            if (p[i].cpu_user_pct >= 0) {
                seen++;
                exact &= near(p[i].cpu_user_pct, 40) && near(p[i].cpu_sys_pct, 20) &&
                         near(p[i].cpu_iowait_pct, 10) && near(p[i].disk_await_ms, 1.25) &&
                         near(p[i].disk_write_iops, 3 * p[i].disk_read_iops) &&
                         near(p[i].server_write_mb_s, 2 * p[i].server_read_mb_s) && p[i].server_read_mb_s > 0;
            }
        CHECK(t, seen == 1 && exact, "sampler: the second with the change has the fixtures' figures",
              "%d seconds saw it, exact %d", seen, exact);
        /* anon+file of both processes (6 + 8 MiB) plus the larger shared part (12 MiB) once;
         * the child's "(b)" in its name does not hide its parent */
        CHECK(t, p[1].server_rss_bytes == (6 + 8 + 12) * 1048576.0, "sampler: server RSS of the process tree",
              "rss %g", p[1].server_rss_bytes);
        CHECK(t, p[1].cache_hits_per_s > 0 && near(p[1].cache_hits_per_s, 3 * p[1].cache_misses_per_s),
              "sampler: cache counters per second", "hits %g misses %g", p[1].cache_hits_per_s,
              p[1].cache_misses_per_s);
    }
    free(p);
    const char *files[] = {"stat", "diskstats", "4242/io", "4242/status", "4242/stat", "4243/io",
                           "4243/status", "4243/stat", "4242", "4243", ""};
    for (int i = 0; i < 11; i++) {
        snprintf(path, sizeof path, "%s/%s", root, files[i]);
        remove(path);
    }
}

/* Target 0 tells two peers each second; target 1 cannot tell on its 2nd call (a lost server)
 * and answers its 3rd after 1.6 s (a slow one). */
struct fake_repl {
    int calls[2];
};

static int fake_repl(void *ctx, int target, struct dg_repl_row *rows, int max)
{
    struct fake_repl *f = ctx;
    int call = ++f->calls[target];
    if (target == 1 && call == 2)
        return -1;
    if (target == 1 && call == 3) {
        struct timespec ts = {1, 600 * 1000000};
        nanosleep(&ts, NULL);
    }
    int n = target == 0 ? 2 : 1;
    for (int i = 0; i < n && i < max; i++) {
        rows[i] = (struct dg_repl_row){.replay_lag_s = call, .lag_bytes = -1};
        snprintf(rows[i].name, sizeof rows[i].name, "peer%d", i);
    }
    return n;
}

static void test_repl_sampler(struct dg_test *t)
{
    struct fake_repl f = {0};
    struct dg_monitor_opts o = {.device = "none", .repl = fake_repl, .repl_ctx = &f, .repl_targets = 2};
    struct dg_monitor *m;
    struct dg_err err;
    if (dg_monitor_start(&o, &m, &err)) {
        CHECK(t, 0, "replication: the sampler starts", "%s", err.msg);
        return;
    }
    dg_ns now = dg_now_ns();
    dg_monitor_epoch(m, now, now + 500 * DG_NS_PER_MS); /* warm-up: second -1 */
    struct timespec ts = {5, 300 * 1000000};
    nanosleep(&ts, NULL); /* into second 4 */
    struct dg_monitor_point *p;
    struct dg_repl_point *r;
    size_t n, nr;
    dg_monitor_stop_all(m, &p, &n, &r, &nr);
    int consecutive = n > 0;
    for (size_t i = 1; i < n; i++)
        consecutive &= p[i].second == p[i - 1].second + 1;
    CHECK(t, n >= 6 && p[0].second == -1 && consecutive, "replication: a slow target never holds the host's points back",
          "n %zu", n);
    int ordered = nr > 0, t0 = 0, t1 = 0, first1 = 0;
    for (size_t i = 0; i < nr; i++) {
        ordered &= i == 0 || r[i].second > r[i - 1].second ||
                   (r[i].second == r[i - 1].second && r[i].target >= r[i - 1].target);
        t0 += r[i].target == 0;
        t1 += r[i].target == 1;
        first1 += r[i].target == 1 && r[i].second == -1;
    }
    /* target 0: two rows each sampled second; target 1: none for its lost second; the 1.6 s it
     * took skips a second for both */
    CHECK(t, nr && r[0].second == -1 && ordered && t0 == 2 * f.calls[0] && t1 == f.calls[1] - 1 && first1 == 1,
          "replication: rows by second then target, numbered as the host's points, none for a lost target",
          "nr %zu t0 %d/%d t1 %d/%d", nr, t0, f.calls[0], t1, f.calls[1]);
    CHECK(t, f.calls[0] >= 4 && f.calls[0] <= (int)n - 1 && r[nr - 1].second <= p[n - 1].second,
          "replication: the seconds a slow answer took are skipped, not sampled late in a burst",
          "%d calls over %zu host points", f.calls[0], n);
    size_t in = 0;
    for (size_t i = 0; i < nr; i++)
        in += r[i].second >= 0 && r[i].second <= 1;
    size_t kept = dg_monitor_trim_repl(r, nr, 0, 1);
    CHECK(t, kept == in && in > 0 && r[0].second == 0 && r[kept - 1].second == 1,
          "replication: trimmed to the series' seconds", "kept %zu of %zu", kept, in);
    free(p);
    free(r);
}

/* The cache callback that finds the server elsewhere on its 3rd call (a failover to a server
 * on this host): pid 5000 is watched from then on. */
static int moving_cache(void *ctx, uint64_t *hits, uint64_t *misses, long *server_pid)
{
    uint64_t *n = ctx;
    if (++*n >= 3)
        *server_pid = 5000;
    *hits = *n * 300;
    *misses = *n * 100;
    return 0;
}

static void test_server_moves(struct dg_test *t)
{
    char root[] = "/tmp/dg-monitor-test.XXXXXX", path[512];
    if (scratch_proc(t, root, "server moves"))
        return;
    const char *files[] = {"4242/io", "4242/status", "4242/stat", "5000/io", "5000/status", "5000/stat"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", root, k ? "5000" : "4242");
        mkdir(path, 0755);
        put(root, files[3 * k], load("pid_io.1"));
        put(root, files[3 * k + 1], load(k ? "pid_status.2" : "pid_status.1"));
        put(root, files[3 * k + 2], k ? "5000 (postgres) S 1 5000 5000 0 -1\n" : "4242 (postgres) S 1 4242 4242 0 -1\n");
    }
    uint64_t calls = 0;
    struct dg_monitor_opts o = {.device = "vda", .server_pid = 4242, .cache = moving_cache, .cache_ctx = &calls,
                                .proc_root = root};
    struct dg_monitor *m;
    struct dg_err err;
    if (dg_monitor_start(&o, &m, &err)) {
        CHECK(t, 0, "server moves: starts", "%s", err.msg);
        return;
    }
    dg_ns now = dg_now_ns();
    dg_monitor_epoch(m, now, now);
    nanosleep(&(struct timespec){3, 400 * 1000000}, NULL); /* seconds 0, 1, 2 and a part of 3 */
    struct dg_monitor_point *p;
    size_t n;
    dg_monitor_stop(m, &p, &n);
    double rss_from = n ? p[0].server_rss_bytes : -1, rss_to = n ? p[n - 1].server_rss_bytes : -1;
    int straddle = 0;
    for (size_t i = 0; i < n; i++)
        straddle += p[i].server_read_mb_s < 0;
    CHECK(t, n >= 3 && rss_from > 0 && rss_to > 0 && rss_to != rss_from,
          "server moves: the server process the cache callback names is watched from then on",
          "%zu points, rss %g then %g", n, rss_from, rss_to);
    CHECK(t, straddle == 1, "server moves: the second across the change has no server I/O rate (two processes')",
          "%d seconds without", straddle);
    free(p);
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", root, files[i]);
        remove(path);
    }
    const char *dirs[] = {"4242", "5000", "stat", "diskstats", ""};
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
        remove(path);
    }
}

int main(void)
{
    struct dg_test t = {0};
    test_parsers(&t);
    test_device(&t);
    test_summary(&t);
    test_sampler(&t);
    test_repl_sampler(&t);
    test_server_moves(&t);
    return dg_test_done(&t);
}
