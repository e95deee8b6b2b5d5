/* test_runmerge.c — one run from several processes: results packed, unpacked and merged
 * (src/core/runmerge.h) exactly — counts summed, histograms by bucket (the merged p99 is the
 * p99 of every rank's samples put together, not an average of the ranks' p99s), series by
 * second, one outage seen by several ranks made one — and each rank's share of the workers
 * and terminals (cmd/ranked.c: every terminal on exactly one rank, a warehouse's terminals on
 * one rank). A broken buffer is refused. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmd/cmd.h"
#include "core/rng.h"
#include "core/runmerge.h"

#define NTYPES 2

/* A rank's result: n samples per type drawn around `scale_ns`, three seconds of series, one
 * outage of target 0 starting at `outage_at`, one ack. The same samples go into `all`. */
static void fake_rank(struct dg_run_result *r, uint64_t seed, uint64_t n, double scale_ns, double outage_at,
                      struct dg_hist *all[NTYPES])
{
    memset(r, 0, sizeof *r);
    r->ntypes = NTYPES;
    struct dg_rng rng;
    dg_rng_seed(&rng, seed);
    for (int t = 0; t < NTYPES; t++) {
        r->hist[t] = dg_hist_new();
        for (uint64_t i = 0; i < n; i++) {
            uint64_t v = (uint64_t)(scale_ns * (1 + t) * (0.5 + (double)dg_rng_next(&rng) / (double)UINT64_MAX * 4));
            dg_hist_record(r->hist[t], v);
            dg_hist_record(all[t], v);
        }
        r->counts[t].committed = n;
        r->counts[t].errors = seed % 3;
        r->counts[t].retry_causes[1] = seed;
        r->counts[t].error_causes[DG_ERROR_CLOSED_BY_SERVER] = seed % 3;
        r->counts[t].error_causes[DG_ERROR_READ_ONLY] = 10 * seed; /* the last two causes: the array's end */
        r->counts[t].error_causes[DG_ERROR_GAVE_UP] = 100 * seed;
        r->counts[t].retries = seed;
    }
    dg_series_init(&r->series, NTYPES, -1);
    dg_series_extend(&r->series, 1); /* seconds -1, 0, 1 */
    for (size_t i = 0; i < r->series.n; i++) {
        r->series.pts[i].t[0].c.committed = 10 * seed + i;
        r->series.pts[i].t[0].p99_ms = (double)seed;
        r->series.pts[i].target_committed[0] = (uint32_t)seed;
    }
    r->outages = calloc(1, sizeof *r->outages);
    r->outages[0] = (struct dg_outage){.target = 0, .start_s = outage_at, .duration_s = 2, .first_commit_s = 3,
                                       .last_commit_s = 0.5, .recovery_s = 4, .errors = 5, .reconnects = 7};
    r->noutages = 1;
    r->acks = calloc(1, sizeof *r->acks);
    r->acks[0] = (struct dg_ack){.t_ms = (int64_t)seed, .amount = 1, .kind = DG_ACK_TPCC_PAYMENT};
    r->nacks = 1;
    r->measured_s = 10 + (double)seed / 10;
    r->client_cpu_s = 1;
}

static void check_roundtrip(struct dg_test *t, const struct dg_run_result *a)
{
    unsigned char *buf;
    size_t len;
    struct dg_run_result b;
    CHECK(t, dg_result_pack(a, &buf, &len) == 0, "pack", "failed");
    CHECK(t, dg_result_unpack(buf, len, &b) == 0, "unpack", "failed");
    int same = b.ntypes == a->ntypes && !memcmp(b.counts, a->counts, sizeof a->counts) &&
               b.series.n == a->series.n && b.noutages == 1 && b.nacks == 1 &&
               b.outages[0].errors == a->outages[0].errors && b.acks[0].t_ms == a->acks[0].t_ms &&
               b.measured_s == a->measured_s && b.series.pts[2].t[0].c.committed == a->series.pts[2].t[0].c.committed;
    for (int ty = 0; ty < NTYPES; ty++)
        same &= b.hist[ty] && b.hist[ty]->total == a->hist[ty]->total &&
                !memcmp(b.hist[ty]->counts, a->hist[ty]->counts, sizeof b.hist[ty]->counts);
    CHECK(t, same, "unpack gives back what was packed", "differs");
    dg_run_result_free(&b);
    /* A truncated buffer, one with trailing bytes and one from another layout are refused. */
    CHECK(t, dg_result_unpack(buf, len - 1, &b) != 0, "truncated buffer refused", "accepted");
    unsigned char *longer = malloc(len + 1);
    memcpy(longer, buf, len);
    longer[len] = 0;
    CHECK(t, dg_result_unpack(longer, len + 1, &b) != 0, "trailing bytes refused", "accepted");
    buf[4] ^= 0xff; /* the first struct size in the header */
    CHECK(t, dg_result_unpack(buf, len, &b) != 0, "another layout refused", "accepted");
    free(longer);
    free(buf);
}

static void check_merge(struct dg_test *t)
{
    struct dg_hist *all[NTYPES] = {dg_hist_new(), dg_hist_new()};
    struct dg_run_result r[3];
    /* Three ranks with very different latencies: the average of their p99s is far from the
     * p99 of everything. */
    fake_rank(&r[0], 1, 5000, 1e6, 10.0, all);
    fake_rank(&r[1], 2, 200, 40e6, 10.5, all);
    fake_rank(&r[2], 3, 1000, 3e6, 30.0, all);
    check_roundtrip(t, &r[1]);
    double avg_p99 = 0;
    for (int k = 0; k < 3; k++)
        avg_p99 += (double)dg_hist_percentile(r[k].hist[0], 99) / 3;
    for (int k = 1; k < 3; k++) { /* through the wire, as rank 0 gets them */
        unsigned char *buf;
        size_t len;
        struct dg_run_result got;
        dg_result_pack(&r[k], &buf, &len);
        dg_result_unpack(buf, len, &got);
        free(buf);
        CHECK(t, dg_result_merge(&r[0], &got) == 0, "merge", "failed");
        dg_run_result_free(&got);
    }
    CHECK(t, r[0].counts[0].committed == 6200 && r[0].counts[1].committed == 6200,
          "merged count is the sum of the ranks' counts per type", "%llu", (unsigned long long)r[0].counts[0].committed);
    CHECK(t, r[0].counts[0].retries == 6 && r[0].counts[0].retry_causes[1] == 6 && r[0].counts[0].errors == 3,
          "retries, their causes and errors summed", "%llu", (unsigned long long)r[0].counts[0].retries);
    CHECK(t, r[0].counts[0].error_causes[DG_ERROR_CLOSED_BY_SERVER] == 3 && r[0].counts[1].error_causes[DG_ERROR_OTHER] == 0,
          "errors by cause summed, through pack and unpack", "closed_by_server %llu",
          (unsigned long long)r[0].counts[0].error_causes[DG_ERROR_CLOSED_BY_SERVER]);
    CHECK(t, r[0].counts[1].error_causes[DG_ERROR_READ_ONLY] == 60 &&
                 r[0].counts[1].error_causes[DG_ERROR_GAVE_UP] == 600,
          "read_only and gave_up summed, through pack and unpack", "read_only %llu gave_up %llu",
          (unsigned long long)r[0].counts[1].error_causes[DG_ERROR_READ_ONLY],
          (unsigned long long)r[0].counts[1].error_causes[DG_ERROR_GAVE_UP]);
    for (int ty = 0; ty < NTYPES; ty++) {
        uint64_t merged = dg_hist_percentile(r[0].hist[ty], 99), pooled = dg_hist_percentile(all[ty], 99);
        CHECK(t, merged == pooled && r[0].hist[ty]->total == all[ty]->total,
              "merged p99 is the p99 of all samples together", "type %d: %llu vs %llu", ty,
              (unsigned long long)merged, (unsigned long long)pooled);
        CHECK(t, dg_hist_percentile(r[0].hist[ty], 50) == dg_hist_percentile(all[ty], 50) &&
                 r[0].hist[ty]->max_ns == all[ty]->max_ns && r[0].hist[ty]->sum_ns == all[ty]->sum_ns,
              "merged p50, max and mean are the pooled ones", "type %d", ty);
    }
    double merged_p99 = (double)dg_hist_percentile(r[0].hist[0], 99);
    CHECK(t, merged_p99 > 1.5 * avg_p99 || merged_p99 < avg_p99 / 1.5, "the test tells merging from averaging",
          "merged %.0f, average %.0f", merged_p99, avg_p99);
    CHECK(t, r[0].series.n == 3 && r[0].series.pts[1].t[0].c.committed == 10 + 20 + 30 + 3 &&
             r[0].series.pts[1].target_committed[0] == 6 && r[0].series.pts[1].t[0].p99_ms == 3,
          "series merged by second (counts summed, the worst rank's percentile)", "n %zu, committed %llu",
          r[0].series.n, (unsigned long long)r[0].series.pts[1].t[0].c.committed);
    /* Ranks 0 and 1 saw one outage (overlapping), rank 2 another. */
    CHECK(t, r[0].noutages == 2 && r[0].outages[0].start_s == 10.0 && r[0].outages[0].errors == 10 &&
             r[0].outages[0].reconnects == 14 && r[0].outages[0].first_commit_s == 3.0 &&
             r[0].outages[1].start_s == 30.0,
          "one outage seen by two ranks is one, another stays apart", "%d outages, first at %g with %llu errors",
          r[0].noutages, r[0].outages[0].start_s, (unsigned long long)r[0].outages[0].errors);
    CHECK(t, r[0].nacks == 3 && r[0].measured_s == 10.3 && r[0].client_cpu_s == 3,
          "acks put together, the longest window, CPU summed", "acks %zu, measured %g", r[0].nacks, r[0].measured_s);
    for (int k = 0; k < 3; k++)
        dg_run_result_free(&r[k]);
    dg_hist_free(all[0]);
    dg_hist_free(all[1]);
}

/* Every terminal on exactly one rank, each warehouse's terminals on one rank, workers cut in
 * contiguous slices that add up. */
static void check_share(struct dg_test *t, int size, int vus, int warehouses, int per_w)
{
    int terms = warehouses * per_w, workers = 0, next_base = 0, ok = 1;
    int *seen = calloc((size_t)terms, sizeof *seen), *owner = calloc((size_t)warehouses, sizeof *owner);
    for (int w = 0; w < warehouses; w++)
        owner[w] = -1;
    for (int k = 0; k < size; k++) {
        struct dg_rank_share s;
        ok &= dg_rank_share(k, size, vus, terms, warehouses, &s) == 0;
        ok &= s.base == next_base && s.n >= vus / size;
        next_base += s.n;
        workers += s.n;
        for (int i = 0; i < s.nterms; i++) {
            int id = s.term_ids[i], w = id % warehouses;
            seen[id]++;
            ok &= owner[w] < 0 || owner[w] == k;
            owner[w] = k;
        }
        dg_rank_share_free(&s);
    }
    for (int i = 0; i < terms; i++)
        ok &= seen[i] == 1;
    char name[128];
    snprintf(name, sizeof name, "%d ranks, %d users, %d warehouses x %d: each terminal once, warehouses whole", size,
             vus, warehouses, per_w);
    CHECK(t, ok && workers == vus, name, "workers %d", workers);
    free(seen);
    free(owner);
}

int main(void)
{
    struct dg_test t = {0};
    check_merge(&t);
    check_share(&t, 3, 6, 2, 10);
    check_share(&t, 4, 60, 6000, 10);
    check_share(&t, 4, 7, 5, 10);
    check_share(&t, 1, 3, 1, 10);
    /* The check itself can fail: a share that skips a terminal is caught. */
    struct dg_rank_share s;
    dg_rank_share(0, 2, 4, 20, 2, &s);
    CHECK(&t, s.nterms == 10 && s.term_ids[0] == 0 && s.term_ids[1] == 2, "rank 0 of 2 holds warehouse 1's terminals 0, 2, ...",
          "%d terminals, first %d, %d", s.nterms, s.term_ids[0], s.term_ids[1]);
    dg_rank_share_free(&s);
    return dg_test_done(&t);
}
