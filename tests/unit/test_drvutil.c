/* test_drvutil.c — unit tests of the helpers every driver shares from core/: exact decimal
 * text (numtext), buffer growth (buf), URL query pairs (urlq), the bulk INSERT text
 * (sqltext) and the statement list (list). Pure functions; no database. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/list.h"
#include "core/numtext.h"
#include "core/sqltext.h"
#include "core/urlq.h"
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

static void sqltext(struct dg_test *t)
{
    static const char *const cols[] = {"a", "b"};
    char out[64], small[20];
    int n = dg_insert_sql(out, sizeof out, "t", cols, 2);
    CHECK(t, n > 0 && !strcmp(out, "INSERT INTO t (a, b) VALUES (?, ?)"), "sqltext: the bulk INSERT", "'%s'", out);
    CHECK(t, dg_insert_sql(small, sizeof small, "t", cols, 2) == -1, "sqltext: too long is -1", "it is not");
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

int main(void)
{
    struct dg_test t = {0};
    numtext(&t);
    buf(&t);
    urlq(&t);
    sqltext(&t);
    list(&t);
    return dg_test_done(&t);
}
