/* compat.h — until the driver wrappers land (branch wt-drivers: core/driver.h gains the
 * dg_* calls and includes core/dialect.h), the few of them oltp uses, same names and
 * signatures. Once driver.h has them (DG_DIALECT_H defined) this is empty: delete it then.
 * The only place in src/workloads/oltp/ that touches a driver slot. */
#ifndef DG_OLTP_COMPAT_H
#define DG_OLTP_COMPAT_H

#include "core/driver.h"

#ifndef DG_DIALECT_H
static inline int dg_exec(const struct dg_conn_h *h, const char *sql, struct dg_err *err)
{
    return h->drv->exec(h->c, sql, err);
}
static inline int dg_prepare(const struct dg_conn_h *h, const char *sql, int nparams, struct dg_stmt **out,
                             struct dg_err *err)
{
    return h->drv->prepare(h->c, sql, nparams, out, err);
}
static inline void dg_finalize(const struct dg_conn_h *h, struct dg_stmt *s)
{
    if (s)
        h->drv->finalize(s);
}
static inline int dg_execute(const struct dg_conn_h *h, struct dg_stmt *s, const struct dg_value *params,
                             struct dg_err *err)
{
    return h->drv->execute(s, params, err);
}
static inline int dg_next_row(const struct dg_conn_h *h, struct dg_stmt *s, struct dg_err *err)
{
    return h->drv->next_row(s, err);
}
static inline const char *dg_col_text(const struct dg_conn_h *h, struct dg_stmt *s, int i, size_t *len)
{
    return h->drv->col_text(s, i, len);
}
static inline int dg_begin(const struct dg_conn_h *h, enum dg_isolation iso, int write, struct dg_err *err)
{
    return h->drv->begin(h->c, iso, write, err);
}
static inline int dg_commit(const struct dg_conn_h *h, struct dg_err *err) { return h->drv->commit(h->c, err); }
static inline int dg_rollback(const struct dg_conn_h *h, struct dg_err *err)
{
    return h->drv->rollback(h->c, err);
}
static inline int dg_bulk_begin(const struct dg_conn_h *h, const char *table, const char *const *cols, int ncols,
                                struct dg_bulk **out, struct dg_err *err)
{
    return h->drv->bulk_begin(h->c, table, cols, ncols, out, err);
}
static inline int dg_bulk_row(const struct dg_conn_h *h, struct dg_bulk *b, const struct dg_value *vals,
                              struct dg_err *err)
{
    return h->drv->bulk_row(b, vals, err);
}
static inline int dg_bulk_end(const struct dg_conn_h *h, struct dg_bulk *b, struct dg_err *err)
{
    return h->drv->bulk_end(b, err);
}
static inline int dg_load_mode(const struct dg_conn_h *h, int on, struct dg_err *err)
{
    return h->drv->load_mode ? h->drv->load_mode(h->c, on, err) : 0;
}
#endif

#endif
