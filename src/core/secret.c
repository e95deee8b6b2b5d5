/* secret.c — secret texts scrubbed from messages and wiped from memory, shared by the drivers
 * that hold a password (PostgreSQL, MariaDB/MySQL, ODBC). Must not include a database header
 * nor print anything: it only copies and zeroes bytes. */
#include "core/secret.h"

#include "core/err.h"

#include <stdlib.h>
#include <string.h>

void dg_secret_add(struct dg_secrets *set, const char *p, size_t n)
{
    if (n == 0 || set->n >= DG_SECRETS_MAX)
        return;
    for (int i = 0; i < set->n; i++)
        if (strlen(set->text[i]) == n && memcmp(set->text[i], p, n) == 0)
            return;
    char *copy = malloc(n + 1);
    if (!copy)
        return;
    memcpy(copy, p, n);
    copy[n] = '\0';
    set->text[set->n++] = copy;
    /* longest first, so a secret containing another is scrubbed whole */
    for (int i = set->n - 1; i > 0 && strlen(set->text[i]) > strlen(set->text[i - 1]); i--) {
        char *t = set->text[i];
        set->text[i] = set->text[i - 1];
        set->text[i - 1] = t;
    }
}

/* The length of the secret src starts with, 0 if none. */
static size_t secret_at(const struct dg_secrets *set, const char *src)
{
    for (int i = 0; set && i < set->n; i++) {
        size_t n = strlen(set->text[i]);
        if (n && strncmp(src, set->text[i], n) == 0)
            return n;
    }
    return 0;
}

void dg_secret_scrub(const struct dg_secrets *set, char *dst, size_t cap, const char *src,
                     enum dg_scrub_space how)
{
    size_t o = 0;
    int space = 0; /* FOLD: the last byte written was a folded space */
    while (*src && o + 1 < cap) {
        size_t hit = secret_at(set, src);
        if (hit) {
            for (const char *r = "***"; *r && o + 1 < cap; r++)
                dst[o++] = *r;
            src += hit;
            space = 0;
            continue;
        }
        char ch = *src++;
        int white = ch == '\n' || ch == '\r' || ch == '\t';
        if (how == DG_SCRUB_FOLD && (white || ch == ' ')) {
            if (o > 0 && !space)
                dst[o++] = ' ';
            space = 1;
            continue;
        }
        space = 0;
        /* any other control byte of a server's message is shown as \xNN, never sent raw */
        if (dg_err_put_byte(dst, cap, &o, white ? ' ' : (unsigned char)ch))
            break;
    }
    if (how == DG_SCRUB_FOLD)
        while (o > 0 && dst[o - 1] == ' ')
            o--;
    dst[o] = '\0';
}

void dg_secret_wipe(void *p, size_t n)
{
    volatile unsigned char *v = p;
    while (n--)
        *v++ = 0;
}

void dg_secrets_free(struct dg_secrets *set)
{
    for (int i = 0; i < set->n; i++) {
        dg_secret_wipe(set->text[i], strlen(set->text[i]));
        free(set->text[i]);
        set->text[i] = NULL;
    }
    set->n = 0;
}
