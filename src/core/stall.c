/* stall.c — a cluster that stops committing as a whole while its nodes are up: a Galera
 * cluster evicting a dead node holds every write on the others for seconds (evs.suspect_timeout)
 * without an error anywhere. Each node's own outage covers only the dead one; this is the
 * outage of the cluster (target -c), from its last commit to its first after. The main thread
 * opens it, watching the workers' last commits every 200 ms at most; the first commit after
 * closes it on the commit path, which reads one relaxed counter while none is open. Closed
 * loop only: there a second without a commit is not think time or an idle schedule. */
#include <stdlib.h>
#include <string.h>

#include "core/runner_internal.h"

/* The cluster of target k (0: none): the targets' own --cluster numbers. */
static int cluster_of(const struct runner *r, int k)
{
    return r->cfg->ntargets > 0 && k >= 0 && k < r->cfg->ntargets ? r->cfg->targets[k]->cluster : 0;
}

static struct stall_track *stall_of(struct runner *r, int cluster)
{
    for (int i = 0; cluster && i < r->nstalls; i++)
        if (r->stalls[i].cluster == cluster)
            return &r->stalls[i];
    return NULL;
}

int dg_stall_setup(struct runner *r)
{
    r->stalls = NULL;
    r->nstalls = 0;
    atomic_store(&r->stalls_open, 0);
    if (r->cfg->model != DG_LOAD_CLOSED || r->cfg->ntargets < 2)
        return 0;
    r->stalls = calloc((size_t)r->cfg->ntargets, sizeof *r->stalls); /* owned: freed by dg_outage_free */
    if (!r->stalls)
        return -1;
    for (int k = 0; k < r->cfg->ntargets; k++) {
        int c = cluster_of(r, k), nodes = 0;
        for (int j = 0; c && j < r->cfg->ntargets; j++)
            nodes += cluster_of(r, j) == c;
        if (nodes >= 2 && !stall_of(r, c))
            r->stalls[r->nstalls++] = (struct stall_track){.cluster = c};
    }
    return 0;
}

/* The cluster's last commit (0: none yet), and the earliest of its workers' last commits after
 * `after` into *first_after (0: none). */
static dg_ns last_commit(const struct runner *r, int cluster, dg_ns after, dg_ns *first_after)
{
    dg_ns last = 0;
    *first_after = 0;
    for (int i = 0; i < r->cfg->workers; i++) {
        const struct worker *w = &r->w[i];
        if (cluster_of(r, w->target) != cluster)
            continue;
        dg_ns c = atomic_load_explicit(&w->last_commit, memory_order_relaxed);
        if (c > last)
            last = c;
        if (after && c > after && (!*first_after || c < *first_after))
            *first_after = c;
    }
    return last;
}

/* Whether a worker is connected to a node of the cluster that has no outage open: the cluster
 * is up and asked, yet none of it commits. */
static int some_node_up(const struct runner *r, int cluster)
{
    for (int i = 0; i < r->cfg->workers; i++) {
        const struct worker *w = &r->w[i];
        if (cluster_of(r, w->target) == cluster && atomic_load_explicit(&w->state, memory_order_relaxed) == W_RUNNING &&
            !dg_outage_open(r, w->target))
            return 1;
    }
    return 0;
}

/* Closes stall s at t (0: the run ended first, not back). Under out_mu. */
static void close_stall(struct runner *r, struct stall_track *s, dg_ns t)
{
    atomic_store_explicit(&s->open, 0, memory_order_relaxed);
    atomic_fetch_sub_explicit(&r->stalls_open, 1, memory_order_relaxed);
    struct dg_outage *o = dg_outage_append(r);
    if (!o)
        return; /* out of memory: this one is not kept */
    o->target = -s->cluster;
    o->start_s = (double)(int64_t)(s->start - r->warm_end_ns) / 1e9;
    o->duration_s = o->first_commit_s = t ? (double)(t - s->start) / 1e9 : -1;
    o->last_commit_s = 0; /* it starts at the last commit */
    o->recovery_s = -1;
}

void dg_stall_watch(struct runner *r, dg_ns now)
{
    for (int i = 0; i < r->nstalls; i++) {
        struct stall_track *s = &r->stalls[i];
        dg_ns first;
        if (atomic_load_explicit(&s->open, memory_order_relaxed)) /* only this thread opens one */
            continue;
        dg_ns last = last_commit(r, s->cluster, 0, &first);
        if (!last || now < last + DG_STALL_AFTER_NS || !some_node_up(r, s->cluster))
            continue;
        pthread_mutex_lock(&r->out_mu);
        atomic_store_explicit(&s->open, 1, memory_order_relaxed);
        s->start = last;
        atomic_fetch_add_explicit(&r->stalls_open, 1, memory_order_relaxed);
        /* A commit that came between the look above and the counter going up was not seen by
         * its worker as closing anything: it closes the stall here (at the earliest such). */
        last_commit(r, s->cluster, last, &first);
        if (first)
            close_stall(r, s, first);
        pthread_mutex_unlock(&r->out_mu);
    }
}

void dg_stall_commit(struct runner *r, int target, dg_ns t)
{
    pthread_mutex_lock(&r->out_mu);
    struct stall_track *s = stall_of(r, cluster_of(r, target));
    if (s && atomic_load_explicit(&s->open, memory_order_relaxed) && t > s->start)
        close_stall(r, s, t);
    pthread_mutex_unlock(&r->out_mu);
}

void dg_stall_finish(struct runner *r)
{
    for (int i = 0; i < r->nstalls; i++)
        if (atomic_load_explicit(&r->stalls[i].open, memory_order_relaxed))
            close_stall(r, &r->stalls[i], 0);
}

int dg_stall_peek(struct runner *r, dg_ns now, struct dg_outage *out, int n, int max)
{
    for (int i = 0; i < r->nstalls; i++) {
        const struct stall_track *s = &r->stalls[i];
        if (!atomic_load_explicit(&s->open, memory_order_relaxed))
            continue;
        if (n == max)
            memmove(out, out + 1, (size_t)--n * sizeof *out);
        out[n++] = (struct dg_outage){.target = -s->cluster, .start_s = (double)(int64_t)(s->start - r->warm_end_ns) / 1e9,
                                      .duration_s = (double)(now - s->start) / 1e9, .first_commit_s = -1,
                                      .last_commit_s = 0, .recovery_s = -1};
    }
    return n;
}

uint64_t dg_stall_committed(const struct runner *r, int target, const struct dg_series_point *p)
{
    if (target >= 0)
        return target < DG_SERIES_TARGETS ? p->target_committed[target] : 0;
    uint64_t sum = 0;
    for (int k = 0; k < r->cfg->ntargets && k < DG_SERIES_TARGETS; k++)
        sum += cluster_of(r, k) == -target ? p->target_committed[k] : 0;
    return sum;
}
