/* conformance.h — what the files of the driver conformance suite share: the suite record,
 * the `ok` / `not ok` / `skip` reporting, and helpers over the driver API (typed rows, counts).
 * Test code only; no engine header, nothing past the driver API. */
#ifndef DG_TEST_CONFORMANCE_H
#define DG_TEST_CONFORMANCE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/driver.h"

struct suite {
    int passed, failed, skipped;
    struct dg_target tgt;
    const struct dg_driver *drv;
    enum dg_dialect dialect; /* of the connection (ODBC: the engine behind it) */
    struct dg_conn_h a, b; /* two connections to the same target */
};


void ok(struct suite *t, const char *name);
__attribute__((format(printf, 3, 4))) void not_ok(struct suite *t, const char *name, const char *fmt, ...);
void skip(struct suite *t, const char *name, const char *why);
/* 1 when cond holds; otherwise reports name as failed with err's text. */
int check(struct suite *t, const char *name, int cond, const struct dg_err *err);
double now_s(clockid_t id);
int xexec(struct dg_conn_h *h, const char *sql, struct dg_err *err);
/* A query of one integer into *out. */
int count_where(struct dg_conn_h *h, const char *sql, int64_t *out, struct dg_err *err);

/* Column types of the dialect for the typed-row checks. */
struct types {
    const char *i, *d, *t, *m;
};

struct types types_for(enum dg_dialect d);
struct row_want {
    int64_t id;
    struct dg_value i, d, t, m;
};

/* The rows every typed check writes and reads back; *n is their number. */
const struct row_want *wanted_rows(int *n);
/* 1 when table holds exactly w[0..n) in id order; otherwise why says what differs. */
int compare_rows(struct suite *t, struct dg_conn_h *h, const char *table, const struct row_want *w, int n,
                 char *why, size_t whylen, struct dg_err *err);

/* conformance_server.c: the calls beside statements. */
void check_bulk(struct suite *t);
void check_server_info(struct suite *t);
void check_application_name(struct suite *t);
void check_bad_targets(struct suite *t);
void check_monitor_calls(struct suite *t);
void check_load_mode(struct suite *t);
void check_hosts(struct suite *t);
/* conformance_loss.c: killed sessions, a restarted server, in-doubt commits. */
void check_connection_loss(struct suite *t);

#endif
