/* htmlpage.c — the frame every HTML page of dbgauge shares (head with the inline uPlot, styles
 * and the error-recording glue; header; footer) and its two primitives: a chart and a headline
 * card. Every user text through dg_html_text; knows nothing of runs. */
#include "report/htmlpage.h"

#include "report/assets.h"

void dg_html_begin(FILE *out, const char *title, const char *subtitle)
{
    dg_html_begin_page(out, title, subtitle, 0);
}

void dg_html_begin_page(FILE *out, const char *title, const char *subtitle, int connect_self)
{
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:%s\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
            connect_self ? "; connect-src 'self'" : "");
    dg_html_text(out, title);
    fputs("</title>\n<style>", out);
    fputs(dg_asset_uplot_css, out);
    fputs("</style>\n<style>", out);
    fputs(dg_asset_report_css, out);
    /* First of all scripts: record errors, blocked loads and alert() calls on <html> (tests read them). */
    fputs("</style>\n<script>(function () { var r = document.documentElement, e = [];\n"
          "window.dgFail = function (m) { e.push(String(m)); r.setAttribute(\"data-errors\", e.join(\" | \")); };\n"
          "r.setAttribute(\"data-errors\", \"\");\n"
          "window.addEventListener(\"error\", function (x) { dgFail(x.message || \"error\"); });\n"
          "document.addEventListener(\"securitypolicyviolation\", function (x) { dgFail(\"blocked \" + x.blockedURI); });\n"
          "var c = console.error; console.error = function () { dgFail([].join.call(arguments, \" \")); c.apply(console, arguments); };\n"
          "window.alert = function () { r.setAttribute(\"data-alerted\", \"1\"); };\n"
          "})();</script>\n</head><body>\n<header><h1>", out);
    dg_html_text(out, title);
    fputs("</h1><p>", out);
    dg_html_text(out, subtitle);
    fputs("</p></header>\n<main>\n", out);
}

void dg_html_end(FILE *out)
{
    dg_html_end_page(out, "from its results database");
}

void dg_html_end_page(FILE *out, const char *made_from)
{
    fprintf(out, "<p class=\"note\">Made by dbgauge %s %s. Charts: uPlot "
                 "(MIT licence, Leon Sorokin), embedded.</p>\n</main>\n<script>",
            DG_VERSION, made_from);
    fputs(dg_asset_uplot_js, out);
    fputs("</script>\n<script>", out);
    fputs(dg_asset_report_js, out);
    fputs("</script>\n</body></html>\n", out);
}

int dg_html_emit(FILE *out, struct dg_chart *c, int ok)
{
    if (ok == 0)
        dg_chart_html(out, c);
    dg_chart_free(c);
    return ok ? -1 : 0;
}

void dg_html_card(FILE *out, const char *key, const char *title, double v, int decimals)
{
    char b[64], e[40];
    fprintf(out, "<div class=\"card\" data-key=\"%s\" data-v=\"%s\"><div class=\"k\">", key,
            dg_fmt_exact(e, sizeof e, v));
    dg_html_text(out, title);
    fprintf(out, "</div><div class=\"v\">%s</div></div>\n", dg_fmt_num(b, sizeof b, v, decimals));
}
