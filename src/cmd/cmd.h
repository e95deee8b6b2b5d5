/* cmd.h — the subcommands and what they share: exit codes, usage errors, the redacted
 * command line, JSON output. cmd/ and main.c are the only places that exit or print usage. */
#ifndef DG_CMD_H
#define DG_CMD_H

#include <getopt.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "cmd/memory.h"
#include "core/driver.h"
#include "core/monitor.h"
#include "core/runner.h"
#include "core/wlcli.h"
#include "dist/ranks.h"
#include "results/store.h"

enum { DG_EXIT_OK = 0, DG_EXIT_FAILED = 1, DG_EXIT_USAGE = 2 };

#define DG_DEFAULT_TARGET "sqlite:tpcc.db"
#define DG_DEFAULT_RESULTS "dbgauge-results.db"

int dg_cmd_runs(int argc, char **argv);
int dg_cmd_report(int argc, char **argv);
int dg_cmd_compare(int argc, char **argv);
int dg_cmd_experiment(int argc, char **argv);

/* What `dbgauge --help` says around its command list (main.c), and the manual page too. */
#define DG_HELP_SUMMARY "measures how fast SQL databases do OLTP work"
/* Every target form of the registry's drivers (src/drivers/registry.c), one a line. */
#define DG_HELP_TARGETS                                                                 \
    "  sqlite:PATH                   an SQLite file (default " DG_DEFAULT_TARGET ")\n"  \
    "  postgres://user@host:port/db  PostgreSQL (libpq URI; postgresql:// too)\n"       \
    "  mysql://user@host:port/db     MariaDB/MySQL (mariadb:// too)\n"                  \
    "  odbc:CONNECTION-STRING        any ODBC driver (odbc:DSN=NAME;...)\n"             \
    "  null:                         no database: measures dbgauge's own overhead\n"    \
    "(a build without an engine's driver refuses its scheme and names those it has)\n"
#define DG_HELP_EXIT "0 ok, 1 the run or a check failed, 2 bad usage or input"

/* A built-in command's own help, for its --help and for docgen.c: the getopt_long table it
 * parses with is the one listed here, so the manual page and the completion cannot miss one. */
struct dg_cmd_doc {
    const struct option *opts;         /* its getopt_long table, {NULL} ended */
    const char *subs;                  /* its subcommands, space-separated ("show"); NULL: none */
    void (*usage)(FILE *out);          /* its --help text */
    const char *enum_opt;              /* an option whose value is one of enum_names, or NULL */
    const char *const *enum_names;     /* NULL-terminated */
};
extern const struct dg_cmd_doc dg_runs_doc, dg_report_doc, dg_compare_doc, dg_experiment_doc;

/* A command of main.c beside the workloads': its name, its line in `dbgauge --help`, what
 * runs it and its help. */
struct dg_builtin {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
    const struct dg_cmd_doc *doc;
};

/* docgen.c: `dbgauge help --man` (the manual page, roff) and `dbgauge help --completion` (the
 * bash completion script), both walked from the tables --help prints: every registered
 * workload's and the n built-in commands. argv[0] is "help". Returns an exit status. */
int dg_cmd_docgen(int argc, char **argv, const struct dg_builtin *builtins, int n);

/* A step of an experiment, as the command that runs it sees it. */
struct dg_live;

struct dg_step {
    int64_t experiment_id;
    int index;              /* 1-based */
    int nsteps;             /* of how many (the progress line names "step 3/7") */
    const char *swept_json; /* {"key": "value", ...}: what this step takes from the lists */
    FILE *text;             /* where the run's own report goes */
    int64_t run_id;         /* out: the stored run, 0 if none was stored */
    char error[512];        /* out: why the step failed, if it did */
    struct dg_live *live;   /* the experiment's --live server (NULL: none); each step publishes there */
};

/* workload.c: a workload's command (`dbgauge tpcc ...`, `dbgauge stress ...`) from its
 * registry entry: its subcommands, its option table and the common run block. */
int dg_cmd_workload(const struct dg_workload *wl, int argc, char **argv);

/* One command of a workload as parsed: the command line's or an experiment step's. */
struct dg_wl_cmdline {
    const struct dg_workload *wl;
    const struct dg_wl_sub *sub;
    char cmd[48];         /* "tpcc run", "stress" (the default subcommand is not named) */
    struct dg_run_opts c; /* the common block (table 0 of set) */
    void *o;              /* the workload's options (table 1 of set); owned */
    struct dg_optset set;
};
/* Sets p up with the defaults of wl's subcommand sub (named: given on the command line).
 * Returns 0, or -1 out of memory. Free with dg_wl_cmdline_free. */
int dg_wl_cmdline_init(struct dg_wl_cmdline *p, const struct dg_workload *wl, const struct dg_wl_sub *sub,
                       int named);
void dg_wl_cmdline_free(struct dg_wl_cmdline *p);
/* Whether p's subcommand takes option r. */
int dg_wl_takes(const struct dg_wl_cmdline *p, struct dg_opt_ref r);
/* The whole-set checks: the workload's, then the common block's. */
int dg_wl_finish(struct dg_wl_cmdline *p, struct dg_err *err);
/* The workload's run subcommand, or NULL. */
const struct dg_wl_sub *dg_wl_run_sub(const struct dg_wl_cli *cli);
/* The usage lines of p's workload, one per subcommand --help shows. */
void dg_wl_synopsis(const struct dg_wl_cmdline *p, FILE *out);
/* Calls fn for each option of p's set some shown subcommand takes, in --help's order, with
 * the subcommands that take it ("(load, run) ", or "" when every one does). */
void dg_wl_each_opt(const struct dg_wl_cmdline *p, void (*fn)(void *ctx, const struct dg_opt *o, const char *where),
                    void *ctx);

/* runopts.c: the common run options' table, defaults and whole-set checks (run: the
 * subcommand is a run; else only one target is allowed, unless several: an action that
 * takes several --target, whose c->ntargets then stays 0 when none was given). */
extern const struct dg_opt dg_run_optab[];
extern const int dg_run_noptab;
void dg_run_opts_init(struct dg_run_opts *c);
int dg_run_opts_finish(struct dg_run_opts *c, const char *cmd, int run, int several, struct dg_err *err);

/* storedrun.c: struct dg_wl_act.read_run — run id of the results file a->c->results (never
 * created: a missing file is a DG_ERR_USER error). Returns 0, 1 when there is no such run, -1
 * with err. */
int dg_cmd_read_run(const struct dg_wl_act *a, int64_t id, struct dg_stored_run *out, struct dg_err *err);

/* runlife.c: the one life of a measured run, whatever the workload: memory step, targets
 * made ready (the workload's shared_open), store, monitor, runner, record (figures from the
 * counts, facts from the workload), store put, re-read, render, experiment step. */
struct dg_life {
    const struct dg_wl_cmdline *p;
    struct dg_step *step; /* NULL outside an experiment */
    int argc;             /* the command line, for the record */
    char **argv;
    int64_t group_id;     /* > 0: the run joins this group; -1: it starts one (its own id) */
    int quiet;            /* a step of a sweep: the sweep renders */
    /* A sweep applies the memory options once, before its first step, and hands every step
     * what that did (not owned); NULL: the run life applies them itself. */
    const struct dg_memory_state *memory;
    int64_t run_id;       /* out: the stored run, 0 if none */
    int interrupted;      /* out: stopped by a signal */
    /* --live of a sweep or an experiment: the server every step publishes to (not owned; NULL:
     * the run starts its own when its options say --live), and the step's name there. */
    struct dg_live *live;
    char live_step[48];
};
/* Runs and stores one run. Returns an exit status. */
int dg_run_life(struct dg_life *l);
/* runlive.c: --live SPEC's server for a command (a run, a sweep, an experiment), which says
 * where it listens on stderr. Returns 0 with *out (stop it with dg_live_stop), or an exit
 * status after saying why. */
int dg_cmd_live_open(const char *cmd, const char *spec, struct dg_live **out);
/* A run command: one run life, or one per virtual-user count of p->c.sweep, the runs grouped
 * and rendered as one table. Returns an exit status. */
int dg_cmd_run(const struct dg_wl_cmdline *p, struct dg_step *step, int argc, char **argv);

/* ranked.c: one run from several processes (MPI ranks). Rank k's share of vus workers and
 * of `terminals` terminals of a run of `scale` units (0: none): workers [base, base + n) in
 * even contiguous slices; the terminals by unit (terminal i is of unit i mod scale — TPC-C's
 * home warehouse), whole units per rank, or contiguous slices when they do not divide. */
struct dg_rank_share {
    int base, n;
    int *term_ids; /* owned; nterms of them (their numbers in the whole run) */
    int nterms;
};
int dg_rank_share(int k, int size, int vus, int terminals, int scale, struct dg_rank_share *out);
void dg_rank_share_free(struct dg_rank_share *s);
/* What rank 0 needs to make each rank's row: the run's figure table and its totals. */
struct dg_rank_figs {
    const struct dg_figure_def *figs;
    int nfigs;
    int vus, terminals, scale, standard_times;
};
/* Rank 0, after dg_rank_gather: one row per rank (*rows owned by the caller, rr->size of them),
 * and every reported rank's result merged into mine. Returns 0, or -1 out of memory. */
int dg_rank_results(struct dg_rank_run *rr, struct dg_run_result *mine, const struct dg_rank_figs *f,
                    struct dg_rank_summary **rows, int *nrows);

/* What a command knows about a run beyond the runner's result. */
struct dg_record_src {
    const char *workload, *label;
    const struct dg_target *target;
    const struct dg_server_info *server;
    char *options_json; /* handed over: the record owns it */
    int argc;
    char **argv;
    int vus;
    enum dg_load_model model;
    const struct dg_step *step; /* NULL outside an experiment */
    const char *knobs_json;     /* what the memory options did (copied), or NULL */
};
/* Fills txn[0..ntypes) from a run's (or a target's) counts and moves the histograms in (the
 * summaries own them; hist[k] and service[k] become NULL). Latency columns are not computed. */
void dg_txn_summaries_fill(struct dg_txn_summary *txn, int ntypes, const char *const *type_names,
                           const struct dg_type_counts *counts, struct dg_hist **hist, struct dg_hist **service);
/* Fills a run record from a finished run: status, times, target, engine and settings, host,
 * counts, and moves the histograms and the series from res into rec (which then owns them). */
void dg_record_fill(struct dg_run_record *rec, const struct dg_record_src *src,
                    struct dg_run_result *res, const char *const *type_names);

/* The monitor around one run (src/cmd/monitor.c). Set enabled and device_opt (NULL: found
 * from the first target's data directory); begin before the runner (it sets cfg's start hook
 * and, for per-connection caches, conn_cache; on failure nothing is set and the run can go on
 * unmonitored), end after it: the points go into rec. A server engine's monitor holds one
 * connection of its own during the run, and one more per target whose driver tells its
 * replication (connected at begin, asked once a second on the monitor's replication thread; a
 * lost one is tried again every DG_CMD_REPL_RETRY_S seconds). */
#define DG_CMD_REPL_RETRY_S 1 /* a refused connect costs little; a second is the sampler's step */
struct dg_cmd_repl {
    const struct dg_target *t; /* NULL: its driver has no replication slot */
    struct dg_conn_h conn;
    int connected;
    dg_ns next_try_ns;
};
struct dg_cmd_monitor {
    int enabled;
    int host_only; /* this host's CPU and disk (--monitor-device, else none) only: no engine,
                    * no server process, no replication (a rank > 0 of several) */
    const char *device_opt;
    int workers;
    struct dg_conn_h conn;        /* the monitor's own, for server-wide cache counters */
    const struct dg_target *target; /* what conn reaches (made again after a loss: conn_ok 0) */
    int conn_ok;
    dg_ns conn_next_try_ns;
    _Atomic uint64_t *conn_cache; /* owned: the workers' own counters */
    struct dg_cmd_repl *repl;     /* owned: one per target */
    int nrepl;
    struct dg_monitor *mon;
    char device[32];
};
/* targets[0] is the host watched (device, process, cache); all are asked for replication. */
int dg_cmd_monitor_begin(struct dg_cmd_monitor *cm, const struct dg_target *const *targets,
                         int ntargets, int workers, struct dg_runner_cfg *cfg, struct dg_err *err);
/* Stops the sampler and moves its points into rec (rec NULL: drops them); safe to call twice. */
void dg_cmd_monitor_end(struct dg_cmd_monitor *cm, struct dg_run_record *rec);
/* --monitor-device DEV: sets *out, or fills err (DG_ERR_USER) with why DEV is neither "none"
 * nor a device of /proc/diskstats and returns -1. */
int dg_cmd_monitor_device_opt(const char *dev, const char **out, struct dg_err *err);
/* The connections a run's monitor (when it runs) holds to target t at once: its replication's
 * where the driver tells it, and on the first target the server's cache counters' where they
 * are server-wide. */
int dg_cmd_monitor_conns(const struct dg_target *t, int first);
/* The engine settings of si as a JSON object text (malloc'd, caller frees). */
char *dg_settings_json(const struct dg_server_info *si);

/* audit.c: after a run with an outage (or as --audit says), the workload's audit of the
 * acknowledged writes on new connections to targets[0..n) into rec->audit (rec->audited 1);
 * one that was due and cannot be made is said on stderr and in rec->audit_not_made. Either a
 * loss or an audit not made fails the run (runlife.c). */
void dg_cmd_audit_after(const struct dg_wl_cli *cli, const struct dg_run_opts *c, const struct dg_target *const *targets,
                        int n, struct dg_run_record *rec, const char *cmd);

/* targets.c: several targets at once. */
/* Splits the virtual users over n targets into out[n]: per_target each when per_target > 0,
 * else vus / n each with the remainder to the first ones. Prints a usage error and returns
 * DG_EXIT_USAGE when a target would get none, unless it is a node of a cluster (cluster[k]
 * > 0: the cluster's database has users on its other nodes). */
int dg_targets_split(const char *cmd, int n, int vus, int per_target, const int *cluster, int *out);
/* What a command knows of each target. */
struct dg_target_src {
    const struct dg_target *target;
    const struct dg_server_info *server;
    int warehouses;
    const char *role; /* NULL, or the summary's role ("read", "node") */
};
/* After dg_record_fill (which saw the first target only): rec->target becomes every redacted
 * target joined by ", " (the first ones and "and N more" if that is too long), engine and
 * version the distinct ones joined by "+", warehouses their sum (the nodes of one cluster,
 * next to each other, counted once: one database; their summaries role "node"); rec->targets gets one summary
 * per target with the histograms moved from res->targets and the run's figures (figs) over
 * its counts.
 * Returns 0, or -1 out of memory. */
int dg_record_fill_targets(struct dg_run_record *rec, const struct dg_target_src *src, int n,
                           struct dg_run_result *res, const char *const *type_names,
                           const struct dg_figure_def *figs, int nfigs, const struct dg_fig_run *fr);

/* syncwait.c: before anything reads a target. Polls t's server on h (every 200 ms, at most
 * wait_ns; 0 or a driver without the replication slot: returns at once) until no row of its
 * replication says behind, printing one line to stderr when it has to wait. Returns 0, or -1
 * with err: DG_ERR_USER naming the server when it is still behind at the end. */
int dg_sync_wait(const char *cmd, const struct dg_target *t, struct dg_conn_h *h, dg_ns wait_ns, struct dg_err *err);
/* The same for each of an action's targets (c->targets) on a connection of its own; a target
 * that does not parse or connect is left to the action. */
int dg_sync_wait_targets(const char *cmd, const struct dg_run_opts *c, struct dg_err *err);

/* Prints "dbgauge CMD: message" to stderr and returns DG_EXIT_USAGE. */
int dg_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints an error from a lower layer; returns DG_EXIT_USAGE for DG_ERR_USER, else DG_EXIT_FAILED. */
int dg_report_err(const char *cmd, const struct dg_err *err);
/* The command line with any password in it replaced by ***. Caller frees. */
char *dg_redacted_command_line(int argc, char **argv);
/* Prints a JSON document on stdout and frees it. */
void dg_print_json(cJSON *doc);
/* getopt_long with our messages. Returns 1 with the option's value in *c, 0 at the end of the
 * options, or DG_EXIT_USAGE after printing what was wrong: an unknown option, a missing
 * value, or an option that `allowed(sub, value)` refuses for this subcommand. Short option
 * -h is mapped to help_val. Call with optind reset to 1. */
int dg_getopt(const char *cmd, int argc, char **argv, const struct option *opts, int help_val,
              int (*allowed)(const char *sub, int c), const char *sub, int *c);
/* The message for an option getopt did not accept (argv[optind - 1] is the culprit). */
int dg_bad_option(const char *cmd, int argc, char **argv, int opt_char);

#endif
