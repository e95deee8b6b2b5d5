/* test_store_faults.c — the results database's schema 10 (src/results/store_faults.c): a run
 * with faults, outages, acknowledged writes, in-doubt errors, an open-loop schedule and
 * reconnects per second round-trips through dg_store_put / dg_store_get / dg_store_get_acks
 * field by field; a schema-9 file (the schema-8 fixture taken through migration 9) migrates
 * and its runs read as "not recorded". Temporary files only; never the user's results database.
 *   test_store_faults [--acks N]: also times dg_store_put of a run with N acks (the figure
 *   docs/results.md quotes) */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "results/store.h"
#include "results/store_internal.h"

#include "check.h"
#include "faults_fixture.h"
#include "store_fixture.h"

static int same_fault(const struct dg_fault_event *a, const struct dg_fault_event *b)
{
    return a->offset_s == b->offset_s && a->start_s == b->start_s && a->end_s == b->end_s &&
           a->exit_status == b->exit_status && !strcmp(a->command, b->command);
}

static int same_outage(const struct dg_outage *a, const struct dg_outage *b)
{
    return a->target == b->target && a->start_s == b->start_s && a->duration_s == b->duration_s &&
           a->first_commit_s == b->first_commit_s && a->recovery_s == b->recovery_s && a->errors == b->errors &&
           a->reconnects == b->reconnects && !strcmp(a->back_on, b->back_on);
}

static int same_ack(const struct dg_ack *a, const struct dg_ack *b)
{
    return a->t_ms == b->t_ms && a->amount == b->amount && a->k[0] == b->k[0] && a->k[1] == b->k[1] &&
           a->k[2] == b->k[2] && a->count == b->count && a->kind == b->kind && a->in_doubt == b->in_doubt &&
           a->target == b->target;
}

static void check_record(struct dg_test *t, const struct dg_run_record *w, const struct dg_run_record *r)
{
    int ok = r->nfaults == w->nfaults;
    for (int k = 0; ok && k < w->nfaults; k++)
        ok = same_fault(&r->faults[k], &w->faults[k]);
    CHECK(t, ok, "faults come back in order, every field (a running one's end and a redacted command too)",
          "%d faults", r->nfaults);
    ok = r->noutages == w->noutages;
    for (int k = 0; ok && k < w->noutages; k++)
        ok = same_outage(&r->outages[k], &w->outages[k]);
    CHECK(t, ok, "outages come back in order, every field ('never' as -1, a warm-up start negative)",
          "%d outages", r->noutages);
    CHECK(t, r->schedule_known == 1 && r->arrivals == w->arrivals && r->late == w->late && r->skipped == w->skipped,
          "the schedule comes back, known", "%d %llu %llu %llu", r->schedule_known, (unsigned long long)r->arrivals,
          (unsigned long long)r->late, (unsigned long long)r->skipped);
    ok = r->ntypes == w->ntypes;
    for (int k = 0; ok && k < w->ntypes; k++)
        ok = r->txn[k].in_doubt == w->txn[k].in_doubt && r->txn[k].in_doubt_known && r->txn[k].errors == w->txn[k].errors;
    CHECK(t, ok, "each type's in-doubt errors come back, known", "%d types", r->ntypes);
    ok = r->ntargets == w->ntargets;
    for (int k = 0; ok && k < w->ntargets; k++)
        ok = r->targets[k].txn[0].in_doubt == w->targets[k].txn[0].in_doubt && r->targets[k].txn[0].in_doubt_known;
    CHECK(t, ok, "each target's types keep their in-doubt errors (run_target_txn)", "%d targets", r->ntargets);
    ok = r->ntypes == w->ntypes;
    for (int k = 0; ok && k < w->ntypes; k++)
        ok = r->txn[k].error_causes_known && !memcmp(r->txn[k].error_causes, w->txn[k].error_causes, sizeof w->txn[k].error_causes);
    CHECK(t, ok, "each type's errors by cause come back, known", "%d types", r->ntypes);
    ok = r->ntargets == 2 && r->targets[0].txn[0].error_causes_known &&
         r->targets[0].txn[0].error_causes[DG_ERROR_TOO_MANY_CONNECTIONS] == 60 && !r->targets[1].txn[0].error_causes_known &&
         r->targets[1].txn[0].error_causes[DG_ERROR_TOO_MANY_CONNECTIONS] == 0;
    CHECK(t, ok, "a target's errors by cause come back; one that did not know them reads back not known, no counts",
          "%d targets", r->ntargets);
    ok = r->nseries == w->nseries;
    for (size_t k = 0; ok && k < w->nseries; k++)
        ok = r->series[k].second == w->series[k].second && r->series[k].reconnects == w->series[k].reconnects &&
             r->series[k].t[1].c.errors == w->series[k].t[1].c.errors;
    CHECK(t, ok, "reconnects per second come back with the series (warm-up seconds too)", "%zu seconds", r->nseries);
    CHECK(t, r->acks == NULL && r->nacks == 0, "dg_store_get leaves the acks to dg_store_get_acks", "%zu", r->nacks);
}

static void round_trip(struct dg_test *t, const char *path)
{
    struct dg_err err = {0};
    struct dg_store *s = dg_test_new_store(t, path);
    if (!s)
        return;
    struct dg_run_record w;
    if (dg_faults_fixture(&w, 2000)) {
        CHECK(t, 0, "the fixture is made", "out of memory");
        dg_store_close(s);
        return;
    }
    int rc = dg_store_put(s, &w, &err);
    CHECK(t, rc == 0, "a run with faults, outages, 2,000 acks, in-doubt errors and reconnects is stored", "%s", err.msg);
    struct dg_run_record r;
    if (rc == 0 && dg_store_get(s, w.id, 1, &r, &err) == 0) {
        check_record(t, &w, &r);
        dg_run_record_free(&r);
    } else {
        CHECK(t, 0, "the run reads back", "%s", err.msg);
    }
    struct dg_ack *acks = NULL;
    size_t n = 0;
    rc = dg_store_get_acks(s, w.id, &acks, &n, &err);
    int ok = rc == 0 && n == w.nacks;
    for (size_t k = 0; ok && k < n; k++)
        ok = same_ack(&acks[k], &w.acks[k]);
    CHECK(t, ok, "dg_store_get_acks gives every ack back in order, every field (full-range keys, negative times)",
          "rc %d, %zu of %zu", rc, n, w.nacks);
    free(acks);
    CHECK(t, dg_store_get_acks(s, 999, &acks, &n, &err) == 1 && !acks && !n, "dg_store_get_acks of no such run: 1",
          "%zu", n);
    dg_run_record_free(&w);
    /* a run with none of it: no rows, empty arrays, a known empty schedule */
    struct dg_run_record e;
    memset(&e, 0, sizeof e);
    snprintf(e.workload, sizeof e.workload, "oltp");
    snprintf(e.status, sizeof e.status, "complete");
    rc = dg_store_put(s, &e, &err);
    if (rc == 0 && dg_store_get(s, e.id, 0, &r, &err) == 0) {
        CHECK(t, !r.faults && !r.nfaults && !r.outages && !r.noutages && r.schedule_known && !r.arrivals,
              "a run without faults or outages reads back with none, its (empty) schedule known", "%d %d", r.nfaults,
              r.noutages);
        dg_run_record_free(&r);
    }
    CHECK(t, dg_store_get_acks(s, e.id, &acks, &n, &err) == 0 && !acks && !n, "a run without acks: 0 and none",
          "%zu", n);
    dg_store_close(s);
}

/* The schema-8 dump taken through migration 9 as the schema-9 binary did. */
static int make_schema9(const char *path)
{
    char more[8192];
    snprintf(more, sizeof more, "%s;PRAGMA user_version=9;", dg_store_migration_figures);
    return dg_test_load_schema8(path, more);
}

static void migration(struct dg_test *t, const char *path)
{
    struct dg_store *s = NULL;
    struct dg_err err = {0};
    unlink(path);
    CHECK(t, make_schema9(path) == 0, "a schema-9 file is made from the schema-8 fixture", "%s", DG_FIXTURES);
    CHECK(t, dg_store_open(path, &s, &err) == 0, "a schema-9 file opens (migrates to the current schema)", "%s", err.msg);
    if (!s)
        return;
    sqlite3 *db;
    sqlite3_open(path, &db);
    CHECK(t, dg_test_sql_num(db, "PRAGMA user_version") == DG_STORE_SCHEMA_VERSION, "it is at the current schema", "%g", dg_test_sql_num(db, "PRAGMA user_version"));
    CHECK(t, dg_test_sql_num(db, "SELECT COUNT(*) FROM run_fault") + dg_test_sql_num(db, "SELECT COUNT(*) FROM run_outage") +
                     dg_test_sql_num(db, "SELECT COUNT(*) FROM run_ack") == 0,
          "run_fault, run_outage and run_ack exist, empty", "%g", dg_test_sql_num(db, "SELECT COUNT(*) FROM run_ack"));
    CHECK(t, isnan(dg_test_sql_num(db, "SELECT MAX(in_doubt) FROM run_txn")) && isnan(dg_test_sql_num(db, "SELECT MAX(arrivals) FROM run")) &&
                 isnan(dg_test_sql_num(db, "SELECT MAX(reconnects) FROM run_series")) &&
                 isnan(dg_test_sql_num(db, "SELECT MAX(errors_timeout) FROM run_target_txn")),
          "older runs' new columns are NULL (not recorded), not 0", "%g", dg_test_sql_num(db, "SELECT MAX(in_doubt) FROM run_txn"));
    sqlite3_close(db);
    struct dg_run_record r;
    /* run 4 is the fixture's --rate run; run 5 has two targets; run 1 a series */
    int ok = dg_store_get(s, 4, 1, &r, &err) == 0;
    CHECK(t, ok && !strcmp(r.load_model, "rate") && !r.schedule_known && !r.arrivals && !r.nfaults && !r.noutages &&
                 !r.txn[0].in_doubt_known && !r.txn[0].error_causes_known,
          "an old --rate run: schedule and in-doubt not known, no faults or outages", "%s", ok ? r.load_model : err.msg);
    if (ok)
        dg_run_record_free(&r);
    ok = dg_store_get(s, 5, 0, &r, &err) == 0;
    CHECK(t, ok && r.ntargets == 2 && !r.targets[1].txn[0].in_doubt_known && !r.targets[1].txn[0].error_causes_known,
          "an old two-target run reads back",
          "%s", err.msg);
    if (ok)
        dg_run_record_free(&r);
    struct dg_ack *acks = NULL;
    size_t n = 1;
    CHECK(t, dg_store_get_acks(s, 1, &acks, &n, &err) == 0 && !acks && !n, "an old run has no acks", "%zu", n);
    dg_store_close(s);
}

/* Times dg_store_put of one run with n acks (and nothing else worth the time). */
static void time_acks(struct dg_test *t, const char *path, size_t n)
{
    struct dg_err err = {0};
    struct dg_store *s = dg_test_new_store(t, path);
    if (!s)
        return;
    struct dg_run_record w;
    if (dg_faults_fixture(&w, n)) {
        fprintf(stderr, "out of memory\n");
        dg_store_close(s);
        return;
    }
    struct timespec a, b, ca, cb;
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
    int rc = dg_store_put(s, &w, &err);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double sec = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    double cpu = (double)(cb.tv_sec - ca.tv_sec) + (double)(cb.tv_nsec - ca.tv_nsec) / 1e9;
    printf("# dg_store_put of a run with %zu acks: %s in %.3f s (%.3f s CPU), %.0f acks/s\n", n,
           rc ? err.msg : "stored", sec, cpu, (double)n / sec);
    dg_run_record_free(&w);
    dg_store_close(s);
}

int main(int argc, char **argv)
{
    struct dg_test t = {0};
    char path[] = "/tmp/dg-test-faults.XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    round_trip(&t, path);
    migration(&t, path);
    if (argc == 3 && !strcmp(argv[1], "--acks"))
        time_acks(&t, path, (size_t)strtoull(argv[2], NULL, 10));
    unlink(path);
    return dg_test_done(&t);
}
