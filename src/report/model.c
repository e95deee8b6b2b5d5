/* model.c — loads report items (runs, groups of runs, experiments) from the results database,
 * and the curve and change helpers every rendering shares. Reads the store only; renders
 * nothing and includes no renderer. */
#include "report/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/opts.h"

const double dg_curve_percentiles[DG_CURVE_POINTS] = {10,   25,   50,    75,    90,     95,      98,
                                                      99,   99.5, 99.9,  99.95, 99.99, 99.999, 100};

int dg_report_item_parse(const char *arg, enum dg_item_kind *kind, int64_t *id, struct dg_err *err)
{
    const char *num = arg;
    *kind = DG_ITEM_RUN;
    if (!strncmp(arg, "group:", 6))
        num = arg + 6, *kind = DG_ITEM_GROUP;
    else if (arg[0] == 'g' && arg[1] >= '0' && arg[1] <= '9')
        num = arg + 1, *kind = DG_ITEM_GROUP;
    else if (!strncmp(arg, "exp:", 4))
        num = arg + 4, *kind = DG_ITEM_EXPERIMENT;
    else if (!strncmp(arg, "experiment:", 11))
        num = arg + 11, *kind = DG_ITEM_EXPERIMENT;
    uint64_t v;
    if (dg_parse_u64(dg_report_item_kind_name(*kind), num, 1, INT64_MAX, &v, err))
        return dg_err_set(err, DG_ERR_USER, 0,
                          "'%s' is neither a run id (12), a group (group:12) nor an experiment (exp:12)", DG_TEXT(arg));
    *id = (int64_t)v;
    return 0;
}

const char *dg_report_item_kind_name(enum dg_item_kind kind)
{
    return kind == DG_ITEM_GROUP ? "group" : kind == DG_ITEM_EXPERIMENT ? "experiment" : "run";
}

struct group_ctx {
    int64_t group_id;
    int64_t *ids;
    int n, cap;
};

static int on_run(void *ctx, const struct dg_run_record *r)
{
    struct group_ctx *g = ctx;
    if (r->group_id != g->group_id)
        return 0;
    if (g->n == g->cap) {
        int cap = g->cap ? 2 * g->cap : 16;
        int64_t *grown = realloc(g->ids, (size_t)cap * sizeof *grown);
        if (!grown)
            return 1;
        g->ids = grown, g->cap = cap;
    }
    g->ids[g->n++] = r->id;
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int dg_report_item_load(struct dg_store *s, enum dg_item_kind kind, int64_t id,
                        struct dg_report_item *out, struct dg_err *err)
{
    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->id = id;
    struct group_ctx g = {.group_id = id};
    int rc = -1;
    if (kind == DG_ITEM_EXPERIMENT) {
        if (!(out->exp = calloc(1, sizeof *out->exp)))
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        if ((rc = dg_exp_table_load(s, id, 1, out->exp, err)))
            dg_report_item_free(out);
        return rc;
    }
    if (kind == DG_ITEM_RUN) {
        g.ids = malloc(sizeof *g.ids);
        if (!g.ids)
            return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        g.ids[0] = id, g.n = 1;
    } else {
        if (dg_store_list(s, on_run, &g, err))
            goto out;
        if (g.n == 0) {
            dg_err_set(err, DG_ERR_USER, 0, "no group %lld (no run has group_id %lld)", (long long)id,
                       (long long)id);
            rc = 1;
            goto out;
        }
        qsort(g.ids, (size_t)g.n, sizeof *g.ids, cmp_id);
    }
    out->runs = calloc((size_t)g.n, sizeof *out->runs);
    if (!out->runs) {
        dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
        goto out;
    }
    for (int i = 0; i < g.n; i++) {
        int got = dg_store_get(s, g.ids[i], 1, &out->runs[i], err);
        if (got == 1) {
            dg_err_set(err, DG_ERR_USER, 0, "no run %lld", (long long)g.ids[i]);
            rc = 1;
        }
        if (got)
            goto out;
        out->nruns++;
    }
    rc = 0;
out:
    free(g.ids);
    if (rc)
        dg_report_item_free(out);
    return rc;
}

void dg_report_item_free(struct dg_report_item *it)
{
    for (int i = 0; i < it->nruns; i++)
        dg_run_record_free(&it->runs[i]);
    free(it->runs);
    it->runs = NULL;
    it->nruns = 0;
    if (it->exp)
        dg_exp_table_free(it->exp);
    free(it->exp);
    it->exp = NULL;
}

double dg_curve_x(double p) { return p >= 100 ? 6 : -log10(1 - p / 100); }

double dg_curve_ms(const struct dg_hist *h, double p)
{
    if (!h || h->total == 0)
        return NAN;
    return (double)dg_hist_percentile(h, p) / 1e6;
}

const char *dg_pct_change(char *buf, size_t n, double from, double to)
{
    if (from == 0 || !isfinite(from) || !isfinite(to))
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "%+.1f%%", 100.0 * (to / from - 1));
    return buf;
}

const char *dg_pct_from_mean(char *buf, size_t n, double pct)
{
    if (!isfinite(pct))
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "%+.1f%%", pct);
    return buf;
}
