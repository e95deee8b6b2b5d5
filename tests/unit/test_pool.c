/* test_pool.c — unit tests of the core's thread pool: every item runs exactly once, each
 * thread opens and closes its own state once, and the first failure stops the handing out
 * and comes back as the error. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/pool.h"
#include "check.h"

struct ctx {
    _Atomic int ran[1000];
    _Atomic int opened, closed, items;
    int fail_at;      /* item that fails, -1: none */
    int fail_open;    /* thread that cannot open, -1: none */
};

static int t_open(void *c, int thread, void **state, struct dg_err *err)
{
    struct ctx *x = c;
    atomic_fetch_add(&x->opened, 1);
    if (thread == x->fail_open)
        return dg_err_set(err, DG_ERR_FATAL, 0, "thread %d cannot open", thread);
    int *s = malloc(sizeof *s);
    *s = thread;
    *state = s;
    return 0;
}

static int t_item(void *c, void *state, int item, struct dg_err *err)
{
    struct ctx *x = c;
    if (!state)
        return dg_err_set(err, DG_ERR_FATAL, 0, "no state");
    atomic_fetch_add(&x->ran[item], 1);
    atomic_fetch_add(&x->items, 1);
    if (item == x->fail_at)
        return dg_err_set(err, DG_ERR_USER, 0, "item %d failed", item);
    return 0;
}

static void t_close(void *c, void *state)
{
    struct ctx *x = c;
    atomic_fetch_add(&x->closed, 1);
    free(state);
}

int main(void)
{
    struct dg_test t = {0};
    static struct ctx x;
    struct dg_pool_job job = {.ctx = &x, .thread_open = t_open, .item = t_item, .thread_close = t_close};
    struct dg_err err;

    memset(&x, 0, sizeof x);
    x.fail_at = x.fail_open = -1;
    int rc = dg_pool_run(&job, 4, 1000, &err);
    int once = 1;
    for (int i = 0; i < 1000; i++)
        once &= x.ran[i] == 1;
    CHECK(&t, rc == 0 && once, "1000 items on 4 threads: each ran exactly once", "rc %d", rc);
    CHECK(&t, x.opened == 4 && x.closed == 4, "each thread opened and closed its state once", "%d %d",
          x.opened, x.closed);

    memset(&x, 0, sizeof x);
    x.fail_at = x.fail_open = -1;
    rc = dg_pool_run(&job, 8, 3, &err);
    CHECK(&t, rc == 0 && x.opened == 3 && x.items == 3, "no more threads than items", "opened %d", x.opened);

    memset(&x, 0, sizeof x);
    x.fail_open = -1;
    x.fail_at = 10;
    rc = dg_pool_run(&job, 1, 1000, &err);
    CHECK(&t, rc == -1 && err.cls == DG_ERR_USER && strstr(err.msg, "item 10 failed") && x.items == 11,
          "one thread: the failing item is the error and nothing after it runs", "rc %d items %d: %s", rc,
          x.items, err.msg);

    memset(&x, 0, sizeof x);
    x.fail_at = -1;
    x.fail_open = 0;
    rc = dg_pool_run(&job, 1, 5, &err);
    CHECK(&t, rc == -1 && strstr(err.msg, "cannot open") && x.items == 0 && x.closed == 1,
          "a thread that cannot open runs no item, and is closed", "rc %d items %d closed %d", rc, x.items,
          x.closed);
    CHECK(&t, dg_pool_run(&job, 4, 0, &err) == 0, "no items: nothing to do", "rc not 0");
    return dg_test_done(&t);
}
