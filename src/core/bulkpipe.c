/* bulkpipe.c — a load's rows, straight to a connection or through the pipe to one writer.
 *
 * The pipe: each producer thread owns a ring of CHUNKS fixed chunks. It records what the
 * writer must do (an item starts, a table's bulk load opens, a row, it closes, the item ends)
 * into the chunk it fills, and publishes the chunk when it is full or the item ends. The
 * writer takes one producer's item at a time, whole, and replays its chunks in order on its
 * connection, then gives each chunk back. One lock per chunk (about 2,000 rows), none per row;
 * memory is the rings, whatever the load's size. A row never straddles two chunks. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/bulkpipe.h"
#include "core/pool.h"
#include "core/sigthread.h"

#define CHUNK_BYTES (256 * 1024)
#define CHUNKS 8
#define MAX_PRODUCERS 64
#define MAX_COLS 64

enum rec { REC_ITEM = 1, REC_TABLE, REC_ROW, REC_TABLE_END, REC_ITEM_END };

struct chunk {
    size_t len;
    unsigned char data[CHUNK_BYTES];
};

struct pipe;

struct dg_pipe_producer {
    struct pipe *p;
    int index;
    struct chunk *ring;  /* CHUNKS, owned here; allocated by dg_pipe_run */
    int head, count;     /* published chunks [head, head + count), guarded by p->mu */
    int done;            /* the thread has published its last chunk (p->mu) */
    struct chunk *fill;  /* the chunk being filled (the producer's, unpublished) */
    int ncols;           /* of the table open in the item being produced */
};

struct pipe {
    const struct dg_pipe_job *job;
    int nitems, nproducers;
    _Atomic int next;   /* the next item to hand out */
    _Atomic int failed;
    pthread_mutex_t mu; /* the rings' head/count/done, first_err */
    pthread_cond_t ready, space;
    struct dg_err first_err;
    struct dg_pipe_producer prod[MAX_PRODUCERS];
};

static void pipe_fail(struct pipe *p, const struct dg_err *err)
{
    pthread_mutex_lock(&p->mu);
    if (!atomic_load(&p->failed))
        p->first_err = *err;
    atomic_store(&p->failed, 1);
    pthread_cond_broadcast(&p->ready);
    pthread_cond_broadcast(&p->space);
    pthread_mutex_unlock(&p->mu);
}

/* ---- the producer's side ----------------------------------------------------------------- */

/* Publishes the chunk being filled (if it holds anything) and waits for a free one. */
static int flush_chunk(struct dg_pipe_producer *pr, struct dg_err *err)
{
    struct pipe *p = pr->p;
    pthread_mutex_lock(&p->mu);
    if (pr->fill && pr->fill->len) {
        pr->count++;
        pthread_cond_signal(&p->ready);
    }
    while (pr->count == CHUNKS && !atomic_load(&p->failed))
        pthread_cond_wait(&p->space, &p->mu);
    int failed = atomic_load(&p->failed);
    if (!failed) {
        pr->fill = &pr->ring[(pr->head + pr->count) % CHUNKS];
        pr->fill->len = 0;
    }
    pthread_mutex_unlock(&p->mu);
    return failed ? dg_err_set(err, DG_ERR_USER, 0, "the load stopped") : 0;
}

/* Room for n more bytes in the chunk being filled, publishing it first when it is full. */
static unsigned char *room(struct dg_pipe_producer *pr, size_t n, struct dg_err *err)
{
    if (n > CHUNK_BYTES)
        return dg_err_set(err, DG_ERR_FATAL, 0, "bulk load: a row of %zu bytes is larger than a chunk", n), NULL;
    if (CHUNK_BYTES - pr->fill->len < n && flush_chunk(pr, err))
        return NULL;
    unsigned char *at = pr->fill->data + pr->fill->len;
    pr->fill->len += n;
    return at;
}

static size_t value_size(const struct dg_value *v)
{
    switch (v->type) {
    case DG_T_INT:
    case DG_T_DOUBLE: return 1 + 8;
    case DG_T_DEC: return 1 + 8 + 1;
    case DG_T_TEXT: return 1 + 4 + v->s.n;
    default: return 1;
    }
}

static unsigned char *put_value(unsigned char *at, const struct dg_value *v)
{
    *at++ = (unsigned char)v->type;
    switch (v->type) {
    case DG_T_INT: memcpy(at, &v->i, 8); return at + 8;
    case DG_T_DOUBLE: memcpy(at, &v->d, 8); return at + 8;
    case DG_T_DEC:
        memcpy(at, &v->dec.v, 8);
        at[8] = (unsigned char)v->dec.scale;
        return at + 9;
    case DG_T_TEXT: {
        uint32_t n = (uint32_t)v->s.n;
        memcpy(at, &n, 4);
        memcpy(at + 4, v->s.p, n);
        return at + 4 + n;
    }
    default: return at;
    }
}

static int record_table(struct dg_pipe_producer *pr, const char *table, const char *const *cols, int ncols,
                        struct dg_err *err)
{
    if (ncols < 1 || ncols > MAX_COLS)
        return dg_err_set(err, DG_ERR_FATAL, 0, "bulk load into %s: %d columns", table, ncols);
    unsigned char *at = room(pr, 1 + 2 * sizeof(void *) + sizeof ncols, err);
    if (!at)
        return -1;
    *at++ = REC_TABLE;
    memcpy(at, &table, sizeof table);
    memcpy(at + sizeof table, &cols, sizeof cols);
    memcpy(at + 2 * sizeof(void *), &ncols, sizeof ncols);
    pr->ncols = ncols;
    return 0;
}

static int record_row(struct dg_pipe_producer *pr, const struct dg_value *v, struct dg_err *err)
{
    size_t n = 1;
    for (int i = 0; i < pr->ncols; i++)
        n += value_size(&v[i]);
    unsigned char *at = room(pr, n, err);
    if (!at)
        return -1;
    *at++ = REC_ROW;
    for (int i = 0; i < pr->ncols; i++)
        at = put_value(at, &v[i]);
    return 0;
}

static int record_mark(struct dg_pipe_producer *pr, enum rec what, const void *payload, size_t n,
                       struct dg_err *err)
{
    unsigned char *at = room(pr, 1 + n, err);
    if (!at)
        return -1;
    *at = (unsigned char)what;
    if (n)
        memcpy(at + 1, payload, n);
    return 0;
}

/* ---- where rows go ---------------------------------------------------------------------- */

int dg_rows_begin(struct dg_rows *r, const char *table, const char *const *cols, int ncols, struct dg_err *err)
{
    r->ncols = ncols;
    if (r->pipe)
        return record_table(r->pipe, table, cols, ncols, err);
    return dg_bulk_begin(r->h, table, cols, ncols, &r->b, err);
}

int dg_rows_put(struct dg_rows *r, const struct dg_value *v, struct dg_err *err)
{
    int sig = r->stop ? atomic_load_explicit(r->stop, memory_order_relaxed) : 0;
    if (sig)
        return dg_err_interrupted(err, sig);
    for (int i = 0; i < r->ncols; i++)
        r->bytes += v[i].type == DG_T_TEXT ? v[i].s.n : v[i].type == DG_T_NULL ? 0 : 8;
    r->rows++;
    return r->pipe ? record_row(r->pipe, v, err) : dg_bulk_row(r->h, r->b, v, err);
}

int dg_rows_end(struct dg_rows *r, int failed, struct dg_err *err)
{
    if (r->pipe)
        return failed ? -1 : record_mark(r->pipe, REC_TABLE_END, NULL, 0, err);
    struct dg_bulk *b = r->b;
    r->b = NULL;
    if (failed) {
        struct dg_err ignore;
        if (b)
            dg_bulk_end(r->h, b, &ignore);
        return -1;
    }
    return dg_bulk_end(r->h, b, err);
}

/* ---- the producers ------------------------------------------------------------------------- */

static void *producer_main(void *arg)
{
    struct dg_pipe_producer *pr = arg;
    struct pipe *p = pr->p;
    const struct dg_pipe_job *job = p->job;
    void *state = NULL;
    struct dg_err err;
    struct dg_rows rows = {.pipe = pr, .stop = job->stop};
    int rc = job->thread_open ? job->thread_open(job->ctx, pr->index, &state, &err) : 0;
    if (!rc)
        rc = flush_chunk(pr, &err); /* takes the first chunk */
    while (!rc && !atomic_load(&p->failed)) {
        int item = atomic_fetch_add(&p->next, 1);
        if (item >= p->nitems)
            break;
        rows.rows = rows.bytes = 0;
        rc = record_mark(pr, REC_ITEM, &item, sizeof item, &err) || job->produce(job->ctx, state, item, &rows, &err);
        uint64_t counts[2] = {rows.rows, rows.bytes};
        /* the item's last chunk goes now, so the writer can finish the item */
        if (!rc)
            rc = record_mark(pr, REC_ITEM_END, counts, sizeof counts, &err) || flush_chunk(pr, &err);
    }
    if (rc)
        pipe_fail(p, &err); /* keeps the first failure: a producer told to stop adds nothing */
    pthread_mutex_lock(&p->mu);
    pr->done = 1;
    pthread_cond_signal(&p->ready);
    pthread_mutex_unlock(&p->mu);
    if (job->thread_close)
        job->thread_close(job->ctx, state);
    return NULL;
}

/* ---- the writer ----------------------------------------------------------------------------- */

struct replay {
    int item, in_item;
    struct dg_bulk *b; /* the bulk load open on the writer */
    int ncols;
};

static const unsigned char *get_value(const unsigned char *at, struct dg_value *v)
{
    v->type = (enum dg_type)*at++;
    switch (v->type) {
    case DG_T_INT: memcpy(&v->i, at, 8); return at + 8;
    case DG_T_DOUBLE: memcpy(&v->d, at, 8); return at + 8;
    case DG_T_DEC:
        memcpy(&v->dec.v, at, 8);
        v->dec.scale = at[8];
        return at + 9;
    case DG_T_TEXT: {
        uint32_t n;
        memcpy(&n, at, 4);
        v->s.p = (const char *)at + 4;
        v->s.n = n;
        return at + 4 + n;
    }
    default: return at;
    }
}

/* Replays one chunk on the writer. Returns 1 when it ended an item, 0 when the item goes on,
 * -1 with err. */
static int replay_chunk(const struct dg_pipe_job *job, struct replay *rp, const struct chunk *c, struct dg_err *err)
{
    const struct dg_conn_h *w = job->writer;
    const unsigned char *at = c->data, *end = c->data + c->len;
    struct dg_value v[MAX_COLS];
    while (at < end) {
        switch ((enum rec)*at++) {
        case REC_ITEM:
            memcpy(&rp->item, at, sizeof rp->item);
            at += sizeof rp->item;
            if (job->item_begin && job->item_begin(job->ctx, rp->item, err))
                return -1;
            rp->in_item = 1;
            break;
        case REC_TABLE: {
            const char *table;
            const char *const *cols;
            memcpy(&table, at, sizeof table);
            memcpy(&cols, at + sizeof table, sizeof cols);
            memcpy(&rp->ncols, at + 2 * sizeof(void *), sizeof rp->ncols);
            at += 2 * sizeof(void *) + sizeof rp->ncols;
            if (dg_bulk_begin(w, table, cols, rp->ncols, &rp->b, err))
                return -1;
            break;
        }
        case REC_ROW:
            for (int i = 0; i < rp->ncols; i++)
                at = get_value(at, &v[i]);
            if (dg_bulk_row(w, rp->b, v, err))
                return -1;
            break;
        case REC_TABLE_END: {
            struct dg_bulk *b = rp->b;
            rp->b = NULL; /* bulk_end frees it, whatever it returns */
            if (dg_bulk_end(w, b, err))
                return -1;
            break;
        }
        case REC_ITEM_END: {
            uint64_t counts[2];
            memcpy(counts, at, sizeof counts);
            if (job->item_end(job->ctx, rp->item, err))
                return -1;
            rp->in_item = 0;
            if (job->item_done)
                job->item_done(job->ctx, rp->item, counts[0], counts[1]);
            return 1; /* an item's end is its chunk's last record */
        }
        default: return dg_err_set(err, DG_ERR_FATAL, 0, "bulk pipe: a corrupt chunk");
        }
    }
    return 0;
}

/* The producer whose item the writer takes next: the one under way, else the first after
 * the last one served with a chunk published. -1: none has one now; -2: all are done. Under
 * p->mu. */
static int next_producer(const struct pipe *p, int cur, int last)
{
    if (cur >= 0)
        return p->prod[cur].count > 0 ? cur : p->prod[cur].done ? -2 : -1;
    int all_done = 1;
    for (int k = 1; k <= p->nproducers; k++) {
        const struct dg_pipe_producer *pr = &p->prod[(last + k) % p->nproducers];
        if (pr->count > 0)
            return pr->index;
        all_done &= pr->done;
    }
    return all_done ? -2 : -1;
}

static int writer_loop(struct pipe *p, const sigset_t *sigs, struct dg_err *err)
{
    const struct dg_pipe_job *job = p->job;
    struct replay rp = {0};
    int cur = -1, last = -1, rc = 0;
    while (rc == 0) {
        int sig = job->stop ? dg_sig_poll(sigs, 0) : 0;
        if (sig) {
            atomic_store(job->stop, sig);
            rc = dg_err_interrupted(err, sig);
            break;
        }
        pthread_mutex_lock(&p->mu);
        int next;
        while ((next = next_producer(p, cur, last < 0 ? 0 : last)) == -1 && !atomic_load(&p->failed))
            dg_cond_wait_ms(&p->ready, &p->mu, 100); /* wakes to look at the signals */
        pthread_mutex_unlock(&p->mu);
        if (atomic_load(&p->failed)) {
            rc = -1;
            break;
        }
        if (next == -2) { /* all done; an item cut short means its producer failed */
            if (cur >= 0)
                rc = dg_err_set(err, DG_ERR_FATAL, 0, "bulk pipe: an item ended early");
            break;
        }
        struct dg_pipe_producer *pr = &p->prod[next];
        int ended = replay_chunk(job, &rp, &pr->ring[pr->head], err);
        pthread_mutex_lock(&p->mu);
        pr->head = (pr->head + 1) % CHUNKS;
        pr->count--;
        pthread_cond_broadcast(&p->space);
        pthread_mutex_unlock(&p->mu);
        if (ended < 0)
            rc = -1;
        cur = ended == 1 ? -1 : next;
        last = next;
    }
    if (rc) { /* whatever was open on the writer is given up */
        struct dg_err ignore;
        if (rp.b)
            dg_bulk_end(job->writer, rp.b, &ignore);
        if (rp.in_item && job->item_abort)
            job->item_abort(job->ctx, rp.item);
    }
    return rc;
}

int dg_pipe_run(const struct dg_pipe_job *job, int nproducers, int nitems, struct dg_err *err)
{
    if (nitems <= 0)
        return 0;
    int n = nproducers < 1 ? 1 : nproducers > MAX_PRODUCERS ? MAX_PRODUCERS : nproducers;
    if (n > nitems)
        n = nitems;
    struct pipe *p = calloc(1, sizeof *p);
    if (!p)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    p->job = job;
    p->nitems = nitems;
    p->nproducers = n;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        p->prod[i] = (struct dg_pipe_producer){.p = p, .index = i, .done = 1};
        if (!(p->prod[i].ring = malloc(CHUNKS * sizeof(struct chunk))))
            rc = dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    }
    pthread_mutex_init(&p->mu, NULL);
    dg_cond_init_mono(&p->ready);
    pthread_cond_init(&p->space, NULL);
    sigset_t sigs, old;
    if (job->stop)
        dg_sig_block(&sigs, &old);
    pthread_t th[MAX_PRODUCERS];
    int started = 0;
    for (int i = 0; i < n && !rc; i++) {
        p->prod[i].done = 0;
        if (pthread_create(&th[started], NULL, producer_main, &p->prod[i]) == 0)
            started++;
        else
            p->prod[i].done = 1;
    }
    if (!rc && started == 0)
        rc = dg_err_set(err, DG_ERR_FATAL, 0, "cannot start a thread to generate rows");
    if (!rc && writer_loop(p, &sigs, err))
        pipe_fail(p, err); /* keeps a producer's earlier failure, else the writer's */
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (job->stop)
        dg_sig_restore(&sigs, &old, job->stop);
    if (!rc && atomic_load(&p->failed)) {
        *err = p->first_err;
        rc = -1;
    }
    for (int i = 0; i < n; i++)
        free(p->prod[i].ring);
    pthread_cond_destroy(&p->space);
    pthread_cond_destroy(&p->ready);
    pthread_mutex_destroy(&p->mu);
    free(p);
    return rc;
}
