/* htmlparts.h — pieces of a run's HTML section for monitored runs, runs with several
 * targets and runs with outages or faults, written inside html.c's run section. Records read from the results database only. */
#ifndef DG_REPORT_HTMLPARTS_H
#define DG_REPORT_HTMLPARTS_H

#include <stdio.h>

#include "report/htmlpage.h"
#include "report/model.h"

/* Headline cards from the monitor's measured-window means (disk read/write MB/s, engine
 * cache hit %, host CPU busy %), each only when available; nothing for an unmonitored run. */
void dg_html_monitor_cards(FILE *out, const struct dg_run_record *r);
/* The measured-window means as a key/value table (for the configuration area). */
void dg_html_monitor_means(FILE *out, const struct dg_run_record *r);
/* The replication charts (replay lag, bytes behind: when the run has replication rows), then
 * the CPU, disk MB/s and disk IOPS charts (when monitored); 0, or -1 out of memory. */
int dg_html_monitor_charts(FILE *out, const char *prefix, const struct dg_run_record *r);
/* The per-target table, the spread table and the two per-target charts (nothing for a
 * one-target run); 0, or -1 out of memory. */
int dg_html_targets(FILE *out, const char *prefix, const struct dg_run_record *r);
/* The per-rank table of a run driven from several processes (MPI ranks) and the headline's
 * spread over the ranks that reported (nothing for a run of one process); 0, or -1 out of memory. */
int dg_html_ranks(FILE *out, const struct dg_run_record *r);

/* The run's outages and faults as two tables (each only when there is one), in stored order;
 * a time that never came is an empty cell. */
void dg_html_events(FILE *out, const struct dg_run_record *r);

#endif
