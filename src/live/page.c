/* page.c — the live page: the report's own frame (uPlot and report.js inline, nothing from
 * another host) around an empty run section that a small script fills from /section each
 * second, then has report.js draw the charts again. When the run is over (the server gone),
 * the page keeps its last second and says so. */
#include "live/page.h"

#include <stdio.h>
#include <stdlib.h>

#include "report/htmlpage.h"

/* The poller: /section every second; 503 (not yet) waits, three failures in a row end it. */
static const char poller[] =
    "<script>(function () {\n"
    "  var box = document.getElementById(\"live-run\"), st = document.getElementById(\"live-status\"), bad = 0;\n"
    "  var root = document.documentElement, updates = 0;\n"
    "  function again() { setTimeout(poll, 1000); }\n"
    "  function poll() {\n"
    "    fetch(\"/section\", { cache: \"no-store\" }).then(function (r) {\n"
    "      if (r.status === 503) { bad = 0; st.textContent = \"waiting for the run's first second\"; again(); return; }\n"
    "      if (!r.ok) throw new Error(\"HTTP \" + r.status);\n"
    "      return r.text().then(function (html) {\n"
    "        bad = 0; box.innerHTML = html; updates++;\n"
    "        if (window.dgDrawCharts) window.dgDrawCharts();\n"
    "        root.setAttribute(\"data-live-updates\", String(updates));\n"
    "        st.textContent = \"live: updated \" + new Date().toLocaleTimeString();\n"
    "        again();\n"
    "      });\n"
    "    }).catch(function (e) {\n"
    "      if (++bad < 3) { again(); return; }\n"
    "      st.textContent = \"the run is over (or dbgauge is gone): this is its last second\";\n"
    "      root.setAttribute(\"data-live-ended\", \"1\");\n"
    "    });\n"
    "  }\n"
    "  poll();\n"
    "})();</script>\n";

char *dg_live_page(const char *title, const char *subtitle, size_t *len)
{
    char *text = NULL;
    FILE *o = open_memstream(&text, len);
    if (!o)
        return NULL;
    dg_html_begin_page(o, title, subtitle, 1);
    fputs("<p class=\"note\" id=\"live-status\">connecting</p>\n<div id=\"live-run\"></div>\n", o);
    fputs(poller, o);
    dg_html_end_page(o, "while the run goes on (--live)");
    if (fclose(o)) {
        free(text);
        return NULL;
    }
    return text;
}
