/* sched.c — arrival times, think times and the terminals' timer heap. */
#include "core/sched.h"

#include <math.h>
#include <stdlib.h>

void dg_arrival_init(struct dg_arrival_gen *g, double rate_per_s, enum dg_arrivals kind, dg_ns start,
                     uint64_t seed)
{
    g->kind = kind;
    g->mean_gap_ns = 1e9 / rate_per_s;
    g->next_ns = (double)start;
    dg_rng_seed(&g->rng, seed);
}

dg_ns dg_arrival_next(struct dg_arrival_gen *g)
{
    dg_ns at = (dg_ns)g->next_ns;
    double gap = g->kind == DG_ARRIVALS_UNIFORM ? g->mean_gap_ns
                                                : -log(dg_rng_unit(&g->rng)) * g->mean_gap_ns;
    g->next_ns += gap;
    return at;
}

dg_ns dg_think_ns(struct dg_rng *r, double mean_ns)
{
    double t = -log(dg_rng_unit(r)) * mean_ns;
    if (t > 10 * mean_ns)
        t = 10 * mean_ns;
    return (dg_ns)t;
}

int dg_heap_init(struct dg_term_heap *h, size_t cap)
{
    h->items = malloc(cap * sizeof *h->items);
    h->n = 0;
    h->cap = cap;
    return h->items ? 0 : -1;
}

void dg_heap_free(struct dg_term_heap *h)
{
    free(h->items);
    h->items = NULL;
    h->n = h->cap = 0;
}

int dg_heap_push(struct dg_term_heap *h, uint32_t term, dg_ns due)
{
    if (h->n == h->cap)
        return -1;
    size_t i = h->n++;
    while (i > 0) { /* sift up */
        size_t parent = (i - 1) / 2;
        if (h->items[parent].due <= due)
            break;
        h->items[i] = h->items[parent];
        i = parent;
    }
    h->items[i] = (struct dg_heap_item){due, term};
    return 0;
}

const struct dg_heap_item *dg_heap_peek(const struct dg_term_heap *h)
{
    return h->n ? &h->items[0] : NULL;
}

void dg_heap_pop(struct dg_term_heap *h)
{
    if (h->n == 0)
        return;
    struct dg_heap_item last = h->items[--h->n];
    size_t i = 0;
    for (;;) { /* sift the last item down from the root */
        size_t l = 2 * i + 1, r = l + 1, m = i;
        dg_ns mdue = last.due;
        if (l < h->n && h->items[l].due < mdue)
            m = l, mdue = h->items[l].due;
        if (r < h->n && h->items[r].due < mdue)
            m = r;
        if (m == i)
            break;
        h->items[i] = h->items[m];
        i = m;
    }
    if (h->n)
        h->items[i] = last;
}
