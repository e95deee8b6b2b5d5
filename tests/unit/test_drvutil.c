/* test_drvutil.c — unit tests of the helpers every driver shares from core/: exact decimal
 * text (numtext), buffer growth (buf), URL query pairs (urlq), the bulk INSERT text of one
 * row and of many (sqltext) and the statement list (list); and the causes of errors that
 * failed for good, from an SQLSTATE or a MariaDB/MySQL code (drivers/errcause.h), with
 * their stored names. Pure functions; no database. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/driver.h"
#include "core/list.h"
#include "core/numtext.h"
#include "core/sqltext.h"
#include "core/urlq.h"
#include "drivers/errcause.h"
#include "check.h"

static void dec(struct dg_test *t, int64_t v, int scale, const char *want)
{
    char out[DG_DEC_TEXT_MAX], name[160];
    size_t n = dg_dec_text(out, v, scale);
    snprintf(name, sizeof name, "dec text: %lld scale %d is '%s'", (long long)v, scale, want);
    CHECK(t, n == strlen(want) && !strcmp(out, want), name, "got '%s' (%zu)", out, n);
}

static void numtext(struct dg_test *t)
{
    dec(t, 1250, 2, "12.50");
    dec(t, -5, 2, "-0.05");
    dec(t, 0, 2, "0.00");
    dec(t, 7, 0, "7");
    dec(t, 12, -2, "1200");
    dec(t, 0, -2, "0");
    dec(t, INT64_MIN, 4, "-922337203685477.5808");
    dec(t, INT64_MAX, 30, "0.000000000009223372036854775807");
    dec(t, -INT64_MAX, -30, "-9223372036854775807000000000000000000000000000000");
    char out[DG_DEC_TEXT_MAX] = "x";
    CHECK(t, dg_dec_text(out, 1, 31) == 0 && !out[0] && dg_dec_text(out, 1, -31) == 0,
          "dec text: a scale beyond 30 is refused (0, \"\")", "'%s'", out);
    size_t n = dg_i64_text(out, INT64_MIN);
    out[n] = '\0';
    CHECK(t, !strcmp(out, "-9223372036854775808"), "i64 text of INT64_MIN", "'%s'", out);
}

static void buf(struct dg_test *t)
{
    char *b = NULL;
    size_t cap = 0;
    int ok = dg_buf_reserve(&b, &cap, 10) == 0 && cap == 256 && b;
    if (ok)
        memcpy(b, "kept", 5);
    ok = ok && dg_buf_reserve(&b, &cap, 1000) == 0 && cap == 1024 && !strcmp(b, "kept");
    ok = ok && dg_buf_reserve(&b, &cap, 5) == 0 && cap == 1024;
    CHECK(t, ok, "buf: grows by doubling from 256, keeps its contents, never shrinks", "cap %zu", cap);
    free(b);
}

static void urlq(struct dg_test *t)
{
    const char *q = dg_urlq_of("sqlite:x.db?journal=wal&&busy=5&flag&");
    struct dg_urlq_pair kv[8];
    int n = 0;
    while (n < 8 && dg_urlq_next(&q, "", &kv[n]))
        n++;
    CHECK(t, n == 4 && dg_urlq_key_is(&kv[0], "journal") && kv[0].vlen == 3 && !strncmp(kv[0].val, "wal", 3) &&
                 kv[1].len == 0 && kv[1].val == NULL && dg_urlq_key_is(&kv[2], "busy") &&
                 dg_urlq_key_is(&kv[3], "flag") && kv[3].val == NULL,
          "urlq: pairs in order, empty and value-less pairs kept, a trailing '&' ends", "n=%d", n);
    q = dg_urlq_of("mysql://u@h/db?load=infile#frag&x=1");
    n = 0;
    while (n < 8 && dg_urlq_next(&q, "#", &kv[n]))
        n++;
    CHECK(t, n == 1 && kv[0].len == 11 && !strncmp(kv[0].text, "load=infile", 11),
          "urlq: '#' ends the query when asked", "n=%d", n);
    CHECK(t, dg_urlq_of("sqlite:x.db") == NULL && !dg_urlq_next(&(const char *){NULL}, "", &kv[0]),
          "urlq: no '?' means no pairs", "it does not");
}

/* The host list of one target: parts in order, ports, IPv6, and each bad part named. */
static void url_hosts(struct dg_test *t)
{
    struct dg_url_host h[DG_URL_MAX_HOSTS];
    struct dg_err err = {0};
    const char *u = "postgresql://u:p@ss@h1:5432,h2:6543,[::1]:7,h4/db?target_session_attrs=read-write";
    int n = dg_url_hosts(u, "shown", h, DG_URL_MAX_HOSTS, &err);
    CHECK(t, n == 4 && h[0].hlen == 2 && !strncmp(h[0].host, "h1", 2) && h[0].port == 5432 && h[1].port == 6543 &&
                 h[2].hlen == 5 && !strncmp(h[2].host, "[::1]", 5) && h[2].port == 7 && h[3].hlen == 2 && h[3].port == 0,
          "url hosts: four parts in order, after the last '@', an IPv6 address in brackets, a part without port",
          "n=%d %s", n, err.msg);
    n = dg_url_hosts("mysql://u@h?x=1", "shown", h, DG_URL_MAX_HOSTS, &err);
    CHECK(t, n == 1 && h[0].hlen == 1 && h[0].port == 0, "url hosts: one host, the list ends at '?'", "n=%d", n);
    n = dg_url_hosts("postgresql:///db?host=/tmp", "shown", h, DG_URL_MAX_HOSTS, &err);
    CHECK(t, n == 0, "url hosts: a URL without a host gives 0 hosts", "n=%d %s", n, err.msg);
    static const struct {
        const char *url, *names;
    } bad[] = {
        {"postgresql://u@h1:5432,,h2:5433/db", "'h1:5432,,h2:5433'"},
        {"postgresql://u@h1:5432,/db", "'h1:5432,'"},
        {"mysql://u@,h2/db", "',h2'"},
        {"postgresql://u@h1:54x2,h2/db", "port '54x2' of host 'h1'"},
        {"postgresql://u@h1,h2:70000/db", "port '70000' of host 'h2'"},
        {"postgresql://u@h1,h2:0/db", "port '0' of host 'h2'"},
        {"postgresql://u@h1:/db", "port '' of host 'h1'"},
        {"mysql://u@[::1/db", "'[::1' has no closing ']'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char name[160];
        dg_err_clear(&err);
        n = dg_url_hosts(bad[i].url, "SHOWN", h, DG_URL_MAX_HOSTS, &err);
        snprintf(name, sizeof name, "url hosts: %s is a user error naming %s", bad[i].url, bad[i].names);
        CHECK(t, n == -1 && err.cls == DG_ERR_USER && strstr(err.msg, bad[i].names) && strstr(err.msg, "SHOWN"), name,
              "n=%d '%s'", n, err.msg);
    }
    n = dg_url_hosts("mysql://u@a,b,c/db", "shown", h, 2, &err);
    CHECK(t, n == -1 && strstr(err.msg, "more than 2 hosts"), "url hosts: more hosts than room is an error",
          "n=%d '%s'", n, err.msg);
    char red[256];
    dg_redact_url("postgresql://u:s3cret@h1:5432,h2:5433/db?target_session_attrs=read-write", red, sizeof red);
    CHECK(t, !strcmp(red, "postgresql://u:***@h1:5432,h2:5433/db?target_session_attrs=read-write"),
          "redaction of a multi-host URL keeps every host and hides the password", "'%s'", red);
    dg_redact_url("mysql://u@h1:1,h2:2/db?password=x", red, sizeof red);
    CHECK(t, !strcmp(red, "mysql://u@h1:1,h2:2/db?password=***"),
          "redaction of a multi-host URL with password= in its query", "'%s'", red);
}

static void sqltext(struct dg_test *t)
{
    static const char *const cols[] = {"a", "b"};
    char out[64], small[20];
    int n = dg_insert_sql(out, sizeof out, "t", cols, 2);
    CHECK(t, n > 0 && !strcmp(out, "INSERT INTO t (a, b) VALUES (?, ?)"), "sqltext: the bulk INSERT", "'%s'", out);
    CHECK(t, dg_insert_sql(small, sizeof small, "t", cols, 2) == -1, "sqltext: too long is -1", "it is not");
}

/* The multi-row INSERT: its groups of markers, its length known beforehand, the text for fewer
 * rows a prefix of it, and -1 for a buffer one byte short or no rows or columns. */
static void sqltext_rows(struct dg_test *t)
{
    static const char *const cols[] = {"a", "b"};
    static const char *const one[] = {"x"};
    static const char *const want = "INSERT INTO t (a, b) VALUES (?, ?), (?, ?), (?, ?)";
    char out[128];
    int n = dg_insert_rows_sql(out, sizeof out, "t", cols, 2, 3);
    CHECK(t, n == (int)strlen(want) && !strcmp(out, want), "sqltext: 3 rows of markers", "'%s' (%d)", out, n);
    CHECK(t, dg_insert_rows_len("t", cols, 2, 3) == strlen(want), "sqltext: the 3-row length, counted", "%zu",
          dg_insert_rows_len("t", cols, 2, 3));
    size_t len2 = dg_insert_rows_len("t", cols, 2, 2);
    CHECK(t, len2 == strlen("INSERT INTO t (a, b) VALUES (?, ?), (?, ?)") && !strncmp(out, want, len2),
          "sqltext: the 2-row text is the 3-row text's prefix", "%zu", len2);
    n = dg_insert_rows_sql(out, sizeof out, "t", cols, 2, 1);
    CHECK(t, n > 0 && !strcmp(out, "INSERT INTO t (a, b) VALUES (?, ?)"), "sqltext: 1 row is the one-row INSERT",
          "'%s'", out);
    n = dg_insert_rows_sql(out, sizeof out, "t", one, 1, 2);
    CHECK(t, n > 0 && !strcmp(out, "INSERT INTO t (x) VALUES (?), (?)"), "sqltext: one column, 2 rows", "'%s'", out);
    CHECK(t, dg_insert_rows_sql(out, strlen(want) + 1, "t", cols, 2, 3) == (int)strlen(want),
          "sqltext: a buffer of exactly length + 1 holds it", "it does not");
    CHECK(t, dg_insert_rows_sql(out, strlen(want), "t", cols, 2, 3) == -1, "sqltext: one byte short is -1",
          "it is not");
    CHECK(t, dg_insert_rows_sql(out, 10, "t", cols, 2, 3) == -1, "sqltext: a small buffer is -1", "it is not");
    CHECK(t, dg_insert_rows_sql(out, sizeof out, "t", cols, 2, 0) == -1 &&
                 dg_insert_rows_sql(out, sizeof out, "t", cols, 0, 2) == -1,
          "sqltext: no rows or no columns is -1", "it is not");
    static char big[8192];
    n = dg_insert_rows_sql(big, sizeof big, "t", cols, 2, 1000);
    CHECK(t, n > 0 && (size_t)n == dg_insert_rows_len("t", cols, 2, 1000) && !strcmp(big + n - 9, "), (?, ?)"),
          "sqltext: 1,000 rows (2,000 markers) end as they should", "%d", n);
}

struct item {
    int v;
    struct dg_link link;
};

static void list(struct dg_test *t)
{
    struct dg_list l = {0};
    struct item it[3] = {{.v = 0}, {.v = 1}, {.v = 2}};
    for (int i = 0; i < 3; i++)
        dg_list_add(&l, &it[i].link);
    dg_list_del(&l, &it[1].link); /* the middle */
    dg_list_del(&l, &it[1].link); /* again: harmless */
    int got[3], n = 0;
    for (struct dg_link *p; n < 3 && (p = dg_list_pop(&l));)
        got[n++] = DG_LIST_ENTRY(p, struct item, link)->v;
    CHECK(t, n == 2 && got[0] == 2 && got[1] == 0 && !l.head, "list: add at the head, delete, pop in order",
          "n=%d", n);
}

/* A cluster's URL cut to each node's: the same user info, path and query, one host. */
static void url_one_host(struct dg_test *t)
{
    const char *u = "mysql://u:p@ss@h1:3306,[::1]:7,h3/db?load=insert#x";
    static const char *const want[] = {"mysql://u:p@ss@h1:3306/db?load=insert#x", "mysql://u:p@ss@[::1]:7/db?load=insert#x",
                                       "mysql://u:p@ss@h3/db?load=insert#x"};
    char out[256];
    for (int i = 0; i < 3; i++) {
        int rc = dg_url_one_host(u, i, out, sizeof out);
        CHECK(t, rc == 0 && !strcmp(out, want[i]), "url one host: each part of the host list with the rest kept",
              "host %d: rc=%d '%s'", i, rc, out);
    }
    CHECK(t, dg_url_one_host(u, 3, out, sizeof out) == -1 && dg_url_one_host(u, -1, out, sizeof out) == -1,
          "url one host: no such part is -1", "it was not");
    CHECK(t, dg_url_one_host("mysql://u@h1,h2", 1, out, sizeof out) == 0 && !strcmp(out, "mysql://u@h2"),
          "url one host: a URL ending at its host list", "'%s'", out);
    CHECK(t, dg_url_one_host(u, 0, out, 20) == -1 && dg_url_one_host("sqlite:x.db", 0, out, sizeof out) == -1,
          "url one host: too small a buffer or no host list is -1", "it was not");
}

/* Engine codes to causes, the names stored and printed, and what the core counts. */
static void error_causes(struct dg_test *t)
{
    static const struct {
        const char *st;
        enum dg_error_cause want;
    } st[] = {{"57014", DG_ERROR_TIMEOUT},          {"HYT00", DG_ERROR_TIMEOUT},
              {"53300", DG_ERROR_TOO_MANY_CONNECTIONS}, {"57P01", DG_ERROR_CLOSED_BY_SERVER},
              {"57P02", DG_ERROR_CLOSED_BY_SERVER}, {"57P03", DG_ERROR_CLOSED_BY_SERVER},
              {"57P05", DG_ERROR_CLOSED_BY_SERVER}, {"25P03", DG_ERROR_CLOSED_BY_SERVER},
              {"08006", DG_ERROR_CONNECTION},       {"08S01", DG_ERROR_CONNECTION},
              {"25006", DG_ERROR_READ_ONLY},        {"25000", DG_ERROR_OTHER},
              {"40001", DG_ERROR_OTHER},            {"23505", DG_ERROR_OTHER},
              {"57P0", DG_ERROR_OTHER},             {"", DG_ERROR_OTHER}};
    for (size_t i = 0; i < sizeof st / sizeof *st; i++) {
        char name[96];
        enum dg_error_cause got = dg_drv_error_cause_sqlstate(st[i].st);
        snprintf(name, sizeof name, "error cause: SQLSTATE '%s' is %s", st[i].st, dg_error_cause_name(st[i].want));
        CHECK(t, got == st[i].want, name, "got %s", dg_error_cause_name(got));
    }
    CHECK(t, dg_drv_error_cause_sqlstate(NULL) == DG_ERROR_OTHER, "error cause: no SQLSTATE is other", "it was not");
    static const struct {
        unsigned code;
        const char *msg;
        enum dg_error_cause want;
    } my[] = {{1969, NULL, DG_ERROR_TIMEOUT}, {3024, NULL, DG_ERROR_TIMEOUT},
              {1040, NULL, DG_ERROR_TOO_MANY_CONNECTIONS}, {1203, NULL, DG_ERROR_TOO_MANY_CONNECTIONS},
              {1226, NULL, DG_ERROR_TOO_MANY_CONNECTIONS},
              {4031, NULL, DG_ERROR_CLOSED_BY_SERVER}, {1927, NULL, DG_ERROR_CLOSED_BY_SERVER},
              {1053, NULL, DG_ERROR_CLOSED_BY_SERVER}, {2006, NULL, DG_ERROR_CONNECTION},
              {2013, NULL, DG_ERROR_CONNECTION}, {2002, NULL, DG_ERROR_CONNECTION},
              {1290, "execute: The MariaDB server is running with the --read-only option so it cannot execute this "
                     "statement (1290)", DG_ERROR_READ_ONLY},
              {1290, "The MySQL server is running with the --super-read-only option so it cannot execute this "
                     "statement", DG_ERROR_READ_ONLY},
              {1290, "The MySQL server is running with the --secure-file-priv option so it cannot execute this "
                     "statement", DG_ERROR_OTHER},
              {1290, NULL, DG_ERROR_OTHER}, {1836, "Running in read-only mode", DG_ERROR_READ_ONLY},
              {1792, "Cannot execute statement in a READ ONLY transaction.", DG_ERROR_READ_ONLY},
              {1213, NULL, DG_ERROR_OTHER}, {1062, NULL, DG_ERROR_OTHER}, {0, NULL, DG_ERROR_OTHER}};
    for (size_t i = 0; i < sizeof my / sizeof *my; i++) {
        char name[160];
        enum dg_error_cause got = dg_drv_error_cause_mysql(my[i].code, my[i].msg);
        snprintf(name, sizeof name, "error cause: MariaDB/MySQL %u%s%.40s%s is %s", my[i].code, my[i].msg ? " '" : "",
                 my[i].msg ? my[i].msg : "", my[i].msg ? "...'" : "", dg_error_cause_name(my[i].want));
        CHECK(t, got == my[i].want, name, "got %s", dg_error_cause_name(got));
    }
    CHECK(t, dg_drv_says_too_many("FATAL:  too many connections for role \"dbgauge\"") &&
              dg_drv_says_too_many("FATAL:  sorry, too many clients already") &&
              dg_drv_says_too_many("FATAL:  remaining connection slots are reserved for non-replication superuser connections") &&
              !dg_drv_says_too_many("FATAL:  password authentication failed for user \"dbgauge\"") && !dg_drv_says_too_many(NULL),
          "error cause: libpq's refusals for a limit of connections are told from the others", "they were not");
    char order[160] = "";
    for (int i = 0; i < DG_ERROR_NCAUSES; i++)
        snprintf(order + strlen(order), sizeof order - strlen(order), "%s%s", i ? "," : "",
                 dg_error_cause_name(dg_error_cause_at(i)));
    CHECK(t, !strcmp(order, "connection,timeout,too_many_connections,closed_by_server,read_only,gave_up,other"),
          "error cause: the names in stored order", "'%s'", order);
    CHECK(t, !strcmp(dg_error_cause_name(DG_ERROR_NCAUSES), "other"), "error cause: a name out of range is other",
          "'%s'", dg_error_cause_name(DG_ERROR_NCAUSES));
    struct dg_err e;
    dg_err_set(&e, DG_ERR_CONN, 0, "lost");
    CHECK(t, dg_err_error_cause(&e) == DG_ERROR_CONNECTION, "error cause: a lost connection with no cause is connection",
          "%s", dg_error_cause_name(dg_err_error_cause(&e)));
    e.error_cause = DG_ERROR_CLOSED_BY_SERVER;
    CHECK(t, dg_err_error_cause(&e) == DG_ERROR_CLOSED_BY_SERVER, "error cause: the driver's cause is kept", "%s",
          dg_error_cause_name(dg_err_error_cause(&e)));
    dg_err_set(&e, DG_ERR_FATAL, 0, "again");
    CHECK(t, e.error_cause == DG_ERROR_OTHER && dg_err_error_cause(&e) == DG_ERROR_OTHER,
          "error cause: dg_err_set resets it to other", "%s", dg_error_cause_name(e.error_cause));
    /* The runner counts a retryable error as an error only once its retries are used up. */
    dg_err_set(&e, DG_ERR_RETRY, 1213, "Deadlock found when trying to get lock");
    e.cause = DG_RETRY_DEADLOCK;
    CHECK(t, dg_err_error_cause(&e) == DG_ERROR_GAVE_UP, "error cause: a retryable error failing for good is gave_up",
          "%s", dg_error_cause_name(dg_err_error_cause(&e)));
    e.error_cause = DG_ERROR_TIMEOUT;
    CHECK(t, dg_err_error_cause(&e) == DG_ERROR_GAVE_UP, "error cause: gave_up even where the driver named a cause",
          "%s", dg_error_cause_name(dg_err_error_cause(&e)));
    dg_err_set(&e, DG_ERR_FATAL, 0, "cannot execute INSERT in a read-only transaction");
    e.error_cause = DG_ERROR_READ_ONLY;
    CHECK(t, dg_err_error_cause(&e) == DG_ERROR_READ_ONLY, "error cause: read_only is kept", "%s",
          dg_error_cause_name(dg_err_error_cause(&e)));
    e.error_cause = DG_ERROR_TIMEOUT;
    dg_err_clear(&e);
    CHECK(t, e.error_cause == DG_ERROR_OTHER, "error cause: dg_err_clear resets it", "%d", (int)e.error_cause);
}

int main(void)
{
    struct dg_test t = {0};
    numtext(&t);
    buf(&t);
    urlq(&t);
    url_hosts(&t);
    url_one_host(&t);
    sqltext(&t);
    sqltext_rows(&t);
    list(&t);
    error_causes(&t);
    return dg_test_done(&t);
}
