/* report.c — `dbgauge report` (HTML, Markdown, CSV, JSON of stored runs, groups, experiments) and
 * `dbgauge compare` (side by side, in the terminal or as HTML). Options, files and exit
 * status only: the rendering is src/report/'s and reads the results database alone. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "report/compare.h"
#include "report/export.h"
#include "report/html.h"

#define MAX_ITEMS 64

enum { O_RESULTS = 1000, O_FORMAT, O_HELP };
static const struct option long_opts[] = {
    {"results", required_argument, NULL, O_RESULTS}, {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, O_FORMAT},   {"help", no_argument, NULL, O_HELP},
    {NULL, 0, NULL, 0},
};
/* compare's: report's but --format (compare prints text, and -o writes HTML). */
static const struct option compare_opts[] = {
    {"results", required_argument, NULL, O_RESULTS}, {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, O_HELP},             {NULL, 0, NULL, 0},
};

/* --format's values, the default first. */
static const char *const formats[] = {"html", "md", "csv", "json", NULL};

static void report_usage(FILE *out)
{
    fprintf(out, "usage: dbgauge report RUN|group:ID|exp:ID ... [--results PATH] [-o FILE] [--format html|md|csv|json]\n"
                 "  RUN        a run id (see dbgauge runs)\n"
                 "  group:ID   the steps of one stress sweep (runs sharing group_id ID), also gID\n"
                 "  exp:ID     the steps of one experiment (dbgauge experiment FILE), also experiment:ID\n"
                 "  -o FILE    where to write (default report.html for html, stdout otherwise; - is stdout)\n"
                 "  --format   html (default: one self-contained file), md, csv, json (docs/report-schema.md)\n");
}

static void compare_usage(FILE *out)
{
    fprintf(out, "usage: dbgauge compare A B [C ...] [--results PATH] [-o FILE.html]\n"
                 "  A, B ...   run ids, groups (group:ID) paired by thread count, or experiments\n"
                 "             (exp:ID) with their steps paired by swept value\n"
                 "  prints each figure for each side and its change from A in percent;\n"
                 "  -o FILE    also writes the comparison as an HTML report with its charts\n");
}

const struct dg_cmd_doc dg_report_doc = {.opts = long_opts, .usage = report_usage, .enum_opt = "format",
                                         .enum_names = formats};
const struct dg_cmd_doc dg_compare_doc = {.opts = compare_opts, .usage = compare_usage};

struct report_opts {
    const char *results, *output, *format;
    int help;
};

/* argv by the command's table (long_opts or compare_opts) into o; 0, or a usage error's exit. */
static int parse(const char *cmd, int argc, char **argv, const struct option *opts, struct report_opts *o)
{
    int c;
    o->results = DG_DEFAULT_RESULTS;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (c) {
        case O_RESULTS: o->results = optarg; break;
        case 'o': o->output = optarg; break;
        case O_FORMAT: o->format = optarg; break;
        case 'h':
        case O_HELP: o->help = 1; break;
        default: return dg_bad_option(cmd, argc, argv, c);
        }
    }
    return 0;
}

/* Opens an existing results database (a report never creates one). */
static int open_store(const char *cmd, const char *path, struct dg_store **store)
{
    struct dg_err err;
    if (access(path, R_OK) != 0)
        return dg_usage_error(cmd, "--results: no results database '%s' (%s)", path, strerror(errno));
    return dg_store_open(path, store, &err) ? dg_report_err(cmd, &err) : 0;
}

/* Loads every item named on the command line into items (the caller frees them). */
static int load_items(const char *cmd, struct dg_store *store, int argc, char **argv,
                      struct dg_report_item *items, int *n)
{
    struct dg_err err;
    *n = 0;
    for (int i = optind; i < argc; i++) {
        enum dg_item_kind kind;
        int64_t id;
        if (*n == MAX_ITEMS)
            return dg_usage_error(cmd, "at most %d runs, groups or experiments", MAX_ITEMS);
        if (dg_report_item_parse(argv[i], &kind, &id, &err))
            return dg_usage_error(cmd, "%s", err.msg);
        int rc = dg_report_item_load(store, kind, id, &items[*n], &err);
        if (rc == 1)
            return dg_usage_error(cmd, "%s", err.msg);
        if (rc)
            return dg_report_err(cmd, &err);
        (*n)++;
    }
    return 0;
}

/* Opens the output: "-" or none is stdout (for html without -o: report.html). */
static FILE *open_out(const char *cmd, const char *path, int *rc)
{
    if (!path || !strcmp(path, "-"))
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        *rc = dg_usage_error(cmd, "-o: cannot write '%s': %s", path, strerror(errno));
    return f;
}

static int close_out(const char *cmd, FILE *f, const char *path)
{
    int bad = ferror(f);
    if (f != stdout) {
        bad |= fclose(f) != 0;
        if (!bad)
            fprintf(stderr, "wrote %s\n", path);
    } else {
        bad |= fflush(f) != 0;
    }
    if (bad) {
        fprintf(stderr, "dbgauge %s: writing %s failed\n", cmd, path ? path : "stdout");
        return DG_EXIT_FAILED;
    }
    return DG_EXIT_OK;
}

int dg_cmd_report(int argc, char **argv)
{
    const char *cmd = "report";
    struct report_opts o = {0};
    int rc = parse(cmd, argc, argv, long_opts, &o);
    if (rc)
        return rc;
    if (o.help) {
        report_usage(stdout);
        return DG_EXIT_OK;
    }
    const char *fmt = o.format ? o.format : formats[0];
    int known = 0;
    for (int i = 0; formats[i]; i++)
        known |= !strcmp(fmt, formats[i]);
    if (!known)
        return dg_usage_error(cmd, "--format: '%s' is not one of html, md, csv, json", DG_TEXT(fmt));
    if (optind >= argc)
        return dg_usage_error(cmd, "name at least one run, group or experiment (see dbgauge runs)");
    struct dg_store *store;
    if ((rc = open_store(cmd, o.results, &store)))
        return rc;
    struct dg_report_item *items = calloc(MAX_ITEMS, sizeof *items);
    int n = 0;
    if (!items) {
        dg_store_close(store);
        return dg_usage_error(cmd, "out of memory");
    }
    rc = load_items(cmd, store, argc, argv, items, &n);
    FILE *out = NULL;
    const char *path = o.output ? o.output : !strcmp(fmt, "html") ? "report.html" : NULL;
    if (!rc && (out = open_out(cmd, path, &rc))) {
        if (!strcmp(fmt, "html")) {
            if (dg_report_html(out, items, n))
                fprintf(stderr, "dbgauge report: out of memory building a chart\n"), rc = DG_EXIT_FAILED;
        } else if (!strcmp(fmt, "md")) {
            dg_report_md(out, items, n);
        } else if (!strcmp(fmt, "csv")) {
            dg_report_csv(out, items, n);
        } else {
            cJSON *doc = dg_report_json(items, n);
            char *text = dg_json_exact(doc) ? NULL : cJSON_Print(doc);
            if (text)
                fprintf(out, "%s\n", text);
            else
                fprintf(stderr, "dbgauge report: out of memory printing JSON\n"), rc = DG_EXIT_FAILED;
            cJSON_free(text);
            cJSON_Delete(doc);
        }
        int crc = close_out(cmd, out, path);
        rc = rc ? rc : crc;
    }
    for (int i = 0; i < n; i++)
        dg_report_item_free(&items[i]);
    free(items);
    dg_store_close(store);
    return rc;
}

int dg_cmd_compare(int argc, char **argv)
{
    const char *cmd = "compare";
    struct report_opts o = {0};
    int rc = parse(cmd, argc, argv, compare_opts, &o);
    if (rc)
        return rc;
    if (o.help) {
        compare_usage(stdout);
        return DG_EXIT_OK;
    }
    if (argc - optind < 2)
        return dg_usage_error(cmd, "name at least two runs, groups or experiments to compare");
    struct dg_store *store;
    struct dg_err err;
    if ((rc = open_store(cmd, o.results, &store)))
        return rc;
    struct dg_report_item *items = calloc(MAX_ITEMS, sizeof *items);
    int n = 0;
    struct dg_compare c = {0};
    if (!items) {
        dg_store_close(store);
        return dg_usage_error(cmd, "out of memory");
    }
    rc = load_items(cmd, store, argc, argv, items, &n);
    for (int i = 1; !rc && i < n; i++) /* items[i] is argv[optind + i] */
        if (items[i].kind != items[0].kind)
            rc = dg_usage_error(cmd, "'%s' is %s %s and '%s' %s %s: compare runs with runs, groups with groups, "
                                     "experiments with experiments",
                                DG_TEXT(argv[optind + i]), items[i].kind == DG_ITEM_EXPERIMENT ? "an" : "a",
                                dg_report_item_kind_name(items[i].kind), DG_TEXT(argv[optind]),
                                items[0].kind == DG_ITEM_EXPERIMENT ? "an" : "a",
                                dg_report_item_kind_name(items[0].kind));
    if (!rc && dg_compare_build(&c, items, n, &err))
        rc = dg_report_err(cmd, &err);
    if (!rc) {
        dg_compare_text(stdout, &c);
        FILE *out;
        if (o.output && (out = open_out(cmd, o.output, &rc))) {
            if (dg_compare_html(out, &c, items, n))
                fprintf(stderr, "dbgauge compare: out of memory building a chart\n"), rc = DG_EXIT_FAILED;
            int crc = close_out(cmd, out, o.output);
            rc = rc ? rc : crc;
        }
    }
    dg_compare_free(&c);
    for (int i = 0; i < n; i++)
        dg_report_item_free(&items[i]);
    free(items);
    dg_store_close(store);
    return rc;
}
