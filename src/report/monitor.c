/* monitor.c (report) — renderings of a stored run's monitor points: the one-line summary of
 * the measured window, its JSON object, and the per-second table and array. Formatting only;
 * reads nothing but the record. */
#include "report/summary.h"

#include <string.h>

const char *dg_report_fig(double v, const char *fmt, char *buf, size_t n)
{
    if (v < 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, fmt, v);
    return buf;
}

void dg_report_monitor_line(FILE *out, const char *indent, const struct dg_run_record *r)
{
    if (!r->nmonitor)
        return;
    struct dg_monitor_summary s;
    dg_monitor_summarise(r->monitor, r->nmonitor, &s);
    char a[24], b[24], c[24], d[24], e[24], f[24], g[24], h[24], ratio[24] = "-";
    if (s.cache_hit_ratio >= 0)
        snprintf(ratio, sizeof ratio, "%.2f%%", 100 * s.cache_hit_ratio);
    fprintf(out, "%smonitor  CPU user %s%% sys %s%% iowait %s%%; disk %s read %s write %s MB/s, "
                 "IOPS %s/%s, await %s ms; cache hit ratio %s\n",
            indent, dg_report_fig(s.cpu_user_pct, "%.1f", a, sizeof a),
            dg_report_fig(s.cpu_sys_pct, "%.1f", b, sizeof b), dg_report_fig(s.cpu_iowait_pct, "%.1f", c, sizeof c),
            r->monitor_device[0] ? r->monitor_device : "none", dg_report_fig(s.disk_read_mb_s, "%.2f", d, sizeof d),
            dg_report_fig(s.disk_write_mb_s, "%.2f", e, sizeof e), dg_report_fig(s.disk_read_iops, "%.0f", f, sizeof f),
            dg_report_fig(s.disk_write_iops, "%.0f", g, sizeof g), dg_report_fig(s.disk_await_ms, "%.2f", h, sizeof h),
            ratio);
}

void dg_report_json_num(cJSON *o, const char *name, double v)
{
    if (v < 0)
        cJSON_AddNullToObject(o, name);
    else
        cJSON_AddNumberToObject(o, name, v);
}

cJSON *dg_report_monitor_json(const struct dg_run_record *r)
{
    if (!r->nmonitor)
        return NULL;
    struct dg_monitor_summary s;
    dg_monitor_summarise(r->monitor, r->nmonitor, &s);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "device", r->monitor_device[0] ? r->monitor_device : "none");
    cJSON_AddNumberToObject(o, "samples", (double)r->nmonitor);
    cJSON_AddNumberToObject(o, "measured_samples", (double)s.n);
    dg_report_json_num(o, "cpu_user_pct", s.cpu_user_pct);
    dg_report_json_num(o, "cpu_sys_pct", s.cpu_sys_pct);
    dg_report_json_num(o, "cpu_iowait_pct", s.cpu_iowait_pct);
    dg_report_json_num(o, "disk_read_mb_s", s.disk_read_mb_s);
    dg_report_json_num(o, "disk_write_mb_s", s.disk_write_mb_s);
    dg_report_json_num(o, "disk_read_iops", s.disk_read_iops);
    dg_report_json_num(o, "disk_write_iops", s.disk_write_iops);
    dg_report_json_num(o, "disk_await_ms", s.disk_await_ms);
    dg_report_json_num(o, "server_rss_bytes", s.server_rss_bytes);
    dg_report_json_num(o, "server_read_mb_s", s.server_read_mb_s);
    dg_report_json_num(o, "server_write_mb_s", s.server_write_mb_s);
    dg_report_json_num(o, "cache_hits_per_s", s.cache_hits_per_s);
    dg_report_json_num(o, "cache_misses_per_s", s.cache_misses_per_s);
    dg_report_json_num(o, "cache_hit_ratio", s.cache_hit_ratio);
    return o;
}

void dg_report_monitor_text(FILE *out, const struct dg_run_record *r)
{
    fprintf(out, "Run %lld, monitor per second (device %s; second 0 starts the measured window; - : not available)\n",
            (long long)r->id, r->monitor_device[0] ? r->monitor_device : "none");
    fprintf(out, "%7s  %6s %6s %6s  %8s %8s %7s %7s %8s  %9s %8s %8s  %10s %10s\n", "second", "usr%",
            "sys%", "iow%", "rd MB/s", "wr MB/s", "rd IOPS", "wr IOPS", "await ms", "srv RSS MB",
            "srv rd", "srv wr", "cache hit/s", "miss/s");
    for (size_t k = 0; k < r->nmonitor; k++) {
        const struct dg_monitor_point *p = &r->monitor[k];
        char v[13][24];
        fprintf(out, "%7lld  %6s %6s %6s  %8s %8s %7s %7s %8s  %9s %8s %8s  %10s %10s\n",
                (long long)p->second, dg_report_fig(p->cpu_user_pct, "%.1f", v[0], 24),
                dg_report_fig(p->cpu_sys_pct, "%.1f", v[1], 24), dg_report_fig(p->cpu_iowait_pct, "%.1f", v[2], 24),
                dg_report_fig(p->disk_read_mb_s, "%.2f", v[3], 24),
                dg_report_fig(p->disk_write_mb_s, "%.2f", v[4], 24),
                dg_report_fig(p->disk_read_iops, "%.0f", v[5], 24),
                dg_report_fig(p->disk_write_iops, "%.0f", v[6], 24), dg_report_fig(p->disk_await_ms, "%.2f", v[7], 24),
                dg_report_fig(p->server_rss_bytes < 0 ? -1 : p->server_rss_bytes / 1e6, "%.1f", v[8], 24),
                dg_report_fig(p->server_read_mb_s, "%.2f", v[9], 24),
                dg_report_fig(p->server_write_mb_s, "%.2f", v[10], 24),
                dg_report_fig(p->cache_hits_per_s, "%.0f", v[11], 24),
                dg_report_fig(p->cache_misses_per_s, "%.0f", v[12], 24));
    }
    if (!r->nmonitor)
        fprintf(out, "(no monitor samples: the run was made with --no-monitor or before the monitor existed)\n");
}

cJSON *dg_report_monitor_series_json(const struct dg_run_record *r)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; k < r->nmonitor; k++) {
        const struct dg_monitor_point *p = &r->monitor[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "second", (double)p->second);
        cJSON_AddStringToObject(o, "phase", p->second < 0 ? "warmup" : "measure");
        dg_report_json_num(o, "cpu_user_pct", p->cpu_user_pct);
        dg_report_json_num(o, "cpu_sys_pct", p->cpu_sys_pct);
        dg_report_json_num(o, "cpu_iowait_pct", p->cpu_iowait_pct);
        dg_report_json_num(o, "disk_read_mb_s", p->disk_read_mb_s);
        dg_report_json_num(o, "disk_write_mb_s", p->disk_write_mb_s);
        dg_report_json_num(o, "disk_read_iops", p->disk_read_iops);
        dg_report_json_num(o, "disk_write_iops", p->disk_write_iops);
        dg_report_json_num(o, "disk_await_ms", p->disk_await_ms);
        dg_report_json_num(o, "server_rss_bytes", p->server_rss_bytes);
        dg_report_json_num(o, "server_read_mb_s", p->server_read_mb_s);
        dg_report_json_num(o, "server_write_mb_s", p->server_write_mb_s);
        dg_report_json_num(o, "cache_hits_per_s", p->cache_hits_per_s);
        dg_report_json_num(o, "cache_misses_per_s", p->cache_misses_per_s);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}
