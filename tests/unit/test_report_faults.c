/* test_report_faults.c — how reports show what a run went through (src/report/events.c,
 * runcharts.c, htmlparts.c): the text lines of outages and faults in order of time, the
 * in-doubt errors, the --rate verdict by both rules (late + skipped at most 1% of arrivals for
 * runs that recorded them; achieved rate and start lag for older ones), the JSON's outages,
 * faults, schedule and in_doubt, and the HTML: one shaded span per outage and one mark per
 * fault on every per-second chart, the errors-and-reconnects chart, the tables; compare's rows
 * of what a failover cost each side. No database:
 * records as dg_store_get reads them (tests/unit/faults_fixture.h). */
#include "report/cmptable.h"
#include "report/compare.h"
#include "report/html.h"
#include "report/model.h"
#include "report/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "faults_fixture.h"

/* The fixture as read back from a schema-10 file: the "recorded" flags set. */
static int fixture(struct dg_run_record *r)
{
    if (dg_faults_fixture(r, 0))
        return -1;
    r->id = 42;
    r->schedule_known = 1;
    for (int t = 0; t < r->ntypes; t++)
        r->txn[t].in_doubt_known = 1;
    for (int k = 0; k < r->ntargets; k++)
        r->targets[k].txn[0].in_doubt_known = 1;
    return 0;
}

/* As a run stored before schema 10 reads back: nothing of it recorded. */
static void make_old(struct dg_run_record *r)
{
    r->schedule_known = 0;
    r->arrivals = r->late = r->skipped = 0;
    for (int t = 0; t < r->ntypes; t++)
        r->txn[t].in_doubt_known = 0, r->txn[t].in_doubt = 0;
    r->nfaults = r->noutages = 0;
}

/* The page of run r alone, as `dbgauge report ID` writes it. */
static void run_page(FILE *out, struct dg_run_record *r)
{
    struct dg_report_item it = {.kind = DG_ITEM_RUN, .id = r->id, .runs = r, .nruns = 1};
    dg_report_html(out, &it, 1);
}

static void run_text(FILE *out, struct dg_run_record *r) { dg_report_run_text(out, r); }

/* What render writes of r, as a string the caller frees. */
static char *capture(void (*render)(FILE *, struct dg_run_record *), struct dg_run_record *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    render(f, r);
    fclose(f);
    return buf;
}

static char *text_of(struct dg_run_record *r) { return capture(run_text, r); }
static char *html_of(struct dg_run_record *r) { return capture(run_page, r); }

static void text(struct dg_test *t, struct dg_run_record *r)
{
    char *s = text_of(r);
    const char *o2 = strstr(s, "  outage   target 2: at -1.5 s (warm-up) for 0.5 s, 3 errors, 2 reconnects; "
                               "first commit never, back to 90% never\n");
    const char *f1 = strstr(s, "  fault    at 8.0 s: pg_ctl -D /tmp/pg stop -m immediate (ran 0.4 s, exit 0)\n");
    const char *o1 = strstr(s, "  outage   target 1: at 8.1 s for 3.4 s, 212 errors, 57 reconnects; first commit "
                               "after 3.6 s, back to 90% after 5.0 s, back on 127.0.0.1:5432\n");
    const char *f2 = strstr(s, "  fault    at 15.0 s: sleep 100 && echo '<b>&\"x\"' # password=*** (still running "
                               "when the run ended, exit 137: signal 9)\n");
    CHECK(t, o1 && o2 && f1 && f2, "text: a line per outage (target, never) and per fault (ran, still running, signal)",
          "%s", s);
    CHECK(t, o2 < f1 && f1 < o1 && o1 < f2, "text: one timeline of faults and outages, in order of time",
          "%p %p %p %p", (void *)o2, (void *)f1, (void *)o1, (void *)f2);
    CHECK(t, strstr(s, "  in doubt 4 of the 335 errors (new_order 3, payment 1): "),
          "text: the in-doubt errors, all types and each", "%s", s);
    CHECK(t, strstr(s, "achieved: kept up;") && strstr(s, "  schedule 2,000 arrivals, 15 late, 4 skipped: 0.95% late or skipped"),
          "text: 0.95% late or skipped keeps up, though the start lag p99 is 300 ms", "%s", s);
    free(s);
    r->late = 17; /* 21 of 2,000: 1.05% */
    s = text_of(r);
    CHECK(t, strstr(s, "achieved: FELL BEHIND") && strstr(s, "1.05% late or skipped"),
          "text: 1.05% late or skipped fell behind", "%s", s);
    free(s);
    r->late = 16; /* 20 of 2,000: exactly 1% */
    s = text_of(r);
    CHECK(t, strstr(s, "achieved: kept up;"), "text: exactly 1% late or skipped still keeps up", "%s", s);
    free(s);
    r->arrivals = r->late = r->skipped = 0; /* stored at schema 10 by a runner that did not count them */
    s = text_of(r);
    CHECK(t, strstr(s, "achieved: FELL BEHIND") && !strstr(s, "schedule"),
          "text: no arrivals counted in a window with commits: the lag rule (p99 300 ms), no schedule line", "%s", s);
    free(s);
    r->arrivals = 2000, r->late = 15, r->skipped = 4;
    int nt = r->ntargets;
    r->ntargets = 0; /* one target: no "target N" */
    s = text_of(r);
    CHECK(t, strstr(s, "  outage   at 8.1 s for 3.4 s,") && !strstr(s, "target 1:"),
          "text: a one-target run's outages name no target", "%s", s);
    free(s);
    r->ntargets = nt;
}

/* Older runs keep the old rule: 95% of the asked rate achieved and a start lag p99 < 100 ms. */
static void old_rule(struct dg_test *t, struct dg_run_record *r)
{
    make_old(r);
    char *s = text_of(r); /* 1,900 in 20 s: 95/s of 100 asked, lag p99 300 ms */
    CHECK(t, strstr(s, "achieved: FELL BEHIND") && !strstr(s, "schedule") && !strstr(s, "in doubt") &&
                 !strstr(s, "outage") && !strstr(s, "fault"),
          "old run: the lag rule says FELL BEHIND at p99 300 ms; no schedule, in-doubt, outage or fault line", "%s", s);
    free(s);
    r->lag_p99_ms = 50;
    s = text_of(r);
    CHECK(t, strstr(s, "achieved: kept up;"), "old run: 95% achieved and p99 50 ms keeps up", "%s", s);
    free(s);
    r->txn[0].committed -= 2; /* 94.9/s */
    s = text_of(r);
    CHECK(t, strstr(s, "achieved: FELL BEHIND"), "old run: 94.9% achieved fell behind", "%s", s);
    free(s);
    cJSON *j = dg_report_run_json(r);
    cJSON *tx = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "transactions"), "new_order");
    CHECK(t, cJSON_GetArraySize(cJSON_GetObjectItem(j, "outages")) == 0 &&
                 cJSON_IsArray(cJSON_GetObjectItem(j, "faults")) && !cJSON_GetObjectItem(j, "schedule") &&
                 !cJSON_GetObjectItem(tx, "in_doubt") &&
                 cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "rate"), "kept_up")),
          "old run JSON: empty outages and faults, no schedule, no in_doubt, kept_up by the old rule", "%s", "");
    cJSON_Delete(j);
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void json(struct dg_test *t, const struct dg_run_record *r)
{
    cJSON *j = dg_report_run_json(r);
    const cJSON *o = cJSON_GetObjectItem(j, "outages"), *f = cJSON_GetObjectItem(j, "faults");
    const cJSON *o0 = cJSON_GetArrayItem(o, 1), *o1 = cJSON_GetArrayItem(o, 0);
    CHECK(t, cJSON_GetArraySize(o) == 2 && num(o0, "target") == 1 && num(o0, "start_s") == 8.1 &&
                 num(o0, "duration_s") == 3.4 && num(o0, "errors") == 212 && num(o0, "reconnects") == 57 &&
                 num(o0, "first_commit_s") == 3.6 && num(o0, "recovery_s") == 5 &&
                 !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(o0, "back_on")), "127.0.0.1:5432") &&
                 num(o1, "target") == 2 && num(o1, "start_s") == -1.5 &&
                 cJSON_IsNull(cJSON_GetObjectItem(o1, "first_commit_s")) && cJSON_IsNull(cJSON_GetObjectItem(o1, "recovery_s")),
          "json: outages with every field, targets from 1, never as null", "%d", cJSON_GetArraySize(o));
    const cJSON *f1 = cJSON_GetArrayItem(f, 1);
    CHECK(t, cJSON_GetArraySize(f) == 2 && num(cJSON_GetArrayItem(f, 0), "end_s") == 8.4 && num(f1, "offset_s") == 15 &&
                 num(f1, "start_s") == 15.002 && cJSON_IsNull(cJSON_GetObjectItem(f1, "end_s")) &&
                 num(f1, "exit_status") == 137 &&
                 !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f1, "command")), r->faults[1].command),
          "json: faults with every field, a running one's end null", "%d", cJSON_GetArraySize(f));
    const cJSON *s = cJSON_GetObjectItem(j, "schedule");
    CHECK(t, num(s, "arrivals") == 2000 && num(s, "late") == 15 && num(s, "skipped") == 4 &&
                 cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "rate"), "kept_up")),
          "json: the schedule, and kept_up by it", "%g", num(s, "late"));
    const cJSON *tx = cJSON_GetObjectItem(j, "transactions");
    CHECK(t, num(cJSON_GetObjectItem(tx, "new_order"), "in_doubt") == 3 && num(cJSON_GetObjectItem(tx, "payment"), "in_doubt") == 1,
          "json: in_doubt per type", "%g", num(cJSON_GetObjectItem(tx, "new_order"), "in_doubt"));
    cJSON_Delete(j);
}

/* What the per-second charts of a page carry. */
struct per_second {
    int charts, with_all_spans, err_chart_ok;
    char ids[256];
};

static void count_spans(const cJSON *c, const struct dg_run_record *r, struct per_second *ps)
{
    int shade = 0, mark = 0;
    const cJSON *sp;
    cJSON_ArrayForEach(sp, cJSON_GetObjectItem(c, "spans"))
    {
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(sp, "kind"));
        shade += kind && !strcmp(kind, "shade");
        mark += kind && !strcmp(kind, "mark");
    }
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(c, "id"));
    size_t o = strlen(ps->ids);
    snprintf(ps->ids + o, sizeof ps->ids - o, "%s ", id ? id : "?");
    ps->charts++;
    ps->with_all_spans += shade == r->noutages && mark == r->nfaults;
    if (!id || strcmp(id, "run42-err"))
        return;
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(c, "series"))
    {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s, "name")), "reconnects"))
            continue;
        const cJSON *v = cJSON_GetObjectItem(s, "values");
        int same = cJSON_GetArraySize(v) == (int)r->nseries;
        for (size_t k = 0; same && k < r->nseries; k++)
            same = cJSON_GetArrayItem(v, (int)k)->valuedouble == (double)r->series[k].reconnects;
        ps->err_chart_ok = same;
    }
}

/* Parses every chart's inline data in page and counts the per-second ones' spans. */
static void per_second_charts(const char *page, const struct dg_run_record *r, struct per_second *ps)
{
    static const char open[] = "<script type=\"application/json\" class=\"chart-data\">";
    memset(ps, 0, sizeof *ps);
    for (const char *p = strstr(page, open); p; p = strstr(p, open)) {
        p += strlen(open);
        const char *end = strstr(p, "</script>");
        if (!end)
            break;
        char *doc = strndup(p, (size_t)(end - p));
        cJSON *c = doc ? cJSON_Parse(doc) : NULL;
        const char *x = cJSON_GetStringValue(cJSON_GetObjectItem(c, "x_label"));
        if (x && !strcmp(x, "second"))
            count_spans(c, r, ps);
        cJSON_Delete(c);
        free(doc);
    }
}

static void html(struct dg_test *t, struct dg_run_record *r)
{
    char *page = html_of(r);
    struct per_second ps;
    per_second_charts(page, r, &ps);
    CHECK(t, ps.charts == 3 && ps.with_all_spans == 3 && strstr(ps.ids, "run42-tput") && strstr(ps.ids, "run42-lat"),
          "html: throughput, latency and errors per second, each with one shaded span per outage and one mark per fault",
          "%d charts, %d with all spans: %s", ps.charts, ps.with_all_spans, ps.ids);
    CHECK(t, ps.err_chart_ok, "html: the errors chart has the reconnects of every second", "%s", ps.ids);
    CHECK(t, strstr(page, "<th>errors</th><th>in doubt</th>") && strstr(page, "<tr data-outage=\"1\">") &&
                 !strstr(page, "data-outage=\"2\"") && strstr(page, "<tr data-fault=\"1\">"),
          "html: an in-doubt column, a table row per outage and per fault", "%.200s", strstr(page, "<table class=\"data txn"));
    CHECK(t, strstr(page, "echo &#39;&lt;b&gt;&amp;&quot;x&quot;&#39;") && !strstr(page, "<b>&"),
          "html: the fault's command is escaped in its table and in the charts' data", "%s", "");
    CHECK(t, strstr(page, "data-key=\"late_skipped_pct\" data-v=\"0.95\"") &&
                 strstr(page, "late or skipped % (kept up)"),
          "html: the schedule's card: 0.95% late or skipped, kept up", "%s", "");
    free(page);
    struct dg_run_record old = *r;
    make_old(&old); /* a copy: same arrays, counts cleared */
    page = html_of(&old);
    per_second_charts(page, &old, &ps);
    CHECK(t, !strstr(page, "\"spans\"") && !strstr(page, "<th>in doubt</th>") && !strstr(page, "data-outage") &&
                 strstr(page, "Run 42: errors per second") && !strstr(page, "reconnects") && ps.charts == 3,
          "html of an old run: no spans, in-doubt column or outage table; its errors per second, no reconnects",
          "%s", ps.ids);
    free(page);
    for (size_t k = 0; k < old.nseries; k++)
        for (int ty = 0; ty < old.ntypes; ty++)
            old.series[k].t[ty].c.errors = 0;
    page = html_of(&old);
    per_second_charts(page, &old, &ps);
    CHECK(t, !strstr(ps.ids, "-err") && ps.charts == 2, "html of an old run without errors: no errors chart", "%s",
          ps.ids);
    free(page);
}

/* compare's text of sides a and b, as a string the caller frees; NULL when it does not build. */
static char *compare_text(struct dg_test *t, const struct dg_run_record *a, const struct dg_run_record *b)
{
    struct dg_report_item it[2] = {{.kind = DG_ITEM_RUN, .id = a->id, .runs = (struct dg_run_record *)a, .nruns = 1},
                                   {.kind = DG_ITEM_RUN, .id = b->id, .runs = (struct dg_run_record *)b, .nruns = 1}};
    struct dg_compare c;
    struct dg_err err = {0};
    if (dg_compare_build(&c, it, 2, &err)) {
        CHECK(t, 0, "compare builds", "%s", err.msg);
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    dg_compare_text(f, &c);
    fclose(f);
    dg_compare_free(&c);
    return buf;
}

/* The words after row NAME of compare's text, spaces squeezed ("11.5 - n/a"); "" without it. */
static void row_words(const char *text, const char *name, char *out, size_t n)
{
    out[0] = '\0';
    const char *at = text;
    while ((at = strstr(at, name)) && !(at == text || at[-1] == '\n'))
        at++;
    if (!at || at[strlen(name)] != ' ')
        return;
    size_t o = 0;
    for (const char *p = at + strlen(name); *p && *p != '\n' && o + 1 < n; p++)
        if (*p != ' ' || (o && out[o - 1] != ' '))
            out[o++] = *p;
    while (o && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
    if (out[0] == ' ')
        memmove(out, out + 1, o);
}

/* compare: a run through a failover (the fixture's outage at 8.1 s: last commit 7.9 s before
 * it, first 3.6 s after, back to 90% 5.0 s after; audited, 5 lost) beside one without an
 * outage (audited, none lost): what the failover cost each; two quiet runs: none of it. */
static void compare_failover(struct dg_test *t, const struct dg_run_record *r)
{
    struct dg_run_record a = *r, b = *r; /* shallow: only the copies' own fields change */
    a.outages = r->outages + 1, a.noutages = 1;
    a.audited = 1;
    a.audit = (struct dg_audit_summary){.acknowledged = 1000, .found = 995, .lost = 5, .lost_first_ms = 100,
                                        .lost_last_ms = 150};
    b.id = 43, b.noutages = 0, b.audited = 1;
    b.audit = (struct dg_audit_summary){.acknowledged = 900, .found = 900, .pass = 1};
    char *s = compare_text(t, &a, &b);
    if (!s)
        return;
    static const char *const want[][2] = {
        {"outages", "1 0 -100.0%"},
        {"failover RTO s", "11.5 - n/a"},          /* 7.9 + 3.6 */
        {"failover recovery s", "12.9 - n/a"},     /* 7.9 + 5.0 */
        {"RPO: acknowledged writes lost", "5 0 -100.0%"},
        {"RPO: s of acknowledged work lost", "0.1 0.0 -100.0%"}, /* the last commit (8.1 - 7.9 s) less 0.1 s */
        {"commits in doubt", "4 4 +0.0%"},
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        char got[128], name[128];
        row_words(s, want[k][0], got, sizeof got);
        snprintf(name, sizeof name, "compare: row '%s' of a failover beside a run without one", want[k][0]);
        CHECK(t, !strcmp(got, want[k][1]), name, "'%s', want '%s'", got, want[k][1]);
    }
    free(s);
    /* two runs with nothing of the kind: no outage, no audit, nothing in doubt */
    struct dg_run_record q1 = b, q2 = b;
    q1.audited = q2.audited = 0;
    for (int ty = 0; ty < q1.ntypes; ty++)
        q1.txn[ty].in_doubt = q2.txn[ty].in_doubt = 0;
    q2.id = 44;
    s = compare_text(t, &q1, &q2);
    CHECK(t, s && !strstr(s, "outages") && !strstr(s, "RTO") && !strstr(s, "RPO") && !strstr(s, "in doubt"),
          "compare: two runs without outage, audit or doubt have no failover rows", "%s", s ? s : "-");
    free(s);
}

int main(void)
{
    struct dg_test t = {0};
    struct dg_run_record r;
    if (fixture(&r)) {
        CHECK(&t, 0, "the fixture is made", "out of memory");
        return dg_test_done(&t);
    }
    text(&t, &r);
    r.late = 15;
    json(&t, &r);
    html(&t, &r);
    compare_failover(&t, &r);
    old_rule(&t, &r); /* makes r an old run: last */
    dg_run_record_free(&r);
    return dg_test_done(&t);
}
