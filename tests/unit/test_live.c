/* test_live.c — --live's pure parts and its server on a real socket: the address parser (each
 * wrong part named), the OpenMetrics text of a view (families, cumulative buckets, escaped
 * labels, figures left out when unknown, the replication-lag family only with a lag), and the
 * server's documents, 404, 503 and the port closed by dg_live_stop. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "live/metrics.h"
#include "live/server.h"

static void addr_cases(struct dg_test *t)
{
    struct dg_live_addr a;
    struct dg_err e;
    CHECK(t, dg_live_parse_addr("9090", &a, &e) == 0 && !strcmp(a.host, "127.0.0.1") && a.port == 9090,
          "a port alone listens on 127.0.0.1", "%s:%d", a.host, a.port);
    CHECK(t, dg_live_parse_addr("0.0.0.0:80", &a, &e) == 0 && !strcmp(a.host, "0.0.0.0") && a.port == 80,
          "ADDR:PORT takes the address given", "%s:%d", a.host, a.port);
    CHECK(t, dg_live_parse_addr("127.0.0.1:0", &a, &e) == 0 && a.port == 0, "port 0 means any free one", "%d", a.port);
    CHECK(t, dg_live_parse_addr("65536", &a, &e) && strstr(e.msg, "port '65536'"), "a port over 65535 is named", "%s", e.msg);
    CHECK(t, dg_live_parse_addr("12ab", &a, &e) && strstr(e.msg, "port '12ab'"), "a port with letters is named", "%s", e.msg);
    CHECK(t, dg_live_parse_addr("1.2.3:80", &a, &e) && strstr(e.msg, "address '1.2.3'"), "a short address is named",
          "%s", e.msg);
    CHECK(t, dg_live_parse_addr("localhost:80", &a, &e) && strstr(e.msg, "address 'localhost'"),
          "a host name is refused (only an address is bound)", "%s", e.msg);
    CHECK(t, dg_live_parse_addr(":80", &a, &e) && e.cls == DG_ERR_USER, "an empty address is refused", "%s", e.msg);
    CHECK(t, dg_live_parse_addr("127.0.0.1:", &a, &e) && strstr(e.msg, "port ''"), "an empty port is named", "%s", e.msg);
}

static const char *const types[] = {"new_order", "pay\"ment"};

static char *metrics_of(struct dg_live_view *v, uint32_t (*hist)[DG_SEC_SLOTS])
{
    static struct dg_type_counts total[2];
    memset(total, 0, sizeof total);
    total[0] = (struct dg_type_counts){.committed = 90, .rollbacks = 1, .errors = 2, .retries = 3};
    total[0].retry_causes[DG_RETRY_DEADLOCK] = 3;
    total[0].error_causes[DG_ERROR_GAVE_UP] = 1;
    total[0].error_causes[DG_ERROR_READ_ONLY] = 1;
    total[1] = (struct dg_type_counts){.committed = 70, .errors = 4};
    total[1].error_causes[DG_ERROR_READ_ONLY] = 4;
    v->total = total;
    v->measured_hist = (const uint32_t(*)[DG_SEC_SLOTS])hist;
    size_t len;
    return dg_live_metrics(v, &len);
}

static void metrics_cases(struct dg_test *t)
{
    static uint32_t hist[2][DG_SEC_SLOTS];
    hist[0][dg_sec_slot_of(700000)] = 5;     /* 0.7 ms: in le=0.001 */
    hist[0][dg_sec_slot_of(3000000000)] = 2; /* 3 s: in le=5 */
    const char *names[] = {"sqlite:/tmp/a.db"};
    uint64_t commits[] = {160};
    struct dg_live_view v = {.command = "tpcc run", .workload = "tpcc", .label = "a \"quoted\"\nlabel", .step = "",
                             .phase = DG_PHASE_MEASURE, .elapsed_s = 12, .planned_s = 70, .vus = 4, .ranks = 1,
                             .ntypes = 2, .type_names = types, .ntargets = 1, .target_names = names,
                             .target_commits = commits, .outages = 1, .outage_open = 1};
    char *m = metrics_of(&v, hist);
    CHECK(t, m && strlen(m) > 6 && !strcmp(m + strlen(m) - 6, "# EOF\n"), "the text ends with # EOF", "%s",
          m ? m + (strlen(m) > 40 ? strlen(m) - 40 : 0) : "NULL");
    CHECK(t, m && strstr(m, "dbgauge_transactions_total{type=\"new_order\",outcome=\"committed\"} 90\n"),
          "committed transactions by type", "missing");
    CHECK(t, m && strstr(m, "dbgauge_transactions_total{type=\"pay\\\"ment\",outcome=\"committed\"} 70\n"),
          "a quote in a label value is escaped", "missing");
    CHECK(t, m && strstr(m, "label=\"a \\\"quoted\\\"\\nlabel\""), "quotes and newlines in the label are escaped",
          "missing");
    CHECK(t, m && strstr(m, "dbgauge_retry_causes_total{cause=\"deadlock\"} 3\n"), "retries by cause", "missing");
    CHECK(t, m && strstr(m, "dbgauge_error_causes_total{cause=\"read_only\"} 5\n") &&
                 strstr(m, "dbgauge_error_causes_total{cause=\"gave_up\"} 1\n") &&
                 strstr(m, "dbgauge_error_causes_total{cause=\"other\"} 0\n"),
          "errors by cause, read_only and gave_up among them, summed over the types", "missing");
    CHECK(t, m && strstr(m, "dbgauge_phase{dbgauge_phase=\"measure\"} 1\n") &&
                 strstr(m, "dbgauge_phase{dbgauge_phase=\"warm-up\"} 0\n"),
          "the phase is a stateset with one state set", "missing");
    CHECK(t, m && strstr(m, "dbgauge_latency_seconds_bucket{type=\"new_order\",le=\"0.0005\"} 0\n") &&
                 strstr(m, "dbgauge_latency_seconds_bucket{type=\"new_order\",le=\"0.001\"} 5\n") &&
                 strstr(m, "dbgauge_latency_seconds_bucket{type=\"new_order\",le=\"2\"} 5\n") &&
                 strstr(m, "dbgauge_latency_seconds_bucket{type=\"new_order\",le=\"5\"} 7\n") &&
                 strstr(m, "dbgauge_latency_seconds_bucket{type=\"new_order\",le=\"+Inf\"} 7\n") &&
                 strstr(m, "dbgauge_latency_seconds_count{type=\"new_order\"} 7\n"),
          "latency buckets are cumulative and end at +Inf with the count", "missing");
    CHECK(t, m && strstr(m, "dbgauge_outage_open 1\n") && strstr(m, "dbgauge_outages_total 1\n"), "outages",
          "missing");
    CHECK(t, m && strstr(m, "dbgauge_target_commits_total{target=\"sqlite:/tmp/a.db\"} 160\n"), "commits per target",
          "missing");
    CHECK(t, m && !strstr(m, "dbgauge_host_cpu_ratio") && !strstr(m, "dbgauge_replication_lag_seconds"),
          "no monitor: its families are left out, not written empty", "present");
    free(m);
    struct dg_monitor_point mp = {.cpu_user_pct = 50, .cpu_sys_pct = 10, .cpu_iowait_pct = 0, .disk_read_mb_s = -1,
                                  .disk_write_mb_s = 2, .disk_read_iops = -1, .disk_write_iops = -1,
                                  .disk_await_ms = -1, .server_rss_bytes = -1, .cache_hits_per_s = 90,
                                  .cache_misses_per_s = 10};
    v.mon = &mp;
    m = metrics_of(&v, NULL);
    CHECK(t, m && strstr(m, "dbgauge_host_cpu_ratio{mode=\"user\"} 0.5\n") &&
                 strstr(m, "dbgauge_disk_write_bytes_per_second 2000000\n") &&
                 strstr(m, "dbgauge_cache_hit_ratio 0.90000000000000002\n"),
          "the monitor's gauges, in base units", "missing");
    CHECK(t, m && !strstr(m, "dbgauge_disk_read_bytes_per_second") && !strstr(m, "dbgauge_latency_seconds"),
          "a figure not available (-1) and a histogram not there yet are left out", "present");
    free(m);
}

/* A replication row as the drivers fill it: every figure -1 (unknown) but what is given. */
static struct dg_repl_point repl_row(int target, const char *peer, double replay_lag_s)
{
    struct dg_repl_point p = {.second = 5, .target = target,
                              .row = {.write_lag_s = -1, .flush_lag_s = -1, .replay_lag_s = replay_lag_s,
                                      .lag_bytes = -1, .cluster_size = -1, .flow_paused = -1, .recv_queue = -1,
                                      .send_queue = -1, .cert_failures = -1}};
    snprintf(p.row.name, sizeof p.row.name, "%s", peer);
    return p;
}

/* The replication-lag family only with a sample: a Galera node's rows give no lag (its queue
 * and flow control are no seconds), a PostgreSQL primary's give its standbys'. */
static void repl_cases(struct dg_test *t)
{
    struct dg_repl_point rows[3] = {repl_row(0, "self", -1), repl_row(1, "standby1", 0.25)};
    snprintf(rows[0].row.state, sizeof rows[0].row.state, "Synced");
    rows[0].row.cluster_size = 3, rows[0].row.recv_queue = 0, rows[0].row.flow_paused = 0;
    struct dg_live_view v = {.command = "tpcc run", .workload = "tpcc", .label = "", .step = "",
                             .ntypes = 2, .type_names = types, .repl = rows, .nrepl = 1};
    char *m = metrics_of(&v, NULL);
    CHECK(t, m && !strstr(m, "dbgauge_replication_lag_seconds"),
          "a Galera-like replication row without a lag: no replication-lag family", "%s",
          m && strstr(m, "dbgauge_replication") ? strstr(m, "dbgauge_replication") : "NULL");
    free(m);
    v.nrepl = 2;
    m = metrics_of(&v, NULL);
    CHECK(t, m && strstr(m, "# TYPE dbgauge_replication_lag_seconds gauge\n") &&
                 strstr(m, "dbgauge_replication_lag_seconds{target=\"2\",peer=\"standby1\"} 0.25\n") &&
                 !strstr(m, "peer=\"self\""),
          "a row with a lag: the family with its sample, the row without one left out", "%s",
          m && strstr(m, "dbgauge_replication") ? strstr(m, "dbgauge_replication") : "NULL");
    free(m);
}

/* One GET over a real socket: the status code, and the body into body. */
static int get(int port, const char *path, char *body, size_t n)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        close(fd);
        return -1;
    }
    char req[256];
    int len = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: x\r\n\r\n", path);
    if (write(fd, req, (size_t)len) != len) {
        close(fd);
        return -1;
    }
    size_t got = 0;
    ssize_t r;
    while (got + 1 < n && (r = read(fd, body + got, n - 1 - got)) > 0)
        got += (size_t)r;
    body[got] = '\0';
    close(fd);
    int status = 0;
    sscanf(body, "HTTP/1.%*d %d", &status);
    return status;
}

static void server_cases(struct dg_test *t)
{
    struct dg_live_addr a = {.host = "127.0.0.1", .port = 0};
    struct dg_live *lv;
    struct dg_err e;
    char body[4096];
    if (dg_live_start(&a, &lv, &e)) {
        CHECK(t, 0, "the server starts on a free port", "%s", e.msg);
        return;
    }
    int port = dg_live_port(lv);
    CHECK(t, port > 0, "the server says the port the kernel chose", "%d", port);
    CHECK(t, get(port, "/metrics", body, sizeof body) == 503, "a document not published yet is 503", "%s", body);
    dg_live_set(lv, DG_LIVE_METRICS, strdup("x 1\n# EOF\n"), 10, DG_LIVE_METRICS_TYPE);
    CHECK(t, get(port, "/metrics", body, sizeof body) == 200 && strstr(body, "\r\n\r\nx 1\n# EOF\n") &&
                 strstr(body, "application/openmetrics-text"),
          "a published document is served with its type", "%s", body);
    CHECK(t, get(port, "/nosuch", body, sizeof body) == 404, "an unknown path is 404", "%s", body);
    CHECK(t, !dg_live_watched(lv), "/metrics alone does not count as watching the page", "watched");
    CHECK(t, get(port, "/api/run", body, sizeof body) == 503 && dg_live_watched(lv),
          "/api/run not made yet: 503 after waiting, and the reporter is told someone watches", "%s", body);
    struct dg_live_addr same = {.host = "127.0.0.1", .port = port};
    struct dg_live *other;
    CHECK(t, dg_live_start(&same, &other, &e) && e.cls == DG_ERR_USER && strstr(e.msg, "cannot listen there"),
          "a second server on the same port is refused, saying why", "%s", e.msg);
    dg_live_stop(lv);
    CHECK(t, get(port, "/metrics", body, sizeof body) == -1, "the port is closed after dg_live_stop", "still open");
}

int main(void)
{
    struct dg_test t = {0};
    addr_cases(&t);
    metrics_cases(&t);
    repl_cases(&t);
    server_cases(&t);
    return dg_test_done(&t);
}
