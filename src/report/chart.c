/* chart.c — generic charts as inline data plus a table of the same numbers, and the escaping
 * of everything written into a report (HTML text, JSON inside <script>). No run knowledge. */
#include "report/chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int dg_chart_init(struct dg_chart *c, const char *id, const char *title, const char *x_label,
                  const char *y_label, size_t nx)
{
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id);
    snprintf(c->title, sizeof c->title, "%s", title);
    snprintf(c->x_label, sizeof c->x_label, "%s", x_label);
    snprintf(c->y_label, sizeof c->y_label, "%s", y_label);
    c->nx = nx;
    c->x = calloc(nx ? nx : 1, sizeof *c->x);
    return c->x ? 0 : -1;
}

double *dg_chart_add(struct dg_chart *c, const char *name, const char *unit, int hidden)
{
    if (c->nseries == DG_CHART_MAX_SERIES)
        return NULL;
    struct dg_chart_series *s = &c->s[c->nseries];
    s->v = malloc((c->nx ? c->nx : 1) * sizeof *s->v);
    if (!s->v)
        return NULL;
    for (size_t i = 0; i < c->nx; i++)
        s->v[i] = NAN;
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->unit, sizeof s->unit, "%s", unit ? unit : "");
    s->hidden = hidden;
    c->nseries++;
    return s->v;
}

static int set_text(char ***arr, size_t nx, size_t i, const char *text)
{
    if (!*arr && !(*arr = calloc(nx ? nx : 1, sizeof **arr)))
        return -1;
    free((*arr)[i]);
    return ((*arr)[i] = strdup(text)) ? 0 : -1;
}

int dg_chart_x_text(struct dg_chart *c, size_t i, const char *text)
{
    return i < c->nx ? set_text(&c->x_text, c->nx, i, text) : -1;
}

int dg_chart_label(struct dg_chart *c, int k, size_t i, const char *text)
{
    return k >= 0 && k < c->nseries && i < c->nx ? set_text(&c->s[k].labels, c->nx, i, text) : -1;
}

int dg_chart_span(struct dg_chart *c, enum dg_span_kind kind, double from, double to, const char *label)
{
    struct dg_chart_span *grown = realloc(c->spans, (size_t)(c->nspans + 1) * sizeof *grown);
    if (!grown)
        return -1;
    c->spans = grown;
    struct dg_chart_span *sp = &c->spans[c->nspans++];
    sp->kind = kind;
    sp->from = from;
    sp->to = to;
    snprintf(sp->label, sizeof sp->label, "%s", label);
    return 0;
}

static void free_texts(char **arr, size_t n)
{
    for (size_t i = 0; arr && i < n; i++)
        free(arr[i]);
    free(arr);
}

void dg_chart_free(struct dg_chart *c)
{
    for (int k = 0; k < c->nseries; k++) {
        free(c->s[k].v);
        free_texts(c->s[k].labels, c->nx);
    }
    free(c->x);
    free(c->spans);
    free_texts(c->x_text, c->nx);
    memset(c, 0, sizeof *c);
}

static cJSON *num_or_null(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

cJSON *dg_chart_json(const struct dg_chart *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", c->id);
    cJSON_AddStringToObject(o, "title", c->title);
    cJSON_AddStringToObject(o, "x_label", c->x_label);
    cJSON_AddStringToObject(o, "y_label", c->y_label);
    cJSON_AddStringToObject(o, "x_kind", c->x_kind == DG_X_NINES ? "nines" : "linear");
    cJSON_AddBoolToObject(o, "log_y", c->log_y);
    cJSON_AddBoolToObject(o, "bars", c->bars);
    cJSON *x = cJSON_AddArrayToObject(o, "x");
    for (size_t i = 0; i < c->nx; i++)
        cJSON_AddItemToArray(x, num_or_null(c->x[i]));
    if (c->x_text) {
        cJSON *t = cJSON_AddArrayToObject(o, "x_text");
        for (size_t i = 0; i < c->nx; i++)
            cJSON_AddItemToArray(t, cJSON_CreateString(c->x_text[i] ? c->x_text[i] : ""));
    }
    cJSON *series = cJSON_AddArrayToObject(o, "series");
    for (int k = 0; k < c->nseries; k++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "name", c->s[k].name);
        cJSON_AddStringToObject(s, "unit", c->s[k].unit);
        cJSON_AddBoolToObject(s, "hidden", c->s[k].hidden);
        cJSON *v = cJSON_AddArrayToObject(s, "values");
        for (size_t i = 0; i < c->nx; i++)
            cJSON_AddItemToArray(v, num_or_null(c->s[k].v[i]));
        if (c->s[k].labels) {
            cJSON *l = cJSON_AddArrayToObject(s, "labels");
            for (size_t i = 0; i < c->nx; i++)
                cJSON_AddItemToArray(l, c->s[k].labels[i] ? cJSON_CreateString(c->s[k].labels[i])
                                                          : cJSON_CreateNull());
        }
        cJSON_AddItemToArray(series, s);
    }
    if (c->has_shade) {
        cJSON *sh = cJSON_AddObjectToObject(o, "shade");
        cJSON_AddNumberToObject(sh, "from", c->shade_lo);
        cJSON_AddNumberToObject(sh, "to", c->shade_hi);
        cJSON_AddStringToObject(sh, "label", c->shade_label);
    }
    cJSON *spans = c->nspans ? cJSON_AddArrayToObject(o, "spans") : NULL; /* none: no key, as before */
    for (int k = 0; k < c->nspans; k++) {
        cJSON *sp = cJSON_CreateObject();
        cJSON_AddStringToObject(sp, "kind", c->spans[k].kind == DG_SPAN_MARK ? "mark" : "shade");
        cJSON_AddNumberToObject(sp, "from", c->spans[k].from);
        cJSON_AddNumberToObject(sp, "to", c->spans[k].to);
        cJSON_AddStringToObject(sp, "label", c->spans[k].label);
        cJSON_AddItemToArray(spans, sp);
    }
    return o;
}

void dg_html_text(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

int dg_json_exact(cJSON *doc)
{
    cJSON *it;
    int rc = 0;
    cJSON_ArrayForEach(it, doc)
    {
        if (cJSON_IsNumber(it) && isfinite(it->valuedouble)) {
            char buf[40];
            double v = it->valuedouble;
            if (v == floor(v) && fabs(v) <= 9007199254740992.0)
                snprintf(buf, sizeof buf, "%.0f", v);
            else
                dg_fmt_exact(buf, sizeof buf, v);
            char *raw = cJSON_malloc(strlen(buf) + 1);
            if (!raw)
                return -1;
            memcpy(raw, buf, strlen(buf) + 1);
            it->type = cJSON_Raw | (it->type & cJSON_StringIsConst); /* the key stays as it was */
            it->valuestring = raw;
        } else if (cJSON_IsArray(it) || cJSON_IsObject(it)) {
            rc |= dg_json_exact(it);
        }
    }
    return rc;
}

void dg_html_json(FILE *out, cJSON *doc)
{
    dg_json_exact(doc);
    char *s = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if (*p == '<' || *p == '>' || *p == '&')
            fprintf(out, "\\u%04x", *p);
        else if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
            fprintf(out, "\\u%04x", p[2] == 0xa8 ? 0x2028 : 0x2029);
            p += 2;
        } else
            fputc(*p, out);
    }
    free(s);
}

const char *dg_fmt_num(char *buf, size_t n, double v, int decimals)
{
    char raw[64];
    snprintf(raw, sizeof raw, "%.*f", decimals, v);
    const char *dot = strchr(raw, '.');
    size_t intlen = dot ? (size_t)(dot - raw) : strlen(raw);
    size_t start = raw[0] == '-' ? 1 : 0, o = 0;
    for (size_t i = 0; raw[i] && o + 2 < n; i++) {
        if (i > start && i < intlen && (intlen - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
    return buf;
}

const char *dg_fmt_exact(char *buf, size_t n, double v)
{
    snprintf(buf, n, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, n, "%.17g", v);
    return buf;
}

void dg_html_num_td(FILE *out, double v, int decimals)
{
    char b[64], e[40];
    if (!isfinite(v)) {
        fputs("<td></td>", out);
        return;
    }
    fprintf(out, "<td class=\"n\" data-v=\"%s\">%s</td>", dg_fmt_exact(e, sizeof e, v),
            dg_fmt_num(b, sizeof b, v, decimals));
}

void dg_html_pct_td(FILE *out, double pct)
{
    char e[40];
    if (isfinite(pct))
        fprintf(out, "<td class=\"n\" data-v=\"%s\">%+.1f%%</td>", dg_fmt_exact(e, sizeof e, pct), pct);
    else
        fputs("<td class=\"n\">n/a</td>", out);
}

/* Decimals that show a value of this size to about 4 significant digits. */
static int decimals_for(double v)
{
    double a = fabs(v);
    return a == 0 || a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4;
}

void dg_chart_html(FILE *out, const struct dg_chart *c)
{
    fprintf(out, "<figure class=\"chart\" id=\"");
    dg_html_text(out, c->id);
    fprintf(out, "\"><figcaption>");
    dg_html_text(out, c->title);
    fprintf(out, "</figcaption>\n<div class=\"plot\"></div>\n<script type=\"application/json\" class=\"chart-data\">");
    dg_html_json(out, dg_chart_json(c));
    fprintf(out, "</script>\n<details%s><summary>table</summary><table class=\"data\"><thead><tr><th>",
            c->nx <= 16 ? " open" : "");
    dg_html_text(out, c->x_label);
    fprintf(out, "</th>");
    for (int k = 0; k < c->nseries; k++) {
        fprintf(out, "<th>");
        dg_html_text(out, c->s[k].name);
        if (c->s[k].unit[0]) {
            fprintf(out, " (");
            dg_html_text(out, c->s[k].unit);
            fprintf(out, ")");
        }
        fprintf(out, "</th>");
    }
    int nlabelled = 0;
    for (int k = 0; k < c->nseries; k++)
        nlabelled += c->s[k].labels != NULL;
    for (int k = 0; k < c->nseries; k++) {
        if (!c->s[k].labels)
            continue;
        fprintf(out, "<th>note");
        if (nlabelled > 1) { /* say whose note each column is */
            fprintf(out, ": ");
            dg_html_text(out, c->s[k].name);
        }
        fprintf(out, "</th>");
    }
    fprintf(out, "</tr></thead><tbody>\n");
    for (size_t i = 0; i < c->nx; i++) {
        fprintf(out, "<tr>");
        if (c->x_text && c->x_text[i]) {
            char e[40];
            fprintf(out, "<td class=\"n\" data-v=\"%s\">", dg_fmt_exact(e, sizeof e, c->x[i]));
            dg_html_text(out, c->x_text[i]);
            fprintf(out, "</td>");
        } else {
            dg_html_num_td(out, c->x[i], c->x[i] == floor(c->x[i]) ? 0 : 3);
        }
        for (int k = 0; k < c->nseries; k++)
            dg_html_num_td(out, c->s[k].v[i], decimals_for(c->s[k].v[i]));
        for (int k = 0; k < c->nseries; k++) {
            if (!c->s[k].labels)
                continue;
            fprintf(out, "<td>");
            dg_html_text(out, c->s[k].labels[i]);
            fprintf(out, "</td>");
        }
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</tbody></table></details></figure>\n");
}
