/* urlq.c — key=value pairs of a target URL's query (core/urlq.h). Points into the caller's
 * text; no allocation, no decoding, no knowledge of any driver's options. */
#include "core/urlq.h"

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
