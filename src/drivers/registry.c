/* registry.c — the drivers built into this binary, chosen at build time. The one table. */
#include "dg_config.h"
#include "core/driver.h"

extern const struct dg_driver dg_driver_sqlite;
extern const struct dg_driver dg_driver_null;
#if DG_HAVE_PGSQL
extern const struct dg_driver dg_driver_pgsql;
#endif
#if DG_HAVE_MYSQL
extern const struct dg_driver dg_driver_mysql;
#endif
#if DG_HAVE_ODBC
extern const struct dg_driver dg_driver_odbc;
#endif

const struct dg_driver *const dg_drivers[] = {
    &dg_driver_sqlite,
#if DG_HAVE_PGSQL
    &dg_driver_pgsql,
#endif
#if DG_HAVE_MYSQL
    &dg_driver_mysql,
#endif
#if DG_HAVE_ODBC
    &dg_driver_odbc,
#endif
    &dg_driver_null,
    NULL,
};
