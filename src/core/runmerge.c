/* runmerge.c — a rank's run result packed, unpacked and merged into rank 0's (see runmerge.h). */
#include "core/runmerge.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"

#define PACK_MAGIC 0x44475231u /* "DGR1" */

/* The layout a buffer was packed with: the same binary on every rank gives the same sizes. */
struct pack_head {
    uint32_t magic;
    uint32_t sizes[6];
    int32_t ntypes, ntargets, noutages;
    uint64_t npoints, nacks;
    int64_t first_second;
};

static void layout(uint32_t sizes[6])
{
    sizes[0] = sizeof(struct dg_type_counts);
    sizes[1] = sizeof(struct dg_series_point);
    sizes[2] = sizeof(struct dg_outage);
    sizes[3] = sizeof(struct dg_ack);
    sizes[4] = sizeof(struct dg_run_result);
    sizes[5] = DG_HIST_SLOTS;
}

/* A growing byte buffer; `failed` sticks after the first allocation failure. */
struct packer {
    char *buf;
    size_t len, cap;
    int failed;
};

static void put(struct packer *p, const void *v, size_t n)
{
    if (p->failed || dg_buf_reserve(&p->buf, &p->cap, p->len + n)) {
        p->failed = 1;
        return;
    }
    if (n) /* an empty array may come as NULL */
        memcpy(p->buf + p->len, v, n);
    p->len += n;
}

/* A histogram as a length and dg_hist_encode's bytes; length 0 for none. */
static void put_hist(struct packer *p, const struct dg_hist *h)
{
    uint64_t n = 0;
    unsigned char *enc = NULL;
    size_t elen = 0;
    if (h && !(enc = dg_hist_encode(h, &elen)))
        p->failed = 1;
    n = enc ? elen + 1 : 0; /* +1: an empty histogram still says it exists */
    put(p, &n, sizeof n);
    if (n)
        put(p, enc, elen);
    free(enc);
}

int dg_result_pack(const struct dg_run_result *res, unsigned char **out, size_t *len)
{
    struct packer p = {0};
    struct pack_head h = {.magic = PACK_MAGIC, .ntypes = res->ntypes, .ntargets = res->ntargets,
                          .noutages = res->noutages, .npoints = res->series.n, .nacks = res->nacks,
                          .first_second = res->series.first_second};
    layout(h.sizes);
    put(&p, &h, sizeof h);
    /* The scalars ride in a copy of the struct with its pointers cleared. */
    struct dg_run_result flat = *res;
    memset(flat.hist, 0, sizeof flat.hist);
    memset(flat.service, 0, sizeof flat.service);
    flat.lag = NULL;
    flat.series = (struct dg_series){0};
    flat.targets = NULL;
    flat.outages = NULL;
    flat.acks = NULL;
    put(&p, &flat, sizeof flat);
    for (int t = 0; t < res->ntypes; t++) {
        put_hist(&p, res->hist[t]);
        put_hist(&p, res->service[t]);
    }
    put_hist(&p, res->lag);
    put(&p, res->series.pts, res->series.n * sizeof *res->series.pts);
    for (int k = 0; k < res->ntargets; k++) {
        const struct dg_target_result *tr = &res->targets[k];
        put(&p, tr, sizeof *tr); /* its histogram pointers are ignored when unpacked */
        for (int t = 0; t < res->ntypes; t++) {
            put_hist(&p, tr->hist[t]);
            put_hist(&p, tr->service[t]);
        }
    }
    put(&p, res->outages, (size_t)res->noutages * sizeof *res->outages);
    put(&p, res->acks, res->nacks * sizeof *res->acks);
    if (p.failed) {
        free(p.buf);
        return -1;
    }
    *out = (unsigned char *)p.buf;
    *len = p.len;
    return 0;
}

/* Reading side: a cursor that fails (and stays failed) on a short buffer. */
struct unpacker {
    const unsigned char *buf;
    size_t len, at;
    int failed;
};

static const void *take(struct unpacker *u, size_t n)
{
    if (u->failed || n > u->len - u->at) {
        u->failed = 1;
        return NULL;
    }
    const void *v = u->buf + u->at;
    u->at += n;
    return v;
}

static void take_into(struct unpacker *u, void *to, size_t n)
{
    const void *v = take(u, n);
    if (v && n)
        memcpy(to, v, n);
}

static struct dg_hist *take_hist(struct unpacker *u)
{
    uint64_t n = 0;
    take_into(u, &n, sizeof n);
    if (u->failed || !n)
        return NULL;
    const unsigned char *enc = take(u, (size_t)n - 1);
    struct dg_hist *h = u->failed ? NULL : dg_hist_new();
    if (!h || dg_hist_decode(h, enc, (size_t)n - 1)) {
        dg_hist_free(h);
        u->failed = 1;
        return NULL;
    }
    return h;
}

/* The arrays after the scalars and the run's histograms. */
static void unpack_arrays(struct unpacker *u, const struct pack_head *h, struct dg_run_result *res)
{
    dg_series_init(&res->series, h->ntypes, h->first_second);
    if (h->npoints && !(res->series.pts = calloc((size_t)h->npoints, sizeof *res->series.pts)))
        u->failed = 1;
    else
        res->series.n = res->series.cap = (size_t)h->npoints;
    take_into(u, res->series.pts, res->series.n * sizeof *res->series.pts);
    if (h->ntargets > 0 && !(res->targets = calloc((size_t)h->ntargets, sizeof *res->targets)))
        u->failed = 1;
    for (int k = 0; !u->failed && k < h->ntargets; k++) {
        struct dg_target_result *tr = &res->targets[k];
        take_into(u, tr, sizeof *tr);
        memset(tr->hist, 0, sizeof tr->hist);
        memset(tr->service, 0, sizeof tr->service);
        res->ntargets = k + 1; /* freed this far on failure */
        for (int t = 0; t < h->ntypes; t++) {
            tr->hist[t] = take_hist(u);
            tr->service[t] = take_hist(u);
        }
    }
    if (h->noutages > 0 && !(res->outages = calloc((size_t)h->noutages, sizeof *res->outages)))
        u->failed = 1;
    else
        res->noutages = h->noutages;
    take_into(u, res->outages, (size_t)res->noutages * sizeof *res->outages);
    if (h->nacks && !(res->acks = malloc((size_t)h->nacks * sizeof *res->acks)))
        u->failed = 1;
    else
        res->nacks = (size_t)h->nacks;
    take_into(u, res->acks, res->nacks * sizeof *res->acks);
}

int dg_result_unpack(const unsigned char *buf, size_t len, struct dg_run_result *res)
{
    memset(res, 0, sizeof *res);
    struct unpacker u = {.buf = buf, .len = len};
    struct pack_head h;
    uint32_t sizes[6];
    layout(sizes);
    take_into(&u, &h, sizeof h);
    if (u.failed || h.magic != PACK_MAGIC || memcmp(h.sizes, sizes, sizeof sizes) || h.ntypes < 0 ||
        h.ntypes > DG_MAX_TYPES || h.ntargets < 0 || h.ntargets > DG_SERIES_TARGETS + 1 || h.noutages < 0 ||
        h.npoints > len || h.nacks > len)
        return -1;
    take_into(&u, res, sizeof *res);
    /* Whatever pointers came in the bytes are not ours. */
    memset(res->hist, 0, sizeof res->hist);
    memset(res->service, 0, sizeof res->service);
    res->lag = NULL;
    res->targets = NULL;
    res->ntargets = res->noutages = 0;
    res->outages = NULL;
    res->acks = NULL;
    res->nacks = 0;
    res->series = (struct dg_series){0};
    res->ntypes = h.ntypes;
    res->first_error[sizeof res->first_error - 1] = '\0';
    for (int t = 0; !u.failed && t < h.ntypes; t++) {
        res->hist[t] = take_hist(&u);
        res->service[t] = take_hist(&u);
    }
    res->lag = take_hist(&u);
    if (!u.failed)
        unpack_arrays(&u, &h, res);
    if (u.failed || u.at != len) {
        dg_run_result_free(res);
        return -1;
    }
    return 0;
}

static void add_counts(struct dg_type_counts *to, const struct dg_type_counts *from, int ntypes)
{
    for (int t = 0; t < ntypes; t++) {
        to[t].committed += from[t].committed;
        to[t].rollbacks += from[t].rollbacks;
        to[t].retries += from[t].retries;
        for (int k = 0; k < DG_RETRY_NCAUSES; k++)
            to[t].retry_causes[k] += from[t].retry_causes[k];
        to[t].errors += from[t].errors;
        for (int k = 0; k < DG_ERROR_NCAUSES; k++)
            to[t].error_causes[k] += from[t].error_causes[k];
        to[t].in_doubt += from[t].in_doubt;
        to[t].rows += from[t].rows;
        to[t].bytes += from[t].bytes;
    }
}

/* *into += from, making *into when it is NULL. Returns 0, or -1 out of memory. */
static int merge_hist(struct dg_hist **into, const struct dg_hist *from)
{
    if (!from)
        return 0;
    if (!*into && !(*into = dg_hist_new()))
        return -1;
    dg_hist_merge(*into, from);
    return 0;
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

/* The ranks' seconds are one clock (their windows start together): point k of one is point
 * k of the other when their first seconds agree; a longer series extends the shorter. */
static int merge_series(struct dg_series *into, const struct dg_series *from, int ntypes)
{
    for (size_t i = 0; i < from->n; i++) {
        const struct dg_series_point *f = &from->pts[i];
        if (f->second < into->first_second)
            continue;
        if (dg_series_extend(into, f->second))
            return -1;
        size_t at = (size_t)(f->second - into->first_second);
        if (at >= into->n || into->pts[at].second != f->second)
            continue; /* not a series of this clock (never with a common start) */
        struct dg_series_point *p = &into->pts[at];
        p->reconnects += f->reconnects;
        for (int k = 0; k < DG_SERIES_TARGETS; k++)
            p->target_committed[k] += f->target_committed[k];
        for (int t = 0; t < ntypes; t++) {
            struct dg_series_type *x = &p->t[t];
            const struct dg_series_type *y = &f->t[t];
            x->c.committed += y->c.committed;
            x->c.rollbacks += y->c.rollbacks;
            x->c.retries += y->c.retries;
            x->c.errors += y->c.errors;
            x->p50_ms = max2(x->p50_ms, y->p50_ms);
            x->p95_ms = max2(x->p95_ms, y->p95_ms);
            x->p99_ms = max2(x->p99_ms, y->p99_ms);
        }
    }
    return 0;
}

/* One outage of a target as several ranks saw it: the earliest error opens it, the earliest
 * reconnection and commit (any rank's) end it, the latest commit before it counts. */
static void merge_outage(struct dg_outage *o, const struct dg_outage *f)
{
    double start = o->start_s < f->start_s ? o->start_s : f->start_s;
    /* never back (duration -1) on a rank: as late as can be */
    double back = o->duration_s < 0 ? 1e300 : o->start_s + o->duration_s;
    double fback = f->duration_s < 0 ? 1e300 : f->start_s + f->duration_s;
    double first = o->first_commit_s < 0 ? -1 : o->start_s + o->first_commit_s;
    double ffirst = f->first_commit_s < 0 ? -1 : f->start_s + f->first_commit_s;
    double last = o->last_commit_s < 0 ? -1e300 : o->start_s - o->last_commit_s;
    double flast = f->last_commit_s < 0 ? -1e300 : f->start_s - f->last_commit_s;
    double rec = o->recovery_s < 0 ? -1 : o->start_s + o->recovery_s;
    double frec = f->recovery_s < 0 ? -1 : f->start_s + f->recovery_s;
    if (fback < back && f->back_on[0])
        memcpy(o->back_on, f->back_on, sizeof o->back_on);
    back = back < fback ? back : fback;
    first = first < 0 ? ffirst : ffirst < 0 ? first : first < ffirst ? first : ffirst;
    last = max2(last, flast);
    o->start_s = start;
    o->duration_s = back > 1e299 ? -1 : back - start;
    o->first_commit_s = first < 0 ? -1 : first - start;
    o->last_commit_s = last < -1e299 ? -1 : start - last;
    o->recovery_s = rec < 0 || frec < 0 ? -1 : max2(rec, frec) - start;
    o->errors += f->errors;
    o->reconnects += f->reconnects;
}

static int overlaps(const struct dg_outage *a, const struct dg_outage *b)
{
    double aend = a->start_s + (a->first_commit_s < 0 ? 1e300 : a->first_commit_s);
    double bend = b->start_s + (b->first_commit_s < 0 ? 1e300 : b->first_commit_s);
    return a->target == b->target && a->start_s <= bend && b->start_s <= aend;
}

static int by_start(const void *a, const void *b)
{
    const struct dg_outage *x = a, *y = b;
    return (x->start_s > y->start_s) - (x->start_s < y->start_s);
}

static int merge_outages(struct dg_run_result *into, const struct dg_run_result *from)
{
    for (int i = 0; i < from->noutages; i++) {
        int j = 0;
        while (j < into->noutages && !overlaps(&into->outages[j], &from->outages[i]))
            j++;
        if (j < into->noutages) {
            merge_outage(&into->outages[j], &from->outages[i]);
            continue;
        }
        struct dg_outage *o = realloc(into->outages, (size_t)(into->noutages + 1) * sizeof *o);
        if (!o)
            return -1;
        into->outages = o;
        o[into->noutages++] = from->outages[i];
    }
    if (into->noutages > 1)
        qsort(into->outages, (size_t)into->noutages, sizeof *into->outages, by_start);
    return 0;
}

static int merge_targets(struct dg_run_result *into, const struct dg_run_result *from)
{
    if (!into->targets && from->ntargets) {
        if (!(into->targets = calloc((size_t)from->ntargets, sizeof *into->targets)))
            return -1;
        into->ntargets = from->ntargets;
    }
    for (int k = 0; k < from->ntargets && k < into->ntargets; k++) {
        struct dg_target_result *a = &into->targets[k];
        const struct dg_target_result *b = &from->targets[k];
        a->workers += b->workers;
        a->workers_failed += b->workers_failed;
        add_counts(a->counts, b->counts, from->ntypes);
        for (int t = 0; t < from->ntypes; t++)
            if (merge_hist(&a->hist[t], b->hist[t]) || merge_hist(&a->service[t], b->service[t]))
                return -1;
    }
    return 0;
}

int dg_result_merge(struct dg_run_result *into, const struct dg_run_result *from)
{
    add_counts(into->counts, from->counts, from->ntypes);
    for (int t = 0; t < from->ntypes; t++)
        if (merge_hist(&into->hist[t], from->hist[t]) || merge_hist(&into->service[t], from->service[t]))
            return -1;
    if (merge_hist(&into->lag, from->lag) || merge_series(&into->series, &from->series, from->ntypes) ||
        merge_targets(into, from) || merge_outages(into, from))
        return -1;
    if (from->nacks) {
        struct dg_ack *a = realloc(into->acks, (into->nacks + from->nacks) * sizeof *a);
        if (!a)
            return -1;
        memcpy(a + into->nacks, from->acks, from->nacks * sizeof *a);
        into->acks = a;
        into->nacks += from->nacks;
    }
    into->measured_s = max2(into->measured_s, from->measured_s);
    into->interrupted |= from->interrupted;
    into->workers_failed += from->workers_failed;
    if (!into->first_error[0])
        memcpy(into->first_error, from->first_error, sizeof into->first_error);
    into->client_cpu_s += from->client_cpu_s;
    if (from->started_wall > 0 && (into->started_wall <= 0 || from->started_wall < into->started_wall))
        into->started_wall = from->started_wall;
    into->ended_wall = max2(into->ended_wall, from->ended_wall);
    into->arrivals += from->arrivals;
    into->late += from->late;
    into->skipped += from->skipped;
    into->window_cut |= from->window_cut;
    return 0;
}
