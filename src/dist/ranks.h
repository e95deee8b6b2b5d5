/* ranks.h — one run driven from several client processes over MPI (`mpirun -n N dbgauge ...`).
 * The process side (init, finalize, who am I) reads MPI's own state and keeps none of its
 * own; the run side (struct dg_rank_run) is owned by one run life:
 *
 *   agree (every rank says it is ready, or why not: one collective per stage before the
 *   window) → start (rank 0 measures each rank's clock offset and fixes one start line in its
 *   clock; each rank sleeps until it on its own) → poll in the window (ranks send rank 0 a beat
 *   with their counts every second; rank 0 stops everyone on Ctrl-C or when a rank falls
 *   silent) → gather (each rank sends its packed result; rank 0 keeps them, names the dead)
 *   → done (rank 0 tells every rank the exit status).
 *
 * Without Open MPI, or outside mpirun, there is one rank and every call is a no-op; MPI calls
 * are made by the main thread only (MPI_THREAD_FUNNELED). */
#ifndef DG_RANKS_H
#define DG_RANKS_H

#include <stddef.h>

#include "core/clock.h"
#include "core/monitor.h"
#include "core/runner.h"

/* Process side: MPI_Init when built with Open MPI and started by mpirun (the environment says
 * so), nothing otherwise. Returns 0, or -1 when MPI would not start (the message printed). */
int dg_ranks_init(int *argc, char ***argv);
/* MPI_Finalize, when initialized; after a rank died (abandon = 1) the run cannot meet the
 * others again, so the process ends here with status. */
void dg_ranks_finalize(int abandon, int status);
int dg_ranks_size(void);
int dg_ranks_rank(void);
/* "Open MPI 4.1.4" when built with MPI, NULL without (shown by --version). */
const char *dg_ranks_library(void);

/* A rank beats this often in the window, and may be silent this long before rank 0 counts it
 * lost (after a stop: three beats). */
#define DG_RANK_BEAT_NS (250 * DG_NS_PER_MS)
#define DG_RANK_DEAD_AFTER_NS (5 * DG_NS_PER_S)

enum dg_rank_state { DG_RANK_RUNNING = 0, DG_RANK_REPORTED, DG_RANK_DEAD };

/* One rank as the run sees it (rank 0 holds all; another rank its own and rank 0's host). */
struct dg_rank_peer {
    char host[64];
    enum dg_rank_state state;
    dg_ns offset_ns;     /* its monotonic clock minus rank 0's (rank 0: 0) */
    dg_ns start_ns;      /* when its workers were released, in rank 0's clock (0: unknown) */
    dg_ns last_heard;    /* rank 0's clock */
    struct dg_sec_counts beat[DG_MAX_TYPES], at_tick[DG_MAX_TYPES]; /* its totals: last beat, last tick */
    struct dg_run_result res; /* its result, unpacked (REPORTED) */
    struct dg_monitor_point *mon; /* its host's monitor points, sent with its result (owned) */
    size_t nmon;
};

struct dg_rank_run {
    int size, rank;
    int recovery;          /* mpirun --enable-recovery: a dead rank does not take the others down */
    int stage;             /* agreements made before the window */
    int ntypes;
    struct dg_rank_peer *peers; /* size of them, owned */
    dg_ns start_local;     /* the start line in this rank's clock */
    dg_ns next_beat;
    int stop_sent;         /* rank 0: STOP went out */
    int ndead;
    int peer_failed;       /* an agreement failed on another rank's account */
    char why[512];         /* rank 0: why the run failed because of a rank ("" none) */
    /* Another rank: its host's monitor points, sent with its result (the caller's). */
    const struct dg_monitor_point *my_mon;
    size_t my_nmon;
};

/* Fills rr for one run (size 1 outside MPI: nothing else to do). Returns 0, or -1 out of memory. */
int dg_rank_run_init(struct dg_rank_run *rr, int ntypes);
void dg_rank_run_free(struct dg_rank_run *rr);

/* Sums n counters over every rank, in place. Returns 0, or -1. */
int dg_rank_sum(struct dg_rank_run *rr, uint64_t *v, int n);

/* The agreements before the window, in this order on every rank (a rank that fails before
 * one still makes it, with its failure, so nobody waits):
 *   1 rank 0 has applied the memory options and readied the targets (its workload's shared
 *     state: DDL made once, before the others look);
 *   2 every rank has readied its targets;
 *   3 every rank's workers have connected (made by dg_rank_start). */
#define DG_RANK_STAGES 3
/* Every rank's status at this stage (rc 0 ok; msg why not). Returns 0 when all are ready, else
 * the first failing rank's rc with *why "rank K on HOST: MSG". */
int dg_rank_agree(struct dg_rank_run *rr, int rc, const char *msg, char *why, size_t whylen);
/* A failure before the window: makes the agreement the others wait in, if not made yet. */
void dg_rank_fail_early(struct dg_rank_run *rr, int rc, const char *msg);

/* Agreement 3, then the common start line: returns it on this rank's clock, having slept until
 * then, or 0 when the run must not start (err says why). ok 0: this rank's workers failed (err). */
dg_ns dg_rank_start(struct dg_rank_run *rr, int ok, struct dg_err *err);

/* In the window, every few hundred ms: beats out, messages in. Returns 1 when this rank must
 * stop now (rank 0 said so; on rank 0, a rank fell silent). */
int dg_rank_poll(struct dg_rank_run *rr, dg_ns now, const struct dg_series *se);

/* Rank 0's progress tick: adds the other ranks' counts since the last tick (their beats). */
void dg_rank_tick(struct dg_rank_run *rr, struct dg_tick *t);

/* After the window. Another rank sends its result and returns 0. Rank 0 collects every
 * rank's (stopping them first when it was interrupted), waiting while they are heard from,
 * names those it lost (rr->why). Returns 0, -1 out of memory, or (another rank) -2 when rank
 * 0 did not take its result within 30 s: rank 0 counts as lost (rr->ndead) and the process
 * must end without meeting it again. */
int dg_rank_gather(struct dg_rank_run *rr, const struct dg_run_result *mine, int interrupted);

/* The end of the run from rank 0 to every rank: its exit status, the stored run's id and
 * whether it was interrupted (rank 0 passes its own; another rank gets them). Returns rc. */
int dg_rank_done(struct dg_rank_run *rr, int rc, int64_t *run_id, int *interrupted);

#endif
