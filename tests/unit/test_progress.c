/* test_progress.c — unit tests of the progress lines (core/progress.c) from made-up ticks: the
 * view each --progress mode gives, phase names, elapsed/total/ETA of timed and counted runs,
 * the figures of the last 10 s, outages, the experiment's step, cutting to the width, the
 * plain line every 10 s in its old format, and the load's line. No terminal needed. */
#include <string.h>

#include "core/progress.h"
#include "core/workload.h"
#include "check.h"

/* A tick at clock second `at` of one second in which New-Order (type 0) committed `no`. */
static struct dg_tick tick_at(enum dg_phase ph, double at, uint64_t no, uint64_t total_no)
{
    struct dg_tick t = {.phase = ph, .clock_s = at, .elapsed_s = at, .interval_s = 1, .ntypes = 5};
    t.interval[0].committed = no;
    t.total[0].committed = total_no;
    return t;
}

static int has_ctl(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 && *s != '\n')
            return 1;
    return 0;
}

static void views(struct dg_test *t)
{
    CHECK(t, dg_progress_view_of(DG_PROGRESS_AUTO, 0, 1) == DG_VIEW_STATUS, "auto on a tty: the status line", "no");
    CHECK(t, dg_progress_view_of(DG_PROGRESS_AUTO, 0, 0) == DG_VIEW_PLAIN, "auto elsewhere: plain lines", "no");
    CHECK(t, dg_progress_view_of(DG_PROGRESS_LINE, 0, 1) == DG_VIEW_PLAIN, "line on a tty: plain lines", "no");
    CHECK(t, dg_progress_view_of(DG_PROGRESS_NONE, 0, 1) == DG_VIEW_NONE, "none: nothing", "no");
    CHECK(t, dg_progress_view_of(DG_PROGRESS_AUTO, 1, 1) == DG_VIEW_NONE, "--quiet: nothing", "no");
    char b[32];
    dg_progress_secs(12.4, b, sizeof b);
    CHECK(t, !strcmp(b, "12s"), "seconds: 12s", "%s", b);
    dg_progress_secs(65, b, sizeof b);
    CHECK(t, !strcmp(b, "1m05s"), "seconds: 1m05s", "%s", b);
    dg_progress_secs(7380, b, sizeof b);
    CHECK(t, !strcmp(b, "2h03m"), "seconds: 2h03m", "%s", b);
    dg_progress_secs(-3, b, sizeof b);
    CHECK(t, !strcmp(b, "0s"), "seconds: never below 0", "%s", b);
}

static void timed(struct dg_test *t, const struct dg_workload *tpcc)
{
    struct dg_progress p = {.view = DG_VIEW_STATUS, .figs = tpcc->figures, .nfigs = tpcc->nfigures, .total_s = 60};
    char b[512];
    struct dg_tick c = {.phase = DG_PHASE_CONNECT, .ntypes = 5};
    dg_progress_status(&p, &c, 200, b, sizeof b);
    CHECK(t, !strncmp(b, "connect 0s/1m00s ETA ?", 22), "connect: its name, no ETA yet", "'%s'", b);
    /* 5 s of warm-up at 100 New-Orders a second, then 10 s measured at 10 a second. */
    struct dg_tick k;
    uint64_t total = 0;
    for (int s = 1; s <= 15; s++) {
        total += s <= 5 ? 100 : 10;
        k = tick_at(s <= 5 ? DG_PHASE_WARMUP : DG_PHASE_MEASURE, s, s <= 5 ? 100 : 10, total);
        dg_progress_take(&p, &k);
        if (s == 3) {
            dg_progress_status(&p, &k, 200, b, sizeof b);
            CHECK(t, !strncmp(b, "warm-up 3s/1m00s ETA 57s |", 26), "warm-up: name, elapsed, total, ETA", "'%s'", b);
        }
    }
    dg_progress_status(&p, &k, 200, b, sizeof b);
    CHECK(t, !strncmp(b, "measure 15s/1m00s ETA 45s |", 27), "measure: name, elapsed, total, ETA", "'%s'", b);
    CHECK(t, strstr(b, "| NOPM 600 TPM 600 |") != NULL, "the figures cover the last 10 s only", "'%s'", b);
    CHECK(t, strstr(b, "errors 0 retries 0 | outages 0") != NULL && !has_ctl(b), "errors, retries, outages; no "
          "control character", "'%s'", b);
    k.phase = DG_PHASE_DONE;
    k.clock_s = 60.2;
    k.outages = 2;
    k.outage_open = 1;
    snprintf(p.step, sizeof p.step, "step 3/7");
    size_t n = dg_progress_status(&p, &k, 200, b, sizeof b);
    CHECK(t, !strncmp(b, "step 3/7 stop    1m00s/1m00s ETA 0s", 35), "stop, the step named first", "'%s'", b);
    CHECK(t, strstr(b, "outages 2 (one open)") != NULL, "outages counted, an open one said", "'%s'", b);
    CHECK(t, n == strlen(b) && n < 199, "a wide terminal: the whole line", "%zu", n);
    n = dg_progress_status(&p, &k, 40, b, sizeof b);
    CHECK(t, n == 39 && strlen(b) == 39 && !strncmp(b, "step 3/7 stop", 13), "40 columns: cut to 39, never wrapped",
          "%zu '%s'", n, b);
    n = dg_progress_status(&p, &k, 1, b, sizeof b);
    CHECK(t, n == 0 && !b[0], "1 column: nothing", "%zu", n);
}

static void counted(struct dg_test *t, const struct dg_workload *tpcc)
{
    struct dg_progress p = {.view = DG_VIEW_STATUS, .figs = tpcc->figures, .nfigs = tpcc->nfigures, .txns_total = 1000};
    char b[512];
    struct dg_tick k = tick_at(DG_PHASE_MEASURE, 10, 25, 0);
    dg_progress_status(&p, &k, 200, b, sizeof b);
    CHECK(t, !strncmp(b, "measure 10s/? ETA ? |", 21), "counted, none done: no ETA", "'%s'", b);
    k.total[1].committed = 200; /* 250 of 1000 in 10 s: 30 s more, 40 in all */
    k.total[0].committed = 50;
    dg_progress_status(&p, &k, 200, b, sizeof b);
    CHECK(t, !strncmp(b, "measure 10s/40s ETA 30s 25% |", 29), "counted: ETA from the share done", "'%s'", b);
}

static void plain(struct dg_test *t, const struct dg_workload *tpcc)
{
    struct dg_progress p = {.view = DG_VIEW_PLAIN, .figs = tpcc->figures, .nfigs = tpcc->nfigures, .total_s = 60};
    char b[512];
    int lines = 0, at10 = 0, at20 = 0;
    for (int s = 1; s <= 20; s++) {
        struct dg_tick k = tick_at(DG_PHASE_MEASURE, s + 0.001, 10, 10 * (uint64_t)s);
        k.elapsed_s = s - 1; /* the final seconds lag the clock */
        dg_progress_take(&p, &k);
        if (dg_progress_plain(&p, &k, b, sizeof b)) {
            lines++;
            at10 |= s == 10 && !strcmp(b, "[     9s] measure  NOPM       600  TPM       600  retries 0  errors 0\n");
            at20 |= s == 20;
        }
        if (s == 10 && !at10)
            CHECK(t, 0, "the plain line at 10 s", "'%s'", b);
    }
    CHECK(t, lines == 2 && at10 && at20, "a plain line every 10 s, in the old format", "%d lines", lines);
    struct dg_tick d = tick_at(DG_PHASE_DONE, 30.5, 10, 200);
    dg_progress_take(&p, &d);
    CHECK(t, !dg_progress_plain(&p, &d, b, sizeof b), "no plain line at the stop", "'%s'", b);
}

static void load(struct dg_test *t)
{
    char b[512];
    struct dg_load_tick l = {.unit = "warehouses", .done = 1, .of = 4, .rows = 500000, .bytes = 80000000,
                             .elapsed_s = 10, .eta_s = 30};
    dg_progress_load_status(&l, 200, b, sizeof b);
    CHECK(t, !strcmp(b, "load    10s ETA 30s | 1/4 warehouses | 500000 rows, 50000 rows/s, 8.0 MB/s"),
          "the load's line: rows, MB/s, ETA", "'%s'", b);
    l.eta_s = -1;
    size_t n = dg_progress_load_status(&l, 20, b, sizeof b);
    CHECK(t, n == 19 && !strncmp(b, "load    10s ETA ? |", 19), "the load's line: ETA unknown, cut", "'%s'", b);
}

int main(void)
{
    struct dg_test t = {0};
    const struct dg_workload *tpcc = dg_workload_find("tpcc");
    CHECK(&t, tpcc && tpcc->nfigures >= 2 && !strcmp(tpcc->figures[0].label, "NOPM"), "tpcc's first figure is NOPM",
          "%s", tpcc ? tpcc->figures[0].label : "none");
    if (!tpcc)
        return dg_test_done(&t);
    views(&t);
    timed(&t, tpcc);
    counted(&t, tpcc);
    plain(&t, tpcc);
    load(&t);
    return dg_test_done(&t);
}
