/* ranked.c — the run life's part when several processes (MPI ranks, dist/ranks.h) drive one
 * run: each rank's share of the virtual users and terminals, and on rank 0 the row per rank
 * and the merge of every rank's result into its own. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/runmerge.h"

void dg_rank_share_free(struct dg_rank_share *s)
{
    free(s->term_ids);
    s->term_ids = NULL;
}

int dg_rank_share(int k, int size, int vus, int terminals, int scale, struct dg_rank_share *out)
{
    memset(out, 0, sizeof *out);
    out->base = (int)((int64_t)vus * k / size);
    out->n = (int)((int64_t)vus * (k + 1) / size) - out->base;
    if (!terminals)
        return 0;
    /* Terminal i is of unit i mod scale (TPC-C: its home warehouse); this rank takes whole
     * units, so each warehouse's terminals all run here or all elsewhere. */
    int by_unit = scale > 0 && terminals % scale == 0;
    int units = by_unit ? scale : terminals, per = by_unit ? terminals / scale : 1;
    int lo = (int)((int64_t)units * k / size), hi = (int)((int64_t)units * (k + 1) / size);
    out->nterms = (hi - lo) * per;
    if (!out->nterms)
        return 0;
    if (!(out->term_ids = malloc((size_t)out->nterms * sizeof *out->term_ids)))
        return -1;
    int n = 0;
    for (int j = 0; j < per; j++) /* ascending: unit u's j-th terminal is u + j * units */
        for (int u = lo; u < hi; u++)
            out->term_ids[n++] = by_unit ? u + j * units : u;
    return 0;
}

/* A rank's latency over all its types together, from its merged histograms. */
static void all_types_latency(const struct dg_run_result *res, struct dg_rank_summary *row)
{
    struct dg_hist *h = dg_hist_new();
    if (!h)
        return;
    for (int t = 0; t < res->ntypes; t++)
        if (res->hist[t])
            dg_hist_merge(h, res->hist[t]);
    row->p50_ms = (double)dg_hist_percentile(h, 50) / 1e6;
    row->p95_ms = (double)dg_hist_percentile(h, 95) / 1e6;
    row->p99_ms = (double)dg_hist_percentile(h, 99) / 1e6;
    dg_hist_free(h);
}

static void fill_row(const struct dg_rank_run *rr, int k, const struct dg_run_result *res,
                     const struct dg_rank_figs *f, struct dg_rank_summary *row)
{
    const struct dg_rank_peer *p = &rr->peers[k];
    row->rank = k;
    snprintf(row->host, sizeof row->host, "%s", p->host);
    struct dg_rank_share share;
    if (!dg_rank_share(k, rr->size, f->vus, f->terminals, f->scale, &share)) {
        row->vus = share.n;
        row->terminals = share.nterms;
        dg_rank_share_free(&share);
    }
    row->clock_offset_ms = (double)(int64_t)p->offset_ns / 1e6;
    row->start_offset_ms = p->start_ns && rr->peers[0].start_ns
                           ? (double)(int64_t)(p->start_ns - rr->peers[0].start_ns) / 1e6 : 0;
    if (k > 0 && p->state == DG_RANK_DEAD) {
        snprintf(row->state, sizeof row->state, "dead");
        return;
    }
    snprintf(row->state, sizeof row->state, "%s", res->interrupted ? "interrupted" : "ok");
    for (int t = 0; t < res->ntypes; t++) {
        row->committed += res->counts[t].committed;
        row->errors += res->counts[t].errors;
    }
    row->workers_failed = res->workers_failed;
    row->measured_s = res->measured_s;
    row->client_cpu_s = res->client_cpu_s;
    all_types_latency(res, row);
    struct dg_fig_run fr = {.measured_s = res->measured_s, .standard_times = f->standard_times};
    row->nfigures = dg_figures_derive(f->figs, f->nfigs, res->counts, res->ntypes, &fr, row->figures);
}

int dg_rank_results(struct dg_rank_run *rr, struct dg_run_result *mine, const struct dg_rank_figs *f,
                    struct dg_rank_summary **rows, int *nrows)
{
    *rows = calloc((size_t)rr->size, sizeof **rows);
    if (!*rows)
        return -1;
    *nrows = rr->size;
    fill_row(rr, 0, mine, f, &(*rows)[0]);
    for (int k = 1; k < rr->size; k++) {
        fill_row(rr, k, &rr->peers[k].res, f, &(*rows)[k]);
        (*rows)[k].monitor = rr->peers[k].mon; /* its host's points move to the record */
        (*rows)[k].nmonitor = rr->peers[k].nmon;
        rr->peers[k].mon = NULL;
        rr->peers[k].nmon = 0;
        if (rr->peers[k].state == DG_RANK_REPORTED && dg_result_merge(mine, &rr->peers[k].res))
            return -1;
    }
    return 0;
}
