/* runner.c — runs a workload: sets up the workers and the schedule, starts them at one
 * start line, watches the window (ticks, the per-second series, signals), stops and joins
 * them, and merges their counters and histograms into the result. The worker threads
 * themselves are in worker.c. Knows no engine and no workload beyond struct dg_workload. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/runner_internal.h"

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

const char *dg_load_model_name(enum dg_load_model m)
{
    switch (m) {
    case DG_LOAD_CLOSED: return "closed";
    case DG_LOAD_RATE: return "rate";
    case DG_LOAD_THINK: return "think";
    }
    return "?";
}

/* Whether worker w's type t counts in target's share (every one when target < 0): with a
 * read target, the read-only types are its share and the others the target's. */
static int counts_in(const struct runner *r, const struct worker *w, int t, int target)
{
    if (target < 0)
        return 1;
    if (r->read_index >= 0)
        return (target == r->read_index) == (int)(r->cfg->wl->read_only_types >> t & 1u);
    return w->target == target;
}

/* Adds up the workers' counters of the phases in phase_mask: of one target, or of all when
 * target < 0. */
static void sum_counts(struct runner *r, int phase_mask, int target, struct dg_type_counts *out)
{
    const struct dg_runner_cfg *cfg = r->cfg;
    memset(out, 0, sizeof(struct dg_type_counts) * DG_MAX_TYPES);
    for (int i = 0; i < cfg->workers; i++)
        for (int ph = 0; ph < 2; ph++) {
            if (!(phase_mask & (1 << ph)))
                continue;
            for (int t = 0; t < cfg->wl->ntypes; t++) {
                if (!counts_in(r, &r->w[i], t, target))
                    continue;
                struct counters *c = &r->w[i].cnt[ph][t];
                out[t].committed += atomic_load_explicit(&c->committed, memory_order_relaxed);
                out[t].rollbacks += atomic_load_explicit(&c->rollbacks, memory_order_relaxed);
                out[t].retries += atomic_load_explicit(&c->retries, memory_order_relaxed);
                for (int k = 0; k < DG_RETRY_NCAUSES; k++)
                    out[t].retry_causes[k] += atomic_load_explicit(&c->retry_causes[k], memory_order_relaxed);
                out[t].errors += atomic_load_explicit(&c->errors, memory_order_relaxed);
                for (int k = 0; k < DG_ERROR_NCAUSES; k++)
                    out[t].error_causes[k] += atomic_load_explicit(&c->error_causes[k], memory_order_relaxed);
                out[t].in_doubt += atomic_load_explicit(&c->in_doubt, memory_order_relaxed);
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
        if (counts_in(r, w, t, target))
            dg_hist_merge(h, kind == H_LATENCY ? w->hist[t] : kind == H_SERVICE ? w->service[t] : w->lag);
    }
    return h;
}

/* The per-target figures of a run with several targets. Returns 0, or -1 out of memory. */
static int fill_targets(struct runner *r, struct dg_run_result *res)
{
    const struct dg_runner_cfg *cfg = r->cfg;
    int n = r->read_index >= 0 ? r->read_index + 1 : cfg->ntargets;
    res->targets = calloc((size_t)n, sizeof *res->targets);
    if (!res->targets)
        return -1;
    res->ntargets = n;
    for (int k = 0; k < n; k++) {
        struct dg_target_result *tr = &res->targets[k];
        sum_counts(r, 2, k, tr->counts);
        for (int i = 0; i < cfg->workers; i++) { /* this process's workers: other ranks add theirs */
            tr->workers += k == r->read_index || r->w[i].target == k;
            tr->workers_failed += (k == r->read_index || r->w[i].target == k) && atomic_load(&r->w[i].state) == W_GAVE_UP;
        }
        for (int t = 0; t < cfg->wl->ntypes; t++) {
            if (!(tr->hist[t] = merged(r, H_LATENCY, t, k)))
                return -1;
            if (cfg->model != DG_LOAD_CLOSED && !(tr->service[t] = merged(r, H_SERVICE, t, k)))
                return -1;
        }
    }
    return 0;
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
        for (struct ack_chunk *c = w->acks, *next; c; c = next) {
            next = c->next;
            free(c);
        }
        free(w->term);
        free(w->saved);
    }
    free(r->w);
    r->w = NULL;
    dg_outage_free(r);
    free(r->terms);
    free(r->next_type);
    dg_heap_free(&r->heap);
}


/* Allocates the workers and gives each its target and terminal number. */
static int setup_workers(struct runner *r, struct dg_err *err)
{
    const struct dg_runner_cfg *cfg = r->cfg;
    int nw = cfg->workers;
    r->w = aligned_alloc(64, sizeof(struct worker) * (size_t)nw);
    if (!r->w)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    memset(r->w, 0, sizeof(struct worker) * (size_t)nw);
    /* Numbered over every rank of the run: worker i here is worker base + i of total. */
    int base = cfg->workers_total ? cfg->worker_base : 0, total = cfg->workers_total ? cfg->workers_total : nw;
    int split_ok = cfg->ntargets == 0, first = 0;
    for (int k = 0; k < cfg->ntargets; k++) { /* workers [first, first + n) serve target k */
        int n = cfg->target_workers[k];
        /* a node of a cluster may have no worker (fewer users than nodes), no other target */
        split_ok = (n > 0 || cfg->targets[k]->cluster > 0) && first + n <= total;
        for (int g = first; split_ok && g < first + n; g++) {
            if (g < base || g >= base + nw)
                continue; /* another rank's */
            r->w[g - base].target = k;
            r->w[g - base].term_index = g - first;
            r->w[g - base].nterms = n;
        }
        if (!split_ok)
            break;
        first += n;
    }
    if (!split_ok || (cfg->ntargets > 0 && first != total) || (cfg->ntargets > 1 && cfg->model == DG_LOAD_THINK)) {
        free(r->w);
        r->w = NULL;
        return dg_err_set(err, DG_ERR_USER, 0, cfg->model == DG_LOAD_THINK
                          ? "keying and think times take one target"
                          : "every target but a cluster's node needs at least one worker, and they must add up "
                            "to the workers");
    }
    const int scheduled = cfg->model != DG_LOAD_CLOSED;
    for (int i = 0; i < nw; i++) {
        struct worker *w = &r->w[i];
        w->r = r;
        w->index = i;
        w->global = base + i;
        if (cfg->ntargets == 0) {
            w->term_index = base + i;
            w->nterms = total;
        }
        w->term = calloc(1, cfg->wl->terminal_size);
        w->saved = calloc(1, cfg->wl->terminal_size);
        int missing = 0;
        for (int t = 0; t < cfg->wl->ntypes; t++) {
            missing |= !(w->hist[t] = dg_hist_new());
            if (scheduled)
                missing |= !(w->service[t] = dg_hist_new());
        }
        if (scheduled)
            missing |= !(w->lag = dg_hist_new());
        dg_rng_seed(&w->think_rng, dg_mix64(cfg->seed ^ 0x7417ull) + (uint64_t)w->global);
        if (!w->term || !w->saved || missing || dg_sec_feed_init(&w->feed)) {
            free_workers(r);
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        }
        w->feed.target = w->target;
        w->feed.read_target = r->read_index;
        w->feed.read_types = r->read_index >= 0 ? cfg->wl->read_only_types : 0;
    }
    if (dg_outage_setup(r)) {
        free_workers(r);
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    }
    return 0;
}

/* The think model's terminals, each with its first transaction type drawn. */
static int setup_terminals(struct runner *r, struct dg_err *err)
{
    const struct dg_runner_cfg *cfg = r->cfg;
    size_t nt = (size_t)cfg->terminals;
    r->terms = calloc(nt, cfg->wl->terminal_size);
    r->next_type = calloc(nt, 1);
    if (!r->terms || !r->next_type || dg_heap_init(&r->heap, nt))
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory for %zu terminals", nt);
    for (size_t i = 0; i < nt; i++) {
        unsigned char *t = dg_runner_term_at(r, (uint32_t)i);
        /* Its number over every rank: the same terminal, home and seed as in a run of one. */
        int id = cfg->terminal_ids ? cfg->terminal_ids[i] : (int)i;
        int of = cfg->terminal_ids ? cfg->terminals_total : (int)nt;
        cfg->wl->terminal_init(cfg->ntargets > 0 ? cfg->shareds[0] : cfg->shared, id, of, t,
                               dg_mix64(cfg->seed + 0x100000001b3ull * (uint64_t)(id + 1)));
        r->next_type[i] = (uint8_t)cfg->wl->next_type(t);
    }
    return 0;
}

/* At the start line: the clock of the run and the first arrivals or terminals' due times. */
static void setup_clock(struct runner *r, dg_ns start)
{
    const struct dg_runner_cfg *cfg = r->cfg;
    r->start_ns = start ? start : dg_now_ns();
    r->warm_end_ns = r->start_ns + (cfg->txns_per_worker ? 0 : cfg->warmup_ns);
    r->end_ns = cfg->txns_per_worker ? UINT64_MAX : r->warm_end_ns + cfg->duration_ns;
    if (cfg->model == DG_LOAD_RATE)
        dg_arrival_init(&r->arrivals, cfg->rate_per_s, cfg->arrivals, r->start_ns,
                        dg_mix64(cfg->seed ^ 0xa11ull) + (uint64_t)cfg->worker_base);
    if (cfg->model == DG_LOAD_THINK) {
        /* Terminals start as if each had just begun to think, so they do not all key at once. */
        struct dg_rng rng;
        dg_rng_seed(&rng, dg_mix64(cfg->seed ^ 0x5a7ull) + (uint64_t)cfg->worker_base);
        for (int i = 0; i < cfg->terminals; i++) {
            int type = r->next_type[i];
            dg_ns due = r->start_ns + dg_runner_scaled_ns(r, cfg->wl->keying_s, type);
            if (cfg->wl->think_mean_s)
                due += dg_think_ns(&rng, (double)dg_runner_scaled_ns(r, cfg->wl->think_mean_s, type));
            dg_heap_push(&r->heap, (uint32_t)i, due);
        }
    }
}

/* Starts the threads and waits until each has connected (or failed to). Returns how many
 * threads were created; *starting is 1 when every worker is ready and the run may begin. */
static int start_workers(struct runner *r, int *starting, struct dg_run_result *res, struct dg_err *err)
{
    const struct dg_runner_cfg *cfg = r->cfg;
    int nw = cfg->workers, created = 0;
    for (; created < nw; created++)
        if (pthread_create(&r->w[created].th, NULL, dg_worker_main, &r->w[created]))
            break;
    pthread_mutex_lock(&r->mu);
    while (r->ready < created)
        pthread_cond_wait(&r->cv, &r->mu);
    if (created < nw) {
        dg_err_set(err, DG_ERR_FATAL, errno, "cannot start worker thread %d of %d", created + 1, nw);
        atomic_store(&r->stop, 1);
    }
    for (int i = 0; i < created && !atomic_load(&r->stop); i++)
        if (atomic_load(&r->w[i].state) == W_START_FAILED) {
            *err = r->w[i].start_err;
            atomic_store(&r->stop, 1);
        }
    *starting = !atomic_load(&r->stop);
    dg_ns start = 0;
    if (cfg->start_at) { /* the other ranks: every one ready, one start line */
        pthread_mutex_unlock(&r->mu);
        start = cfg->start_at(cfg->rank_ctx, *starting, err);
        pthread_mutex_lock(&r->mu);
        if (!start && *starting) {
            *starting = 0;
            atomic_store(&r->stop, 1);
        }
    }
    setup_clock(r, start);
    res->started_wall = dg_wall_s();
    if (*starting && cfg->on_start)
        cfg->on_start(cfg->start_ctx, r->start_ns, r->warm_end_ns);
    r->go = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return created;
}

static void add_sec_counts(struct dg_type_counts *to, const struct dg_sec_counts *c)
{
    to->committed += c->committed;
    to->rollbacks += c->rollbacks;
    to->retries += c->retries;
    to->errors += c->errors;
}

/* The causes of the retries and errors and the in-doubt errors since the start, read from
 * the workers' own counters (relaxed loads: a worker never waits for this). */
static void tick_causes(const struct runner *r, int created, struct dg_tick *t)
{
    for (int i = 0; i < created; i++)
        for (int ph = 0; ph < 2; ph++)
            for (int k = 0; k < t->ntypes; k++) {
                const struct counters *c = &r->w[i].cnt[ph][k];
                struct dg_type_counts *to = &t->total[k];
                to->in_doubt += atomic_load_explicit(&c->in_doubt, memory_order_relaxed);
                for (int q = 0; q < DG_RETRY_NCAUSES; q++)
                    to->retry_causes[q] += atomic_load_explicit(&c->retry_causes[q], memory_order_relaxed);
                for (int q = 0; q < DG_ERROR_NCAUSES; q++)
                    to->error_causes[q] += atomic_load_explicit(&c->error_causes[q], memory_order_relaxed);
            }
}

/* The reporter's view since the previous tick, from the final seconds of the series, in
 * phase (DG_PHASE_DONE: the window is over; else from the series). */
static void tick(struct runner *r, enum dg_phase phase, const struct dg_series *se, size_t *ticked)
{
    const struct dg_runner_cfg *cfg = r->cfg;
    struct dg_tick t = {.ntypes = cfg->wl->ntypes, .series = se, .clock_s = (double)(dg_now_ns() - r->start_ns) / 1e9};
    t.outages = dg_outage_seen(r, &t.outage_open);
    for (size_t i = 0; i < se->n; i++)
        for (int k = 0; k < t.ntypes; k++) {
            if (i >= *ticked)
                add_sec_counts(&t.interval[k], &se->pts[i].t[k].c);
            add_sec_counts(&t.total[k], &se->pts[i].t[k].c);
        }
    tick_causes(r, r->cfg->workers, &t); /* a worker not started has its counters at zero */
    t.noutage_list = dg_outage_peek(r, dg_now_ns(), t.outage_list, DG_TICK_OUTAGES);
    t.interval_s = (double)(se->n - *ticked);
    t.elapsed_s = (double)se->n;
    t.phase = phase == DG_PHASE_DONE ? phase
              : se->n && se->pts[se->n - 1].second >= 0 ? DG_PHASE_MEASURE : DG_PHASE_WARMUP;
    *ticked = se->n;
    cfg->tick(cfg->tick_ctx, &t);
}

/* What the main thread watches between the start line and the stop. */
struct watch {
    sigset_t sigs;
    dg_ns stop_ns;
    dg_ns cpu0;
    int cpu_sampled;
    dg_ns next_checkpoint;
    size_t ticked; /* series points already reported */
};

/* Hands what the final seconds hold to the checkpoint hook. */
static void checkpoint(const struct runner *r, const struct watch *wt, const struct dg_run_result *res)
{
    const struct dg_series *se = &res->series;
    struct dg_checkpoint cp = {.series = se, .started_wall = res->started_wall,
                               .warmup_s = (double)(r->warm_end_ns - r->start_ns) / 1e9};
    if (se->n && se->pts[se->n - 1].second >= 0)
        cp.measured_s = (double)(se->pts[se->n - 1].second + 1);
    if (wt->cpu_sampled)
        cp.client_cpu_s = (double)(dg_process_cpu_ns() - wt->cpu0) / 1e9;
    r->cfg->checkpoint(r->cfg->checkpoint_ctx, &cp);
}

/* Waits out the window: ticks, the series of final seconds, workers that all finished, and
 * SIGINT/SIGTERM. Returns 0, or -1 with err (out of memory for the series). */
static int watch_window(struct runner *r, int created, struct watch *wt, struct dg_run_result *res,
                        struct dg_err *err)
{
    const struct dg_runner_cfg *cfg = r->cfg;
    dg_ns next_tick = cfg->tick_ns ? r->start_ns + cfg->tick_ns : UINT64_MAX;
    for (;;) {
        dg_ns now = dg_now_ns();
        if (!wt->cpu_sampled && now >= r->warm_end_ns) {
            wt->cpu0 = dg_process_cpu_ns();
            wt->cpu_sampled = 1;
        }
        if (now >= r->end_ns) {
            wt->stop_ns = r->end_ns;
            return 0;
        }
        int all_ended = 1;
        for (int i = 0; i < created && all_ended; i++)
            all_ended = dg_worker_ended(&r->w[i]);
        if (all_ended) {
            wt->stop_ns = now;
            for (int i = 0; i < created && !cfg->txns_per_worker; i++)
                res->window_cut |= atomic_load(&r->w[i].state) == W_GAVE_UP;
            return 0;
        }
        /* Seconds more than 5 s old are final even if a worker is stuck in a transaction. */
        int64_t now_s = ((int64_t)now - (int64_t)r->warm_end_ns) / (int64_t)DG_NS_PER_S;
        if (dg_series_collect(&res->series, &r->w[0].feed, sizeof r->w[0], created, now_s - 5, 0))
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory for the per-second series");
        if (cfg->poll && cfg->poll(cfg->rank_ctx, now, &res->series)) { /* another rank says stop */
            res->interrupted = 1;
            wt->stop_ns = now;
            atomic_store(&r->end_ns, now);
            return 0;
        }
        dg_stall_watch(r, now);
        if (now >= next_tick) {
            tick(r, DG_PHASE_MEASURE, &res->series, &wt->ticked);
            next_tick += cfg->tick_ns;
        }
        if (cfg->checkpoint && now >= wt->next_checkpoint) {
            checkpoint(r, wt, res);
            wt->next_checkpoint += cfg->checkpoint_ns;
        }
        dg_ns wake = next_tick < wt->next_checkpoint ? next_tick : wt->next_checkpoint;
        if (!wt->cpu_sampled && r->warm_end_ns < wake)
            wake = r->warm_end_ns;
        if (r->end_ns < wake)
            wake = r->end_ns;
        dg_ns wait = wake > now ? wake - now : 0;
        if (wait > 200 * DG_NS_PER_MS) /* also poll for workers that finished */
            wait = 200 * DG_NS_PER_MS;
        struct timespec ts = {(time_t)(wait / DG_NS_PER_S), (long)(wait % DG_NS_PER_S)};
        if (sigtimedwait(&wt->sigs, NULL, &ts) > 0) {
            res->interrupted = 1;
            wt->stop_ns = dg_now_ns();
            atomic_store(&r->end_ns, wt->stop_ns);
            return 0;
        }
    }
}

/* Joins one worker; with several ranks, polls them every 100 ms while it waits, so a rank
 * whose worker is slow to stop (a statement still running) keeps beating and is not taken
 * for lost. */
static void join_worker(struct runner *r, int i, const struct dg_series *se)
{
    const struct dg_runner_cfg *cfg = r->cfg;
    if (!cfg->poll) {
        pthread_join(r->w[i].th, NULL);
        return;
    }
    for (;;) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 100 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (pthread_timedjoin_np(r->w[i].th, NULL, &until) != ETIMEDOUT)
            return;
        cfg->poll(cfg->rank_ctx, dg_now_ns(), se);
    }
}

/* Tells every worker to stop, wakes those waiting on the schedule, and joins them. */
static void stop_workers(struct runner *r, int created, const struct dg_series *se)
{
    pthread_mutex_lock(&r->sched_mu);
    atomic_store(&r->stop, 1);
    pthread_cond_broadcast(&r->sched_cv); /* wake workers waiting for a due terminal */
    pthread_cond_broadcast(&r->idle_cv);
    pthread_mutex_unlock(&r->sched_mu);
    for (int i = 0; i < created; i++)
        join_worker(r, i, se);
}

/* Every worker's acknowledged writes, in one array for the result. */
static int collect_acks(struct runner *r, struct dg_run_result *res)
{
    size_t n = 0;
    for (int i = 0; i < r->cfg->workers; i++)
        for (const struct ack_chunk *c = r->w[i].acks; c; c = c->next)
            n += c->n;
    if (!n)
        return 0;
    if (!(res->acks = malloc(n * sizeof *res->acks)))
        return -1;
    for (int i = 0; i < r->cfg->workers; i++)
        for (const struct ack_chunk *c = r->w[i].acks; c; c = c->next) {
            memcpy(res->acks + res->nacks, c->a, c->n * sizeof c->a[0]);
            res->nacks += c->n;
        }
    return 0;
}

/* After the join: the rest of the series, the window's length, the counts and merged
 * histograms, per target too. Returns 0, or -1 with err out of memory. */
static int collect_results(struct runner *r, int created, struct watch *wt, dg_ns cpu1,
                           struct dg_run_result *res, struct dg_err *err)
{
    const struct dg_runner_cfg *cfg = r->cfg;
    /* Every worker has closed its feed: the rest of the series is final. */
    if (dg_series_collect(&res->series, &r->w[0].feed, sizeof r->w[0], created, 0, 1))
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory for the per-second series");
    dg_ns stop_ns = wt->stop_ns;
    if (cfg->txns_per_worker && !res->interrupted) {
        stop_ns = r->start_ns;
        for (int i = 0; i < cfg->workers; i++)
            if (r->w[i].finished_ns > stop_ns)
                stop_ns = r->w[i].finished_ns;
    }
    res->warmup_s = (double)(r->warm_end_ns - r->start_ns) / 1e9;
    res->measured_s = stop_ns > r->warm_end_ns ? (double)(stop_ns - r->warm_end_ns) / 1e9 : 0.0;
    res->client_cpu_s = wt->cpu_sampled ? (double)(cpu1 - wt->cpu0) / 1e9 : 0.0;
    if (stop_ns > r->warm_end_ns) { /* the series runs to the window's last (maybe partial) second */
        int64_t last = (int64_t)((stop_ns - r->warm_end_ns - 1) / DG_NS_PER_S);
        if (dg_series_extend(&res->series, last))
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory for the per-second series");
    }
    sum_counts(r, 2, -1, res->counts);
    int oom = 0;
    for (int t = 0; t < cfg->wl->ntypes; t++) {
        oom |= !(res->hist[t] = merged(r, H_LATENCY, t, -1));
        if (cfg->model != DG_LOAD_CLOSED)
            oom |= !(res->service[t] = merged(r, H_SERVICE, t, -1));
    }
    if (cfg->model != DG_LOAD_CLOSED)
        oom |= !(res->lag = merged(r, H_LAG, 0, -1));
    if (oom || ((cfg->ntargets > 0 || r->read_index >= 0) && fill_targets(r, res)))
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    for (int i = 0; i < cfg->workers; i++) {
        const struct worker *w = &r->w[i];
        res->workers_failed += atomic_load(&w->state) == W_GAVE_UP;
        res->arrivals += w->arrivals;
        res->late += w->late;
        res->skipped += w->skipped;
    }
    /* The first error of a worker that gave up says most; else the first any worker saw. */
    for (int pass = 0; pass < 2 && !res->first_error[0]; pass++)
        for (int i = 0; i < cfg->workers && !res->first_error[0]; i++)
            if (r->w[i].first_error[0] && (pass || atomic_load(&r->w[i].state) == W_GAVE_UP))
                snprintf(res->first_error, sizeof res->first_error, "%s", r->w[i].first_error);
    if (dg_outage_finish(r, &res->series, res) || collect_acks(r, res))
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    return 0;
}

static void init_sync(struct runner *r)
{
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    pthread_mutex_init(&r->sched_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* due times are monotonic */
    pthread_cond_init(&r->sched_cv, &ca);
    pthread_cond_init(&r->idle_cv, NULL);
    pthread_condattr_destroy(&ca);
}

static void destroy_sync(struct runner *r)
{
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->sched_mu);
    pthread_cond_destroy(&r->sched_cv);
    pthread_cond_destroy(&r->idle_cv);
}

/* The phases: set up, start at one line, watch the window, stop and join, collect. */
int dg_runner_run(const struct dg_runner_cfg *cfg, struct dg_run_result *res, struct dg_err *err)
{
    memset(res, 0, sizeof *res);
    res->ntypes = cfg->wl->ntypes;
    struct runner r = {.cfg = cfg, .read_index = cfg->read_target ? (cfg->ntargets > 0 ? cfg->ntargets : 1) : -1};
    if (cfg->read_target && (cfg->ntargets > 1 || !cfg->wl->read_only_types))
        return dg_err_set(err, DG_ERR_USER, 0, "a read target takes one target and a workload with read-only "
                                               "transactions");
    if (setup_workers(&r, err))
        return -1;
    if (cfg->model == DG_LOAD_THINK && setup_terminals(&r, err)) {
        free_workers(&r);
        return -1;
    }
    init_sync(&r);
    /* Signals are taken synchronously by this thread with sigtimedwait. */
    struct watch wt = {0};
    sigset_t old;
    sigemptyset(&wt.sigs);
    sigaddset(&wt.sigs, SIGINT);
    sigaddset(&wt.sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &wt.sigs, &old);

    int starting, rc = -1;
    const int ticks = cfg->tick_ns && cfg->tick;
    if (ticks) /* the reporter may say the run is connecting: that can take a while */
        cfg->tick(cfg->tick_ctx, &(struct dg_tick){.phase = DG_PHASE_CONNECT, .ntypes = cfg->wl->ntypes});
    int created = start_workers(&r, &starting, res, err);
    wt.cpu0 = dg_process_cpu_ns();
    wt.cpu_sampled = r.warm_end_ns == r.start_ns;
    wt.next_checkpoint = cfg->checkpoint && cfg->checkpoint_ns ? r.start_ns + cfg->checkpoint_ns : UINT64_MAX;
    int64_t warm_s = (int64_t)((r.warm_end_ns - r.start_ns + DG_NS_PER_S - 1) / DG_NS_PER_S);
    dg_series_init(&res->series, cfg->wl->ntypes, -warm_s);
    int watched = starting ? watch_window(&r, created, &wt, res, err) : -1;
    if (watched == 0 && ticks) /* the workers may take a while to finish their transactions */
        tick(&r, DG_PHASE_DONE, &res->series, &wt.ticked);
    stop_workers(&r, created, &res->series);
    dg_ns cpu1 = dg_process_cpu_ns();
    res->ended_wall = dg_wall_s();
    /* A signal that arrived while joining is taken now so it cannot kill us later. */
    struct timespec zero = {0, 0};
    while (sigtimedwait(&wt.sigs, NULL, &zero) > 0)
        res->interrupted = 1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (watched == 0 && collect_results(&r, created, &wt, cpu1, res, err) == 0)
        rc = 0;
    for (int i = 0; i < cfg->workers; i++)
        dg_worker_close(&r.w[i]);
    destroy_sync(&r);
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
    free(res->outages);
    res->outages = NULL;
    res->noutages = 0;
    free(res->acks);
    res->acks = NULL;
    res->nacks = 0;
}
