/* test_store_live.c — runs kept as they go (src/results/store_live.c, schema 13): checkpoints
 * of one run keep one id and one set of rows (counts, figures and the series so far, points
 * added, not duplicated); the finished run replaces them under the same id; a checkpointed run
 * reads back "running" while its process lives and "lost" once it has ended (a reaped child's
 * identity, another boot of this host), another host's by its silence; one abandoned reads
 * "failed"; an experiment whose process ended reads "lost". The identity itself
 * (src/core/procid.c): ours lives, a reaped child's does not, garbage cannot tell. Temporary
 * files only. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/procid.h"
#include "results/store.h"

#include "check.h"
#include "store_fixture.h"

/* A run of two types with n series points, as a checkpoint after n seconds would hold. */
static void partial(struct dg_run_record *w, size_t n, const char *status)
{
    memset(w, 0, sizeof *w);
    snprintf(w->workload, sizeof w->workload, "tpcc");
    snprintf(w->status, sizeof w->status, "%s", status);
    snprintf(w->target, sizeof w->target, "sqlite:/tmp/x.db");
    gethostname(w->host.hostname, sizeof w->host.hostname - 1);
    w->vus = 2;
    w->measured_s = (double)n;
    w->ntypes = 2;
    for (int k = 0; k < 2; k++) {
        snprintf(w->txn[k].name, sizeof w->txn[k].name, k ? "payment" : "new_order");
        w->txn[k].committed = 10 * n;
        w->txn[k].hist = dg_hist_new();
        for (size_t i = 0; i < 10 * n; i++)
            dg_hist_record(w->txn[k].hist, 1000000 + 1000 * i);
        dg_txn_summary_from_hist(&w->txn[k]);
    }
    w->nfigures = 1;
    snprintf(w->figures[0].name, sizeof w->figures[0].name, "nopm");
    snprintf(w->figures[0].label, sizeof w->figures[0].label, "NOPM");
    w->figures[0].value = 600.0;
    w->series = calloc(n, sizeof *w->series);
    w->nseries = n;
    for (size_t i = 0; i < n; i++) {
        w->series[i].second = (int64_t)i;
        w->series[i].t[0].c.committed = w->series[i].t[1].c.committed = 10;
    }
}

static void set_sql(const char *path, const char *sql)
{
    sqlite3 *db;
    if (sqlite3_open(path, &db) == SQLITE_OK)
        sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
}

/* The status run id reads back with (and its error into why). */
static const char *status_of(struct dg_store *s, int64_t id, char *out, size_t n, char *why, size_t nwhy)
{
    struct dg_run_record r;
    struct dg_err err = {0};
    if (dg_store_get(s, id, 0, &r, &err)) {
        snprintf(out, n, "(unreadable: %s)", err.msg);
        return out;
    }
    snprintf(out, n, "%s", r.status);
    if (why)
        snprintf(why, nwhy, "%s", r.error);
    dg_run_record_free(&r);
    return out;
}

/* The identity of a process that has ended and been reaped. */
static void dead_procid(char *out, size_t n)
{
    int fds[2];
    out[0] = '\0';
    if (pipe(fds))
        return;
    pid_t pid = fork();
    if (pid == 0) {
        char me[DG_PROCID_LEN];
        dg_procid_self(me, sizeof me);
        ssize_t w = write(fds[1], me, strlen(me) + 1);
        _exit(w > 0 ? 0 : 1);
    }
    close(fds[1]);
    ssize_t got = pid > 0 ? read(fds[0], out, n - 1) : -1;
    out[got > 0 ? got : 0] = '\0';
    close(fds[0]);
    waitpid(pid, NULL, 0);
}

static void procids(struct dg_test *t)
{
    char me[DG_PROCID_LEN], dead[DG_PROCID_LEN];
    dg_procid_self(me, sizeof me);
    dead_procid(dead, sizeof dead);
    CHECK(t, me[0] && dg_procid_alive(me) == 1, "this process's identity says it lives", "%s", me);
    CHECK(t, dead[0] && dg_procid_alive(dead) == 0, "a reaped child's identity says it ended", "%s", dead);
    CHECK(t, dg_procid_alive("nonsense") == -1 && dg_procid_alive(NULL) == -1, "garbage cannot tell", "-");
    char other_boot[DG_PROCID_LEN + 8];
    snprintf(other_boot, sizeof other_boot, "00000000-boot%s", strchr(me, ':'));
    CHECK(t, dg_procid_alive(other_boot) == 0, "our pid under another boot id has ended", "%s", other_boot);
}

static void checkpoints(struct dg_test *t, const char *path)
{
    struct dg_store *s = dg_test_new_store(t, path);
    if (!s)
        return;
    struct dg_err err = {0};
    struct dg_run_record w;
    size_t kept = 0;
    char st[64], why[512];
    partial(&w, 12, "running");
    CHECK(t, dg_store_checkpoint(s, &w, &kept, &err) == 0 && w.id > 0 && kept == 12, "a first checkpoint is kept",
          "%s (id %lld, kept %zu)", err.msg, (long long)w.id, kept);
    int64_t id = w.id;
    dg_run_record_free(&w);
    CHECK(t, !strcmp(status_of(s, id, st, sizeof st, NULL, 0), "running"), "it reads back running while we live", "%s",
          st);
    partial(&w, 25, "running");
    w.id = id;
    CHECK(t, dg_store_checkpoint(s, &w, &kept, &err) == 0 && w.id == id && kept == 25, "a second checkpoint, same id",
          "%s", err.msg);
    dg_run_record_free(&w);
    CHECK(t, dg_test_file_num(path, "SELECT COUNT(*) FROM run") == 1 &&
                 dg_test_file_num(path, "SELECT COUNT(*) FROM run_series") == 50 &&
                 dg_test_file_num(path, "SELECT COUNT(*) FROM run_txn") == 2 &&
                 dg_test_file_num(path, "SELECT COUNT(*) FROM run_figure") == 1,
          "checkpoints keep one run, its 25 seconds once, its types and figures once",
          "runs %g, series rows %g, txn rows %g, figures %g", dg_test_file_num(path, "SELECT COUNT(*) FROM run"),
          dg_test_file_num(path, "SELECT COUNT(*) FROM run_series"),
          dg_test_file_num(path, "SELECT COUNT(*) FROM run_txn"),
          dg_test_file_num(path, "SELECT COUNT(*) FROM run_figure"));
    CHECK(t, dg_test_file_num(path, "SELECT SUM(committed) FROM run_txn") == 500,
          "the counts are the latest checkpoint's", "%g",
          dg_test_file_num(path, "SELECT SUM(committed) FROM run_txn"));

    partial(&w, 30, "complete");
    w.id = id;
    CHECK(t, dg_store_put(s, &w, &err) == 0 && w.id == id, "the finished run replaces its checkpoints, same id", "%s",
          err.msg);
    dg_run_record_free(&w);
    CHECK(t, !strcmp(status_of(s, id, st, sizeof st, NULL, 0), "complete") &&
                 dg_test_file_num(path, "SELECT COUNT(*) FROM run") == 1 &&
                 dg_test_file_num(path, "SELECT COUNT(*) FROM run_series") == 60,
          "then one complete run with its 30 seconds", "%s, series rows %g", st,
          dg_test_file_num(path, "SELECT COUNT(*) FROM run_series"));

    /* killed: its process's identity is one that has ended */
    partial(&w, 11, "running");
    dg_store_checkpoint(s, &w, &(size_t){0}, &err);
    int64_t lost = w.id;
    dg_run_record_free(&w);
    char dead[DG_PROCID_LEN], sql[256];
    dead_procid(dead, sizeof dead);
    snprintf(sql, sizeof sql, "UPDATE run SET proc_id = '%s' WHERE id = %lld", dead, (long long)lost);
    set_sql(path, sql);
    CHECK(t, !strcmp(status_of(s, lost, st, sizeof st, why, sizeof why), "lost") && strstr(why, "last checkpoint"),
          "a run whose process ended reads back lost, saying its figures are its last checkpoint", "%s: %s", st, why);
    snprintf(sql, sizeof sql, "UPDATE run SET proc_id = 'other-boot:1:1' WHERE id = %lld", (long long)lost);
    set_sql(path, sql);
    CHECK(t, !strcmp(status_of(s, lost, st, sizeof st, NULL, 0), "lost"), "this host under another boot: lost", "%s",
          st);
    snprintf(sql, sizeof sql, "UPDATE run SET host_name = 'elsewhere', alive_at = %.0f WHERE id = %lld", dg_wall_s(),
             (long long)lost);
    set_sql(path, sql);
    CHECK(t, !strcmp(status_of(s, lost, st, sizeof st, NULL, 0), "running"),
          "another host's run that checkpointed just now is running", "%s", st);
    snprintf(sql, sizeof sql, "UPDATE run SET alive_at = %.0f WHERE id = %lld",
             dg_wall_s() - DG_STORE_SILENT_LOST_S - 5, (long long)lost);
    set_sql(path, sql);
    CHECK(t, !strcmp(status_of(s, lost, st, sizeof st, NULL, 0), "lost"), "another host's run silent too long is lost",
          "%s", st);
    CHECK(t, dg_store_abandon(s, lost, "out of memory", &err) == 0 &&
                 !strcmp(status_of(s, lost, st, sizeof st, why, sizeof why), "failed") && !strcmp(why, "out of memory"),
          "an abandoned checkpointed run reads failed with its reason", "%s: %s", st, why);

    int64_t ex;
    struct dg_experiment e;
    int64_t *ids = NULL;
    int nids = 0;
    CHECK(t, dg_store_experiment_begin(s, "x.ini", "", 3, &ex, &err) == 0 &&
                 dg_store_experiment_get(s, ex, &e, &ids, &nids, &err) == 0 && !strcmp(e.status, "running"),
          "a running experiment of this process reads running", "%s %s", e.status, err.msg);
    free(ids);
    snprintf(sql, sizeof sql, "UPDATE experiment SET proc_id = '%s' WHERE id = %lld", dead, (long long)ex);
    set_sql(path, sql);
    CHECK(t, dg_store_experiment_get(s, ex, &e, &ids, &nids, &err) == 0 && !strcmp(e.status, "lost"),
          "an experiment whose process ended reads lost", "%s", e.status);
    free(ids);
    dg_store_close(s);
}

int main(void)
{
    struct dg_test t = {0};
    char path[] = "/tmp/dg-test-live.XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    procids(&t);
    checkpoints(&t, path);
    unlink(path);
    char side[sizeof path + 8];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return dg_test_done(&t);
}
