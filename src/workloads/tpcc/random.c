/* random.c — TPC-C's random generators: NURand (clause 2.1.6), the C_LAST syllables
 * (4.3.2.3), a-/n-strings (4.3.2.2), zip codes (4.3.2.7), the ORIGINAL rule (4.3.3.1)
 * and the 23-card transaction deck (5.2.4.2). Pure functions of an RNG state. */
#include <string.h>

#include "workloads/tpcc/tpcc.h"

static const char alnum[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static const char digits[] = "0123456789";

int tpcc_nurand(struct dg_rng *r, int a, int c, int x, int y)
{
    int64_t v = (dg_rng_range(r, 0, a) | dg_rng_range(r, x, y)) + c;
    return (int)(v % (y - x + 1)) + x;
}

int tpcc_last_name(int num, char *out)
{
    static const char *const syl[10] = {"BAR", "OUGHT", "ABLE", "PRI", "PRES",
                                        "ESE", "ANTI", "CALLY", "ATION", "EING"};
    static const unsigned char len[10] = {3, 5, 4, 3, 4, 3, 4, 5, 5, 4};
    int parts[3] = {num / 100 % 10, num / 10 % 10, num % 10};
    int n = 0;
    for (int i = 0; i < 3; i++) {
        memcpy(out + n, syl[parts[i]], len[parts[i]]);
        n += len[parts[i]];
    }
    out[n] = '\0';
    return n;
}

int tpcc_astring(struct dg_rng *r, char *out, int lo, int hi)
{
    int n = (int)dg_rng_range(r, lo, hi);
    dg_rng_chars(r, out, (size_t)n, alnum, 62);
    return n;
}

int tpcc_nstring(struct dg_rng *r, char *out, int lo, int hi)
{
    int n = (int)dg_rng_range(r, lo, hi);
    dg_rng_chars(r, out, (size_t)n, digits, 10);
    return n;
}

void tpcc_zip(struct dg_rng *r, char *out)
{
    dg_rng_chars(r, out, 4, digits, 10);
    memcpy(out + 4, "11111", 5);
}

int tpcc_data_original(struct dg_rng *r, char *out, int *has_original)
{
    int n = tpcc_astring(r, out, 26, 50);
    *has_original = dg_rng_range(r, 1, 100) <= 10;
    if (*has_original) {
        int pos = (int)dg_rng_range(r, 0, n - 8);
        memcpy(out + pos, "ORIGINAL", 8);
    }
    return n;
}

void tpcc_deck_shuffle(struct dg_rng *r, uint8_t deck[TPCC_DECK])
{
    int k = 0;
    for (int i = 0; i < 10; i++)
        deck[k++] = TPCC_NEW_ORDER;
    for (int i = 0; i < 10; i++)
        deck[k++] = TPCC_PAYMENT;
    deck[k++] = TPCC_ORDER_STATUS;
    deck[k++] = TPCC_DELIVERY;
    deck[k++] = TPCC_STOCK_LEVEL;
    for (int i = TPCC_DECK - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)dg_rng_range(r, 0, i);
        uint8_t t = deck[i];
        deck[i] = deck[j];
        deck[j] = t;
    }
}

int tpcc_c_last_run(struct dg_rng *r, int c_load)
{
    for (;;) {
        int c = (int)dg_rng_range(r, 0, 255);
        int delta = c > c_load ? c - c_load : c_load - c;
        if (delta >= 65 && delta <= 119 && delta != 96 && delta != 112)
            return c;
    }
}
