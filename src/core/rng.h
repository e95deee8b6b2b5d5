/* rng.h — a small, fast, seedable generator (xoshiro256**) and the uniform draws
 * every workload needs. State is a plain value: copy it to save and restore. */
#ifndef DG_RNG_H
#define DG_RNG_H

#include <stdint.h>
#include <stddef.h>

struct dg_rng {
    uint64_t s[4];
};

void dg_rng_seed(struct dg_rng *r, uint64_t seed);
uint64_t dg_rng_next(struct dg_rng *r);
/* Uniform integer in the closed range [lo, hi]; lo <= hi. Unbiased (Lemire's method). */
int64_t dg_rng_range(struct dg_rng *r, int64_t lo, int64_t hi);
/* Uniform double in (0, 1]: never 0, so -log(u) is finite. */
double dg_rng_unit(struct dg_rng *r);
/* Fills out[0..n) with random characters from alphabet (alen > 0). No terminator. */
void dg_rng_chars(struct dg_rng *r, char *out, size_t n, const char *alphabet, unsigned alen);
/* Mixes a 64-bit value (splitmix64 finaliser): for deriving per-thread seeds. */
uint64_t dg_mix64(uint64_t x);

#endif
