/* test_spread.c — unit tests of the spread of several targets' figures around their mean:
 * percents from the mean, minimum, maximum and whose they are, and the degenerate cases. */
#include <math.h>

#include "core/spread.h"
#include "check.h"

static int near(double a, double b) { return fabs(a - b) < 1e-9 * (fabs(b) + 1); }

int main(void)
{
    struct dg_test t = {0};
    struct dg_spread s;
    double pct[4];

    /* The seeds' shape: four nodes around a mean of 100. */
    const double nopm[4] = {113.5, 93.3, 96.0, 97.2};
    dg_spread_compute(nopm, 4, &s, pct);
    CHECK(&t, near(s.mean, 100.0), "mean of four", "mean %g", s.mean);
    CHECK(&t, s.max_idx == 0 && near(s.max, 113.5) && near(s.max_pct, 13.5), "fastest 13.5% above the mean",
          "max %g at %d, %+g%%", s.max, s.max_idx, s.max_pct);
    CHECK(&t, s.min_idx == 1 && near(s.min, 93.3) && near(s.min_pct, -6.7), "slowest 6.7% below the mean",
          "min %g at %d, %+g%%", s.min, s.min_idx, s.min_pct);
    double sum = 0;
    for (int i = 0; i < 4; i++)
        sum += pct[i];
    CHECK(&t, near(sum, 0.0), "percents from the plain mean sum to 0", "sum %g", sum);
    CHECK(&t, near(pct[2], -4.0) && near(pct[3], -2.8), "each target's percent", "%g %g", pct[2], pct[3]);

    /* The plain mean, not weighted by anything: 10 and 30 give 20, so +-50%. */
    const double two[2] = {10, 30};
    dg_spread_compute(two, 2, &s, pct);
    CHECK(&t, near(s.mean, 20) && near(pct[0], -50) && near(pct[1], 50), "two targets: -50% and +50%",
          "mean %g, %g %g", s.mean, pct[0], pct[1]);

    /* Ties: the first index wins both ends; all equal means 0% everywhere. */
    const double same[3] = {7, 7, 7};
    dg_spread_compute(same, 3, &s, pct);
    CHECK(&t, s.min_idx == 0 && s.max_idx == 0 && pct[0] == 0 && pct[2] == 0 && s.max_pct == 0,
          "equal values: 0% from the mean, first index", "min %d max %d", s.min_idx, s.max_idx);

    /* A zero mean (nothing committed anywhere) gives 0%, never a division by zero. */
    const double zero[2] = {0, 0};
    dg_spread_compute(zero, 2, &s, pct);
    CHECK(&t, pct[0] == 0 && pct[1] == 0 && s.min_pct == 0 && !isnan(s.max_pct), "zero mean: 0%",
          "%g %g", pct[0], pct[1]);

    /* One target: it is the mean, min and max. */
    const double one[1] = {42};
    dg_spread_compute(one, 1, &s, NULL);
    CHECK(&t, s.n == 1 && near(s.mean, 42) && s.min_idx == 0 && s.max_idx == 0 && s.max_pct == 0,
          "one target", "mean %g", s.mean);
    return dg_test_done(&t);
}
