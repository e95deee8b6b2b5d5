/* fuzz_sql.c — fuzz target "sql": a statement's text as the drivers rewrite it before the
 * server sees it (a --query or --params-query is the user's): PostgreSQL's `?` to $n outside
 * strings, quoted names, dollar quotes and comments (dg_pg_rewrite_placeholders), and ODBC's
 * comments taken out and `?` numbered for a server-side PREPARE (dg_odbc_strip_comments,
 * dg_odbc_dollars). Checks: each `?` it numbers grows the text by exactly the digits of its
 * number, never more markers than `?`; a text with no quote, comment or '$' has every `?`
 * numbered; stripping comments never lengthens the text. (A driver not built: its part is
 * skipped.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dg_config.h"
#include "harness.h"

/* As drivers/pgsql/internal.h and drivers/odbc/internal.h declare them (the two headers
 * cannot both be included: each has its own struct dg_conn). */
char *dg_pg_rewrite_placeholders(const char *sql, int *n);
void dg_odbc_strip_comments(const char *sql, char *out);
char *dg_odbc_dollars(const char *sql, int *n);

/* The length "$1".."$n" adds over n '?' bytes: the digits of 1..n. */
static size_t digits_upto(int n)
{
    size_t sum = 0;
    for (int i = 1; i <= n; i++)
        for (int v = i; v > 0; v /= 10)
            sum++;
    return sum;
}

/* out came from in with n markers numbered: lengths and counts agree. */
static void check_numbered(const char *what, const char *in, const char *out, int n)
{
    size_t q = 0;
    for (const char *p = in; *p; p++)
        q += *p == '?';
    if (n < 0 || (size_t)n > q)
        dg_fuzz_fail("%s: %d markers numbered out of %zu '?'", what, n, q);
    if (strlen(out) != strlen(in) + digits_upto(n))
        dg_fuzz_fail("%s: %zu bytes out of %zu with %d markers", what, strlen(out), strlen(in), n);
    if (!strpbrk(in, "'\"-/$") && (size_t)n != q)
        dg_fuzz_fail("%s: %d of %zu plain markers numbered", what, n, q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dg_fuzz_broken("sql", data, size);
    char *sql = dg_fuzz_str(data, size);
    int n = 0;
    (void)n;
    (void)check_numbered;
#if DG_HAVE_PGSQL
    char *pg = dg_pg_rewrite_placeholders(sql, &n);
    if (!pg)
        dg_fuzz_fail("out of memory");
    check_numbered("pgsql", sql, pg, n);
    free(pg);
#endif
#if DG_HAVE_ODBC
    char *stripped = malloc(strlen(sql) + 1);
    if (!stripped)
        dg_fuzz_fail("out of memory");
    dg_odbc_strip_comments(sql, stripped);
    if (strlen(stripped) > strlen(sql))
        dg_fuzz_fail("odbc: comments stripped, %zu bytes became %zu", strlen(sql), strlen(stripped));
    char *dollars = dg_odbc_dollars(stripped, &n);
    if (!dollars)
        dg_fuzz_fail("out of memory");
    check_numbered("odbc", stripped, dollars, n);
    free(dollars);
    free(stripped);
#endif
    free(sql);
    return 0;
}
