/* outage.c — a target's outages as the workers live them: opened by the first transaction
 * that fails on a lost connection, given a "back" time by the first connection made again,
 * closed by the first commit after. A commit on a connection older than the outage, while it
 * is open or after it closed, means the target never went away (one session was killed, say,
 * and may have reconnected and committed before any other session did): that span is
 * dropped, its errors stay counted with their transactions. Recovery comes after the run,
 * from the per-second commits of the target. Only connection errors, reconnects and those
 * commits take the lock. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/runner_internal.h"

/* Targets with an outage tracker: the workers' ones and the read target. */
static int tracked(const struct runner *r)
{
    return (r->cfg->ntargets > 0 ? r->cfg->ntargets : 1) + (r->read_index >= 0);
}

int dg_outage_setup(struct runner *r)
{
    int n = tracked(r);
    r->track = calloc((size_t)n, sizeof *r->track);
    if (!r->track)
        return -1;
    pthread_mutex_init(&r->out_mu, NULL);
    return dg_stall_setup(r);
}

void dg_outage_free(struct runner *r)
{
    if (r->track)
        pthread_mutex_destroy(&r->out_mu);
    free(r->track);
    free(r->stalls);
    r->stalls = NULL;
    r->nstalls = 0;
    free(r->outages);
    r->track = NULL;
    r->outages = NULL;
    r->noutages = 0;
}

static double secs(dg_ns a, dg_ns b) /* b - a, signed, in seconds */
{
    return (double)(int64_t)(b - a) / 1e9;
}

/* Moves target's open outage to the closed list: first commit at t, or none (t 0) when the run
 * ended first. Under out_mu. */
struct dg_outage *dg_outage_append(struct runner *r)
{
    if (r->noutages == r->outages_cap) {
        int cap = r->outages_cap ? 2 * r->outages_cap : 8;
        struct dg_outage *o = realloc(r->outages, (size_t)cap * sizeof *o);
        if (!o)
            return NULL;
        r->outages = o;
        r->outages_cap = cap;
    }
    struct dg_outage *o = &r->outages[r->noutages++];
    atomic_store_explicit(&r->outages_closed, r->noutages, memory_order_relaxed);
    memset(o, 0, sizeof *o);
    return o;
}

static void close_open(struct runner *r, int target, dg_ns t)
{
    struct outage_track *k = &r->track[target];
    atomic_store_explicit(&k->open, 0, memory_order_relaxed);
    struct dg_outage *o = dg_outage_append(r);
    if (!o)
        return; /* out of memory: this one is not kept */
    o->target = target;
    o->start_s = secs(r->warm_end_ns, k->start);
    /* a target never reached again is not back: no length (-1), not the rest of the run's */
    o->duration_s = k->back ? secs(k->start, k->back) : t ? secs(k->start, t) : -1;
    o->first_commit_s = t ? secs(k->start, t) : -1;
    o->last_commit_s = k->last_commit ? secs(k->last_commit, k->start) : -1;
    o->recovery_s = -1;
    o->errors = k->errors;
    o->reconnects = k->reconnects;
    memcpy(o->back_on, k->back_on, sizeof o->back_on);
    k->closed_index = r->noutages - 1;
    atomic_store_explicit(&k->closed_start, k->start, memory_order_relaxed);
}

/* Drops target's last closed outage: a connection older than it committed. Under out_mu. */
static void drop_closed(struct runner *r, int target)
{
    struct outage_track *k = &r->track[target];
    int i = k->closed_index;
    memmove(&r->outages[i], &r->outages[i + 1], (size_t)(r->noutages - i - 1) * sizeof *r->outages);
    r->noutages--;
    atomic_store_explicit(&r->outages_closed, r->noutages, memory_order_relaxed);
    atomic_store_explicit(&k->closed_start, 0, memory_order_relaxed);
    for (int t = 0; t < tracked(r); t++) /* the ones after it moved down one place */
        if (r->track[t].closed_index > i)
            r->track[t].closed_index--;
}

int dg_outage_seen(const struct runner *r, int *open)
{
    int n = atomic_load_explicit(&r->outages_closed, memory_order_relaxed);
    int stalled = atomic_load_explicit(&r->stalls_open, memory_order_relaxed);
    *open = stalled > 0;
    n += stalled;
    for (int k = 0; k < tracked(r); k++)
        if (dg_outage_open(r, k)) {
            *open = 1;
            n++;
        }
    return n;
}

void dg_outage_error(struct runner *r, int target, dg_ns t)
{
    struct outage_track *k = &r->track[target];
    pthread_mutex_lock(&r->out_mu);
    if (!atomic_load_explicit(&k->open, memory_order_relaxed)) {
        k->start = t;
        k->back = 0;
        k->last_commit = 0;
        for (int i = 0; i < r->cfg->workers; i++) { /* the gap before it: part of its RTO */
            const struct worker *w = &r->w[i];
            dg_ns c = target == r->read_index ? atomic_load_explicit(&w->last_read_commit, memory_order_relaxed)
                      : w->target == target   ? atomic_load_explicit(&w->last_commit, memory_order_relaxed)
                                              : 0;
            if (c > k->last_commit && c <= t)
                k->last_commit = c;
        }
        k->errors = k->reconnects = 0;
        k->back_on[0] = '\0';
        atomic_store_explicit(&k->open, 1, memory_order_relaxed);
    }
    k->errors++;
    pthread_mutex_unlock(&r->out_mu);
}

void dg_outage_attempt(struct runner *r, int target, int ok, dg_ns t, const char *where)
{
    struct outage_track *k = &r->track[target];
    pthread_mutex_lock(&r->out_mu);
    if (atomic_load_explicit(&k->open, memory_order_relaxed)) {
        k->reconnects++;
        if (ok && !k->back) {
            k->back = t;
            snprintf(k->back_on, sizeof k->back_on, "%s", where ? where : "");
        }
    }
    pthread_mutex_unlock(&r->out_mu);
}

void dg_outage_commit(struct runner *r, int target, dg_ns conn_since, dg_ns t)
{
    struct outage_track *k = &r->track[target];
    pthread_mutex_lock(&r->out_mu);
    if (atomic_load_explicit(&k->open, memory_order_relaxed)) {
        if (conn_since < k->start)
            atomic_store_explicit(&k->open, 0, memory_order_relaxed); /* never away: dropped */
        else
            close_open(r, target, t);
    } else {
        dg_ns closed = atomic_load_explicit(&k->closed_start, memory_order_relaxed);
        if (closed && conn_since < closed)
            drop_closed(r, target); /* never away after all */
    }
    pthread_mutex_unlock(&r->out_mu);
}

/* Seconds from o's start to the end of the first second after its first commit in which the
 * target committed at least 90% of its mean over the (up to) 10 s before; -1 when it never did
 * in the run, or when nothing was committed before the outage to compare with. */
static double recovery_of(const struct runner *r, const struct dg_outage *o, const struct dg_series *se)
{
    int64_t s0 = (int64_t)floor(o->start_s); /* its second */
    uint64_t before = 0;
    int nbefore = 0;
    for (size_t i = 0; i < se->n; i++)
        if (se->pts[i].second < s0 && se->pts[i].second >= s0 - 10) {
            before += dg_stall_committed(r, o->target, &se->pts[i]);
            nbefore++;
        }
    if (!nbefore || !before || o->first_commit_s < 0)
        return -1;
    double goal = 0.9 * (double)before / nbefore;
    double from = o->start_s + o->first_commit_s;
    for (size_t i = 0; i < se->n; i++) {
        const struct dg_series_point *p = &se->pts[i];
        if ((double)p->second + 1 > from && p->second >= s0 && (double)dg_stall_committed(r, o->target, p) >= goal)
            return (double)(p->second + 1) - o->start_s;
    }
    return -1;
}

int dg_outage_finish(struct runner *r, const struct dg_series *se, struct dg_run_result *res)
{
    int n = tracked(r);
    for (int k = 0; k < n; k++)
        if (atomic_load(&r->track[k].open))
            close_open(r, k, 0);
    dg_stall_finish(r);
    for (int i = 0; i < r->noutages; i++)
        r->outages[i].recovery_s = recovery_of(r, &r->outages[i], se);
    for (int i = 1; i < r->noutages; i++) /* in order of start: insertion sort, few of them */
        for (int j = i; j > 0 && r->outages[j].start_s < r->outages[j - 1].start_s; j--) {
            struct dg_outage t = r->outages[j];
            r->outages[j] = r->outages[j - 1];
            r->outages[j - 1] = t;
        }
    res->outages = r->outages;
    res->noutages = r->noutages;
    r->outages = NULL;
    r->noutages = r->outages_cap = 0;
    return 0;
}

int dg_outage_peek(struct runner *r, dg_ns now, struct dg_outage *out, int max)
{
    int n = 0;
    pthread_mutex_lock(&r->out_mu);
    for (int i = r->noutages > max ? r->noutages - max : 0; i < r->noutages; i++)
        out[n++] = r->outages[i];
    for (int t = 0; t < tracked(r); t++) {
        const struct outage_track *k = &r->track[t];
        if (!atomic_load_explicit(&k->open, memory_order_relaxed))
            continue;
        if (n == max) /* the closed ones made room for the open ones first */
            memmove(out, out + 1, (size_t)--n * sizeof *out);
        struct dg_outage *o = &out[n++];
        *o = (struct dg_outage){.target = t, .start_s = secs(r->warm_end_ns, k->start),
                                .duration_s = secs(k->start, k->back ? k->back : now), .first_commit_s = -1,
                                .last_commit_s = k->last_commit ? secs(k->last_commit, k->start) : -1,
                                .recovery_s = -1, .errors = k->errors, .reconnects = k->reconnects};
    }
    n = dg_stall_peek(r, now, out, n, max);
    pthread_mutex_unlock(&r->out_mu);
    return n;
}
