/* runner.c — the closed-loop runner: worker threads, phases, retries with restored inputs,
 * per-thread counters (single writer, relaxed atomics so the reporter may read them) and
 * histograms merged at the end. The main thread only waits for signals and ticks. */
#include "core/runner.h"
#include "core/rng.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct counters {
    _Atomic uint64_t committed, rollbacks, retries, errors, rows, bytes;
    _Atomic uint64_t retry_causes[DG_RETRY_NCAUSES]; /* the retries, by cause */
};

enum { PH_WARM = 0, PH_MEASURE = 1 };

struct worker {
    struct runner *r;
    int index;
    int target;               /* which target it connects to (0 with one target) */
    int term_index, nterms;   /* its terminal's number within that target, of how many */
    pthread_t th;
    struct dg_conn_h conn;
    void *wctx;
    unsigned char *term, *saved;
    struct counters cnt[2][DG_MAX_TYPES];
    struct dg_hist *hist[DG_MAX_TYPES];
    struct dg_hist *service[DG_MAX_TYPES]; /* scheduled models */
    struct dg_hist *lag;
    struct dg_rng think_rng;
    struct dg_sec_feed feed;
    int start_failed;
    struct dg_err start_err;
    char first_error[512];
    int gave_up;
    dg_ns finished_ns;
    dg_ns cache_pub_ns;            /* conn_cache: when last published */
    uint64_t cache_base[2], cache_last[2]; /* conn_cache: earlier connections', this one's */
    _Atomic int done;
} __attribute__((aligned(64)));

struct runner {
    const struct dg_runner_cfg *cfg;
    struct worker *w;
    pthread_mutex_t mu; /* guards ready and go: the start line, used once */
    pthread_cond_t cv;
    int ready, go;
    /* The schedule of the scheduled models, under sched_mu. */
    pthread_mutex_t sched_mu;
    /* One free worker, the timekeeper, sleeps until the earliest due time; the others sleep
     * until there is work for them, so a due terminal wakes one thread, not all of them. */
    pthread_cond_t sched_cv; /* the timekeeper: an earlier terminal came, or stop */
    pthread_cond_t idle_cv;  /* the other free workers: become the timekeeper, or stop */
    int has_timekeeper;
    struct dg_arrival_gen arrivals;
    struct dg_term_heap heap;
    unsigned char *terms;    /* DG_LOAD_THINK: all terminals, terminal_size each */
    uint8_t *next_type;      /* DG_LOAD_THINK: each terminal's next transaction type */
    dg_ns start_ns, warm_end_ns; /* written by main before go is set */
    _Atomic dg_ns end_ns;        /* moved earlier by main on Ctrl-C */
    _Atomic int stop;
};

const char *dg_phase_name(enum dg_phase p)
{
    switch (p) {
    case DG_PHASE_CONNECT: return "connect";
    case DG_PHASE_WARMUP: return "warm-up";
    case DG_PHASE_MEASURE: return "measure";
    case DG_PHASE_DONE: return "done";
    }
    return "?";
}

/* Single-writer increment: a plain load and store, never a locked instruction. */
static inline void bump(_Atomic uint64_t *c, uint64_t by)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + by,
                          memory_order_relaxed);
}

static void note_error(struct worker *w, int type, const struct dg_err *e)
{
    if (w->first_error[0])
        return;
    snprintf(w->first_error, sizeof w->first_error, "worker %d, %s: %s error%s%s: %s", w->index + 1,
             w->r->cfg->wl->type_names[type], dg_err_class_name(e->cls), e->sqlstate[0] ? " " : "",
             e->sqlstate, e->msg);
}

static const struct dg_target *target_of(const struct worker *w)
{
    const struct dg_runner_cfg *cfg = w->r->cfg;
    return cfg->ntargets > 0 ? cfg->targets[w->target] : cfg->target;
}

static void *shared_of(const struct worker *w)
{
    const struct dg_runner_cfg *cfg = w->r->cfg;
    return cfg->ntargets > 0 ? cfg->shareds[w->target] : cfg->shared;
}

static int open_worker(struct worker *w, struct dg_err *err)
{
    const struct dg_runner_cfg *cfg = w->r->cfg;
    char app[32];
    snprintf(app, sizeof app, "dbgauge-w%d", w->index + 1);
    struct dg_connect_opts co = {.application = app, .memory_bytes = cfg->session_memory_bytes};
    if (dg_connect(target_of(w), &co, &w->conn, err))
        return -1;
    if (cfg->wl->worker_open(shared_of(w), &w->conn, &w->wctx, err)) {
        dg_disconnect(&w->conn);
        return -1;
    }
    return 0;
}

/* Publishes this worker's connection's cache counters (cfg->conn_cache only). */
static void publish_cache(struct worker *w)
{
    _Atomic uint64_t *out = w->r->cfg->conn_cache;
    struct dg_err ignore;
    uint64_t h, m;
    if (!out || !w->conn.c || dg_cache_stats(&w->conn, &h, &m, &ignore))
        return;
    w->cache_last[0] = h;
    w->cache_last[1] = m;
    atomic_store_explicit(&out[2 * w->index], w->cache_base[0] + h, memory_order_relaxed);
    atomic_store_explicit(&out[2 * w->index + 1], w->cache_base[1] + m, memory_order_relaxed);
}

static void close_worker(struct worker *w)
{
    publish_cache(w);
    w->cache_base[0] += w->cache_last[0];
    w->cache_base[1] += w->cache_last[1];
    w->cache_last[0] = w->cache_last[1] = 0;
    if (w->wctx)
        w->r->cfg->wl->worker_close(w->wctx);
    w->wctx = NULL;
    dg_disconnect(&w->conn);
}

const char *dg_load_model_name(enum dg_load_model m)
{
    switch (m) {
    case DG_LOAD_CLOSED: return "closed";
    case DG_LOAD_RATE: return "rate";
    case DG_LOAD_THINK: return "think";
    }
    return "?";
}

/* What a worker runs next: a terminal, a type and when it was due. */
struct job {
    unsigned char *term;
    uint32_t term_index;
    int type;
    dg_ns intended; /* 0 in the closed model */
};

static unsigned char *term_at(struct runner *r, uint32_t i)
{
    return r->terms + (size_t)i * r->cfg->wl->terminal_size;
}

static dg_ns scaled_ns(const struct runner *r, const double *table, int type)
{
    return table ? (dg_ns)(table[type] * r->cfg->think_scale * 1e9) : 0;
}

/* Sleeps until `until` on the monotonic clock, waking every 100 ms to see a stop. */
static int sleep_until(struct runner *r, dg_ns until)
{
    for (;;) {
        if (atomic_load_explicit(&r->stop, memory_order_relaxed))
            return 1;
        dg_ns now = dg_now_ns();
        if (now >= until)
            return 0;
        dg_ns step = until - now < 100 * DG_NS_PER_MS ? until - now : 100 * DG_NS_PER_MS;
        struct timespec ts = {(time_t)(step / DG_NS_PER_S), (long)(step % DG_NS_PER_S)};
        nanosleep(&ts, NULL);
    }
}

/* Returns 0 with the next job filled, or 1 when the worker should stop. */
static int next_job(struct worker *w, struct job *j)
{
    struct runner *r = w->r;
    const struct dg_workload *wl = r->cfg->wl;
    switch (r->cfg->model) {
    case DG_LOAD_CLOSED:
        j->term = w->term;
        j->type = wl->next_type(w->term);
        j->intended = 0;
        return 0;
    case DG_LOAD_RATE:
        pthread_mutex_lock(&r->sched_mu);
        j->intended = dg_arrival_next(&r->arrivals);
        pthread_mutex_unlock(&r->sched_mu);
        if (j->intended > atomic_load_explicit(&r->end_ns, memory_order_relaxed))
            return 1; /* no arrival left inside the window */
        j->term = w->term;
        j->type = wl->next_type(w->term);
        return sleep_until(r, j->intended);
    case DG_LOAD_THINK:
        pthread_mutex_lock(&r->sched_mu);
        for (;;) {
            if (atomic_load_explicit(&r->stop, memory_order_relaxed)) {
                pthread_mutex_unlock(&r->sched_mu);
                return 1;
            }
            const struct dg_heap_item *it = dg_heap_peek(&r->heap);
            dg_ns now = dg_now_ns();
            if (it && it->due <= now) {
                j->term_index = it->term;
                j->intended = it->due;
                dg_heap_pop(&r->heap);
                /* Whoever keeps time next: more may be due already. */
                pthread_cond_signal(r->has_timekeeper ? &r->sched_cv : &r->idle_cv);
                break;
            }
            if (r->has_timekeeper || !it) {
                pthread_cond_wait(&r->idle_cv, &r->sched_mu);
                continue;
            }
            r->has_timekeeper = 1;
            struct timespec ts = {(time_t)(it->due / DG_NS_PER_S), (long)(it->due % DG_NS_PER_S)};
            pthread_cond_timedwait(&r->sched_cv, &r->sched_mu, &ts);
            r->has_timekeeper = 0;
        }
        pthread_mutex_unlock(&r->sched_mu);
        j->term = term_at(r, j->term_index);
        j->type = r->next_type[j->term_index];
        return 0;
    }
    return 1;
}

/* After a transaction of a terminal in the think model: think, pick the next type, key it in. */
static void reschedule(struct worker *w, const struct job *j, dg_ns t1)
{
    struct runner *r = w->r;
    const struct dg_workload *wl = r->cfg->wl;
    dg_ns think = 0;
    if (wl->think_mean_s)
        think = dg_think_ns(&w->think_rng, (double)scaled_ns(r, wl->think_mean_s, j->type));
    int next = wl->next_type(j->term);
    dg_ns due = t1 + think + scaled_ns(r, wl->keying_s, next);
    pthread_mutex_lock(&r->sched_mu);
    r->next_type[j->term_index] = (uint8_t)next;
    const struct dg_heap_item *first = dg_heap_peek(&r->heap);
    int earliest = !first || due < first->due;
    dg_heap_push(&r->heap, j->term_index, due);
    if (earliest) /* the timekeeper sleeps for a later item; or nobody keeps time yet */
        pthread_cond_signal(r->has_timekeeper ? &r->sched_cv : &r->idle_cv);
    pthread_mutex_unlock(&r->sched_mu);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct runner *r = w->r;
    const struct dg_runner_cfg *cfg = r->cfg;
    const struct dg_workload *wl = cfg->wl;

    if (open_worker(w, &w->start_err))
        w->start_failed = 1;
    wl->terminal_init(shared_of(w), w->term_index, w->nterms, w->term,
                      dg_mix64(cfg->seed + 0x100000001b3ull * (uint64_t)(w->index + 1)));
    pthread_mutex_lock(&r->mu);
    r->ready++;
    pthread_cond_broadcast(&r->cv);
    while (!r->go)
        pthread_cond_wait(&r->cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
    if (w->start_failed || atomic_load(&r->stop))
        goto out;

    const dg_ns warm_end = r->warm_end_ns;
    const int counted = cfg->txns_per_worker > 0;
    uint64_t done = 0;
    int consecutive_errors = 0;
    struct dg_err e;
    const int scheduled = cfg->model != DG_LOAD_CLOSED;
    struct job j = {0};
    while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
        if (counted && done >= cfg->txns_per_worker)
            break;
        if (next_job(w, &j))
            break;
        memcpy(w->saved, j.term, wl->terminal_size);
        dg_ns t0 = dg_now_ns();
        uint64_t tries = 0, causes[DG_RETRY_NCAUSES]; /* causes: zeroed at the first retry only */
        int rc;
        for (;;) {
            rc = wl->run(w->wctx, j.term, j.type, &e);
            if (rc == 0 || e.cls == DG_ERR_EXPECTED)
                break;
            struct dg_err ignore;
            dg_rollback(&w->conn, &ignore);
            if (e.cls != DG_ERR_RETRY || (int)tries >= cfg->max_retries)
                break;
            if (!tries++)
                memset(causes, 0, sizeof causes);
            causes[e.cause >= 0 && e.cause < DG_RETRY_NCAUSES ? e.cause : DG_RETRY_OTHER]++;
            memcpy(j.term, w->saved, wl->terminal_size); /* same inputs again */
            if (tries > 1) {
                /* Back off so the winner can finish: a random pause up to 2^tries us (at most
                 * 8 ms); the randomness keeps two losers from colliding again in step. */
                dg_ns cap = (dg_ns)1000 << (tries < 13 ? tries : 13);
                struct timespec ts = {0, (long)dg_rng_range(&w->think_rng, (int64_t)cap / 4, (int64_t)cap)};
                nanosleep(&ts, NULL);
            }
        }
        dg_ns t1 = dg_now_ns();
        done++;
        if (cfg->model == DG_LOAD_THINK)
            reschedule(w, &j, t1);
        if (t1 > atomic_load_explicit(&r->end_ns, memory_order_relaxed))
            break; /* finished after the window (or after Ctrl-C): not counted */
        int ph = counted || t1 >= warm_end ? PH_MEASURE : PH_WARM;
        int64_t rel = (int64_t)(t1 - warm_end); /* unsigned wrap gives the signed distance */
        int64_t second = rel >= 0 ? rel / (int64_t)DG_NS_PER_S
                                  : -((-rel + (int64_t)DG_NS_PER_S - 1) / (int64_t)DG_NS_PER_S);
        /* Latency from the intended start where there is a schedule: queueing counts. */
        dg_ns latency = scheduled ? t1 - j.intended : t1 - t0;
        dg_sec_record(&w->feed, second, j.type,
                      rc == 0 ? DG_OUT_COMMIT : e.cls == DG_ERR_EXPECTED ? DG_OUT_ROLLBACK : DG_OUT_ERROR,
                      tries, latency);
        if (cfg->conn_cache && t1 - w->cache_pub_ns >= 100 * DG_NS_PER_MS) { /* 10 times a second */
            w->cache_pub_ns = t1;
            publish_cache(w);
        }
        struct counters *c = &w->cnt[ph][j.type];
        if (tries) {
            bump(&c->retries, tries);
            for (int k = 0; k < DG_RETRY_NCAUSES; k++)
                if (causes[k])
                    bump(&c->retry_causes[k], causes[k]);
        }
        if (wl->take_volume) {
            uint64_t rows = 0, bytes = 0;
            wl->take_volume(w->wctx, &rows, &bytes);
            bump(&c->rows, rows);
            bump(&c->bytes, bytes);
        }
        if (rc == 0) {
            bump(&c->committed, 1);
        } else if (e.cls == DG_ERR_EXPECTED) {
            bump(&c->rollbacks, 1);
        } else {
            bump(&c->errors, 1);
            note_error(w, j.type, &e);
            if (e.cls == DG_ERR_CONN) { /* reconnect once; give up on this worker if that fails */
                close_worker(w);
                if (open_worker(w, &e)) {
                    note_error(w, j.type, &e);
                    w->gave_up = 1;
                    break;
                }
            }
            if (++consecutive_errors >= 1000) {
                w->gave_up = 1;
                break;
            }
            continue;
        }
        consecutive_errors = 0;
        if (ph == PH_MEASURE) {
            dg_hist_record(w->hist[j.type], latency);
            if (scheduled) {
                dg_hist_record(w->service[j.type], t1 - t0);
                dg_hist_record(w->lag, t0 - j.intended);
            }
        }
    }
out:
    dg_sec_close(&w->feed);
    w->finished_ns = dg_now_ns();
    atomic_store(&w->done, 1);
    return NULL;
}

/* Adds up the workers' counters of the phases in phase_mask: of one target, or of all when
 * target < 0. */
static void sum_counts(struct runner *r, int phase_mask, int target, struct dg_type_counts *out)
{
    const struct dg_runner_cfg *cfg = r->cfg;
    memset(out, 0, sizeof(struct dg_type_counts) * DG_MAX_TYPES);
    for (int i = 0; i < cfg->workers; i++)
        for (int ph = 0; ph < 2; ph++) {
            if (target >= 0 && r->w[i].target != target)
                continue;
            if (!(phase_mask & (1 << ph)))
                continue;
            for (int t = 0; t < cfg->wl->ntypes; t++) {
                struct counters *c = &r->w[i].cnt[ph][t];
                out[t].committed += atomic_load_explicit(&c->committed, memory_order_relaxed);
                out[t].rollbacks += atomic_load_explicit(&c->rollbacks, memory_order_relaxed);
                out[t].retries += atomic_load_explicit(&c->retries, memory_order_relaxed);
                for (int k = 0; k < DG_RETRY_NCAUSES; k++)
                    out[t].retry_causes[k] += atomic_load_explicit(&c->retry_causes[k], memory_order_relaxed);
                out[t].errors += atomic_load_explicit(&c->errors, memory_order_relaxed);
                out[t].rows += atomic_load_explicit(&c->rows, memory_order_relaxed);
                out[t].bytes += atomic_load_explicit(&c->bytes, memory_order_relaxed);
            }
        }
}

enum hist_kind { H_LATENCY, H_SERVICE, H_LAG };

/* A new histogram (the caller's) merging one kind of the workers' histograms of type t: of one
 * target, or of all when target < 0. NULL when out of memory. */
static struct dg_hist *merged(const struct runner *r, enum hist_kind kind, int t, int target)
{
    struct dg_hist *h = dg_hist_new();
    for (int i = 0; h && i < r->cfg->workers; i++) {
        const struct worker *w = &r->w[i];
        if (target < 0 || w->target == target)
            dg_hist_merge(h, kind == H_LATENCY ? w->hist[t] : kind == H_SERVICE ? w->service[t] : w->lag);
    }
    return h;
}

/* The per-target figures of a run with several targets. Returns 0, or -1 out of memory. */
static int fill_targets(struct runner *r, struct dg_run_result *res)
{
    const struct dg_runner_cfg *cfg = r->cfg;
    res->targets = calloc((size_t)cfg->ntargets, sizeof *res->targets);
    if (!res->targets)
        return -1;
    res->ntargets = cfg->ntargets;
    for (int k = 0; k < cfg->ntargets; k++) {
        struct dg_target_result *tr = &res->targets[k];
        sum_counts(r, 2, k, tr->counts);
        tr->workers = cfg->target_workers[k];
        for (int i = 0; i < cfg->workers; i++)
            tr->workers_failed += r->w[i].target == k && r->w[i].gave_up;
        for (int t = 0; t < cfg->wl->ntypes; t++) {
            if (!(tr->hist[t] = merged(r, H_LATENCY, t, k)))
                return -1;
            if (cfg->model != DG_LOAD_CLOSED && !(tr->service[t] = merged(r, H_SERVICE, t, k)))
                return -1;
        }
    }
    return 0;
}

static int all_done(struct runner *r, int created)
{
    for (int i = 0; i < created; i++)
        if (!atomic_load(&r->w[i].done))
            return 0;
    return 1;
}

static void free_workers(struct runner *r)
{
    for (int i = 0; i < r->cfg->workers; i++) {
        struct worker *w = &r->w[i];
        for (int t = 0; t < DG_MAX_TYPES; t++) {
            dg_hist_free(w->hist[t]);
            dg_hist_free(w->service[t]);
        }
        dg_hist_free(w->lag);
        dg_sec_feed_free(&w->feed);
        free(w->term);
        free(w->saved);
    }
    free(r->w);
    free(r->terms);
    free(r->next_type);
    dg_heap_free(&r->heap);
}

int dg_runner_run(const struct dg_runner_cfg *cfg, struct dg_run_result *res, struct dg_err *err)
{
    memset(res, 0, sizeof *res);
    res->ntypes = cfg->wl->ntypes;
    struct runner r = {.cfg = cfg};
    int nw = cfg->workers, created = 0, rc = -1;
    r.w = aligned_alloc(64, sizeof(struct worker) * (size_t)nw);
    if (!r.w)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    memset(r.w, 0, sizeof(struct worker) * (size_t)nw);
    int split_ok = cfg->ntargets == 0, first = 0;
    for (int k = 0; k < cfg->ntargets; k++) { /* workers [first, first + n) serve target k */
        int n = cfg->target_workers[k];
        split_ok = n > 0 && first + n <= nw;
        for (int i = first; split_ok && i < first + n; i++) {
            r.w[i].target = k;
            r.w[i].term_index = i - first;
            r.w[i].nterms = n;
        }
        if (!split_ok)
            break;
        first += n;
    }
    if (!split_ok || (cfg->ntargets > 0 && first != nw) ||
        (cfg->ntargets > 1 && cfg->model == DG_LOAD_THINK)) {
        free(r.w);
        return dg_err_set(err, DG_ERR_USER, 0, cfg->model == DG_LOAD_THINK
                          ? "keying and think times take one target"
                          : "every target needs at least one worker, and they must add up to the workers");
    }
    for (int i = 0; i < nw; i++) {
        struct worker *w = &r.w[i];
        w->r = &r;
        w->index = i;
        if (cfg->ntargets == 0) {
            w->term_index = i;
            w->nterms = nw;
        }
        w->term = calloc(1, cfg->wl->terminal_size);
        w->saved = calloc(1, cfg->wl->terminal_size);
        int scheduled = cfg->model != DG_LOAD_CLOSED, missing = 0;
        for (int t = 0; t < cfg->wl->ntypes; t++) {
            missing |= !(w->hist[t] = dg_hist_new());
            if (scheduled)
                missing |= !(w->service[t] = dg_hist_new());
        }
        if (scheduled)
            missing |= !(w->lag = dg_hist_new());
        dg_rng_seed(&w->think_rng, dg_mix64(cfg->seed ^ 0x7417ull) + (uint64_t)i);
        if (!w->term || !w->saved || missing || dg_sec_feed_init(&w->feed)) {
            free_workers(&r);
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        }
    }

    pthread_mutex_init(&r.sched_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* due times are monotonic */
    pthread_cond_init(&r.sched_cv, &ca);
    pthread_cond_init(&r.idle_cv, NULL);
    pthread_condattr_destroy(&ca);
    if (cfg->model == DG_LOAD_THINK) {
        size_t nt = (size_t)cfg->terminals;
        r.terms = calloc(nt, cfg->wl->terminal_size);
        r.next_type = calloc(nt, 1);
        if (!r.terms || !r.next_type || dg_heap_init(&r.heap, nt)) {
            free_workers(&r);
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory for %zu terminals", nt);
        }
        for (size_t i = 0; i < nt; i++) {
            unsigned char *t = term_at(&r, (uint32_t)i);
            cfg->wl->terminal_init(cfg->ntargets > 0 ? cfg->shareds[0] : cfg->shared, (int)i, (int)nt, t,
                                   dg_mix64(cfg->seed + 0x100000001b3ull * (uint64_t)(i + 1)));
            r.next_type[i] = (uint8_t)cfg->wl->next_type(t);
        }
    }

    /* Signals are taken synchronously by this thread with sigtimedwait. */
    sigset_t sigs, old;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, &old);

    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    for (; created < nw; created++)
        if (pthread_create(&r.w[created].th, NULL, worker_main, &r.w[created]))
            break;
    pthread_mutex_lock(&r.mu);
    while (r.ready < created)
        pthread_cond_wait(&r.cv, &r.mu);
    if (created < nw) {
        dg_err_set(err, DG_ERR_FATAL, errno, "cannot start worker thread %d of %d", created + 1, nw);
        atomic_store(&r.stop, 1);
    }
    for (int i = 0; i < created && !atomic_load(&r.stop); i++)
        if (r.w[i].start_failed) {
            *err = r.w[i].start_err;
            atomic_store(&r.stop, 1);
        }
    int starting = !atomic_load(&r.stop);
    r.start_ns = dg_now_ns();
    r.warm_end_ns = r.start_ns + (cfg->txns_per_worker ? 0 : cfg->warmup_ns);
    r.end_ns = cfg->txns_per_worker ? UINT64_MAX : r.warm_end_ns + cfg->duration_ns;
    res->started_wall = dg_wall_s();
    dg_ns cpu0 = dg_process_cpu_ns();
    int cpu_sampled = r.warm_end_ns == r.start_ns;
    if (cfg->model == DG_LOAD_RATE)
        dg_arrival_init(&r.arrivals, cfg->rate_per_s, cfg->arrivals, r.start_ns, dg_mix64(cfg->seed ^ 0xa11ull));
    if (cfg->model == DG_LOAD_THINK) {
        /* Terminals start as if each had just begun to think, so they do not all key at once. */
        struct dg_rng rng;
        dg_rng_seed(&rng, dg_mix64(cfg->seed ^ 0x5a7ull));
        for (int i = 0; i < cfg->terminals; i++) {
            int type = r.next_type[i];
            dg_ns due = r.start_ns + scaled_ns(&r, cfg->wl->keying_s, type);
            if (cfg->wl->think_mean_s)
                due += dg_think_ns(&rng, (double)scaled_ns(&r, cfg->wl->think_mean_s, type));
            dg_heap_push(&r.heap, (uint32_t)i, due);
        }
    }
    if (starting && cfg->on_start)
        cfg->on_start(cfg->start_ctx, r.start_ns, r.warm_end_ns);
    r.go = 1;
    pthread_cond_broadcast(&r.cv);
    pthread_mutex_unlock(&r.mu);

    dg_ns next_tick = cfg->tick_ns ? r.start_ns + cfg->tick_ns : UINT64_MAX;
    dg_ns stop_ns = 0;
    int64_t warm_s = (int64_t)((r.warm_end_ns - r.start_ns + DG_NS_PER_S - 1) / DG_NS_PER_S);
    dg_series_init(&res->series, cfg->wl->ntypes, -warm_s);
    size_t ticked = 0; /* series points already reported */
    while (starting) {
        dg_ns now = dg_now_ns();
        if (!cpu_sampled && now >= r.warm_end_ns) {
            cpu0 = dg_process_cpu_ns();
            cpu_sampled = 1;
        }
        if (now >= r.end_ns) {
            stop_ns = r.end_ns;
            break;
        }
        if (all_done(&r, created)) {
            stop_ns = now;
            break;
        }
        /* Seconds more than 5 s old are final even if a worker is stuck in a transaction. */
        int64_t now_s = ((int64_t)now - (int64_t)r.warm_end_ns) / (int64_t)DG_NS_PER_S;
        if (dg_series_collect(&res->series, &r.w[0].feed, sizeof r.w[0], created, now_s - 5, 0)) {
            dg_err_set(err, DG_ERR_FATAL, 0, "out of memory for the per-second series");
            atomic_store(&r.stop, 1);
            break;
        }
        if (now >= next_tick) {
            struct dg_tick t = {.ntypes = cfg->wl->ntypes};
            const struct dg_series *se = &res->series;
            for (size_t i = ticked; i < se->n; i++)
                for (int k = 0; k < t.ntypes; k++) {
                    const struct dg_sec_counts *c = &se->pts[i].t[k].c;
                    t.interval[k].committed += c->committed;
                    t.interval[k].rollbacks += c->rollbacks;
                    t.interval[k].retries += c->retries;
                    t.interval[k].errors += c->errors;
                }
            for (size_t i = 0; i < se->n; i++)
                for (int k = 0; k < t.ntypes; k++) {
                    const struct dg_sec_counts *c = &se->pts[i].t[k].c;
                    t.total[k].committed += c->committed;
                    t.total[k].rollbacks += c->rollbacks;
                    t.total[k].retries += c->retries;
                    t.total[k].errors += c->errors;
                }
            t.interval_s = (double)(se->n - ticked);
            t.elapsed_s = (double)se->n;
            t.phase = se->n && se->pts[se->n - 1].second >= 0 ? DG_PHASE_MEASURE : DG_PHASE_WARMUP;
            ticked = se->n;
            if (t.interval_s > 0)
                cfg->tick(cfg->tick_ctx, &t);
            next_tick += cfg->tick_ns;
        }
        dg_ns wake = next_tick;
        if (!cpu_sampled && r.warm_end_ns < wake)
            wake = r.warm_end_ns;
        if (r.end_ns < wake)
            wake = r.end_ns;
        dg_ns wait = wake > now ? wake - now : 0;
        if (wait > 200 * DG_NS_PER_MS) /* also poll for workers that finished */
            wait = 200 * DG_NS_PER_MS;
        struct timespec ts = {(time_t)(wait / DG_NS_PER_S), (long)(wait % DG_NS_PER_S)};
        if (sigtimedwait(&sigs, NULL, &ts) > 0) {
            res->interrupted = 1;
            stop_ns = dg_now_ns();
            atomic_store(&r.end_ns, stop_ns);
            break;
        }
    }
    pthread_mutex_lock(&r.sched_mu);
    atomic_store(&r.stop, 1);
    pthread_cond_broadcast(&r.sched_cv); /* wake workers waiting for a due terminal */
    pthread_cond_broadcast(&r.idle_cv);
    pthread_mutex_unlock(&r.sched_mu);
    for (int i = 0; i < created; i++)
        pthread_join(r.w[i].th, NULL);
    dg_ns cpu1 = dg_process_cpu_ns();
    res->ended_wall = dg_wall_s();
    /* A signal that arrived while joining is taken now so it cannot kill us later. */
    struct timespec zero = {0, 0};
    while (sigtimedwait(&sigs, NULL, &zero) > 0)
        res->interrupted = 1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    if (!starting)
        goto out;
    /* Every worker has closed its feed: the rest of the series is final. */
    if (dg_series_collect(&res->series, &r.w[0].feed, sizeof r.w[0], created, 0, 1)) {
        dg_err_set(err, DG_ERR_FATAL, 0, "out of memory for the per-second series");
        goto out;
    }
    if (cfg->txns_per_worker && !res->interrupted) {
        stop_ns = r.start_ns;
        for (int i = 0; i < nw; i++)
            if (r.w[i].finished_ns > stop_ns)
                stop_ns = r.w[i].finished_ns;
    }
    res->warmup_s = (double)(r.warm_end_ns - r.start_ns) / 1e9;
    res->measured_s = stop_ns > r.warm_end_ns ? (double)(stop_ns - r.warm_end_ns) / 1e9 : 0.0;
    res->client_cpu_s = cpu_sampled ? (double)(cpu1 - cpu0) / 1e9 : 0.0;
    if (stop_ns > r.warm_end_ns) { /* the series runs to the window's last (maybe partial) second */
        int64_t last = (int64_t)((stop_ns - r.warm_end_ns - 1) / DG_NS_PER_S);
        if (dg_series_extend(&res->series, last)) {
            dg_err_set(err, DG_ERR_FATAL, 0, "out of memory for the per-second series");
            goto out;
        }
    }
    sum_counts(&r, 2, -1, res->counts);
    int oom = 0;
    for (int t = 0; t < cfg->wl->ntypes; t++) {
        oom |= !(res->hist[t] = merged(&r, H_LATENCY, t, -1));
        if (cfg->model != DG_LOAD_CLOSED)
            oom |= !(res->service[t] = merged(&r, H_SERVICE, t, -1));
    }
    if (cfg->model != DG_LOAD_CLOSED)
        oom |= !(res->lag = merged(&r, H_LAG, 0, -1));
    if (oom || (cfg->ntargets > 0 && fill_targets(&r, res))) {
        dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        goto out;
    }
    for (int i = 0; i < nw; i++) {
        res->workers_failed += r.w[i].gave_up;
        if (!res->first_error[0] && r.w[i].first_error[0])
            snprintf(res->first_error, sizeof res->first_error, "%s", r.w[i].first_error);
    }
    rc = 0;
out:
    for (int i = 0; i < nw; i++)
        close_worker(&r.w[i]);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.cv);
    pthread_mutex_destroy(&r.sched_mu);
    pthread_cond_destroy(&r.sched_cv);
    pthread_cond_destroy(&r.idle_cv);
    free_workers(&r);
    return rc;
}

void dg_run_result_free(struct dg_run_result *res)
{
    dg_series_free(&res->series);
    for (int t = 0; t < DG_MAX_TYPES; t++) {
        dg_hist_free(res->hist[t]);
        dg_hist_free(res->service[t]);
        res->hist[t] = res->service[t] = NULL;
    }
    dg_hist_free(res->lag);
    res->lag = NULL;
    for (int k = 0; k < res->ntargets; k++)
        for (int t = 0; t < DG_MAX_TYPES; t++) {
            dg_hist_free(res->targets[k].hist[t]);
            dg_hist_free(res->targets[k].service[t]);
        }
    free(res->targets);
    res->targets = NULL;
    res->ntargets = 0;
}
