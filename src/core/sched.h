/* sched.h — when transactions are due: open-loop arrivals at a rate (Poisson or uniform),
 * and a timer heap of terminals waiting out keying and think times. Pure logic over times the
 * caller passes in (an injected clock): no threads, no sleeping, no locks. */
#ifndef DG_SCHED_H
#define DG_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"
#include "core/rng.h"

enum dg_arrivals { DG_ARRIVALS_POISSON = 0, DG_ARRIVALS_UNIFORM };

/* Open-loop arrivals: intended start times independent of how fast anything answers. */
struct dg_arrival_gen {
    enum dg_arrivals kind;
    double mean_gap_ns;
    double next_ns; /* kept fractional so a uniform rate does not drift */
    struct dg_rng rng;
};

void dg_arrival_init(struct dg_arrival_gen *g, double rate_per_s, enum dg_arrivals kind, dg_ns start,
                     uint64_t seed);
/* The intended start of the next arrival; advances the generator. */
dg_ns dg_arrival_next(struct dg_arrival_gen *g);

/* A negative-exponential think time with mean mean_ns, truncated at 10 means (clause 5.2.5.4). */
dg_ns dg_think_ns(struct dg_rng *r, double mean_ns);

/* Terminals ordered by due time (a binary min-heap; ties keep no particular order). */
struct dg_heap_item {
    dg_ns due;
    uint32_t term;
};
struct dg_term_heap {
    struct dg_heap_item *items;
    size_t n, cap;
};

int dg_heap_init(struct dg_term_heap *h, size_t cap);
void dg_heap_free(struct dg_term_heap *h);
/* Never allocates: the heap holds at most cap terminals (each terminal is in it once). */
int dg_heap_push(struct dg_term_heap *h, uint32_t term, dg_ns due);
/* The earliest item, or NULL when empty. */
const struct dg_heap_item *dg_heap_peek(const struct dg_term_heap *h);
void dg_heap_pop(struct dg_term_heap *h);

#endif
