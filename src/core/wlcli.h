/* wlcli.h — what a workload tells the command line: its option table and defaults, its
 * subcommands (a run, or an action such as load/prepare/check), and the hooks the one run life
 * (cmd/runlife.c) calls to get a target ready and to fill a run's facts. Also the common run
 * options every workload shares. Data and signatures only: no database header, no exit, no
 * results/ header (a workload hands facts, never a run record). */
#ifndef DG_WLCLI_H
#define DG_WLCLI_H

#include <stdio.h>

#include "core/fault.h"
#include "core/clock.h"
#include "core/driver.h"
#include "core/optable.h"
#include "core/rng.h"
#include "core/runner.h"

struct cJSON;

#define DG_MAX_TARGETS 64

/* --db-memory, --mem-cap, --drop-caches and how to restart the server (cmd/memory.c applies). */
struct dg_memory_opts {
    uint64_t db_memory; /* bytes; 0: leave the engine as it is */
    uint64_t mem_cap;   /* bytes; 0: no cap */
    const char *restart_cmd, *pg_datadir, *pg_ctl;
    int drop_caches;
};

/* The common run options (one block for every workload: cmd/runopts.c holds their table). */
struct dg_run_opts {
    const char *target;                  /* the first target (default sqlite:tpcc.db) */
    const char *targets[DG_MAX_TARGETS]; /* every --target, in order */
    const char *read_target;             /* --read-target: the read-only types run there (NULL: none) */
    int ntargets;
    /* --cluster URL (several hosts): each node became a target of its own (a single-host URL
     * in cluster_urls); target_cluster[k] is k's cluster, 1 for the first --cluster, ..., 0
     * for a --target. */
    int target_cluster[DG_MAX_TARGETS];
    int nclusters;
    const char *cluster_text[DG_MAX_TARGETS]; /* each --cluster as given */
    char cluster_urls[16384];                 /* the nodes' URLs, NUL-separated */
    size_t cluster_urls_used;
    /* --sync-wait: how long a target that has not applied what it received (a Galera node
     * catching up) is waited for before anything reads it; 0: not at all. */
    dg_ns sync_wait_ns;
    /* --checkpoint-every: how often a measured run keeps what it has so far in the results
     * database (default DG_CHECKPOINT_NS; 0: only at its end). */
    dg_ns checkpoint_ns;
    char targets_list[8192]; /* --targets A,B,...: a copy, split in place */
    int vus, vus_set, vus_per_target;
    dg_ns duration_ns, warmup_ns;
    int duration_set;
    uint64_t txns_per_vu, seed;
    int seed_set;
    double rate;
    int arrivals, arrivals_set; /* enum dg_arrivals */
    const char *label, *results, *monitor_device;
    int json, no_monitor, help;
    /* --progress (enum dg_progress_mode) and --quiet: how a run or a load shows itself while
     * it goes; command-line only, never stored (they change nothing measured). */
    int progress, quiet;
    struct dg_memory_opts mem;
    /* Set by the workload's finish: the load model (THINK is the workload's own option; RATE
     * and CLOSED are decided by the common checks), and its time scale. */
    enum dg_load_model model;
    double think_scale;
    /* Set by the workload's finish: a sweep of virtual-user counts, one stored run each, the
     * runs linked as one group (stress --threads 1,2,4); nsweep 0: one run of vus. */
    int sweep[DG_INT_LIST_MAX], nsweep;
    /* Faults (--fault OFFSET:COMMAND, as given; parsed by the common checks once the window is
     * known), how long a lost connection is sought again (0: the rest of the run), and the
     * open loop's latency limit (0: none). */
    const char *fault_text[DG_MAX_FAULTS];
    char fault_lines[8192]; /* a job file's fault= and cluster= lines, split in place */
    size_t fault_lines_used;
    struct dg_fault_spec faults[DG_MAX_FAULTS];
    int nfaults;
    dg_ns reconnect_timeout_ns, latency_limit_ns;
    int no_audit_log;
    const char *live; /* --live [ADDR:]PORT as given (checked when parsed); NULL: none */
    int audit_when; /* enum dg_audit_when: when the run life audits the acknowledged writes */
};
/* --audit: after a run that had an outage (default), after every run, or never. */
enum dg_audit_when { DG_AUDIT_AFTER_OUTAGE = 0, DG_AUDIT_ALWAYS, DG_AUDIT_NEVER };

/* What a run's record needs from the workload, beyond the counts (cmd/ writes the record). */
struct dg_run_facts {
    int scale;                       /* TPC-C warehouses, summed over the targets; 0: none */
    int target_scale[DG_MAX_TARGETS];
    int terminals;                   /* 0: one per virtual user */
    const char *query;               /* a query workload's text (copied), or NULL */
    const double *p90_limit_s;       /* per type, checked in the think model; NULL: none */
    double tpmc_ceiling;             /* think model: the most the terminals can give; 0: none */
    double server_blocks_hit, server_blocks_read; /* per transaction, where the engine tells; -1 */
    /* This run's figure table where it depends on the options (oltp: queries per transaction
     * follow --point-selects ...), held by the shared state; NULL: the workload's own. */
    const struct dg_figure_def *figures;
    int nfigures;
    /* Writes to keep with the run's acknowledged ones for the audit, from before the run (tpcc:
     * each warehouse's history sum, kind DG_ACK_TPCC_BASELINE, target set); held by the shared
     * states, copied by the run life. */
    const struct dg_ack *acks;
    size_t nacks;
};

/* A stored run as an action may read it: cmd/ reads the store for the workload, which never
 * opens it (struct dg_wl_act.read_run). */
struct dg_stored_run {
    int64_t id;
    char workload[16], status[16], started_at[32];
    int ntargets;                /* >= 1 */
    char (*targets)[1024];       /* ntargets redacted URLs, in the run's order; owned */
    int *cluster;                /* ntargets: each one's --cluster number, 0 for none; owned */
    struct dg_ack *acks;         /* owned */
    size_t nacks;
};
void dg_stored_run_free(struct dg_stored_run *r);

/* What an action gets: the options, where text goes, and with --json a document (holding
 * schema_version) to add its keys to, which cmd/ prints on stdout (NULL without --json). */
/* Several processes (mpirun) run one action together: this is rank `rank` of `size`. */
struct dg_wl_ranks {
    int rank, size;
    /* A meeting of every rank, each saying whether it failed (err): returns 0 when none did,
     * else -1 with err naming the first rank that failed. Every rank makes the same calls. */
    int (*agree)(void *ctx, int failed, struct dg_err *err);
    /* Sums n counters over the ranks, in place on every rank. Returns 0, or -1. */
    int (*sum)(void *ctx, uint64_t *v, int n);
    void *ctx;
};

struct dg_wl_act {
    const char *cmd; /* "tpcc load", for messages */
    const struct dg_run_opts *c;
    void *o; /* the workload's options */
    FILE *text;
    struct cJSON *json;
    int argc; /* arguments after the options (a raw action: every argument after its name) */
    char **argv;
    /* Reads run id of the results file (c->results) into *out. Returns 0, 1 when there is no
     * such run, -1 with err. */
    int (*read_run)(const struct dg_wl_act *a, int64_t id, struct dg_stored_run *out, struct dg_err *err);
    /* Under mpirun, for an action whose struct dg_wl_sub.ranked is set (size 1: alone). */
    struct dg_wl_ranks ranks;
};

enum dg_sub_kind { DG_SUB_RUN = 0, DG_SUB_ACTION };

struct dg_wl_sub {
    const char *name; /* "run", "load" */
    enum dg_sub_kind kind;
    const char *synopsis; /* the usage line after "dbgauge WORKLOAD NAME " */
    const char *common;   /* an action's common options beyond target and json ("seed") */
    int hidden;           /* not in the help (developers' tools) */
    int raw;              /* takes its own arguments: no option parsing */
    int ranked;           /* an action that splits its work over several ranks itself (a->ranks);
                           * under mpirun any other runs on rank 0 alone, the others wait for it */
    /* DG_SUB_ACTION: returns 0 (done), 1 (done, but what it checked failed: exit 1) or -1
     * with err (DG_ERR_USER: exit 2). */
    int (*action)(const struct dg_wl_act *a, struct dg_err *err);
};

struct dg_wl_cli {
    const char *title; /* "TPC-C", in the start line of a run */
    const struct dg_opt *opts;
    int nopts;
    size_t opts_size;            /* the workload's options struct */
    void (*init)(void *o);       /* its defaults */
    /* The checks only the whole set can make, for subcommand sub, before the common ones:
     * sets c->model (THINK), c->think_scale, c->nsweep, c->txns_per_vu as the workload means. */
    int (*finish)(void *o, struct dg_run_opts *c, const char *sub, struct dg_err *err);
    const char *common_refused;  /* common run options it does not take (space-separated) */
    /* Common options stored under the workload's own words ("vus=threads txns_per_vu=iterations":
     * stress's runs keep SQLQueryStress's names), space-separated JSON-name pairs; NULL: none. */
    const char *json_renames;
    const struct dg_wl_sub *subs;
    int nsubs;
    const char *default_sub;     /* taken when no subcommand is named (NULL: one must be) */
    const char *help_note;       /* printed after the options in --help, or NULL */
    int max_retries;             /* per transaction */
    int fail_on_errors;          /* a failed transaction fails the run (exit 1) */
    /* Optional: whether a run with options o writes (NULL: it does). A target that can write
     * nothing (dg_server_info.read_only: a standby, a read_only server) is refused before the
     * window of a run that writes. */
    int (*writes)(const void *o);

    /* The run life's hooks. shared_size bytes of shared state per target (zeroed), the
     * workload's struct first: the runner passes it to worker_open. */
    size_t shared_size;
    /* Gets a target's shared state ready on connection h (schema, constants, statements
     * to check). DG_ERR_USER when the options or the database are wrong. */
    int (*shared_open)(const void *o, const struct dg_run_opts *c, const struct dg_target *t,
                       struct dg_conn_h *h, struct dg_rng *rng, void *shared, struct dg_err *err);
    void (*shared_free)(void *shared);
    /* One phrase for the start line ("10 warehouses"), or "" */
    void (*describe)(const void *shared, char *buf, size_t n);
    /* The facts of the run over its n targets' shared states. */
    void (*facts)(const void *o, const struct dg_run_opts *c, void *const *shared, int n,
                  struct dg_run_facts *f);
    /* Optional, on a connection to the first target kept open around the measured run. */
    void (*measure_begin)(void *shared, struct dg_conn_h *h);
    void (*measure_end)(void *shared, struct dg_conn_h *h, uint64_t txns, struct dg_run_facts *f);
    /* Optional: after the run, checks its acknowledged writes (acks, those of every target)
     * on one new connection per target (h[k] to target k): what a failover lost, its RPO.
     * Returns 0 with *out filled, -1 with err. NULL: the workload keeps nothing to audit. */
    int (*audit)(struct dg_conn_h *h, int n, const struct dg_ack *acks, size_t nacks,
                 struct dg_audit_summary *out, struct dg_err *err);
};

/* The subcommand called name of cli, or NULL. */
const struct dg_wl_sub *dg_wl_sub_find(const struct dg_wl_cli *cli, const char *name);

#endif
