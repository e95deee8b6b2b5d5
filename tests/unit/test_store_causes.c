/* test_store_causes.c — the results database's schema 14 (src/results/store_txn.c): the errors
 * read_only and gave_up round-trip through run_txn and run_target_txn beside the other causes,
 * NULL where a run does not know its causes; a schema-13 file (the schema-8 fixture taken
 * through migrations 9 to 13 as those binaries did, one run's causes filled as schema 13 wrote
 * them) migrates, and that run reads back knowing its five causes but not the two new ones:
 * NULL in the store, absent from the JSON, empty CSV cells, never 0. The CSV's header names
 * both. Temporary files only; never the user's results database. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/export.h"
#include "report/summary.h"
#include "results/store.h"
#include "results/store_internal.h"

#include "check.h"
#include "faults_fixture.h"
#include "store_fixture.h"

/* The CSV of run r alone, as `dbgauge report ID --format csv` writes it; the caller frees it. */
static char *csv_of(struct dg_run_record *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    struct dg_report_item it = {.kind = DG_ITEM_RUN, .id = r->id, .runs = r, .nruns = 1};
    dg_report_csv(f, &it, 1);
    fclose(f);
    return buf;
}

/* The cells of one CSV line (split at commas: the fixture's texts hold none), at most max. */
static int split(const char *line, const char **cell, int *len, int max)
{
    int n = 0;
    for (const char *p = line; n < max; p += len[n++] + 1) {
        cell[n] = p;
        len[n] = (int)strcspn(p, ",\n");
        if (p[len[n]] != ',')
            return n + 1;
    }
    return n;
}

/* The cell under column name on the txn line of type in csv, into out: "" empty, "?" no such
 * column or line. */
static const char *csv_cell(const char *csv, const char *type, const char *name, char *out, size_t n)
{
    enum { MAXC = 128 };
    const char *head[MAXC], *cell[MAXC];
    int hlen[MAXC], clen[MAXC], col = -1;
    char quoted[48];
    snprintf(out, n, "?");
    snprintf(quoted, sizeof quoted, "\"%s\"", type);
    int nh = csv ? split(csv, head, hlen, MAXC) : 0;
    for (int i = 0; i < nh; i++)
        if (hlen[i] == (int)strlen(name) && !strncmp(head[i], name, (size_t)hlen[i]))
            col = i;
    const char *line = csv ? strchr(csv, '\n') : NULL;
    for (; col >= 0 && line && line[1]; line = strchr(line + 1, '\n')) {
        int nc = split(line + 1, cell, clen, MAXC);
        if (nc > col && clen[1] == 3 && !strncmp(cell[1], "txn", 3) && clen[7] == (int)strlen(quoted) &&
            !strncmp(cell[7], quoted, (size_t)clen[7])) {
            snprintf(out, n, "%.*s", clen[col], cell[col]);
            break;
        }
    }
    return out;
}

/* The fixture run of schema 10 with read_only and gave_up errors added on its first type and
 * its first target. */
static int causes_fixture(struct dg_run_record *w)
{
    if (dg_faults_fixture(w, 0))
        return -1;
    w->txn[0].error_causes[DG_ERROR_READ_ONLY] = 7;
    w->txn[0].error_causes[DG_ERROR_GAVE_UP] = 11;
    w->txn[0].errors += 18;
    w->txn[1].error_causes[DG_ERROR_GAVE_UP] = 3;
    w->txn[1].errors += 3;
    w->targets[0].txn[0].error_causes[DG_ERROR_READ_ONLY] = 4;
    w->targets[0].txn[0].error_causes[DG_ERROR_GAVE_UP] = 5;
    w->targets[0].txn[0].errors += 9;
    return 0;
}

static void round_trip(struct dg_test *t, const char *path)
{
    struct dg_store *s = dg_test_new_store(t, path);
    struct dg_run_record w, r;
    struct dg_err err = {0};
    if (!s || causes_fixture(&w)) {
        dg_store_close(s);
        return;
    }
    CHECK(t, dg_store_put(s, &w, &err) == 0, "a run with read_only and gave_up errors is stored", "%s", err.msg);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT errors_read_only * 1000 + errors_gave_up FROM run_txn WHERE run_id = %lld "
             "AND seq = 0", (long long)w.id);
    CHECK(t, dg_test_file_num(path, sql) == 7011, "run_txn.errors_read_only and errors_gave_up hold them", "%g",
          dg_test_file_num(path, sql));
    snprintf(sql, sizeof sql, "SELECT errors_read_only * 1000 + errors_gave_up FROM run_target_txn WHERE run_id = %lld "
             "AND idx = 0", (long long)w.id);
    CHECK(t, dg_test_file_num(path, sql) == 4005, "run_target_txn's hold the target's", "%g",
          dg_test_file_num(path, sql));
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM run_target_txn WHERE run_id = %lld AND idx = 1 AND "
             "errors_read_only IS NULL AND errors_gave_up IS NULL", (long long)w.id);
    CHECK(t, dg_test_file_num(path, sql) == 1, "a target that does not know its causes stores NULL in both", "%g",
          dg_test_file_num(path, sql));
    if (dg_store_get(s, w.id, 0, &r, &err) == 0) {
        int ok = r.ntypes == w.ntypes;
        for (int k = 0; ok && k < w.ntypes; k++)
            ok = r.txn[k].error_causes_known && !r.txn[k].error_causes_unknown &&
                 !memcmp(r.txn[k].error_causes, w.txn[k].error_causes, sizeof w.txn[k].error_causes);
        CHECK(t, ok, "every type's errors by cause come back, read_only and gave_up known", "%d types", r.ntypes);
        CHECK(t, r.ntargets == 2 && r.targets[0].txn[0].error_causes[DG_ERROR_READ_ONLY] == 4 &&
                     r.targets[0].txn[0].error_causes[DG_ERROR_GAVE_UP] == 5 && !r.targets[1].txn[0].error_causes_known,
              "the targets' come back (the one that does not know them: not known)", "%d", r.ntargets);
        char *csv = csv_of(&r), a[32], b[32], c[32];
        CHECK(t, csv && strstr(csv, ",errors_closed_by_server,errors_read_only,errors_gave_up,errors_other\n"),
              "the CSV header names errors_read_only and errors_gave_up, before errors_other", "%.200s",
              csv ? csv : "(none)");
        CHECK(t, !strcmp(csv_cell(csv, "new_order", "errors_read_only", a, sizeof a), "7") &&
                     !strcmp(csv_cell(csv, "new_order", "errors_gave_up", b, sizeof b), "11") &&
                     !strcmp(csv_cell(csv, "payment", "errors_read_only", c, sizeof c), "0"),
              "the CSV's txn rows carry them", "'%s' '%s' '%s'", a, b, c);
        free(csv);
        cJSON *j = dg_report_txns_json(r.txn, r.ntypes);
        cJSON *ec = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "new_order"), "error_causes");
        CHECK(t, cJSON_GetNumberValue(cJSON_GetObjectItem(ec, "read_only")) == 7 &&
                     cJSON_GetNumberValue(cJSON_GetObjectItem(ec, "gave_up")) == 11,
              "the JSON's error_causes has read_only and gave_up", "%s", ec ? "wrong" : "no error_causes");
        cJSON_Delete(j);
        char text[160];
        dg_report_error_causes(r.txn, r.ntypes, text, sizeof text);
        CHECK(t, strstr(text, "read_only 7") && strstr(text, "gave_up 14"), "the text line names them, summed",
              "'%s'", text);
        dg_run_record_free(&r);
    } else {
        CHECK(t, 0, "the run reads back", "%s", err.msg);
    }
    dg_run_record_free(&w);
    dg_store_close(s);
}

/* The schema-8 dump taken through migrations 9 to 13 as those binaries did; run 1's types given
 * causes as schema 13 stored them (five columns, 4 errors under other). */
static int make_schema13(const char *path)
{
    const char *const steps[] = {dg_store_migration_figures, dg_store_migration_faults, dg_store_migration_ha,
                                 dg_store_migration_ranks, dg_store_migration_live};
    size_t n = 128;
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++)
        n += strlen(steps[k]) + 1;
    char *more = malloc(n + 256);
    if (!more)
        return -1;
    more[0] = '\0';
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++)
        strcat(strcat(more, steps[k]), ";");
    strcat(more, "PRAGMA user_version=13;"
                 "UPDATE run_txn SET errors_connection = 0, errors_timeout = 0, errors_too_many_connections = 0,"
                 " errors_closed_by_server = 0, errors_other = 4 WHERE run_id = 1;");
    int rc = dg_test_load_schema8(path, more);
    free(more);
    return rc;
}

static void migration(struct dg_test *t, const char *path)
{
    struct dg_store *s = NULL;
    struct dg_err err = {0};
    unlink(path);
    CHECK(t, make_schema13(path) == 0 && dg_test_file_num(path, "PRAGMA user_version") == 13,
          "a schema-13 file is made from the schema-8 fixture", "%s", DG_FIXTURES);
    CHECK(t, dg_store_open(path, &s, &err) == 0, "a schema-13 file opens (migrates to the current schema)", "%s",
          err.msg);
    if (!s)
        return;
    CHECK(t, dg_test_file_num(path, "PRAGMA user_version") == DG_STORE_SCHEMA_VERSION && DG_STORE_SCHEMA_VERSION >= 14,
          "it is at this binary's schema, 14 or later", "%g",
          dg_test_file_num(path, "PRAGMA user_version"));
    CHECK(t, isnan(dg_test_file_num(path, "SELECT MAX(errors_read_only) FROM run_txn")) &&
                 isnan(dg_test_file_num(path, "SELECT MAX(errors_gave_up) FROM run_txn")) &&
                 isnan(dg_test_file_num(path, "SELECT MAX(errors_gave_up) FROM run_target_txn")),
          "older runs' errors_read_only and errors_gave_up are NULL (not recorded), not 0", "%g",
          dg_test_file_num(path, "SELECT MAX(errors_gave_up) FROM run_txn"));
    struct dg_run_record r;
    int ok = dg_store_get(s, 1, 0, &r, &err) == 0;
    CHECK(t, ok && r.txn[0].error_causes_known && r.txn[0].error_causes[DG_ERROR_OTHER] == 4 &&
                 !dg_txn_error_cause_known(&r.txn[0], DG_ERROR_READ_ONLY) &&
                 !dg_txn_error_cause_known(&r.txn[0], DG_ERROR_GAVE_UP) &&
                 dg_txn_error_cause_known(&r.txn[0], DG_ERROR_TIMEOUT),
          "a run stored at schema 13 knows its five causes, not read_only and gave_up", "%s", ok ? "wrong" : err.msg);
    if (ok) {
        cJSON *j = dg_report_txns_json(r.txn, r.ntypes);
        cJSON *ec = cJSON_GetObjectItem(cJSON_GetObjectItem(j, r.txn[0].name), "error_causes");
        CHECK(t, ec && cJSON_GetObjectItem(ec, "other") && !cJSON_GetObjectItem(ec, "read_only") &&
                     !cJSON_GetObjectItem(ec, "gave_up"),
              "its JSON has the causes it knew, and no read_only or gave_up rather than 0", "%s",
              ec ? "wrong keys" : "no error_causes");
        cJSON_Delete(j);
        char *csv = csv_of(&r), a[32], b[32], c[32];
        CHECK(t, !strcmp(csv_cell(csv, r.txn[0].name, "errors_read_only", a, sizeof a), "") &&
                     !strcmp(csv_cell(csv, r.txn[0].name, "errors_gave_up", b, sizeof b), "") &&
                     !strcmp(csv_cell(csv, r.txn[0].name, "errors_other", c, sizeof c), "4"),
              "its CSV cells for them are empty, errors_other kept", "'%s' '%s' '%s'", a, b, c);
        free(csv);
        /* Stored again (as a copy of it would be), what it did not know stays not known. */
        r.id = 0;
        ok = dg_store_put(s, &r, &err) == 0;
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM run_txn WHERE run_id = %lld AND errors_gave_up IS NULL AND "
                 "errors_other = 4", (long long)r.id);
        CHECK(t, ok && dg_test_file_num(path, sql) >= 1, "stored again, its unknown causes stay NULL", "%s",
              ok ? sql : err.msg);
        dg_run_record_free(&r);
    }
    dg_store_close(s);
}

int main(void)
{
    struct dg_test t = {0};
    char path[] = "/tmp/dg-test-causes.XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    round_trip(&t, path);
    migration(&t, path);
    unlink(path);
    return dg_test_done(&t);
}
