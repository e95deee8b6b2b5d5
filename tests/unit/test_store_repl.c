/* test_store_repl.c — the replication rows of a run (src/results/store_repl.c, table
 * run_replication of schema 11) round-trip through dg_store_put / dg_store_get field by field,
 * -1 figures and empty texts stored as NULL; a run without rows reads back with none; the
 * report's per-peer summary and JSON of them (src/report/repl.c). Temporary files only. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/repl.h"
#include "results/store.h"

#include "check.h"
#include "store_fixture.h"

static struct dg_repl_row pg_row(const char *name, const char *sync, double lag, double bytes)
{
    struct dg_repl_row w = {.write_lag_s = lag < 0 ? -1 : lag / 4, .flush_lag_s = lag < 0 ? -1 : lag / 2,
                            .replay_lag_s = lag,
                            .lag_bytes = bytes, .cluster_size = -1, .flow_paused = -1, .recv_queue = -1,
                            .send_queue = -1, .cert_failures = -1, .behind = bytes > 0};
    snprintf(w.name, sizeof w.name, "%s", name);
    snprintf(w.state, sizeof w.state, "%s", "streaming");
    snprintf(w.sync, sizeof w.sync, "%s", sync);
    return w;
}

/* Seconds -1 .. 3: target 0 a primary with two standbys (s2 loses its lag figures, -1, in
 * second 1), target 1 a standby about itself (no sync state), target 2 a Galera node. */
static void fixture(struct dg_run_record *w)
{
    memset(w, 0, sizeof *w);
    snprintf(w->workload, sizeof w->workload, "tpcc");
    snprintf(w->status, sizeof w->status, "complete");
    w->repl = calloc(20, sizeof *w->repl);
    if (!w->repl)
        return;
    for (int s = -1; s <= 3; s++) {
        struct dg_repl_point *p = &w->repl[w->nrepl];
        p[0] = (struct dg_repl_point){s, 0, pg_row("s1", "sync", 0.001 * (s + 2), 0)};
        p[1] = (struct dg_repl_point){s, 0, pg_row("s2", "async", s == 1 ? -1 : 0.5 * (s + 2), s == 1 ? -1 : 1000.0 * (s + 2))};
        p[2] = (struct dg_repl_point){s, 1, pg_row("self", "", s == 3 ? 2.5 : 0, s == 3 ? 8192 : 0)};
        p[3] = (struct dg_repl_point){s, 2, {.name = "self", .state = "Synced", .write_lag_s = -1,
                                             .flush_lag_s = -1, .replay_lag_s = -1, .lag_bytes = -1,
                                             .cluster_size = s == 2 ? 2 : 3, .flow_paused = 0.25 * (s + 1),
                                             .recv_queue = 10.0 * (s + 1), .send_queue = 0,
                                             .cert_failures = 100 + s, .behind = s == 0}};
        w->nrepl += 4;
    }
}

static int same_row(const struct dg_repl_point *a, const struct dg_repl_point *b)
{
    const struct dg_repl_row *x = &a->row, *y = &b->row;
    return a->second == b->second && a->target == b->target && !strcmp(x->name, y->name) &&
           !strcmp(x->state, y->state) && !strcmp(x->sync, y->sync) && x->write_lag_s == y->write_lag_s &&
           x->flush_lag_s == y->flush_lag_s && x->replay_lag_s == y->replay_lag_s && x->lag_bytes == y->lag_bytes &&
           x->cluster_size == y->cluster_size && x->flow_paused == y->flow_paused && x->recv_queue == y->recv_queue &&
           x->send_queue == y->send_queue && x->cert_failures == y->cert_failures && x->behind == y->behind;
}

static void check_report(struct dg_test *t, const struct dg_run_record *r)
{
    struct dg_repl_peer p[DG_REPL_MAX_PEERS];
    int n = dg_repl_peers(r, p, DG_REPL_MAX_PEERS);
    CHECK(t, n == 4 && !strcmp(p[0].name, "s1") && !strcmp(p[1].name, "s2") && p[2].target == 1 && p[3].target == 2,
          "four peers, in order of first sight, told apart by target", "%d", n);
    if (n != 4)
        return;
    CHECK(t, fabs(p[0].replay_mean_s - 0.003) < 1e-9 && p[0].replay_max_s == 0.005 && p[0].n == 5 &&
                 !strcmp(p[0].states, "streaming") && !strcmp(p[0].syncs, "sync"),
          "a standby's mean and max replay lag, its state and sync state", "mean %g max %g", p[0].replay_mean_s,
          p[0].replay_max_s);
    CHECK(t, fabs(p[1].replay_mean_s - (0.5 + 1 + 2 + 2.5) / 4) < 1e-9 && p[1].lag_bytes_max == 5000 && p[1].behind_s == 4,
          "a second without figures (-1) is left out of the mean; max bytes; seconds behind",
          "mean %g bytes %g behind %d", p[1].replay_mean_s, p[1].lag_bytes_max, p[1].behind_s);
    CHECK(t, p[3].cluster_min == 2 && p[3].cluster_max == 3 && p[3].flow_paused_max == 1 && p[3].recv_queue_max == 40 &&
                 p[3].cert_failures_delta == 4 && p[3].replay_max_s == -1,
          "a Galera node: cluster size range, flow control and queue max, cert failures delta",
          "size %g..%g fc %g q %g cert %g", p[3].cluster_min, p[3].cluster_max, p[3].flow_paused_max,
          p[3].recv_queue_max, p[3].cert_failures_delta);
    cJSON *a = dg_report_repl_json(r);
    cJSON *row = cJSON_GetArrayItem(a, 3); /* second -1, the Galera node */
    CHECK(t, cJSON_GetArraySize(a) == (int)r->nrepl && cJSON_GetObjectItem(row, "target")->valueint == 3 &&
                 cJSON_IsNull(cJSON_GetObjectItem(row, "replay_lag_s")) &&
                 cJSON_IsNull(cJSON_GetObjectItem(row, "sync_state")) &&
                 cJSON_GetObjectItem(row, "cluster_size")->valuedouble == 3,
          "JSON: a row per second and peer, target 1-based, null for what the engine has not", "%d rows",
          cJSON_GetArraySize(a));
    cJSON_Delete(a);
}

static void round_trip(struct dg_test *t, const char *path)
{
    struct dg_err err = {0};
    struct dg_store *s = dg_test_new_store(t, path);
    if (!s)
        return;
    struct dg_run_record w;
    fixture(&w);
    int rc = dg_store_put(s, &w, &err);
    CHECK(t, rc == 0 && w.nrepl == 20, "a run with 20 replication rows is stored", "%s", err.msg);
    struct dg_run_record r;
    if (rc == 0 && dg_store_get(s, w.id, 0, &r, &err) == 0) {
        int ok = r.nrepl == w.nrepl;
        for (size_t k = 0; ok && k < w.nrepl; k++)
            ok = same_row(&r.repl[k], &w.repl[k]);
        CHECK(t, ok, "every row comes back in order, every field (-1 figures, empty texts, warm-up seconds)",
              "%zu of %zu", r.nrepl, w.nrepl);
        check_report(t, &r);
        dg_run_record_free(&r);
        CHECK(t, r.repl == NULL && r.nrepl == 0, "dg_run_record_free frees the rows", "%zu", r.nrepl);
    } else {
        CHECK(t, 0, "the run reads back", "%s", err.msg);
    }
    sqlite3 *db;
    sqlite3_open(path, &db);
    CHECK(t, dg_test_sql_num(db, "SELECT COUNT(*) FROM run_replication WHERE replay_lag_s IS NULL") == 6 &&
                 dg_test_sql_num(db, "SELECT COUNT(*) FROM run_replication WHERE sync IS NULL") == 10 &&
                 dg_test_sql_num(db, "SELECT COUNT(*) FROM run_replication WHERE replay_lag_s < 0 OR lag_bytes < 0") == 0,
          "-1 figures and empty texts are NULL in run_replication, never -1", "%g",
          dg_test_sql_num(db, "SELECT COUNT(*) FROM run_replication WHERE replay_lag_s IS NULL"));
    sqlite3_close(db);
    dg_run_record_free(&w);
    struct dg_run_record e;
    memset(&e, 0, sizeof e);
    snprintf(e.workload, sizeof e.workload, "oltp");
    snprintf(e.status, sizeof e.status, "complete");
    rc = dg_store_put(s, &e, &err);
    if (rc == 0 && dg_store_get(s, e.id, 0, &r, &err) == 0) {
        CHECK(t, !r.repl && !r.nrepl, "a run without replication reads back with none", "%zu", r.nrepl);
        struct dg_repl_peer p[2];
        CHECK(t, dg_repl_peers(&r, p, 2) == 0, "and has no peers", "-");
        dg_run_record_free(&r);
    } else {
        CHECK(t, 0, "a run without replication is stored and read", "%s", err.msg);
    }
    dg_store_close(s);
}

int main(void)
{
    struct dg_test t = {0};
    char path[] = "/tmp/dg-test-repl.XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    round_trip(&t, path);
    unlink(path);
    return dg_test_done(&t);
}
