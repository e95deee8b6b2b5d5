/* hist.c — log-linear histogram: slot arithmetic, percentiles, merge and a varint codec.
 * The record path is branch-light and allocation-free. */
#include "core/hist.h"

#include <stdlib.h>
#include <string.h>

struct dg_hist *dg_hist_new(void)
{
    struct dg_hist *h = calloc(1, sizeof *h);
    if (h)
        h->min_ns = UINT64_MAX;
    return h;
}

void dg_hist_free(struct dg_hist *h) { free(h); }

void dg_hist_reset(struct dg_hist *h)
{
    memset(h, 0, sizeof *h);
    h->min_ns = UINT64_MAX;
}

/* Bucket b >= 1 holds [2^(b+10), 2^(b+11)) in 1024 slots of width 2^b; bucket 0 holds
 * [0, 2048) exactly. Slot = b * 1024 + (v >> b), contiguous across buckets. */
size_t dg_hist_slot_of(uint64_t v)
{
    unsigned msb = 63u - (unsigned)__builtin_clzll(v | (2 * DG_HIST_HALF - 1));
    unsigned b = msb - (DG_HIST_SUB_BITS - 1);
    return (size_t)b * DG_HIST_HALF + (size_t)(v >> b);
}

uint64_t dg_hist_slot_low(size_t slot)
{
    if (slot < 2 * DG_HIST_HALF)
        return slot;
    unsigned b = (unsigned)(slot / DG_HIST_HALF) - 1;
    uint64_t sub = slot - (size_t)b * DG_HIST_HALF;
    return sub << b;
}

uint64_t dg_hist_slot_width(size_t slot)
{
    if (slot < 2 * DG_HIST_HALF)
        return 1;
    return 1ull << ((unsigned)(slot / DG_HIST_HALF) - 1);
}

void dg_hist_record(struct dg_hist *h, uint64_t v) { dg_hist_record_n(h, v, 1); }

void dg_hist_record_n(struct dg_hist *h, uint64_t v, uint64_t n)
{
    if (v > DG_HIST_MAX_NS) {
        v = DG_HIST_MAX_NS;
        h->clamped += n;
    }
    h->counts[dg_hist_slot_of(v)] += n;
    h->total += n;
    h->sum_ns += v * n;
    if (v < h->min_ns)
        h->min_ns = v;
    if (v > h->max_ns)
        h->max_ns = v;
}

void dg_hist_merge(struct dg_hist *into, const struct dg_hist *from)
{
    if (from->total == 0)
        return;
    for (size_t i = 0; i < DG_HIST_SLOTS; i++)
        into->counts[i] += from->counts[i];
    into->total += from->total;
    into->sum_ns += from->sum_ns;
    into->clamped += from->clamped;
    if (from->min_ns < into->min_ns)
        into->min_ns = from->min_ns;
    if (from->max_ns > into->max_ns)
        into->max_ns = from->max_ns;
}

uint64_t dg_hist_percentile(const struct dg_hist *h, double p)
{
    if (h->total == 0)
        return 0;
    if (p >= 100.0)
        return h->max_ns;
    uint64_t rank = (uint64_t)((p / 100.0) * (double)h->total + 0.999999999);
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    for (size_t i = 0; i < DG_HIST_SLOTS; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            uint64_t v = dg_hist_slot_low(i) + dg_hist_slot_width(i) / 2; /* midpoint */
            if (v < h->min_ns)
                v = h->min_ns;
            if (v > h->max_ns)
                v = h->max_ns;
            return v;
        }
    }
    return h->max_ns;
}

double dg_hist_mean_ns(const struct dg_hist *h)
{
    return h->total ? (double)h->sum_ns / (double)h->total : 0.0;
}

/* --- codec: "DGH1", then varints: total, sum, min, max, clamped, n_pairs, then
 * (slot delta from previous non-zero slot, count) pairs. --- */

static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*p >= end)
            return -1;
        unsigned char c = *(*p)++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

unsigned char *dg_hist_encode(const struct dg_hist *h, size_t *len)
{
    size_t pairs = 0;
    for (size_t i = 0; i < DG_HIST_SLOTS; i++)
        pairs += h->counts[i] != 0;
    unsigned char *buf = malloc(4 + 6 * 10 + pairs * 20);
    if (!buf)
        return NULL;
    unsigned char *p = buf;
    memcpy(p, "DGH1", 4);
    p += 4;
    p = put_varint(p, h->total);
    p = put_varint(p, h->sum_ns);
    p = put_varint(p, h->total ? h->min_ns : 0);
    p = put_varint(p, h->max_ns);
    p = put_varint(p, h->clamped);
    p = put_varint(p, pairs);
    size_t prev = 0;
    for (size_t i = 0; i < DG_HIST_SLOTS; i++) {
        if (!h->counts[i])
            continue;
        p = put_varint(p, i - prev);
        p = put_varint(p, h->counts[i]);
        prev = i;
    }
    *len = (size_t)(p - buf);
    return buf;
}

int dg_hist_decode(struct dg_hist *h, const unsigned char *buf, size_t len)
{
    dg_hist_reset(h);
    const unsigned char *p = buf, *end = buf + len;
    if (len < 4 || memcmp(p, "DGH1", 4) != 0)
        return -1;
    p += 4;
    uint64_t total, sum, mn, mx, clamped, pairs;
    if (get_varint(&p, end, &total) || get_varint(&p, end, &sum) || get_varint(&p, end, &mn) ||
        get_varint(&p, end, &mx) || get_varint(&p, end, &clamped) || get_varint(&p, end, &pairs))
        return -1;
    uint64_t slot = 0, seen = 0;
    for (uint64_t k = 0; k < pairs; k++) {
        uint64_t delta, count;
        if (get_varint(&p, end, &delta) || get_varint(&p, end, &count))
            return -1;
        slot += delta;
        if (slot >= DG_HIST_SLOTS)
            return -1;
        h->counts[slot] += count;
        seen += count;
    }
    if (seen != total || p != end)
        return -1;
    h->total = total;
    h->sum_ns = sum;
    h->min_ns = total ? mn : UINT64_MAX;
    h->max_ns = mx;
    h->clamped = clamped;
    return 0;
}
