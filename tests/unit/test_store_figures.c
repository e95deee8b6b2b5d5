/* test_store_figures.c — the results database's headline figures (schema 9): the migration of
 * the schema-8 fixture (tests/fixtures/results-schema8.sql) derives every older run's figures
 * from its old columns, and a run's figures (and its targets') round-trip through
 * dg_store_put / dg_store_get / dg_store_list with the old columns still written. Temporary
 * files only; never the user's results database. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/store.h"

#include "check.h"
#include "store_fixture.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)); }

/* The value of figure name in figs[0..n), NAN when none. */
static double fig(const struct dg_figure *f, int n, const char *name)
{
    const struct dg_figure *x = dg_figure_find(f, n, name);
    return x ? x->value : NAN;
}

struct listed {
    int n, stress_with_mb;
};

static int on_run(void *ctx, const struct dg_run_record *r)
{
    struct listed *l = ctx;
    l->n++;
    l->stress_with_mb += !strcmp(r->workload, "stress") && r->nfigures == 4 && !strcmp(r->figures[0].name, "mb_per_s");
    return 0;
}

static void migration(struct dg_test *t, const char *path)
{
    struct dg_store *s = NULL;
    struct dg_err err = {0};
    CHECK(t, dg_test_load_schema8(path, NULL) == 0, "the schema-8 fixture loads", "%s", DG_FIXTURES);
    CHECK(t, dg_store_open(path, &s, &err) == 0, "a schema-8 file opens (migrates to this binary's schema)", "%s", err.msg);
    if (!s)
        return;
    sqlite3 *db;
    sqlite3_open(path, &db);
    CHECK(t, dg_test_sql_num(db, "PRAGMA user_version") == DG_STORE_SCHEMA_VERSION, "it is at this binary's schema", "%g",
          dg_test_sql_num(db, "PRAGMA user_version"));
    struct dg_run_record r;
    /* run 1: TPC-C closed loop; NOPM and TPM as its old columns held them */
    if (dg_store_get(s, 1, 0, &r, &err) == 0) {
        CHECK(t, r.nfigures == 2 && !strcmp(r.figures[0].name, "nopm") && !strcmp(r.figures[0].label, "NOPM") &&
                     !strcmp(r.figures[0].unit, "/min") && r.figures[0].decimals == 0 &&
                     !strcmp(r.figures[1].name, "tpm"),
              "tpcc: NOPM then TPM, named, labelled and with units as the workload's table says", "%d figures",
              r.nfigures);
        CHECK(t, near(fig(r.figures, r.nfigures, "nopm"), dg_test_sql_num(db, "SELECT nopm FROM run WHERE id = 1")) &&
                     near(fig(r.figures, r.nfigures, "tpm"), dg_test_sql_num(db, "SELECT tpm FROM run WHERE id = 1")),
              "tpcc: the values are the old columns'", "%g", fig(r.figures, r.nfigures, "nopm"));
        dg_run_record_free(&r);
    }
    /* run 2: scaled think times (no tpmC); run 3: the standard's times (tpmC 10) */
    if (dg_store_get(s, 2, 0, &r, &err) == 0) {
        CHECK(t, r.nfigures == 2 && isnan(fig(r.figures, r.nfigures, "tpmc")), "scaled think times: no tpmC",
              "%d", r.nfigures);
        dg_run_record_free(&r);
    }
    if (dg_store_get(s, 3, 0, &r, &err) == 0) {
        CHECK(t, r.nfigures == 3 && !strcmp(r.figures[2].label, "tpmC") && near(r.figures[2].value, 10),
              "standard think times: tpmC third, as stored", "%d %g", r.nfigures, fig(r.figures, r.nfigures, "tpmc"));
        dg_run_record_free(&r);
    }
    /* run 5: two targets, each with its NOPM and TPM */
    if (dg_store_get(s, 5, 0, &r, &err) == 0) {
        int ok = r.ntargets == 2;
        for (int k = 0; ok && k < 2; k++) {
            char q[128];
            snprintf(q, sizeof q, "SELECT nopm FROM run_target WHERE run_id = 5 AND idx = %d", k);
            ok = r.targets[k].nfigures == 2 && near(fig(r.targets[k].figures, 2, "nopm"), dg_test_sql_num(db, q));
        }
        CHECK(t, ok && r.nfigures == 2, "two targets: each target's NOPM and TPM from run_target", "%d", r.ntargets);
        dg_run_record_free(&r);
    }
    /* run 6: stress; MB/s, rows/s, iterations/s and run time from bytes, rows, counts, seconds */
    if (dg_store_get(s, 6, 0, &r, &err) == 0) {
        double mb = (double)r.bytes / 1e6 / r.measured_s, rows = (double)r.rows / r.measured_s;
        double it = (double)(r.txn[0].committed + r.txn[0].rollbacks) / r.measured_s;
        CHECK(t, r.nfigures == 4 && !strcmp(r.figures[0].name, "mb_per_s") && r.figures[0].decimals == 2 &&
                     near(r.figures[0].value, mb) && near(fig(r.figures, 4, "rows_per_s"), rows) &&
                     near(fig(r.figures, 4, "iterations_per_s"), it) &&
                     near(fig(r.figures, 4, "run_time_s"), r.measured_s),
              "stress: MB/s first, then rows/s, iterations/s and run time, computed as before", "%d %g", r.nfigures,
              r.nfigures ? r.figures[0].value : NAN);
        dg_run_record_free(&r);
    }
    struct listed l = {0};
    CHECK(t, dg_store_list(s, on_run, &l, &err) == 0 && l.n == 15 && l.stress_with_mb == 5,
          "dg_store_list reads the figures too (15 runs, 5 stress runs with MB/s first)", "%d %d", l.n,
          l.stress_with_mb);
    sqlite3_close(db);
    dg_store_close(s);
}

static void round_trip(struct dg_test *t, const char *path)
{
    struct dg_err err = {0};
    struct dg_store *s = dg_test_new_store(t, path);
    if (!s)
        return;
    struct dg_run_record w;
    memset(&w, 0, sizeof w);
    snprintf(w.workload, sizeof w.workload, "oltp");
    snprintf(w.status, sizeof w.status, "complete");
    w.measured_s = 10;
    const struct dg_figure put[] = {{"tps", "TPS", "/s", 1, 1234.5}, {"qps", "QPS", "/s", 0, 24690}, {"nopm", "NOPM", "/min", 0, 7}};
    w.nfigures = 3;
    memcpy(w.figures, put, sizeof put);
    struct dg_target_summary tg[2];
    memset(tg, 0, sizeof tg);
    for (int k = 0; k < 2; k++) {
        tg[k].idx = k;
        tg[k].nfigures = 1;
        tg[k].figures[0] = (struct dg_figure){"tps", "TPS", "/s", 1, 600.0 + k};
    }
    w.targets = tg;
    w.ntargets = 2;
    int rc = dg_store_put(s, &w, &err);
    w.targets = NULL; /* the caller's array, not the record's to free */
    CHECK(t, rc == 0, "a run with 3 figures and 2 targets is stored", "%s", err.msg);
    struct dg_run_record r;
    if (rc == 0 && dg_store_get(s, w.id, 0, &r, &err) == 0) {
        int same = r.nfigures == 3;
        for (int k = 0; same && k < 3; k++)
            same = !strcmp(r.figures[k].name, put[k].name) && !strcmp(r.figures[k].label, put[k].label) &&
                   !strcmp(r.figures[k].unit, put[k].unit) && r.figures[k].decimals == put[k].decimals &&
                   r.figures[k].value == put[k].value;
        CHECK(t, same, "the figures come back in order: name, label, unit, decimals, value exactly", "%d",
              r.nfigures);
        CHECK(t, r.ntargets == 2 && r.targets[0].nfigures == 1 && r.targets[1].figures[0].value == 601.0,
              "each target's figures come back with it", "%d", r.ntargets);
        dg_run_record_free(&r);
    }
    sqlite3 *db;
    char q[128];
    sqlite3_open(path, &db);
    snprintf(q, sizeof q, "SELECT nopm FROM run WHERE id = %lld", (long long)w.id);
    double nopm = dg_test_sql_num(db, q);
    snprintf(q, sizeof q, "SELECT COALESCE(tpm, -1) FROM run WHERE id = %lld", (long long)w.id);
    CHECK(t, nopm == 7 && dg_test_sql_num(db, q) == -1,
          "the old columns are still written from the figures of their names (NULL where none)", "%g", nopm);
    sqlite3_close(db);
    dg_store_close(s);
}

int main(void)
{
    struct dg_test t = {0};
    char path[] = "/tmp/dg-test-figures.XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    unlink(path);
    migration(&t, path);
    round_trip(&t, path);
    unlink(path);
    return dg_test_done(&t);
}
