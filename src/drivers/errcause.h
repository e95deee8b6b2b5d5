/* errcause.h — the causes of errors that fail a transaction for good (core/err.h's enum
 * dg_error_cause), from what the engines say: an SQLSTATE (PostgreSQL, ODBC) or a MariaDB/MySQL
 * error code (the native driver, and ODBC drivers of that family). Shared by the drivers; pure
 * functions, no engine header: the codes are written as numbers, each named where it is used. */
#ifndef DG_DRIVERS_ERRCAUSE_H
#define DG_DRIVERS_ERRCAUSE_H

#include "core/err.h"

/* 57014 timeout; 53300 too many connections; 57P01, 57P02, 57P03, 57P05, 25P03 closed by the
 * server; 25006 read-only; class 08 connection; HYT00 (ODBC's statement timeout) timeout; else
 * (NULL too) other. */
enum dg_error_cause dg_drv_error_cause_sqlstate(const char *sqlstate);
/* 1969, 3024 timeout; 1040, 1203, 1226 too many connections; 4031, 1927, 1053 closed by the
 * server; 1836, 1792, and 1290 when msg (the server's message, NULL: none) names read-only or
 * read_only, read-only; 2002, 2003, 2006, 2013, 2055 connection; else other. */
enum dg_error_cause dg_drv_error_cause_mysql(unsigned code, const char *msg);
/* Whether a message that came without an SQLSTATE (libpq's, when a connection is refused)
 * says that a limit of connections was reached: PostgreSQL's words for its 53300, in English. */
int dg_drv_says_too_many(const char *msg);

#endif
