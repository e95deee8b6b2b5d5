/* spread.h — how far several targets' figures stray from their mean: each one's percent from
 * the mean, the minimum and the maximum and whose they are. Pure arithmetic on a few doubles;
 * knows nothing of runs, databases or output. */
#ifndef DG_SPREAD_H
#define DG_SPREAD_H

struct dg_spread {
    int n;
    double mean;             /* plain (unweighted) mean of the n values */
    double min, max;
    int min_idx, max_idx;    /* the first index holding the minimum / maximum */
    double min_pct, max_pct; /* (min - mean) / mean * 100, (max - mean) / mean * 100 */
};

/* Fills s from x[0..n-1] (n >= 1) and, when pct is not NULL, pct[i] = (x[i] - mean) / mean * 100
 * (0 for every value when the mean is 0). */
void dg_spread_compute(const double *x, int n, struct dg_spread *s, double *pct);

#endif
