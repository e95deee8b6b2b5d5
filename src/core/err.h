/* err.h — the one error record every layer fills, and the classes the core acts on.
 * Pure data: no engine header, no allocation. */
#ifndef DG_ERR_H
#define DG_ERR_H

#include <stdarg.h>
#include <stddef.h>

enum dg_err_class {
    DG_OK = 0,
    DG_ERR_RETRY,    /* deadlock, serialization failure, SQLite busy: run it again, same inputs */
    DG_ERR_EXPECTED, /* a rollback the workload asked for (TPC-C's 1% New-Order) */
    DG_ERR_CONN,     /* connection lost: reconnect and count */
    DG_ERR_USER,     /* bad SQL, bad option, missing table: stop before measuring */
    DG_ERR_FATAL,    /* everything else */
};

/* Why a retryable error happened, so a run can say what its retries were. */
enum dg_retry_cause {
    DG_RETRY_OTHER = 0,       /* retryable, cause not told apart */
    DG_RETRY_DEADLOCK,        /* 40P01, MySQL 1213, SQL Server 1205 */
    DG_RETRY_SERIALIZATION,   /* 40001: the transaction could not be serialized */
    DG_RETRY_LOCK_TIMEOUT,    /* MySQL 1205, SQL Server 1222, PostgreSQL 55P03 */
    DG_RETRY_BUSY,            /* SQLite SQLITE_BUSY / SQLITE_LOCKED */
    DG_RETRY_CERTIFICATION,   /* Galera: the cluster's certification aborted it (1213 from wsrep) */
    DG_RETRY_NCAUSES
};

/* Why an error failed its transaction for good, so a run can say what its errors were. Set by
 * the driver that built the error, from the engine's SQLSTATE or code (drivers/errcause.h). */
enum dg_error_cause {
    DG_ERROR_OTHER = 0,           /* none of the below (a lost connection: see dg_err_error_cause) */
    DG_ERROR_CONNECTION,          /* the connection was lost, nothing more specific known */
    DG_ERROR_TIMEOUT,             /* the server cancelled the statement: a statement timeout */
    DG_ERROR_TOO_MANY_CONNECTIONS, /* the server or the user's limit of connections is reached */
    DG_ERROR_CLOSED_BY_SERVER,    /* the server ended the session (idle timeout, shutdown, kill) */
    DG_ERROR_READ_ONLY,           /* the server refused a write: it is read-only (a standby, read_only) */
    DG_ERROR_GAVE_UP,             /* a retryable error still failing after the retry limit */
    DG_ERROR_NCAUSES
};

struct dg_err {
    enum dg_err_class cls;
    enum dg_retry_cause cause; /* meaningful when cls is DG_ERR_RETRY; reset by dg_err_set */
    enum dg_error_cause error_cause; /* the driver's, where it knows; reset by dg_err_set and dg_err_clear */
    /* 1 when the error came after the commit was sent (the connection was lost during COMMIT,
     * or during a call that commits by itself): the transaction may have committed. The
     * runner counts it in doubt and never retries it. Reset by dg_err_set and dg_err_clear. */
    int in_doubt;
    int code;          /* the engine's native code, 0 if none */
    char sqlstate[6];  /* SQLSTATE where the engine has one, "" otherwise */
    char msg[480];
};

/* Fills err (class, code, printf-style message) and returns -1, so callers can
 * `return dg_err_set(err, ...)`. err may be NULL. The message is kept on one line: a control
 * byte (a newline too) that foreign text brought into it is written as \xNN. */
int dg_err_set(struct dg_err *err, enum dg_err_class cls, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void dg_err_clear(struct dg_err *err);

/* Text from outside dbgauge (an option's value, a URL, a job file's line, a server's message)
 * made fit to quote in a one-line message: copied into out (cap > 0 bytes, always
 * NUL-terminated) up to its first line break and at most max bytes of it (0: as many as fit),
 * control bytes and DEL written as \xNN, "..." added where it was cut. s NULL is "". Returns
 * out. */
char *dg_err_text(char *out, size_t cap, const char *s, size_t max);
/* dg_err_text into a buffer living until the end of the enclosing block, for an argument of
 * dg_err_set or a printf: dg_err_set(err, DG_ERR_USER, 0, "--vus: '%s' ...", DG_TEXT(arg)). */
#define DG_TEXT_MAX 200
#define DG_TEXT(s) dg_err_text((char[4 * DG_TEXT_MAX + 8]){0}, 4 * DG_TEXT_MAX + 8, (s), DG_TEXT_MAX)
/* Appends byte ch at out[*o] as a one-line message shows it (a control byte or DEL as \xNN),
 * keeping room for the NUL in cap; *o advances. Returns 0, or -1 (nothing written) when it
 * does not fit. The one escape dg_err_set, dg_err_text and dg_secret_scrub share. */
int dg_err_put_byte(char *out, size_t cap, size_t *o, unsigned char ch);
const char *dg_err_class_name(enum dg_err_class cls);
/* "other", "deadlock", "serialization", "lock_timeout", "busy", "certification": the names
 * stored and printed. */
const char *dg_retry_cause_name(enum dg_retry_cause c);
/* The i-th cause (0 <= i < DG_RETRY_NCAUSES) in the order they are stored and shown:
 * deadlock, serialization, lock_timeout, busy, certification, then other. */
enum dg_retry_cause dg_retry_cause_at(int i);
/* The cause an SQLSTATE names (40P01, 40001, 55P03), else DG_RETRY_OTHER. NULL is OTHER. */
enum dg_retry_cause dg_retry_cause_of_sqlstate(const char *sqlstate);

/* "other", "connection", "timeout", "too_many_connections", "closed_by_server", "read_only",
 * "gave_up": the names stored and printed. */
const char *dg_error_cause_name(enum dg_error_cause c);
/* The i-th cause (0 <= i < DG_ERROR_NCAUSES) in the order they are stored and shown:
 * connection, timeout, too_many_connections, closed_by_server, read_only, gave_up, then other. */
enum dg_error_cause dg_error_cause_at(int i);
/* The cause err is counted under once it failed its transaction for good: gave_up for a
 * retryable error (the runner counts one as an error only when its retries are used up; what
 * the engine said stays in its retry cause and message), else the driver's, or connection for a
 * lost connection the driver said no more about. Never out of range. */
static inline enum dg_error_cause dg_err_error_cause(const struct dg_err *err)
{
    if (err->cls == DG_ERR_RETRY)
        return DG_ERROR_GAVE_UP;
    enum dg_error_cause c = err->error_cause;
    if (c <= DG_ERROR_OTHER || c >= DG_ERROR_NCAUSES)
        return err->cls == DG_ERR_CONN ? DG_ERROR_CONNECTION : DG_ERROR_OTHER;
    return c;
}

#endif
