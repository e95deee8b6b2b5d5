/* rng.c — xoshiro256** with splitmix64 seeding; uniform draws without modulo bias. */
#include "core/rng.h"

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t dg_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void dg_rng_seed(struct dg_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        seed = dg_mix64(seed + (uint64_t)i);
        r->s[i] = seed ? seed : 0x1234567ull; /* the all-zero state is a fixed point */
    }
}

uint64_t dg_rng_next(struct dg_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

int64_t dg_rng_range(struct dg_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    if (span == 0) /* the whole 64-bit range */
        return (int64_t)dg_rng_next(r);
    /* Lemire: multiply-shift with rejection of the short tail. */
    unsigned __int128 m = (unsigned __int128)dg_rng_next(r) * span;
    uint64_t low = (uint64_t)m;
    if (low < span) {
        uint64_t threshold = -span % span;
        while (low < threshold) {
            m = (unsigned __int128)dg_rng_next(r) * span;
            low = (uint64_t)m;
        }
    }
    return lo + (int64_t)(m >> 64);
}

double dg_rng_unit(struct dg_rng *r)
{
    /* 53 random bits, shifted into (0, 1]. */
    return ((double)(dg_rng_next(r) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

void dg_rng_chars(struct dg_rng *r, char *out, size_t n, const char *alphabet, unsigned alen)
{
    /* One 64-bit draw yields four 16-bit lanes; (lane * alen) >> 16 maps each to the
     * alphabet with a bias below alen/65536, far under what any check can see. */
    size_t i = 0;
    while (i < n) {
        uint64_t x = dg_rng_next(r);
        for (int k = 0; k < 4 && i < n; k++, i++) {
            out[i] = alphabet[((x & 0xffff) * alen) >> 16];
            x >>= 16;
        }
    }
}
