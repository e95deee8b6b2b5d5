/* faults_fixture.h — one run record with everything schema 10 stores: two faults (one still
 * running at the end, a command with HTML-hostile text), two outages (one in the warm-up with
 * no commit or recovery after it, on the second target), in-doubt errors per type and per
 * target, a --rate schedule, reconnects per second and n acknowledged writes over the full
 * range of their fields. Header-only; tests only. */
#ifndef DG_TEST_FAULTS_FIXTURE_H
#define DG_TEST_FAULTS_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/store.h"

#define DG_FIX_SECONDS 22 /* -2 .. 19 */

static void dg_fix_faults(struct dg_run_record *w)
{
    const struct dg_fault_event f[] = {
        {8.0, 8.001, 8.4, 0, "pg_ctl -D /tmp/pg stop -m immediate"},
        {15.0, 15.002, -1, 137, "sleep 100 && echo '<b>&\"x\"' # password=***"},
    };
    memcpy(w->faults, f, sizeof f);
    w->nfaults = 2;
}

static void dg_fix_outages(struct dg_run_record *w)
{
    const struct dg_outage o[] = {
        {1, -1.5, 0.5, -1, -1, -1, 3, 2, ""}, /* in order of start, as the runner gives them */
        {0, 8.1, 3.4, 3.6, 7.9, 5.0, 212, 57, "127.0.0.1:5432"},
    };
    memcpy(w->outages, o, sizeof o);
    w->noutages = 2;
}

static void dg_fix_types(struct dg_run_record *w)
{
    static const char *const names[] = {"new_order", "payment"};
    w->ntypes = 2;
    for (int k = 0; k < 2; k++) {
        struct dg_txn_summary *x = &w->txn[k];
        snprintf(x->name, sizeof x->name, "%s", names[k]);
        x->committed = 900 + 100 * (uint64_t)k;
        x->errors = 120 + (uint64_t)k * 95;
        x->in_doubt = 3 - (uint64_t)k * 2; /* 3 and 1 */
        x->retries = 7;
        x->retry_causes[DG_RETRY_SERIALIZATION] = 7;
        x->error_causes[DG_ERROR_CLOSED_BY_SERVER] = 100 + (uint64_t)k * 95; /* 100 and 195 */
        x->error_causes[k ? DG_ERROR_TIMEOUT : DG_ERROR_CONNECTION] = 20;
        x->error_causes_known = 1;
        x->avg_ms = 2.5, x->p50_ms = 2, x->p90_ms = 4, x->p95_ms = 5, x->p99_ms = 9, x->max_ms = 40;
    }
    w->nfigures = 1;
    w->figures[0] = (struct dg_figure){"nopm", "NOPM", "/min", 0, 2700};
}

static void dg_fix_targets(struct dg_run_record *w)
{
    w->ntargets = 2;
    for (int k = 0; k < 2; k++) {
        struct dg_target_summary *t = &w->targets[k];
        t->idx = k;
        snprintf(t->target, sizeof t->target, "postgresql://u:***@127.0.0.1:%d/db", 5432 + k);
        t->vus = 2;
        t->ntypes = 1;
        snprintf(t->txn[0].name, sizeof t->txn[0].name, "new_order");
        t->txn[0].committed = 450;
        t->txn[0].errors = 60;
        t->txn[0].in_doubt = (uint64_t)k + 1;
        t->txn[0].error_causes[DG_ERROR_TOO_MANY_CONNECTIONS] = 60;
        t->txn[0].error_causes_known = k == 0; /* the second does not know them: stored NULL */
        t->nfigures = 1;
        t->figures[0] = (struct dg_figure){"nopm", "NOPM", "/min", 0, 1350};
    }
}

static void dg_fix_series(struct dg_run_record *w)
{
    w->nseries = DG_FIX_SECONDS;
    for (size_t k = 0; k < w->nseries; k++) {
        struct dg_series_point *p = &w->series[k];
        p->second = (int64_t)k - 2;
        int down = p->second >= 8 && p->second < 12;
        p->reconnects = down ? 10 + (uint64_t)k : p->second == -2 ? 1 : 0;
        for (int t = 0; t < 2; t++) {
            p->t[t].c.committed = down ? 0 : 50 + (uint64_t)t;
            p->t[t].c.errors = down ? 30 + (uint64_t)t : 0;
            p->t[t].p50_ms = 2, p->t[t].p95_ms = 5, p->t[t].p99_ms = 9;
        }
    }
}

/* Ack i: every field varied, keys at the top of their range, times before the window too. */
static void dg_fix_ack(struct dg_ack *a, size_t i)
{
    memset(a, 0, sizeof *a);
    a->t_ms = (int64_t)i * 3 - 1500;
    a->amount = i % 5 ? (int64_t)i * 1000003 : -(int64_t)i;
    a->k[0] = UINT32_MAX - (uint32_t)i;
    a->k[1] = (uint32_t)(i % 10);
    a->k[2] = (uint32_t)i * 2654435761u;
    a->count = (uint16_t)(i * 7);
    a->kind = (uint8_t)(1 + i % 3);
    a->in_doubt = i % 7 == 0;
    a->target = (uint16_t)(i % 2);
}

/* Fills *w (everything malloc'd: dg_run_record_free frees it). 0, or -1 out of memory. */
static int dg_faults_fixture(struct dg_run_record *w, size_t nacks)
{
    memset(w, 0, sizeof *w);
    snprintf(w->workload, sizeof w->workload, "tpcc");
    snprintf(w->status, sizeof w->status, "complete");
    snprintf(w->target, sizeof w->target, "postgresql://u:***@127.0.0.1:5432/db");
    snprintf(w->engine, sizeof w->engine, "postgresql");
    snprintf(w->load_model, sizeof w->load_model, "rate");
    w->rate_asked = 100, w->measured_s = 20, w->warmup_s = 2, w->vus = 4, w->warehouses = 1;
    w->lag_p50_ms = 0.2, w->lag_p99_ms = 300, w->lag_max_ms = 900; /* the old rule would say FELL BEHIND */
    w->arrivals = 2000, w->late = 15, w->skipped = 4;              /* 0.95%: kept up */
    w->server_blocks_hit = w->server_blocks_read = -1;
    w->faults = calloc(2, sizeof *w->faults);
    w->outages = calloc(2, sizeof *w->outages);
    w->targets = calloc(2, sizeof *w->targets);
    w->series = calloc(DG_FIX_SECONDS, sizeof *w->series);
    w->acks = calloc(nacks ? nacks : 1, sizeof *w->acks);
    if (!w->faults || !w->outages || !w->targets || !w->series || !w->acks) {
        dg_run_record_free(w);
        return -1;
    }
    dg_fix_faults(w);
    dg_fix_outages(w);
    dg_fix_types(w);
    dg_fix_targets(w);
    dg_fix_series(w);
    w->nacks = nacks;
    for (size_t i = 0; i < nacks; i++)
        dg_fix_ack(&w->acks[i], i);
    return 0;
}

#endif
