/* conformance_server.c — the conformance checks of what a driver does beside statements:
 * bulk load (every type, read back exactly), load mode, server facts, the monitor's calls,
 * the application name, and bad targets. Through the driver API only; no engine header. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "conformance.h"

void check_bulk(struct suite *t)
{
    struct dg_err err = {0};
    struct dg_conn_h *h = &t->a;
    if (!t->drv->bulk_begin) {
        skip(t, "bulk load", "driver has no bulk path");
        return;
    }
    /* every type through the bulk path, read back exactly */
    struct types ty = types_for(t->dialect);
    char sql[1024];
    xexec(h, "DROP TABLE IF EXISTS dg_conf_b", &err);
    snprintf(sql, sizeof sql, "CREATE TABLE dg_conf_b (id %s PRIMARY KEY, i %s, d %s, t %s, m %s)", ty.i, ty.i,
             ty.d, ty.t, ty.m);
    static const char *const cols5[] = {"id", "i", "d", "t", "m"};
    int n;
    const struct row_want *w = wanted_rows(&n);
    struct dg_bulk *b = NULL;
    int good = xexec(h, sql, &err) == 0 && t->drv->bulk_begin(h->c, "dg_conf_b", cols5, 5, &b, &err) == 0;
    for (int k = 0; good && k < n; k++) {
        struct dg_value v[5] = {dg_int(w[k].id), w[k].i, w[k].d, w[k].t, w[k].m};
        good = t->drv->bulk_row(b, v, &err) == 0;
    }
    if (b && t->drv->bulk_end(b, good ? &err : &(struct dg_err){0}) != 0)
        good = 0;
    char why[640] = "";
    if (!good)
        check(t, "bulk load of every value type reads back exactly", 0, &err);
    else if (!compare_rows(t, h, "dg_conf_b", w, n, why, sizeof why, &err))
        not_ok(t, "bulk load of every value type reads back exactly", "%s", why);
    else
        ok(t, "bulk load of every value type reads back exactly");
    xexec(h, "DROP TABLE IF EXISTS dg_conf_b", &err);

    /* escapes at every offset: random short strings of awkward characters */
    enum { NRAND = 300 };
    static const char alphabet[] = "ab\\\t\n\r'\"?x$N";
    char rnd[NRAND][48];
    size_t rlen[NRAND];
    uint64_t y = 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < NRAND; k++) {
        y ^= y << 13, y ^= y >> 7, y ^= y << 17;
        rlen[k] = y % 48;
        for (size_t j = 0; j < rlen[k]; j++) {
            y ^= y << 13, y ^= y >> 7, y ^= y << 17;
            rnd[k][j] = alphabet[y % (sizeof alphabet - 1)];
        }
    }
    b = NULL;
    snprintf(sql, sizeof sql, "CREATE TABLE dg_conf_b (id %s PRIMARY KEY, t %s)", ty.i, ty.t);
    good = xexec(h, sql, &err) == 0 && t->drv->bulk_begin(h->c, "dg_conf_b", (const char *const[]){"id", "t"}, 2,
                                                          &b, &err) == 0;
    for (int k = 0; good && k < NRAND; k++) {
        struct dg_value v[2] = {dg_int(k), dg_txt(rnd[k], rlen[k])};
        good = t->drv->bulk_row(b, v, &err) == 0;
    }
    if (b && t->drv->bulk_end(b, good ? &err : &(struct dg_err){0}) != 0)
        good = 0;
    struct dg_stmt *rs = NULL;
    int seen = 0;
    if (good && t->drv->prepare(h->c, "SELECT id, t FROM dg_conf_b ORDER BY id", 0, &rs, &err) == 0 &&
        t->drv->execute(rs, NULL, &err) == 0) {
        while (good && t->drv->next_row(rs, &err) == 1) {
            int64_t id = t->drv->col_int(rs, 0);
            size_t n2 = 0;
            const char *p = t->drv->col_text(rs, 1, &n2);
            good = id == seen && p && n2 == rlen[seen] && memcmp(p, rnd[seen], n2) == 0;
            seen++;
        }
        t->drv->reset(rs);
    } else {
        good = 0;
    }
    if (rs)
        t->drv->finalize(rs);
    check(t, "bulk load: text escapes at every offset read back exactly", good && seen == NRAND,
          good ? NULL : &err);
    xexec(h, "DROP TABLE IF EXISTS dg_conf_b", &err);

    /* a bad row fails the load, and the connection stays usable (whether the rows before it
     * stay is not part of the contract: printed, not checked) */
    b = NULL;
    good = xexec(h, "CREATE TABLE dg_conf_b (id INT PRIMARY KEY)", &err) == 0 &&
           t->drv->bulk_begin(h->c, "dg_conf_b", cols5, 1, &b, &err) == 0;
    const char *name = "bulk load with a duplicate key fails; connection usable";
    if (!good) {
        check(t, name, 0, &err);
    } else {
        struct dg_value v = dg_int(1);
        int rc = t->drv->bulk_row(b, &v, &err);
        if (rc == 0)
            rc = t->drv->bulk_row(b, &v, &err);
        struct dg_err e2 = {0};
        int rc2 = t->drv->bulk_end(b, rc ? &e2 : &err);
        int64_t cnt = -1;
        struct dg_err e3 = {0};
        if (rc == 0 && rc2 == 0)
            not_ok(t, name, "no error reported");
        else if (count_where(h, "SELECT COUNT(*) FROM dg_conf_b", &cnt, &e3) != 0)
            check(t, name, 0, &e3);
        else {
            ok(t, name);
            printf("# failed bulk load: %s [%s]; rows kept %lld\n", err.msg, dg_err_class_name(err.cls),
                   (long long)cnt);
        }
    }
    xexec(h, "DROP TABLE IF EXISTS dg_conf_b", &err);

    /* the loader's column types (INTEGER, DECIMAL(p,s), CHAR, VARCHAR, the dialect's date and
     * time type), each fed as the loader feeds it, read back as text: PostgreSQL sends these
     * in binary COPY, where each value is converted by the driver, not parsed by the server */
    {
        const char *when = dg_dialect(t->dialect)->timestamp_type;
        snprintf(sql, sizeof sql,
                 "CREATE TABLE dg_conf_b (id INTEGER NOT NULL, q INTEGER, tax DECIMAL(4,4), ytd DECIMAL(12,2), "
                 "st CHAR(2), nm VARCHAR(24), ts %s)",
                 when);
        static const char *const tcols[] = {"id", "q", "tax", "ytd", "st", "nm", "ts"};
        static const char tab_text[] = "a\tb\\c\nd";
        struct dg_value rows[4][7] = {
            {dg_int(1), dg_int(-2147483647 - 1), dg_dec(1234, 4), dg_dec(-1000, 2), dg_txt("GC", 2),
             dg_txt(tab_text, sizeof tab_text - 1), dg_txt("2026-02-28 23:59:58", 19)},
            {dg_int(2), dg_int(2147483647), dg_dec(0, 4), dg_dec(99999999999, 2), dg_txt("B", 1), dg_txt("", 0),
             dg_txt("2024-02-29 00:00:00", 19)},
            {dg_int(3), dg_null(), dg_null(), dg_null(), dg_null(), dg_null(), dg_null()},
            {dg_int(4), dg_int(0), dg_dec(5, 4), dg_dec(30000000, 2), dg_txt("ZZ", 2), dg_txt("x", 1),
             dg_txt("1999-12-31 12:00:01", 19)},
        };
        static const char *const want[4][6] = {
            {"-2147483648", "0.1234", "-10.00", "GC", tab_text, "2026-02-28 23:59:58"},
            {"2147483647", "0.0000", "999999999.99", "B ", "", "2024-02-29 00:00:00"},
            {NULL, NULL, NULL, NULL, NULL, NULL},
            {"0", "0.0005", "300000.00", "ZZ", "x", "1999-12-31 12:00:01"},
        };
        xexec(h, "DROP TABLE IF EXISTS dg_conf_b", &err);
        b = NULL;
        good = xexec(h, sql, &err) == 0 && t->drv->bulk_begin(h->c, "dg_conf_b", tcols, 7, &b, &err) == 0;
        for (int k = 0; good && k < 4; k++)
            good = t->drv->bulk_row(b, rows[k], &err) == 0;
        if (b && t->drv->bulk_end(b, good ? &err : &(struct dg_err){0}) != 0)
            good = 0;
        char bad[256] = "";
        struct dg_stmt *ts = NULL;
        int nseen = 0;
        /* read back as text the way each engine prints them: CHAR(2) may come back padded or
         * not, decimals with their scale or as numbers (SQLite): compared loosely there */
        if (good && t->drv->prepare(h->c, "SELECT q, tax, ytd, st, nm, ts FROM dg_conf_b ORDER BY id", 0, &ts,
                                    &err) == 0 &&
            t->drv->execute(ts, NULL, &err) == 0) {
            while (t->drv->next_row(ts, &err) == 1) {
                for (int col = 0; nseen < 4 && col < 6 && !bad[0]; col++) {
                    const char *w = want[nseen][col];
                    size_t len = 0;
                    int isnull = t->drv->col_is_null(ts, col);
                    const char *p = isnull ? NULL : t->drv->col_text(ts, col, &len);
                    if (!w || isnull) {
                        if ((w == NULL) != (isnull != 0))
                            snprintf(bad, sizeof bad, "row %d col %d: NULL mismatch", nseen + 1, col);
                        continue;
                    }
                    int same = p && len == strlen(w) && memcmp(p, w, len) == 0;
                    if (!same && (col == 1 || col == 2) && p) /* a number: compare the values */
                        same = fabs(atof(p) - atof(w)) < 1e-9;
                    if (!same && col == 3 && p) /* CHAR padding is the engine's */
                        same = len <= 2 && strncmp(p, w, len) == 0 && (len == 2 || w[len] == ' ');
                    if (!same && col == 5 && p) /* fractional zeros are the engine's */
                        same = len >= 19 && memcmp(p, w, 19) == 0 && strspn(p + 19, ".0") == len - 19;
                    if (!same)
                        snprintf(bad, sizeof bad, "row %d col %d: '%.*s' != '%s'", nseen + 1, col,
                                 p ? (int)(len > 60 ? 60 : len) : 4, p ? p : "NULL", w);
                }
                nseen++;
            }
            t->drv->reset(ts);
        } else {
            good = 0;
        }
        if (ts)
            t->drv->finalize(ts);
        name = "bulk load: the loader's types (INTEGER limits, DECIMAL(4,4), CHAR, text with tabs and "
               "backslashes, timestamps, NULLs) read back exactly";
        if (!good)
            check(t, name, 0, &err);
        else if (bad[0] || nseen != 4)
            not_ok(t, name, "%s%s", bad, nseen != 4 ? " (row count)" : "");
        else
            ok(t, name);
        xexec(h, "DROP TABLE IF EXISTS dg_conf_b", &err);
    }

    /* volume: stock-like rows */
    const char *env = getenv("DG_CONF_BULK_ROWS");
    int64_t rows = env ? atoll(env) : 100000;
    xexec(h, "DROP TABLE IF EXISTS dg_conf_stock", &err);
    good = xexec(h,
                 "CREATE TABLE dg_conf_stock (s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity INT,"
                 " s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24),"
                 " s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24),"
                 " s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd INT, s_order_cnt INT, s_remote_cnt INT,"
                 " s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id))",
                 &err) == 0;
    static const char *const scols[] = {"s_i_id",    "s_w_id",    "s_quantity", "s_dist_01",   "s_dist_02",
                                        "s_dist_03", "s_dist_04", "s_dist_05",  "s_dist_06",   "s_dist_07",
                                        "s_dist_08", "s_dist_09", "s_dist_10",  "s_ytd",       "s_order_cnt",
                                        "s_remote_cnt", "s_data"};
    /* a few prepared strings, varied per row without allocating */
    char pool[4096];
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < sizeof pool; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        pool[i] = (char)('a' + x % 26);
    }
    int64_t sum_q = 0;
    double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    b = NULL;
    if (good && t->drv->load_mode)
        good = t->drv->load_mode(h->c, 1, NULL, &err) == 0;
    good = good && t->drv->bulk_begin(h->c, "dg_conf_stock", scols, 17, &b, &err) == 0;
    for (int64_t r = 0; good && r < rows; r++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        struct dg_value v[17];
        int q = 10 + (int)(x % 91);
        sum_q += q;
        v[0] = dg_int(r % 100000 + 1);
        v[1] = dg_int(r / 100000 + 1);
        v[2] = dg_int(q);
        for (int d = 0; d < 10; d++)
            v[3 + d] = dg_txt(pool + (x >> (d * 3)) % 3000, 24);
        v[13] = dg_int(0);
        v[14] = dg_int(0);
        v[15] = dg_int(0);
        v[16] = dg_txt(pool + (x >> 20) % 3000, 26 + (x >> 40) % 25);
        good = t->drv->bulk_row(b, v, &err) == 0;
    }
    if (b && t->drv->bulk_end(b, good ? &err : &(struct dg_err){0}) != 0)
        good = 0;
    double t1 = now_s(CLOCK_MONOTONIC), c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    if (t->drv->load_mode)
        t->drv->load_mode(h->c, 0, NULL, &(struct dg_err){0});
    int64_t cnt = -1, sq = -1;
    good = good && count_where(h, "SELECT COUNT(*) FROM dg_conf_stock", &cnt, &err) == 0 &&
           count_where(h, "SELECT SUM(s_quantity) FROM dg_conf_stock", &sq, &err) == 0;
    if (!good)
        check(t, "bulk load of stock-like rows: count and sum match", 0, &err);
    else if (cnt != rows || sq != sum_q)
        not_ok(t, "bulk load of stock-like rows: count and sum match", "count %lld/%lld, sum %lld/%lld",
               (long long)cnt, (long long)rows, (long long)sq, (long long)sum_q);
    else
        ok(t, "bulk load of stock-like rows: count and sum match");
    if (good)
        printf("# bulk stock-like rows: %lld in %.3f s = %.0f rows/s wall; client CPU %.3f s = %.0f rows per "
               "client CPU second\n",
               (long long)rows, t1 - t0, (double)rows / (t1 - t0), c1 - c0, (double)rows / (c1 - c0));
    xexec(h, "DROP TABLE IF EXISTS dg_conf_stock", &err);
}

void check_server_info(struct suite *t)
{
    struct dg_err err = {0};
    struct dg_server_info info;
    if (!t->drv->server_info) {
        skip(t, "server_info", "driver has none");
        return;
    }
    int good = t->drv->server_info(t->a.c, &info, &err) == 0;
    if (good && info.engine[0] && info.version[0]) {
        ok(t, "server_info has an engine and a version");
        printf("# server: %s %s, %d settings", info.engine, info.version, info.nsettings);
        for (int i = 0; i < info.nsettings && i < 4; i++)
            printf("%s %s=%s", i ? "," : ":", info.settings[i].name, info.settings[i].value);
        printf("\n");
    } else {
        check(t, "server_info has an engine and a version", 0, good ? NULL : &err);
    }
}

void check_application_name(struct suite *t)
{
    const char *name = "application name reaches the server";
    if (t->drv->dialect != DG_DIALECT_PGSQL) {
        skip(t, name, "checked on PostgreSQL only");
        return;
    }
    struct dg_err err = {0};
    struct dg_conn_h c = {0};
    struct dg_connect_opts o = {.application = "dg-conformance"};
    struct dg_stmt *s = NULL;
    int good = dg_connect(&t->tgt, &o, &c, &err) == 0 &&
               c.drv->prepare(c.c, "SELECT current_setting('application_name')", 0, &s, &err) == 0 &&
               c.drv->execute(s, NULL, &err) == 0 && c.drv->next_row(s, &err) == 1;
    const char *v = good ? c.drv->col_text(s, 0, NULL) : NULL;
    check(t, name, good && v && strcmp(v, "dg-conformance") == 0, good ? NULL : &err);
    if (s)
        c.drv->finalize(s);
    dg_disconnect(&c);
}

/* Finds the password in scheme://user:PASS@host; returns its span or 0. */
static int url_password(const char *url, size_t *off, size_t *len)
{
    if (strncmp(url, "odbc:", 5) == 0) { /* ODBC: PWD=...; (not braced) */
        for (const char *p = url + 5; *p; p += strcspn(p, ";"), p += *p == ';') {
            if (strncasecmp(p, "PWD=", 4) == 0 && p[4] != '{') {
                *off = (size_t)(p + 4 - url);
                *len = strcspn(p + 4, ";");
                return 1;
            }
        }
        return 0;
    }
    const char *auth = strstr(url, "://");
    if (!auth)
        return 0;
    auth += 3;
    const char *end = auth + strcspn(auth, "/?#");
    const char *at = NULL;
    for (const char *q = auth; q < end; q++)
        if (*q == '@')
            at = q;
    const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    if (!colon)
        return 0;
    *off = (size_t)(colon + 1 - url);
    *len = (size_t)(at - colon - 1);
    return 1;
}

void check_bad_targets(struct suite *t)
{
    const char *url = t->tgt.url;
    size_t off, len;
    const char *name = "wrong password is DG_ERR_USER and the message holds no password";
    if (!url_password(url, &off, &len)) {
        skip(t, name, "the URL carries no password");
    } else {
        static const char wrong[] = "Wr0ng-pw-7c1e";
        char bad[1100], secret[256];
        snprintf(secret, sizeof secret, "%.*s", (int)len, url + off);
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)off, url, wrong, url + off + len);
        struct dg_target bt;
        struct dg_conn_h c = {0};
        struct dg_err err = {0};
        int rc = dg_target_parse(bad, &bt, &err) == 0 ? dg_connect(&bt, NULL, &c, &err) : -1;
        if (rc == 0) {
            not_ok(t, name, "connected with a wrong password");
            dg_disconnect(&c);
        } else if (err.cls != DG_ERR_USER) {
            check(t, name, 0, &err);
        } else if (strstr(err.msg, wrong) || (len >= 3 && strstr(err.msg, secret))) {
            not_ok(t, name, "message shows a password");
        } else {
            ok(t, name);
            printf("# wrong password message: %s\n", err.msg);
        }
    }

    name = "missing database and unreachable server are DG_ERR_USER";
    if (t->drv->dialect != DG_DIALECT_PGSQL && t->drv->dialect != DG_DIALECT_MYSQL) {
        skip(t, name, "network engines only");
        return;
    }
    /* same authority, another database; then a closed port */
    const char *auth = strstr(url, "://");
    const char *path = auth ? auth + 3 + strcspn(auth + 3, "/?#") : NULL;
    if (!path) {
        skip(t, name, "URL has no authority");
        return;
    }
    char bad[1100];
    snprintf(bad, sizeof bad, "%.*s/dg_no_such_db%s", (int)(path - url), url,
             *path == '/' ? path + 1 + strcspn(path + 1, "?#") : path);
    struct dg_target bt;
    struct dg_conn_h c = {0};
    struct dg_err e1 = {0}, e2 = {0};
    int rc1 = dg_target_parse(bad, &bt, &e1) == 0 ? dg_connect(&bt, NULL, &c, &e1) : -1;
    if (rc1 == 0)
        dg_disconnect(&c);
    char closed[256];
    snprintf(closed, sizeof closed, "%.*s://dbgauge:Unreach-pw-9a@127.0.0.1:1/dbgauge", (int)(auth - url), url);
    int rc2 = dg_target_parse(closed, &bt, &e2) == 0 ? dg_connect(&bt, NULL, &c, &e2) : -1;
    if (rc2 == 0)
        dg_disconnect(&c);
    if (rc1 == 0 || e1.cls != DG_ERR_USER)
        check(t, name, 0, rc1 ? &e1 : NULL);
    else if (rc2 == 0 || e2.cls != DG_ERR_USER || strstr(e2.msg, "Unreach-pw-9a"))
        check(t, name, 0, rc2 ? &e2 : NULL);
    else
        ok(t, name);
}

/* The monitor's calls: cache counters move when the engine reads pages; a local engine
 * says where its data is and which process serves it. */
void check_monitor_calls(struct suite *t)
{
    struct dg_err err = {0};
    if (!t->drv->cache_stats) {
        skip(t, "cache_stats", "driver has none");
    } else {
        uint64_t h0 = 0, m0 = 0, h1 = 0, m1 = 0;
        int good = t->drv->cache_stats(t->a.c, &h0, &m0, &err) == 0, moved = 0;
        /* A server publishes a session's counts when it goes idle, at most once a second. */
        for (int i = 0; good && !moved && i < 6; i++) {
            int64_t n;
            good = dg_query_int(&t->a, "SELECT COUNT(*) FROM dg_conf_t", &n, &err) == 0;
            if (!(t->drv->caps & DG_CAP_CACHE_PER_CONN)) {
                struct timespec ts = {1, 100 * 1000000};
                nanosleep(&ts, NULL);
                good = good && dg_query_int(&t->a, "SELECT COUNT(*) FROM dg_conf_t", &n, &err) == 0;
            }
            good = good && t->drv->cache_stats(t->a.c, &h1, &m1, &err) == 0;
            moved = good && h1 + m1 > h0 + m0 && h1 >= h0 && m1 >= m0;
        }
        if (!check(t, "cache_stats counts the pages a query reads", good && moved, good ? NULL : &err))
            printf("# before %llu/%llu after %llu/%llu\n", (unsigned long long)h0, (unsigned long long)m0,
                   (unsigned long long)h1, (unsigned long long)m1);
    }
    if (!t->drv->server_local) {
        skip(t, "server_local", "driver has none");
        return;
    }
    char dir[1024], want[4096];
    long pid = -1;
    int rc = t->drv->server_local(t->a.c, dir, sizeof dir, &pid, &err);
    if (t->drv->dialect == DG_DIALECT_SQLITE) {
        const char *path = strchr(t->tgt.url, ':') + 1;
        int same = realpath(path, want) && !strcmp(dir, want);
        check(t, "server_local (embedded): the database file and our own pid",
              rc == 0 && same && pid == (long)getpid(), rc < 0 ? &err : NULL);
        return;
    }
    char probe[1100];
    snprintf(probe, sizeof probe, "/proc/%ld", pid);
    int live = pid > 0 && access(probe, F_OK) == 0;
    /* a file only the engine's own data directory has */
    snprintf(probe, sizeof probe, t->dialect == DG_DIALECT_MYSQL ? "%s/mysql" : "%s/PG_VERSION", dir);
    check(t, "server_local (a server on 127.0.0.1): a live server pid and its data directory",
          rc == 0 && live && (!dir[0] || access(probe, F_OK) == 0), rc < 0 ? &err : NULL);
    printf("# server pid %ld, data directory '%s'\n", pid, dir);
}

void check_load_mode(struct suite *t)
{
    struct dg_err err = {0};
    if (!t->drv->load_mode) {
        skip(t, "load_mode on and off", "driver has none");
        return;
    }
    check(t, "load_mode on and off",
          t->drv->load_mode(t->a.c, 1, NULL, &err) == 0 && t->drv->load_mode(t->a.c, 0, NULL, &err) == 0, &err);
}

/* url as "PREFIX(scheme://userinfo@)" + "HOSTS" + "REST(/db?...)": the host list replaced by
 * hosts, and with extra (a "key=value") added to the query. 0 when url has no authority. */
static int with_hosts(const char *url, const char *hosts, const char *extra, char *out, size_t n)
{
    const char *auth = strstr(url, "://");
    if (!auth)
        return 0;
    auth += 3;
    const char *path = auth + strcspn(auth, "/");
    const char *h = auth;
    for (const char *q = auth; q < path; q++)
        if (*q == '@')
            h = q + 1;
    snprintf(out, n, "%.*s%s%s%s%s", (int)(h - url), url, hosts, path, extra ? (strchr(path, '?') ? "&" : "?") : "",
             extra ? extra : "");
    return 1;
}

/* Several hosts in one target: a dead one first, then the live one; where the connection
 * went; a bad host part; every host dead. Native PostgreSQL and MariaDB drivers. */
void check_hosts(struct suite *t)
{
    struct dg_err err = {0};
    char where[256] = "";
    dg_conn_where(&t->a, where, sizeof where);
    if (t->drv->dialect == DG_DIALECT_NONE || t->dialect == DG_DIALECT_MSSQL)
        printf("# conn_where: '%s'\n", where);
    else
        check(t, "conn_where says where the connection is", where[0] != '\0', NULL);
    const char *name = "two hosts, the first dead: connects to the second, conn_where names it";
    if (t->drv->dialect != DG_DIALECT_PGSQL && t->drv->dialect != DG_DIALECT_MYSQL) {
        skip(t, name, "native PostgreSQL and MariaDB drivers only");
        return;
    }
    char live[256], hosts[300], url[1400];
    snprintf(live, sizeof live, "%s", where);
    snprintf(hosts, sizeof hosts, "127.0.0.1:1,%s", live);
    const char *rw = t->drv->dialect == DG_DIALECT_PGSQL ? "target_session_attrs=read-write" : NULL;
    struct dg_target mt;
    struct dg_conn_h c = {0};
    int good = with_hosts(t->tgt.url, hosts, rw, url, sizeof url) && dg_target_parse(url, &mt, &err) == 0 &&
               dg_connect(&mt, NULL, &c, &err) == 0;
    if (good)
        dg_conn_where(&c, where, sizeof where);
    check(t, name, good && !strcmp(where, live), good ? NULL : &err);
    if (good && strcmp(where, live))
        printf("# conn_where '%s', want '%s'\n", where, live);
    dg_disconnect(&c);

    name = "a bad host part (empty between commas, port not a number) is DG_ERR_USER naming it";
    struct dg_err e1 = {0}, e2 = {0};
    snprintf(hosts, sizeof hosts, "%s,,127.0.0.1:1", live);
    int rc1 = with_hosts(t->tgt.url, hosts, NULL, url, sizeof url) && dg_target_parse(url, &mt, &e1) == 0 &&
              dg_connect(&mt, NULL, &c, &e1) == 0;
    dg_disconnect(&c);
    snprintf(hosts, sizeof hosts, "%s,127.0.0.1:5x", live);
    int rc2 = with_hosts(t->tgt.url, hosts, NULL, url, sizeof url) && dg_target_parse(url, &mt, &e2) == 0 &&
              dg_connect(&mt, NULL, &c, &e2) == 0;
    dg_disconnect(&c);
    if (rc1 || e1.cls != DG_ERR_USER || !strstr(e1.msg, ",,"))
        check(t, name, 0, rc1 ? NULL : &e1);
    else
        check(t, name, !rc2 && e2.cls == DG_ERR_USER && strstr(e2.msg, "port '5x'"), rc2 ? NULL : &e2);

    name = "every host dead: the error names each host tried";
    with_hosts(t->tgt.url, "127.0.0.1:1,127.0.0.1:2", NULL, url, sizeof url);
    dg_err_clear(&e1);
    rc1 = dg_target_parse(url, &mt, &e1) == 0 && dg_connect(&mt, NULL, &c, &e1) == 0;
    dg_disconnect(&c);
    int both = strstr(e1.msg, "port 1") || strstr(e1.msg, "127.0.0.1:1");
    both = both && (strstr(e1.msg, "port 2") || strstr(e1.msg, "127.0.0.1:2"));
    check(t, name, !rc1 && both, rc1 ? NULL : &e1);
}
