/* dialect.c — turns a TPC-C statement written once (PostgreSQL-like: "%L" for the row lock,
 * LIMIT 1, UPDATE ... RETURNING) into the text of one dialect, by the facts of core/dialect.h.
 * Small rewrites only; a statement that does not fit them must be written per dialect where
 * it is defined. */
#include <stdio.h>
#include <string.h>

#include "workloads/tpcc/tpcc_internal.h"

/* Inserts s at position at of buf (NUL-terminated, capacity cap); 0, or -1 if it does not fit. */
static int insert_at(char *buf, size_t cap, size_t at, const char *s)
{
    size_t n = strlen(s), len = strlen(buf);
    if (len + n + 1 > cap)
        return -1;
    memmove(buf + at + n, buf + at, len - at + 1);
    memcpy(buf + at, s, n);
    return 0;
}

/* A table lock hint (T-SQL): "... FROM t WHERE" + lock becomes "FROM t WITH (UPDLOCK, ROWLOCK) WHERE". */
static int lock_hint(char *buf, size_t cap, const char *hint)
{
    char *from = strstr(buf, " FROM ");
    if (!from)
        return -1;
    char *name = from + 6;
    return insert_at(buf, cap, (size_t)(name - buf) + strcspn(name, " "), hint);
}

/* TOP (T-SQL): "SELECT ... LIMIT 1" becomes "SELECT TOP (1) ...". */
static int limit_top(char *buf, size_t cap)
{
    char *lim = strstr(buf, " LIMIT 1");
    if (!lim)
        return 0;
    memmove(lim, lim + 8, strlen(lim + 8) + 1);
    if (strncmp(buf, "SELECT ", 7) != 0)
        return -1;
    return insert_at(buf, cap, 7, "TOP (1) ");
}

/* OUTPUT (T-SQL): "UPDATE t SET ... WHERE ... RETURNING a, b - 1" becomes
 * "UPDATE t SET ... OUTPUT inserted.a, inserted.b - 1 WHERE ...". */
static int returning_output(char *buf, size_t cap)
{
    char *ret = strstr(buf, " RETURNING ");
    if (!ret)
        return 0;
    char out[512];
    size_t o = (size_t)snprintf(out, sizeof out, " OUTPUT");
    for (const char *p = ret + 11; *p && o + 16 < sizeof out;) {
        size_t n = strcspn(p, ",");
        o += (size_t)snprintf(out + o, sizeof out - o, "%s inserted.%.*s", o > 7 ? "," : "", (int)n, p);
        p += n;
        if (*p == ',')
            p++;
        p += strspn(p, " ");
    }
    *ret = '\0';
    char *where = strstr(buf, " WHERE ");
    if (!where || o + 16 >= sizeof out)
        return -1;
    return insert_at(buf, cap, (size_t)(where - buf), out);
}

int tpcc_dialect_sql(enum dg_dialect d, const char *in, char *out, size_t cap)
{
    const struct dg_dialect_desc *dd = dg_dialect(d);
    const char *lock = dd->row_lock;
    int has_lock = 0;
    size_t o = 0;
    for (const char *p = in; *p; p++) {
        if (o + 1 >= cap)
            return -1;
        if (p[0] == '%' && p[1] == 'L') {
            has_lock = 1;
            for (const char *l = lock; *l && o + 1 < cap; l++)
                out[o++] = *l;
            p++;
        } else {
            out[o++] = *p;
        }
    }
    out[o] = '\0';
    if ((has_lock && dd->table_lock_hint && lock_hint(out, cap, dd->table_lock_hint)) ||
        (dd->limit == DG_LIMIT_TOP && limit_top(out, cap)) ||
        (dd->returning == DG_RETURNING_OUTPUT && returning_output(out, cap)))
        return -1;
    return 0;
}

/* Every SQL text TPC-C sends in dialect d, for review and golden files: tables, keys and
 * indexes, the SQL-mode statements, the procedures and their calls. */
int tpcc_dump_sql(enum dg_dialect d, FILE *out)
{
    char sql[2048];
    const char *go = dg_dialect(d)->batch_separator ? dg_dialect(d)->batch_separator : "";
    fprintf(out, "-- dbgauge TPC-C SQL, dialect %d\n\n-- tables\n", (int)d);
    for (int i = 0; tpcc_schema_sql(d, i, sql, sizeof sql) >= 0; i++)
        fprintf(out, "%s;\n", sql);
    fprintf(out, "\n-- keys and indexes (after the data)\n");
    for (const char *const *p = tpcc_schema_index_sql(d); *p; p++)
        fprintf(out, "%s;\n", *p);
    fprintf(out, "%s;\n\n-- SQL mode statements\n", tpcc_analyze_sql(d));
    for (int i = 0; tpcc_txn_sql(d, i, sql, sizeof sql) == 0; i++)
        fprintf(out, "%s;\n", sql);
    const struct tpcc_proc_dialect *pd = tpcc_proc_dialect(d);
    if (!pd) {
        fprintf(out, "\n-- no procedures mode\n");
        return 0;
    }
    fprintf(out, "\n-- procedures (one batch each)\n");
    for (const char *const *p = pd->install; p && *p; p++)
        fprintf(out, "%s\n%s\n", *p, go);
    if (pd->version_fmt)
        fprintf(out, pd->version_fmt, 2);
    fprintf(out, "\n%s\n\n-- calls\n", go);
    for (int i = 0; i < 5; i++)
        fprintf(out, "%s;\n", pd->calls[i]);
    for (int i = 1; i <= DG_ISO_SERIALIZABLE; i++)
        fprintf(out, "%s;\n", pd->iso_sql[i]);
    return 0;
}
