/* txn.c — the statements of sysbench's OLTP tests (oltp_common.lua's stmt_defs) prepared once
 * per worker for every table, and one transaction of each test, as its oltp_*.lua event()
 * runs it: a round trip per statement as sysbench does, or (--pipeline on) the whole
 * transaction queued and sent at once through dg_execute_calls. No allocation and no lookup
 * per transaction (the queue is sized when the worker opens); no threads, no clocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/oltp/oltp_internal.h"

/* The statement kinds, as oltp_common.lua prepares them for each table; S_INSERT_AUTO is
 * oltp_insert.lua's (the id left to SERIAL / AUTO_INCREMENT / the rowid). */
enum stmt_kind {
    S_POINT = 0,
    S_SIMPLE_RANGE,
    S_SUM_RANGE,
    S_ORDER_RANGE,
    S_DISTINCT_RANGE,
    S_INDEX_UPDATE,
    S_NON_INDEX_UPDATE,
    S_DELETE,
    S_INSERT,
    S_INSERT_AUTO,
    S_NKINDS
};

static const struct {
    const char *sql; /* %d: the table number */
    int nparams;
    int rows;        /* a query: its rows are read to the end */
} stmt_defs[S_NKINDS] = {
    [S_POINT] = {"SELECT c FROM sbtest%d WHERE id=?", 1, 1},
    [S_SIMPLE_RANGE] = {"SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ?", 2, 1},
    [S_SUM_RANGE] = {"SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN ? AND ?", 2, 1},
    [S_ORDER_RANGE] = {"SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c", 2, 1},
    [S_DISTINCT_RANGE] = {"SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c", 2, 1},
    [S_INDEX_UPDATE] = {"UPDATE sbtest%d SET k=k+1 WHERE id=?", 1, 0},
    [S_NON_INDEX_UPDATE] = {"UPDATE sbtest%d SET c=? WHERE id=?", 2, 0},
    [S_DELETE] = {"DELETE FROM sbtest%d WHERE id=?", 1, 0},
    [S_INSERT] = {"INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)", 4, 0},
    [S_INSERT_AUTO] = {"INSERT INTO sbtest%d (k, c, pad) VALUES (?, ?, ?)", 3, 0},
};

/* What each test's event() runs, in order. */
enum {
    G_POINT = 1u << 0,        /* execute_point_selects */
    G_RANGES = 1u << 1,       /* execute_{simple,sum,order,distinct}_ranges, if range_selects */
    G_INDEX_UPDATES = 1u << 2,
    G_NON_INDEX_UPDATES = 1u << 3,
    G_DELETE_INSERTS = 1u << 4,
    G_DELETE = 1u << 5,       /* oltp_delete.lua: one DELETE */
    G_INSERT = 1u << 6,       /* oltp_insert.lua: one INSERT, id generated */
};

static const struct test_def {
    unsigned groups;
    int txn;   /* BEGIN ... COMMIT around it (unless skip_trx) */
    int write; /* the transaction writes (SQLite takes the write lock at BEGIN) */
} tests[OLTP_NTESTS] = {
    [OLTP_POINT_SELECT] = {G_POINT, 0, 0},
    [OLTP_READ_ONLY] = {G_POINT | G_RANGES, 1, 0},
    [OLTP_READ_WRITE] = {G_POINT | G_RANGES | G_INDEX_UPDATES | G_NON_INDEX_UPDATES | G_DELETE_INSERTS, 1, 1},
    [OLTP_WRITE_ONLY] = {G_INDEX_UPDATES | G_NON_INDEX_UPDATES | G_DELETE_INSERTS, 1, 1},
    [OLTP_UPDATE_INDEX] = {G_INDEX_UPDATES, 0, 1},
    [OLTP_UPDATE_NON_INDEX] = {G_NON_INDEX_UPDATES, 0, 1},
    [OLTP_DELETE] = {G_DELETE, 0, 1},
    [OLTP_INSERT] = {G_INSERT, 0, 1},
};

/* Point selects per transaction: oltp_point_select.lua sets point_selects to 1. */
static int point_selects(const struct oltp_config *cfg, enum oltp_test test)
{
    return test == OLTP_POINT_SELECT ? 1 : cfg->point_selects;
}

static const int *range_count(const struct oltp_config *cfg, enum stmt_kind k)
{
    switch (k) {
    case S_SIMPLE_RANGE: return &cfg->simple_ranges;
    case S_SUM_RANGE: return &cfg->sum_ranges;
    case S_ORDER_RANGE: return &cfg->order_ranges;
    default: return &cfg->distinct_ranges;
    }
}

struct oltp_queries oltp_queries_per_txn(const struct oltp_config *cfg, enum oltp_test test)
{
    struct oltp_queries q = {0, 0, 0};
    unsigned g = tests[test].groups;
    if (g & G_POINT)
        q.read += point_selects(cfg, test);
    if ((g & G_RANGES) && cfg->range_selects)
        for (int k = S_SIMPLE_RANGE; k <= S_DISTINCT_RANGE; k++)
            q.read += *range_count(cfg, (enum stmt_kind)k);
    if (g & G_INDEX_UPDATES)
        q.write += cfg->index_updates;
    if (g & G_NON_INDEX_UPDATES)
        q.write += cfg->non_index_updates;
    if (g & G_DELETE_INSERTS)
        q.write += 2 * cfg->delete_inserts;
    if (g & (G_DELETE | G_INSERT))
        q.write += 1;
    if (tests[test].txn && !cfg->skip_trx)
        q.other += 2; /* BEGIN and COMMIT */
    return q;
}

static unsigned kinds_of(const struct oltp_config *cfg, enum oltp_test test)
{
    unsigned g = tests[test].groups, k = 0;
    if (g & G_POINT)
        k |= 1u << S_POINT;
    if ((g & G_RANGES) && cfg->range_selects)
        k |= 1u << S_SIMPLE_RANGE | 1u << S_SUM_RANGE | 1u << S_ORDER_RANGE | 1u << S_DISTINCT_RANGE;
    if (g & G_INDEX_UPDATES)
        k |= 1u << S_INDEX_UPDATE;
    if (g & G_NON_INDEX_UPDATES)
        k |= 1u << S_NON_INDEX_UPDATE;
    if (g & (G_DELETE_INSERTS | G_DELETE))
        k |= 1u << S_DELETE;
    if (g & G_DELETE_INSERTS)
        k |= 1u << S_INSERT;
    if (g & G_INSERT)
        k |= 1u << S_INSERT_AUTO;
    return k;
}

/* ---- workers ------------------------------------------------------------------------------ */

struct oltp_worker {
    struct dg_conn_h *h;
    const struct oltp_config *cfg;
    enum dg_dialect dialect;
    struct dg_stmt **st; /* [(table - 1) * S_NKINDS + kind], NULL where the test needs none */
    uint64_t rows;       /* fetched by the last transaction */
    char c[OLTP_VALUE_LEN(OLTP_C_GROUPS)];
    char pad[OLTP_VALUE_LEN(OLTP_PAD_GROUPS)];
    /* --pipeline on: one transaction's statements, queued with copies of their values. */
    struct dg_call *calls;
    struct dg_value *vals;
    char *text;
    int ncalls, maxcalls, nvals;
    size_t ntext;
};

/* The most values and text bytes one queued statement holds (the INSERT: id, k, c, pad). */
#define MAX_PARAMS 4
#define MAX_TEXT (OLTP_VALUE_LEN(OLTP_C_GROUPS) + OLTP_VALUE_LEN(OLTP_PAD_GROUPS))

void oltp_worker_close(void *wctx)
{
    struct oltp_worker *w = wctx;
    if (!w)
        return;
    if (w->st)
        for (int i = 0; i < w->cfg->tables * S_NKINDS; i++)
            dg_finalize(w->h, w->st[i]);
    free(w->st);
    free(w->calls);
    free(w->vals);
    free(w->text);
    free(w);
}

/* --pipeline on: room for every statement of one transaction of the run's test. */
static int open_queue(struct oltp_worker *w, struct dg_err *err)
{
    struct oltp_queries q = oltp_queries_per_txn(w->cfg, w->cfg->test);
    w->maxcalls = (int)(q.read + q.write);
    w->calls = calloc((size_t)w->maxcalls, sizeof *w->calls);
    w->vals = calloc((size_t)w->maxcalls * MAX_PARAMS, sizeof *w->vals);
    w->text = malloc((size_t)w->maxcalls * MAX_TEXT);
    return w->calls && w->vals && w->text ? 0 : dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
}

int oltp_worker_open(void *shared, struct dg_conn_h *conn, void **wctx, struct dg_err *err)
{
    const struct oltp_config *cfg = shared;
    struct oltp_worker *w = calloc(1, sizeof *w);
    if (w)
        w->st = calloc((size_t)cfg->tables * S_NKINDS, sizeof *w->st);
    if (!w || !w->st) {
        free(w);
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    }
    w->h = conn;
    w->cfg = cfg;
    w->dialect = dg_conn_dialect(conn);
    unsigned kinds = kinds_of(cfg, cfg->test);
    for (int t = 1; t <= cfg->tables; t++)
        for (int k = 0; k < S_NKINDS; k++) {
            if (!(kinds & 1u << k))
                continue;
            char sql[160];
            snprintf(sql, sizeof sql, stmt_defs[k].sql, t);
            if (dg_prepare(conn, sql, stmt_defs[k].nparams, &w->st[(t - 1) * S_NKINDS + k], err)) {
                oltp_worker_close(w);
                return -1;
            }
        }
    if (cfg->pipeline && open_queue(w, err)) {
        oltp_worker_close(w);
        return -1;
    }
    *wctx = w;
    return 0;
}

/* ---- statements ----------------------------------------------------------------------------- */

static struct dg_stmt *stmt(struct oltp_worker *w, int table, enum stmt_kind k)
{
    return w->st[(table - 1) * S_NKINDS + k];
}

static int pick_table(struct oltp_worker *w, struct oltp_term *t)
{
    return (int)dg_rng_range(&t->rng, 1, w->cfg->tables);
}

/* sysbench's get_id(); its default distribution is "special", this one uniform. */
static int64_t pick_id(struct oltp_worker *w, struct oltp_term *t)
{
    return dg_rng_range(&t->rng, 1, w->cfg->table_size);
}

static int count_row(void *ctx, int k, struct dg_stmt *s)
{
    (void)k, (void)s;
    ((struct oltp_worker *)ctx)->rows++;
    return 0;
}

/* --pipeline on: queues statement kind of table with a copy of its values. */
static int queue_stmt(struct oltp_worker *w, int table, enum stmt_kind kind, const struct dg_value *p,
                      struct dg_err *err)
{
    if (w->ncalls == w->maxcalls)
        return dg_err_set(err, DG_ERR_FATAL, 0, "oltp: more statements than the transaction was counted for");
    int n = stmt_defs[kind].nparams;
    struct dg_value *v = &w->vals[w->nvals];
    for (int i = 0; i < n; i++) {
        v[i] = p[i];
        if (p[i].type == DG_T_TEXT) { /* the generator's buffer is reused by the next statement */
            memcpy(w->text + w->ntext, p[i].s.p, p[i].s.n);
            v[i].s.p = w->text + w->ntext;
            w->ntext += p[i].s.n;
        }
    }
    w->nvals += n;
    w->calls[w->ncalls++] = (struct dg_call){.stmt = stmt(w, table, kind), .nparams = n, .params = v, .nsets = 1,
                                             .fn = stmt_defs[kind].rows ? count_row : NULL, .ctx = w};
    return 0;
}

/* Runs statement kind of table (queued instead with --pipeline on) and, for a query, reads
 * its rows to the end. */
static int run_stmt(struct oltp_worker *w, int table, enum stmt_kind kind, const struct dg_value *p,
                    struct dg_err *err)
{
    if (w->calls)
        return queue_stmt(w, table, kind, p, err);
    struct dg_stmt *s = stmt(w, table, kind);
    if (dg_execute(w->h, s, p, err))
        return -1;
    if (!stmt_defs[kind].rows)
        return 0;
    int rc;
    while ((rc = dg_next_row(w->h, s, err)) == 1)
        w->rows++;
    return rc < 0 ? -1 : 0;
}

static int point_selects_run(struct oltp_worker *w, struct oltp_term *t, int n, struct dg_err *err)
{
    int table = pick_table(w, t);
    for (int i = 0; i < n; i++) {
        struct dg_value p[1] = {dg_int(pick_id(w, t))};
        if (run_stmt(w, table, S_POINT, p, err))
            return -1;
    }
    return 0;
}

/* n ranges of one kind on one table: [id, id + range_size - 1]. */
static int ranges_run(struct oltp_worker *w, struct oltp_term *t, enum stmt_kind k, int n, struct dg_err *err)
{
    int table = pick_table(w, t);
    for (int i = 0; i < n; i++) {
        int64_t id = pick_id(w, t);
        struct dg_value p[2] = {dg_int(id), dg_int(id + w->cfg->range_size - 1)};
        if (run_stmt(w, table, k, p, err))
            return -1;
    }
    return 0;
}

static int index_updates_run(struct oltp_worker *w, struct oltp_term *t, struct dg_err *err)
{
    int table = pick_table(w, t);
    for (int i = 0; i < w->cfg->index_updates; i++) {
        struct dg_value p[1] = {dg_int(pick_id(w, t))};
        if (run_stmt(w, table, S_INDEX_UPDATE, p, err))
            return -1;
    }
    return 0;
}

static int non_index_updates_run(struct oltp_worker *w, struct oltp_term *t, struct dg_err *err)
{
    int table = pick_table(w, t);
    for (int i = 0; i < w->cfg->non_index_updates; i++) {
        oltp_digit_groups(&t->rng, w->c, OLTP_C_GROUPS);
        struct dg_value p[2] = {dg_txt(w->c, sizeof w->c), dg_int(pick_id(w, t))};
        if (run_stmt(w, table, S_NON_INDEX_UPDATE, p, err))
            return -1;
    }
    return 0;
}

/* A unique-key violation: a concurrent delete + insert of the same id got in first. sysbench
 * ignores it and restarts the event on PostgreSQL (23505); here the runner retries it. */
static int unique_violation(const struct oltp_worker *w, const struct dg_err *err)
{
    if (err->sqlstate[0] == '2' && err->sqlstate[1] == '3')
        return 1;
    return (w->dialect == DG_DIALECT_MYSQL && err->code == 1062) ||
           (w->dialect == DG_DIALECT_SQLITE && (err->code & 0xff) == 19);
}

/* A unique-key violation is retried (the runner restores the inputs); returns -1. */
static int retry_unique_violation(const struct oltp_worker *w, struct dg_err *err)
{
    if (err->cls == DG_ERR_FATAL && unique_violation(w, err)) {
        err->cls = DG_ERR_RETRY;
        err->cause = DG_RETRY_OTHER;
    }
    return -1;
}

/* Deletes a row and inserts the same id back with fresh k, c and pad. */
static int delete_inserts_run(struct oltp_worker *w, struct oltp_term *t, struct dg_err *err)
{
    int table = pick_table(w, t);
    for (int i = 0; i < w->cfg->delete_inserts; i++) {
        int64_t id = pick_id(w, t), k = pick_id(w, t);
        oltp_digit_groups(&t->rng, w->c, OLTP_C_GROUPS);
        oltp_digit_groups(&t->rng, w->pad, OLTP_PAD_GROUPS);
        struct dg_value d[1] = {dg_int(id)};
        struct dg_value p[4] = {dg_int(id), dg_int(k), dg_txt(w->c, sizeof w->c), dg_txt(w->pad, sizeof w->pad)};
        if (run_stmt(w, table, S_DELETE, d, err))
            return -1;
        if (run_stmt(w, table, S_INSERT, p, err))
            return retry_unique_violation(w, err);
    }
    return 0;
}

static int delete_run(struct oltp_worker *w, struct oltp_term *t, struct dg_err *err)
{
    int table = pick_table(w, t);
    struct dg_value p[1] = {dg_int(pick_id(w, t))};
    return run_stmt(w, table, S_DELETE, p, err);
}

static int insert_run(struct oltp_worker *w, struct oltp_term *t, struct dg_err *err)
{
    int table = pick_table(w, t);
    int64_t k = pick_id(w, t);
    oltp_digit_groups(&t->rng, w->c, OLTP_C_GROUPS);
    oltp_digit_groups(&t->rng, w->pad, OLTP_PAD_GROUPS);
    struct dg_value p[3] = {dg_int(k), dg_txt(w->c, sizeof w->c), dg_txt(w->pad, sizeof w->pad)};
    return run_stmt(w, table, S_INSERT_AUTO, p, err);
}

/* ---- one transaction ------------------------------------------------------------------------ */

static int body(struct oltp_worker *w, struct oltp_term *t, enum oltp_test test, struct dg_err *err)
{
    const struct oltp_config *cfg = w->cfg;
    unsigned g = tests[test].groups;
    if ((g & G_POINT) && point_selects_run(w, t, point_selects(cfg, test), err))
        return -1;
    if ((g & G_RANGES) && cfg->range_selects)
        for (int k = S_SIMPLE_RANGE; k <= S_DISTINCT_RANGE; k++)
            if (ranges_run(w, t, (enum stmt_kind)k, *range_count(cfg, (enum stmt_kind)k), err))
                return -1;
    if ((g & G_INDEX_UPDATES) && index_updates_run(w, t, err))
        return -1;
    if ((g & G_NON_INDEX_UPDATES) && non_index_updates_run(w, t, err))
        return -1;
    if ((g & G_DELETE_INSERTS) && delete_inserts_run(w, t, err))
        return -1;
    if ((g & G_DELETE) && delete_run(w, t, err))
        return -1;
    if ((g & G_INSERT) && insert_run(w, t, err))
        return -1;
    return 0;
}

int oltp_run(void *wctx, void *term, int type, struct dg_err *err)
{
    struct oltp_worker *w = wctx;
    struct oltp_term *t = term;
    if (type < 0 || type >= OLTP_NTESTS || type != (int)w->cfg->test)
        return dg_err_set(err, DG_ERR_FATAL, 0, "oltp: type %d is not this run's test", type);
    const struct test_def *d = &tests[type];
    int txn = d->txn && !w->cfg->skip_trx;
    w->rows = 0;
    w->ncalls = w->nvals = 0;
    w->ntext = 0;
    if (txn && dg_begin(w->h, DG_ISO_DEFAULT, d->write, err))
        return -1;
    if (body(w, t, (enum oltp_test)type, err))
        return -1; /* the runner rolls back */
    if (w->calls) /* the queued statements, and the COMMIT, in as few round trips as the driver can */
        return dg_execute_calls(w->h, w->calls, w->ncalls, txn, err) ? retry_unique_violation(w, err) : 0;
    return txn ? dg_commit(w->h, err) : 0;
}

void oltp_take_volume(void *wctx, uint64_t *rows, uint64_t *bytes)
{
    struct oltp_worker *w = wctx;
    *rows = w->rows;
    *bytes = 0;
    w->rows = 0;
}
