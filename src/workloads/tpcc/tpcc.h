/* tpcc.h — TPC-C (revision 5.11) for dbgauge: population, the five transactions, the
 * consistency conditions. Speaks SQL through the driver API only; picks dialect variants by
 * the driver's dialect id. Knows nothing of threads or timing. */
#ifndef DG_TPCC_H
#define DG_TPCC_H

#include <stdio.h>
#include <stdint.h>

#include "core/driver.h"
#include "core/rng.h"
#include "core/workload.h"

enum tpcc_type { TPCC_NEW_ORDER = 0, TPCC_PAYMENT, TPCC_ORDER_STATUS, TPCC_DELIVERY, TPCC_STOCK_LEVEL, TPCC_NTYPES };

#define TPCC_ITEMS 100000
#define TPCC_DISTRICTS 10
#define TPCC_CUSTOMERS 3000          /* per district */
#define TPCC_ORDERS 3000             /* per district at load */
#define TPCC_NEW_ORDERS 900          /* per district at load: the last 900 orders */
#define TPCC_MAX_WAREHOUSES 100000   /* what --warehouses and a load plan may say */
#define TPCC_DECK 23                 /* 10 New-Order, 10 Payment, 1 each of the others */

extern const char *const tpcc_type_names[TPCC_NTYPES];
extern const struct dg_workload tpcc_workload;
/* Clause 5.2.5.3: the 90th percentile response time each type must stay under, seconds. */
extern const double tpcc_p90_limit_s[TPCC_NTYPES];
/* The most tpmC a warehouse can give with the standard's times and zero response time:
 * 10 terminals, mean cycle 20.99 s at the 45/43/4/4/4 mix (spec notes, section 5.2). */
#define TPCC_TPMC_CEILING_PER_W 12.86

/* The C constants of NURand (clause 2.1.6) for one database. */
struct tpcc_nurand {
    int c_last; /* C for C_LAST (255) */
    int c_id;   /* C for C_ID (1023) */
    int ol_i_id; /* C for OL_I_ID (8191) */
};

enum tpcc_mode { TPCC_MODE_SQL = 0, TPCC_MODE_PROCEDURES };

/* Shared, read-only during a run. */
struct tpcc_shared {
    int warehouses;
    enum dg_dialect dialect;
    enum tpcc_mode mode;
    enum dg_isolation isolation;
    struct tpcc_nurand c_run;
    /* The Payment audit's baseline: each warehouse's SUM(h_amount) before the run (kind
     * DG_ACK_TPCC_BASELINE, k[0] the warehouse, amount in cents), read by the cli's shared_open;
     * owned (malloc'd), freed by its shared_free. */
    struct dg_ack *baseline;
    size_t nbaseline;
    /* The first target's state only: every target's baseline together, their target index
     * set, handed to the run's facts (dg_run_facts.acks); owned, freed by shared_free. */
    struct dg_ack *run_baseline;
};

/* --- random.c: generators of clause 2.1.6 and 4.3 --- */
int tpcc_nurand(struct dg_rng *r, int a, int c, int x, int y);
/* Writes the syllable name of num (0..999) into out (>= 16 bytes), returns its length. */
int tpcc_last_name(int num, char *out);
/* Random a-string / n-string with length in [lo, hi]; out must hold hi bytes; returns length. */
int tpcc_astring(struct dg_rng *r, char *out, int lo, int hi);
int tpcc_nstring(struct dg_rng *r, char *out, int lo, int hi);
/* 4 random digits then "11111" (9 bytes, no terminator). */
void tpcc_zip(struct dg_rng *r, char *out);
/* Data string [26..50] with "ORIGINAL" placed at a random position in 10% of calls. */
int tpcc_data_original(struct dg_rng *r, char *out, int *has_original);
/* Shuffles a fresh 23-card deck (types) into deck. */
void tpcc_deck_shuffle(struct dg_rng *r, uint8_t deck[TPCC_DECK]);
/* A run-time C for C_LAST whose distance from the load-time one is valid (clause 2.1.6.1). */
int tpcc_c_last_run(struct dg_rng *r, int c_load);

/* --- schema.c --- */
int tpcc_schema_create(struct dg_conn_h *h, struct dg_err *err);
int tpcc_schema_drop(struct dg_conn_h *h, struct dg_err *err);
/* Statements that build keys and indexes after the data, NULL-terminated. */
const char *const *tpcc_schema_index_sql(enum dg_dialect d);
/* CREATE TABLE i (0.., then dbgauge_tpcc_meta and dbgauge_tpcc_load) of dialect d into out; -1
 * past the end. */
int tpcc_schema_sql(enum dg_dialect d, int i, char *out, size_t cap);
/* dialect.c: prints every SQL text of dialect d, for review (dbgauge tpcc sql, tests/golden). */
int tpcc_dump_sql(enum dg_dialect d, FILE *out);
/* The statement that refreshes the optimizer's statistics after a load. */
const char *tpcc_analyze_sql(enum dg_dialect d);
/* The same for TPC-C table i alone (so tables can be analyzed in parallel); -1 past the end or
 * where the engine only analyzes everything at once (then tpcc_analyze_sql). */
int tpcc_analyze_table_sql(enum dg_dialect d, int i, char *out, size_t cap);
int tpcc_meta_write(struct dg_conn_h *h, const struct tpcc_nurand *c_load, int warehouses,
                    struct dg_err *err);
/* Reads the load-time constants; returns 1 if found, 0 if the table is absent (other kit). */
int tpcc_meta_read(struct dg_conn_h *h, struct tpcc_nurand *c_load, struct dg_err *err);
/* load.c: 1 when h's database holds a dbgauge load that did not finish (its plan row is there,
 * its constants row is not: call where tpcc_meta_read found none), with what it lacks in why;
 * 0 for any other database (another kit's load, none, or one that cannot be read). */
int tpcc_load_unfinished(struct dg_conn_h *h, char *why, size_t n);
/* Counts warehouses and checks the nine tables exist: DG_ERR_USER naming what is missing. */
int tpcc_schema_probe(struct dg_conn_h *h, int *warehouses, struct dg_err *err);

/* --- procedures.c: server-side transactions for --mode procedures --- */
/* Installs the stored procedures if the target lacks them (DG_ERR_USER where the engine has
 * none). Called by load and, before measuring, by run. */
int tpcc_procedures_ensure(struct dg_conn_h *h, struct dg_err *err);
int tpcc_procedures_install(struct dg_conn_h *h, struct dg_err *err);

/* --- load.c --- */
struct tpcc_load_progress {
    int warehouses_done, warehouses;
    uint64_t rows;
    uint64_t bytes;
    double elapsed_s;
    uint64_t rows_expected; /* what this load adds in all (its units' rows), for an ETA */
};
typedef void (*tpcc_progress_fn)(void *ctx, const struct tpcc_load_progress *p);
struct tpcc_load_opts {
    const struct dg_target *target;
    int warehouses;
    int jobs;
    int drop;
    /* Finish an interrupted load: the warehouses and seed come from its plan (given ones must
     * agree: warehouses_set, seed_set), units already committed are not loaded again. */
    int resume, warehouses_set, seed_set;
    uint64_t seed;
    tpcc_progress_fn progress; /* called from the loading threads, serialised */
    void *progress_ctx;
    /* NULL, or several processes loading together (mpirun): rank 0 makes the schema, ITEM,
     * the keys and indexes; each rank loads its own warehouses, [W*r/N + 1, W*(r+1)/N]. */
    const struct dg_wl_ranks *ranks;
};
struct tpcc_load_result {
    uint64_t rows, bytes;
    double seconds, data_seconds, index_seconds;
    int jobs_used;
    struct dg_server_info settings; /* what the load session ran with (the driver's load_mode) */
    int warehouses;            /* of the load (the plan's on --resume) */
    uint64_t seed;
    int already_complete;      /* --resume found nothing left to do */
    int warehouses_skipped;    /* --resume: complete before this load started */
    /* After a failure or an interruption: the warehouses known complete ("1-3, 5"), and how
     * many (this process's count, with those complete before it started). */
    int warehouses_complete;
    char complete[200];
};
int tpcc_load(const struct tpcc_load_opts *o, struct tpcc_load_result *res, struct dg_err *err);

/* --- check.c --- */
struct tpcc_check_item {
    char name[16];       /* "CC1", "card.stock", ... */
    char what[120];      /* what it asserts */
    int applicable;      /* 0: not applicable here (e.g. CC11 after deliveries) */
    int pass;
    char detail[200];    /* first offending row or counts */
};
#define TPCC_MAX_CHECKS 24
struct tpcc_check_result {
    int warehouses;
    int n;
    int failed;
    struct tpcc_check_item items[TPCC_MAX_CHECKS];
};
int tpcc_check(struct dg_conn_h *h, struct tpcc_check_result *res, struct dg_err *err);

/* --- hash.c: the content of the nine tables as one number (tpcc check --hash) --- */
struct tpcc_hash {
    uint64_t all, rows;
    int ntables;
    uint64_t table[9];
    const char *table_name[9];
};
int tpcc_content_hash(struct dg_conn_h *h, struct tpcc_hash *res, struct dg_err *err);

/* --- audit.c: the durability audit (clause 3.5) of a run's acknowledged writes --- */
/* SUM(h_amount) per warehouse in cents into cents[w - 1] for w in 1..nw (others 0; rows of
 * other warehouses ignored). Exact on every engine: each amount is rounded to cents first. */
int tpcc_history_sums(struct dg_conn_h *h, int64_t *cents, int nw, struct dg_err *err);

#define TPCC_AUDIT_KEYS 20 /* lost keys named */
/* One New-Order the audit did not find whole. */
struct tpcc_audit_lost {
    int target;
    uint32_t w, d, o_id;
    int lines_acked, lines_found; /* lines_found -1: no order row */
    int64_t t_ms;
    int in_doubt;                 /* in doubt, and found torn (an order without all its lines) */
};
/* One warehouse's Payments: history now minus before the run, against what was acknowledged. */
struct tpcc_audit_wh {
    int target;
    uint32_t w;
    int has_baseline;
    int64_t baseline, now, acked, in_doubt; /* cents */
};
struct tpcc_audit {
    /* New-Orders: acknowledged = found + lost; in doubt apart (in_doubt_no_key: the server
     * gave the order its id and the answer was lost, so there is nothing to look for). */
    uint64_t acknowledged, found, lost, in_doubt, in_doubt_found, in_doubt_no_key;
    int64_t lost_first_ms, lost_last_ms; /* the span the lost ones cover (t_ms) */
    int nkeys;                           /* lost keys named, in key order */
    struct tpcc_audit_lost keys[TPCC_AUDIT_KEYS];
    uint64_t payments, payments_in_doubt;
    struct tpcc_audit_wh *wh; /* owned: tpcc_audit_free */
    int nwh;
};
/* Checks the acks of target (those with .target == target) on h, adding to *res (zero it
 * before the first target). Range queries per district, one history query. Returns 0, or -1
 * with err (res keeps what was added). */
int tpcc_audit_check(struct dg_conn_h *h, int target, const struct dg_ack *acks, size_t n,
                     struct tpcc_audit *res, struct dg_err *err);
/* A warehouse's verdict: 0 as acknowledged (within what was in doubt), -1 money lost (less than
 * acknowledged), 1 more than dbgauge wrote (another run since?), 2 no baseline (not judged). */
int tpcc_audit_wh_verdict(const struct tpcc_audit_wh *w);
/* Lost New-Orders or lost money: the audit fails. */
int tpcc_audit_failed(const struct tpcc_audit *res);
void tpcc_audit_free(struct tpcc_audit *res);
/* audit_cli.c: the `tpcc audit RUN` action (struct dg_wl_sub.action). */
struct dg_wl_act;
int tpcc_act_audit(const struct dg_wl_act *a, struct dg_err *err);
/* The run life's audit hook (struct dg_wl_cli.audit): every target's acks on h[0..n). */
int tpcc_audit_after(struct dg_conn_h *h, int n, const struct dg_ack *acks, size_t nacks,
                     struct dg_audit_summary *out, struct dg_err *err);

#endif
