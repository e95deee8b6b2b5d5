/* test_bulkpipe.c — the core's one-writer pipe on a real SQLite file: every item's rows land
 * whole and in order whatever the producer count, the rings wrap many times (items larger
 * than all the chunks), a writer failure (a duplicate key) and a producer failure come back
 * as the error without a hang and roll the item back, and a signal stops the load. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bulkpipe.h"
#include "check.h"

#define ROWS 6000 /* per item: about 1.3 MB, more than a producer's 8 chunks of 256 KiB */

struct ctx {
    struct dg_conn_h *h;
    int dup_at, fail_at, signal_at; /* item that writes a duplicate key / fails / raises SIGINT; -1 none */
    _Atomic int done_items, aborted;
    uint64_t done_rows;
};

static int produce(void *c, void *state, int item, struct dg_rows *rows, struct dg_err *err)
{
    (void)state;
    struct ctx *x = c;
    static const char *const cols[] = {"k", "item", "v"};
    char text[200];
    memset(text, 'a' + item % 26, sizeof text);
    if (item == x->signal_at)
        kill(getpid(), SIGINT); /* to the process: a raise() would stay with this thread */
    if (dg_rows_begin(rows, "t", cols, 3, err))
        return -1;
    for (int r = 0; r < ROWS; r++) {
        if (item == x->fail_at && r == ROWS / 2)
            return dg_rows_end(rows, 1, err), dg_err_set(err, DG_ERR_FATAL, 0, "producer failed at item %d", item);
        int64_t key = item == x->dup_at && r == ROWS - 1 ? 0 : (int64_t)item * ROWS + r;
        struct dg_value v[3] = {dg_int(key), dg_int(item), dg_txt(text, 50 + (size_t)(r % 150))};
        if (dg_rows_put(rows, v, err))
            return dg_rows_end(rows, 1, err), -1;
    }
    return dg_rows_end(rows, 0, err);
}

static int begin(void *c, int item, struct dg_err *err)
{
    (void)item;
    struct ctx *x = c;
    return dg_begin(x->h, DG_ISO_DEFAULT, 1, err);
}

static int end(void *c, int item, struct dg_err *err)
{
    (void)item;
    struct ctx *x = c;
    return dg_commit(x->h, err);
}

static void abort_item(void *c, int item)
{
    (void)item;
    struct ctx *x = c;
    struct dg_err ignore;
    x->aborted++;
    dg_rollback(x->h, &ignore);
}

static void done(void *c, int item, uint64_t rows, uint64_t bytes)
{
    (void)item;
    (void)bytes;
    struct ctx *x = c;
    x->done_items++;
    x->done_rows += rows;
}

static int64_t count(struct dg_conn_h *h, const char *sql)
{
    int64_t n = -1;
    struct dg_err err;
    return dg_query_int(h, sql, &n, &err) ? -1 : n;
}

/* A fresh table, then nitems items over nprod producers. */
static int run(struct dg_conn_h *h, struct ctx *x, int nprod, int nitems, atomic_int *stop, struct dg_err *err)
{
    dg_exec(h, "DROP TABLE IF EXISTS t", err);
    dg_exec(h, "CREATE TABLE t (k INTEGER PRIMARY KEY, item INTEGER, v TEXT)", err);
    x->done_items = x->aborted = 0;
    x->done_rows = 0;
    struct dg_pipe_job job = {.ctx = x, .writer = h, .produce = produce, .item_begin = begin, .item_end = end,
                              .item_abort = abort_item, .item_done = done, .stop = stop};
    return dg_pipe_run(&job, nprod, nitems, err);
}

int main(void)
{
    struct dg_test t = {0};
    char path[64], url[96];
    snprintf(path, sizeof path, "/tmp/dg-bulkpipe-%d.db", (int)getpid());
    snprintf(url, sizeof url, "sqlite:%s", path);
    struct dg_target tgt;
    struct dg_conn_h h;
    struct dg_err err;
    struct dg_connect_opts co = {.create = 1};
    if (dg_target_parse(url, &tgt, &err) || dg_connect(&tgt, &co, &h, &err)) {
        printf("not ok - connect: %s\n", err.msg);
        return 1;
    }
    struct ctx x = {.h = &h, .dup_at = -1, .fail_at = -1, .signal_at = -1};

    for (int nprod = 1; nprod <= 3; nprod += 2) {
        char name[96];
        int rc = run(&h, &x, nprod, 12, NULL, &err);
        snprintf(name, sizeof name, "%d producer(s), 12 items: every row in, each item told once", nprod);
        CHECK(&t, rc == 0 && count(&h, "SELECT count(*) FROM t") == 12 * ROWS && x.done_items == 12 &&
                      x.done_rows == 12 * ROWS,
              name, "rc %d rows %lld items %d told rows %llu: %s", rc, (long long)count(&h, "SELECT count(*) FROM t"),
              (int)x.done_items, (unsigned long long)x.done_rows, rc ? err.msg : "");
        /* each row holds its own item's text, at the length its row number gives */
        CHECK(&t,
              count(&h, "SELECT count(*) FROM t WHERE item <> k / 6000 OR length(v) <> 50 + (k % 6000) % 150 OR "
                        "substr(v, 1, 1) <> char(97 + item % 26)") == 0,
              "rows arrive whole: values, lengths and text as produced", "mismatches");
    }

    x.dup_at = 5;
    int rc = run(&h, &x, 2, 12, NULL, &err);
    CHECK(&t, rc == -1 && strstr(err.msg, "UNIQUE") && x.aborted == 1,
          "a writer failure (duplicate key in item 5) is the error, the item rolled back", "rc %d aborted %d: %s", rc,
          (int)x.aborted, err.msg);
    CHECK(&t, count(&h, "SELECT count(*) FROM t WHERE item = 5") == 0 && count(&h, "SELECT count(*) FROM t") % ROWS == 0,
          "... no row of the failed item stays, only whole items", "rows %lld", (long long)count(&h, "SELECT count(*) FROM t"));
    x.dup_at = -1;

    x.fail_at = 7;
    rc = run(&h, &x, 3, 20, NULL, &err);
    CHECK(&t, rc == -1 && strstr(err.msg, "producer failed at item 7") && count(&h, "SELECT count(*) FROM t WHERE item = 7") == 0,
          "a producer failure is the error, none of its item written", "rc %d: %s", rc, err.msg);
    x.fail_at = -1;

    atomic_int stop = 0;
    x.signal_at = 4;
    rc = run(&h, &x, 2, 40, &stop, &err);
    CHECK(&t, rc == -1 && strstr(err.msg, "interrupted (SIGINT)") && stop == SIGINT && x.done_items < 40,
          "SIGINT stops the load: interrupted, the rest not loaded", "rc %d stop %d items %d: %s", rc, (int)stop,
          (int)x.done_items, err.msg);
    CHECK(&t, count(&h, "SELECT count(*) FROM t") == (int64_t)x.done_items * ROWS,
          "... what was told done is there, and nothing else", "rows %lld items %d",
          (long long)count(&h, "SELECT count(*) FROM t"), (int)x.done_items);
    x.signal_at = -1;

    CHECK(&t, run(&h, &x, 2, 0, NULL, &err) == 0 && x.done_items == 0, "no items: nothing to do", "rc not 0");
    dg_disconnect(&h);
    unlink(path);
    return dg_test_done(&t);
}
