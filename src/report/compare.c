/* compare.c — renders a comparison (report/cmptable.h): the text table and the HTML page with
 * its charts side by side (runs' curves and throughput, groups by thread count, experiments by
 * swept value). Formatting only: the figures and changes come from the model. */
#include "report/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/htmlpage.h"
#include "report/runcharts.h"
#include "report/summary.h"

/* Side i's ranks in a line ("3 ranks, 1 dead; NOPM mean ...: fastest rank 0, slowest rank 2")
 * into buf, "" for a run of one process. Returns buf. */
static const char *ranks_line(const struct dg_compare *c, int i, char *buf, size_t n)
{
    const struct dg_cmp_ranks *k = &c->ranks[i];
    char sp[256];
    buf[0] = '\0';
    if (!k->nranks)
        return buf;
    int o = snprintf(buf, n, "%d ranks", k->nranks);
    if (k->counted < k->nranks && o >= 0 && (size_t)o < n)
        o += snprintf(buf + o, n - (size_t)o, ", %d without figures", k->nranks - k->counted);
    if (k->counted > 1 && o >= 0 && (size_t)o < n)
        snprintf(buf + o, n - (size_t)o, "; %s",
                 dg_report_spread_text(sp, sizeof sp, k->fig.label, k->fig.decimals, &k->head, "rank ", 0));
    return buf;
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
    for (int i = 0; i < c->nsides; i++) {
        char line[320];
        if (*ranks_line(c, i, line, sizeof line))
            fprintf(out, "ranks of %s: %s\n", c->side[i], line);
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
    for (int i = 0; i < c->nsides; i++) {
        char line[320];
        if (!*ranks_line(c, i, line, sizeof line))
            continue;
        fprintf(out, "<p class=\"ranks-note\" data-side=\"%d\">ranks of ", i);
        dg_html_text(out, c->side[i]);
        fprintf(out, ": ");
        dg_html_text(out, line);
        fprintf(out, "</p>\n");
    }
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
    int th[256], k = dg_cmp_thread_counts(items, n, th, 256), rc = -1;
    char id[40], title[200], texts[256][16], names[DG_CMP_MAX_SIDES][64];
    const char *x_text[256];
    const char *unit, *name = dg_step_name(&items[0].runs[0], f, &unit);
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
            const struct dg_run_record *r = dg_cmp_step_of(&items[i], th[j]);
            v[i * k + j] = r ? dg_step_value(r, f) : NAN;
        }
    }
    if (v)
        rc = dg_compare_sides_chart(ch, id, title, "threads", unit, x_text, k, names, n, v);
    free(v);
    return rc;
}

/* One figure (series k of f) per swept value, one series per experiment. */
static int exp_chart(struct dg_chart *ch, const struct dg_report_item *items, int n, enum dg_exp_figure f, int k)
{
    const char *keys[DG_CMP_MAX_KEYS], *unit;
    int nk = dg_cmp_union_keys(items, n, keys), rc = -1;
    const struct dg_exp_step *first = &items[0].exp->steps[0];
    char id[40], title[200], names[DG_CMP_MAX_SIDES][64];
    const char *name = dg_exp_series_name(first, f, k, &unit);
    double *v = malloc(sizeof *v * (size_t)(n * nk + 1));
    memset(ch, 0, sizeof *ch); /* freed by the caller even when never made */
    snprintf(id, sizeof id, "cmpexp-%d-%d", (int)f, k);
    snprintf(title, sizeof title, "%s%s per swept value, steps paired by value (each side's change from the first written on its bars)",
             name,
             f == DG_EXP_LATENCY ? " latency" : f == DG_EXP_STORAGE ? " (monitor)" : "");
    for (int i = 0; i < n; i++) {
        const char *label = items[i].exp->ex.label; /* the legend says which is which */
        snprintf(names[i], sizeof names[i], "experiment %lld%s%.40s", (long long)items[i].id, *label ? ": " : "", label);
        for (int j = 0; v && j < nk; j++) {
            const struct dg_exp_step *w = dg_cmp_step_at(items[i].exp, keys[j]);
            v[i * nk + j] = w && (f != DG_EXP_THROUGHPUT || dg_run_same_fig(&w->rec, &first->rec, 0))
                                ? dg_exp_value(w, f, k) : NAN;
        }
    }
    if (v)
        rc = dg_compare_sides_chart(ch, id, title, "swept value", unit, keys, nk, names, n, v);
    free(v);
    return rc;
}

static int exp_charts(FILE *out, const struct dg_report_item *items, int n)
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
        rc |= exp_charts(out, items, n);
    } else if (items[0].kind == DG_ITEM_GROUP) {
        rc |= dg_html_emit(out, &ch, groups_chart(&ch, items, n, DG_STEP_HEADLINE));
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
