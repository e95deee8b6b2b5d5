/* spread.c — the spread of several targets' figures around their plain mean (docs/results.md,
 * "Several targets at once"). No I/O, no allocation. */
#include "core/spread.h"

static double pct_from(double x, double mean) { return mean != 0 ? (x - mean) / mean * 100.0 : 0.0; }

void dg_spread_compute(const double *x, int n, struct dg_spread *s, double *pct)
{
    *s = (struct dg_spread){.n = n};
    if (n < 1)
        return;
    double sum = 0;
    s->min = s->max = x[0];
    for (int i = 0; i < n; i++) {
        sum += x[i];
        if (x[i] < s->min) {
            s->min = x[i];
            s->min_idx = i;
        }
        if (x[i] > s->max) {
            s->max = x[i];
            s->max_idx = i;
        }
    }
    s->mean = sum / n;
    s->min_pct = pct_from(s->min, s->mean);
    s->max_pct = pct_from(s->max, s->mean);
    for (int i = 0; pct && i < n; i++)
        pct[i] = pct_from(x[i], s->mean);
}
