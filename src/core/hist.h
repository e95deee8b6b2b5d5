/* hist.h — a log-linear latency histogram (HdrHistogram's idea, our own code):
 * values in nanoseconds from 0 to 1 hour, each recorded with 3 significant digits
 * (relative error below 1/2048 at the reported bucket midpoint). Fixed size, so
 * recording never allocates; two histograms merge by adding counts. One owner thread
 * records; readers take a copy or read after the owner has stopped. */
#ifndef DG_HIST_H
#define DG_HIST_H

#include <stddef.h>
#include <stdint.h>

#define DG_HIST_SUB_BITS 11                      /* 2048 sub-buckets: 3 significant digits */
#define DG_HIST_HALF (1u << (DG_HIST_SUB_BITS - 1))
#define DG_HIST_MAX_NS 3600000000000ull           /* 1 hour; larger values are clamped */
#define DG_HIST_BUCKETS 32                        /* 2^42 ns > 1 h */
#define DG_HIST_SLOTS ((DG_HIST_BUCKETS + 1) * DG_HIST_HALF)

struct dg_hist {
    uint64_t total;
    uint64_t sum_ns;    /* for the exact mean */
    uint64_t min_ns;
    uint64_t max_ns;
    uint64_t clamped;   /* values above DG_HIST_MAX_NS, recorded as the maximum */
    uint64_t counts[DG_HIST_SLOTS];
};

/* Allocates a zeroed histogram; the caller owns it and frees it with dg_hist_free. */
struct dg_hist *dg_hist_new(void);
void dg_hist_free(struct dg_hist *h);
void dg_hist_reset(struct dg_hist *h);
void dg_hist_record(struct dg_hist *h, uint64_t value_ns);
/* n values of value_ns at once. */
void dg_hist_record_n(struct dg_hist *h, uint64_t value_ns, uint64_t n);
/* into += from. */
void dg_hist_merge(struct dg_hist *into, const struct dg_hist *from);
/* The value at percentile p (0 < p <= 100), in ns; 0 for an empty histogram. */
uint64_t dg_hist_percentile(const struct dg_hist *h, double p);
double dg_hist_mean_ns(const struct dg_hist *h);

/* Slot arithmetic, exposed for tests and for renderers that walk the buckets. */
size_t dg_hist_slot_of(uint64_t value_ns);
uint64_t dg_hist_slot_low(size_t slot);   /* lowest value that lands in slot */
uint64_t dg_hist_slot_width(size_t slot);

/* Serialises into a malloc'd buffer (caller frees) of *len bytes: a compact varint
 * encoding of the non-zero slots. Returns NULL on allocation failure. */
unsigned char *dg_hist_encode(const struct dg_hist *h, size_t *len);
/* Decodes a buffer from dg_hist_encode into h (which it resets first).
 * Returns 0, or -1 if the buffer is malformed. */
int dg_hist_decode(struct dg_hist *h, const unsigned char *buf, size_t len);

#endif
