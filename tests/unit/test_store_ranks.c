/* test_store_ranks.c — the client processes (MPI ranks) of a run: their rows (src/results/
 * store_ranks.c, tables run_rank and run_rank_figure of schema 12) round-trip through
 * dg_store_put / dg_store_get field by field, a dead rank with no figures among them; a run of
 * one process stores no rows and reads back none; deleting a run deletes its rows; the text,
 * JSON and HTML of a run (src/report/ranks.c, htmlparts.c) and compare's line show the ranks and
 * the headline's spread over those that reported, and nothing of them for a run without.
 * Temporary files only. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/compare.h"
#include "report/html.h"
#include "report/summary.h"
#include "results/store.h"

#include "check.h"
#include "store_fixture.h"

static struct dg_figure fig(const char *name, const char *label, double v)
{
    struct dg_figure f = {.decimals = 0, .value = v};
    snprintf(f.name, sizeof f.name, "%s", name);
    snprintf(f.label, sizeof f.label, "%s", label);
    snprintf(f.unit, sizeof f.unit, "/min");
    return f;
}

/* A run without ranks: what every run of one process is. */
static void plain(struct dg_run_record *w)
{
    memset(w, 0, sizeof *w);
    snprintf(w->workload, sizeof w->workload, "tpcc");
    snprintf(w->status, sizeof w->status, "complete");
    snprintf(w->target, sizeof w->target, "sqlite:/tmp/x.db");
    w->vus = 6;
    w->measured_s = 10;
    w->nfigures = 2;
    w->figures[0] = fig("nopm", "NOPM", 2000);
    w->figures[1] = fig("tpm", "TPM", 4500);
}

/* Three ranks: 0 ok, 1 interrupted (a VU gave up), 2 dead (never reported: no figures). The
 * headline over the two that reported: 1,100 and 900, mean 1,000, +-10%. */
static int fixture(struct dg_run_record *w)
{
    plain(w);
    w->ranks = calloc(3, sizeof *w->ranks);
    if (!w->ranks)
        return -1;
    w->nranks = 3;
    w->ranks[0] = (struct dg_rank_summary){.rank = 0, .host = "alpha", .state = "ok", .vus = 2, .terminals = 20,
                                           .committed = 1000, .errors = 1, .measured_s = 10.0, .client_cpu_s = 0.5,
                                           .clock_offset_ms = 0, .start_offset_ms = 0, .p50_ms = 1.25,
                                           .p95_ms = 5.5, .p99_ms = 9.75, .nfigures = 2};
    w->ranks[0].figures[0] = fig("nopm", "NOPM", 1100);
    w->ranks[0].figures[1] = fig("tpm", "TPM", 2500);
    w->ranks[1] = (struct dg_rank_summary){.rank = 1, .host = "beta<&>", .state = "interrupted", .vus = 2,
                                           .terminals = 20, .workers_failed = 1, .committed = 900, .errors = 3,
                                           .measured_s = 9.5, .client_cpu_s = 0.25, .clock_offset_ms = 1.5,
                                           .start_offset_ms = -0.125, .p50_ms = 1.5, .p95_ms = 6.25,
                                           .p99_ms = 11.5, .nfigures = 2};
    w->ranks[1].figures[0] = fig("nopm", "NOPM", 900);
    w->ranks[1].figures[1] = fig("tpm", "TPM", 2000.25);
    /* rank 1's host, sampled by rank 1: two measured seconds, 30% + 10% and 50% + 10% */
    if (!(w->ranks[1].monitor = calloc(2, sizeof *w->ranks[1].monitor)))
        return -1;
    w->ranks[1].nmonitor = 2;
    for (int i = 0; i < 2; i++)
        w->ranks[1].monitor[i] = (struct dg_monitor_point){
            .second = i, .cpu_user_pct = 30 + 20 * i, .cpu_sys_pct = 10, .cpu_iowait_pct = 1, .disk_read_mb_s = -1,
            .disk_write_mb_s = -1, .disk_read_iops = -1, .disk_write_iops = -1, .disk_await_ms = -1,
            .server_rss_bytes = -1, .server_read_mb_s = -1, .server_write_mb_s = -1, .cache_hits_per_s = -1,
            .cache_misses_per_s = -1};
    w->ranks[2] = (struct dg_rank_summary){.rank = 2, .host = "gamma", .state = "dead", .vus = 2, .terminals = 20,
                                           .clock_offset_ms = -2.25};
    return 0;
}

static int same_fig(const struct dg_figure *a, const struct dg_figure *b)
{
    return !strcmp(a->name, b->name) && !strcmp(a->label, b->label) && !strcmp(a->unit, b->unit) &&
           a->decimals == b->decimals && a->value == b->value;
}

static int same_rank(const struct dg_rank_summary *a, const struct dg_rank_summary *b)
{
    int ok = a->rank == b->rank && !strcmp(a->host, b->host) && !strcmp(a->state, b->state) && a->vus == b->vus &&
             a->terminals == b->terminals && a->workers_failed == b->workers_failed && a->committed == b->committed &&
             a->errors == b->errors && a->measured_s == b->measured_s && a->client_cpu_s == b->client_cpu_s &&
             a->clock_offset_ms == b->clock_offset_ms && a->start_offset_ms == b->start_offset_ms &&
             a->p50_ms == b->p50_ms && a->p95_ms == b->p95_ms && a->p99_ms == b->p99_ms && a->nfigures == b->nfigures;
    for (int k = 0; ok && k < a->nfigures; k++)
        ok = same_fig(&a->figures[k], &b->figures[k]);
    ok = ok && a->nmonitor == b->nmonitor;
    for (size_t k = 0; ok && k < a->nmonitor; k++)
        ok = a->monitor[k].second == b->monitor[k].second && a->monitor[k].cpu_user_pct == b->monitor[k].cpu_user_pct &&
             a->monitor[k].cpu_sys_pct == b->monitor[k].cpu_sys_pct && a->monitor[k].disk_read_mb_s == -1;
    return ok;
}

static void run_text(FILE *out, struct dg_run_record *r) { dg_report_run_text(out, r); }
static void run_page(FILE *out, struct dg_run_record *r)
{
    struct dg_report_item it = {.kind = DG_ITEM_RUN, .id = r->id, .runs = r, .nruns = 1};
    dg_report_html(out, &it, 1);
}

/* What render writes of r, as a string the caller frees. */
static char *capture(void (*render)(FILE *, struct dg_run_record *), struct dg_run_record *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    render(f, r);
    fclose(f);
    return buf;
}

static void check_text(struct dg_test *t, struct dg_run_record *r)
{
    char *s = capture(run_text, r);
    CHECK(t, strstr(s, "\n  per rank (3 client processes, one measured window; percent from the plain mean of the 2 "
                       "that reported)\n"),
          "text: the per-rank table's title says 3 ranks, 2 reported", "%s", s);
    CHECK(t, strstr(s, "\n     0  alpha                ok               2/20       1000       1      1,100      2,500"
                       "   +10.0%     5.50     9.75    0.500     +0.000         -\n"),
          "text: rank 0's row (host, state, VUs/terminals, counts, NOPM, TPM, +-%, p95, p99, CPU, start ms)", "%s", s);
    CHECK(t, strstr(s, "\n     1  beta<&>              interrupted      2/20        900       3        900      2,000"
                       "   -10.0%     6.25    11.50    0.250     -0.125     50.0%  (1 VU gave up)\n"),
          "text: rank 1's row, interrupted, a VU that gave up, its host's mean CPU (user + system)", "%s", s);
    CHECK(t, strstr(s, "\n     2  gamma                dead             2/20          -       -          -          -"
                       "        -        -        -        -     +0.000         -\n"),
          "text: the dead rank's row measured nothing: dashes", "%s", s);
    CHECK(t, strstr(s, "\n  spread   NOPM mean 1,000, min 900 (rank 1, -10.0%), max 1,100 (rank 0, +10.0%): "
                       "fastest rank 0, slowest rank 1\n"),
          "text: the headline's spread over the ranks that reported, by rank number", "%s", s);
    free(s);
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(j) ? j->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *name)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(j) ? j->valuestring : "";
}

static void check_json(struct dg_test *t, const struct dg_run_record *r)
{
    cJSON *o = dg_report_run_json(r);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "ranks");
    const cJSON *r0 = cJSON_GetArrayItem(arr, 0), *r1 = cJSON_GetArrayItem(arr, 1), *r2 = cJSON_GetArrayItem(arr, 2);
    CHECK(t, cJSON_GetArraySize(arr) == 3 && num(r0, "rank") == 0 && !strcmp(str(r0, "host"), "alpha") &&
                 !strcmp(str(r0, "state"), "ok") && num(r0, "vus") == 2 && num(r0, "terminals") == 20 &&
                 num(r0, "committed") == 1000 && num(r0, "errors") == 1 && num(r0, "measured_s") == 10 &&
                 num(r0, "client_cpu_s") == 0.5 && num(r0, "clock_offset_ms") == 0 && num(r0, "start_offset_ms") == 0 &&
                 num(r0, "p50_ms") == 1.25 && num(r0, "p95_ms") == 5.5 && num(r0, "p99_ms") == 9.75 &&
                 num(cJSON_GetObjectItem(r0, "figures"), "nopm") == 1100 &&
                 num(cJSON_GetObjectItem(r0, "figures"), "tpm") == 2500 && num(r0, "pct_from_mean") == 10,
          "JSON: ranks[0] with every field and its figures", "%d ranks", cJSON_GetArraySize(arr));
    CHECK(t, !strcmp(str(r1, "host"), "beta<&>") && num(r1, "start_offset_ms") == -0.125 &&
                 num(r1, "clock_offset_ms") == 1.5 && num(r1, "workers_failed") == 1 &&
                 num(cJSON_GetObjectItem(r1, "figures"), "tpm") == 2000.25 && num(r1, "pct_from_mean") == -10,
          "JSON: ranks[1], offsets and figures as stored", "%s", str(r1, "host"));
    const cJSON *hm = cJSON_GetObjectItem(r1, "host_monitor"), *hm0 = cJSON_GetObjectItem(r0, "host_monitor");
    CHECK(t, num(hm, "samples") == 2 && num(hm, "cpu_user_pct") == 40 && num(hm, "cpu_sys_pct") == 10 &&
                 num(hm0, "samples") == 0 && cJSON_IsNull(cJSON_GetObjectItem(hm0, "cpu_user_pct")),
          "JSON: ranks[1]'s host as rank 1 sampled it (2 seconds, CPU means); rank 0 had no monitor", "%s",
          hm ? "host_monitor" : "no host_monitor");
    CHECK(t, !strcmp(str(r2, "state"), "dead") && cJSON_GetArraySize(cJSON_GetObjectItem(r2, "figures")) == 0 &&
                 cJSON_IsNull(cJSON_GetObjectItem(r2, "pct_from_mean")) && num(r2, "clock_offset_ms") == -2.25,
          "JSON: the dead rank has no figures and no percent from the mean (null)", "%s", str(r2, "state"));
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(o, "ranks_spread"), *h = cJSON_GetObjectItem(sp, "nopm");
    CHECK(t, !strcmp(str(sp, "mean_of"), "ranks") && num(sp, "counted") == 2 && num(h, "mean") == 1000 &&
                 num(h, "min") == 900 && num(h, "max") == 1100 && num(h, "min_rank") == 1 && num(h, "max_rank") == 0 &&
                 num(h, "min_pct_from_mean") == -10 && num(h, "max_pct_from_mean") == 10 && num(sp, "fastest") == 0 &&
                 num(sp, "slowest") == 1 && !cJSON_GetObjectItem(o, "spread"),
          "JSON: ranks_spread of the headline over the 2 that reported (no targets' spread)", "%g", num(sp, "counted"));
    cJSON_Delete(o);
}

static void check_html(struct dg_test *t, struct dg_run_record *r)
{
    char *s = capture(run_page, r);
    CHECK(t, strstr(s, "<h3>per rank (3 client processes, one measured window)</h3><table class=\"data ranks\">") &&
                 strstr(s, "<tr data-rank=\"0\" data-state=\"ok\">") && strstr(s, "<td class=\"code\">beta&lt;&amp;&gt;</td>"),
          "HTML: the per-rank table, a row per rank, hosts escaped", "%zu bytes", strlen(s));
    CHECK(t, strstr(s, "<tr data-rank=\"2\" data-state=\"dead\"><td class=\"n\" data-v=\"2\">2</td><td class=\"code\">"
                       "gamma</td><td>dead</td><td class=\"n\" data-v=\"2\">2</td><td class=\"n\" data-v=\"20\">20</td>"
                       "<td></td><td></td><td></td><td></td><td></td>"),
          "HTML: the dead rank's measured cells are empty", "-");
    CHECK(t, strstr(s, "<th>min rank</th>") && strstr(s, "<tr data-spread=\"nopm\"><td>NOPM</td>") &&
                 strstr(s, "fastest: rank 0 (+10.0% from the mean NOPM); slowest: rank 1 (-10.0%)."),
          "HTML: the spread over the ranks, by rank number", "-");
    free(s);
}

/* compare: a line for the side with ranks, none for the side without. */
static void check_compare(struct dg_test *t, struct dg_run_record *ranked, struct dg_run_record *one)
{
    struct dg_report_item it[2] = {{.kind = DG_ITEM_RUN, .id = ranked->id, .runs = ranked, .nruns = 1},
                                   {.kind = DG_ITEM_RUN, .id = one->id, .runs = one, .nruns = 1}};
    struct dg_compare c;
    struct dg_err err = {0};
    char *buf = NULL;
    size_t len = 0;
    if (dg_compare_build(&c, it, 2, &err)) {
        CHECK(t, 0, "compare builds", "%s", err.msg);
        return;
    }
    FILE *f = open_memstream(&buf, &len);
    dg_compare_text(f, &c);
    fclose(f);
    char want[256];
    snprintf(want, sizeof want, "\nranks of run %lld: 3 ranks, 1 without figures; NOPM mean 1,000, min 900 (rank 1, "
             "-10.0%%), max 1,100 (rank 0, +10.0%%): fastest rank 0, slowest rank 1\n", (long long)ranked->id);
    const char *at = strstr(buf, want);
    CHECK(t, at && !strstr(at + strlen(want), "ranks of"), "compare: one line for the ranked run, none for the other", "%s", buf);
    dg_compare_free(&c);
    free(buf);
}

/* The same run without ranks renders nothing of them. */
static void check_none_shown(struct dg_test *t, struct dg_run_record *r)
{
    char *s = capture(run_text, r), *h = capture(run_page, r);
    cJSON *o = dg_report_run_json(r);
    CHECK(t, !strstr(s, "per rank") && !strstr(h, "per rank") && !strstr(h, "data-rank") &&
                 !cJSON_GetObjectItem(o, "ranks") && !cJSON_GetObjectItem(o, "ranks_spread"),
          "a run of one process: no per-rank table in text or HTML, no ranks in JSON", "-");
    cJSON_Delete(o);
    free(s);
    free(h);
}

static void read_back(struct dg_test *t, struct dg_store *s, const struct dg_run_record *w, struct dg_run_record *r)
{
    struct dg_err err = {0};
    if (dg_store_get(s, w->id, 0, r, &err)) {
        CHECK(t, 0, "the run reads back", "%s", err.msg);
        memset(r, 0, sizeof *r);
        return;
    }
    int ok = r->nranks == w->nranks && r->ranks;
    for (int k = 0; ok && k < w->nranks; k++)
        ok = same_rank(&r->ranks[k], &w->ranks[k]);
    CHECK(t, ok, "every rank comes back in rank order, every field and figure (the dead one without)",
          "%d of %d", r->nranks, w->nranks);
}

static void round_trip(struct dg_test *t, const char *path)
{
    struct dg_err err = {0};
    struct dg_store *s = dg_test_new_store(t, path);
    if (!s)
        return;
    CHECK(t, dg_test_file_num(path, "PRAGMA user_version") == DG_STORE_SCHEMA_VERSION && DG_STORE_SCHEMA_VERSION >= 12,
          "a new file is at this schema (12 or later)",
          "%g", dg_test_file_num(path, "PRAGMA user_version"));
    struct dg_run_record w, r, p, q;
    if (fixture(&w)) {
        CHECK(t, 0, "the fixture", "out of memory");
        dg_store_close(s);
        return;
    }
    CHECK(t, dg_store_put(s, &w, &err) == 0, "a run with 3 ranks is stored", "%s", err.msg);
    CHECK(t, dg_test_file_num(path, "SELECT COUNT(*) FROM run_rank") == 3 &&
                 dg_test_file_num(path, "SELECT COUNT(*) FROM run_rank_figure") == 4 &&
                 dg_test_file_num(path, "SELECT COUNT(*) FROM run_rank_figure WHERE rank = 2") == 0,
          "3 run_rank rows, 2 figures each for the 2 that reported, none for the dead one", "%g rows, %g figures",
          dg_test_file_num(path, "SELECT COUNT(*) FROM run_rank"),
          dg_test_file_num(path, "SELECT COUNT(*) FROM run_rank_figure"));
    read_back(t, s, &w, &r);
    check_text(t, &r);
    check_json(t, &r);
    check_html(t, &r);
    plain(&p);
    CHECK(t, dg_store_put(s, &p, &err) == 0, "a run of one process is stored", "%s", err.msg);
    CHECK(t, dg_test_file_num(path, "SELECT COUNT(*) FROM run_rank") == 3 &&
                 dg_test_file_num(path, "SELECT COUNT(*) FROM run_rank_figure") == 4,
          "it adds no rank rows", "%g", dg_test_file_num(path, "SELECT COUNT(*) FROM run_rank"));
    if (dg_store_get(s, p.id, 0, &q, &err) == 0) {
        CHECK(t, q.nranks == 0 && q.ranks == NULL, "it reads back with nranks 0", "%d", q.nranks);
        check_none_shown(t, &q);
        check_compare(t, &r, &q);
        dg_run_record_free(&q);
    } else {
        CHECK(t, 0, "the run of one process reads back", "%s", err.msg);
    }
    dg_run_record_free(&r);
    CHECK(t, r.ranks == NULL && r.nranks == 0, "dg_run_record_free frees the ranks", "%d", r.nranks);
    dg_store_close(s);
    char sql[160];
    snprintf(sql, sizeof sql, "PRAGMA foreign_keys=ON; DELETE FROM run WHERE id = %lld", (long long)w.id);
    sqlite3 *db;
    sqlite3_open(path, &db);
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    CHECK(t, rc == SQLITE_OK && dg_test_file_num(path, "SELECT COUNT(*) FROM run_rank") == 0 &&
                 dg_test_file_num(path, "SELECT COUNT(*) FROM run_rank_figure") == 0,
          "deleting the run deletes its ranks and their figures", "%g",
          dg_test_file_num(path, "SELECT COUNT(*) FROM run_rank"));
    dg_run_record_free(&w);
}

int main(void)
{
    struct dg_test t = {0};
    char path[] = "/tmp/dg-test-ranks.XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    round_trip(&t, path);
    unlink(path);
    return dg_test_done(&t);
}
