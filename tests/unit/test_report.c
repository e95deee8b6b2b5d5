/* test_report.c — unit tests of the report's pure pieces (src/report/chart.h, model.h,
 * experiment.h, runfig.h, summary.h): HTML and in-script JSON escaping of hostile text, chart
 * JSON, exact JSON numbers, number formatting, percent changes, item parsing, pairing
 * experiment steps by swept value, the percentile curve from a histogram, figure lookups and a
 * sweep's step table over whatever figures its runs have. No database, no browser. */
#include "report/chart.h"
#include "report/model.h"
#include "report/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The escaped text of a document or a string, from a memory stream (caller frees). */
static char *capture_json(cJSON *doc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    dg_html_json(f, doc);
    fclose(f);
    return buf;
}

/* "a|b|c" from the keys (into buf). */
static const char *joined(char *buf, size_t n, const char **keys, int k)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < k && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? "|" : "", keys[i]);
    return buf;
}

/* The union of side a then side b, as "a|b|c". */
static const char *union_of(char *buf, size_t n, const char *const *a, int na, const char *const *b, int nb)
{
    const char *all[16];
    int k = dg_exp_union(all, 0, 16, a, na);
    k = dg_exp_union(all, k, 16, b, nb);
    return joined(buf, n, all, k);
}

static char *capture_text(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    dg_html_text(f, s);
    fclose(f);
    return buf;
}

/* A sweep step with the given figures (names[k], labels[k], values[k]). */
static void step(struct dg_run_record *r, int id, int vus, int n, const char *const *names, const double *v)
{
    memset(r, 0, sizeof *r);
    r->id = id, r->vus = vus, r->measured_s = 2, r->ntypes = 1, r->server_blocks_hit = -1;
    snprintf(r->txn[0].name, sizeof r->txn[0].name, "query");
    r->txn[0].committed = 10;
    r->nfigures = n;
    for (int k = 0; k < n; k++) {
        snprintf(r->figures[k].name, sizeof r->figures[k].name, "%s", names[k]);
        snprintf(r->figures[k].label, sizeof r->figures[k].label, "%s", names[k] + 4);
        r->figures[k].decimals = k == 0 ? 2 : 0;
        r->figures[k].value = v[k];
    }
}

/* dg_report_group_text / json: the table's columns are the runs' figures, whatever they are. */
static void group_table(struct dg_test *t)
{
    static const char *const names[] = {"fig_HEAD", "fig_SECOND"};
    struct dg_run_record runs[3];
    step(&runs[0], 7, 1, 2, names, (const double[]){100, 5000});
    step(&runs[1], 8, 2, 2, names, (const double[]){150, 7000});
    step(&runs[2], 9, 4, 0, names, NULL); /* a step that measured nothing */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    dg_report_group_text(f, runs, 3);
    fclose(f);
    CHECK(t, buf && strstr(buf, "      SECOND      HEAD    change"), "group text: the second figure then the headline head the columns",
          "%s", buf);
    CHECK(t, buf && strstr(buf, "          5000    100.00") && strstr(buf, "          7000    150.00    +50.0%"),
          "group text: each figure with its decimals, the headline's change from the step before", "%s", buf);
    CHECK(t, buf && strstr(buf, "             -         -            "), "group text: a step without figures shows -", "%s", buf);
    free(buf);
    cJSON *j = dg_report_group_json(runs, 3);
    cJSON *s1 = cJSON_GetArrayItem(j, 1);
    CHECK(t, cJSON_GetArraySize(j) == 3 && cJSON_GetNumberValue(cJSON_GetObjectItem(s1, "fig_HEAD")) == 150 &&
                 cJSON_GetNumberValue(cJSON_GetObjectItem(s1, "fig_SECOND")) == 7000 &&
                 !cJSON_GetObjectItem(cJSON_GetArrayItem(j, 2), "fig_HEAD"),
          "group json: each step's figures under their names (none where it has none)", "%d", cJSON_GetArraySize(j));
    cJSON_Delete(j);
    const struct dg_run_record *both[] = {&runs[0], &runs[2], &runs[1]};
    char head[64];
    CHECK(t, !strcmp(dg_figs_head(head, sizeof head, both, 3, 0), "HEAD") && dg_run_same_fig(&runs[0], &runs[1], 0) &&
                 !dg_run_same_fig(&runs[0], &runs[2], 0) && isnan(dg_run_fig_value(&runs[2], 0)),
          "figure lookups: one head per distinct label, the same figure by name, NAN where none", "%s", head);
    /* a workload the report has never heard of: its run shows its own figures */
    struct dg_run_record o;
    step(&o, 3, 8, 2, (const char *const[]){"fig_TPS", "fig_QPS"}, (const double[]){1234.5, 24690});
    snprintf(o.workload, sizeof o.workload, "oltp");
    snprintf(o.load_model, sizeof o.load_model, "closed");
    buf = NULL;
    f = open_memstream(&buf, &len);
    dg_report_run_text(f, &o);
    fclose(f);
    CHECK(t, buf && strstr(buf, "  result   TPS 1,234.50   QPS 24,690\n"), "run text: any workload's headline and second figure",
          "%s", buf);
    free(buf);
    j = dg_report_run_json(&o);
    CHECK(t, cJSON_GetNumberValue(cJSON_GetObjectItem(j, "fig_TPS")) == 1234.5 && !cJSON_GetObjectItem(j, "nopm"),
          "run json: each figure under its name, no other workload's", "%s", "");
    cJSON_Delete(j);
    char th[32];
    CHECK(t, !strcmp(dg_report_thousands_dec(1234567.891, 2, th, sizeof th), "1,234,567.89") &&
                 !strcmp(dg_report_thousands_dec(-1234, 0, th, sizeof th), "-1,234"),
          "thousands with decimals", "%s", th);
}

int main(void)
{
    struct dg_test t = {0};
    const char *evil = "</script><script>alert(1)</script>\"'&\xe2\x80\xa8\xe2\x80\xa9<!--";

    char *h = capture_text(evil);
    CHECK(&t, !strpbrk(h, "<>\"'"), "html text: no < > \" ' left", "%s", h);
    CHECK(&t, strstr(h, "&lt;/script&gt;") && strstr(h, "&quot;&#39;&amp;"), "html text: entities", "%s", h);
    free(h);

    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "label", evil);
    char *j = capture_json(doc);
    CHECK(&t, !strpbrk(j, "<>&"), "script JSON: no < > & left", "%s", j);
    CHECK(&t, !strstr(j, "\xe2\x80\xa8") && !strstr(j, "\xe2\x80\xa9") && strstr(j, "\\u2028") && strstr(j, "\\u2029"),
          "script JSON: U+2028/2029 escaped", "%s", j);
    cJSON *back = cJSON_Parse(j);
    const cJSON *lab = cJSON_GetObjectItem(back, "label");
    CHECK(&t, cJSON_IsString(lab) && !strcmp(lab->valuestring, evil), "script JSON: reads back as the same text",
          "%s", lab && lab->valuestring ? lab->valuestring : "(none)");
    cJSON_Delete(back);
    free(j);

    struct dg_chart c;
    CHECK(&t, dg_chart_init(&c, "x", "a <b> chart", "s", "ms", 3) == 0, "chart: init", "failed");
    double *v = dg_chart_add(&c, evil, "ms", 0);
    v[0] = 1.5, v[2] = 3;
    c.x[0] = 0, c.x[1] = 1, c.x[2] = 2;
    double *w = dg_chart_add(&c, "second", "ms", 0);
    w[1] = 2;
    CHECK(&t, dg_chart_label(&c, 0, 2, "+100.0%") == 0 && dg_chart_label(&c, 1, 1, "-1.0%") == 0,
          "chart: labels on two series", "failed");
    CHECK(&t, dg_chart_label(&c, 2, 0, "x") == -1 && dg_chart_label(&c, 0, 3, "x") == -1,
          "chart: a label of no series or past the last point is refused", "accepted");
    cJSON *cj = dg_chart_json(&c);
    const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cj, "series"), 0);
    const cJSON *s1 = cJSON_GetArrayItem(cJSON_GetObjectItem(cj, "series"), 1);
    const cJSON *vals = cJSON_GetObjectItem(s0, "values");
    CHECK(&t, cJSON_GetArrayItem(vals, 0)->valuedouble == 1.5 && cJSON_IsNull(cJSON_GetArrayItem(vals, 1)),
          "chart JSON: values, NAN as null", "%s", cJSON_PrintUnformatted(vals));
    const cJSON *labels = cJSON_GetObjectItem(s0, "labels"), *labels1 = cJSON_GetObjectItem(s1, "labels");
    CHECK(&t, cJSON_GetArraySize(labels) == 3 && cJSON_IsNull(cJSON_GetArrayItem(labels, 0)) &&
              !strcmp(cJSON_GetArrayItem(labels, 2)->valuestring, "+100.0%"),
          "chart JSON: the first series' labels on its points", "labels wrong");
    CHECK(&t, cJSON_GetArraySize(labels1) == 3 && cJSON_IsNull(cJSON_GetArrayItem(labels1, 2)) &&
              !strcmp(cJSON_GetArrayItem(labels1, 1)->valuestring, "-1.0%"),
          "chart JSON: the second series' labels its own", "labels wrong");
    cJSON_Delete(cj);
    char *page = NULL;
    size_t page_len = 0;
    FILE *pf = open_memstream(&page, &page_len);
    dg_chart_html(pf, &c);
    fclose(pf);
    CHECK(&t, strstr(page, "<th>note: &lt;/script&gt;") && strstr(page, "<th>note: second</th>") &&
              strstr(page, "<td>-1.0%</td>") && strstr(page, "<td>+100.0%</td>"),
          "chart table: a note column per labelled series, named and escaped", "%.300s", page);
    free(page);
    dg_chart_free(&c);

    char b[64];
    CHECK(&t, !strcmp(dg_fmt_num(b, sizeof b, 1234567.891, 1), "1,234,567.9"), "fmt_num thousands", "%s", b);
    CHECK(&t, !strcmp(dg_fmt_num(b, sizeof b, -1234, 0), "-1,234"), "fmt_num negative", "%s", b);
    CHECK(&t, strtod(dg_fmt_exact(b, sizeof b, 0.1 + 0.2), NULL) == 0.1 + 0.2, "fmt_exact round-trips", "%s", b);
    CHECK(&t, !strcmp(dg_fmt_exact(b, sizeof b, 6), "6"), "fmt_exact is short", "%s", b);
    CHECK(&t, !strcmp(dg_pct_change(b, sizeof b, 200, 250), "+25.0%"), "pct change up", "%s", b);
    CHECK(&t, !strcmp(dg_pct_change(b, sizeof b, 200, 150), "-25.0%"), "pct change down", "%s", b);
    CHECK(&t, !strcmp(dg_pct_change(b, sizeof b, 0, 150), "n/a"), "pct change from zero", "%s", b);

    enum dg_item_kind k;
    int64_t id;
    struct dg_err e;
    CHECK(&t, !dg_report_item_parse("12", &k, &id, &e) && k == DG_ITEM_RUN && id == 12, "item: run", "%s", e.msg);
    CHECK(&t, !dg_report_item_parse("group:7", &k, &id, &e) && k == DG_ITEM_GROUP && id == 7, "item: group:7", "%s", e.msg);
    CHECK(&t, !dg_report_item_parse("g8", &k, &id, &e) && k == DG_ITEM_GROUP && id == 8, "item: g8", "%s", e.msg);
    CHECK(&t, dg_report_item_parse("x1", &k, &id, &e) && e.cls == DG_ERR_USER && strstr(e.msg, "'x1'"),
          "item: bad text named", "%s", e.msg);
    CHECK(&t, dg_report_item_parse("0", &k, &id, &e), "item: 0 refused", "accepted");
    CHECK(&t, !dg_report_item_parse("exp:3", &k, &id, &e) && k == DG_ITEM_EXPERIMENT && id == 3, "item: exp:3", "%s", e.msg);
    CHECK(&t, !dg_report_item_parse("experiment:4", &k, &id, &e) && k == DG_ITEM_EXPERIMENT && id == 4,
          "item: experiment:4", "%s", e.msg);
    CHECK(&t, dg_report_item_parse("exp:x", &k, &id, &e) && e.cls == DG_ERR_USER && strstr(e.msg, "'exp:x'"),
          "item: exp:x refused and named", "%s", e.msg);
    CHECK(&t, dg_report_item_parse("exp:", &k, &id, &e) && e.cls == DG_ERR_USER, "item: exp: without id refused", "accepted");

    /* Pairing experiment steps by swept value: an ordered union of the sides' keys. */
    char u[256];
    const char *v123[] = {"vus=1", "vus=2", "vus=3"}, *v234[] = {"vus=2", "vus=3", "vus=4"};
    const char *v13[] = {"vus=1", "vus=3"}, *v23[] = {"vus=2", "vus=3"}, *v99[] = {"vus=9"};
    CHECK(&t, !strcmp(union_of(u, sizeof u, v123, 3, v234, 3), "vus=1|vus=2|vus=3|vus=4"),
          "pairing: 1,2,3 with 2,3,4 pairs 2 and 3, adds 4 at the end", "%s", u);
    CHECK(&t, !strcmp(union_of(u, sizeof u, v234, 3, v123, 3), "vus=1|vus=2|vus=3|vus=4"),
          "pairing: 2,3,4 with 1,2,3 puts 1 before the 2 it precedes", "%s", u);
    CHECK(&t, !strcmp(union_of(u, sizeof u, v13, 2, v23, 2), "vus=1|vus=2|vus=3"),
          "pairing: a value only the second side has goes between, before its next paired value", "%s", u);
    CHECK(&t, !strcmp(union_of(u, sizeof u, v123, 3, v99, 1), "vus=1|vus=2|vus=3|vus=9"),
          "pairing: nothing in common keeps both, first side first", "%s", u);
    CHECK(&t, !strcmp(union_of(u, sizeof u, v123, 3, v123, 3), "vus=1|vus=2|vus=3"),
          "pairing: the same sweep pairs every step, position by value", "%s", u);
    const char *few[2];
    CHECK(&t, dg_exp_union(few, 0, 2, v123, 3) == 2 && dg_exp_find(few, 2, "vus=2") == 1 &&
              dg_exp_find(few, 2, "vus=3") == -1, "pairing: keys beyond the room are dropped", "wrong");

    /* Exact JSON numbers: each double reads back bit for bit, integers stay integers. */
    const double exact[] = {84.837852153707615, 0.1 + 0.2, 1.0 / 3, 23700, 1e300, -2.5e-300, 9007199254740993.0};
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(exact[i]));
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(NAN));
    CHECK(&t, dg_json_exact(arr) == 0, "json exact: pass runs", "failed");
    char *printed = cJSON_PrintUnformatted(arr);
    cJSON *again = cJSON_Parse(printed);
    int same = again && cJSON_GetArraySize(again) == 8;
    for (size_t i = 0; same && i < sizeof exact / sizeof *exact; i++)
        same = cJSON_GetArrayItem(again, (int)i)->valuedouble == exact[i];
    CHECK(&t, same && cJSON_IsNull(cJSON_GetArrayItem(again, 7)), "json exact: every double reads back bit for bit, NAN null",
          "%s", printed);
    CHECK(&t, !strncmp(printed, "[84.837852153707615,", 20) && strstr(printed, ",23700,"),
          "json exact: 17 digits where 15 lose, integers as integers", "%s", printed);
    free(printed);
    cJSON_Delete(again);
    cJSON_Delete(arr);

    struct dg_hist *hist = dg_hist_new();
    for (uint64_t i = 1; i <= 1000; i++)
        dg_hist_record(hist, i * 1000000); /* 1..1000 ms */
    CHECK(&t, fabs(dg_curve_ms(hist, 50) - 500) < 0.5 && fabs(dg_curve_ms(hist, 99) - 990) < 1,
          "curve: percentiles of 1..1000 ms", "p50 %f p99 %f", dg_curve_ms(hist, 50), dg_curve_ms(hist, 99));
    CHECK(&t, fabs(dg_curve_ms(hist, 100) - 1000) < 1e-9, "curve: the last point is the maximum", "%f", dg_curve_ms(hist, 100));
    CHECK(&t, isnan(dg_curve_ms(NULL, 50)), "curve: no histogram, no value", "not NAN");
    CHECK(&t, fabs(dg_curve_x(99.9) - 3) < 1e-9 && dg_curve_x(100) == 6, "curve: x in nines", "%f", dg_curve_x(99.9));
    dg_hist_free(hist);
    group_table(&t);
    return dg_test_done(&t);
}
