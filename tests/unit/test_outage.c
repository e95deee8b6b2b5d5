/* test_outage.c — the runner through outages (issue 14), on the null: driver with a workload
 * defined here that plays a server going away: between two times every transaction fails on a
 * lost connection and every connection attempt fails. Checks that workers live through it in
 * the three load models, the outage figures, the reconnects in the per-second series, skipped
 * arrivals, in-doubt commits and acknowledged writes, a reconnect timeout that gives up, that
 * one killed session is not an outage, and a cluster whose nodes all stop committing without an
 * error (frozen) is one, of the cluster (a stall). Needs no database. */
#include "core/runner.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

/* What the fake server does, on the runner's monotonic clock. */
struct fake_server {
    dg_ns down_from, down_until; /* away in [from, until); 0, 0: never */
    double from_s, until_s;      /* the same, in seconds from the window's start (on_start sets them) */
    int kill_worker_once;        /* 1: only the first worker's session is killed once, at down_from */
    int freeze;                  /* 1: not away but stalled: a transaction in [from, until) waits
                                  * until `until` and commits then, no error (a cluster evicting a node) */
    _Atomic int killed;
    /* With kill_worker_once: the killed session has committed again on its new connection. Until
     * then the other sessions hold their commits back (and 20 ms more), so the killed one's
     * reconnect commits first: the order that once made one killed session an outage. */
    _Atomic int recommitted;
    _Atomic uint64_t others_before_recommit; /* commits of the others between the kill and it */
    long txn_ns;                 /* each transaction takes this long */
    _Atomic uint64_t commits, in_doubt_sent;
};

struct fake_wctx {
    struct fake_server *s;
    int index;
    uint32_t seq;
    int pending; /* the last run() wrote something to acknowledge */
};

struct fake_term {
    int index;
};

static const char *const types[] = {"write"};

static int is_down(const struct fake_server *s, dg_ns now)
{
    return now >= s->down_from && now < s->down_until;
}

static int fake_open(void *shared, struct dg_conn_h *conn, void **wctx, struct dg_err *err)
{
    struct fake_server *s = shared;
    (void)conn;
    if (!s->kill_worker_once && is_down(s, dg_now_ns()))
        return dg_err_set(err, DG_ERR_CONN, 0, "connection refused (the fake server is down)");
    struct fake_wctx *w = calloc(1, sizeof *w);
    if (!w)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    w->s = s;
    w->index = -1;
    *wctx = w;
    return 0;
}

static void fake_close(void *wctx)
{
    free(wctx);
}

static void fake_init(void *shared, int index, int n, void *term, uint64_t seed)
{
    (void)shared, (void)n, (void)seed;
    ((struct fake_term *)term)->index = index;
}

static int fake_next_type(void *term)
{
    (void)term;
    return 0;
}

/* kill_worker_once: the killed session (index 0) marks its first commit after the kill; any
 * other waits for that mark (at most 5 s), then 20 ms for the runner to take that commit. */
static void hold_back_until_recommit(struct fake_server *s, int index)
{
    if (!atomic_load(&s->killed))
        return;
    if (index == 0) {
        atomic_store(&s->recommitted, 1);
        return;
    }
    if (atomic_load(&s->recommitted))
        return;
    struct timespec ms = {0, 1000000}, pause = {0, 20000000};
    for (int i = 0; i < 5000 && !atomic_load(&s->recommitted); i++)
        nanosleep(&ms, NULL);
    if (!atomic_load(&s->recommitted))
        atomic_fetch_add(&s->others_before_recommit, 1);
    nanosleep(&pause, NULL);
}

static int fake_run(void *wctx, void *term, int type, struct dg_err *err)
{
    struct fake_wctx *w = wctx;
    struct fake_server *s = w->s;
    (void)type;
    w->index = ((struct fake_term *)term)->index;
    w->pending = 0;
    struct timespec ts = {0, s->txn_ns};
    nanosleep(&ts, NULL);
    dg_ns now = dg_now_ns();
    w->seq++;
    if (s->freeze && is_down(s, now)) {
        struct timespec left = {(time_t)((s->down_until - now) / DG_NS_PER_S), (long)((s->down_until - now) % DG_NS_PER_S)};
        nanosleep(&left, NULL);
    } else if (s->kill_worker_once) {
        if (w->index == 0 && now >= s->down_from && !atomic_exchange(&s->killed, 1))
            return dg_err_set(err, DG_ERR_CONN, 0, "terminating connection (one session killed)");
        hold_back_until_recommit(s, w->index);
    } else if (is_down(s, now)) {
        dg_err_set(err, DG_ERR_CONN, 0, "server closed the connection");
        /* the first transaction cut: its COMMIT was sent */
        if (!atomic_fetch_add(&s->in_doubt_sent, 1)) {
            err->in_doubt = 1;
            w->pending = 1;
        }
        return -1;
    }
    atomic_fetch_add(&s->commits, 1);
    w->pending = 1;
    return 0;
}

static int fake_take_ack(void *wctx, struct dg_ack *out)
{
    struct fake_wctx *w = wctx;
    if (!w->pending)
        return 0;
    w->pending = 0;
    memset(out, 0, sizeof *out);
    out->kind = 1;
    out->k[0] = (uint32_t)w->index;
    out->k[1] = w->seq;
    out->count = 1;
    return 1;
}

static const struct dg_workload fake_wl = {
    .name = "fake", .ntypes = 1, .type_names = types, .terminal_size = sizeof(struct fake_term),
    .worker_open = fake_open, .worker_close = fake_close, .terminal_init = fake_init,
    .next_type = fake_next_type, .run = fake_run, .take_ack = fake_take_ack,
};

/* The runner's start line: the server's times from the window's start, whatever the start took
 * (threads and connections come slowly under ThreadSanitizer on a busy machine). */
static void fake_on_start(void *ctx, dg_ns start_ns, dg_ns warm_end_ns)
{
    struct fake_server *s = ctx;
    (void)start_ns;
    s->down_from = warm_end_ns + (dg_ns)(s->from_s * 1e9);
    s->down_until = warm_end_ns + (dg_ns)(s->until_s * 1e9);
}

/* Runs cfg with the fake server away (or frozen) from `from` to `until` s into the window. */
static int run_timed(struct fake_server *s, const struct dg_runner_cfg *cfg, double from, double until,
                     struct dg_run_result *res)
{
    s->from_s = from;
    s->until_s = until;
    struct dg_err err;
    int rc = dg_runner_run(cfg, res, &err);
    if (rc)
        printf("# run failed: %s\n", err.msg);
    return rc;
}

/* A run of `workers` over the fake server, down from `from` to `until` seconds into the
 * window of `window` seconds (no warm-up). */
static int run_through(struct fake_server *s, const struct dg_target *tg, enum dg_load_model model, int workers,
                       double window, double from, double until, dg_ns reconnect_timeout, struct dg_run_result *res)
{
    struct dg_runner_cfg cfg = {.model = model, .rate_per_s = 200, .arrivals = DG_ARRIVALS_UNIFORM,
                                .terminals = workers * 4, .think_scale = 1, .wl = &fake_wl, .shared = s,
                                .target = tg, .workers = workers, .duration_ns = (dg_ns)(window * 1e9),
                                .seed = 7, .reconnect_timeout_ns = reconnect_timeout, .on_start = fake_on_start,
                                .start_ctx = s};
    static const double keying[] = {0.0}, think[] = {0.01};
    struct dg_workload wl = fake_wl;
    if (model == DG_LOAD_THINK) {
        wl.keying_s = keying;
        wl.think_mean_s = think;
        cfg.wl = &wl;
    }
    return run_timed(s, &cfg, from, until, res);
}

static uint64_t reconnects_in_series(const struct dg_run_result *res)
{
    uint64_t n = 0;
    for (size_t i = 0; i < res->series.n; i++)
        n += res->series.pts[i].reconnects;
    return n;
}

static void check_closed(struct dg_test *t, const struct dg_target *tg)
{
    struct fake_server s = {.txn_ns = 2000000};
    struct dg_run_result res;
    if (run_through(&s, tg, DG_LOAD_CLOSED, 3, 5.0, 1.5, 3.0, 0, &res))
        return;
    CHECK(t, res.workers_failed == 0, "closed: no worker gave up through the outage", "%d", res.workers_failed);
    CHECK(t, res.noutages == 1, "closed: one outage", "%d", res.noutages);
    if (res.noutages >= 1) {
        const struct dg_outage *o = &res.outages[0];
        CHECK(t, o->start_s > 1.45 && o->start_s < 1.6, "closed: it starts when the server went", "%.3f", o->start_s);
        CHECK(t, o->duration_s >= 1.45 && o->duration_s < 1.8, "closed: it lasts as long as the server was away, "
              "plus at most a tenth (the back-off)", "%.3f", o->duration_s);
        CHECK(t, o->first_commit_s >= o->duration_s && o->first_commit_s < o->duration_s + 0.1,
              "closed: the first commit comes right after", "%.3f", o->first_commit_s);
        CHECK(t, o->errors == 3, "closed: each worker's cut transaction is an error of the outage", "%llu",
              (unsigned long long)o->errors);
        CHECK(t, o->reconnects >= 3 * 5 && o->reconnects < 3 * 40, "closed: reconnects with back-off (not a spin)",
              "%llu", (unsigned long long)o->reconnects);
        CHECK(t, o->recovery_s >= o->first_commit_s && o->recovery_s < o->first_commit_s + 2.5,
              "closed: back to 90% of the throughput within a second", "%.3f", o->recovery_s);
        CHECK(t, reconnects_in_series(&res) >= o->reconnects, "closed: the series counts the reconnects per second",
              "%llu", (unsigned long long)reconnects_in_series(&res));
    }
    CHECK(t, res.counts[0].errors == 3 && res.counts[0].in_doubt == 1, "closed: the cut commit is in doubt",
          "errors %llu in doubt %llu", (unsigned long long)res.counts[0].errors, (unsigned long long)res.counts[0].in_doubt);
    size_t doubt = 0;
    for (size_t i = 0; i < res.nacks; i++)
        doubt += res.acks[i].in_doubt;
    CHECK(t, res.nacks == atomic_load(&s.commits) + 1 && doubt == 1,
          "closed: every commit (after the window too) and the in-doubt one is acknowledged", "%zu acks, %llu commits, %zu in doubt",
          res.nacks, (unsigned long long)atomic_load(&s.commits), doubt);
    CHECK(t, !res.window_cut, "closed: the window was not cut", "cut");
    dg_run_result_free(&res);
}

static void check_rate(struct dg_test *t, const struct dg_target *tg)
{
    struct fake_server s = {.txn_ns = 1000000};
    struct dg_run_result res;
    if (run_through(&s, tg, DG_LOAD_RATE, 3, 4.0, 1.0, 2.0, 0, &res))
        return;
    CHECK(t, res.noutages == 1 && res.workers_failed == 0, "rate: one outage lived through", "%d outages", res.noutages);
    CHECK(t, res.arrivals >= 795 && res.arrivals <= 801, "rate: 200/s for 4 s is 800 arrivals", "%llu",
          (unsigned long long)res.arrivals);
    CHECK(t, res.skipped >= 195 && res.skipped <= 240, "rate: the arrivals due in the outage are skipped",
          "%llu skipped", (unsigned long long)res.skipped);
    CHECK(t, res.late <= 10, "rate: the schedule resumes on time after", "%llu late", (unsigned long long)res.late);
    dg_run_result_free(&res);
}

static void check_think(struct dg_test *t, const struct dg_target *tg)
{
    struct fake_server s = {.txn_ns = 1000000};
    struct dg_run_result res;
    if (run_through(&s, tg, DG_LOAD_THINK, 2, 3.0, 1.0, 1.8, 0, &res))
        return;
    CHECK(t, res.noutages == 1 && res.workers_failed == 0, "think: one outage lived through", "%d outages, %d failed",
          res.noutages, res.workers_failed);
    CHECK(t, res.noutages < 1 || res.outages[0].first_commit_s > 0, "think: commits again after it", "none");
    dg_run_result_free(&res);
}

static void check_give_up(struct dg_test *t, const struct dg_target *tg)
{
    struct fake_server s = {.txn_ns = 1000000};
    struct dg_run_result res;
    if (run_through(&s, tg, DG_LOAD_CLOSED, 2, 4.0, 1.0, 3.5, 500 * DG_NS_PER_MS, &res))
        return;
    CHECK(t, res.workers_failed == 2 && res.window_cut, "give up: past the reconnect timeout the workers give up",
          "%d failed, cut %d", res.workers_failed, res.window_cut);
    CHECK(t, res.measured_s > 1.4 && res.measured_s < 2.2, "give up: the window ends when the last gave up",
          "%.3f s", res.measured_s);
    CHECK(t, strstr(res.first_error, "gave up reconnecting after 500ms") != NULL, "give up: the run says why",
          "'%s'", res.first_error);
    CHECK(t, res.noutages == 1 && res.outages[0].first_commit_s < 0, "give up: the outage has no first commit",
          "%d", res.noutages);
    CHECK(t, res.noutages == 1 && res.outages[0].duration_s < 0,
          "give up: nor a length: the server was not back when the run ended (not 'for' the rest of the window)",
          "%.3f s", res.noutages ? res.outages[0].duration_s : 0);
    dg_run_result_free(&res);
}

static void check_one_session(struct dg_test *t, const struct dg_target *tg)
{
    struct fake_server s = {.txn_ns = 1000000, .kill_worker_once = 1};
    struct dg_run_result res;
    if (run_through(&s, tg, DG_LOAD_CLOSED, 3, 2.0, 0.5, 0.5, 0, &res))
        return;
    CHECK(t, atomic_load(&s.recommitted) && atomic_load(&s.others_before_recommit) == 0,
          "one session killed: its reconnect committed before any other session did", "recommitted %d, others %llu",
          atomic_load(&s.recommitted), (unsigned long long)atomic_load(&s.others_before_recommit));
    CHECK(t, res.noutages == 0, "one session killed: not an outage (the others' connections outlived it)", "%d",
          res.noutages);
    CHECK(t, res.counts[0].errors == 1 && res.workers_failed == 0, "one session killed: one error, nobody gave up",
          "%llu errors", (unsigned long long)res.counts[0].errors);
    dg_run_result_free(&res);
}

/* Two nodes of one cluster, two workers each, the cluster frozen from `from` to `until`
 * seconds into a window of `window`: a stall of cluster 1 when it lasts over a second. */
static int run_cluster(struct fake_server *s, const struct dg_target *tg, enum dg_load_model model, double window,
                       double from, double until, struct dg_run_result *res)
{
    struct dg_target nodes[2] = {*tg, *tg};
    nodes[0].cluster = nodes[1].cluster = 1;
    const struct dg_target *targets[2] = {&nodes[0], &nodes[1]};
    void *const shareds[2] = {s, s};
    const int split[2] = {2, 2};
    struct dg_runner_cfg cfg = {.model = model, .rate_per_s = 200, .arrivals = DG_ARRIVALS_UNIFORM, .terminals = 4,
                                .think_scale = 1, .wl = &fake_wl, .workers = 4, .ntargets = 2, .targets = targets,
                                .shareds = shareds, .target_workers = split, .duration_ns = (dg_ns)(window * 1e9),
                                .seed = 7, .on_start = fake_on_start, .start_ctx = s};
    return run_timed(s, &cfg, from, until, res);
}

static void check_stall(struct dg_test *t, const struct dg_target *tg)
{
    struct fake_server s = {.txn_ns = 2000000, .freeze = 1};
    struct dg_run_result res;
    if (run_cluster(&s, tg, DG_LOAD_CLOSED, 4.0, 1.0, 2.6, &res))
        return;
    CHECK(t, res.noutages == 1 && res.outages[0].target == -1, "stall: a cluster frozen 1.6 s is one outage, "
          "the cluster's (target -1)", "%d outages, target %d", res.noutages, res.noutages ? res.outages[0].target : 0);
    if (res.noutages == 1) {
        const struct dg_outage *o = &res.outages[0];
        /* (a commit every 2 ms per worker; the bounds leave 150 ms to a thread a busy machine
         * does not schedule) */
        CHECK(t, o->start_s > 0.85 && o->start_s < 1.05, "stall: it starts at the last commit before", "%.3f", o->start_s);
        CHECK(t, o->duration_s > 1.5 && o->duration_s < 1.9 && o->first_commit_s == o->duration_s,
              "stall: it ends at the first commit after", "%.3f, first commit %.3f", o->duration_s, o->first_commit_s);
        CHECK(t, o->errors == 0 && o->last_commit_s == 0, "stall: no error in it, no gap before it", "%llu errors",
              (unsigned long long)o->errors);
    }
    dg_run_result_free(&res);
    struct fake_server brief = {.txn_ns = 2000000, .freeze = 1};
    if (run_cluster(&brief, tg, DG_LOAD_CLOSED, 2.0, 0.5, 1.2, &res) == 0) {
        CHECK(t, res.noutages == 0, "stall: a pause of 0.7 s is none", "%d outages", res.noutages);
        dg_run_result_free(&res);
    }
    struct fake_server think = {.txn_ns = 2000000, .freeze = 1};
    if (run_cluster(&think, tg, DG_LOAD_RATE, 3.0, 1.0, 2.5, &res) == 0) {
        CHECK(t, res.noutages == 0, "stall: only a closed loop can tell one (an open loop may idle)", "%d outages",
              res.noutages);
        dg_run_result_free(&res);
    }
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
    check_closed(&t, &tg);
    check_rate(&t, &tg);
    check_think(&t, &tg);
    check_give_up(&t, &tg);
    check_one_session(&t, &tg);
    check_stall(&t, &tg);
    return dg_test_done(&t);
}
