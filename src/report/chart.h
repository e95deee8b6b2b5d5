/* chart.h — a generic chart: a title, an x axis, named series of numbers, an optional shaded
 * x range, labelled x spans (shaded bands, marked lines) and optional labels on points; rendered as inline JSON the report's glue script
 * draws with uPlot, plus a table with the same numbers. Also the HTML/JSON escaping every
 * renderer uses. Knows nothing of runs or of the results database. */
#ifndef DG_REPORT_CHART_H
#define DG_REPORT_CHART_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#define DG_CHART_MAX_SERIES 24

enum dg_chart_x { DG_X_LINEAR = 0, DG_X_NINES }; /* nines: x = -log10(1 - p/100), shown as p% */

struct dg_chart_series {
    char name[96];
    char unit[16];
    double *v; /* nx values, NAN for none; owned by the chart */
    int hidden; /* drawn only when the reader turns it on in the legend */
    char **labels; /* optional, owned: nx texts drawn above this series' points (NULL for none) */
};

/* An x span drawn behind the series: a shaded band (what went wrong for a while: an outage),
 * or a mark (a line at `from`, lightly banded to `to`: something done, as a fault set off). */
enum dg_span_kind { DG_SPAN_SHADE = 0, DG_SPAN_MARK };
struct dg_chart_span {
    enum dg_span_kind kind;
    double from, to;
    char label[96];
};

struct dg_chart {
    char id[40];
    char title[200];
    char x_label[64], y_label[64];
    enum dg_chart_x x_kind;
    int log_y, bars;
    size_t nx;
    double *x;             /* owned */
    char **x_text;         /* optional, owned: how the table and the x axis show each x */
    int nseries;
    struct dg_chart_series s[DG_CHART_MAX_SERIES];
    int has_shade;
    double shade_lo, shade_hi;
    char shade_label[48];
    struct dg_chart_span *spans; /* owned */
    int nspans;
};

/* Makes an empty chart of nx points (x zeroed). Returns 0 or -1 (out of memory). The chart
 * owns everything it points to until dg_chart_free. */
int dg_chart_init(struct dg_chart *c, const char *id, const char *title, const char *x_label,
                  const char *y_label, size_t nx);
/* Adds a series (values NAN until set); returns its values or NULL (full, or out of memory). */
double *dg_chart_add(struct dg_chart *c, const char *name, const char *unit, int hidden);
/* Sets the table text of point i (x_text), or the label written above series k at point i
 * (several series may carry labels: a comparison writes each side's change on its own bar).
 * 0 or -1 (no such point or series, out of memory). */
int dg_chart_x_text(struct dg_chart *c, size_t i, const char *text);
int dg_chart_label(struct dg_chart *c, int k, size_t i, const char *text);
/* Adds a span; 0 or -1 (out of memory). */
int dg_chart_span(struct dg_chart *c, enum dg_span_kind kind, double from, double to, const char *label);
void dg_chart_free(struct dg_chart *c);

/* Writes the chart: a <figure> with its data (escaped JSON in a script block) and a table. */
void dg_chart_html(FILE *out, const struct dg_chart *c);
/* The chart as a cJSON object (caller owns), the document the glue script reads. */
cJSON *dg_chart_json(const struct dg_chart *c);

/* Writes s escaped for HTML text and attribute values (& < > " '). NULL writes nothing. */
void dg_html_text(FILE *out, const char *s);
/* Makes every number of doc print exactly: cJSON prints doubles with 15 significant digits
 * when they read back "close enough", so each finite number becomes raw text that reads back
 * bit for bit (integers up to 2^53 as integers, else dg_fmt_exact). Call just before printing;
 * the numbers are text afterwards. 0, or -1 out of memory (numbers left as they were). */
int dg_json_exact(cJSON *doc);
/* Writes a JSON document safe inside <script>: <, >, &, U+2028, U+2029 as \u escapes.
 * Frees doc. */
void dg_html_json(FILE *out, cJSON *doc);
/* A table cell holding a number: data-v carries the exact value, the text `decimals` places
 * (with thousands separators when decimals is 0). NAN writes an empty cell. */
void dg_html_num_td(FILE *out, double v, int decimals);
/* A table cell holding a percent: data-v exact, the text "+12.3%"; NAN writes "n/a". */
void dg_html_pct_td(FILE *out, double pct);
/* v as the shortest text that reads back as exactly v ("%.15g" when it round-trips, else "%.17g"). */
const char *dg_fmt_exact(char *buf, size_t n, double v);
/* v with `decimals` places and thousands separators (1234567.8, 1 -> "1,234,567.8"). */
const char *dg_fmt_num(char *buf, size_t n, double v, int decimals);

#endif
