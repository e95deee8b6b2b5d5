/* cmptable.c — the model of a comparison: stored runs, groups (steps paired by thread count)
 * or experiments (steps paired by swept value) side by side, one row per figure the sides have
 * (for runs that went through an outage, an audit or commits in doubt, what the failover cost)
 * and each side's percent difference from the first. Computes from records only; renders
 * nothing (compare.c does). */
#include "report/cmptable.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    for (int k = 0; k < r->nfigures; k++) /* the headline figures the runs have, by label */
        rc |= put(c, side, r->figures[k].label, r->figures[k].decimals, r->figures[k].value);
    if (!dg_run_has_time_fig(r))
        rc |= put(c, side, "measured s", 1, r->measured_s);
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

/* Whether run r went through something a failover comparison shows: an outage, an audit, a
 * commit in doubt. */
static int had_events(const struct dg_run_record *r)
{
    return r->noutages > 0 || r->audited || dg_run_in_doubt(r) > 0;
}

/* What a failover cost the side (report/runfig.h's dg_run_failover: the outage with the
 * longest RTO, the audit's RPO): the article's high availability against a failover cluster
 * side by side. "-" where the side does not know: no outage (or one not over by the end), no
 * audit, outages not recorded (a run stored before schema 10). */
static int failover_rows(struct dg_compare *c, int side, const struct dg_run_record *r)
{
    struct dg_failover f;
    const int had = dg_run_failover(r, &f);
    int rc = put(c, side, "outages", 0, dg_run_events_recorded(r) ? (double)r->noutages : NAN);
    rc |= put(c, side, "failover RTO s", 1, had && f.rto_s >= 0 ? f.rto_s : NAN);
    rc |= put(c, side, "failover recovery s", 1, had && f.recovery_s >= 0 ? f.recovery_s : NAN);
    rc |= put(c, side, "RPO: acknowledged writes lost", 0, r->audited ? (double)r->audit.lost : NAN);
    rc |= put(c, side, "RPO: s of acknowledged work lost", 1,
              had && f.lost_seconds >= 0 ? f.lost_seconds : r->audited && !r->audit.lost ? 0 : NAN);
    rc |= put(c, side, "commits in doubt", 0, (double)dg_run_in_doubt(r));
    return rc;
}

static int run_ranks(struct dg_cmp_ranks *k, const struct dg_run_record *r)
{
    const struct dg_figure *f = dg_ranks_fig(r, 0);
    k->nranks = r->nranks;
    if (f)
        k->fig = *f;
    k->counted = r->nranks ? dg_ranks_spread(r, &k->head, NULL) : 0;
    return k->counted < 0 ? -1 : 0;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int dg_cmp_thread_counts(const struct dg_report_item *items, int n, int *out, int cap)
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

const struct dg_run_record *dg_cmp_step_of(const struct dg_report_item *g, int threads)
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
    int rc = 0, events = 0;
    for (int i = 0; i < n; i++)
        events |= items[i].kind == DG_ITEM_RUN && had_events(&items[i].runs[0]);
    for (int i = 0; i < n; i++) {
        const struct dg_run_record *f = items[i].exp ? &items[i].exp->steps[0].rec : &items[i].runs[0];
        const char *label = items[i].exp ? items[i].exp->ex.label : f->label;
        snprintf(c->side[i], sizeof c->side[i], "%s %lld%s%.40s", items[i].exp ? "exp" : dg_report_item_kind_name(items[i].kind),
                 (long long)items[i].id, label[0] ? " " : "", label);
        if (items[i].kind == DG_ITEM_RUN)
            rc |= run_rows(c, i, f) | run_ranks(&c->ranks[i], f) | (events ? failover_rows(c, i, f) : 0);
    }
    if (items[0].kind == DG_ITEM_EXPERIMENT)
        rc |= dg_compare_exp_rows(c, items, n);
    if (items[0].kind == DG_ITEM_GROUP) {
        int th[256];
        int k = dg_cmp_thread_counts(items, n, th, 256);
        char name[96];
        for (int j = 0; j < k; j++)
            for (int i = 0; i < n; i++) {
                const struct dg_run_record *r = dg_cmp_step_of(&items[i], th[j]);
                const struct dg_figure *f = r ? dg_run_fig(r, 0) : NULL; /* the headline */
                const struct dg_figure *h = dg_run_fig(&items[0].runs[0], 0);
                snprintf(name, sizeof name, "%s, %d thread%s", h ? h->label : "", th[j], th[j] == 1 ? "" : "s");
                rc |= put(c, i, name, h ? h->decimals : 0,
                          f && dg_run_same_fig(r, &items[0].runs[0], 0) ? f->value : NAN);
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


int dg_cmp_union_keys(const struct dg_report_item *items, int n, const char **keys)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        const struct dg_exp_table *t = items[i].exp;
        const char *side[DG_CMP_MAX_KEYS];
        int ns = 0;
        for (int s = 0; s < t->n && ns < DG_CMP_MAX_KEYS; s++)
            side[ns++] = t->steps[s].key;
        k = dg_exp_union(keys, k, DG_CMP_MAX_KEYS, side, ns);
    }
    return k;
}

const struct dg_exp_step *dg_cmp_step_at(const struct dg_exp_table *t, const char *key)
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
    {DG_EXP_SECOND, 0, 0, NULL},              {DG_EXP_LATENCY, 0, 3, "avg ms"},
    {DG_EXP_LATENCY, 1, 3, "p95 ms"},         {DG_EXP_STORAGE, 0, 2, "disk read MB/s"},
    {DG_EXP_STORAGE, 1, 2, "disk write MB/s"},
};

int dg_compare_exp_rows(struct dg_compare *c, const struct dg_report_item *items, int n)
{
    const char *keys[DG_CMP_MAX_KEYS];
    int k = dg_cmp_union_keys(items, n, keys), storage = 0;
    const struct dg_exp_step *first = &items[0].exp->steps[0];
    for (int i = 0; i < n; i++)
        storage |= dg_exp_has_storage(items[i].exp, 0);
    for (int j = 0; j < k; j++)
        for (size_t f = 0; f < sizeof figures / sizeof *figures; f++) {
            int fig = figures[f].f == DG_EXP_THROUGHPUT || figures[f].f == DG_EXP_SECOND;
            if (figures[f].k >= dg_exp_nseries(first, figures[f].f) ||
                (figures[f].f == DG_EXP_SECOND && !dg_exp_second_apart(first)) ||
                (figures[f].f == DG_EXP_STORAGE && !storage))
                continue;
            const char *unit, *name = dg_exp_series_name(first, figures[f].f, figures[f].k, &unit);
            const struct dg_figure *shown = fig ? dg_run_fig(&first->rec, figures[f].f == DG_EXP_SECOND ? 1 : figures[f].k) : NULL;
            if (figures[f].name)
                name = figures[f].name;
            char row[96];
            snprintf(row, sizeof row, "%s, %s", name, keys[j]);
            struct dg_cmp_row *r = dg_compare_row(c, row, shown ? shown->decimals : figures[f].decimals);
            if (!r)
                return -1;
            for (int i = 0; i < n; i++) { /* a step whose headline is another figure: none */
                const struct dg_exp_step *w = dg_cmp_step_at(items[i].exp, keys[j]);
                r->v[i] = w && (!fig || dg_run_same_fig(&w->rec, &first->rec, 0))
                              ? dg_exp_value(w, figures[f].f, figures[f].k) : NAN;
            }
        }
    return 0;
}

