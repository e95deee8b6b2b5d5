/* figures.c — derives a workload's headline figures from counts and seconds, as its
 * struct dg_figure_def table says. Pure arithmetic: no store, no printing. */
#include <stdio.h>
#include <string.h>

#include "core/figures.h"

static uint64_t counted(enum dg_fig_count what, const struct dg_type_counts *c)
{
    switch (what) {
    case DG_FIG_COMMITTED: return c->committed;
    case DG_FIG_COMPLETED: return c->committed + c->rollbacks;
    case DG_FIG_ROWS: return c->rows;
    case DG_FIG_BYTES: return c->bytes;
    case DG_FIG_RUN_TIME: break;
    }
    return 0;
}

int dg_figure_value(const struct dg_figure_def *f, const struct dg_type_counts *counts, int ntypes,
                    const struct dg_fig_run *run, double *out)
{
    if ((f->flags & DG_FIG_STANDARD_TIMES) && !run->standard_times)
        return 1;
    if (!(run->measured_s > 0) && !(f->flags & DG_FIG_TOTAL))
        return 1;
    if (f->count == DG_FIG_RUN_TIME) {
        *out = run->measured_s;
        return 0;
    }
    double sum = 0;
    for (int t = 0; t < ntypes; t++) {
        if (f->type != DG_FIG_ALL_TYPES && f->type != t)
            continue;
        sum += (double)counted(f->count, &counts[t]) * (f->weight ? f->weight[t] : 1.0);
    }
    *out = (f->flags & DG_FIG_TOTAL ? sum : sum / run->measured_s) * f->scale;
    return 0;
}

int dg_figures_derive(const struct dg_figure_def *defs, int n, const struct dg_type_counts *counts,
                      int ntypes, const struct dg_fig_run *run, struct dg_figure *out)
{
    int k = 0;
    for (int i = 0; i < n && k < DG_MAX_FIGURES; i++) {
        double v;
        if (dg_figure_value(&defs[i], counts, ntypes, run, &v))
            continue;
        struct dg_figure *g = &out[k++];
        memset(g, 0, sizeof *g);
        snprintf(g->name, sizeof g->name, "%s", defs[i].name);
        snprintf(g->label, sizeof g->label, "%s", defs[i].label);
        snprintf(g->unit, sizeof g->unit, "%s", defs[i].unit);
        g->decimals = defs[i].decimals;
        g->value = v;
    }
    return k;
}

const struct dg_figure *dg_figure_find(const struct dg_figure *figs, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(figs[i].name, name))
            return &figs[i];
    return NULL;
}
