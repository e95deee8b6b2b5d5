/* life.h — what the halves of a measured run's life share (private to src/cmd/runlife.c, the
 * run's course, and src/cmd/runrecord.c, its record and what is published while it runs). */
#ifndef DG_CMD_LIFE_H
#define DG_CMD_LIFE_H

#include "cmd/cmd.h"
#include "core/progress.h"

/* --live (rank 0): the server the run publishes to, and what the reporter keeps for it. */
struct life_live {
    struct dg_live *srv; /* the run's own (own 1) or its experiment's */
    int own;
    char step[48];       /* "step 3/7" of a sweep or an experiment */
    struct dg_monitor_point *mon; /* the monitor's points copied so far (owned) */
    size_t nmon, capmon;
    struct dg_repl_point *repl;   /* its replication rows copied so far (owned) */
    size_t nrepl, caprepl;
    size_t summed;                /* series points added into commits */
    uint64_t commits[DG_MAX_TARGETS + 1];
    struct dg_tick last;          /* the latest tick, published again as "done" at the end */
    int ticked;
};

/* One target of a run, made ready before measuring. */
struct life_target {
    struct dg_target t;
    struct dg_server_info si;
    void *shared; /* the workload's, cli->shared_size bytes */
};

/* Everything one run holds, released at one place. */
struct life {
    struct dg_life *in;
    const struct dg_wl_cmdline *p;
    const struct dg_wl_cli *cli;
    const char *cmd;
    int n;
    struct life_target *ts;
    struct life_target read; /* --read-target (read.t.drv NULL: none); the first target's shared state */
    void *shareds[DG_MAX_TARGETS];
    int split[DG_MAX_TARGETS];
    struct dg_conn_h keep; /* the first target's, around the run, for the measure hooks */
    struct dg_memory_state own_mst; /* when the run applies the memory options itself */
    const struct dg_memory_state *mst;
    struct dg_store *store;
    struct dg_run_result res;
    struct dg_run_record rec;
    struct dg_cmd_monitor mon;
    struct dg_run_facts facts;
    struct dg_err err;
    /* The fault schedule, started at the start line after the monitor's own start hook. */
    void (*chained_start)(void *ctx, dg_ns start_ns, dg_ns warm_end_ns);
    void *chained_ctx;
    struct dg_fault_run *faults;
    struct dg_fault_event fault_events[DG_MAX_FAULTS];
    int nfault_events;
    /* Several processes (mpirun): this rank's share and the run's ranks (rr.size 1: alone). */
    struct dg_rank_run rr;
    struct dg_rank_share share;
    int windowed; /* the ranks measured together: they end together (dg_rank_done) */
    /* Checkpoints (rank 0): the run's id once the first is kept, the series points kept. */
    int64_t ckpt_id;
    size_t ckpt_series;
    int ckpt_failed;
    int stored; /* the finished run is in the results database */
    char why[256]; /* why the finished run failed, when its transactions say so (failure()) */
    struct life_live live;
    struct dg_progress prog; /* rank 0: the status line or the plain lines, by the reporter */
};

/* This run's figure table: the workload's, or the one its options made (facts). */
static inline const struct dg_figure_def *life_figures(const struct life *L, int *n)
{
    *n = L->facts.figures ? L->facts.nfigures : L->p->wl->nfigures;
    return L->facts.figures ? L->facts.figures : L->p->wl->figures;
}

/* runrecord.c: the finished run's record in L->rec (0, or -1 with L->err); the checkpoint
 * hook of the runner (ctx is the life); what is published each second while it runs. */
int life_record(struct life *L);
void life_checkpoint(void *ctx, const struct dg_checkpoint *cp);
/* runlive.c: --live around the run (rank 0). begin starts the run's server (or takes its
 * experiment's) and publishes the page and the connect phase: 0, or an exit status after
 * saying why. tick publishes /metrics each second, and the run's section and JSON while
 * someone watches them. end publishes the "done" phase, stops the run's own server and frees
 * what it kept. */
int life_live_begin(struct life *L);
void life_live_tick(struct life *L, const struct dg_tick *t);
void life_live_end(struct life *L);
/* runrecord.c, for runlive.c: the partial record of the final seconds so far (as a checkpoint
 * keeps it) into *rec, with its counts and histograms in *part; free both after. */
void life_partial_record(struct life *L, const struct dg_checkpoint *cp, struct dg_run_record *rec,
                         struct dg_run_result *part);

#endif
