/* test_opts.c — unit tests of option parsers (src/core/opts.h), password redaction and target
 * parsing (src/core/driver.h). Pure logic: connects to nothing. */
#include "core/driver.h"
#include "core/opts.h"

#include <string.h>

#include "check.h"

static void check_durations(struct dg_test *t)
{
    static const struct {
        const char *s;
        dg_ns want;
    } good[] = {
        {"45s", 45 * DG_NS_PER_S},
        {"2m", 120 * DG_NS_PER_S},
        {"1h30m", 5400 * DG_NS_PER_S},
        {"500ms", 500 * DG_NS_PER_MS},
        {"1500ms", 1500 * DG_NS_PER_MS},
        {"10", 10 * DG_NS_PER_S},
        {"0", 0},
        {"1h", 3600 * DG_NS_PER_S},
        {"1m30s", 90 * DG_NS_PER_S},
        {"2h0m5s", 7205 * DG_NS_PER_S},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        struct dg_err err = {0};
        dg_ns out = 12345;
        int rc = dg_parse_duration("--duration", good[i].s, &out, &err);
        char name[80];
        snprintf(name, sizeof name, "duration '%s'", good[i].s);
        CHECK(t, rc == 0 && out == good[i].want, name, "rc %d, got %llu ns, want %llu (%s)", rc,
              (unsigned long long)out, (unsigned long long)good[i].want, err.msg);
    }
    static const char *const bad[] = {"5x", "", "m", "-1", "1h30x", "1h30", " 5s", "5s ", "1.5s", "s5",
                                      "5 s", "ms", "+5s", "5mss"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct dg_err err = {0};
        dg_ns out = 12345;
        int rc = dg_parse_duration("--duration", bad[i], &out, &err);
        char name[80];
        snprintf(name, sizeof name, "duration '%s' rejected, naming the option", bad[i]);
        CHECK(t, rc != 0 && err.cls == DG_ERR_USER && strstr(err.msg, "--duration") && out == 12345, name,
              "rc %d, class %s, msg '%s', out %llu", rc, dg_err_class_name(err.cls), err.msg,
              (unsigned long long)out);
    }
    struct dg_err err = {0};
    dg_ns out = 0;
    int rc = dg_parse_duration("--warmup", NULL, &out, &err);
    CHECK(t, rc != 0 && err.cls == DG_ERR_USER, "duration NULL rejected", "rc %d", rc);
}

static void check_ints(struct dg_test *t)
{
    struct dg_err err = {0};
    int v = -7;
    CHECK(t, dg_parse_int("--vus", "4096", 1, 4096, &v, &err) == 0 && v == 4096, "int at max accepted",
          "v %d %s", v, err.msg);
    CHECK(t, dg_parse_int("--vus", "1", 1, 4096, &v, &err) == 0 && v == 1, "int at min accepted", "v %d %s",
          v, err.msg);
    static const char *const bad[] = {"0", "4097", "", "-1", "12a", "1e3", " 5", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        v = -7;
        dg_err_clear(&err);
        int rc = dg_parse_int("--vus", bad[i], 1, 4096, &v, &err);
        char name[80];
        snprintf(name, sizeof name, "int '%s' rejected for [1, 4096]", bad[i]);
        CHECK(t, rc != 0 && v == -7 && err.cls == DG_ERR_USER && strstr(err.msg, "--vus") && strstr(err.msg, "4096"),
              name, "rc %d v %d msg '%s'", rc, v, err.msg);
    }
    uint64_t u = 0;
    CHECK(t, dg_parse_u64("--seed", "18446744073709551615", 0, UINT64_MAX, &u, &err) == 0 && u == UINT64_MAX,
          "u64 max accepted", "u %llu %s", (unsigned long long)u, err.msg);
    u = 5;
    CHECK(t, dg_parse_u64("--seed", "18446744073709551616", 0, UINT64_MAX, &u, &err) != 0 && u == 5,
          "u64 overflow rejected", "u %llu", (unsigned long long)u);
    CHECK(t, dg_parse_u64("--txns", "1000000001", 1, 1000000000ull, &u, &err) != 0, "u64 above max rejected",
          "accepted");
}

static void check_sizes(struct dg_test *t)
{
    static const struct {
        const char *s;
        uint64_t want;
    } good[] = {
        {"512M", 512ull << 20}, {"2G", 2ull << 30}, {"64k", 64ull << 10}, {"4096", 4096}, {"1T", 1ull << 40},
        {"1g", 1ull << 30},     {"8MB", 8ull << 20}, {"1.5G", 3ull << 29},
        /* the fraction's bytes once overflowed 64 bits (tests/fuzz/): 2 TiB less 1100 bytes */
        {"1.999999999t", (2ull << 40) - 1100}, {"0.75k", 768}, {"0.000000001t", 1099},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        struct dg_err err = {0};
        uint64_t out = 7;
        int rc = dg_parse_size("--memory", good[i].s, &out, &err);
        char name[80];
        snprintf(name, sizeof name, "size '%s'", good[i].s);
        CHECK(t, rc == 0 && out == good[i].want, name, "rc %d got %llu want %llu (%s)", rc,
              (unsigned long long)out, (unsigned long long)good[i].want, err.msg);
    }
    static const char *const bad[] = {"", "G", "12Q", "-1M", "5 M", "1MM", "M5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct dg_err err = {0};
        uint64_t out = 7;
        int rc = dg_parse_size("--memory", bad[i], &out, &err);
        char name[80];
        snprintf(name, sizeof name, "size '%s' rejected", bad[i]);
        CHECK(t, rc != 0 && out == 7 && err.cls == DG_ERR_USER && strstr(err.msg, "--memory"), name,
              "rc %d out %llu msg '%s'", rc, (unsigned long long)out, err.msg);
    }
}

static void check_format(struct dg_test *t)
{
    static const struct {
        dg_ns ns;
        const char *want;
    } cases[] = {{250 * DG_NS_PER_MS, "250ms"},
                 {45 * DG_NS_PER_S, "45s"},
                 {90 * DG_NS_PER_S, "1m30s"},
                 {5400 * DG_NS_PER_S, "1h30m"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[32];
        dg_format_duration(cases[i].ns, buf, sizeof buf);
        char name[80];
        snprintf(name, sizeof name, "format duration -> %s", cases[i].want);
        CHECK(t, strcmp(buf, cases[i].want) == 0, name, "got '%s'", buf);
    }
}

static void check_redact(struct dg_test *t)
{
    static const struct {
        const char *url, *secret, *want;
    } cases[] = {
        {"postgres://u:secret@h/db", "secret", "postgres://u:***@h/db"},
        {"postgresql://u:p%40ss@h:5432/db?sslmode=require", "p%40ss",
         "postgresql://u:***@h:5432/db?sslmode=require"},
        {"odbc:Driver={X};Server=h;UID=u;PWD=secret;", "secret", "odbc:Driver={X};Server=h;UID=u;PWD=***;"},
        {"postgres://h/db?password=secret", "secret", "postgres://h/db?password=***"},
        {"postgres://h/db?user=u&password=secret&sslmode=disable", "secret",
         "postgres://h/db?user=u&password=***&sslmode=disable"},
        {"mysql://root:hunter2@127.0.0.1:3306/tpcc", "hunter2", "mysql://root:***@127.0.0.1:3306/tpcc"},
        {"odbc:DSN=x;Pwd={se;cret};UID=u", "se;cret", "odbc:DSN=x;Pwd=***;UID=u"},
        {"odbc:DSN=pg;UID=u;PWD=s3cr3t", "s3cr3t", "odbc:DSN=pg;UID=u;PWD=***"},
        {"odbc:Driver={ODBC Driver 18 for SQL Server};Server=h,1433;Database=d;Uid=sa;Password=Xy!9;Encrypt=no",
         "Xy!9", "odbc:Driver={ODBC Driver 18 for SQL Server};Server=h,1433;Database=d;Uid=sa;Password=***;Encrypt=no"},
        {"odbc:Driver=/usr/lib/x.so;Server=h;Port=5432;pwd={a}}b;c};UID=u", "b;c", "odbc:Driver=/usr/lib/x.so;Server=h;Port=5432;pwd=***;UID=u"},
        {"postgres://u:abc@def@h/db", "abc@def", "postgres://u:***@h/db"},
        {"postgres://u:pa?ss@h/db", "pa?ss", "postgres://u:***@h/db"},
        {"postgres://u:pa#ss@h:5432/db", "pa#ss", "postgres://u:***@h:5432/db"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out[256];
        memset(out, 'Z', sizeof out);
        dg_redact_url(cases[i].url, out, sizeof out);
        char name[160];
        snprintf(name, sizeof name, "redact %s", cases[i].want);
        CHECK(t, strstr(out, cases[i].secret) == NULL && strcmp(out, cases[i].want) == 0, name, "got '%s'", out);
    }
    static const char *const unchanged[] = {"sqlite:path/to/tpcc.db", "sqlite:/tmp/x.db", "null:",
                                            "postgres://u@h/db", "postgres://h:5432/db?sslmode=require"};
    for (size_t i = 0; i < sizeof unchanged / sizeof *unchanged; i++) {
        char out[256];
        dg_redact_url(unchanged[i], out, sizeof out);
        char name[160];
        snprintf(name, sizeof name, "redact leaves %s unchanged", unchanged[i]);
        CHECK(t, strcmp(out, unchanged[i]) == 0, name, "got '%s'", out);
    }
    /* a small output buffer is still terminated and never holds the secret */
    char small[12];
    memset(small, 'Z', sizeof small);
    dg_redact_url("postgres://u:secret@h/db", small, sizeof small);
    CHECK(t, memchr(small, '\0', sizeof small) && strstr(small, "secret") == NULL,
          "redact into a small buffer: terminated, no secret", "got '%.*s'", (int)sizeof small, small);
}

static void check_targets(struct dg_test *t)
{
    struct dg_target tg;
    struct dg_err err = {0};
    int rc = dg_target_parse("sqlite:x", &tg, &err);
    CHECK(t, rc == 0 && tg.drv && strcmp(tg.drv->name, "sqlite") == 0 && strcmp(tg.url, "sqlite:x") == 0 &&
                 strcmp(tg.redacted, "sqlite:x") == 0,
          "target sqlite:x", "rc %d %s", rc, err.msg);
    rc = dg_target_parse("null:", &tg, &err);
    CHECK(t, rc == 0 && tg.drv && strcmp(tg.drv->name, "null") == 0, "target null:", "rc %d %s", rc, err.msg);
    rc = dg_target_parse("postgres://u:secret@h/db", &tg, &err);
    int have_pg = 0;
    for (int i = 0; dg_drivers[i]; i++)
        have_pg |= strcmp(dg_drivers[i]->name, "pgsql") == 0 || strcmp(dg_drivers[i]->name, "postgresql") == 0;
    if (have_pg)
        CHECK(t, rc == 0 && tg.drv && tg.drv->dialect == DG_DIALECT_PGSQL &&
                     strcmp(tg.url, "postgres://u:secret@h/db") == 0 && strstr(tg.redacted, "secret") == NULL,
              "target postgres://: the PostgreSQL driver, the URL kept, the redacted copy without password",
              "rc %d %s redacted '%s'", rc, err.msg, tg.redacted);
    else
        CHECK(t, rc != 0 && err.cls == DG_ERR_USER && strstr(err.msg, "postgres") && !strstr(err.msg, "secret"),
              "target postgres:// without the driver built: a user error without the password", "rc %d %s",
              rc, err.msg);
    rc = dg_target_parse("postgresql://u@h/db", &tg, &err);
    CHECK(t, have_pg ? rc == 0 && tg.drv->dialect == DG_DIALECT_PGSQL : rc != 0,
          "target postgresql:// takes the same driver", "rc %d %s", rc, err.msg);

    dg_err_clear(&err);
    rc = dg_target_parse("mysqlx://h/db", &tg, &err);
    CHECK(t, rc != 0 && err.cls == DG_ERR_USER && strstr(err.msg, "mysqlx"), "target mysqlx://h/db: user error naming the scheme",
          "rc %d class %s msg '%s'", rc, dg_err_class_name(err.cls), err.msg);
    static const char *const bad[] = {"", "tpcc.db", ":x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        dg_err_clear(&err);
        rc = dg_target_parse(bad[i], &tg, &err);
        char name[80];
        snprintf(name, sizeof name, "target '%s' rejected as a user error", bad[i]);
        CHECK(t, rc != 0 && err.cls == DG_ERR_USER && err.msg[0], name, "rc %d class %s", rc,
              dg_err_class_name(err.cls));
    }
    char longurl[1100];
    memset(longurl, 'a', sizeof longurl - 1);
    memcpy(longurl, "sqlite:", 7);
    longurl[sizeof longurl - 1] = '\0';
    dg_err_clear(&err);
    rc = dg_target_parse(longurl, &tg, &err);
    CHECK(t, rc != 0 && err.cls == DG_ERR_USER, "target longer than the buffer rejected", "rc %d", rc);
}

static enum dg_dialect dialect_mssql(struct dg_conn *c)
{
    (void)c;
    return DG_DIALECT_MSSQL;
}

/* dg_conn_dialect: the connection's answer where the driver has one, else the static field. */
static void check_conn_dialect(struct dg_test *t)
{
    struct dg_driver plain = {.dialect = DG_DIALECT_PGSQL};
    struct dg_driver per_conn = {.dialect = DG_DIALECT_NONE, .conn_dialect = dialect_mssql};
    struct dg_conn *fake = (struct dg_conn *)&plain; /* never dereferenced */
    struct dg_conn_h h1 = {&plain, fake}, h2 = {&per_conn, fake}, h3 = {&per_conn, NULL};
    CHECK(t, dg_conn_dialect(&h1) == DG_DIALECT_PGSQL, "dialect: no conn_dialect, the driver's field",
          "got %d", (int)dg_conn_dialect(&h1));
    CHECK(t, dg_conn_dialect(&h2) == DG_DIALECT_MSSQL, "dialect: conn_dialect decides per connection",
          "got %d", (int)dg_conn_dialect(&h2));
    CHECK(t, dg_conn_dialect(&h3) == DG_DIALECT_NONE, "dialect: no connection yet, the driver's field",
          "got %d", (int)dg_conn_dialect(&h3));
}

/* Values too large for their type are refused, not wrapped. */
static void check_overflow(struct dg_test *t)
{
    struct dg_err err;
    dg_ns d;
    uint64_t v;
    CHECK(t, dg_parse_duration("--duration", "6000000h", &d, &err) != 0,
          "duration too long for 64-bit nanoseconds is refused", "accepted as %llu ns",
          (unsigned long long)d);
    CHECK(t, dg_parse_duration("--duration", "5000000h5000000h", &d, &err) != 0,
          "duration whose parts overflow together is refused", "accepted");
    static const char *const bad_sizes[] = {"1e30", "99999999999T", "0x10", "1.5.5G", "-1"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof *bad_sizes; i++) {
        char name[80];
        snprintf(name, sizeof name, "size '%s' refused", bad_sizes[i]);
        CHECK(t, dg_parse_size("--db-memory", bad_sizes[i], &v, &err) != 0, name, "accepted as %llu",
              (unsigned long long)v);
    }
    CHECK(t, dg_parse_size("--db-memory", "1.5G", &v, &err) == 0 && v == 1536ull << 20,
          "size 1.5G is 1536 MiB", "got %llu", (unsigned long long)v);
}

int main(void)
{
    struct dg_test t = {0};
    check_overflow(&t);
    check_durations(&t);
    check_ints(&t);
    check_sizes(&t);
    check_format(&t);
    check_redact(&t);
    check_targets(&t);
    check_conn_dialect(&t);
    return dg_test_done(&t);
}
