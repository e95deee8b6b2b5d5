/* runlife.c — the one life of a measured run, for every workload: the memory step, the targets
 * made ready (the workload's shared_open), the store, the monitor, the runner with a progress
 * tick, the record (figures derived from the counts, facts from the workload), store, re-read,
 * render, experiment step. Names no workload: what differs comes through struct dg_wl_cli. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/life.h"
#include "core/figures.h"
#include "core/opts.h"
#include "core/progress.h"
#include "report/summary.h"

/* A run whose errors, beside those of outages, exceed this share of its attempts failed: a
 * measurement mostly of errors is not one of the database's speed (docs/results.md). */
#define DG_MAX_ERROR_SHARE 0.05

/* Target k of the options: its URL parsed, its cluster (a node of --cluster) set. */
static int open_target(const char *cmd, const struct dg_run_opts *c, int k, struct dg_target *t)
{
    struct dg_err err;
    if (dg_target_parse(c->targets[k], t, &err))
        return dg_usage_error(cmd, "%s: %s", c->target_cluster[k] ? "--cluster" : "--target", err.msg);
    t->cluster = c->target_cluster[k];
    return 0;
}

/* The connections the whole run holds at once to target k (k == L->n: the read target): returns
 * how many, and why as "(4 for the virtual users, 2 for the monitor, ...)" into buf. */
static int conns_of(const struct life *L, int k, char *buf, size_t n)
{
    const struct dg_run_opts *c = &L->p->c;
    int users = k == L->n ? c->vus : L->split[k]; /* every user holds one to the read target too */
    int mon = c->no_monitor ? 0 : dg_cmd_monitor_conns(k == L->n ? &L->read.t : &L->ts[k].t, k == 0);
    int own = k == 0 && L->cli->measure_begin ? L->rr.size : 0; /* L->keep, on every rank */
    size_t o = (size_t)snprintf(buf, n, "(%d for the virtual users", users);
    if (mon && o < n)
        o += (size_t)snprintf(buf + o, n - o, ", %d for the monitor: none with --no-monitor", mon);
    if (own && o < n)
        o += (size_t)snprintf(buf + o, n - o, ", %d for the workload's own", own);
    if (o < n)
        snprintf(buf + o, n - o, ")");
    return users + mon + own;
}

/* A server that refused a connection for its limit (max_connections, the role's or user's)
 * is told, in L->err's message, how many the run holds at once: what to raise, or what to
 * lower. Other errors are left as they are. */
static void say_conn_needs(struct life *L)
{
    if (dg_err_error_cause(&L->err) != DG_ERROR_TOO_MANY_CONNECTIONS || !L->ts)
        return;
    char part[160];
    size_t len = strlen(L->err.msg), cap = sizeof L->err.msg;
    if (L->n == 1 && !L->read.t.drv) {
        int need = conns_of(L, 0, part, sizeof part);
        snprintf(L->err.msg + len, len < cap ? cap - len : 0, "; the run needs %d connections at once %s", need, part);
        return;
    }
    len += (size_t)snprintf(L->err.msg + len, len < cap ? cap - len : 0, "; the run needs at once");
    for (int k = 0; k <= L->n && len < cap; k++) {
        if (k == L->n && !L->read.t.drv)
            break;
        int need = conns_of(L, k, part, sizeof part);
        if (k < L->n)
            len += (size_t)snprintf(L->err.msg + len, cap - len, "%s %d connections to target %d %s", k ? "," : "",
                                    need, k + 1, part);
        else
            len += (size_t)snprintf(L->err.msg + len, cap - len, ", %d to the read target %s", need, part);
    }
}

/* Reports a failure to get target k of n ready, naming it when there are several. */
static int target_err(struct life *L, int k)
{
    say_conn_needs(L);
    if (L->n == 1)
        return dg_report_err(L->cmd, &L->err);
    fprintf(stderr, "dbgauge %s: target %d (%s) is not ready: %s\n", L->cmd, k + 1, L->ts[k].t.redacted, L->err.msg);
    return L->err.cls == DG_ERR_USER ? DG_EXIT_USAGE : DG_EXIT_FAILED;
}

/* A target that can write nothing (a standby, read_only) for a run that writes: -1 with
 * L->err (exit 2), before any transaction. */
static int refuse_read_only(struct life *L, const struct life_target *lt)
{
    if (!lt->si.read_only[0] || (L->cli->writes && !L->cli->writes(L->p->o)))
        return 0;
    return dg_err_set(&L->err, DG_ERR_USER, 0, "%s takes no writes: %s; a %s run writes (point it at a primary)",
                      lt->t.redacted, lt->si.read_only, L->cli->title);
}

/* Target k answers and its shared state is ready (the workload's checks). */
static int target_ready(struct life *L, int k, struct dg_rng *rng)
{
    struct life_target *lt = &L->ts[k];
    struct dg_conn_h h = {0};
    if (k > 0 && open_target(L->cmd, &L->p->c, k, &lt->t))
        return DG_EXIT_USAGE;
    if (!(lt->shared = calloc(1, L->cli->shared_size ? L->cli->shared_size : 1)))
        return DG_EXIT_FAILED;
    L->shareds[k] = lt->shared;
    struct dg_connect_opts co = {.memory_bytes = L->mst->session_bytes};
    /* A server still applying what it received (a Galera node after a load through another)
     * is waited for before the workload's checks read it. */
    if (dg_connect(&lt->t, &co, &h, &L->err) || dg_sync_wait(L->cmd, &lt->t, &h, L->p->c.sync_wait_ns, &L->err) ||
        dg_server_info(&h, &lt->si, &L->err) || refuse_read_only(L, lt) ||
        (L->cli->shared_open &&
         L->cli->shared_open(L->p->o, &L->p->c, &lt->t, &h, rng, lt->shared, &L->err))) {
        dg_disconnect(&h);
        return target_err(L, k);
    }
    if (k == 0 && L->cli->measure_begin)
        L->keep = h;
    else
        dg_disconnect(&h);
    return 0;
}

/* --read-target answers; it needs no shared state of its own (the primary's schema). */
static int read_target_ready(struct life *L)
{
    struct dg_err e;
    struct dg_conn_h h = {0};
    if (dg_target_parse(L->p->c.read_target, &L->read.t, &e))
        return dg_usage_error(L->cmd, "--read-target: %s", e.msg);
    if (dg_connect(&L->read.t, NULL, &h, &L->err) || dg_server_info(&h, &L->read.si, &L->err)) {
        dg_disconnect(&h);
        say_conn_needs(L);
        fprintf(stderr, "dbgauge %s: --read-target %s is not ready: %s\n", L->cmd, L->read.t.redacted, L->err.msg);
        return L->err.cls == DG_ERR_USER ? DG_EXIT_USAGE : DG_EXIT_FAILED;
    }
    dg_disconnect(&h);
    return 0;
}

/* An agreement of the ranks before the window (dist/ranks.h): 0 when every rank is ready,
 * else the failing rank's status, said by rank 0 (that rank said its own message itself). */
static int rank_agree(struct life *L, int rc)
{
    if (L->rr.size <= 1)
        return rc;
    char why[600];
    int got = dg_rank_agree(&L->rr, rc, rc ? (L->err.msg[0] ? L->err.msg : "not ready") : "", why, sizeof why);
    if (got && !rc && L->rr.rank == 0)
        fprintf(stderr, "dbgauge %s: %s\n", L->cmd, why);
    return got;
}

/* The memory knob first (one target only): what the run records is the engine after it;
 * then every target must be ready before anything is measured. */
static int targets_ready(struct life *L)
{
    const struct dg_run_opts *c = &L->p->c;
    if (dg_targets_split(L->cmd, L->n, c->vus, c->vus_per_target, c->target_cluster, L->split))
        return DG_EXIT_USAGE;
    if (!(L->ts = calloc((size_t)L->n, sizeof *L->ts)))
        return DG_EXIT_FAILED;
    if (open_target(L->cmd, c, 0, &L->ts[0].t))
        return DG_EXIT_USAGE;
    L->mst = L->in->memory ? L->in->memory : &L->own_mst;
    /* Several ranks: rank 0 alone applies the memory options and readies the targets first (a
     * workload's shared_open may make DDL: once), then the others (agreements 1 and 2). */
    int rc = L->rr.rank > 0 ? rank_agree(L, 0) : 0;
    if (rc)
        return rc;
    if (!L->in->memory && L->rr.rank == 0 && dg_memory_apply(&L->ts[0].t, &c->mem, &L->own_mst, &L->err))
        return dg_report_err(L->cmd, &L->err);
    struct dg_rng rng;
    dg_rng_seed(&rng, c->seed);
    for (int k = 0; k < L->n; k++)
        if ((rc = target_ready(L, k, &rng)))
            return rc;
    if (c->read_target && (rc = read_target_ready(L)))
        return rc;
    if (L->rr.rank == 0 && L->rr.size > 1 && (rc = rank_agree(L, 0)))
        return rc;
    L->facts.server_blocks_hit = L->facts.server_blocks_read = -1;
    if (L->cli->facts)
        L->cli->facts(L->p->o, c, L->shareds, L->n, &L->facts);
    return 0;
}

static void start_line(const struct life *L)
{
    const struct dg_run_opts *c = &L->p->c;
    for (int k = 0; k < L->n; k++) {
        char what[128] = "";
        if (L->cli->describe)
            L->cli->describe(L->ts[k].shared, what, sizeof what - 2);
        if (what[0])
            strcat(what, ", ");
        char node[48] = "";
        for (int i = 0, cl = L->ts[k].t.cluster, nth = 0; cl && i <= k; i++)
            if (L->ts[i].t.cluster == cl)
                snprintf(node, sizeof node, "node %d of cluster %d, ", ++nth, cl);
        fprintf(stderr, "%s on %s (%s%s %s): %s%d virtual user%s%s", L->cli->title, L->ts[k].t.redacted, node,
                L->ts[k].si.engine, L->ts[k].si.version, what, L->split[k], L->split[k] == 1 ? "" : "s",
                L->n > 1 ? "\n" : ", ");
    }
    if (L->n > 1)
        fprintf(stderr, "%d targets at once, %d virtual users in all, ", L->n, c->vus);
    if (L->read.t.drv)
        fprintf(stderr, "read-only transactions on %s (%s %s), ", L->read.t.redacted, L->read.si.engine,
                L->read.si.version);
    if (c->model == DG_LOAD_RATE)
        fprintf(stderr, "open loop at %g/s (%s arrivals), ", c->rate,
                c->arrivals == DG_ARRIVALS_UNIFORM ? "uniform" : "poisson");
    if (c->model == DG_LOAD_THINK)
        fprintf(stderr, "%d terminals with keying and think times%s, ", L->facts.terminals,
                c->think_scale != 1.0 ? " (scaled)" : "");
    if (c->txns_per_vu) {
        fprintf(stderr, "%llu transactions each\n", (unsigned long long)c->txns_per_vu);
    } else {
        char d[32], w[32];
        dg_format_duration(c->duration_ns, d, sizeof d);
        dg_format_duration(c->warmup_ns, w, sizeof w);
        fprintf(stderr, "%s warm-up then %s measured\n", w, d);
    }
}

/* The reporter, every second (and at connect and stop): the status line or, every 10 s, the
 * plain line (core/progress.c decides which and when). */
static void run_tick(void *ctx, const struct dg_tick *own)
{
    struct life *L = ctx;
    if (L->rr.rank > 0)
        return; /* rank 0 speaks for the run */
    struct dg_tick merged = *own;
    dg_rank_tick(&L->rr, &merged); /* the other ranks' counts, from their beats */
    life_live_tick(L, &merged);
    dg_progress_tick(&L->prog, &merged, stderr);
}

/* How the run shows its progress: the view its options and stderr make, its figures, its
 * length (or count) for the ETA, and its step in an experiment or a sweep. */
static void progress_begin(struct life *L)
{
    const struct dg_run_opts *c = &L->p->c;
    struct dg_progress *p = &L->prog;
    p->view = dg_progress_view_of(c->progress, c->quiet, isatty(STDERR_FILENO));
    p->figs = life_figures(L, &p->nfigs);
    p->total_s = c->txns_per_vu ? 0 : (double)(c->warmup_ns + c->duration_ns) / 1e9;
    p->txns_total = c->txns_per_vu * (uint64_t)c->vus;
    snprintf(p->step, sizeof p->step, "%s", L->in->live_step); /* "step 2/7" of an experiment or a sweep */
}

/* At the start line: the monitor's hook, then the fault schedule on the window's clock. */
static void on_start(void *ctx, dg_ns start_ns, dg_ns warm_end_ns)
{
    struct life *L = ctx;
    if (L->chained_start)
        L->chained_start(L->chained_ctx, start_ns, warm_end_ns);
    struct dg_err err = {0};
    L->faults = dg_faults_start(L->p->c.faults, L->p->c.nfaults, warm_end_ns, &err);
    if (err.msg[0])
        fprintf(stderr, "dbgauge %s: %s\n", L->cmd, err.msg);
}

/* The runner's hooks for several ranks: one start line, beats and stops in the window. */
static dg_ns rank_start(void *ctx, int ok, struct dg_err *err)
{
    return dg_rank_start(&((struct life *)ctx)->rr, ok, err);
}

static int rank_poll(void *ctx, dg_ns now, const struct dg_series *se)
{
    return dg_rank_poll(&((struct life *)ctx)->rr, now, se);
}

/* This rank's share of the run (its workers, terminals, arrivals) and the hooks. */
static void rank_cfg(struct life *L, struct dg_runner_cfg *cfg)
{
    const struct dg_run_opts *c = &L->p->c;
    cfg->workers = L->share.n;
    cfg->worker_base = L->share.base;
    cfg->workers_total = c->vus;
    cfg->rate_per_s = c->rate * L->share.n / c->vus;
    if (c->model == DG_LOAD_THINK) {
        cfg->terminals = L->share.nterms;
        cfg->terminal_ids = L->share.term_ids;
        cfg->terminals_total = L->facts.terminals;
    }
    cfg->start_at = rank_start;
    cfg->poll = rank_poll;
    cfg->rank_ctx = L;
}

/* Another rank: its host's monitor points, the seconds of its series, to go with its result. */
static void host_points(struct life *L)
{
    dg_cmd_monitor_end(&L->mon, &L->rec);
    const struct dg_series *se = &L->res.series;
    if (se->n && L->rec.nmonitor)
        L->rec.nmonitor = dg_monitor_trim(L->rec.monitor, L->rec.nmonitor, se->pts[0].second, se->pts[se->n - 1].second);
    L->rr.my_mon = L->rec.monitor;
    L->rr.my_nmon = L->rec.nmonitor;
}

/* After the window: every rank's result to rank 0, which makes a row per rank and merges them
 * into its own. Returns 0, or -1 with L->err. */
static int rank_results(struct life *L)
{
    if (L->rr.size <= 1)
        return 0;
    int gathered = dg_rank_gather(&L->rr, &L->res, L->res.interrupted);
    if (gathered == -2)
        return dg_err_set(&L->err, DG_ERR_FATAL, 0, "rank 0 did not take this rank's result within 30 s "
                          "(it counted this rank lost: the stored run lacks this rank's figures)");
    if (gathered)
        return dg_err_set(&L->err, DG_ERR_FATAL, 0, "the ranks' results could not be gathered (out of memory)");
    if (L->rr.rank > 0)
        return 0;
    int nfig;
    const struct dg_figure_def *figs = life_figures(L, &nfig);
    const struct dg_run_opts *c = &L->p->c;
    struct dg_rank_figs f = {.figs = figs, .nfigs = nfig, .vus = c->vus,
                             .terminals = c->model == DG_LOAD_THINK ? L->facts.terminals : 0,
                             .scale = c->model == DG_LOAD_THINK ? L->facts.scale : 0,
                             .standard_times = c->model == DG_LOAD_THINK && c->think_scale == 1.0};
    if (dg_rank_results(&L->rr, &L->res, &f, &L->rec.ranks, &L->rec.nranks))
        return dg_err_set(&L->err, DG_ERR_FATAL, 0, "out of memory merging the ranks' results");
    return 0;
}

/* The runner over every target, watched by the monitor. */
static int measure(struct life *L)
{
    const struct dg_run_opts *c = &L->p->c;
    const struct dg_target *tptr[DG_MAX_TARGETS + 1]; /* and the read target, for the monitor */
    for (int k = 0; k < L->n; k++)
        tptr[k] = &L->ts[k].t;
    struct dg_runner_cfg cfg = {.model = c->model, .rate_per_s = c->rate, .arrivals = c->arrivals,
                                .terminals = L->facts.terminals ? L->facts.terminals : c->vus,
                                .think_scale = c->think_scale, .wl = L->p->wl, .shared = L->shareds[0],
                                .target = tptr[0], .workers = c->vus, .warmup_ns = c->warmup_ns,
                                .duration_ns = c->txns_per_vu ? 0 : c->duration_ns,
                                .txns_per_worker = c->txns_per_vu, .seed = c->seed,
                                .max_retries = L->cli->max_retries, .tick_ns = DG_NS_PER_S,
                                .tick = run_tick, .tick_ctx = L,
                                .session_memory_bytes = L->mst->session_bytes,
                                .reconnect_timeout_ns = c->reconnect_timeout_ns,
                                .latency_limit_ns = c->latency_limit_ns, .no_acks = c->no_audit_log,
                                .read_target = L->read.t.drv ? &L->read.t : NULL};
    if (L->n > 1) {
        cfg.ntargets = L->n;
        cfg.targets = tptr;
        cfg.shareds = L->shareds;
        cfg.target_workers = L->split;
    }
    /* Several ranks: the database's host and the engine are sampled once, by rank 0; every
     * other rank samples its own host (sent to rank 0 with its result). */
    L->mon = (struct dg_cmd_monitor){.enabled = !c->no_monitor, .host_only = L->rr.rank > 0,
                                     .device_opt = c->monitor_device};
    /* The monitor watches the first target's host and device; its cache counters add up
     * every worker's connection; it asks every target's replication. */
    int nmon = L->n;
    if (L->read.t.drv) /* the replica's replication too (its lag behind the primary), numbered as in the result */
        tptr[nmon++] = &L->read.t;
    if (dg_cmd_monitor_begin(&L->mon, tptr, nmon, c->vus, &cfg, &L->err)) /* the run goes on without it */
        fprintf(stderr, "dbgauge %s: monitor: %s; running without it\n", L->cmd, L->err.msg);
    if (L->rr.size > 1)
        rank_cfg(L, &cfg);
    if (c->nfaults && L->rr.rank == 0) {
        L->chained_start = cfg.on_start;
        L->chained_ctx = cfg.start_ctx;
        cfg.on_start = on_start;
        cfg.start_ctx = L;
    }
    if (L->cli->measure_begin && L->rr.rank == 0)
        L->cli->measure_begin(L->shareds[0], &L->keep);
    if (L->store && c->checkpoint_ns) {
        cfg.checkpoint = life_checkpoint;
        cfg.checkpoint_ctx = L;
        cfg.checkpoint_ns = c->checkpoint_ns;
    }
    progress_begin(L);
    int ran = dg_runner_run(&cfg, &L->res, &L->err);
    dg_progress_end(&L->prog, stderr); /* before anything else is said */
    if (ran) /* a worker could not connect: the run did not start */
        say_conn_needs(L);
    L->nfault_events = dg_faults_finish(L->faults, L->fault_events, DG_MAX_FAULTS);
    L->faults = NULL;
    if (ran)
        return L->rr.rank == 0 || !L->rr.peer_failed /* else rank 0 says which rank failed */
               ? dg_report_err(L->cmd, &L->err) : (L->err.cls == DG_ERR_USER ? DG_EXIT_USAGE : DG_EXIT_FAILED);
    L->windowed = L->rr.size > 1;
    if (L->rr.rank > 0)
        host_points(L);
    if (rank_results(L))
        return dg_report_err(L->cmd, &L->err);
    if (L->cli->measure_end && L->rr.rank == 0) {
        uint64_t txns = 0;
        for (int k = 0; k < L->res.ntypes; k++)
            txns += L->res.counts[k].committed + L->res.counts[k].rollbacks + L->res.counts[k].errors;
        L->cli->measure_end(L->shareds[0], &L->keep, txns, &L->facts);
    }
    return 0;
}

/* The audit is a check of the run: one that found a loss, or was due and not made, fails it. */
static int audit_fails(const struct dg_run_record *r)
{
    return r->audit_not_made[0] || (r->audited && !r->audit.pass);
}

/* The errors of x that are not a lost connection or a session the server ended: those are an
 * outage's, measured as one (docs/results.md). All of them when the causes are not known. */
static uint64_t errors_beside_outages(const struct dg_txn_summary *x)
{
    if (!x->error_causes_known)
        return x->errors;
    uint64_t lost = x->error_causes[DG_ERROR_CONNECTION] + x->error_causes[DG_ERROR_CLOSED_BY_SERVER];
    return x->errors > lost ? x->errors - lost : 0;
}

/* Why the transactions of a finished run fail it, into why[n], or 0: a type that was attempted
 * and never completed (committed or rolled back on purpose), or errors beside outages over
 * DG_MAX_ERROR_SHARE of the attempts. */
static int transactions_fail(const struct dg_run_record *r, char *why, size_t n)
{
    uint64_t done = 0, bad = 0;
    for (int k = 0; k < r->ntypes; k++) {
        const struct dg_txn_summary *x = &r->txn[k];
        uint64_t e = errors_beside_outages(x), ok = x->committed + x->rollbacks;
        if (e && !ok) {
            snprintf(why, n, "%s never completed: %llu attempt%s, every one an error", x->name,
                     (unsigned long long)e, e == 1 ? "" : "s");
            return 1;
        }
        done += ok;
        bad += e;
    }
    if (bad && (double)bad > DG_MAX_ERROR_SHARE * (double)(done + bad)) {
        snprintf(why, n, "%llu of %llu attempts failed (%.1f%%), more than the %.0f%% a run may lose to errors",
                 (unsigned long long)bad, (unsigned long long)(done + bad), 100.0 * (double)bad / (double)(done + bad),
                 100.0 * DG_MAX_ERROR_SHARE);
        return 1;
    }
    return 0;
}

/* Why a finished run failed (into L->why), or NULL. */
static const char *failure(struct life *L)
{
    uint64_t committed = 0, errors = 0;
    for (int k = 0; k < L->rec.ntypes; k++) {
        committed += L->rec.txn[k].committed;
        errors += L->rec.txn[k].errors;
    }
    if (L->res.interrupted || L->res.workers_failed || !committed || (L->cli->fail_on_errors && errors))
        return L->rec.error[0] ? L->rec.error : L->res.interrupted ? "interrupted"
               : errors                      ? "transactions failed"
                                             : "no transaction committed";
    if (transactions_fail(&L->rec, L->why, sizeof L->why))
        return L->why;
    if (audit_fails(&L->rec))
        return L->rec.audit_not_made[0] ? "the audit after the run could not be made"
                                        : "the audit found acknowledged writes lost";
    return NULL;
}

/* Stores the run, reads it back and renders it as any later report will. */
static int keep_and_show(struct life *L)
{
    const struct dg_run_opts *c = &L->p->c;
    FILE *text = L->in->step ? L->in->step->text : c->json ? stderr : stdout;
    const char *why = failure(L);
    /* A run that measured what it was asked to and still failed is stored failed, saying why
     * (one cut short is incomplete, said so by its own line below). */
    if (why && !L->res.interrupted && !L->res.workers_failed && !L->rr.why[0]) {
        snprintf(L->rec.status, sizeof L->rec.status, "failed");
        if (why != L->rec.error) { /* why, then the first error met, if any */
            char first[sizeof L->rec.error];
            snprintf(first, sizeof first, "%s", L->rec.error);
            snprintf(L->rec.error, sizeof L->rec.error, first[0] ? "%s; first error: %s" : "%s%s", why, first);
        }
    }
    if (dg_store_put(L->store, &L->rec, &L->err)) {
        /* Say what was measured even though it could not be kept. */
        fprintf(stderr, "dbgauge %s: %s; the run's figures follow, unsaved", L->cmd, L->err.msg);
        if (L->ckpt_id)
            fprintf(stderr, " (its last checkpoint is kept as run %lld)", (long long)L->ckpt_id);
        fputc('\n', stderr);
        L->rec.id = 0; /* the text names no id the results database does not hold */
        dg_report_run_text(text, &L->rec);
        return DG_EXIT_FAILED;
    }
    L->stored = 1;
    int64_t id = L->in->run_id = L->rec.id;
    char unkept[sizeof L->rec.unkept]; /* what the store could not keep, said last */
    snprintf(unkept, sizeof unkept, "%s", L->rec.unkept);
    if (L->in->group_id < 0 && dg_store_set_group(L->store, id, id, &L->err) && !unkept[0])
        return dg_report_err(L->cmd, &L->err); /* (a file that is full already is said below) */
    if (L->in->step)
        L->in->step->run_id = id;
    if (why && L->in->step)
        snprintf(L->in->step->error, sizeof L->in->step->error, "%s", why);
    else if (unkept[0] && L->in->step)
        snprintf(L->in->step->error, sizeof L->in->step->error, DG_NOT_KEPT "%s", unkept);
    if (!L->in->quiet) {
        dg_run_record_free(&L->rec);
        if (dg_store_get(L->store, id, 0, &L->rec, &L->err))
            return dg_report_err(L->cmd, &L->err);
        dg_report_run_text(text, &L->rec);
        if (c->json && !L->in->step)
            dg_print_json(dg_report_run_json(&L->rec));
        if (L->rr.why[0])
            fprintf(stderr, "dbgauge %s: %s; what the other ranks measured is stored as run %lld, marked failed\n",
                    L->cmd, L->rr.why, (long long)id);
        else if (L->res.interrupted)
            fprintf(stderr, "dbgauge %s: interrupted; what was measured is stored as run %lld, marked incomplete\n",
                    L->cmd, (long long)id);
    }
    if (why && !L->res.interrupted && !L->res.workers_failed && !L->rr.why[0])
        fprintf(stderr, "dbgauge %s: %s; the run is stored as run %lld, marked failed (exit 1)\n", L->cmd, why,
                (long long)id);
    if (L->res.workers_failed)
        fprintf(stderr, "dbgauge %s: %d of %d virtual user%s gave up%s; what was measured is stored as run %lld, "
                "marked incomplete\n", L->cmd, L->res.workers_failed, c->vus, c->vus == 1 ? "" : "s",
                L->res.window_cut ? " and the window was cut short" : "", (long long)id);
    if (unkept[0])
        fprintf(stderr, "dbgauge %s: the results database kept run %lld without %s (exit 1)\n", L->cmd, (long long)id,
                unkept);
    return why || unkept[0] ? DG_EXIT_FAILED : DG_EXIT_OK;
}

/* Everything before the window: the targets ready, the store open (rank 0), the share of
 * this rank, every rank agreed. Returns an exit status. */
static int before_window(struct life *L)
{
    const struct dg_run_opts *c = &L->p->c;
    int rc = targets_ready(L);
    if (rc)
        return rc;
    if (L->rr.rank == 0 &&
        (dg_store_open(c->results, &L->store, &L->err) || dg_store_check_writable(L->store, &L->err)))
        return dg_report_err(L->cmd, &L->err);
    if (L->rr.size > 1) {
        int scale = c->model == DG_LOAD_THINK ? L->facts.scale : 0;
        int terms = c->model == DG_LOAD_THINK ? L->facts.terminals : 0;
        if (c->vus < L->rr.size || (terms && (scale > 0 ? scale : terms) < L->rr.size))
            return dg_usage_error(L->cmd, "%d ranks need at least one virtual user%s each (--vus %d%s)",
                                  L->rr.size, terms ? " and one warehouse of terminals" : "", c->vus,
                                  terms ? ", and the scale" : "");
        if (dg_rank_share(L->rr.rank, L->rr.size, c->vus, terms, scale, &L->share))
            return dg_err_set(&L->err, DG_ERR_FATAL, 0, "out of memory"), dg_report_err(L->cmd, &L->err);
    }
    return rank_agree(L, 0);
}

int dg_run_life(struct dg_life *l)
{
    struct life L = {.in = l, .p = l->p, .cli = l->p->wl->cli, .cmd = l->p->cmd, .n = l->p->c.ntargets};
    L.mst = &L.own_mst;
    l->run_id = 0;
    l->interrupted = 0;
    int rc = dg_rank_run_init(&L.rr, l->p->wl->ntypes) ? DG_EXIT_FAILED : before_window(&L);
    if (rc)
        goto out;
    if ((rc = life_live_begin(&L)))
        goto out;
    if (L.rr.rank == 0 && !l->p->c.quiet)
        start_line(&L);
    if ((rc = measure(&L)) || L.rr.rank > 0) /* rank 0 records, stores and shows the run */
        goto out;
    if ((rc = life_record(&L) ? DG_EXIT_FAILED : 0))
        goto out;
    l->interrupted = L.res.interrupted;
    const struct dg_target *tptr[DG_MAX_TARGETS];
    for (int k = 0; k < L.n; k++)
        tptr[k] = &L.ts[k].t;
    dg_cmd_audit_after(L.cli, &l->p->c, tptr, L.n, &L.rec, L.cmd);
    rc = keep_and_show(&L);
out:
    if (L.ckpt_id && !L.stored) /* checkpointed, then failed before the run was kept whole */
        dg_store_abandon(L.store, L.ckpt_id, L.err.msg[0] ? L.err.msg : "failed after the window", &L.err);
    if (L.rr.size > 1 && L.rr.stage < DG_RANK_STAGES)
        dg_rank_fail_early(&L.rr, rc, L.err.msg[0] ? L.err.msg : "failed before measuring");
    else if (L.windowed) /* every rank ends with rank 0's status, and knows the stored run */
        rc = dg_rank_done(&L.rr, rc, &l->run_id, &l->interrupted);
    if (l->step && l->interrupted && L.rr.rank > 0) /* an experiment stops on every rank */
        snprintf(l->step->error, sizeof l->step->error, "interrupted");
    if (rc && l->step && !l->step->error[0])
        snprintf(l->step->error, sizeof l->step->error, "%s", L.err.msg[0] ? L.err.msg : "failed before measuring");
    life_live_end(&L);
    dg_cmd_monitor_end(&L.mon, NULL);
    dg_memory_release(&L.own_mst);
    dg_disconnect(&L.keep);
    for (int k = 0; L.ts && k < L.n; k++) {
        if (L.ts[k].shared && L.cli->shared_free)
            L.cli->shared_free(L.ts[k].shared);
        free(L.ts[k].shared);
    }
    free(L.ts);
    dg_run_record_free(&L.rec);
    dg_run_result_free(&L.res);
    dg_store_close(L.store);
    dg_rank_share_free(&L.share);
    int lost = L.rr.ndead;
    dg_rank_run_free(&L.rr);
    if (lost) /* the ranks cannot meet again: what was measured is stored, end here */
        dg_ranks_finalize(1, rc);
    return rc;
}
