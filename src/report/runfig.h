/* runfig.h — what reports read off one stored run besides its columns: its completed
 * transactions, rates over its measured seconds, and its headline figures (core/figures.h)
 * by position or by name. The bottom floor of report/: includes no other report header and
 * renders nothing. */
#ifndef DG_REPORT_RUNFIG_H
#define DG_REPORT_RUNFIG_H

#include <stddef.h>
#include <stdint.h>

#include "core/spread.h"
#include "results/store.h"

/* Completed transactions of one type: committed plus rolled back on purpose. */
uint64_t dg_txn_count(const struct dg_txn_summary *t);
/* All types of r, committed + rollbacks. */
uint64_t dg_run_completed(const struct dg_run_record *r);
/* v / r's measured seconds, 0 if none. */
double dg_run_per_s(const struct dg_run_record *r, double v);

/* Figure k of r (0: the headline, 1: the second), NULL when r has fewer. Points into r. */
const struct dg_figure *dg_run_fig(const struct dg_run_record *r, int k);
/* Its value, NAN when r has no figure k. */
double dg_run_fig_value(const struct dg_run_record *r, int k);
/* The value of the figure called name in figs[0..n), NAN when there is none. */
double dg_figs_value(const struct dg_figure *figs, int n, const char *name);
/* Figure k of target t, NULL when it has fewer; its value, NAN when none. */
const struct dg_figure *dg_target_fig(const struct dg_target_summary *t, int k);
double dg_target_fig_value(const struct dg_target_summary *t, int k);
/* How target k (0-based) of r is named: "node 2 of cluster 1" for a node of a --cluster (its
 * place among that cluster's nodes), else "target 3". Returns buf. */
const char *dg_target_label(const struct dg_run_record *r, int k, char *buf, size_t n);
/* The node's number within its cluster (1-based), 0 for a target that is no node. */
int dg_target_node(const struct dg_run_record *r, int k);
/* Figure k of rank row x (0: the headline), NULL when it has fewer (a dead rank has none);
 * its value, NAN when none. */
const struct dg_figure *dg_rank_fig(const struct dg_rank_summary *x, int k);
double dg_rank_fig_value(const struct dg_rank_summary *x, int k);
/* Figure k as r's ranks have it (the first rank's that has it: they share the run's figure
 * table), NULL when none has. Points into r. */
const struct dg_figure *dg_ranks_fig(const struct dg_run_record *r, int k);
/* The spread of the headline (figure 0) over r's ranks that have it (core/spread): *s over
 * those, its min_idx and max_idx their rank numbers; pct (r->nranks values, the caller's, or
 * NULL) each rank's percent from the mean, NAN for a rank without figures. Returns how many
 * ranks it counts (0: *s all zeros), or -1 out of memory. */
int dg_ranks_spread(const struct dg_run_record *r, struct dg_spread *s, double *pct);
/* Whether one of r's figures is in seconds (its run time): views then show no "measured s"
 * beside it. */
int dg_run_has_time_fig(const struct dg_run_record *r);
/* Whether a and b have the same figure k (by name; both lacking it counts as the same): two
 * runs whose headlines can be compared. */
int dg_run_same_fig(const struct dg_run_record *a, const struct dg_run_record *b, int k);

/* Whether r was stored when in-doubt errors, reconnects per second, faults, outages and the
 * open loop's schedule were recorded (schema 10 on): its zeros and empty lists then mean none,
 * not "not recorded". */
int dg_run_events_recorded(const struct dg_run_record *r);
/* What a failover cost, from r's outages and the audit made after it. The failover is the
 * outage with the longest RTO: from the target's last commit before it to its first commit
 * after (the time without a commit), recovery from that same last commit to the end of the
 * first second back at 90% of the rate before; lost = acknowledged New-Orders (or the
 * workload's writes) the audit did not find, lost_seconds = from the first of them to the
 * last commit before the outage (the acknowledged work lost, in time). -1 where not known. */
struct dg_failover {
    int outage;        /* index into r->outages */
    int target;        /* 0-based */
    double rto_s, recovery_s;
    int audited;       /* 0: lost and lost_seconds unknown (-1) */
    int64_t lost;
    double lost_seconds;
};
/* Returns 1 with *f filled when r had an outage, 0 otherwise. */
int dg_run_failover(const struct dg_run_record *r, struct dg_failover *f);
/* The outage's RTO: last_commit_s + first_commit_s, or first_commit_s when it had no commit
 * before it; -1 when it had none after. */
double dg_outage_rto(const struct dg_outage *o);
/* The in-doubt errors of all of r's types. */
uint64_t dg_run_in_doubt(const struct dg_run_record *r);
/* Whether r's arrivals, late and skipped were counted: stored from schema 10 on
 * (schedule_known), and not all 0 for a window that completed transactions. */
int dg_run_schedule_counted(const struct dg_run_record *r);
/* Whether a --rate run kept up with its schedule. Runs that counted it: at
 * most 1% of the arrivals late (started more than DG_LATE_AFTER_NS after their intended time)
 * or skipped; a Poisson schedule's own count of arrivals varies, so the rate achieved is no
 * judge. Others (older runs): the rate achieved at least 95% of the asked and the start lag
 * p99 under 100 ms, as they were judged when stored. */
int dg_run_kept_up(const struct dg_run_record *r);
/* late + skipped as a percent of the arrivals (0 when there were none). */
double dg_run_late_pct(const struct dg_run_record *r);

/* The heads of a table column showing figure k of each of n runs: the distinct labels in
 * order of first appearance joined by " or " ("NOPM or MB/s"), "" when none has it. */
const char *dg_figs_head(char *buf, size_t n_buf, const struct dg_run_record *const *runs, int n, int k);

#endif
