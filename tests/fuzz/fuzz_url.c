/* fuzz_url.c — fuzz target "url": a target URL of any engine (sqlite:, postgres://, mysql://,
 * odbc: connection strings) as the command line takes it: the scheme (dg_target_parse), the
 * driver's own reading of it (check_url, no connection), the redacted form shown and stored,
 * the host list (dg_url_hosts) with each host's own URL (dg_url_one_host, as --cluster makes
 * them), the password's place and the query's pairs. Checks: errors are DG_ERR_USER with a
 * one-line message; the shown form has no control byte and never the password; every host's
 * URL reads back as that one host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/driver.h"
#include "core/urlq.h"
#include "harness.h"

/* Each host of url, cut out as --cluster does, must read back as exactly that host. */
static void check_hosts(const char *url, const char *shown)
{
    struct dg_url_host hosts[DG_URL_MAX_HOSTS];
    struct dg_err err;
    int n = dg_url_hosts(url, shown, hosts, DG_URL_MAX_HOSTS, &err);
    if (n < 0) {
        dg_fuzz_check_user_err("dg_url_hosts", &err);
        return;
    }
    for (int i = 0; i < n; i++) {
        char one[2048];
        if (dg_url_one_host(url, i, one, sizeof one))
            dg_fuzz_fail("dg_url_one_host: host %d of %d not cut out of '%.300s'", i, n, url);
        struct dg_url_host back[DG_URL_MAX_HOSTS];
        int m = dg_url_hosts(one, one, back, DG_URL_MAX_HOSTS, &err);
        if (m != 1 || back[0].hlen != hosts[i].hlen || memcmp(back[0].host, hosts[i].host, hosts[i].hlen) ||
            back[0].port != hosts[i].port)
            dg_fuzz_fail("host %d of '%.300s' reads back from '%.300s' as %d hosts", i, url, one, m);
    }
    if (dg_url_one_host(url, n, (char[64]){0}, 64) == 0 && n > 0)
        dg_fuzz_fail("dg_url_one_host: a host %d past the %d of '%.300s'", n, n, url);
}

/* The password of the user info never shows in the redacted form (when it is long enough
 * not to be found by chance elsewhere in the text). */
static void check_redacted(const char *url, const char *shown)
{
    for (const char *p = shown; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            dg_fuzz_fail("redacted '%.300s' holds control byte 0x%02x", shown, (unsigned char)*p);
    size_t plen;
    const char *pw = dg_url_password(url, &plen);
    if (!pw || plen < 6 || memchr(pw, '*', plen))
        return;
    for (const char *p = url; *p; p++) /* an escape in the shown form could spell it anew */
        if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\')
            return;
    char secret[1100];
    snprintf(secret, sizeof secret, "%.*s", (int)plen, pw);
    /* only a password found once in the URL: else its other place may show rightly */
    if (strstr(url, secret) == pw && !strstr(pw + 1, secret) && strstr(shown, secret))
        dg_fuzz_fail("the password '%s' shows in the redacted '%.300s'", secret, shown);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dg_fuzz_broken("url", data, size);
    char *url = dg_fuzz_str(data, size);
    struct dg_target t;
    struct dg_err err;
    if (dg_target_parse(url, &t, &err)) {
        dg_fuzz_check_user_err("dg_target_parse", &err);
    } else {
        check_redacted(url, t.redacted);
        if (dg_target_check(&t, &err))
            dg_fuzz_check_user_err(t.drv->name, &err);
        check_hosts(url, t.redacted);
    }
    /* the query's pairs as the drivers walk them, "#" ending it as in a URI */
    const char *q = dg_urlq_of(url);
    struct dg_urlq_pair kv;
    for (int k = 0; k < 10000 && dg_urlq_next(&q, "#", &kv); k++)
        if (kv.key != kv.text || kv.klen > kv.len || (kv.val && kv.val + kv.vlen != kv.text + kv.len))
            dg_fuzz_fail("dg_urlq_next: pair '%.*s' split wrongly", (int)kv.len, kv.text);
    free(url);
    return 0;
}
