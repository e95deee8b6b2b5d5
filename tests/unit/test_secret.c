/* test_secret.c — unit tests of the drivers' secret helper: the set of secrets (copies, no
 * duplicates, longest first, bounded), scrubbing a message in both whitespace modes, cutting
 * to the buffer, and wiping. */
#include <string.h>

#include "core/secret.h"
#include "check.h"

static const char *scrub(const struct dg_secrets *s, const char *src, enum dg_scrub_space how)
{
    static char out[128];
    dg_secret_scrub(s, out, sizeof out, src, how);
    return out;
}

int main(void)
{
    struct dg_test t = {0};
    struct dg_secrets s = {0};
    const char *r;

    /* The set: copies, duplicates and empty texts ignored, longest first. */
    char pw[] = "p@ss";
    dg_secret_add(&s, pw, strlen(pw));
    dg_secret_add(&s, "p@ss", 4);
    dg_secret_add(&s, "", 0);
    pw[0] = 'X'; /* the set holds its own copy */
    dg_secret_add(&s, "p%40ss-and-more", 6); /* only n bytes: "p%40ss" */
    CHECK(&t, s.n == 2, "duplicates and empty texts are not added", "n=%d", s.n);
    CHECK(&t, s.n == 2 && !strcmp(s.text[0], "p%40ss") && !strcmp(s.text[1], "p@ss"),
          "the set holds copies of n bytes, longest first", "%s | %s", s.text[0], s.n > 1 ? s.text[1] : "");

    /* MAP: control whitespace becomes spaces, nothing else moves. */
    r = scrub(&s, "login p@ss failed\n\tfor p%40ss  ", DG_SCRUB_MAP);
    CHECK(&t, !strcmp(r, "login *** failed  for ***  "), "map: both forms replaced, tabs and newlines become spaces",
          "'%s'", r);
    /* FOLD: runs of whitespace become one space, none at the ends. */
    r = scrub(&s, "\n  FATAL:  password p@ss\n\tis wrong \n", DG_SCRUB_FOLD);
    CHECK(&t, !strcmp(r, "FATAL: password *** is wrong"), "fold: runs folded, ends trimmed", "'%s'", r);
    r = scrub(&s, "p@ssp@ss x p%40ss", DG_SCRUB_FOLD);
    CHECK(&t, !strcmp(r, "****** x ***"), "fold: secrets side by side each replaced", "'%s'", r);

    /* A secret containing another is replaced whole (longest first, whatever the order added). */
    struct dg_secrets n = {0};
    dg_secret_add(&n, "abc", 3);
    dg_secret_add(&n, "abc%25", 6);
    r = scrub(&n, "[abc%25] [abc]", DG_SCRUB_MAP);
    CHECK(&t, !strcmp(r, "[***] [***]"), "a secret containing another is replaced whole", "'%s'", r);
    dg_secrets_free(&n);

    /* Bounded: a full set ignores more; no set (NULL) scrubs nothing. */
    struct dg_secrets full = {0};
    const char *many[] = {"one1", "two22", "three", "four4444", "five55555"};
    for (int i = 0; i < 5; i++)
        dg_secret_add(&full, many[i], strlen(many[i]));
    CHECK(&t, full.n == DG_SECRETS_MAX, "the set holds at most DG_SECRETS_MAX", "n=%d", full.n);
    dg_secrets_free(&full);
    CHECK(&t, full.n == 0 && full.text[0] == NULL, "free empties the set", "n=%d", full.n);
    r = scrub(NULL, "a\tp@ss", DG_SCRUB_MAP);
    CHECK(&t, !strcmp(r, "a p@ss"), "no set: nothing replaced", "'%s'", r);

    /* Cut to the buffer, always terminated, *** cut too. */
    char small[8];
    dg_secret_scrub(&s, small, sizeof small, "abcdp@ss-tail", DG_SCRUB_MAP);
    CHECK(&t, !strcmp(small, "abcd***"), "cut to cap-1 bytes", "'%s'", small);
    dg_secret_scrub(&s, small, 6, "abcdp@ss", DG_SCRUB_MAP);
    CHECK(&t, !strcmp(small, "abcd*"), "*** cut at the end of the buffer", "'%s'", small);
    dg_secret_scrub(&s, small, 1, "abc", DG_SCRUB_FOLD);
    CHECK(&t, small[0] == '\0', "a 1-byte buffer gets an empty string", "'%s'", small);

    /* Wipe. */
    char buf[16] = "hunter2-hunter2";
    dg_secret_wipe(buf, sizeof buf);
    int zero = 1;
    for (size_t i = 0; i < sizeof buf; i++)
        zero &= buf[i] == 0;
    CHECK(&t, zero, "wipe zeroes every byte", "not all zero");

    dg_secrets_free(&s);
    CHECK(&t, s.n == 0, "free of the first set", "n=%d", s.n);
    return dg_test_done(&t);
}
