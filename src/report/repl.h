/* repl.h — a stored run's replication rows (results/store.h: rec->repl): one summary per target
 * and peer, the summary as text and JSON, the per-second rows as a JSON array. Reads only the
 * record; the charts of them are runcharts.h's. */
#ifndef DG_REPORT_REPL_H
#define DG_REPORT_REPL_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "results/store.h"

#define DG_REPL_MAX_PEERS 24

/* One peer (a standby as its primary sees it, a standby or a Galera node about itself) of one
 * target, over every row stored for it. A figure never seen is -1. */
struct dg_repl_peer {
    int target;          /* 0-based */
    char name[48];
    size_t n;            /* seconds with a row */
    double replay_mean_s, replay_max_s, lag_bytes_max;
    char states[64];     /* the states seen, in order of first sight: "streaming, catchup" */
    char syncs[40];      /* the sync states seen */
    int behind_s;        /* seconds it had received changes it had not applied */
    /* Galera */
    double cluster_min, cluster_max, flow_paused_max, recv_queue_max, cert_failures_delta;
};

/* The peers of r in order of first sight (at most max); returns how many. */
int dg_repl_peers(const struct dg_run_record *r, struct dg_repl_peer *out, int max);
/* The index in peers[0..n) of p's peer, or -1. */
int dg_repl_peer_index(const struct dg_repl_peer *peers, int n, const struct dg_repl_point *p);

/* A text section (nothing when the run has no replication rows). */
void dg_report_repl_text(FILE *out, const struct dg_run_record *r);
/* New JSON arrays the caller owns: the per-second rows (target 1-based; null for a figure or
 * text not available), and one summary object per peer. */
cJSON *dg_report_repl_json(const struct dg_run_record *r);
cJSON *dg_report_repl_summary_json(const struct dg_run_record *r);

#endif
