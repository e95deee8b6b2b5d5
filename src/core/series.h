/* series.h — per-second figures of a run: each worker accumulates the current second
 * (counts and a small histogram per type) and hands finished seconds to the collector through
 * its own single-producer ring; the collector merges them into one point per second.
 * Counts are exact; per-second percentiles carry 2 significant digits. No lock anywhere. */
#ifndef DG_SERIES_H
#define DG_SERIES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/workload.h"

#define DG_SEC_SUB_BITS 7
#define DG_SEC_HALF (1u << (DG_SEC_SUB_BITS - 1))
#define DG_SEC_SLOTS (37 * DG_SEC_HALF) /* up to 2^42 ns, as struct dg_hist */
#define DG_SEC_RING 8

struct dg_sec_counts {
    uint64_t committed, rollbacks, retries, errors;
};

/* One worker's second. second counts from the start of the measured window (negative in the
 * warm-up): second k holds transactions that finished in [k, k+1) s after it. */
#define DG_SERIES_TARGETS 64 /* as DG_MAX_TARGETS */

struct dg_sec_acc {
    int64_t second;
    int used;
    int target;          /* the worker's target (from its feed) */
    unsigned read_types; /* types counted under read_target instead (from its feed) */
    int read_target;
    uint64_t reconnects; /* connection attempts after a lost connection, this second */
    uint32_t target_committed[DG_SERIES_TARGETS]; /* the collector's merges only: per target */
    struct dg_sec_counts c[DG_MAX_TYPES];
    uint32_t hist[DG_MAX_TYPES][DG_SEC_SLOTS];
};

/* A worker's ring of seconds: the worker writes buf[head % RING] and publishes by advancing
 * head; the collector reads up to head and frees by advancing tail. */
struct dg_sec_feed {
    struct dg_sec_acc *buf[DG_SEC_RING];
    _Atomic uint64_t head, tail;
    _Atomic int64_t at_second; /* the second the worker is filling now */
    _Atomic int closed;        /* the worker will publish nothing more */
    int target;                /* the worker's target, set after dg_sec_feed_init */
    unsigned read_types;       /* with a read target: the types that ran there (else 0) */
    int read_target;           /* its index in target_committed */
};

enum dg_outcome { DG_OUT_COMMIT = 0, DG_OUT_ROLLBACK, DG_OUT_ERROR };

int dg_sec_feed_init(struct dg_sec_feed *f);
void dg_sec_feed_free(struct dg_sec_feed *f);
/* Worker side: one finished transaction (latency_ns ignored for errors). */
void dg_sec_record(struct dg_sec_feed *f, int64_t second, int type, enum dg_outcome out,
                   uint64_t retries, uint64_t latency_ns);
/* Worker side: one attempt to connect again after a lost connection. */
void dg_sec_note_reconnect(struct dg_sec_feed *f, int64_t second);
/* Worker side, at exit: publishes the second being filled and closes the feed. */
void dg_sec_close(struct dg_sec_feed *f);

struct dg_series_type {
    struct dg_sec_counts c;
    double p50_ms, p95_ms, p99_ms;
};
struct dg_series_point {
    int64_t second;
    uint64_t reconnects; /* connection attempts after lost connections (stored) */
    /* Commits per target this second (the run's outage figures; not stored). */
    uint32_t target_committed[DG_SERIES_TARGETS];
    struct dg_series_type t[DG_MAX_TYPES];
};

/* The collector's state and its output, owned by the collecting thread. */
struct dg_series {
    int ntypes;
    int64_t first_second;     /* the first second to emit (the start of the warm-up) */
    struct dg_series_point *pts;
    size_t n, cap;
    struct dg_sec_acc *pending[64]; /* merged, not yet final */
    int npending;
    /* Every measured (second >= 0) transaction merged so far, late ones included: per type,
     * counts and a small histogram (owned, ntypes rows; NULL until the first). What a
     * checkpoint of an unfinished run stores (dg_series_measured). */
    struct dg_sec_counts measured[DG_MAX_TYPES];
    uint32_t (*measured_hist)[DG_SEC_SLOTS];
};

void dg_series_init(struct dg_series *s, int ntypes, int64_t first_second);
void dg_series_free(struct dg_series *s);
/* Drains every feed, then makes final each second every open feed has moved past, and any
 * second before `stale_before` (a straggler's late counts still reach its point). With
 * all = 1 (after the workers stopped) everything pending becomes final. */
int dg_series_collect(struct dg_series *s, struct dg_sec_feed *feeds, size_t stride, int nfeeds,
                      int64_t stale_before, int all);

/* Emits empty points up to and including `last` (the run's last second). */
int dg_series_extend(struct dg_series *s, int64_t last);

/* Type t's measured transactions so far as a new histogram (the caller's; values at the
 * small histogram's slot midpoints, so 2 significant digits), or NULL out of memory. */
struct dg_hist *dg_series_measured_hist(const struct dg_series *s, int t);

/* Small-histogram helpers, exposed for tests. */
size_t dg_sec_slot_of(uint64_t v);
/* The value slot stands for: its midpoint (exact below 2 * DG_SEC_HALF). */
uint64_t dg_sec_slot_value(size_t slot);
uint64_t dg_sec_percentile(const uint32_t *hist, uint64_t total, double p);

#endif
