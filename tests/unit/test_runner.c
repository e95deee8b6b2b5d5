/* test_runner.c — unit tests of the runner (src/core/runner.h) on the null: driver with a tiny
 * workload defined here: counted and timed runs, retries with restored inputs, on-purpose
 * rollbacks, failures, warm-up exclusion, histograms and ticks. Needs no database. */
#include "core/rng.h"
#include "core/monitor.h"
#include "core/runner.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

/* ---- the fake workload ---------------------------------------------------------------- */

enum { MAX_WORKERS = 4, MAX_ENDS = 20000 };

/* Shared state: what the test asks for and what the workers report when they close. */
struct fake_shared {
    int schedule;       /* 1: retry/rollback/error schedule; 0: always commit */
    long sleep_ns;      /* per transaction */
    int max_retries;    /* the runner's, so the workload can tell retries apart */
    pthread_mutex_t mu; /* guards the totals below (written at worker_close) */
    uint64_t calls, txns, mismatches, retried_ok, seeds_seen, inits;
    uint64_t terminal_seed[MAX_WORKERS];
    int nends[MAX_WORKERS];
    dg_ns *ends[MAX_WORKERS]; /* finish times of successful txns, per worker */
    int nworkers_closed;
};

struct fake_term {
    struct dg_rng rng;
    int index;
    uint64_t seq; /* bumped by every attempt: a retry must see it restored */
};

struct fake_worker {
    struct fake_shared *sh;
    struct dg_conn_h *conn;
    int index;           /* learnt from the first terminal seen */
    uint64_t n;          /* transactions begun (not attempts) */
    uint64_t calls;
    int fail_left;       /* attempts still to fail for the current transaction */
    int attempt;         /* 1-based attempt number of the current transaction */
    int expect_retry;    /* the last attempt failed and the runner will retry it */
    uint64_t first_v, first_seq;
    uint64_t mismatches, retried_ok;
    int nends;
    dg_ns ends[MAX_ENDS];
};

static const char *const fake_types[] = {"alpha", "beta"};

static int fake_open(void *shared, struct dg_conn_h *conn, void **wctx, struct dg_err *err)
{
    struct fake_worker *w = calloc(1, sizeof *w);
    if (!w)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    w->sh = shared;
    w->conn = conn;
    w->index = -1;
    *wctx = w;
    return 0;
}

static void fake_close(void *wctx)
{
    struct fake_worker *w = wctx;
    struct fake_shared *sh = w->sh;
    pthread_mutex_lock(&sh->mu);
    sh->calls += w->calls;
    sh->txns += w->n;
    sh->mismatches += w->mismatches;
    sh->retried_ok += w->retried_ok;
    if (w->index >= 0 && w->index < MAX_WORKERS) {
        sh->ends[w->index] = malloc((size_t)w->nends * sizeof(dg_ns) + 1);
        if (sh->ends[w->index])
            memcpy(sh->ends[w->index], w->ends, (size_t)w->nends * sizeof(dg_ns));
        sh->nends[w->index] = w->nends;
    }
    sh->nworkers_closed++;
    pthread_mutex_unlock(&sh->mu);
    free(w);
}

static void fake_init(void *shared, int index, int nterminals, void *term, uint64_t seed)
{
    struct fake_shared *sh = shared;
    struct fake_term *t = term;
    (void)nterminals;
    dg_rng_seed(&t->rng, seed);
    t->index = index;
    t->seq = 0;
    pthread_mutex_lock(&sh->mu);
    sh->inits++;
    if (index >= 0 && index < MAX_WORKERS)
        sh->terminal_seed[index] = seed;
    pthread_mutex_unlock(&sh->mu);
}

static int fake_next_type(void *term)
{
    struct fake_term *t = term;
    return (int)dg_rng_range(&t->rng, 0, 1);
}

/* Schedule by the worker's transaction number n (0-based):
 *   n % 10 == 3  -> fails once with RETRY (a serialization failure), then commits;
 *   n % 10 == 7  -> DG_ERR_EXPECTED (a rollback on purpose);
 *   n % 50 == 49 -> RETRY (a deadlock) on every attempt (the runner gives up after max_retries:
 *                   an error);
 *   otherwise commits. The worker knows the runner's retry rule so it can tell a retry from a
 * new transaction without looking at the terminal, whose restoration is what is checked. */
static int fake_run(void *wctx, void *term, int type, struct dg_err *err)
{
    struct fake_worker *w = wctx;
    struct fake_term *t = term;
    (void)type;
    w->calls++;
    if (w->index < 0)
        w->index = t->index;
    uint64_t v = dg_rng_next(&t->rng); /* the transaction's input, drawn before failing */
    uint64_t seq = t->seq++;
    if (w->sh->sleep_ns) {
        struct timespec ts = {0, w->sh->sleep_ns};
        nanosleep(&ts, NULL);
    }
    int retry_attempt = w->expect_retry;
    if (retry_attempt) {
        w->attempt++;
        if (v != w->first_v || seq != w->first_seq)
            w->mismatches++;
    } else {
        w->n++;
        w->attempt = 1;
        w->first_v = v;
        w->first_seq = seq;
        uint64_t k = w->n - 1;
        w->fail_left = !w->sh->schedule ? 0 : k % 10 == 3 ? 1 : k % 50 == 49 ? 1000000 : 0;
    }
    uint64_t n = w->n - 1;
    if (w->fail_left > 0) {
        w->fail_left--;
        w->expect_retry = w->attempt <= w->sh->max_retries;
        dg_err_set(err, DG_ERR_RETRY, 40001, "simulated retryable failure (txn %llu)", (unsigned long long)n);
        err->cause = n % 50 == 49 ? DG_RETRY_DEADLOCK : DG_RETRY_SERIALIZATION;
        if (n % 50 == 49) /* a driver's cause: still gave_up once the retries are used up */
            err->error_cause = DG_ERROR_TIMEOUT;
        return -1;
    }
    w->expect_retry = 0;
    w->retried_ok += retry_attempt;
    if (w->sh->schedule && n % 10 == 7)
        return dg_err_set(err, DG_ERR_EXPECTED, 0, "rolled back on purpose");
    if (w->nends < MAX_ENDS)
        w->ends[w->nends++] = dg_now_ns();
    return 0;
}

static const struct dg_workload fake_workload = {
    .name = "fake",
    .ntypes = 2,
    .type_names = fake_types,
    .terminal_size = sizeof(struct fake_term),
    .worker_open = fake_open,
    .worker_close = fake_close,
    .terminal_init = fake_init,
    .next_type = fake_next_type,
    .run = fake_run,
};

static void shared_init(struct fake_shared *sh, int schedule, long sleep_ns, int max_retries)
{
    memset(sh, 0, sizeof *sh);
    sh->max_retries = max_retries;
    sh->schedule = schedule;
    sh->sleep_ns = sleep_ns;
    pthread_mutex_init(&sh->mu, NULL);
}

static void shared_free(struct fake_shared *sh)
{
    for (int i = 0; i < MAX_WORKERS; i++)
        free(sh->ends[i]);
    pthread_mutex_destroy(&sh->mu);
}

static struct dg_type_counts sum_types(const struct dg_run_result *res)
{
    struct dg_type_counts s = {0};
    for (int k = 0; k < res->ntypes; k++) {
        s.committed += res->counts[k].committed;
        s.rollbacks += res->counts[k].rollbacks;
        s.retries += res->counts[k].retries;
        for (int c = 0; c < DG_RETRY_NCAUSES; c++)
            s.retry_causes[c] += res->counts[k].retry_causes[c];
        s.errors += res->counts[k].errors;
        for (int c = 0; c < DG_ERROR_NCAUSES; c++)
            s.error_causes[c] += res->counts[k].error_causes[c];
    }
    return s;
}

/* ---- ticks ---------------------------------------------------------------------------- */

struct tick_log {
    int calls, n, saw_connect, saw_warmup, saw_measure, saw_done, monotonic, bad_phase;
    double seconds;
    double last_elapsed;
    uint64_t interval_sum, last_total;
};

/* Ticks come connect first, then every tick_ns (n counts those that covered final seconds),
 * and once done: nothing after that. */
static void on_tick(void *ctx, const struct dg_tick *t)
{
    struct tick_log *l = ctx;
    if (l->saw_done || (t->phase == DG_PHASE_CONNECT) != (l->calls++ == 0))
        l->bad_phase = 1; /* one connect tick, first; none after the done one */
    if (t->phase == DG_PHASE_CONNECT) {
        l->saw_connect++;
        return;
    }
    l->n += t->interval_s > 0;
    if (t->phase == DG_PHASE_WARMUP) {
        l->saw_warmup = 1;
        if (l->saw_measure)
            l->bad_phase = 1; /* warm-up after measure */
    } else if (t->phase == DG_PHASE_MEASURE) {
        l->saw_measure = 1;
    } else {
        l->saw_done = 1;
    }
    if (t->elapsed_s < l->last_elapsed || t->interval_s < 0)
        l->monotonic = 0;
    l->last_elapsed = t->elapsed_s;
    l->seconds += t->interval_s;
    uint64_t tot = 0;
    for (int k = 0; k < t->ntypes; k++) {
        l->interval_sum += t->interval[k].committed;
        tot += t->total[k].committed;
    }
    l->last_total = tot;
}

/* ---- the checks ----------------------------------------------------------------------- */

static void check_counted(struct dg_test *t, const struct dg_target *tg)
{
    struct fake_shared sh;
    shared_init(&sh, 1, 0, 2);
    struct dg_runner_cfg cfg = {.wl = &fake_workload, .shared = &sh, .target = tg, .workers = 2,
                                .txns_per_worker = 200, .seed = 42, .max_retries = 2};
    struct dg_run_result res;
    struct dg_err err = {0};
    int rc = dg_runner_run(&cfg, &res, &err);
    CHECK(t, rc == 0, "counted run: starts and finishes", "rc %d: %s", rc, err.msg);
    if (rc) {
        shared_free(&sh);
        return;
    }
    struct dg_type_counts s = sum_types(&res);
    uint64_t attempted = s.committed + s.rollbacks + s.errors;
    CHECK(t, attempted == 400, "counted run: 2 workers x 200 = 400 transactions counted",
          "committed %llu + rollbacks %llu + errors %llu = %llu", (unsigned long long)s.committed,
          (unsigned long long)s.rollbacks, (unsigned long long)s.errors, (unsigned long long)attempted);
    /* per worker: 20 once-retried (n%10==3), 20 rollbacks (n%10==7), 4 given up (n%50==49) */
    CHECK(t, s.committed == 352 && s.rollbacks == 40 && s.errors == 8,
          "counted run: committed 352, rollbacks 40, errors 8 as scheduled", "committed %llu rollbacks %llu errors %llu",
          (unsigned long long)s.committed, (unsigned long long)s.rollbacks, (unsigned long long)s.errors);
    CHECK(t, s.retries == 2 * (20 + 4 * 2), "counted run: retries counted apart (20x1 + 4x2 per worker)",
          "retries %llu, want 56", (unsigned long long)s.retries);
    CHECK(t, s.retry_causes[DG_RETRY_SERIALIZATION] == 40 && s.retry_causes[DG_RETRY_DEADLOCK] == 16 &&
              s.retry_causes[DG_RETRY_OTHER] == 0 && s.retry_causes[DG_RETRY_BUSY] == 0,
          "counted run: retries counted by cause (serialization 2x20, deadlock 2x4x2)",
          "serialization %llu deadlock %llu other %llu", (unsigned long long)s.retry_causes[DG_RETRY_SERIALIZATION],
          (unsigned long long)s.retry_causes[DG_RETRY_DEADLOCK], (unsigned long long)s.retry_causes[DG_RETRY_OTHER]);
    CHECK(t, s.error_causes[DG_ERROR_GAVE_UP] == 8 && s.error_causes[DG_ERROR_TIMEOUT] == 0 &&
              s.error_causes[DG_ERROR_OTHER] == 0 && s.error_causes[DG_ERROR_CONNECTION] == 0,
          "counted run: retryable errors given up after the retry limit are gave_up (8), whatever the driver named",
          "gave_up %llu timeout %llu other %llu connection %llu", (unsigned long long)s.error_causes[DG_ERROR_GAVE_UP],
          (unsigned long long)s.error_causes[DG_ERROR_TIMEOUT], (unsigned long long)s.error_causes[DG_ERROR_OTHER],
          (unsigned long long)s.error_causes[DG_ERROR_CONNECTION]);
    CHECK(t, sh.mismatches == 0 && sh.retried_ok == 40,
          "retries restore the terminal: the same inputs are drawn again", "%llu mismatched retries, %llu retried ok",
          (unsigned long long)sh.mismatches, (unsigned long long)sh.retried_ok);
    CHECK(t, sh.calls == 400 + 56, "the workload ran once per attempt", "calls %llu, want 456",
          (unsigned long long)sh.calls);
    int hist_ok = 1, both_types = 1;
    for (int k = 0; k < 2; k++) {
        hist_ok &= res.hist[k] && res.hist[k]->total == res.counts[k].committed + res.counts[k].rollbacks;
        both_types &= res.counts[k].committed > 100;
    }
    CHECK(t, hist_ok, "histograms hold committed + rollbacks, per type", "alpha %llu/%llu beta %llu/%llu",
          (unsigned long long)(res.hist[0] ? res.hist[0]->total : 0),
          (unsigned long long)(res.counts[0].committed + res.counts[0].rollbacks),
          (unsigned long long)(res.hist[1] ? res.hist[1]->total : 0),
          (unsigned long long)(res.counts[1].committed + res.counts[1].rollbacks));
    CHECK(t, both_types, "both transaction types are run", "alpha %llu beta %llu",
          (unsigned long long)res.counts[0].committed, (unsigned long long)res.counts[1].committed);
    CHECK(t, res.ntypes == 2 && res.warmup_s == 0 && res.measured_s > 0 && !res.interrupted &&
                 res.workers_failed == 0,
          "counted run: no warm-up, a measured time, nothing interrupted", "ntypes %d warmup %.3f measured %.6f",
          res.ntypes, res.warmup_s, res.measured_s);
    CHECK(t, strstr(res.first_error, "simulated retryable failure") && strstr(res.first_error, "retryable"),
          "the first error is kept for the user with its class", "first_error '%s'", res.first_error);
    CHECK(t, strstr(res.first_error, "(given up after 2 retries, last cause deadlock)") != NULL,
          "the first error says it was given up, after how many retries, and their last cause", "first_error '%s'",
          res.first_error);
    CHECK(t, sh.inits == 2 && sh.terminal_seed[0] != sh.terminal_seed[1] && sh.nworkers_closed == 2,
          "one terminal per worker, seeded differently; every worker closed", "inits %llu closed %d",
          (unsigned long long)sh.inits, sh.nworkers_closed);
    dg_run_result_free(&res);
    shared_free(&sh);

    /* the same seed gives the same type sequence: per-type counts repeat */
    struct fake_shared sh2;
    shared_init(&sh2, 1, 0, 2);
    cfg.shared = &sh2;
    struct dg_run_result res2;
    rc = dg_runner_run(&cfg, &res2, &err);
    shared_init(&sh, 1, 0, 2);
    cfg.shared = &sh;
    cfg.seed = 43;
    struct dg_run_result res3;
    int rc3 = dg_runner_run(&cfg, &res3, &err);
    int same = 1, differ = 0;
    if (rc == 0 && rc3 == 0) {
        struct dg_run_result again;
        struct fake_shared sh4;
        shared_init(&sh4, 1, 0, 2);
        cfg.shared = &sh4;
        cfg.seed = 42;
        if (dg_runner_run(&cfg, &again, &err) == 0) {
            same = again.counts[0].committed == res2.counts[0].committed &&
                   again.counts[1].rollbacks == res2.counts[1].rollbacks;
            dg_run_result_free(&again);
        }
        shared_free(&sh4);
        differ = res3.counts[0].committed != res2.counts[0].committed;
    }
    CHECK(t, rc == 0 && rc3 == 0 && same && differ, "the seed fixes the transaction types drawn",
          "rc %d/%d same %d differ %d", rc, rc3, same, differ);
    if (rc == 0)
        dg_run_result_free(&res2);
    if (rc3 == 0)
        dg_run_result_free(&res3);
    shared_free(&sh);
    shared_free(&sh2);

    /* max_retries = 0: a retryable failure is an error at once */
    shared_init(&sh, 1, 0, 0);
    cfg = (struct dg_runner_cfg){.wl = &fake_workload, .shared = &sh, .target = tg, .workers = 1,
                                 .txns_per_worker = 100, .seed = 1, .max_retries = 0};
    rc = dg_runner_run(&cfg, &res, &err);
    if (rc == 0) {
        struct dg_type_counts z = sum_types(&res);
        /* 10 of n%10==3 and 2 of n%50==49 fail for good; 10 rollbacks */
        CHECK(t, z.retries == 0 && z.errors == 12 && z.rollbacks == 10 && z.committed == 78,
              "max_retries 0: no retry, retryable failures become errors",
              "retries %llu errors %llu rollbacks %llu committed %llu", (unsigned long long)z.retries,
              (unsigned long long)z.errors, (unsigned long long)z.rollbacks, (unsigned long long)z.committed);
        CHECK(t, z.error_causes[DG_ERROR_GAVE_UP] == 12 && z.error_causes[DG_ERROR_OTHER] == 0,
              "max_retries 0: a retryable failure is given up at once (gave_up 12 of 12 errors)",
              "gave_up %llu other %llu", (unsigned long long)z.error_causes[DG_ERROR_GAVE_UP],
              (unsigned long long)z.error_causes[DG_ERROR_OTHER]);
        dg_run_result_free(&res);
    } else {
        CHECK(t, 0, "max_retries 0: no retry, retryable failures become errors", "rc %d %s", rc, err.msg);
    }
    shared_free(&sh);
}

/* on_start: the run's clock, once; it also starts the monitor's seconds. */
struct start_log {
    int calls;
    dg_ns start, warm_end;
    struct dg_monitor *mon;
};

static void on_start(void *ctx, dg_ns start_ns, dg_ns warm_end_ns)
{
    struct start_log *l = ctx;
    l->calls++;
    l->start = start_ns;
    l->warm_end = warm_end_ns;
    if (l->mon)
        dg_monitor_epoch(l->mon, start_ns, warm_end_ns);
}

static void check_timed(struct dg_test *t, const struct dg_target *tg)
{
    struct fake_shared sh;
    shared_init(&sh, 0, 1000000, 3); /* 1 ms per transaction */
    struct tick_log log = {.monotonic = 1};
    struct dg_runner_cfg cfg = {.wl = &fake_workload, .shared = &sh, .target = tg, .workers = 2,
                                .warmup_ns = 500 * DG_NS_PER_MS, .duration_ns = DG_NS_PER_S, .seed = 7,
                                .max_retries = 3, .tick_ns = 100 * DG_NS_PER_MS, .tick = on_tick,
                                .tick_ctx = &log};
    struct start_log sl = {0};
    struct dg_monitor_opts mo = {.device = "none"};
    struct dg_err err = {0};
    CHECK(t, dg_monitor_start(&mo, &sl.mon, &err) == 0, "monitor starts beside the run", "%s", err.msg);
    cfg.on_start = on_start;
    cfg.start_ctx = &sl;
    struct dg_run_result res;
    dg_ns t0 = dg_now_ns();
    int rc = dg_runner_run(&cfg, &res, &err);
    dg_ns t1 = dg_now_ns();
    struct dg_monitor_point *mp = NULL;
    size_t mn = 0;
    dg_monitor_stop(sl.mon, &mp, &mn);
    CHECK(t, sl.calls == 1 && sl.warm_end - sl.start == 500 * DG_NS_PER_MS && sl.start >= t0 && sl.start <= t1,
          "on_start: called once with the run's clock", "%d calls, warm-up %llu ns", sl.calls,
          (unsigned long long)(sl.warm_end - sl.start));
    if (rc == 0 && res.series.n)
        mn = dg_monitor_trim(mp, mn, res.series.pts[0].second, res.series.pts[res.series.n - 1].second);
    CHECK(t, rc == 0 && mn == res.series.n && mn == 2 && mp[0].second == -1 && mp[1].second == 0 &&
                 mp[1].cpu_user_pct >= 0,
          "monitor: one sample per second of the series, numbered alike", "%zu samples, %zu series points",
          mn, res.series.n);
    free(mp);
    CHECK(t, rc == 0, "timed run: starts and finishes", "rc %d: %s", rc, err.msg);
    if (rc) {
        shared_free(&sh);
        return;
    }
    double wall = (double)(t1 - t0) / 1e9;
    CHECK(t, fabs(res.measured_s - 1.0) < 0.05 && fabs(res.warmup_s - 0.5) < 1e-9,
          "timed run: measured ~1 s after a 0.5 s warm-up", "measured %.3f s, warm-up %.3f s", res.measured_s,
          res.warmup_s);
    CHECK(t, wall >= 1.5 && wall < 2.5, "timed run: the whole run takes ~1.5 s", "wall %.3f s", wall);

    struct dg_type_counts s = sum_types(&res);
    uint64_t counted = s.committed + s.rollbacks + s.errors;
    /* Each finish against the run's own warm-up end (on_start), not t0 + 0.5 s: the runner
     * starts its clock once its workers are set up, which under TSan on a busy machine came
     * late enough to put 74 warm-up transactions past t0 + 0.5 s (CI of 1213a4d). */
    uint64_t in_window = 0, in_warmup = 0;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < sh.nends[i]; k++) {
            dg_ns e = sh.ends[i][k];
            if (e < sl.warm_end)
                in_warmup++;
            else
                in_window++;
        }
    CHECK(t, in_warmup > 300 && counted < sh.txns && sh.txns - counted >= in_warmup * 9 / 10,
          "timed run: warm-up transactions are not counted", "%llu executed, %llu counted, %llu in warm-up",
          (unsigned long long)sh.txns, (unsigned long long)counted, (unsigned long long)in_warmup);
    double diff = fabs((double)counted - (double)in_window);
    CHECK(t, diff <= 0.03 * (double)in_window + 10, "timed run: counted = transactions finished in the window",
          "counted %llu, finished in window %llu", (unsigned long long)counted, (unsigned long long)in_window);
    uint64_t htotal = res.hist[0]->total + res.hist[1]->total;
    uint64_t p50 = dg_hist_percentile(res.hist[0], 50);
    CHECK(t, htotal == s.committed + s.rollbacks && p50 >= DG_NS_PER_MS && p50 < 50 * DG_NS_PER_MS,
          "timed run: histograms hold the measured transactions with real latencies",
          "hist %llu vs %llu, p50 %llu ns", (unsigned long long)htotal,
          (unsigned long long)(s.committed + s.rollbacks), (unsigned long long)p50);
    CHECK(t, res.client_cpu_s >= 0 && res.client_cpu_s < 2 * wall, "timed run: client CPU measured",
          "cpu %.3f", res.client_cpu_s);

    /* Ticks report whole seconds of the series once they are final: at most the run's two. */
    CHECK(t, log.n >= 1 && log.n <= 2 && log.seconds >= 1 && log.seconds <= 2,
          "tick callback reports finished seconds", "%d ticks covering %.0f s in %.2f s", log.n,
          log.seconds, wall);
    uint64_t series_measured = 0, series_all = 0;
    for (size_t k = 0; k < res.series.n; k++)
        for (int y = 0; y < res.ntypes; y++) {
            const struct dg_sec_counts *c = &res.series.pts[k].t[y].c;
            uint64_t n = c->committed + c->rollbacks + c->errors;
            series_all += n;
            if (res.series.pts[k].second >= 0)
                series_measured += n;
        }
    CHECK(t, res.series.n == 2 && res.series.pts[0].second == -1 && res.series.pts[1].second == 0,
          "series: one point per second, warm-up first", "%zu points, first %lld", res.series.n,
          res.series.n ? (long long)res.series.pts[0].second : 0LL);
    CHECK(t, series_measured == counted && series_all > counted,
          "series: the measured seconds add up to the run's counts",
          "series %llu (all %llu) vs counted %llu", (unsigned long long)series_measured,
          (unsigned long long)series_all, (unsigned long long)counted);
    CHECK(t, log.saw_connect == 1 && log.saw_warmup && log.saw_done && !log.bad_phase && log.monotonic,
          "ticks: connect, warm-up, then done last; elapsed time increasing",
          "connect %d warmup %d measure %d done %d bad %d monotonic %d", log.saw_connect, log.saw_warmup,
          log.saw_measure, log.saw_done, log.bad_phase, log.monotonic);
    CHECK(t, log.interval_sum == log.last_total && log.last_total > 0, "ticks: intervals add up to the totals",
          "sum of intervals %llu, last total %llu", (unsigned long long)log.interval_sum,
          (unsigned long long)log.last_total);
    dg_run_result_free(&res);
    shared_free(&sh);
}

static void check_bad_target(struct dg_test *t)
{
    struct dg_target tg;
    struct dg_err err = {0};
    if (dg_target_parse("sqlite:/nonexistent-dir-dbgauge/none.db", &tg, &err)) {
        CHECK(t, 0, "a target that cannot connect: the run does not start", "parse: %s", err.msg);
        return;
    }
    struct fake_shared sh;
    shared_init(&sh, 0, 0, 0);
    struct dg_runner_cfg cfg = {.wl = &fake_workload, .shared = &sh, .target = &tg, .workers = 2,
                                .txns_per_worker = 10, .seed = 1};
    struct dg_run_result res;
    int rc = dg_runner_run(&cfg, &res, &err);
    CHECK(t, rc != 0 && err.msg[0] && sh.calls == 0, "a target that cannot connect: the run does not start",
          "rc %d calls %llu msg '%s'", rc, (unsigned long long)sh.calls, err.msg);
    if (rc == 0)
        dg_run_result_free(&res);
    shared_free(&sh);
}

/* Two targets at once: workers split 2 + 1, each target's workers open with that target's
 * shared state and number their terminals from 0; per-target figures add up to the run's. */
static void check_targets(struct dg_test *t, const struct dg_target *tg)
{
    struct fake_shared sh[2];
    shared_init(&sh[0], 1, 0, 2);
    shared_init(&sh[1], 1, 0, 2);
    const struct dg_target *tgs[2] = {tg, tg};
    void *shs[2] = {&sh[0], &sh[1]};
    int split[2] = {2, 1};
    struct dg_runner_cfg cfg = {.wl = &fake_workload, .workers = 3, .txns_per_worker = 100,
                                .seed = 7, .max_retries = 2, .ntargets = 2, .targets = tgs,
                                .shareds = shs, .target_workers = split};
    struct dg_run_result res;
    struct dg_err err = {0};
    int rc = dg_runner_run(&cfg, &res, &err);
    CHECK(t, rc == 0 && res.ntargets == 2 && res.targets, "two targets: the run happens with per-target results",
          "rc %d ntargets %d: %s", rc, rc ? 0 : res.ntargets, err.msg);
    if (rc == 0) {
        CHECK(t, sh[0].txns == 200 && sh[1].txns == 100 && sh[0].inits == 2 && sh[1].inits == 1,
              "two targets: each target's workers use its own shared state",
              "txns %llu/%llu inits %llu/%llu", (unsigned long long)sh[0].txns,
              (unsigned long long)sh[1].txns, (unsigned long long)sh[0].inits, (unsigned long long)sh[1].inits);
        CHECK(t, sh[1].terminal_seed[0] != 0 && sh[1].terminal_seed[1] == 0 && sh[0].terminal_seed[1] != 0,
              "two targets: terminals numbered within their target", "seeds %llu %llu",
              (unsigned long long)sh[1].terminal_seed[0], (unsigned long long)sh[1].terminal_seed[1]);
        int sums = 1;
        uint64_t done[2] = {0, 0};
        for (int k = 0; k < res.ntypes; k++) {
            const struct dg_type_counts *a = &res.targets[0].counts[k], *b = &res.targets[1].counts[k];
            sums &= a->committed + b->committed == res.counts[k].committed &&
                    a->rollbacks + b->rollbacks == res.counts[k].rollbacks &&
                    a->retries + b->retries == res.counts[k].retries &&
                    a->errors + b->errors == res.counts[k].errors &&
                    res.targets[0].hist[k]->total + res.targets[1].hist[k]->total == res.hist[k]->total;
            for (int j = 0; j < 2; j++)
                done[j] += res.targets[j].counts[k].committed + res.targets[j].counts[k].rollbacks +
                           res.targets[j].counts[k].errors;
        }
        CHECK(t, sums, "two targets: per-target counts and histograms add up to the run's", "they do not");
        CHECK(t, done[0] == 200 && done[1] == 100 && res.targets[0].workers == 2 && res.targets[1].workers == 1,
              "two targets: 2 x 100 and 1 x 100 transactions", "%llu and %llu",
              (unsigned long long)done[0], (unsigned long long)done[1]);
        dg_run_result_free(&res);
    }
    split[1] = 2; /* 2 + 2 is not 3 workers */
    rc = dg_runner_run(&cfg, &res, &err);
    CHECK(t, rc != 0 && err.cls == DG_ERR_USER, "two targets: a split that does not add up is refused",
          "rc %d", rc);
    if (rc == 0)
        dg_run_result_free(&res);
    shared_free(&sh[0]);
    shared_free(&sh[1]);
}

int main(void)
{
    struct dg_test t = {0};
    struct dg_target tg;
    struct dg_err err = {0};
    if (dg_target_parse("null:", &tg, &err)) {
        printf("not ok - null: target: %s\n", err.msg);
        return 1;
    }
    check_counted(&t, &tg);
    check_timed(&t, &tg);
    check_bad_target(&t);
    check_targets(&t, &tg);
    return dg_test_done(&t);
}
