/* stress.h — query stress (as SQLQueryStress does it): every iteration runs one query and
 * fetches every row, counting rows and bytes; parameters cycle through the rows of a
 * parameter query. Also the built-in data set for the 1M-row read test. Speaks SQL through the
 * driver API only; knows nothing of threads or time. */
#ifndef DG_STRESS_H
#define DG_STRESS_H

#include <stdint.h>

#include "core/driver.h"
#include "core/workload.h"

#define STRESS_TABLE "dbgauge_stress"
#define STRESS_MAX_PARAMS 16

extern const struct dg_workload stress_workload;

/* Read-only during a run. */
struct stress_shared {
    const char *query;
    int nparams;             /* placeholders in the query = columns of the parameter query */
    int nparam_rows;
    char **param_text;       /* nparam_rows x nparams values, as text; NULL = SQL NULL */
};

/* Runs the parameter query once (params_sql NULL: none) and checks the query before any
 * timing: it must prepare with that many parameters. DG_ERR_USER with the
 * engine's message otherwise. sh->param_text is allocated; free with stress_shared_free. */
int stress_setup(struct dg_conn_h *h, const char *query, const char *params_sql,
                 struct stress_shared *sh, struct dg_err *err);
void stress_shared_free(struct stress_shared *sh);

/* The built-in table: rows of about row_bytes bytes of values. */
int stress_prepare(struct dg_conn_h *h, int64_t rows, int row_bytes, int drop, struct dg_err *err);
int stress_drop(struct dg_conn_h *h, struct dg_err *err);
/* The default query: every row of the built-in table. */
#define STRESS_DEFAULT_QUERY "SELECT * FROM " STRESS_TABLE

/* Server-side block counters where the engine tells them (PostgreSQL pg_stat_database):
 * returns 1 and fills hit/read, or 0 when the engine has none. */
int stress_server_blocks(struct dg_conn_h *h, int64_t *hit, int64_t *read, struct dg_err *err);

#endif
