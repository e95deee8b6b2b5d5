/* stress.c — the query-stress workload: one type ("query"), one prepared statement per
 * connection, rows and bytes counted per connection and added up when it closes. */
#include "workloads/stress/stress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/figures.h"
#include "core/wlcli.h"
#include "core/rng.h"

static const char *const type_names[] = {"query"};

struct stress_worker {
    struct dg_conn_h *h;
    struct stress_shared *sh;
    struct dg_stmt *stmt;
    uint64_t rows, bytes; /* of the last iteration */
};

/* A terminal is where it is in the parameter rows. */
struct stress_term {
    uint32_t next_param;
};

static int wl_worker_open(void *shared, struct dg_conn_h *h, void **wctx, struct dg_err *err)
{
    struct stress_shared *sh = shared;
    struct stress_worker *w = calloc(1, sizeof *w);
    if (!w)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    w->h = h;
    w->sh = sh;
    if (dg_prepare(h, sh->query, sh->nparams, &w->stmt, err) ||
        dg_set_streaming(h, w->stmt, 1, err)) {
        dg_finalize(h, w->stmt);
        free(w);
        return -1;
    }
    *wctx = w;
    return 0;
}

static void wl_worker_close(void *wctx)
{
    struct stress_worker *w = wctx;
    dg_finalize(w->h, w->stmt);
    free(w);
}

/* Thread i starts at parameter row i, so threads do not all ask for the same row at once. */
static void wl_terminal_init(void *shared, int index, int nterminals, void *term, uint64_t seed)
{
    (void)seed, (void)nterminals;
    struct stress_shared *sh = shared;
    struct stress_term *t = term;
    t->next_param = sh->nparam_rows ? (uint32_t)(index % sh->nparam_rows) : 0;
}

static int wl_next_type(void *term)
{
    (void)term;
    return 0;
}

static int wl_run(void *wctx, void *term, int type, struct dg_err *err)
{
    (void)type;
    struct stress_worker *w = wctx;
    struct stress_term *t = term;
    struct dg_value p[STRESS_MAX_PARAMS];
    const struct stress_shared *sh = w->sh;
    if (sh->nparam_rows) {
        char *const *row = sh->param_text + (size_t)t->next_param * (size_t)sh->nparams;
        for (int i = 0; i < sh->nparams; i++)
            p[i] = row[i] ? dg_txt(row[i], strlen(row[i])) : dg_null();
        t->next_param = (t->next_param + 1) % (uint32_t)sh->nparam_rows; /* cycle, as SQLQueryStress */
    }
    w->rows = w->bytes = 0;
    if (dg_execute(w->h, w->stmt, p, err))
        return -1;
    int rc, nc = -1;
    uint64_t rows = 0, bytes = 0;
    while ((rc = dg_next_row(w->h, w->stmt, err)) == 1) {
        if (nc < 0)
            nc = dg_ncols(w->h, w->stmt);
        rows++;
        for (int i = 0; i < nc; i++) {
            size_t len = 0;
            if (!dg_col_is_null(w->h, w->stmt, i))
                dg_col_text(w->h, w->stmt, i, &len);
            bytes += len;
        }
    }
    w->rows = rows; /* an iteration that failed midway still fetched what it fetched */
    w->bytes = bytes;
    return rc < 0 ? -1 : 0;
}

static void wl_take_volume(void *wctx, uint64_t *rows, uint64_t *bytes)
{
    struct stress_worker *w = wctx;
    *rows = w->rows;
    *bytes = w->bytes;
    w->rows = w->bytes = 0;
}

/* SQLQueryStress's figures: data fetched per second and the test's run time; rows/s and the
 * query's iterations per second beside. */
static const struct dg_figure_def figures[] = {
    {.name = "mb_per_s", .label = "MB/s", .unit = "MB/s", .count = DG_FIG_BYTES, .type = DG_FIG_ALL_TYPES, .scale = 1e-6,
     .decimals = 2},
    {.name = "rows_per_s", .label = "rows/s", .unit = "/s", .count = DG_FIG_ROWS, .type = DG_FIG_ALL_TYPES, .scale = 1},
    {.name = "iterations_per_s", .label = "iterations/s", .unit = "/s", .count = DG_FIG_COMPLETED,
     .type = DG_FIG_ALL_TYPES, .scale = 1, .decimals = 2},
    {.name = "run_time_s", .label = "run time s", .unit = "s", .count = DG_FIG_RUN_TIME, .decimals = 3},
};

extern const struct dg_wl_cli stress_cli; /* cli.c */

const struct dg_workload stress_workload = {
    .name = "stress",
    .command = "stress",
    .summary = "query stress: T threads x N iterations of a query (see dbgauge stress --help)",
    .figures = figures,
    .nfigures = sizeof figures / sizeof *figures,
    .cli = &stress_cli,
    .ntypes = 1,
    .type_names = type_names,
    .terminal_size = sizeof(struct stress_term),
    .worker_open = wl_worker_open,
    .worker_close = wl_worker_close,
    .terminal_init = wl_terminal_init,
    .next_type = wl_next_type,
    .run = wl_run,
    .take_volume = wl_take_volume,
};

void stress_shared_free(struct stress_shared *sh)
{
    if (sh->param_text) {
        for (size_t i = 0; i < (size_t)sh->nparam_rows * (size_t)sh->nparams; i++)
            free(sh->param_text[i]);
        free(sh->param_text);
    }
    sh->param_text = NULL;
    sh->nparam_rows = 0;
}

static int load_params(struct dg_conn_h *h, const char *sql, struct stress_shared *sh, struct dg_err *err)
{
    struct dg_stmt *s = NULL;
    size_t cap = 0, n = 0;
    int rc = -1;
    if (dg_prepare(h, sql, 0, &s, err) || dg_execute(h, s, NULL, err))
        goto out;
    int r;
    while ((r = dg_next_row(h, s, err)) == 1) {
        int nc = dg_ncols(h, s);
        if (sh->nparams == 0) {
            if (nc < 1 || nc > STRESS_MAX_PARAMS) {
                dg_err_set(err, DG_ERR_USER, 0, "--params-query returns %d columns (1..%d)", nc,
                           STRESS_MAX_PARAMS);
                goto out;
            }
            sh->nparams = nc;
        }
        if (n + (size_t)nc > cap) {
            cap = cap ? cap * 2 : 256;
            while (cap < n + (size_t)nc)
                cap *= 2;
            char **grown = realloc(sh->param_text, cap * sizeof *grown);
            if (!grown) {
                dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
                goto out;
            }
            sh->param_text = grown;
        }
        for (int i = 0; i < nc; i++)
            sh->param_text[n++] = dg_col_is_null(h, s, i) ? NULL : strdup(dg_col_text(h, s, i, NULL));
        sh->nparam_rows++;
    }
    if (r < 0)
        goto out;
    if (sh->nparam_rows == 0) {
        dg_err_set(err, DG_ERR_USER, 0, "--params-query returned no row: nothing to substitute");
        goto out;
    }
    rc = 0;
out:
    if (rc && err->cls != DG_ERR_CONN && err->cls != DG_ERR_USER) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        dg_err_set(err, DG_ERR_USER, err->code, "--params-query failed: %.400s", msg);
    }
    dg_finalize(h, s);
    return rc;
}

int stress_setup(struct dg_conn_h *h, const char *query, const char *params_sql,
                 struct stress_shared *sh, struct dg_err *err)
{
    sh->query = query;
    if (params_sql && load_params(h, params_sql, sh, err))
        return -1;
    /* Checked before any timing by preparing it with that many parameters: the engine
     * resolves tables and columns and counts placeholders then. (Executing it once would cost
     * a whole read of a large result.) */
    struct dg_stmt *s = NULL;
    int rc = dg_prepare(h, query, sh->nparams, &s, err);
    dg_finalize(h, s);
    if (rc && err->cls != DG_ERR_CONN) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        dg_err_set(err, DG_ERR_USER, err->code, "the query does not run (%d parameter%s given): %.400s",
                   sh->nparams, sh->nparams == 1 ? "" : "s", msg);
    }
    return rc;
}

int stress_drop(struct dg_conn_h *h, struct dg_err *err)
{
    return dg_exec(h, "DROP TABLE IF EXISTS " STRESS_TABLE, err);
}

int stress_prepare(struct dg_conn_h *h, int64_t rows, int row_bytes, int drop, struct dg_err *err)
{
    static const char *const cols[] = {"id", "grp", "amount", "name", "payload"};
    if (drop && stress_drop(h, err))
        return -1;
    if (dg_exec(h,
                "CREATE TABLE " STRESS_TABLE " (id INTEGER NOT NULL PRIMARY KEY, grp INTEGER, "
                "amount DECIMAL(12,2), name VARCHAR(32), payload VARCHAR(4000))",
                err))
        return -1;
    /* Values: id 8, grp 8, amount 8, name 16..32, payload makes up the rest of row_bytes. */
    int payload = row_bytes - 8 - 8 - 8 - 24;
    if (payload < 0)
        payload = 0;
    if (payload > 4000)
        payload = 4000;
    char name[32], *buf = malloc((size_t)payload + 1);
    if (!buf)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    struct dg_rng rng;
    dg_rng_seed(&rng, 20261202);
    static const char alnum[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    struct dg_bulk *b = NULL;
    int rc = -1;
    dg_load_mode(h, 1, NULL, err);
    if (dg_begin(h, DG_ISO_DEFAULT, 1, err) ||
        dg_bulk_begin(h, STRESS_TABLE, cols, 5, &b, err))
        goto out;
    for (int64_t i = 1; i <= rows; i++) {
        int nn = (int)dg_rng_range(&rng, 16, 32);
        dg_rng_chars(&rng, name, (size_t)nn, alnum, 62);
        dg_rng_chars(&rng, buf, (size_t)payload, alnum, 62);
        struct dg_value v[5] = {dg_int(i), dg_int(i % 100), dg_dec(dg_rng_range(&rng, 0, 99999999), 2),
                                dg_txt(name, (size_t)nn), dg_txt(buf, (size_t)payload)};
        if (dg_bulk_row(h, b, v, err))
            goto out;
    }
    struct dg_bulk *done = b;
    b = NULL;
    if (dg_bulk_end(h, done, err) || dg_commit(h, err))
        goto out;
    rc = 0;
out:;
    struct dg_err ignore;
    if (b)
        dg_bulk_end(h, b, &ignore);
    if (rc)
        dg_rollback(h, &ignore);
    dg_load_mode(h, 0, NULL, &ignore);
    if (rc == 0) { /* the planner's statistics of the new table */
        char sql[128];
        snprintf(sql, sizeof sql, "%s" STRESS_TABLE, dg_dialect(dg_conn_dialect(h))->analyze_table);
        rc = dg_exec(h, sql, err);
    }
    free(buf);
    return rc;
}

int stress_server_blocks(struct dg_conn_h *h, int64_t *hit, int64_t *read, struct dg_err *err)
{
    if (dg_conn_dialect(h) != DG_DIALECT_PGSQL)
        return 0;
    /* The statistics snapshot is per transaction: a fresh one each call. */
    struct dg_err ignore;
    dg_exec(h, "SELECT pg_stat_clear_snapshot()", &ignore);
    if (dg_query_int(h, "SELECT blks_hit FROM pg_stat_database WHERE datname = current_database()",
                     hit, err) ||
        dg_query_int(h, "SELECT blks_read FROM pg_stat_database WHERE datname = current_database()",
                     read, err))
        return -1;
    return 1;
}
