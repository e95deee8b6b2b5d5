/* check.h — the few macros unit tests share: one `ok - name` / `not ok - name: why` line per
 * check, and a closing `N passed, N failed` line. Header-only; tests only. */
#ifndef DG_TEST_CHECK_H
#define DG_TEST_CHECK_H

#include <stdio.h>

struct dg_test {
    int passed, failed;
};

#define CHECK(t, cond, name, ...)                                                              \
    do {                                                                                       \
        if (cond) {                                                                            \
            printf("ok - %s\n", name);                                                         \
            (t)->passed++;                                                                     \
        } else {                                                                               \
            printf("not ok - %s: ", name);                                                     \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
            (t)->failed++;                                                                     \
        }                                                                                      \
    } while (0)

static inline int dg_test_done(const struct dg_test *t)
{
    printf("%d passed, %d failed\n", t->passed, t->failed);
    return t->failed ? 1 : 0;
}

#endif
