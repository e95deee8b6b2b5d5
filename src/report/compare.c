/* compare.c — side-by-side figures of stored runs, groups or experiments (expcompare.c), their
 * percent differences, and the comparison's text table and HTML page. Percentages come from
 * the stored figures only. */
#include "report/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/runcharts.h"
#include "report/summary.h"

struct dg_cmp_row *dg_compare_row(struct dg_compare *c, const char *name, int decimals)
{
    for (int i = 0; i < c->nrows; i++)
        if (!strcmp(c->rows[i].name, name))
            return &c->rows[i];
    if (c->nrows == c->cap) {
        int cap = c->cap ? 2 * c->cap : 32;
        struct dg_cmp_row *grown = realloc(c->rows, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        c->rows = grown, c->cap = cap;
    }
    struct dg_cmp_row *r = &c->rows[c->nrows++];
    snprintf(r->name, sizeof r->name, "%s", name);
    r->decimals = decimals;
    for (int i = 0; i < DG_CMP_MAX_SIDES; i++)
        r->v[i] = NAN;
    return r;
}

static int put(struct dg_compare *c, int side, const char *name, int decimals, double v)
{
    struct dg_cmp_row *r = dg_compare_row(c, name, decimals);
    if (!r)
        return -1;
    r->v[side] = v;
    return 0;
}

static int run_rows(struct dg_compare *c, int side, const struct dg_run_record *r)
{
    char name[96];
    int rc = 0;
    if (dg_run_is_stress(r)) {
        rc |= put(c, side, "MB/s", 2, dg_run_mb_per_s(r));
        rc |= put(c, side, "rows/s", 0, dg_run_per_s(r, (double)r->rows));
        rc |= put(c, side, "iterations/s", 2, dg_run_per_s(r, (double)dg_run_completed(r)));
        rc |= put(c, side, "run time s", 3, r->measured_s);
    } else {
        rc |= put(c, side, "NOPM", 0, r->nopm);
        rc |= put(c, side, "TPM", 0, r->tpm);
        rc |= put(c, side, "measured s", 1, r->measured_s);
    }
    /* what the database pushed back: a configuration that deadlocks or times out more shows here */
    uint64_t retries = 0, errors = 0;
    for (int t = 0; t < r->ntypes; t++) {
        retries += r->txn[t].retries;
        errors += r->txn[t].errors;
    }
    rc |= put(c, side, "retries", 0, (double)retries);
    rc |= put(c, side, "errors", 0, (double)errors);
    for (int t = 0; t < r->ntypes; t++) {
        const struct dg_txn_summary *x = &r->txn[t];
        static const char *const what[] = {"count", "p50 ms", "p95 ms", "p99 ms", "max ms"};
        const double v[] = {(double)dg_txn_count(x), x->p50_ms, x->p95_ms, x->p99_ms, x->max_ms};
        for (int k = 0; k < 5; k++) {
            snprintf(name, sizeof name, "%s%s%s", r->ntypes > 1 ? x->name : "", r->ntypes > 1 ? " " : "", what[k]);
            rc |= put(c, side, name, k ? 3 : 0, v[k]);
        }
    }
    return rc;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* The sorted thread counts of all groups. Returns how many (at most cap). */
static int thread_counts(const struct dg_report_item *items, int n, int *out, int cap)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int s = 0; s < items[i].nruns; s++) {
            int t = items[i].runs[s].vus, seen = 0;
            for (int j = 0; j < k; j++)
                seen |= out[j] == t;
            if (!seen && k < cap)
                out[k++] = t;
        }
    qsort(out, (size_t)k, sizeof *out, cmp_int);
    return k;
}

static const struct dg_run_record *step_of(const struct dg_report_item *g, int threads)
{
    for (int s = 0; s < g->nruns; s++)
        if (g->runs[s].vus == threads)
            return &g->runs[s];
    return NULL;
}

int dg_compare_build(struct dg_compare *c, const struct dg_report_item *items, int n, struct dg_err *err)
{
    memset(c, 0, sizeof *c);
    if (n < 2 || n > DG_CMP_MAX_SIDES)
        return dg_err_set(err, DG_ERR_USER, 0, "compare takes 2 to %d runs or groups (got %d)",
                          DG_CMP_MAX_SIDES, n);
    for (int i = 0; i < n; i++)
        if (items[i].exp && !items[i].exp->n)
            return dg_err_set(err, DG_ERR_USER, 0, "experiment %lld has no steps to compare", (long long)items[i].id);
    for (int i = 1; i < n; i++) {
        if (items[i].kind != items[0].kind)
            return dg_err_set(err, DG_ERR_USER, 0, "compare runs with runs, groups with groups and "
                                                   "experiments with experiments");
        const struct dg_run_record *a = items[0].exp ? &items[0].exp->steps[0].rec : &items[0].runs[0];
        const struct dg_run_record *b = items[i].exp ? &items[i].exp->steps[0].rec : &items[i].runs[0];
        if (strcmp(a->workload, b->workload))
            return dg_err_set(err, DG_ERR_USER, 0, "cannot compare a %s %s (%s%lld) with a %s %s (%s%lld)",
                              a->workload, items[0].exp ? "experiment" : "run", items[0].exp ? "exp:" : "",
                              (long long)(items[0].exp ? items[0].id : a->id), b->workload,
                              items[i].exp ? "experiment" : "run", items[i].exp ? "exp:" : "",
                              (long long)(items[i].exp ? items[i].id : b->id));
    }
    c->nsides = n;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const struct dg_run_record *f = items[i].exp ? &items[i].exp->steps[0].rec : &items[i].runs[0];
        const char *label = items[i].exp ? items[i].exp->ex.label : f->label;
        snprintf(c->side[i], sizeof c->side[i], "%s %lld%s%.40s", items[i].exp ? "exp" : dg_report_item_kind_name(items[i].kind),
                 (long long)items[i].id, label[0] ? " " : "", label);
        if (items[i].kind == DG_ITEM_RUN)
            rc |= run_rows(c, i, f);
    }
    if (items[0].kind == DG_ITEM_EXPERIMENT)
        rc |= dg_compare_exp_rows(c, items, n);
    if (items[0].kind == DG_ITEM_GROUP) {
        int th[256];
        int k = thread_counts(items, n, th, 256);
        char name[96];
        for (int j = 0; j < k; j++)
            for (int i = 0; i < n; i++) {
                const struct dg_run_record *r = step_of(&items[i], th[j]);
                snprintf(name, sizeof name, "MB/s, %d thread%s", th[j], th[j] == 1 ? "" : "s");
                rc |= put(c, i, name, 2, r ? dg_run_mb_per_s(r) : NAN);
                snprintf(name, sizeof name, "run time s, %d thread%s", th[j], th[j] == 1 ? "" : "s");
                rc |= put(c, i, name, 3, r ? r->measured_s : NAN);
                snprintf(name, sizeof name, "p95 ms, %d thread%s", th[j], th[j] == 1 ? "" : "s");
                rc |= put(c, i, name, 3, r && r->ntypes ? r->txn[0].p95_ms : NAN);
            }
    }
    if (rc) {
        dg_compare_free(c);
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    }
    return 0;
}

void dg_compare_free(struct dg_compare *c)
{
    free(c->rows);
    memset(c, 0, sizeof *c);
}

double dg_compare_pct(const struct dg_cmp_row *r, int i)
{
    double a = r->v[0], b = r->v[i];
    if (!isfinite(a) || !isfinite(b) || a == 0)
        return NAN;
    return 100.0 * (b / a - 1);
}

void dg_compare_text(FILE *out, const struct dg_compare *c)
{
    char b[64];
    int w = 28; /* the figure column: as wide as the longest name, within reason */
    for (int k = 0; k < c->nrows; k++)
        if ((int)strlen(c->rows[k].name) > w)
            w = (int)strlen(c->rows[k].name);
    w = w > 64 ? 64 : w;
    fprintf(out, "%-*s", w, "figure");
    for (int i = 0; i < c->nsides; i++) {
        fprintf(out, "  %20.20s", c->side[i]);
        if (i)
            fprintf(out, "  %9s", "change");
    }
    fprintf(out, "\n");
    for (int k = 0; k < c->nrows; k++) {
        const struct dg_cmp_row *r = &c->rows[k];
        fprintf(out, "%-*.*s", w, w, r->name);
        for (int i = 0; i < c->nsides; i++) {
            fprintf(out, "  %20s", isfinite(r->v[i]) ? dg_fmt_num(b, sizeof b, r->v[i], r->decimals) : "-");
            if (i) {
                double p = dg_compare_pct(r, i);
                if (isfinite(p))
                    snprintf(b, sizeof b, "%+.1f%%", p);
                else
                    snprintf(b, sizeof b, "n/a");
                fprintf(out, "  %9s", b);
            }
        }
        fprintf(out, "\n");
    }
    fprintf(out, "(change: each side against %s, from the stored figures)\n", c->side[0]);
}

static void html_table(FILE *out, const struct dg_compare *c)
{
    fprintf(out, "<table class=\"data compare\"><thead><tr><th>figure</th>");
    for (int i = 0; i < c->nsides; i++) {
        fprintf(out, "<th>");
        dg_html_text(out, c->side[i]);
        fprintf(out, "</th>%s", i ? "<th>change</th>" : "");
    }
    fprintf(out, "</tr></thead><tbody>\n");
    for (int k = 0; k < c->nrows; k++) {
        const struct dg_cmp_row *r = &c->rows[k];
        fprintf(out, "<tr data-figure=\"");
        dg_html_text(out, r->name);
        fprintf(out, "\"><td>");
        dg_html_text(out, r->name);
        fprintf(out, "</td>");
        for (int i = 0; i < c->nsides; i++) {
            if (isfinite(r->v[i]))
                dg_html_num_td(out, r->v[i], r->decimals);
            else
                fputs("<td class=\"n\">-</td>", out); /* this side lacks the figure (an unpaired step) */
            if (!i)
                continue;
            dg_html_pct_td(out, dg_compare_pct(r, i));
        }
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</tbody></table>\n");
}

int dg_compare_sides_chart(struct dg_chart *ch, const char *id, const char *title, const char *x_label,
                           const char *unit, const char *const *x_text, int k, const char (*names)[64],
                           int n, const double *v)
{
    char text[32];
    if (dg_chart_init(ch, id, title, x_label, unit, (size_t)k))
        return -1;
    ch->bars = 1;
    for (int j = 0; j < k; j++) {
        ch->x[j] = j + 1;
        if (dg_chart_x_text(ch, (size_t)j, x_text[j]))
            return -1;
    }
    for (int i = 0; i < n; i++) {
        double *s = dg_chart_add(ch, names[i], unit, 0);
        if (!s)
            return -1;
        memcpy(s, v + (size_t)i * (size_t)k, (size_t)k * sizeof *s);
    }
    for (int i = 1; i < n; i++) /* each later side's change from the first, on its own bar */
        for (int j = 0; j < k; j++)
            if (isfinite(v[j]) && isfinite(v[i * k + j]) &&
                dg_chart_label(ch, i, (size_t)j, dg_pct_change(text, sizeof text, v[j], v[i * k + j])))
                return -1;
    return 0;
}

/* One series per side: a figure per thread count, each later side's change from side 0 written on it. */
static int groups_chart(struct dg_chart *ch, const struct dg_report_item *items, int n, enum dg_step_figure f)
{
    int th[256], k = thread_counts(items, n, th, 256), rc = -1;
    char id[40], title[200], texts[256][16], names[DG_CMP_MAX_SIDES][64];
    const char *x_text[256];
    const char *unit, *name = dg_step_name(f, &unit);
    double *v = malloc(sizeof *v * (size_t)(n * k + 1));
    memset(ch, 0, sizeof *ch); /* freed by the caller even when never made */
    snprintf(id, sizeof id, "cmp-%d", (int)f);
    snprintf(title, sizeof title, "%s per thread count (each side's change from the first written on its bars)", name);
    for (int j = 0; j < k; j++) {
        snprintf(texts[j], sizeof texts[j], "%d", th[j]);
        x_text[j] = texts[j];
    }
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "group %lld", (long long)items[i].id);
        for (int j = 0; v && j < k; j++) {
            const struct dg_run_record *r = step_of(&items[i], th[j]);
            v[i * k + j] = r ? dg_step_value(r, f) : NAN;
        }
    }
    if (v)
        rc = dg_compare_sides_chart(ch, id, title, "threads", unit, x_text, k, names, n, v);
    free(v);
    return rc;
}

/* The first type's latency curve of every run in one chart. */
static int runs_curve(struct dg_chart *ch, const struct dg_report_item *items, int n)
{
    char name[96];
    if (dg_chart_curve_init(ch, "cmp-pct", "latency by percentile, first type (log scale)"))
        return -1;
    for (int s = 0; s < n; s++) {
        const struct dg_run_record *r = &items[s].runs[0];
        snprintf(name, sizeof name, "run %lld %s", (long long)r->id, r->ntypes ? r->txn[0].name : "");
        double *v = dg_chart_add(ch, name, "ms", 0);
        if (!v)
            return -1;
        for (int i = 0; i < DG_CURVE_POINTS; i++)
            v[i] = r->ntypes ? dg_curve_ms(r->txn[0].hist, dg_curve_percentiles[i]) : NAN;
    }
    return 0;
}

int dg_compare_html(FILE *out, const struct dg_compare *c, const struct dg_report_item *items, int n)
{
    char sub[512];
    size_t o = 0;
    for (int i = 0; i < c->nsides && o + 80 < sizeof sub; i++)
        o += (size_t)snprintf(sub + o, sizeof sub - o, "%s%s", i ? " vs " : "", c->side[i]);
    dg_html_begin(out, "dbgauge comparison", sub);
    fprintf(out, "<section class=\"item compare\">\n<h2>Figures side by side</h2>\n");
    html_table(out, c);
    struct dg_chart ch;
    int rc = 0;
    if (items[0].kind == DG_ITEM_EXPERIMENT) {
        rc |= dg_compare_exp_charts(out, items, n);
    } else if (items[0].kind == DG_ITEM_GROUP) {
        rc |= dg_html_emit(out, &ch, groups_chart(&ch, items, n, DG_STEP_MB_PER_S));
        rc |= dg_html_emit(out, &ch, groups_chart(&ch, items, n, DG_STEP_RUN_TIME));
    } else {
        rc |= dg_html_emit(out, &ch, runs_curve(&ch, items, n));
        fprintf(out, "<div class=\"side\">\n");
        for (int i = 0; i < n; i++) {
            char prefix[32];
            snprintf(prefix, sizeof prefix, "cmp%d", i);
            if (items[i].runs[0].nseries)
                rc |= dg_html_emit(out, &ch, dg_chart_run_throughput(&ch, prefix, &items[i].runs[0]));
        }
        fprintf(out, "</div>\n");
    }
    fprintf(out, "</section>\n");
    dg_html_end(out);
    return rc;
}
