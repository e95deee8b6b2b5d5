/* series.c — per-second accumulation on the workers and merging on the collector. The
 * worker never waits on the collector except when its ring is full (the collector has then
 * been away for DG_SEC_RING seconds), and then it only yields. */
#include "core/series.h"
#include "core/hist.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

size_t dg_sec_slot_of(uint64_t v)
{
    unsigned msb = 63u - (unsigned)__builtin_clzll(v | (2 * DG_SEC_HALF - 1));
    unsigned b = msb - (DG_SEC_SUB_BITS - 1);
    size_t slot = (size_t)b * DG_SEC_HALF + (size_t)(v >> b);
    return slot < DG_SEC_SLOTS ? slot : DG_SEC_SLOTS - 1;
}

uint64_t dg_sec_slot_value(size_t slot)
{
    if (slot < 2 * DG_SEC_HALF)
        return slot;
    unsigned b = (unsigned)(slot / DG_SEC_HALF) - 1;
    uint64_t low = (slot - (size_t)b * DG_SEC_HALF) << b;
    return low + (1ull << b) / 2;
}

uint64_t dg_sec_percentile(const uint32_t *hist, uint64_t total, double p)
{
    if (total == 0)
        return 0;
    uint64_t rank = (uint64_t)((p / 100.0) * (double)total + 0.999999999), seen = 0;
    if (rank < 1)
        rank = 1;
    for (size_t i = 0; i < DG_SEC_SLOTS; i++) {
        seen += hist[i];
        if (seen >= rank)
            return dg_sec_slot_value(i);
    }
    return dg_sec_slot_value(DG_SEC_SLOTS - 1);
}

int dg_sec_feed_init(struct dg_sec_feed *f)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < DG_SEC_RING; i++) {
        f->buf[i] = calloc(1, sizeof(struct dg_sec_acc));
        if (!f->buf[i])
            return -1;
    }
    atomic_store(&f->at_second, INT64_MIN);
    return 0;
}

void dg_sec_feed_free(struct dg_sec_feed *f)
{
    for (int i = 0; i < DG_SEC_RING; i++)
        free(f->buf[i]);
    memset(f->buf, 0, sizeof f->buf);
}

static struct dg_sec_acc *current(struct dg_sec_feed *f)
{
    return f->buf[atomic_load_explicit(&f->head, memory_order_relaxed) % DG_SEC_RING];
}

static void publish(struct dg_sec_feed *f)
{
    uint64_t head = atomic_load_explicit(&f->head, memory_order_relaxed);
    /* Wait for a free slot: the one after head must have been consumed. */
    while (head + 1 - atomic_load_explicit(&f->tail, memory_order_acquire) >= DG_SEC_RING)
        sched_yield();
    atomic_store_explicit(&f->head, head + 1, memory_order_release);
}

/* The accumulator of `second`, publishing the one being filled when the second moved on. */
static struct dg_sec_acc *acc_for(struct dg_sec_feed *f, int64_t second)
{
    struct dg_sec_acc *a = current(f);
    if (!a->used || a->second != second) {
        if (a->used) {
            publish(f);
            a = current(f);
        }
        memset(a->c, 0, sizeof a->c);
        memset(a->hist, 0, sizeof a->hist);
        a->reconnects = 0;
        a->target = f->target;
        a->read_types = f->read_types;
        a->read_target = f->read_target;
        a->second = second;
        a->used = 1;
        atomic_store_explicit(&f->at_second, second, memory_order_release);
    }
    return a;
}

void dg_sec_record(struct dg_sec_feed *f, int64_t second, int type, enum dg_outcome out,
                   uint64_t retries, uint64_t latency_ns)
{
    struct dg_sec_acc *a = acc_for(f, second);
    struct dg_sec_counts *c = &a->c[type];
    c->retries += retries;
    if (out == DG_OUT_ERROR) {
        c->errors++;
        return;
    }
    if (out == DG_OUT_COMMIT)
        c->committed++;
    else
        c->rollbacks++;
    a->hist[type][dg_sec_slot_of(latency_ns)]++;
}

void dg_sec_note_reconnect(struct dg_sec_feed *f, int64_t second)
{
    acc_for(f, second)->reconnects++;
}

void dg_sec_close(struct dg_sec_feed *f)
{
    struct dg_sec_acc *a = current(f);
    if (a->used)
        publish(f);
    atomic_store_explicit(&f->closed, 1, memory_order_release);
}

/* --- collector --- */

void dg_series_init(struct dg_series *s, int ntypes, int64_t first_second)
{
    memset(s, 0, sizeof *s);
    s->ntypes = ntypes;
    s->first_second = first_second;
}

void dg_series_free(struct dg_series *s)
{
    for (int i = 0; i < s->npending; i++)
        free(s->pending[i]);
    free(s->pts);
    free(s->measured_hist);
    memset(s, 0, sizeof *s);
}

static struct dg_series_point *point_at(struct dg_series *s, int64_t second)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->pts[mid].second < second)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->pts[lo].second == second ? &s->pts[lo] : NULL;
}

static int append_point(struct dg_series *s, int64_t second)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        struct dg_series_point *p = realloc(s->pts, cap * sizeof *p);
        if (!p)
            return -1;
        s->pts = p;
        s->cap = cap;
    }
    memset(&s->pts[s->n], 0, sizeof s->pts[0]);
    s->pts[s->n].second = second;
    s->n++;
    return 0;
}

/* Emits points up to and including `second`, empty ones for seconds with no transaction. */
static int extend_to(struct dg_series *s, int64_t second)
{
    int64_t next = s->n ? s->pts[s->n - 1].second + 1 : s->first_second;
    for (; next <= second; next++)
        if (append_point(s, next))
            return -1;
    return 0;
}

static void add_counts(struct dg_sec_counts *to, const struct dg_sec_counts *from)
{
    to->committed += from->committed;
    to->rollbacks += from->rollbacks;
    to->retries += from->retries;
    to->errors += from->errors;
}

/* What a worker's second adds beside the per-type counts: its reconnects, and its commits
 * under its target (the read-only types' under the read target, when there is one). */
static void add_extras(uint64_t *reconnects, uint32_t *target_committed, const struct dg_sec_acc *a, int ntypes)
{
    uint64_t committed = 0, read = 0;
    for (int t = 0; t < ntypes; t++) {
        if (a->read_types >> t & 1u)
            read += a->c[t].committed;
        else
            committed += a->c[t].committed;
    }
    *reconnects += a->reconnects;
    if (a->target >= 0 && a->target < DG_SERIES_TARGETS)
        target_committed[a->target] += (uint32_t)committed;
    if (read && a->read_target >= 0 && a->read_target < DG_SERIES_TARGETS)
        target_committed[a->read_target] += (uint32_t)read;
}

/* A worker's measured second into the run's running totals (the checkpoints' figures). */
static int add_measured(struct dg_series *s, const struct dg_sec_acc *a)
{
    if (a->second < 0)
        return 0;
    if (!s->measured_hist && !(s->measured_hist = calloc((size_t)s->ntypes, sizeof *s->measured_hist)))
        return -1;
    for (int t = 0; t < s->ntypes; t++) {
        add_counts(&s->measured[t], &a->c[t]);
        if (!a->c[t].committed && !a->c[t].rollbacks)
            continue;
        for (size_t k = 0; k < DG_SEC_SLOTS; k++)
            s->measured_hist[t][k] += a->hist[t][k];
    }
    return 0;
}

struct dg_hist *dg_series_measured_hist(const struct dg_series *s, int t)
{
    struct dg_hist *h = dg_hist_new();
    for (size_t k = 0; h && s->measured_hist && k < DG_SEC_SLOTS; k++)
        if (s->measured_hist[t][k])
            dg_hist_record_n(h, dg_sec_slot_value(k), s->measured_hist[t][k]);
    return h;
}

static int merge_acc(struct dg_series *s, const struct dg_sec_acc *a)
{
    /* Late counts for a second already final go straight to its point. */
    struct dg_series_point *p = point_at(s, a->second);
    if (p || (s->n && a->second < s->pts[s->n - 1].second)) {
        if (!p)
            return 0; /* before the first second: not part of the run */
        if (add_measured(s, a))
            return -1;
        for (int t = 0; t < s->ntypes; t++)
            add_counts(&p->t[t].c, &a->c[t]);
        add_extras(&p->reconnects, p->target_committed, a, s->ntypes);
        return 0;
    }
    struct dg_sec_acc *m = NULL;
    for (int i = 0; i < s->npending; i++)
        if (s->pending[i]->second == a->second)
            m = s->pending[i];
    if (!m) {
        if (s->npending == (int)(sizeof s->pending / sizeof *s->pending))
            return -1;
        m = calloc(1, sizeof *m);
        if (!m)
            return -1;
        m->second = a->second;
        s->pending[s->npending++] = m;
    }
    for (int t = 0; t < s->ntypes; t++) {
        add_counts(&m->c[t], &a->c[t]);
        for (size_t k = 0; k < DG_SEC_SLOTS; k++)
            m->hist[t][k] += a->hist[t][k];
    }
    add_extras(&m->reconnects, m->target_committed, a, s->ntypes);
    return 0;
}

static int finalize(struct dg_series *s, int64_t before)
{
    for (;;) { /* pending seconds below `before`, oldest first */
        int oldest = -1;
        for (int i = 0; i < s->npending; i++)
            if (s->pending[i]->second < before &&
                (oldest < 0 || s->pending[i]->second < s->pending[oldest]->second))
                oldest = i;
        if (oldest < 0)
            break;
        struct dg_sec_acc *m = s->pending[oldest];
        if (extend_to(s, m->second) || add_measured(s, m))
            return -1;
        struct dg_series_point *p = &s->pts[s->n - 1];
        p->reconnects += m->reconnects;
        for (int k = 0; k < DG_SERIES_TARGETS; k++)
            p->target_committed[k] += m->target_committed[k];
        for (int t = 0; t < s->ntypes; t++) {
            struct dg_series_type *x = &p->t[t];
            add_counts(&x->c, &m->c[t]);
            uint64_t n = m->c[t].committed + m->c[t].rollbacks;
            x->p50_ms = (double)dg_sec_percentile(m->hist[t], n, 50) / 1e6;
            x->p95_ms = (double)dg_sec_percentile(m->hist[t], n, 95) / 1e6;
            x->p99_ms = (double)dg_sec_percentile(m->hist[t], n, 99) / 1e6;
        }
        free(m);
        s->pending[oldest] = s->pending[--s->npending];
    }
    return before > INT64_MIN + 1 ? extend_to(s, before - 1) : 0;
}

int dg_series_collect(struct dg_series *s, struct dg_sec_feed *feeds, size_t stride, int nfeeds,
                      int64_t stale_before, int all)
{
    int64_t complete_before = INT64_MAX;
    for (int i = 0; i < nfeeds; i++) {
        struct dg_sec_feed *f = (struct dg_sec_feed *)((char *)feeds + stride * (size_t)i);
        /* Read where the worker is before draining, so nothing it publishes later is older. */
        int closed = atomic_load_explicit(&f->closed, memory_order_acquire);
        int64_t at = atomic_load_explicit(&f->at_second, memory_order_acquire);
        uint64_t head = atomic_load_explicit(&f->head, memory_order_acquire);
        uint64_t tail = atomic_load_explicit(&f->tail, memory_order_relaxed);
        for (; tail < head; tail++)
            if (merge_acc(s, f->buf[tail % DG_SEC_RING]))
                return -1;
        atomic_store_explicit(&f->tail, tail, memory_order_release);
        if (!closed && at < complete_before)
            complete_before = at;
    }
    if (all)
        complete_before = INT64_MAX;
    else if (stale_before > complete_before)
        complete_before = stale_before;
    if (complete_before == INT64_MAX) { /* everything pending is final */
        int64_t last = INT64_MIN;
        for (int i = 0; i < s->npending; i++)
            if (s->pending[i]->second > last)
                last = s->pending[i]->second;
        return last == INT64_MIN ? 0 : finalize(s, last + 1);
    }
    return finalize(s, complete_before);
}

int dg_series_extend(struct dg_series *s, int64_t last) { return extend_to(s, last); }
