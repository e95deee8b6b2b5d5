/* errcause.c — what an engine's SQLSTATE or error code says about why a transaction failed for
 * good (drivers/errcause.h). No engine header, no I/O. */
#include "drivers/errcause.h"

#include <string.h>

enum dg_error_cause dg_drv_error_cause_sqlstate(const char *st)
{
    if (!st || strlen(st) != 5)
        return DG_ERROR_OTHER;
    if (!strcmp(st, "57014") || !strcmp(st, "HYT00")) /* query_canceled; ODBC: timeout expired */
        return DG_ERROR_TIMEOUT;
    if (!strcmp(st, "53300")) /* too_many_connections: the server's, the role's or the database's */
        return DG_ERROR_TOO_MANY_CONNECTIONS;
    /* admin_shutdown (also pg_terminate_backend), crash_shutdown, cannot_connect_now,
     * idle_session_timeout (PostgreSQL 14+), idle_in_transaction_session_timeout */
    if (!strcmp(st, "57P01") || !strcmp(st, "57P02") || !strcmp(st, "57P03") || !strcmp(st, "57P05") ||
        !strcmp(st, "25P03"))
        return DG_ERROR_CLOSED_BY_SERVER;
    /* read_only_sql_transaction: a write on a standby, or under default_transaction_read_only */
    if (!strcmp(st, "25006"))
        return DG_ERROR_READ_ONLY;
    if (st[0] == '0' && st[1] == '8') /* connection exception */
        return DG_ERROR_CONNECTION;
    return DG_ERROR_OTHER;
}

enum dg_error_cause dg_drv_error_cause_mysql(unsigned code, const char *msg)
{
    switch (code) {
    case 1290: /* ER_OPTION_PREVENTS_STATEMENT: "running with the --read-only option" (or
                * --super-read-only); other options give it too (--secure-file-priv ...) */
        return msg && (strstr(msg, "read-only") || strstr(msg, "read_only")) ? DG_ERROR_READ_ONLY : DG_ERROR_OTHER;
    case 1836: /* ER_READ_ONLY_MODE: MySQL's "Running in read-only mode" */
    case 1792: /* ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION */
        return DG_ERROR_READ_ONLY;
    case 1969: /* ER_STATEMENT_TIMEOUT: MariaDB's max_statement_time */
    case 3024: /* ER_QUERY_TIMEOUT: MySQL's max_execution_time */
        return DG_ERROR_TIMEOUT;
    case 1040: /* ER_CON_COUNT_ERROR: max_connections */
    case 1203: /* ER_TOO_MANY_USER_CONNECTIONS: the server's max_user_connections */
    case 1226: /* ER_USER_LIMIT_REACHED: the account's MAX_USER_CONNECTIONS */
        return DG_ERROR_TOO_MANY_CONNECTIONS;
    case 4031: /* MySQL 8's ER_CLIENT_INTERACTION_TIMEOUT: an idle session dropped */
    case 1927: /* ER_CONNECTION_KILLED: KILL CONNECTION */
    case 1053: /* ER_SERVER_SHUTDOWN */
        return DG_ERROR_CLOSED_BY_SERVER;
    case 2002: /* CR_CONNECTION_ERROR */
    case 2003: /* CR_CONN_HOST_ERROR */
    case 2006: /* CR_SERVER_GONE_ERROR: the MariaDB driver tells an idle close apart itself */
    case 2013: /* CR_SERVER_LOST */
    case 2055: /* CR_SERVER_LOST_EXTENDED */
        return DG_ERROR_CONNECTION;
    default:
        return DG_ERROR_OTHER;
    }
}

int dg_drv_says_too_many(const char *msg)
{
    /* "sorry, too many clients already", "too many connections for role|database ...",
     * "remaining connection slots are reserved for ..." */
    return msg && (strstr(msg, "too many clients") || strstr(msg, "too many connections") ||
                   strstr(msg, "connection slots are reserved"));
}
