/* test_sched.c — the schedule's pure logic with an injected clock: arrival times (Poisson
 * and uniform), negative-exponential think times, and the terminals' timer heap. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "core/sched.h"
#include "core/series.h"

static void check_arrivals(struct dg_test *t)
{
    struct dg_arrival_gen g;
    const int n = 200000;
    const double rate = 500.0, gap_ns = 1e9 / rate;
    dg_arrival_init(&g, rate, DG_ARRIVALS_POISSON, 1000, 42);
    dg_ns prev = dg_arrival_next(&g);
    CHECK(t, prev == 1000, "arrivals: the first is at the start", "first %llu", (unsigned long long)prev);
    double sum = 0, sum2 = 0;
    int backwards = 0;
    for (int i = 0; i < n; i++) {
        dg_ns at = dg_arrival_next(&g);
        backwards += at < prev;
        double gap = (double)(at - prev);
        sum += gap;
        sum2 += gap * gap;
        prev = at;
    }
    double mean = sum / n, var = sum2 / n - mean * mean;
    /* Exponential gaps: mean = 1/rate and variance = mean^2 (coefficient of variation 1). */
    CHECK(t, fabs(mean / gap_ns - 1) < 0.01, "poisson arrivals: mean gap is 1/rate within 1%",
          "mean %.0f ns, want %.0f", mean, gap_ns);
    CHECK(t, fabs(var / (gap_ns * gap_ns) - 1) < 0.03, "poisson arrivals: variance is mean^2 within 3%",
          "variance/mean^2 = %.4f", var / (gap_ns * gap_ns));
    CHECK(t, backwards == 0, "poisson arrivals never go back in time", "%d went back", backwards);

    dg_arrival_init(&g, 3.0, DG_ARRIVALS_UNIFORM, 0, 1);
    dg_ns last = 0;
    for (int i = 0; i < 3001; i++)
        last = dg_arrival_next(&g);
    CHECK(t, llabs((long long)last - 1000000000000LL) < 1000, "uniform arrivals do not drift: 3000 gaps at 3/s = 1000 s",
          "last at %llu ns", (unsigned long long)last);
}

static void check_think(struct dg_test *t)
{
    static const double means_s[] = {12, 12, 10, 5, 5}; /* clause 5.2.5's think times */
    struct dg_rng r;
    dg_rng_seed(&r, 99);
    for (int k = 0; k < 5; k++) {
        double mean_ns = means_s[k] * 1e9, sum = 0, max = 0;
        const int n = 200000;
        for (int i = 0; i < n; i++) {
            double v = (double)dg_think_ns(&r, mean_ns);
            sum += v;
            if (v > max)
                max = v;
        }
        char name[96];
        snprintf(name, sizeof name, "think time with mean %.0f s: sample mean within 1%%", means_s[k]);
        /* Truncation at 10 means lowers the mean by e^-10 of it, far below the tolerance. */
        CHECK(t, fabs(sum / n / mean_ns - 1) < 0.01, name, "mean %.3f s", sum / n / 1e9);
        snprintf(name, sizeof name, "think time with mean %.0f s: never above 10 means", means_s[k]);
        CHECK(t, max <= 10 * mean_ns, name, "max %.3f s", max / 1e9);
    }
}

static void check_heap(struct dg_test *t)
{
    const uint32_t n = 15000;
    struct dg_term_heap h;
    CHECK(t, dg_heap_init(&h, n) == 0, "heap of 15,000 terminals allocates", "no memory");
    struct dg_rng r;
    dg_rng_seed(&r, 5);
    for (uint32_t i = 0; i < n; i++)
        dg_heap_push(&h, i, (dg_ns)dg_rng_range(&r, 0, 3600000000000LL));
    CHECK(t, dg_heap_push(&h, n, 1) != 0, "heap refuses a terminal beyond its capacity", "accepted");
    /* Dispatch with an injected clock moving forward: every pop is due and in order. */
    dg_ns clock = 0, prev = 0;
    uint32_t popped = 0, out_of_order = 0;
    char *seen = calloc(n, 1);
    while (dg_heap_peek(&h)) {
        const struct dg_heap_item *it = dg_heap_peek(&h);
        if (it->due > clock)
            clock = it->due; /* the clock jumps to the next due time */
        out_of_order += it->due < prev;
        prev = it->due;
        uint32_t term = it->term;
        seen[term]++;
        dg_heap_pop(&h);
        popped++;
        /* Half the terminals come back later, as a terminal does after thinking. */
        if (popped <= n / 2)
            dg_heap_push(&h, term, clock + 1);
    }
    int all = 1;
    for (uint32_t i = 0; i < n; i++)
        all &= seen[i] >= 1;
    CHECK(t, out_of_order == 0, "heap of 15,000 dispatches in due order", "%u out of order", out_of_order);
    CHECK(t, popped == n + n / 2 && all, "heap dispatches every terminal, re-queued ones again",
          "%u popped", popped);
    free(seen);
    dg_heap_free(&h);
}

static void check_series_percentile(struct dg_test *t)
{
    static uint32_t hist[DG_SEC_SLOTS];
    uint64_t top = 0;
    for (uint64_t v = 1000; v <= 100000000; v = v * 11 / 10) {
        hist[dg_sec_slot_of(v)]++;
        top = v;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < DG_SEC_SLOTS; i++)
        total += hist[i];
    uint64_t p100 = dg_sec_percentile(hist, total, 100), p0 = dg_sec_percentile(hist, total, 0.0001);
    CHECK(t, fabs((double)p100 / (double)top - 1) < 0.02 && fabs((double)p0 / 1000 - 1) < 0.02,
          "per-second histogram keeps 2 significant digits at both ends", "p0 %llu p100 %llu",
          (unsigned long long)p0, (unsigned long long)p100);
}

int main(void)
{
    struct dg_test t = {0};
    check_arrivals(&t);
    check_think(&t);
    check_heap(&t);
    check_series_percentile(&t);
    return dg_test_done(&t);
}
