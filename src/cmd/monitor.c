/* monitor.c (cmd) — sets the host and engine monitor up around one run: finds the server's
 * data directory, device and process through the driver, feeds the engine's cache counters
 * (the database's from a connection of its own, or the workers' own connections' through
 * the runner) and every target's replication (a connection of its own each, reconnected
 * after a loss at most every DG_CMD_REPL_RETRY_S s), starts and stops the sampler and hands
 * its points to the run record. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"

/* Sums the workers' published counters (engines whose cache is per connection). */
static int cache_from_workers(void *ctx, uint64_t *hits, uint64_t *misses, long *server_pid)
{
    struct dg_cmd_monitor *cm = ctx;
    (void)server_pid;
    uint64_t h = 0, m = 0;
    for (int i = 0; i < cm->workers; i++) {
        h += atomic_load_explicit(&cm->conn_cache[2 * i], memory_order_relaxed);
        m += atomic_load_explicit(&cm->conn_cache[2 * i + 1], memory_order_relaxed);
    }
    *hits = h;
    *misses = m;
    return 0;
}

/* The server's counters, asked on the monitor's own connection (server-wide engines). A lost
 * connection is made again at most every DG_CMD_REPL_RETRY_S s through the target's own host
 * list, as the workers' are: after a failover it reaches the new primary, whose process (on
 * this host) is watched from then on. Its first second says nothing: a new server's counters. */
static int cache_from_server(void *ctx, uint64_t *hits, uint64_t *misses, long *server_pid)
{
    struct dg_cmd_monitor *cm = ctx;
    struct dg_err e;
    if (!cm->conn_ok) {
        dg_ns now = dg_now_ns();
        if (now < cm->conn_next_try_ns)
            return -1;
        cm->conn_next_try_ns = now + DG_CMD_REPL_RETRY_S * DG_NS_PER_S;
        struct dg_connect_opts co = {.application = "dbgauge-monitor", .connect_timeout_s = 2};
        if (dg_connect(cm->target, &co, &cm->conn, &e))
            return -1;
        cm->conn_ok = 1;
        char dir[1024];
        long pid = 0;
        if (dg_server_local(&cm->conn, dir, sizeof dir, &pid, &e) >= 0 && pid > 0)
            *server_pid = pid;
        return -1;
    }
    if (dg_cache_stats(&cm->conn, hits, misses, &e) == 0)
        return 0;
    /* whatever the driver made of a dead socket: a new connection will tell */
    dg_disconnect(&cm->conn);
    cm->conn_ok = 0;
    cm->conn_next_try_ns = dg_now_ns(); /* at once: the server may be back on another host */
    return -1;
}

/* Connects r's own connection; on failure the next try waits DG_CMD_REPL_RETRY_S. */
static int repl_connect(struct dg_cmd_repl *r)
{
    struct dg_err e = {0};
    struct dg_connect_opts co = {.application = "dbgauge-monitor", .connect_timeout_s = 2};
    r->next_try_ns = dg_now_ns() + DG_CMD_REPL_RETRY_S * DG_NS_PER_S;
    if (dg_connect(r->t, &co, &r->conn, &e))
        return -1;
    r->connected = 1;
    return 0;
}

/* Target target's replication on its own connection, (re)connected lazily: a server that is
 * away (a failover) costs one connect attempt a second, never a stalled monitor. */
static int repl_from_target(void *ctx, int target, struct dg_repl_row *rows, int max)
{
    struct dg_cmd_monitor *cm = ctx;
    struct dg_cmd_repl *r = &cm->repl[target];
    if (!r->t)
        return 0;
    dg_ns now = dg_now_ns();
    struct dg_err e = {0};
    if (!r->connected && (now < r->next_try_ns || repl_connect(r)))
        return -1;
    int n = dg_replication(&r->conn, rows, max, &e);
    if (n < 0 && e.cls != DG_ERR_USER && e.cls != DG_ERR_RETRY) {
        dg_disconnect(&r->conn);
        r->connected = 0;
        r->next_try_ns = dg_now_ns() + DG_CMD_REPL_RETRY_S * DG_NS_PER_S;
    }
    return n;
}

/* One slot per target; the ones whose driver tells its replication get a target. */
static int repl_setup(struct dg_cmd_monitor *cm, const struct dg_target *const *targets, int n,
                      struct dg_monitor_opts *mo, struct dg_err *err)
{
    int any = 0;
    for (int k = 0; k < n; k++)
        any |= dg_driver_has(targets[k]->drv, replication);
    if (!any)
        return 0;
    if (!(cm->repl = calloc((size_t)n, sizeof *cm->repl)))
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    cm->nrepl = n;
    /* Connected now, before the window: a connect at the first sample (a slow one under load)
     * would cost the window's first seconds their rows. One that fails is tried again later. */
    for (int k = 0; k < n; k++)
        if (dg_driver_has(targets[k]->drv, replication)) {
            cm->repl[k].t = targets[k];
            (void)repl_connect(&cm->repl[k]);
        }
    mo->repl = repl_from_target;
    mo->repl_ctx = cm;
    mo->repl_targets = n;
    return 0;
}

static void repl_free(struct dg_cmd_monitor *cm)
{
    for (int k = 0; k < cm->nrepl; k++)
        if (cm->repl[k].connected)
            dg_disconnect(&cm->repl[k].conn);
    free(cm->repl);
    cm->repl = NULL;
    cm->nrepl = 0;
}

static void on_start(void *ctx, dg_ns start_ns, dg_ns warm_end_ns)
{
    struct dg_cmd_monitor *cm = ctx;
    if (cm->mon)
        dg_monitor_epoch(cm->mon, start_ns, warm_end_ns);
}

int dg_cmd_monitor_device_opt(const char *dev, const char **out, struct dg_err *err)
{
    *out = dev;
    if (!strcmp(dev, "none"))
        return 0;
    char *text = malloc(64 * 1024);
    struct dg_mon_disk d;
    int ok = text && dg_mon_read_file("/proc/diskstats", text, 64 * 1024) >= 0 &&
             dg_mon_parse_diskstats(text, dev, 0, 0, &d) == 0;
    free(text);
    return ok ? 0 : dg_err_set(err, DG_ERR_USER, 0, "--monitor-device: '%s' is not a device in /proc/diskstats (or 'none')", DG_TEXT(dev));
}

int dg_cmd_monitor_conns(const struct dg_target *t, int first)
{
    const struct dg_driver *drv = t->drv;
    if (!drv) /* not parsed yet */
        return 0;
    int n = dg_driver_has(drv, replication) ? 1 : 0;
    if (first && dg_driver_has(drv, cache_stats) && !(dg_driver_caps(drv) & DG_CAP_CACHE_PER_CONN))
        n++; /* as dg_cmd_monitor_begin keeps cm->conn */
    return n;
}

int dg_cmd_monitor_begin(struct dg_cmd_monitor *cm, const struct dg_target *const *targets,
                         int ntargets, int workers, struct dg_runner_cfg *cfg, struct dg_err *err)
{
    const struct dg_target *t = targets[0];
    cm->conn = (struct dg_conn_h){0};
    cm->conn_ok = 0;
    cm->mon = NULL;
    cm->conn_cache = NULL;
    cm->repl = NULL;
    cm->nrepl = 0;
    cm->workers = workers;
    cm->device[0] = '\0';
    if (!cm->enabled)
        return 0;
    if (cm->host_only) {
        snprintf(cm->device, sizeof cm->device, "%s", cm->device_opt ? cm->device_opt : "none");
        struct dg_monitor_opts ho = {.device = cm->device};
        if (dg_monitor_start(&ho, &cm->mon, err))
            return -1;
        cfg->on_start = on_start;
        cfg->start_ctx = cm;
        return 0;
    }
    const struct dg_driver *drv = t->drv;
    struct dg_connect_opts co = {.application = "dbgauge-monitor"};
    if (dg_connect(t, &co, &cm->conn, err))
        return -1;
    cm->target = t;
    cm->conn_ok = 1;
    cm->conn_next_try_ns = 0;
    char data_dir[1024] = "";
    long pid = 0;
    struct dg_err e;
    if (dg_server_local(&cm->conn, data_dir, sizeof data_dir, &pid, &e) < 0)
        data_dir[0] = '\0', pid = 0; /* not local as far as we can tell: host figures only */
    if (cm->device_opt)
        snprintf(cm->device, sizeof cm->device, "%s", cm->device_opt);
    else if (!data_dir[0] || dg_mon_device_for_path(data_dir, cm->device, sizeof cm->device, &e) < 0)
        snprintf(cm->device, sizeof cm->device, "none");
    struct dg_monitor_opts mo = {.device = cm->device, .server_pid = pid};
    if (dg_driver_has(drv, cache_stats) && (dg_driver_caps(drv) & DG_CAP_CACHE_PER_CONN)) {
        cm->conn_cache = calloc(2 * (size_t)workers, sizeof *cm->conn_cache);
        if (!cm->conn_cache) {
            dg_disconnect(&cm->conn);
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        }
        cfg->conn_cache = cm->conn_cache;
        mo.cache = cache_from_workers;
    } else if (dg_driver_has(drv, cache_stats)) {
        mo.cache = cache_from_server;
    }
    mo.cache_ctx = cm;
    if (!mo.cache || mo.cache == cache_from_workers) {
        dg_disconnect(&cm->conn); /* nothing more to ask the engine */
        cm->conn_ok = 0;
    }
    if (repl_setup(cm, targets, ntargets, &mo, err) || dg_monitor_start(&mo, &cm->mon, err)) {
        repl_free(cm);
        dg_disconnect(&cm->conn);
        free(cm->conn_cache);
        cm->conn_cache = NULL;
        cfg->conn_cache = NULL;
        return -1;
    }
    cfg->on_start = on_start;
    cfg->start_ctx = cm;
    return 0;
}

void dg_cmd_monitor_end(struct dg_cmd_monitor *cm, struct dg_run_record *rec)
{
    if (!cm->mon) {
        dg_disconnect(&cm->conn);
        return;
    }
    struct dg_monitor_point *pts;
    struct dg_repl_point *rp;
    size_t n, nr;
    dg_monitor_stop_all(cm->mon, &pts, &n, &rp, &nr);
    cm->mon = NULL;
    dg_disconnect(&cm->conn);
    repl_free(cm);
    free(cm->conn_cache);
    cm->conn_cache = NULL;
    if (rec && rec->nseries) { /* the seconds the run's series has, no more */
        n = dg_monitor_trim(pts, n, rec->series[0].second, rec->series[rec->nseries - 1].second);
        nr = dg_monitor_trim_repl(rp, nr, rec->series[0].second, rec->series[rec->nseries - 1].second);
    }
    if (rec) {
        free(rec->monitor);
        rec->monitor = pts;
        rec->nmonitor = n;
        free(rec->repl);
        rec->repl = rp;
        rec->nrepl = nr;
        snprintf(rec->monitor_device, sizeof rec->monitor_device, "%s", cm->device);
    } else {
        free(pts);
        free(rp);
    }
}
