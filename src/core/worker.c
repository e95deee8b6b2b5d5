/* worker.c — one worker thread: connect, wait for the start line, then run transactions
 * (retrying with restored inputs), count them in its own counters and histograms, and end.
 * Shares nothing on the hot path but the schedule's lock in the scheduled models; knows no
 * engine and no workload beyond struct dg_workload. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/opts.h"
#include "core/runner_internal.h"

/* Single-writer increment: a plain load and store, never a locked instruction. */
static inline void bump(_Atomic uint64_t *c, uint64_t by)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + by,
                          memory_order_relaxed);
}

/* The worker's first error, kept for the run to name. A retryable error here has used up its
 * retries (tries of them): the message says so, with the last retry cause, which its engine's
 * words may not tell (a Galera certification failure reads as a deadlock). */
static void note_error(struct worker *w, int type, const struct dg_err *e, uint64_t tries)
{
    if (w->first_error[0])
        return;
    char given_up[80] = "";
    if (e->cls == DG_ERR_RETRY)
        snprintf(given_up, sizeof given_up, " (given up after %llu retries, last cause %s)",
                 (unsigned long long)tries, dg_retry_cause_name(e->cause));
    snprintf(w->first_error, sizeof w->first_error, "worker %d, %s: %s error%s%s: %s%s", w->global + 1,
             w->r->cfg->wl->type_names[type], dg_err_class_name(e->cls), e->sqlstate[0] ? " " : "",
             e->sqlstate, e->msg, given_up);
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

/* Opens the worker's connection to its target (read 0) or to the read target (read 1) and
 * the workload's context on it. */
static int open_conn(struct worker *w, int read, struct dg_err *err)
{
    const struct dg_runner_cfg *cfg = w->r->cfg;
    char app[32];
    snprintf(app, sizeof app, "dbgauge-%c%d", read ? 'r' : 'w', w->global + 1);
    struct dg_connect_opts co = {.application = app, .memory_bytes = cfg->session_memory_bytes};
    struct dg_conn_h *h = read ? &w->rconn : &w->conn;
    if (dg_connect(read ? cfg->read_target : target_of(w), &co, h, err))
        return -1;
    if (cfg->wl->worker_open(shared_of(w), h, read ? &w->rwctx : &w->wctx, err)) {
        dg_disconnect(h);
        return -1;
    }
    return 0;
}

static void close_read_conn(struct worker *w)
{
    if (w->rwctx)
        w->r->cfg->wl->worker_close(w->rwctx);
    w->rwctx = NULL;
    dg_disconnect(&w->rconn);
}

static int open_worker(struct worker *w, struct dg_err *err)
{
    if (open_conn(w, 0, err))
        return -1;
    if (w->r->cfg->read_target && open_conn(w, 1, err)) {
        dg_worker_close(w);
        return -1;
    }
    return 0;
}

/* Whether a transaction of type runs on the read target's connection. */
static inline int on_read(const struct worker *w, int type)
{
    return w->r->read_index >= 0 && (w->r->cfg->wl->read_only_types >> type & 1u);
}

/* The target index a transaction of type counts under (outages, acks). */
static inline int target_for(const struct worker *w, int type)
{
    return on_read(w, type) ? w->r->read_index : w->target;
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

void dg_worker_close(struct worker *w)
{
    publish_cache(w);
    w->cache_base[0] += w->cache_last[0];
    w->cache_base[1] += w->cache_last[1];
    w->cache_last[0] = w->cache_last[1] = 0;
    if (w->wctx)
        w->r->cfg->wl->worker_close(w->wctx);
    w->wctx = NULL;
    dg_disconnect(&w->conn);
    close_read_conn(w);
}

/* What a worker runs next: a terminal, a type and when it was due. */
struct job {
    unsigned char *term;
    uint32_t term_index;
    int type;
    dg_ns intended; /* 0 in the closed model */
};

unsigned char *dg_runner_term_at(struct runner *r, uint32_t i)
{
    return r->terms + (size_t)i * r->cfg->wl->terminal_size;
}

dg_ns dg_runner_scaled_ns(const struct runner *r, const double *table, int type)
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

/* DG_LOAD_RATE: the next arrival this worker runs, skipping (and counting) those that fell
 * due while its target was down and those later than the latency limit already. Returns 1
 * when no arrival is left inside the window. */
static int next_arrival(struct worker *w, struct job *j)
{
    struct runner *r = w->r;
    for (;;) {
        pthread_mutex_lock(&r->sched_mu);
        j->intended = dg_arrival_next(&r->arrivals);
        pthread_mutex_unlock(&r->sched_mu);
        if (j->intended > atomic_load_explicit(&r->end_ns, memory_order_relaxed))
            return 1;
        int measured = j->intended >= r->warm_end_ns;
        w->arrivals += measured;
        dg_ns limit = r->cfg->latency_limit_ns;
        if (j->intended >= w->skip_before && !(limit && dg_now_ns() > j->intended + limit))
            return 0;
        w->skipped += measured;
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
        if (next_arrival(w, j))
            return 1;
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
        j->term = dg_runner_term_at(r, j->term_index);
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
        think = dg_think_ns(&w->think_rng, (double)dg_runner_scaled_ns(r, wl->think_mean_s, j->type));
    int next = wl->next_type(j->term);
    dg_ns due = t1 + think + dg_runner_scaled_ns(r, wl->keying_s, next);
    pthread_mutex_lock(&r->sched_mu);
    r->next_type[j->term_index] = (uint8_t)next;
    const struct dg_heap_item *first = dg_heap_peek(&r->heap);
    int earliest = !first || due < first->due;
    dg_heap_push(&r->heap, j->term_index, due);
    if (earliest) /* the timekeeper sleeps for a later item; or nobody keeps time yet */
        pthread_cond_signal(r->has_timekeeper ? &r->sched_cv : &r->idle_cv);
    pthread_mutex_unlock(&r->sched_mu);
}


/* A transaction's outcome, as the worker counts it. */
struct outcome {
    int rc;                               /* 0 committed, else err says why */
    struct dg_err err;
    uint64_t tries;                       /* retries after the first attempt */
    uint64_t causes[DG_RETRY_NCAUSES];    /* the retries by cause: valid when tries > 0 */
    dg_ns t0, t1;                         /* actual start and end */
};

/* Runs one transaction of job j, retrying retryable errors with the same inputs. */
static void run_txn(struct worker *w, struct job *j, struct outcome *o)
{
    const struct dg_runner_cfg *cfg = w->r->cfg;
    const struct dg_workload *wl = cfg->wl;
    memcpy(w->saved, j->term, wl->terminal_size);
    const int read = on_read(w, j->type);
    void *ctx = read ? w->rwctx : w->wctx;
    const struct dg_conn_h *conn = read ? &w->rconn : &w->conn;
    o->t0 = dg_now_ns();
    o->tries = 0; /* causes: zeroed at the first retry only, no work on the common path */
    for (;;) {
        o->rc = wl->run(ctx, j->term, j->type, &o->err);
        if (o->rc == 0 || o->err.cls == DG_ERR_EXPECTED)
            break;
        struct dg_err ignore;
        dg_rollback(conn, &ignore);
        if (o->err.cls != DG_ERR_RETRY || (int)o->tries >= cfg->max_retries)
            break;
        if (!o->tries++)
            memset(o->causes, 0, sizeof o->causes);
        enum dg_retry_cause c = o->err.cause;
        o->causes[c >= 0 && c < DG_RETRY_NCAUSES ? c : DG_RETRY_OTHER]++;
        memcpy(j->term, w->saved, wl->terminal_size); /* same inputs again */
        if (o->tries > 1) {
            /* Back off so the winner can finish: a random pause up to 2^tries us, at most
             * 65 ms, longer than the transactions a loser keeps meeting (with an 8 ms cap,
             * SERIALIZABLE New-Orders on a busy machine could lose 100 times in a row); the
             * randomness keeps two losers from colliding again in step. */
            dg_ns cap = (dg_ns)1000 << (o->tries < 16 ? o->tries : 16);
            struct timespec ts = {0, (long)dg_rng_range(&w->think_rng, (int64_t)cap / 4, (int64_t)cap)};
            nanosleep(&ts, NULL);
        }
    }
    o->t1 = dg_now_ns();
}

/* The second of the series t1 falls in (negative in the warm-up), rounding down. */
static int64_t second_of(dg_ns t1, dg_ns warm_end)
{
    int64_t rel = (int64_t)(t1 - warm_end); /* unsigned wrap gives the signed distance */
    return rel >= 0 ? rel / (int64_t)DG_NS_PER_S : -((-rel + (int64_t)DG_NS_PER_S - 1) / (int64_t)DG_NS_PER_S);
}

/* Counts a finished transaction in phase ph: the series, the counters and, for a measured
 * success, the histograms. */
static void account(struct worker *w, const struct job *j, const struct outcome *o, int ph)
{
    const struct dg_runner_cfg *cfg = w->r->cfg;
    const int scheduled = cfg->model != DG_LOAD_CLOSED;
    /* Latency from the intended start where there is a schedule: queueing counts. */
    dg_ns latency = scheduled ? o->t1 - j->intended : o->t1 - o->t0;
    enum dg_outcome out = o->rc == 0 ? DG_OUT_COMMIT : o->err.cls == DG_ERR_EXPECTED ? DG_OUT_ROLLBACK : DG_OUT_ERROR;
    dg_sec_record(&w->feed, second_of(o->t1, w->r->warm_end_ns), j->type, out, o->tries, latency);
    if (cfg->conn_cache && o->t1 - w->cache_pub_ns >= 100 * DG_NS_PER_MS) { /* 10 times a second */
        w->cache_pub_ns = o->t1;
        publish_cache(w);
    }
    struct counters *c = &w->cnt[ph][j->type];
    if (o->tries) {
        bump(&c->retries, o->tries);
        for (int k = 0; k < DG_RETRY_NCAUSES; k++)
            if (o->causes[k])
                bump(&c->retry_causes[k], o->causes[k]);
    }
    if (cfg->wl->take_volume) {
        uint64_t rows = 0, bytes = 0;
        cfg->wl->take_volume(on_read(w, j->type) ? w->rwctx : w->wctx, &rows, &bytes);
        bump(&c->rows, rows);
        bump(&c->bytes, bytes);
    }
    if (out == DG_OUT_ROLLBACK)
        bump(&c->rollbacks, 1);
    if (out == DG_OUT_ERROR) {
        bump(&c->errors, 1);
        bump(&c->error_causes[dg_err_error_cause(&o->err)], 1);
        if (o->err.in_doubt)
            bump(&c->in_doubt, 1);
        return;
    }
    if (out == DG_OUT_COMMIT)
        bump(&c->committed, 1);
    if (ph == PH_MEASURE) {
        dg_hist_record(w->hist[j->type], latency);
        if (scheduled) {
            dg_hist_record(w->service[j->type], o->t1 - o->t0);
            dg_hist_record(w->lag, o->t0 - j->intended);
            w->late += cfg->model == DG_LOAD_RATE && o->t0 - j->intended > DG_LATE_AFTER_NS;
        }
    }
}

enum { GO_ON = 0, STOPPED, GIVE_UP };

/* A lost connection: closed, then sought again until it comes back (GO_ON), the run stops
 * (STOPPED) or cfg->reconnect_timeout_ns has passed (GIVE_UP). The wait between attempts is
 * a tenth of the time away so far, from 50 ms up to 2 s, drawn in [wait/2, wait] so workers do
 * not knock in step: it grows exponentially (x1.1 a try) and a server that comes back is found
 * at most about a tenth of the outage later. Each attempt counts in the second it was made. */
static int reconnect(struct worker *w, int type)
{
    struct runner *r = w->r;
    const struct dg_runner_cfg *cfg = r->cfg;
    const int read = on_read(w, type); /* only the connection that was lost */
    atomic_store(&w->state, W_RECONNECTING);
    if (read)
        close_read_conn(w);
    else
        dg_worker_close(w);
    dg_ns lost = dg_now_ns();
    for (;;) {
        struct dg_err e;
        int ok = (read ? open_conn(w, 1, &e) : open_worker(w, &e)) == 0;
        dg_ns now = dg_now_ns();
        char where[128] = "";
        if (ok)
            dg_conn_where(read ? &w->rconn : &w->conn, where, sizeof where);
        dg_sec_note_reconnect(&w->feed, second_of(now, r->warm_end_ns));
        dg_outage_attempt(r, target_for(w, type), ok, now, where);
        if (ok && read) {
            w->rconn_since = now;
            atomic_store(&w->state, W_RUNNING);
            return GO_ON;
        }
        if (ok) {
            w->conn_since = w->skip_before = now;
            w->rconn_since = now;
            atomic_store(&w->state, W_RUNNING);
            return GO_ON;
        }
        if (cfg->reconnect_timeout_ns && now - lost >= cfg->reconnect_timeout_ns) {
            char d[32];
            dg_format_duration(cfg->reconnect_timeout_ns, d, sizeof d);
            snprintf(e.msg + strlen(e.msg), sizeof e.msg - strlen(e.msg), " (gave up reconnecting after %s)", d);
            w->first_error[0] = '\0'; /* the giving up is what the run must say */
            note_error(w, type, &e, 0);
            return GIVE_UP;
        }
        dg_ns wait = (now - lost) / 10;
        wait = wait < 50 * DG_NS_PER_MS ? 50 * DG_NS_PER_MS : wait > 2 * DG_NS_PER_S ? 2 * DG_NS_PER_S : wait;
        wait = (dg_ns)dg_rng_range(&w->think_rng, (int64_t)wait / 2, (int64_t)wait);
        if (cfg->reconnect_timeout_ns && now + wait > lost + cfg->reconnect_timeout_ns)
            wait = lost + cfg->reconnect_timeout_ns - now; /* one last try at the deadline */
        if (sleep_until(r, now + wait))
            return STOPPED;
    }
}

/* After an error that failed a transaction for good: a lost connection is an outage to live
 * through; anything else ends the worker after 1000 in a row. */
static int after_error(struct worker *w, int type, const struct outcome *o, int *consecutive)
{
    note_error(w, type, &o->err, o->tries);
    if (o->err.cls == DG_ERR_CONN) {
        dg_outage_error(w->r, target_for(w, type), o->t1);
        *consecutive = 0;
        return reconnect(w, type);
    }
    return ++*consecutive >= 1000 ? GIVE_UP : GO_ON;
}

/* Keeps the write an acknowledged (or in-doubt) transaction made, for the audit. */
static void keep_ack(struct worker *w, int type, const struct outcome *o)
{
    const struct dg_workload *wl = w->r->cfg->wl;
    int doubt = o->rc != 0 && o->err.in_doubt;
    if (!wl->take_ack || w->r->cfg->no_acks || (o->rc != 0 && !doubt))
        return;
    struct dg_ack a;
    if (!wl->take_ack(on_read(w, type) ? w->rwctx : w->wctx, &a))
        return;
    struct ack_chunk *c = w->acks_tail;
    if (!c || c->n == c->cap) {
        size_t cap = !c ? 64 : c->cap < 4096 ? 2 * c->cap : 4096;
        struct ack_chunk *nc = malloc(sizeof *nc + cap * sizeof nc->a[0]);
        if (!nc) {
            w->acks_dropped++;
            return;
        }
        nc->next = NULL;
        nc->n = 0;
        nc->cap = cap;
        if (c)
            c->next = nc;
        else
            w->acks = nc;
        w->acks_tail = c = nc;
    }
    int64_t rel = (int64_t)(o->t1 - w->r->warm_end_ns); /* unsigned wrap gives the signed distance */
    a.t_ms = rel / (int64_t)DG_NS_PER_MS;
    a.in_doubt = (uint8_t)doubt;
    a.target = (uint16_t)w->target;
    c->a[c->n++] = a;
}

/* CONNECTING, then WAITING at the start line. Returns 0 when the worker may run. */
static int worker_start(struct worker *w)
{
    struct runner *r = w->r;
    const struct dg_runner_cfg *cfg = r->cfg;
    int failed = open_worker(w, &w->start_err) != 0;
    cfg->wl->terminal_init(shared_of(w), w->term_index, w->nterms, w->term,
                           dg_mix64(cfg->seed + 0x100000001b3ull * (uint64_t)(w->global + 1)));
    atomic_store(&w->state, failed ? W_START_FAILED : W_WAITING);
    pthread_mutex_lock(&r->mu);
    r->ready++;
    pthread_cond_broadcast(&r->cv);
    while (!r->go)
        pthread_cond_wait(&r->cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
    return failed || atomic_load(&r->stop) ? -1 : 0;
}

void *dg_worker_main(void *arg)
{
    struct worker *w = arg;
    struct runner *r = w->r;
    const struct dg_runner_cfg *cfg = r->cfg;
    int end_state = W_FINISHED;
    if (worker_start(w)) {
        end_state = atomic_load(&w->state) == W_START_FAILED ? W_START_FAILED : W_FINISHED;
        goto out;
    }
    atomic_store(&w->state, W_RUNNING);
    w->conn_since = w->rconn_since = dg_now_ns();
    const int counted = cfg->txns_per_worker > 0;
    uint64_t done = 0;
    int consecutive_errors = 0;
    struct job j = {0};
    struct outcome o;
    while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
        if ((counted && done >= cfg->txns_per_worker) || next_job(w, &j))
            break;
        run_txn(w, &j, &o);
        done++;
        if (cfg->model == DG_LOAD_THINK)
            reschedule(w, &j, o.t1);
        keep_ack(w, j.type, &o); /* warm-up and after-window ones too: the database has them */
        if (o.t1 > atomic_load_explicit(&r->end_ns, memory_order_relaxed))
            break; /* finished after the window (or after Ctrl-C): not counted */
        account(w, &j, &o, counted || o.t1 >= r->warm_end_ns ? PH_MEASURE : PH_WARM);
        if (o.rc == 0 || o.err.cls == DG_ERR_EXPECTED) {
            consecutive_errors = 0;
            if (o.rc == 0 && !on_read(w, j.type)) {
                atomic_store_explicit(&w->last_commit, o.t1, memory_order_relaxed);
                if (dg_outage_watch(r, w->target, w->conn_since))
                    dg_outage_commit(r, w->target, w->conn_since, o.t1);
                if (dg_stall_any_open(r))
                    dg_stall_commit(r, w->target, o.t1);
            } else if (o.rc == 0) {
                atomic_store_explicit(&w->last_read_commit, o.t1, memory_order_relaxed);
                if (dg_outage_watch(r, r->read_index, w->rconn_since))
                    dg_outage_commit(r, r->read_index, w->rconn_since, o.t1);
            }
            continue;
        }
        int next = after_error(w, j.type, &o, &consecutive_errors);
        if (next == GIVE_UP)
            end_state = W_GAVE_UP;
        if (next != GO_ON)
            break;
    }
out:
    dg_sec_close(&w->feed);
    w->finished_ns = dg_now_ns();
    atomic_store(&w->state, end_state);
    return NULL;
}

int dg_worker_ended(const struct worker *w)
{
    int s = atomic_load(&w->state);
    return s == W_FINISHED || s == W_START_FAILED || s == W_GAVE_UP;
}
