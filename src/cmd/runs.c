/* runs.c — `dbgauge runs [show ID]`: lists or shows stored runs from the results database. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/opts.h"
#include "report/repl.h"
#include "report/summary.h"
#include "results/store.h"

struct list_ctx {
    int json;
    cJSON *arr;
    int n;
};

static int on_run(void *ctx, const struct dg_run_record *r)
{
    struct list_ctx *l = ctx;
    l->n++;
    if (l->json)
        cJSON_AddItemToArray(l->arr, dg_report_run_json(r));
    else
        dg_report_run_line(stdout, r);
    return 0;
}

static const struct option opts[] = {{"results", required_argument, NULL, 'r'},
                                     {"json", no_argument, NULL, 'j'},
                                     {"series", no_argument, NULL, 's'},
                                     {"monitor", no_argument, NULL, 'm'},
                                     {"help", no_argument, NULL, 'h'},
                                     {NULL, 0, NULL, 0}};

static void usage(FILE *out)
{
    fprintf(out, "usage: dbgauge runs [--results PATH] [--json]\n"
                 "       dbgauge runs show ID [--series | --monitor] [--results PATH] [--json]\n"
                 "  --series   the per-second figures of the run (warm-up seconds are negative)\n"
                 "  --monitor  the per-second host and engine monitor samples of the run\n");
}

const struct dg_cmd_doc dg_runs_doc = {.opts = opts, .subs = "show", .usage = usage};

int dg_cmd_runs(int argc, char **argv)
{
    const char *results = DG_DEFAULT_RESULTS;
    int json = 0, series = 0, monitor = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'r': results = optarg; break;
        case 'j': json = 1; break;
        case 's': series = 1; break;
        case 'm': monitor = 1; break;
        case 'h':
            usage(stdout);
            return DG_EXIT_OK;
        default: return dg_bad_option("runs", argc, argv, c);
        }
    }
    int64_t show = -1;
    if (optind < argc) {
        if (strcmp(argv[optind], "show"))
            return dg_usage_error("runs", "unknown subcommand '%s' (show ID)", DG_TEXT(argv[optind]));
        if (optind + 1 >= argc)
            return dg_usage_error("runs", "show needs a run id");
        struct dg_err e;
        uint64_t id;
        if (dg_parse_u64("run id", argv[optind + 1], 1, INT64_MAX, &id, &e))
            return dg_usage_error("runs", "%s", e.msg);
        if (optind + 2 < argc)
            return dg_usage_error("runs", "unexpected argument '%s'", DG_TEXT(argv[optind + 2]));
        show = (int64_t)id;
    }
    if (series && show < 0)
        return dg_usage_error("runs", "--series goes with 'runs show ID'");
    if (monitor && show < 0)
        return dg_usage_error("runs", "--monitor goes with 'runs show ID'");
    if (monitor && series)
        return dg_usage_error("runs", "--series and --monitor: give one");
    struct dg_store *store;
    struct dg_err err;
    if (dg_store_open(results, &store, &err))
        return dg_report_err("runs", &err);
    int rc = DG_EXIT_OK;
    if (show > 0) {
        struct dg_run_record rec;
        int r = dg_store_get(store, show, series, &rec, &err);
        if (r < 0)
            rc = dg_report_err("runs", &err);
        else if (r == 1)
            rc = dg_usage_error("runs", "no run %lld in %s", (long long)show, results);
        else {
            if (json) {
                cJSON *doc = dg_report_run_json(&rec);
                if (monitor) {
                    cJSON_AddItemToObject(doc, "monitor_series", dg_report_monitor_series_json(&rec));
                    cJSON_AddItemToObject(doc, "replication", dg_report_repl_json(&rec));
                    cJSON_AddItemToObject(doc, "replication_summary", dg_report_repl_summary_json(&rec));
                }
                dg_print_json(doc);
            } else if (monitor) {
                dg_report_monitor_text(stdout, &rec);
                dg_report_repl_text(stdout, &rec);
            } else if (series)
                dg_report_series_text(stdout, &rec);
            else
                dg_report_run_text(stdout, &rec);
            dg_run_record_free(&rec);
        }
    } else {
        struct list_ctx l = {.json = json, .arr = json ? cJSON_CreateArray() : NULL};
        if (!json)
            dg_report_run_line_header(stdout);
        if (dg_store_list(store, on_run, &l, &err))
            rc = dg_report_err("runs", &err);
        if (json) {
            cJSON *doc = cJSON_CreateObject();
            cJSON_AddNumberToObject(doc, "schema_version", DG_JSON_SCHEMA_VERSION);
            cJSON_AddItemToObject(doc, "runs", l.arr);
            dg_print_json(doc);
        } else if (l.n == 0) {
            printf("(no runs in %s yet)\n", results);
        }
    }
    dg_store_close(store);
    return rc;
}
