/* bulkpipe.h — where a load's generated rows go. Straight to the generating thread's own
 * connection (engines with many writers: each job loads whole units), or, for an engine with
 * one writer (SQLite), recorded into chunks by several generating threads and replayed by the
 * one writer, so generation never waits on the B-tree and the B-tree never waits on
 * generation. Workloads write rows through struct dg_rows and never see which. */
#ifndef DG_BULKPIPE_H
#define DG_BULKPIPE_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/driver.h"

struct dg_pipe_producer; /* a generating thread's side of the pipe (bulkpipe.c) */

/* A generator's output: set up by the pool (direct: h) or by the pipe (piped); rows and bytes
 * count what went through since the owner last zeroed them (bytes: the values' sizes, text
 * length or 8 per number). */
struct dg_rows {
    const struct dg_conn_h *h;       /* direct: rows go into h's bulk load */
    struct dg_bulk *b;               /* direct: the open bulk load */
    struct dg_pipe_producer *pipe;   /* piped: rows are recorded for the writer */
    const atomic_int *stop;          /* non-zero: give up (a signal came); may be NULL */
    int ncols;                       /* of the table open */
    uint64_t rows, bytes;
};

/* Rows into table (columns in order), then end. end(failed=1) closes without finishing the
 * load of the table (after an error); it keeps the first error in err only when failed=0. */
int dg_rows_begin(struct dg_rows *r, const char *table, const char *const *cols, int ncols, struct dg_err *err);
int dg_rows_put(struct dg_rows *r, const struct dg_value *v, struct dg_err *err);
int dg_rows_end(struct dg_rows *r, int failed, struct dg_err *err);

/* One writer, several generating threads. Items are handed out in order to the producers;
 * the writer (the calling thread) replays one item at a time, whole, on its connection:
 * item_begin, the item's rows, item_end (the writer's transaction around a unit). */
struct dg_pipe_job {
    void *ctx;
    const struct dg_conn_h *writer;
    /* Producer threads (thread_open and thread_close may be NULL). */
    int (*thread_open)(void *ctx, int thread, void **state, struct dg_err *err);
    int (*produce)(void *ctx, void *state, int item, struct dg_rows *rows, struct dg_err *err);
    void (*thread_close)(void *ctx, void *state);
    /* The writer's thread. item_abort after a failure inside an item (may be NULL). */
    int (*item_begin)(void *ctx, int item, struct dg_err *err);
    int (*item_end)(void *ctx, int item, struct dg_err *err);
    void (*item_abort)(void *ctx, int item);
    /* After item_end succeeded: its rows and bytes (may be NULL). */
    void (*item_done)(void *ctx, int item, uint64_t rows, uint64_t bytes);
    /* Non-NULL: SIGINT and SIGTERM stop the load: *stop gets the signal's number, the item
     * under way is aborted, and the run fails with a DG_ERR_USER "interrupted" error. */
    atomic_int *stop;
};

/* Runs items 0..nitems-1 over nproducers generating threads (at least one) and the calling
 * thread as the writer. Memory: a fixed ring of chunks per producer, whatever nitems is.
 * Returns 0, or -1 with err (the first failure). */
int dg_pipe_run(const struct dg_pipe_job *job, int nproducers, int nitems, struct dg_err *err);

#endif
