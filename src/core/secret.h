/* secret.h — the passwords a driver must never let into a message: a small set of secret
 * texts, the copy of a message with each of them replaced by ***, and wiping memory that held
 * one. Pure string work: no database header, no I/O, no global state. */
#ifndef DG_SECRET_H
#define DG_SECRET_H

#include <stddef.h>

#define DG_SECRETS_MAX 4

/* The forms one password may take (as written in a URL, decoded, from the environment).
 * Zero-initialised it is empty. Owns its texts: release with dg_secrets_free. */
struct dg_secrets {
    int n;
    char *text[DG_SECRETS_MAX]; /* NUL-terminated copies, longest first */
};

/* How dg_secret_scrub treats whitespace outside the secrets. */
enum dg_scrub_space {
    DG_SCRUB_MAP,  /* each newline, carriage return or tab becomes one space */
    DG_SCRUB_FOLD, /* runs of whitespace become one space; none leading or trailing */
};

/* Adds a copy of p[0..n). Nothing happens when n is 0, the text is already in the set, the set
 * is full or memory is short. The set stays ordered longest first, so a secret that contains
 * another is replaced whole. */
void dg_secret_add(struct dg_secrets *set, const char *p, size_t n);
/* Copies src into dst (cap > 0 bytes, always NUL-terminated, cut to fit) with every secret of
 * set replaced by "***", whitespace treated as how says and any other control byte written
 * as \xNN (dg_err_put_byte), so a message is one line. set may be NULL (no secrets). */
void dg_secret_scrub(const struct dg_secrets *set, char *dst, size_t cap, const char *src,
                     enum dg_scrub_space how);
/* Zeroes p[0..n) in a way the compiler does not drop as a dead store. */
void dg_secret_wipe(void *p, size_t n);
/* Wipes and frees every text; the set is empty (and may be used again) after. */
void dg_secrets_free(struct dg_secrets *set);

#endif
