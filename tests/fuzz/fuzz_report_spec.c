/* fuzz_report_spec.c — fuzz target "report_spec": the items a report or a comparison names
 * (a run id, group:N or gN, exp:N or experiment:N), one per line of the input, read by
 * dg_report_item_parse and by the commands that take them — report (md and json), compare,
 * runs show, experiment show — on a real results database (corpus/resultsdb/seed-all.db,
 * copied once). Checks: a parsed item prints back to itself; every command exits 0 or 2 with
 * one clean message line (harness.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "harness.h"
#include "report/model.h"

#define MAX_SPECS 6

/* The results database every input reads (set up once by LLVMFuzzerInitialize). */
static char results[600];

static pid_t creator;

/* At exit of the process that made it (not of replay.c's children, which share it). */
static void remove_results(void)
{
    if (getpid() == creator)
        dg_fuzz_remove_file(results);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *seed = DG_FUZZ_DIR "/corpus/resultsdb/seed-all.db";
    FILE *f = fopen(seed, "rb");
    if (!f)
        dg_fuzz_fail("no seed results database %s", seed);
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    dg_fuzz_write_file("-spec.db", buf, n, results, sizeof results);
    creator = getpid();
    atexit(remove_results);
    return 0;
}

/* A parsed item printed as its canonical spec reads back the same. */
static void check_parse(const char *spec)
{
    enum dg_item_kind kind, back_kind;
    int64_t id, back_id;
    struct dg_err err;
    if (dg_report_item_parse(spec, &kind, &id, &err)) {
        dg_fuzz_check_user_err("dg_report_item_parse", &err);
        return;
    }
    if (id < 1)
        dg_fuzz_fail("'%.100s' parsed to id %" PRId64, spec, id);
    char again[64];
    snprintf(again, sizeof again, "%s%" PRId64, kind == DG_ITEM_GROUP ? "group:" : kind == DG_ITEM_EXPERIMENT ? "exp:" : "",
             id);
    if (dg_report_item_parse(again, &back_kind, &back_id, &err) || back_kind != kind || back_id != id)
        dg_fuzz_fail("'%.100s' parsed, printed as '%s', does not read back", spec, again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dg_fuzz_broken("report_spec", data, size);
    char *in = dg_fuzz_str(data, size);
    char *specs[MAX_SPECS];
    int n = 0;
    for (char *save = NULL, *line = strtok_r(in, "\n", &save); line && n < MAX_SPECS;
         line = strtok_r(NULL, "\n", &save))
        specs[n++] = line;
    for (int i = 0; i < n; i++)
        check_parse(specs[i]);
    if (n > 0) {
        /* "--" first: a spec is never taken for an option (-o FILE would write a file) */
        char *argv[16 + MAX_SPECS] = {"report", "--results", results, "--format", "md", "-o", "/dev/null", "--"};
        memcpy(argv + 8, specs, (size_t)n * sizeof *specs);
        dg_fuzz_command(dg_cmd_report, 8 + n, argv);
        argv[4] = "json";
        dg_fuzz_command(dg_cmd_report, 8 + n, argv);
        char *cmp[16 + MAX_SPECS] = {"compare", "--results", results, "--"};
        memcpy(cmp + 4, specs, (size_t)n * sizeof *specs);
        dg_fuzz_command(dg_cmd_compare, 4 + n, cmp);
        char *runs[] = {"runs", "--results", results, "--", "show", specs[0]};
        dg_fuzz_command(dg_cmd_runs, 6, runs);
        char *exp[] = {"experiment", "--results", results, "--", "show", specs[0]};
        dg_fuzz_command(dg_cmd_experiment, 6, exp);
    }
    free(in);
    return 0;
}
