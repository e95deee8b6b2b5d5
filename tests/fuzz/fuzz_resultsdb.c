/* fuzz_resultsdb.c — fuzz target "resultsdb": a damaged results database (the input is the
 * whole SQLite file, seeded with real ones dbgauge wrote: corpus/resultsdb/) opened by every
 * command that reads one: `runs` (text and JSON), `runs show ID` (text, JSON, --series,
 * --monitor), `report` (md, csv, json, html) of runs, a group and an experiment, `compare`,
 * `experiment show`, and the stored run as `tpcc audit` reads it (dg_cmd_read_run). The ids
 * are those the file holds (the first few), read with SQLite directly. Checks: each command
 * exits 0 or 2 with one clean message line, never crashes or leaks (harness.c); the read of a
 * stored run fails only with a DG_ERR_USER error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cmd/cmd.h"
#include "harness.h"

#define MAX_IDS 3

/* Up to MAX_IDS values of the first column of sql on db into ids; returns how many. */
static int ids_of(sqlite3 *db, const char *sql, int64_t *ids)
{
    sqlite3_stmt *st;
    int n = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    while (n < MAX_IDS && sqlite3_step(st) == SQLITE_ROW)
        if (sqlite3_column_int64(st, 0) > 0)
            ids[n++] = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

struct found {
    int64_t runs[MAX_IDS], groups[MAX_IDS], exps[MAX_IDS];
    int nruns, ngroups, nexps;
};

/* The ids the damaged file still shows, read-only (the commands then see the same file). */
static void find_ids(const char *path, struct found *f)
{
    sqlite3 *db = NULL;
    memset(f, 0, sizeof *f);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        f->nruns = ids_of(db, "SELECT id FROM run ORDER BY id", f->runs);
        f->ngroups = ids_of(db, "SELECT DISTINCT group_id FROM run WHERE group_id > 0 ORDER BY 1", f->groups);
        f->nexps = ids_of(db, "SELECT id FROM experiment ORDER BY id", f->exps);
    }
    sqlite3_close(db);
    if (f->nruns == 0)
        f->runs[f->nruns++] = 1;
}

/* `runs show ID` in text; all: also its JSON, series and monitor forms. */
static void show_run(const char *path, int64_t id, int all)
{
    char num[24];
    snprintf(num, sizeof num, "%" PRId64, id);
    char *show[] = {"runs", "--results", (char *)path, "show", num, NULL};
    dg_fuzz_command(dg_cmd_runs, 5, show);
    const char *extra[] = {"--json", "--series", "--monitor"};
    for (size_t i = 0; all && i < sizeof extra / sizeof *extra; i++) {
        show[5] = (char *)extra[i];
        dg_fuzz_command(dg_cmd_runs, 6, show);
    }
    /* as `tpcc audit RUN` reads it */
    struct dg_run_opts c;
    dg_run_opts_init(&c);
    c.results = path;
    struct dg_wl_act a = {.cmd = "tpcc audit", .c = &c};
    struct dg_stored_run r;
    struct dg_err err;
    int rc = dg_cmd_read_run(&a, id, &r, &err);
    if (rc < 0)
        dg_fuzz_check_user_err("dg_cmd_read_run", &err);
    else if (rc == 0)
        dg_stored_run_free(&r);
}

static void report(const char *path, const char *item, const char *format)
{
    char *argv[] = {"report", "--results", (char *)path, "--format", (char *)format, "-o", "/dev/null", "--",
                    (char *)item};
    dg_fuzz_command(dg_cmd_report, 9, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dg_fuzz_broken("resultsdb", data, size);
    char path[600];
    dg_fuzz_write_file("-results.db", data, size, path, sizeof path);
    struct found f;
    find_ids(path, &f);
    char *list[] = {"runs", "--results", path, "--json"};
    dg_fuzz_command(dg_cmd_runs, 3, list);
    dg_fuzz_command(dg_cmd_runs, 4, list);
    char item[32];
    /* every form once, on the first run; the others in one form each (the histograms'
     * percentiles make each rendering cost a few ms in the fuzz build) */
    static const char *const forms[] = {"json", "md", "csv"};
    for (int i = 0; i < f.nruns; i++) {
        show_run(path, f.runs[i], i == 0);
        snprintf(item, sizeof item, "%" PRId64, f.runs[i]);
        report(path, item, forms[i % 3]);
        if (i == 0) {
            report(path, item, "html");
            report(path, item, "csv");
        }
    }
    for (int i = 0; i < f.ngroups; i++) {
        snprintf(item, sizeof item, "group:%" PRId64, f.groups[i]);
        report(path, item, i == 0 ? "html" : "csv");
    }
    for (int i = 0; i < f.nexps; i++) {
        snprintf(item, sizeof item, "exp:%" PRId64, f.exps[i]);
        report(path, item, i == 0 ? "html" : "md");
        snprintf(item, sizeof item, "%" PRId64, f.exps[i]);
        char *show[] = {"experiment", "--results", path, "show", item, "--json"};
        dg_fuzz_command(dg_cmd_experiment, 5, show);
        dg_fuzz_command(dg_cmd_experiment, 6, show);
    }
    if (f.nruns >= 2) {
        char a[24], b[24];
        snprintf(a, sizeof a, "%" PRId64, f.runs[0]);
        snprintf(b, sizeof b, "%" PRId64, f.runs[1]);
        char *cmp[] = {"compare", "--results", path, a, b};
        dg_fuzz_command(dg_cmd_compare, 5, cmp);
    }
    if (f.ngroups >= 2) {
        char a[32], b[32];
        snprintf(a, sizeof a, "group:%" PRId64, f.groups[0]);
        snprintf(b, sizeof b, "group:%" PRId64, f.groups[1]);
        char *cmp[] = {"compare", "--results", path, a, b};
        dg_fuzz_command(dg_cmd_compare, 5, cmp);
    }
    dg_fuzz_remove_file(path);
    return 0;
}
