/* tpcc_internal.h — what the TPC-C files share among themselves: the terminal record and
 * the per-connection statement set. Not for use outside src/workloads/tpcc/. */
#ifndef DG_TPCC_INTERNAL_H
#define DG_TPCC_INTERNAL_H

#include "workloads/tpcc/tpcc.h"

/* One emulated terminal: a plain value the runner may copy to retry with the same inputs. */
struct tpcc_term {
    struct dg_rng rng;
    int w_id;    /* home warehouse */
    int sl_d_id; /* Stock-Level's fixed district (clause 2.8.1) */
    uint8_t deck[TPCC_DECK];
    uint8_t deck_pos;
    /* Outputs of the last transaction, kept so they are computed for real. */
    double last_total;
    int last_count;
    uint64_t skipped_deliveries;
};

/* The write the last transaction made, for the audit (struct dg_workload.take_ack): filled
 * before its COMMIT is sent, so a transaction left in doubt still has its keys. */
struct tpcc_ack {
    int has;
    struct dg_ack a; /* kind, k, count, amount: the workload's; the runner sets the rest */
};

struct tpcc_no_input {
    int d_id, c_id, ol_cnt, rollback, all_local;
    int i_id[15], supply_w[15], qty[15];
};

/* dialect.c: in (written with "%L" for the row lock, LIMIT 1, RETURNING) in dialect d. */
int tpcc_dialect_sql(enum dg_dialect d, const char *in, char *out, size_t cap);
/* txn.c: statement i (0.. until it returns -1) of the SQL mode, in dialect d. */
int tpcc_txn_sql(enum dg_dialect d, int i, char *out, size_t cap);

struct tpcc_worker;
int tpcc_sql_worker_open(const struct tpcc_shared *sh, struct dg_conn_h *h, struct tpcc_worker **out,
                         struct dg_err *err);
void tpcc_sql_worker_close(struct tpcc_worker *w);
/* Runs one transaction of type; a New-Order or Payment that reaches its COMMIT fills *ack. */
int tpcc_sql_run(struct tpcc_worker *w, struct tpcc_term *t, int type, struct tpcc_ack *ack, struct dg_err *err);
/* Procedures mode: one call per transaction, the same inputs as the SQL mode. */
struct tpcc_proc_worker;
int tpcc_proc_worker_open(const struct tpcc_shared *sh, struct dg_conn_h *h,
                          struct tpcc_proc_worker **out, struct dg_err *err);
void tpcc_proc_worker_close(struct tpcc_proc_worker *w);
int tpcc_proc_run(struct tpcc_proc_worker *w, struct tpcc_term *t, int type, struct tpcc_ack *ack,
                  struct dg_err *err);
/* The acks of the two audited transactions (txn.c): a New-Order of ol_cnt lines by customer
 * c_id (kept as the ack's amount, so the audit tells an order from another that took its
 * o_id after it was lost; o_id 0 when the server assigns it unseen), a Payment of amount_cents by customer c_id (0: not known). */
void tpcc_ack_new_order(struct tpcc_ack *ack, int w_id, int d_id, int o_id, int ol_cnt, int c_id);
void tpcc_ack_payment(struct tpcc_ack *ack, int w_id, int d_id, int c_id, int64_t amount_cents);
/* procedures_mysql.c: the MySQL/MariaDB procedures (same parameters as the PostgreSQL ones)
 * and their CALL texts, in the order New-Order, Payment, Order-Status, Delivery, Stock-Level. */
int tpcc_mysql_procedures_install(struct dg_conn_h *h, int version, struct dg_err *err);
extern const char *const tpcc_mysql_call_sql[5];
/* What differs per engine in procedures mode: the texts that install the five transactions
 * (each one statement batch), the version marker, the five calls (New-Order, Payment,
 * Order-Status, Delivery, Stock-Level; parameters as procedures.c binds them), the session's
 * isolation statements, and the native code of New-Order's unused item (0: by SQLSTATE). */
struct tpcc_proc_dialect {
    const char *const *install;
    /* Instead of install and version_fmt: installs everything, the version marker included. */
    int (*install_fn)(struct dg_conn_h *h, int version, struct dg_err *err);
    const char *version_fmt; /* printf with the version number */
    const char *version_query;
    const char *const *calls; /* 5 */
    const char *iso_sql[DG_ISO_SERIALIZABLE + 1];
    int bad_item_code;
};
extern const struct tpcc_proc_dialect tpcc_proc_mssql;
/* The procedures of dialect d, NULL where the engine has none here. */
const struct tpcc_proc_dialect *tpcc_proc_dialect(enum dg_dialect d);

/* Payment's (2.5.1) and Order-Status's (2.6.1) inputs. c_last_len > 0: select the customer
 * by the last name in c_last (c_id is then 0); otherwise by c_id. */
struct tpcc_pay_input {
    int d_id, c_w, c_d, c_id;
    int64_t amount_cents;
    char c_last[16];
    int c_last_len;
};
struct tpcc_os_input {
    int d_id, c_id;
    char c_last[16];
    int c_last_len;
};

/* Draws New-Order's inputs (clause 2.4.1) from the terminal. */
int tpcc_new_order_inputs(const struct tpcc_shared *sh, struct tpcc_term *t, struct tpcc_no_input *in);
/* Sorts the lines by item id, the order in which stock rows are locked (no deadlocks). */
void tpcc_new_order_sort(struct tpcc_no_input *in);
void tpcc_payment_inputs(const struct tpcc_shared *sh, struct tpcc_term *t, struct tpcc_pay_input *in);
void tpcc_order_status_inputs(const struct tpcc_shared *sh, struct tpcc_term *t,
                              struct tpcc_os_input *in);

#endif
