/* urlq.h — splits the query of a target URL (what follows '?': key=value pairs joined by
 * '&') for the drivers that take options there (sqlite:PATH?busy_timeout=..., mysql://...?load=).
 * Points into the caller's text: no allocation, no copy, no decoding; knows no option. */
#ifndef DG_URLQ_H
#define DG_URLQ_H

#include <stddef.h>

struct dg_urlq_pair {
    const char *text; /* the whole pair, len bytes ("key=value") */
    size_t len;
    const char *key; /* klen bytes: the text before '=' (all of it when there is no '=') */
    size_t klen;
    const char *val; /* vlen bytes after '='; NULL when the pair has no '=' */
    size_t vlen;
};

/* The query of url: what follows its first '?' (NULL when there is none). */
const char *dg_urlq_of(const char *url);
/* Takes the next pair from *q (NULL or a query) and advances *q past it and its '&'. The
 * query ends at its NUL or at any character of stop ("#" ends a URI query at its fragment;
 * "" for none). An empty pair ("a=1&&b=2") is returned as such. Returns 1 with kv filled, 0
 * when no pair is left. */
int dg_urlq_next(const char **q, const char *stop, struct dg_urlq_pair *kv);
/* 1 when kv's key is exactly key. */
int dg_urlq_key_is(const struct dg_urlq_pair *kv, const char *key);

#endif
