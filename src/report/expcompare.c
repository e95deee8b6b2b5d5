/* expcompare.c — experiments side by side: their steps paired by swept value (not by
 * position), each step figure per side with its change from the first side, and the charts of
 * the comparison page. Figures come from the step table (experiment.c); reads records only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
#include "report/html.h"
#include "report/runcharts.h"

#define MAX_KEYS 256

/* The ordered union of every side's step keys (pointers into the items). Returns how many. */
static int union_keys(const struct dg_report_item *items, int n, const char **keys)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        const struct dg_exp_table *t = items[i].exp;
        const char *side[MAX_KEYS];
        int ns = 0;
        for (int s = 0; s < t->n && ns < MAX_KEYS; s++)
            side[ns++] = t->steps[s].key;
        k = dg_exp_union(keys, k, MAX_KEYS, side, ns);
    }
    return k;
}

/* The step of t swept at key, or NULL (the first such step when a value repeats). */
static const struct dg_exp_step *step_at(const struct dg_exp_table *t, const char *key)
{
    for (int s = 0; s < t->n; s++)
        if (!strcmp(t->steps[s].key, key))
            return &t->steps[s];
    return NULL;
}

/* The rows of the table: a figure of the step table and series k of it. */
static const struct {
    enum dg_exp_figure f;
    int k, decimals;
    const char *name; /* NULL: the series' own name */
} figures[] = {
    {DG_EXP_THROUGHPUT, 0, 0, NULL},          {DG_EXP_THROUGHPUT, 1, 0, NULL},
    {DG_EXP_ROWS, 0, 0, "rows/s"},            {DG_EXP_LATENCY, 0, 3, "avg ms"},
    {DG_EXP_LATENCY, 1, 3, "p95 ms"},         {DG_EXP_STORAGE, 0, 2, "disk read MB/s"},
    {DG_EXP_STORAGE, 1, 2, "disk write MB/s"},
};

int dg_compare_exp_rows(struct dg_compare *c, const struct dg_report_item *items, int n)
{
    const char *keys[MAX_KEYS];
    int k = union_keys(items, n, keys), stress = items[0].exp->steps[0].stress, storage = 0;
    for (int i = 0; i < n; i++)
        storage |= dg_exp_has_storage(items[i].exp, 0);
    for (int j = 0; j < k; j++)
        for (size_t f = 0; f < sizeof figures / sizeof *figures; f++) {
            const struct dg_exp_step *first = &items[0].exp->steps[0];
            if (figures[f].k >= dg_exp_nseries(first, figures[f].f) || (figures[f].f == DG_EXP_ROWS && !stress) ||
                (figures[f].f == DG_EXP_STORAGE && !storage))
                continue;
            const char *unit, *name = dg_exp_series_name(figures[f].f, stress, figures[f].k, &unit);
            if (figures[f].name)
                name = figures[f].name;
            else if (stress) /* the throughput of stress: "MB/s" says it all */
                name = unit;
            char row[96];
            snprintf(row, sizeof row, "%s, %s", name, keys[j]);
            struct dg_cmp_row *r = dg_compare_row(c, row, stress && figures[f].f == DG_EXP_THROUGHPUT ? 2 : figures[f].decimals);
            if (!r)
                return -1;
            for (int i = 0; i < n; i++) {
                const struct dg_exp_step *w = step_at(items[i].exp, keys[j]);
                r->v[i] = w && w->stress == stress ? dg_exp_value(w, figures[f].f, figures[f].k) : NAN;
            }
        }
    return 0;
}

/* One figure (series k of f) per swept value, one series per experiment. */
static int exp_chart(struct dg_chart *ch, const struct dg_report_item *items, int n, enum dg_exp_figure f, int k)
{
    const char *keys[MAX_KEYS], *unit;
    int nk = union_keys(items, n, keys), stress = items[0].exp->steps[0].stress, rc = -1;
    char id[40], title[200], names[DG_CMP_MAX_SIDES][64];
    const char *name = dg_exp_series_name(f, stress, k, &unit);
    double *v = malloc(sizeof *v * (size_t)(n * nk + 1));
    memset(ch, 0, sizeof *ch); /* freed by the caller even when never made */
    snprintf(id, sizeof id, "cmpexp-%d-%d", (int)f, k);
    snprintf(title, sizeof title, "%s%s per swept value, steps paired by value (each side's change from the first written on its bars)",
             stress && f == DG_EXP_THROUGHPUT ? unit : name,
             f == DG_EXP_LATENCY ? " latency" : f == DG_EXP_STORAGE ? " (monitor)" : "");
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "experiment %lld", (long long)items[i].id);
        for (int j = 0; v && j < nk; j++) {
            const struct dg_exp_step *w = step_at(items[i].exp, keys[j]);
            v[i * nk + j] = w && w->stress == stress ? dg_exp_value(w, f, k) : NAN;
        }
    }
    if (v)
        rc = dg_compare_sides_chart(ch, id, title, "swept value", unit, keys, nk, names, n, v);
    free(v);
    return rc;
}

int dg_compare_exp_charts(FILE *out, const struct dg_report_item *items, int n)
{
    struct dg_chart ch;
    int rc = 0, storage = 0;
    for (int i = 0; i < n; i++)
        storage |= dg_exp_has_storage(items[i].exp, 1);
    rc |= dg_html_emit(out, &ch, exp_chart(&ch, items, n, DG_EXP_THROUGHPUT, 0));
    rc |= dg_html_emit(out, &ch, exp_chart(&ch, items, n, DG_EXP_LATENCY, 1));
    if (storage)
        rc |= dg_html_emit(out, &ch, exp_chart(&ch, items, n, DG_EXP_STORAGE, 2));
    return rc;
}
