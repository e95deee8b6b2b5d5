/* test_tpcc_random.c — unit tests of TPC-C's generators (src/workloads/tpcc/random.c), the
 * workload's terminal deck and New-Order's input draw, with fixed seeds and statistical bands
 * of about five standard deviations. Pure logic: no database, no threads. */
#include "workloads/tpcc/tpcc_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The exact distribution of NURand(a, x, y) with constant c, by enumeration of both draws. */
static double *nurand_exact(int a, int c, int x, int y)
{
    int n = y - x + 1;
    double *p = calloc((size_t)n, sizeof *p);
    double w = 1.0 / ((double)(a + 1) * n);
    for (int u = 0; u <= a; u++)
        for (int v = x; v <= y; v++)
            p[((u | v) + c) % n] += w;
    return p;
}

static int cmp_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x < y) - (x > y);
}

/* Share of draws taken by the most frequent 1% of values. */
static double top1_share(const uint64_t *cnt, int n, uint64_t draws)
{
    uint64_t *s = malloc((size_t)n * sizeof *s);
    memcpy(s, cnt, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_desc);
    uint64_t top = 0;
    for (int i = 0; i < n / 100; i++)
        top += s[i];
    free(s);
    return (double)top / (double)draws;
}

static void check_nurand_one(struct dg_test *t, int a, int c, int x, int y, int draws, uint64_t seed,
                             double min_top1)
{
    int n = y - x + 1;
    uint64_t *cnt = calloc((size_t)n, sizeof *cnt);
    struct dg_rng r;
    dg_rng_seed(&r, seed);
    int out = 0, bad = 0;
    for (int i = 0; i < draws; i++) {
        int v = tpcc_nurand(&r, a, c, x, y);
        if (v < x || v > y)
            out++, bad = v;
        else
            cnt[v - x]++;
    }
    char name[160];
    snprintf(name, sizeof name, "NURand(%d,%d,%d) C=%d: always in range", a, x, y, c);
    CHECK(t, out == 0, name, "%d of %d out of range, e.g. %d", out, draws, bad);

    double share = top1_share(cnt, n, (uint64_t)draws);
    snprintf(name, sizeof name, "NURand(%d,%d,%d): the top 1%% of values take >= %.0f%% of draws", a,
             x, y, min_top1 * 100);
    CHECK(t, share >= min_top1, name, "top 1%% share %.2f%%", share * 100);

    if ((double)(a + 1) * n <= 4e6) { /* chi-square against the exact distribution */
        double *p = nurand_exact(a, c, x, y);
        double chi = 0;
        int cells = 0, zero_hit = 0;
        for (int i = 0; i < n; i++) {
            double e = p[i] * draws;
            if (e == 0) {
                zero_hit += cnt[i] != 0;
                continue;
            }
            chi += (cnt[i] - e) * (cnt[i] - e) / e;
            cells++;
        }
        double df = cells - 1, limit = df + 6 * sqrt(2 * df);
        snprintf(name, sizeof name, "NURand(%d,%d,%d): matches the clause 2.1.6 formula (chi-square)", a,
                 x, y);
        CHECK(t, chi < limit && zero_hit == 0, name, "chi2 %.0f for %d cells (limit %.0f), %d impossible values hit",
              chi, cells, limit, zero_hit);
        free(p);
    }
    free(cnt);
}

static void check_nurand(struct dg_test *t)
{
    check_nurand_one(t, 1023, 259, 1, 3000, 1000000, 11, 0.15);
    check_nurand_one(t, 255, 123, 0, 999, 1000000, 12, 0.10);
    check_nurand_one(t, 8191, 7911, 1, 100000, 2000000, 13, 0.20);
    check_nurand_one(t, 255, 0, 0, 999, 200000, 14, 0.10);

    /* C_LAST: the C constant only rotates the distribution */
    struct dg_rng r1, r2;
    dg_rng_seed(&r1, 21);
    dg_rng_seed(&r2, 21);
    int rot = 1;
    for (int i = 0; i < 10000 && rot; i++)
        rot = (tpcc_nurand(&r1, 255, 0, 0, 999) + 100) % 1000 == tpcc_nurand(&r2, 255, 100, 0, 999);
    CHECK(t, rot, "NURand(255,0,999): C shifts values by C mod 1000", "differs");
}

static void check_last_names(struct dg_test *t)
{
    char buf[32];
    static const struct {
        int n;
        const char *s;
    } known[] = {{0, "BARBARBAR"}, {371, "PRICALLYOUGHT"}, {999, "EINGEINGEING"}, {12, "BAROUGHTABLE"},
                 {480, "PRESATIONBAR"}, {765, "CALLYANTIESE"}};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        memset(buf, 'x', sizeof buf);
        int len = tpcc_last_name(known[i].n, buf);
        char name[80];
        snprintf(name, sizeof name, "last name %d -> %s", known[i].n, known[i].s);
        CHECK(t, strcmp(buf, known[i].s) == 0 && len == (int)strlen(known[i].s), name, "got '%s' (len %d)",
              buf, len);
    }
    int lens_ok = 1, bad = -1, distinct = 1;
    static char all[1000][16];
    for (int n = 0; n < 1000; n++) {
        memset(buf, 'x', sizeof buf);
        int len = tpcc_last_name(n, buf);
        if (len < 9 || len > 15 || (int)strlen(buf) != len)
            lens_ok = 0, bad = n;
        snprintf(all[n], sizeof all[n], "%s", buf);
    }
    for (int i = 0; i < 1000 && distinct; i++)
        for (int j = i + 1; j < 1000; j++)
            if (strcmp(all[i], all[j]) == 0) {
                distinct = 0, bad = j;
                break;
            }
    CHECK(t, lens_ok, "every last name 0..999 has length 9..15 and is terminated", "at %d", bad);
    CHECK(t, distinct, "the 1000 last names are distinct", "duplicate at %d", bad);
}

static int in_set(char c, const char *set) { return c && strchr(set, c) != NULL; }

static void check_strings(struct dg_test *t)
{
    static const char alnum[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    struct dg_rng r;
    dg_rng_seed(&r, 31);
    enum { DRAWS = 90000, LO = 8, HI = 16 };
    uint64_t len_cnt[64] = {0}, ch[256] = {0};
    int out = 0, badch = 0;
    char buf[64];
    for (int i = 0; i < DRAWS; i++) {
        memset(buf, 0, sizeof buf);
        int n = tpcc_astring(&r, buf, LO, HI);
        if (n < LO || n > HI) {
            out++;
            continue;
        }
        len_cnt[n]++;
        for (int k = 0; k < n; k++) {
            badch += !in_set(buf[k], alnum);
            ch[(unsigned char)buf[k]]++;
        }
        badch += buf[n] != 0; /* nothing written past the length */
    }
    double e = (double)DRAWS / (HI - LO + 1), band = 5 * sqrt(e);
    int uniform = 1;
    for (int l = LO; l <= HI; l++)
        uniform &= fabs((double)len_cnt[l] - e) < band;
    CHECK(t, out == 0, "a-string [8..16]: length always in range", "%d out of range", out);
    CHECK(t, uniform, "a-string [8..16]: every length equally likely", "len 8: %llu, 12: %llu, 16: %llu (expect %.0f)",
          (unsigned long long)len_cnt[LO], (unsigned long long)len_cnt[12], (unsigned long long)len_cnt[HI], e);
    int all_used = 1;
    for (const char *c = alnum; *c; c++)
        all_used &= ch[(unsigned char)*c] > 0;
    CHECK(t, badch == 0 && all_used, "a-string: alphanumeric only, all 62 characters used",
          "%d bad characters, all used %d", badch, all_used);

    dg_rng_seed(&r, 32);
    memset(len_cnt, 0, sizeof len_cnt);
    memset(ch, 0, sizeof ch);
    out = badch = 0;
    for (int i = 0; i < DRAWS; i++) {
        memset(buf, 0, sizeof buf);
        int n = tpcc_nstring(&r, buf, 16, 16);
        out += n != 16;
        for (int k = 0; k < 16; k++) {
            badch += !in_set(buf[k], "0123456789");
            ch[(unsigned char)buf[k]]++;
        }
        badch += buf[16] != 0;
    }
    int digits_even = 1;
    for (char c = '0'; c <= '9'; c++)
        digits_even &= fabs((double)ch[(unsigned char)c] - DRAWS * 1.6) < 5 * sqrt(DRAWS * 1.6);
    CHECK(t, out == 0 && badch == 0 && digits_even, "n-string [16..16]: 16 digits, each digit equally likely",
          "%d bad lengths, %d bad characters, even %d", out, badch, digits_even);

    dg_rng_seed(&r, 33);
    memset(len_cnt, 0, sizeof len_cnt);
    out = 0;
    for (int i = 0; i < DRAWS; i++) {
        int n = tpcc_nstring(&r, buf, 1, 3);
        if (n < 1 || n > 3)
            out++;
        else
            len_cnt[n]++;
    }
    e = DRAWS / 3.0;
    CHECK(t, out == 0 && fabs(len_cnt[1] - e) < 5 * sqrt(e) && fabs(len_cnt[3] - e) < 5 * sqrt(e),
          "n-string [1..3]: lengths uniform", "%d out, len1 %llu len3 %llu", out,
          (unsigned long long)len_cnt[1], (unsigned long long)len_cnt[3]);

    /* zip: 4 digits then 11111, the digits uniform at each position */
    dg_rng_seed(&r, 34);
    uint64_t pos[4][10] = {{0}};
    int zbad = 0;
    for (int i = 0; i < 50000; i++) {
        char z[10];
        memset(z, 0, sizeof z);
        tpcc_zip(&r, z);
        for (int k = 0; k < 4; k++) {
            if (!in_set(z[k], "0123456789"))
                zbad++;
            else
                pos[k][z[k] - '0']++;
        }
        zbad += memcmp(z + 4, "11111", 5) != 0 || z[9] != 0;
    }
    int zeven = 1;
    for (int k = 0; k < 4; k++)
        for (int d = 0; d < 10; d++)
            zeven &= fabs((double)pos[k][d] - 5000) < 5 * sqrt(5000);
    CHECK(t, zbad == 0, "zip: 4 digits followed by 11111 (9 bytes, nothing more)", "%d bad", zbad);
    CHECK(t, zeven, "zip: each of the 4 digits uniform", "uneven");

    /* ORIGINAL in ~10% of data strings */
    dg_rng_seed(&r, 35);
    enum { DN = 100000 };
    int has = 0, mismatch = 0, lbad = 0, at_start = 0, at_end = 0;
    for (int i = 0; i < DN; i++) {
        char d[64];
        int flag = -1;
        int n = tpcc_data_original(&r, d, &flag);
        if (n < 26 || n > 50) {
            lbad++;
            continue;
        }
        int found = memmem(d, (size_t)n, "ORIGINAL", 8) != NULL;
        has += flag == 1;
        mismatch += found != (flag == 1) || (flag != 0 && flag != 1);
        at_start += found && memcmp(d, "ORIGINAL", 8) == 0;
        at_end += found && memcmp(d + n - 8, "ORIGINAL", 8) == 0;
    }
    double band_o = 5 * sqrt(DN * 0.1 * 0.9);
    CHECK(t, lbad == 0, "data string: length 26..50", "%d out of range", lbad);
    CHECK(t, fabs(has - DN * 0.1) < band_o, "data string: ORIGINAL in 10% (binomial band)",
          "%d of %d (band %.0f +- %.0f)", has, DN, DN * 0.1, band_o);
    CHECK(t, mismatch == 0, "data string: has_original says exactly whether ORIGINAL is there",
          "%d mismatches", mismatch);
    CHECK(t, at_start > 0 && at_end > 0, "data string: ORIGINAL may start at 0 and end at the last byte",
          "at start %d, at end %d", at_start, at_end);
}

static void check_deck(struct dg_test *t)
{
    struct dg_rng r;
    dg_rng_seed(&r, 41);
    enum { DECKS = 20000 };
    static const int want[TPCC_NTYPES] = {10, 10, 1, 1, 1};
    uint64_t at[TPCC_DECK][TPCC_NTYPES] = {{0}};
    int bad_decks = 0;
    for (int d = 0; d < DECKS; d++) {
        uint8_t deck[TPCC_DECK];
        memset(deck, 0xff, sizeof deck);
        tpcc_deck_shuffle(&r, deck);
        int c[TPCC_NTYPES + 1] = {0};
        for (int i = 0; i < TPCC_DECK; i++) {
            int ty = deck[i] < TPCC_NTYPES ? deck[i] : TPCC_NTYPES;
            c[ty]++;
            if (ty < TPCC_NTYPES)
                at[i][ty]++;
        }
        for (int ty = 0; ty < TPCC_NTYPES; ty++)
            bad_decks += c[ty] != want[ty] ? 1 : 0;
        bad_decks += c[TPCC_NTYPES] != 0;
    }
    CHECK(t, bad_decks == 0, "every shuffled deck holds exactly 10/10/1/1/1", "%d bad decks", bad_decks);
    int uniform = 1, bi = 0, bt = 0;
    for (int i = 0; i < TPCC_DECK; i++)
        for (int ty = 0; ty < TPCC_NTYPES; ty++) {
            double p = want[ty] / (double)TPCC_DECK, e = DECKS * p, sd = sqrt(DECKS * p * (1 - p));
            if (fabs((double)at[i][ty] - e) > 5 * sd)
                uniform = 0, bi = i, bt = ty;
        }
    CHECK(t, uniform, "over many decks every position holds each type with its deck share",
          "position %d type %d: %llu", bi, bt, (unsigned long long)at[bi][bt]);
}

static void check_c_last_run(struct dg_test *t)
{
    struct dg_rng r;
    dg_rng_seed(&r, 51);
    int bad = 0, bad_load = -1, bad_c = -1, not_random = 0;
    for (int c_load = 0; c_load <= 255; c_load++) {
        int first = -1, varied = 0;
        for (int k = 0; k < 200; k++) {
            int c = tpcc_c_last_run(&r, c_load);
            int delta = abs(c - c_load);
            if (c < 0 || c > 255 || delta < 65 || delta > 119 || delta == 96 || delta == 112)
                bad++, bad_load = c_load, bad_c = c;
            if (first < 0)
                first = c;
            varied |= c != first;
        }
        not_random += !varied;
    }
    CHECK(t, bad == 0, "C-Run for every C-Load 0..255: delta in [65,119], not 96 or 112, C in [0,255]",
          "%d bad, e.g. load %d run %d", bad, bad_load, bad_c);
    CHECK(t, not_random == 0, "C-Run is drawn at random (not a fixed value)", "%d loads always gave one value",
          not_random);
}

static void check_terminal_deck(struct dg_test *t)
{
    struct tpcc_shared sh = {.warehouses = 3, .c_run = {100, 200, 300}};
    const struct dg_workload *wl = &tpcc_workload;
    unsigned char *term = calloc(1, wl->terminal_size);
    int bad_blocks = 0, out = 0;
    uint64_t total[TPCC_NTYPES] = {0};
    for (int ti = 0; ti < 5; ti++) {
        wl->terminal_init(&sh, ti, 30, term, 1000 + (uint64_t)ti);
        for (int b = 0; b < 200; b++) {
            int c[TPCC_NTYPES] = {0};
            for (int k = 0; k < TPCC_DECK; k++) {
                int ty = wl->next_type(term);
                if (ty < 0 || ty >= TPCC_NTYPES)
                    out++;
                else
                    c[ty]++, total[ty]++;
            }
            bad_blocks += c[0] != 10 || c[1] != 10 || c[2] != 1 || c[3] != 1 || c[4] != 1;
        }
    }
    CHECK(t, out == 0 && bad_blocks == 0 && total[TPCC_DELIVERY] == 1000,
          "workload terminal: each run of 23 draws is exactly 10/10/1/1/1", "%d bad blocks, %d out of range",
          bad_blocks, out);

    /* two terminals seeded alike draw alike; differently seeded ones differ */
    unsigned char *t2 = calloc(1, wl->terminal_size);
    wl->terminal_init(&sh, 0, 30, term, 77);
    wl->terminal_init(&sh, 0, 30, t2, 77);
    int same = 1;
    for (int k = 0; k < 100; k++)
        same &= wl->next_type(term) == wl->next_type(t2);
    wl->terminal_init(&sh, 0, 30, t2, 78);
    wl->terminal_init(&sh, 0, 30, term, 77);
    int differ = 0;
    for (int k = 0; k < 100; k++)
        differ |= wl->next_type(term) != wl->next_type(t2);
    CHECK(t, same && differ, "terminal draws depend on the seed only", "same %d differ %d", same, differ);

    /* 10 terminals per warehouse: every (warehouse, stock-level district) pair once */
    int seen[4][11] = {{0}}, bad = 0;
    for (int ti = 0; ti < 30; ti++) {
        wl->terminal_init(&sh, ti, 30, term, 1);
        const struct tpcc_term *tt = (const struct tpcc_term *)term;
        if (tt->w_id < 1 || tt->w_id > 3 || tt->sl_d_id < 1 || tt->sl_d_id > 10)
            bad++;
        else
            seen[tt->w_id][tt->sl_d_id]++;
    }
    for (int w = 1; w <= 3; w++)
        for (int d = 1; d <= 10; d++)
            bad += seen[w][d] != 1;
    CHECK(t, bad == 0, "30 terminals on 3 warehouses: each warehouse's 10 terminals own 10 districts",
          "%d bad", bad);
    free(term);
    free(t2);
}

static void check_new_order(struct dg_test *t, int warehouses)
{
    struct tpcc_shared sh = {.warehouses = warehouses, .c_run = {100, 500, 4000}};
    struct tpcc_term *term = calloc(1, tpcc_workload.terminal_size);
    enum { CALLS = 100000 };
    int bad_cnt = 0, dup = 0, bad_item = 0, bad_rbk = 0, rollbacks = 0, bad_field = 0;
    int remote_home = 0, bad_local = 0;
    uint64_t lines = 0, remote = 0, other_w[16] = {0};
    int home = warehouses > 1 ? 2 : 1;
    tpcc_workload.terminal_init(&sh, home - 1, 10 * warehouses, term, 4242);
    for (int i = 0; i < CALLS; i++) {
        struct tpcc_no_input in;
        memset(&in, 0, sizeof in);
        tpcc_new_order_inputs(&sh, term, &in);
        if (in.ol_cnt < 5 || in.ol_cnt > 15) {
            bad_cnt++;
            continue;
        }
        bad_field += in.d_id < 1 || in.d_id > 10 || in.c_id < 1 || in.c_id > 3000;
        rollbacks += in.rollback != 0;
        int any_remote = 0;
        for (int k = 0; k < in.ol_cnt; k++) {
            for (int j = 0; j < k; j++)
                dup += in.i_id[j] == in.i_id[k];
            int last = k == in.ol_cnt - 1;
            if (in.rollback && last)
                bad_rbk += in.i_id[k] != TPCC_ITEMS + 1;
            else
                bad_item += in.i_id[k] < 1 || in.i_id[k] > TPCC_ITEMS;
            bad_field += in.qty[k] < 1 || in.qty[k] > 10;
            lines++;
            if (in.supply_w[k] != home) {
                remote++;
                any_remote = 1;
                if (in.supply_w[k] < 1 || in.supply_w[k] > warehouses)
                    remote_home++;
                else
                    other_w[in.supply_w[k]]++;
            }
        }
        bad_local += in.all_local != !any_remote;
    }
    char name[160];
    snprintf(name, sizeof name, "New-Order W=%d: 5..15 lines of distinct items in 1..100000", warehouses);
    CHECK(t, bad_cnt == 0 && dup == 0 && bad_item == 0, name, "%d bad counts, %d duplicates, %d bad items",
          bad_cnt, dup, bad_item);
    snprintf(name, sizeof name, "New-Order W=%d: d_id, c_id, quantities in range", warehouses);
    CHECK(t, bad_field == 0, name, "%d bad", bad_field);
    double e = CALLS * 0.01, band = 5 * sqrt(CALLS * 0.01 * 0.99);
    snprintf(name, sizeof name, "New-Order W=%d: ~1%% roll back, the last item being 100001", warehouses);
    CHECK(t, bad_rbk == 0 && fabs(rollbacks - e) < band, name, "%d rollbacks (%.0f +- %.0f), %d bad last items",
          rollbacks, e, band, bad_rbk);
    snprintf(name, sizeof name, "New-Order W=%d: all_local matches the supply warehouses", warehouses);
    CHECK(t, bad_local == 0, name, "%d mismatches", bad_local);
    if (warehouses == 1) {
        CHECK(t, remote == 0, "New-Order W=1: no remote lines", "%llu remote lines", (unsigned long long)remote);
    } else {
        double er = (double)lines * 0.01, br = 5 * sqrt((double)lines * 0.01 * 0.99);
        int every_other = 1;
        for (int w = 1; w <= warehouses; w++)
            if (w != home)
                every_other &= other_w[w] > 0;
        snprintf(name, sizeof name, "New-Order W=%d: ~1%% remote lines, never the home warehouse", warehouses);
        CHECK(t, remote_home == 0 && fabs((double)remote - er) < br && every_other, name,
              "%llu remote of %llu lines (%.0f +- %.0f), %d out of range, every other warehouse used %d",
              (unsigned long long)remote, (unsigned long long)lines, er, br, remote_home, every_other);
    }
    free(term);
}

int main(void)
{
    struct dg_test t = {0};
    check_nurand(&t);
    check_last_names(&t);
    check_strings(&t);
    check_deck(&t);
    check_c_last_run(&t);
    check_terminal_deck(&t);
    check_new_order(&t, 1);
    check_new_order(&t, 2);
    check_new_order(&t, 10);
    return dg_test_done(&t);
}
