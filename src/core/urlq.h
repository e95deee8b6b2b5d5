/* urlq.h — splits the parts of a target URL drivers share: the query (what follows '?':
 * key=value pairs joined by '&', for sqlite:PATH?busy_timeout=..., mysql://...?load=) and
 * the host list of the authority (scheme://user@h1:p1,h2:p2/db, several servers in one target).
 * Points into the caller's text: no allocation, no copy, no decoding; knows no option. */
#ifndef DG_URLQ_H
#define DG_URLQ_H

#include <stddef.h>

#include "core/err.h"

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

/* One server of a URL's host list. */
struct dg_url_host {
    const char *host; /* hlen bytes, into the URL (an IPv6 address keeps its brackets) */
    size_t hlen;
    int port;         /* 1..65535; 0 when the part names none */
};
#define DG_URL_MAX_HOSTS 16

/* The host list of url ("scheme://[user[:password]@]HOSTS[/...][?...]", HOSTS being
 * host[:port] parts joined by ','), at most max parts into out. The list ends at the first
 * '/', '?' or '#' after the user info. Returns how many parts (0: the URL names no host, as
 * postgresql:///db), or -1 with a DG_ERR_USER error naming the bad part: an empty host (",,",
 * a trailing ','), a port that is not a number in 1..65535, more than max hosts, a URL
 * without "://". shown (the redacted URL) is what the message quotes. */
int dg_url_hosts(const char *url, const char *shown, struct dg_url_host *out, int max, struct dg_err *err);
/* url with its host list cut down to its i-th part (0-based): "scheme://user@h2:p2/db?x" from
 * "scheme://user@h1:p1,h2:p2/db?x" and i 1; the same user info, path and query. For a URL
 * dg_url_hosts accepted. Returns 0, or -1 when the URL has no i-th host or out (n bytes) is
 * too small. */
int dg_url_one_host(const char *url, int i, char *out, size_t n);

#endif
