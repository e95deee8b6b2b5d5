/* test_figures.c — unit tests of the headline figures derived from counts as each workload's
 * table says: TPC-C's NOPM, TPM and tpmC, stress's MB/s, rows/s and run time, weights,
 * the standard-times condition and the registry that lists the workloads. */
#include <math.h>
#include <string.h>

#include "core/figures.h"
#include "core/workload.h"
#include "check.h"

static int near(double a, double b) { return fabs(a - b) < 1e-9 * (fabs(b) + 1); }

static double fig(const struct dg_figure *f, int n, const char *name)
{
    const struct dg_figure *g = dg_figure_find(f, n, name);
    return g ? g->value : NAN;
}

int main(void)
{
    struct dg_test t = {0};
    const struct dg_workload *tpcc = dg_workload_find("tpcc"), *stress = dg_workload_find("stress");
    CHECK(&t, tpcc && stress && !dg_workload_find("nope"), "the registry finds tpcc and stress, not nope",
          "%p %p", (void *)tpcc, (void *)stress);
    if (!tpcc || !stress)
        return dg_test_done(&t);
    int n = 0;
    while (dg_workloads[n])
        n++;
    CHECK(&t, n >= 2, "the registry lists the workloads", "%d", n);

    /* TPC-C over 30 s: 450 New-Orders committed and 5 rolled back on purpose, 1000 in all. */
    struct dg_type_counts c[DG_MAX_TYPES] = {0};
    c[0].committed = 450;
    c[0].rollbacks = 5;
    c[1].committed = 430;
    c[2].committed = 40;
    c[3].committed = 40;
    c[4].committed = 40;
    struct dg_figure f[DG_MAX_FIGURES];
    struct dg_fig_run run = {.measured_s = 30};
    int k = dg_figures_derive(tpcc->figures, tpcc->nfigures, c, tpcc->ntypes, &run, f);
    CHECK(&t, k == 2 && !strcmp(f[0].name, "nopm") && !strcmp(f[1].name, "tpm"),
          "closed loop: NOPM then TPM, no tpmC", "%d figures, first %s", k, f[0].name);
    CHECK(&t, near(fig(f, k, "nopm"), 900) && near(fig(f, k, "tpm"), 2000), "NOPM = 450 x 60 / 30, TPM = 1000 x 60 / 30",
          "nopm %g tpm %g", fig(f, k, "nopm"), fig(f, k, "tpm"));
    CHECK(&t, !strcmp(f[0].label, "NOPM") && !strcmp(f[0].unit, "/min"), "labels and units come from the table",
          "%s %s", f[0].label, f[0].unit);
    run.standard_times = 1;
    k = dg_figures_derive(tpcc->figures, tpcc->nfigures, c, tpcc->ntypes, &run, f);
    CHECK(&t, k == 3 && near(fig(f, k, "tpmc"), 910), "standard times: tpmC counts the 5 rolled back too (455 x 2)",
          "%d figures, tpmc %g", k, fig(f, k, "tpmc"));
    run.measured_s = 0;
    CHECK(&t, dg_figures_derive(tpcc->figures, tpcc->nfigures, c, tpcc->ntypes, &run, f) == 0,
          "no measured time: no figure (never a division by zero)", "figures derived");

    /* Stress over 4 s: 2,000,000 rows, 400,000,000 bytes. */
    struct dg_type_counts s[DG_MAX_TYPES] = {0};
    s[0].committed = 3;
    s[0].rows = 2000000;
    s[0].bytes = 400000000;
    run = (struct dg_fig_run){.measured_s = 4};
    k = dg_figures_derive(stress->figures, stress->nfigures, s, stress->ntypes, &run, f);
    CHECK(&t, k == 4 && !strcmp(f[0].name, "mb_per_s"), "stress: MB/s first", "%d, %s", k, f[0].name);
    CHECK(&t, near(fig(f, k, "mb_per_s"), 100) && near(fig(f, k, "rows_per_s"), 500000) &&
                  near(fig(f, k, "run_time_s"), 4),
          "MB/s = bytes / 1e6 / s, rows/s, run time = the measured seconds", "%g %g %g",
          fig(f, k, "mb_per_s"), fig(f, k, "rows_per_s"), fig(f, k, "run_time_s"));

    /* Weights: queries per transaction by type. */
    static const double reads[2] = {14, 1};
    struct dg_figure_def qps = {.name = "qps_read", .label = "reads/s", .unit = "/s", .count = DG_FIG_COMMITTED,
                                .type = DG_FIG_ALL_TYPES, .weight = reads, .scale = 1};
    struct dg_type_counts w[2] = {{.committed = 10, .errors = 7}, {.committed = 6}};
    double v = 0;
    run.measured_s = 2;
    CHECK(&t, dg_figure_value(&qps, w, 2, &run, &v) == 0 && near(v, (10 * 14 + 6) / 2.0),
          "weighted: (10 x 14 + 6 x 1) / 2 s; errors do not count", "%g", v);
    qps.type = 1;
    CHECK(&t, dg_figure_value(&qps, w, 2, &run, &v) == 0 && near(v, 3), "one type only", "%g", v);
    struct dg_figure_def total = {.name = "queries.read", .label = "reads", .count = DG_FIG_COMMITTED,
                                  .type = DG_FIG_ALL_TYPES, .weight = reads, .scale = 1, .flags = DG_FIG_TOTAL};
    CHECK(&t, dg_figure_value(&total, w, 2, &run, &v) == 0 && near(v, 10 * 14 + 6), "a total: 146 reads, not per second",
          "%g", v);
    run.measured_s = 0;
    CHECK(&t, dg_figure_value(&total, w, 2, &run, &v) == 0 && near(v, 146), "a total needs no measured time", "%g", v);
    return dg_test_done(&t);
}
