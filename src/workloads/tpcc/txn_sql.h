/* txn_sql.h — the statements of the client-side TPC-C transactions: their ids, texts and
 * parameter counts, shared by txn.c (which prepares and runs them) and txn_sql.c (which holds
 * them). Private to src/workloads/tpcc; nothing here runs SQL. */
#ifndef DG_TPCC_TXN_SQL_H
#define DG_TPCC_TXN_SQL_H

#include <stddef.h>

#include "core/driver.h"

enum tpcc_stmt_id {
    S_NO_WAREHOUSE, S_NO_DISTRICT, S_NO_CUSTOMER, S_NO_ITEM, S_NO_STOCK_UPDATE, S_NO_ORDER,
    S_NO_NEW_ORDER, S_NO_LINE,
    S_PAY_WAREHOUSE, S_PAY_DISTRICT, S_CUST_BY_NAME, S_PAY_CUSTOMER,
    S_PAY_UPDATE, S_PAY_UPDATE_BC, S_PAY_HISTORY,
    S_OS_CUSTOMER, S_OS_ORDER, S_OS_LINES,
    S_DL_NEW_ORDER, S_DL_DELETE, S_DL_ORDER, S_DL_LINES, S_DL_SUM, S_DL_CUSTOMER,
    S_SL_DISTRICT, S_SL_COUNT,
    S_COUNT
};

struct tpcc_stmt_def {
    const char *sql;
    int nparams;
};
/* Texts in dialect-neutral form: "%L" stands for the row-lock clause (tpcc_dialect_sql). */
extern const struct tpcc_stmt_def tpcc_stmt_defs[S_COUNT];

/* Where the dialect has no UPDATE ... RETURNING (DG_RETURNING_NONE: MySQL/MariaDB), the SELECT that returns the
 * same columns after the UPDATE, for statement id. */
struct tpcc_returning_def {
    int id;
    const char *sql;
};
extern const struct tpcc_returning_def tpcc_returning_sql[];
extern const size_t tpcc_nreturning;

#endif
