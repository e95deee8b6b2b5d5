/* urlq.c — key=value pairs of a target URL's query and the host list of its authority
 * (core/urlq.h). Points into the caller's text; no allocation, no decoding, no knowledge of
 * any driver's options. */
#include "core/urlq.h"

#include <stdio.h>
#include <string.h>

const char *dg_urlq_of(const char *url)
{
    const char *q = url ? strchr(url, '?') : NULL;
    return q ? q + 1 : NULL;
}

int dg_urlq_next(const char **q, const char *stop, struct dg_urlq_pair *kv)
{
    const char *p = *q;
    if (!p || !*p || strchr(stop, *p))
        return 0;
    char ends[16] = "&";
    strncat(ends, stop, sizeof ends - 2);
    size_t len = strcspn(p, ends);
    const char *eq = memchr(p, '=', len);
    *kv = (struct dg_urlq_pair){.text = p, .len = len, .key = p, .klen = eq ? (size_t)(eq - p) : len,
                                .val = eq ? eq + 1 : NULL, .vlen = eq ? len - (size_t)(eq - p) - 1 : 0};
    p += len;
    if (*p == '&')
        p++;
    *q = p;
    return 1;
}

int dg_urlq_key_is(const struct dg_urlq_pair *kv, const char *key)
{
    return strlen(key) == kv->klen && strncmp(kv->key, key, kv->klen) == 0;
}

/* One part "host[:port]" (or "[v6]:port") of p[0..n) into *h; -1 with err when bad (list:
 * the whole host list, quoted when the part is empty). */
static int host_part(const char *p, size_t n, const char *list, size_t llen, const char *shown,
                     struct dg_url_host *h, struct dg_err *err)
{
    const char *colon = NULL;
    if (n && p[0] == '[') { /* [IPv6]:port */
        const char *close = memchr(p, ']', n);
        if (!close)
            return dg_err_set(err, DG_ERR_USER, 0, "target %s: host '%.*s' has no closing ']'", shown, (int)n, p);
        colon = close + 1 < p + n ? close + 1 : NULL;
        if (colon && *colon != ':')
            return dg_err_set(err, DG_ERR_USER, 0, "target %s: bad host '%.*s'", shown, (int)n, p);
    } else {
        colon = memchr(p, ':', n);
    }
    size_t hlen = colon ? (size_t)(colon - p) : n;
    if (hlen == 0)
        return dg_err_set(err, DG_ERR_USER, 0, "target %s: an empty host in the host list '%.*s'%s", shown,
                          (int)llen, list, n ? "" : " (a ',' with no host after or before it)");
    *h = (struct dg_url_host){.host = p, .hlen = hlen};
    if (!colon)
        return 0;
    const char *digits = colon + 1;
    size_t dlen = (size_t)(p + n - digits);
    long port = 0;
    for (size_t i = 0; i < dlen && port <= 65535; i++)
        port = digits[i] >= '0' && digits[i] <= '9' ? port * 10 + (digits[i] - '0') : 100000;
    if (dlen == 0 || port < 1 || port > 65535)
        return dg_err_set(err, DG_ERR_USER, 0, "target %s: port '%.*s' of host '%.*s' is not a number in 1..65535",
                          shown, (int)dlen, digits, (int)hlen, p);
    h->port = (int)port;
    return 0;
}

/* The host list of url: *start to the returned end; NULL when url has no "://". */
static const char *host_list(const char *url, const char **start)
{
    const char *p = strstr(url, "://");
    if (!p)
        return NULL;
    p += 3;
    /* The user info ends at the last '@' before the path (a password may hold '?' or '#'). */
    const char *path = p + strcspn(p, "/");
    for (const char *q = p; q < path; q++)
        if (*q == '@')
            p = q + 1;
    *start = p;
    return p + strcspn(p, "/?#");
}

int dg_url_one_host(const char *url, int i, char *out, size_t n)
{
    const char *list = NULL, *end = host_list(url, &list), *p = list;
    if (!end || end == p || i < 0)
        return -1;
    for (; i > 0; i--) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        if (!comma)
            return -1;
        p = comma + 1;
    }
    const char *comma = memchr(p, ',', (size_t)(end - p));
    const char *stop = comma ? comma : end;
    int len = snprintf(out, n, "%.*s%.*s%s", (int)(list - url), url, (int)(stop - p), p, end);
    return len < 0 || (size_t)len >= n ? -1 : 0;
}

int dg_url_hosts(const char *url, const char *shown, struct dg_url_host *out, int max, struct dg_err *err)
{
    const char *p = NULL, *end = host_list(url, &p);
    if (!end)
        return dg_err_set(err, DG_ERR_USER, 0, "target %s: expected scheme://host[:port]/...", shown);
    if (end == p)
        return 0;
    int n = 0;
    for (const char *part = p;; ) {
        const char *comma = memchr(part, ',', (size_t)(end - part));
        const char *stop = comma ? comma : end;
        if (n == max)
            return dg_err_set(err, DG_ERR_USER, 0, "target %s: more than %d hosts", shown, max);
        if (host_part(part, (size_t)(stop - part), p, (size_t)(end - p), shown, &out[n], err))
            return -1;
        n++;
        if (!comma)
            return n;
        part = comma + 1;
    }
}
