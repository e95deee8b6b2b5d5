/* test_hist.c — unit tests of the log-linear histogram (src/core/hist.h): percentiles against
 * sorted arrays, exact min/max/mean, merge, codec round trip and rejection, clamping and slot
 * arithmetic. Pure logic: no threads, no clock, no database. */
#include "core/hist.h"
#include "core/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define N 1000000
#define NS_US 1000ull
#define NS_S 1000000000ull
#define NS_H 3600000000000ull

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

enum dist { UNIFORM, LOG_UNIFORM, EXPONENTIAL, NDIST };
static const char *const dist_names[NDIST] = {"uniform 1us..1s", "log-uniform 1us..1h",
                                              "exponential mean 5ms"};

static uint64_t draw(struct dg_rng *r, enum dist d)
{
    switch (d) {
    case UNIFORM: return (uint64_t)dg_rng_range(r, (int64_t)NS_US, (int64_t)NS_S);
    case LOG_UNIFORM: {
        double lo = log((double)NS_US), hi = log((double)NS_H);
        double v = exp(lo + (hi - lo) * (1.0 - dg_rng_unit(r)));
        return v > (double)NS_H ? NS_H : (uint64_t)v;
    }
    case EXPONENTIAL:
    default: return (uint64_t)(-log(dg_rng_unit(r)) * 5e6) + 1;
    }
}

/* The value of rank ceil(p/100 * n) in sorted order: the definition the histogram follows. */
static uint64_t exact_percentile(const uint64_t *sorted, size_t n, double p)
{
    double r = ceil(p / 100.0 * (double)n - 1e-9);
    size_t rank = r < 1 ? 1 : (size_t)r;
    return sorted[rank - 1];
}

static void check_distribution(struct dg_test *t, enum dist d, uint64_t *vals)
{
    struct dg_hist *h = dg_hist_new();
    struct dg_rng r;
    dg_rng_seed(&r, 1000 + (uint64_t)d);
    uint64_t sum = 0, mn = UINT64_MAX, mx = 0;
    for (size_t i = 0; i < N; i++) {
        uint64_t v = draw(&r, d);
        vals[i] = v;
        dg_hist_record(h, v);
        sum += v;
        if (v < mn)
            mn = v;
        if (v > mx)
            mx = v;
    }
    qsort(vals, N, sizeof *vals, cmp_u64);
    static const double ps[] = {50, 90, 95, 99, 99.9};
    char name[160];
    for (size_t k = 0; k < sizeof ps / sizeof *ps; k++) {
        uint64_t want = exact_percentile(vals, N, ps[k]);
        uint64_t got = dg_hist_percentile(h, ps[k]);
        double rel = fabs((double)got - (double)want) / (double)want;
        snprintf(name, sizeof name, "%s: p%g within 0.1%% of the exact value", dist_names[d], ps[k]);
        CHECK(t, rel <= 0.001, name, "got %llu, exact %llu (%.4f%%)", (unsigned long long)got,
              (unsigned long long)want, rel * 100);
        /* hist.h promises the bucket midpoint: at most half a slot (1/2048 relative) away */
        snprintf(name, sizeof name, "%s: p%g within the documented 1/2048", dist_names[d], ps[k]);
        CHECK(t, rel <= 1.0 / 2048 + 1e-9, name, "got %llu, exact %llu (%.4f%%)", (unsigned long long)got,
              (unsigned long long)want, rel * 100);
    }
    snprintf(name, sizeof name, "%s: p100 is the exact max", dist_names[d]);
    CHECK(t, dg_hist_percentile(h, 100) == mx, name, "got %llu, max %llu",
          (unsigned long long)dg_hist_percentile(h, 100), (unsigned long long)mx);
    snprintf(name, sizeof name, "%s: min, max, total exact", dist_names[d]);
    CHECK(t, h->min_ns == mn && h->max_ns == mx && h->total == N, name,
          "min %llu/%llu max %llu/%llu total %llu", (unsigned long long)h->min_ns,
          (unsigned long long)mn, (unsigned long long)h->max_ns, (unsigned long long)mx,
          (unsigned long long)h->total);
    double mean = (double)sum / N;
    snprintf(name, sizeof name, "%s: mean exact", dist_names[d]);
    CHECK(t, fabs(dg_hist_mean_ns(h) - mean) <= mean * 1e-12, name, "got %.3f, exact %.3f",
          dg_hist_mean_ns(h), mean);
    dg_hist_free(h);
}

static int same_hist(const struct dg_hist *a, const struct dg_hist *b, char *why, size_t n)
{
    if (a->total != b->total || a->sum_ns != b->sum_ns || a->min_ns != b->min_ns ||
        a->max_ns != b->max_ns || a->clamped != b->clamped)
        return snprintf(why, n, "totals differ: total %llu/%llu sum %llu/%llu min %llu/%llu "
                                "max %llu/%llu clamped %llu/%llu",
                        (unsigned long long)a->total, (unsigned long long)b->total,
                        (unsigned long long)a->sum_ns, (unsigned long long)b->sum_ns,
                        (unsigned long long)a->min_ns, (unsigned long long)b->min_ns,
                        (unsigned long long)a->max_ns, (unsigned long long)b->max_ns,
                        (unsigned long long)a->clamped, (unsigned long long)b->clamped), 0;
    for (size_t i = 0; i < DG_HIST_SLOTS; i++)
        if (a->counts[i] != b->counts[i])
            return snprintf(why, n, "slot %zu: %llu != %llu", i, (unsigned long long)a->counts[i],
                            (unsigned long long)b->counts[i]), 0;
    return 1;
}

static void check_merge(struct dg_test *t)
{
    struct dg_hist *a = dg_hist_new(), *b = dg_hist_new(), *u = dg_hist_new(), *e = dg_hist_new();
    struct dg_rng r;
    dg_rng_seed(&r, 7);
    for (int i = 0; i < 200000; i++) {
        uint64_t v = draw(&r, (enum dist)(i % NDIST));
        dg_hist_record(i % 3 ? a : b, v);
        dg_hist_record(u, v);
    }
    dg_hist_record(b, NS_H + 5); /* a clamped value on one side only */
    dg_hist_record(u, NS_H + 5);
    char why[300] = "";
    dg_hist_merge(a, b);
    CHECK(t, same_hist(a, u, why, sizeof why), "merge of two histograms equals recording the union",
          "%s", why);
    dg_hist_merge(a, e);
    CHECK(t, same_hist(a, u, why, sizeof why), "merging an empty histogram changes nothing", "%s", why);
    dg_hist_merge(e, u);
    CHECK(t, same_hist(e, u, why, sizeof why), "merging into an empty histogram copies it", "%s",
          why);
    dg_hist_free(a);
    dg_hist_free(b);
    dg_hist_free(u);
    dg_hist_free(e);
}

static void check_codec(struct dg_test *t)
{
    struct dg_hist *h = dg_hist_new(), *d = dg_hist_new();
    struct dg_rng r;
    dg_rng_seed(&r, 99);
    for (int i = 0; i < 100000; i++)
        dg_hist_record(h, draw(&r, (enum dist)(i % NDIST)));
    dg_hist_record(h, 0);
    dg_hist_record(h, NS_H * 2);
    size_t len = 0;
    unsigned char *buf = dg_hist_encode(h, &len);
    char why[300] = "";
    int rc = buf ? dg_hist_decode(d, buf, len) : -2;
    CHECK(t, rc == 0 && same_hist(h, d, why, sizeof why), "encode/decode round trip equals the original",
          "rc %d %s", rc, why);
    CHECK(t, len < sizeof(struct dg_hist) / 4, "encoding is compact",
          "%zu bytes for a %zu-byte histogram", len, sizeof(struct dg_hist));

    /* every strict prefix is rejected */
    int accepted = -1;
    for (size_t n = 0; n < len && accepted < 0; n++)
        if (dg_hist_decode(d, buf, n) == 0)
            accepted = (int)n;
    CHECK(t, accepted < 0, "decode rejects every truncation", "accepted a %d-byte prefix of %zu",
          accepted, len);

    unsigned char *longer = malloc(len + 1);
    memcpy(longer, buf, len);
    longer[len] = 0;
    CHECK(t, dg_hist_decode(d, longer, len + 1) != 0, "decode rejects trailing bytes", "accepted");
    longer[0] = 'X';
    CHECK(t, dg_hist_decode(d, longer, len) != 0, "decode rejects a bad magic", "accepted");
    free(longer);

    /* garbage: random bytes behind a good magic, and a slot beyond the table */
    dg_rng_seed(&r, 5);
    int garbage_ok = 0;
    unsigned char junk[256];
    for (int k = 0; k < 2000; k++) {
        memcpy(junk, "DGH1", 4);
        size_t n = 4 + (size_t)dg_rng_range(&r, 0, 252);
        for (size_t i = 4; i < n; i++)
            junk[i] = (unsigned char)dg_rng_next(&r);
        garbage_ok += dg_hist_decode(d, junk, n) == 0;
    }
    CHECK(t, garbage_ok == 0, "decode rejects random garbage", "%d of 2000 accepted", garbage_ok);

    unsigned char far[32], *p = far;
    memcpy(p, "DGH1", 4);
    p += 4;
    /* total 1, sum 1, min 1, max 1, clamped 0, 1 pair: delta = DG_HIST_SLOTS (varint), count 1 */
    *p++ = 1, *p++ = 1, *p++ = 1, *p++ = 1, *p++ = 0, *p++ = 1;
    uint64_t delta = DG_HIST_SLOTS;
    while (delta >= 0x80) {
        *p++ = (unsigned char)(delta | 0x80);
        delta >>= 7;
    }
    *p++ = (unsigned char)delta;
    *p++ = 1;
    CHECK(t, dg_hist_decode(d, far, (size_t)(p - far)) != 0, "decode rejects a slot past the table",
          "accepted");
    p = far + 4; /* total 2, one pair at slot 5 with count 1 */
    *p++ = 2, *p++ = 10, *p++ = 5, *p++ = 5, *p++ = 0, *p++ = 1, *p++ = 5, *p++ = 1;
    CHECK(t, dg_hist_decode(d, far, (size_t)(p - far)) != 0, "decode rejects a total the counts deny",
          "accepted");
    far[4] = 1; /* the same buffer with total 1 is well formed */
    CHECK(t, dg_hist_decode(d, far, (size_t)(p - far)) == 0 && d->counts[5] == 1 && d->total == 1,
          "a hand-made well-formed buffer decodes", "rejected");

    struct dg_hist *empty = dg_hist_new();
    free(buf);
    buf = dg_hist_encode(empty, &len);
    rc = buf ? dg_hist_decode(d, buf, len) : -2;
    CHECK(t, rc == 0 && same_hist(empty, d, why, sizeof why) && dg_hist_percentile(d, 50) == 0,
          "empty histogram round trip", "rc %d %s", rc, why);
    free(buf);
    dg_hist_free(empty);
    dg_hist_free(h);
    dg_hist_free(d);
}

static void check_clamp(struct dg_test *t)
{
    struct dg_hist *h = dg_hist_new();
    dg_hist_record(h, NS_H);          /* exactly 1 h: kept */
    dg_hist_record(h, NS_H + 1);      /* clamped */
    dg_hist_record(h, UINT64_MAX);    /* clamped */
    CHECK(t, h->clamped == 2 && h->total == 3 && h->max_ns == NS_H,
          "values above 1 h are clamped to 1 h and counted", "clamped %llu total %llu max %llu",
          (unsigned long long)h->clamped, (unsigned long long)h->total, (unsigned long long)h->max_ns);
    CHECK(t, h->counts[dg_hist_slot_of(NS_H)] == 3 && h->sum_ns == 3 * NS_H,
          "clamped values land in the 1 h slot", "slot count %llu sum %llu",
          (unsigned long long)h->counts[dg_hist_slot_of(NS_H)], (unsigned long long)h->sum_ns);
    CHECK(t, dg_hist_slot_of(NS_H) < DG_HIST_SLOTS, "1 h fits in the table", "slot %zu of %zu",
          dg_hist_slot_of(NS_H), (size_t)DG_HIST_SLOTS);
    dg_hist_free(h);
}

static void check_slots(struct dg_test *t)
{
    /* Every slot's range starts where the previous one ended. */
    size_t last = dg_hist_slot_of(NS_H);
    int contiguous = 1;
    size_t bad_slot = 0;
    for (size_t s = 1; s <= last && contiguous; s++)
        if (dg_hist_slot_low(s) != dg_hist_slot_low(s - 1) + dg_hist_slot_width(s - 1) ||
            dg_hist_slot_width(s) < dg_hist_slot_width(s - 1))
            contiguous = 0, bad_slot = s;
    CHECK(t, contiguous && dg_hist_slot_low(0) == 0, "slots are contiguous from 0 with growing widths",
          "slot %zu: low %llu, previous low %llu width %llu", bad_slot,
          (unsigned long long)dg_hist_slot_low(bad_slot),
          (unsigned long long)dg_hist_slot_low(bad_slot ? bad_slot - 1 : 0),
          (unsigned long long)dg_hist_slot_width(bad_slot ? bad_slot - 1 : 0));

    /* slot_low(slot_of(v)) <= v < low + width, slot_of monotonic, 3 significant digits. */
    struct dg_rng r;
    dg_rng_seed(&r, 3);
    int good = 1, mono = 1, precise = 1;
    uint64_t bad = 0;
    uint64_t prev_v = 0;
    size_t prev_s = 0;
    for (uint64_t v = 0; v < 100000; v++) { /* every small value, across the first buckets */
        size_t s = dg_hist_slot_of(v);
        if (!(dg_hist_slot_low(s) <= v && v < dg_hist_slot_low(s) + dg_hist_slot_width(s)))
            good = 0, bad = v;
        if (s < prev_s)
            mono = 0, bad = v;
        prev_s = s;
    }
    prev_s = 0;
    for (int i = 0; i < 1000000; i++) {
        /* increasing values spread over 0..1h: a random walk with log-scaled steps */
        uint64_t v = prev_v + 1 + (uint64_t)(dg_rng_unit(&r) * (double)(prev_v / 64 + 1));
        if (v > NS_H)
            v = prev_v = (uint64_t)dg_rng_range(&r, 0, 4096), prev_s = 0;
        size_t s = dg_hist_slot_of(v);
        uint64_t lo = dg_hist_slot_low(s), w = dg_hist_slot_width(s);
        if (!(lo <= v && v < lo + w))
            good = 0, bad = v;
        if (s < prev_s)
            mono = 0, bad = v;
        if (v >= 2048 && (double)w / (double)lo > 1.0 / 1024 + 1e-12)
            precise = 0, bad = v;
        prev_s = s;
        prev_v = v;
    }
    for (unsigned b = 0; b < 42; b++) { /* powers of two and their neighbours */
        uint64_t p2 = 1ull << b;
        uint64_t vs[3] = {p2 - 1, p2, p2 + 1};
        for (int k = 0; k < 3; k++) {
            size_t s = dg_hist_slot_of(vs[k]);
            if (!(dg_hist_slot_low(s) <= vs[k] && vs[k] < dg_hist_slot_low(s) + dg_hist_slot_width(s)))
                good = 0, bad = vs[k];
        }
    }
    CHECK(t, good, "slot_low(slot_of(v)) <= v < low + width", "fails at v = %llu",
          (unsigned long long)bad);
    CHECK(t, mono, "slot_of is monotonic", "decreases at v = %llu", (unsigned long long)bad);
    CHECK(t, precise, "slot width is at most 1/1024 of its low edge above 2048 ns", "at v = %llu",
          (unsigned long long)bad);
}

static void check_small(struct dg_test *t)
{
    struct dg_hist *h = dg_hist_new();
    CHECK(t, dg_hist_percentile(h, 50) == 0 && dg_hist_mean_ns(h) == 0.0,
          "empty histogram: percentile and mean are 0", "p50 %llu",
          (unsigned long long)dg_hist_percentile(h, 50));
    for (uint64_t v = 1; v <= 100; v++)
        dg_hist_record(h, v * 10); /* exact below 2048 */
    CHECK(t, dg_hist_percentile(h, 50) == 500 && dg_hist_percentile(h, 1) == 10 &&
                 dg_hist_percentile(h, 99) == 990 && dg_hist_percentile(h, 100) == 1000,
          "small values are exact (p1, p50, p99, p100 of 10..1000)", "p1 %llu p50 %llu p99 %llu p100 %llu",
          (unsigned long long)dg_hist_percentile(h, 1), (unsigned long long)dg_hist_percentile(h, 50),
          (unsigned long long)dg_hist_percentile(h, 99), (unsigned long long)dg_hist_percentile(h, 100));
    dg_hist_reset(h);
    CHECK(t, h->total == 0 && h->counts[dg_hist_slot_of(500)] == 0 && h->max_ns == 0,
          "reset empties the histogram", "total %llu", (unsigned long long)h->total);
    dg_hist_record(h, 0);
    CHECK(t, h->min_ns == 0 && h->total == 1 && dg_hist_percentile(h, 50) == 0,
          "a zero value is recorded with min 0", "min %llu", (unsigned long long)h->min_ns);
    dg_hist_free(h);
}

int main(void)
{
    struct dg_test t = {0};
    uint64_t *vals = malloc(N * sizeof *vals);
    if (!vals)
        return 2;
    for (int d = 0; d < NDIST; d++)
        check_distribution(&t, (enum dist)d, vals);
    free(vals);
    check_merge(&t);
    check_codec(&t);
    check_clamp(&t);
    check_slots(&t);
    check_small(&t);
    return dg_test_done(&t);
}
