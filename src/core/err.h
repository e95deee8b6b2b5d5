/* err.h — the one error record every layer fills, and the classes the core acts on.
 * Pure data: no engine header, no allocation. */
#ifndef DG_ERR_H
#define DG_ERR_H

#include <stdarg.h>

enum dg_err_class {
    DG_OK = 0,
    DG_ERR_RETRY,    /* deadlock, serialization failure, SQLite busy: run it again, same inputs */
    DG_ERR_EXPECTED, /* a rollback the workload asked for (TPC-C's 1% New-Order) */
    DG_ERR_CONN,     /* connection lost: reconnect and count */
    DG_ERR_USER,     /* bad SQL, bad option, missing table: stop before measuring */
    DG_ERR_FATAL,    /* everything else */
};

struct dg_err {
    enum dg_err_class cls;
    int code;          /* the engine's native code, 0 if none */
    char sqlstate[6];  /* SQLSTATE where the engine has one, "" otherwise */
    char msg[480];
};

/* Fills err (class, code, printf-style message) and returns -1, so callers can
 * `return dg_err_set(err, ...)`. err may be NULL. */
int dg_err_set(struct dg_err *err, enum dg_err_class cls, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void dg_err_clear(struct dg_err *err);
const char *dg_err_class_name(enum dg_err_class cls);

#endif
