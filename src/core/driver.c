/* driver.c — target parsing, password redaction, and the dg_* wrappers (core/driver.h) that
 * are not inline: the fallbacks of optional slots. Knows no engine; the only file outside
 * src/drivers/ that touches a driver's slots. */
#include "core/driver.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *dg_isolation_name(enum dg_isolation iso)
{
    switch (iso) {
    case DG_ISO_DEFAULT: return "default";
    case DG_ISO_READ_COMMITTED: return "read-committed";
    case DG_ISO_REPEATABLE_READ: return "repeatable-read";
    case DG_ISO_SERIALIZABLE: return "serializable";
    }
    return "?";
}

/* Copies s[0..n) into out at *pos, bounded; a control byte as \xNN (dg_err_put_byte): a
 * redacted URL is shown and stored, never with a raw control byte in it. */
static void put(char *out, size_t cap, size_t *pos, const char *s, size_t n)
{
    while (n-- && dg_err_put_byte(out, cap, pos, (unsigned char)*s++) == 0)
        ;
    out[*pos] = '\0';
}

static int is_secret_key(const char *k, size_t n)
{
    static const char *const keys[] = {"password", "pwd", "pass", "passwd", "sslpassword"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strlen(keys[i]) == n && strncasecmp(k, keys[i], n) == 0)
            return 1;
    return 0;
}

const char *dg_url_password(const char *url, size_t *len)
{
    const char *auth = strstr(url, "://");
    if (!auth)
        return NULL;
    auth += 3;
    /* libpq ends the authority at '/', not at '?' or '#', which a password may hold. The
     * last '@' before it ends the user info: hiding more than libpq reads is the safe side. */
    const char *end = auth + strcspn(auth, "/");
    const char *at = NULL;
    for (const char *q = auth; q < end; q++)
        if (*q == '@')
            at = q;
    if (!at)
        return NULL;
    const char *colon = memchr(auth, ':', (size_t)(at - auth));
    if (!colon)
        return NULL;
    *len = (size_t)(at - colon - 1);
    return colon + 1;
}

void dg_redact_url(const char *url, char *out, size_t cap)
{
    size_t pos = 0;
    out[0] = '\0';
    const char *p = url;
    /* scheme://user:password@host — hide the password of the user info. */
    size_t plen;
    const char *pw = dg_url_password(url, &plen);
    if (pw) {
        put(out, cap, &pos, url, (size_t)(pw - url));
        put(out, cap, &pos, "***", 3);
        p = pw + plen;
    }
    /* key=value pairs separated by ';' or '&' (ODBC strings, URI query parameters). */
    while (*p) {
        const char *eq = strchr(p, '=');
        if (!eq) {
            put(out, cap, &pos, p, strlen(p));
            break;
        }
        const char *k = eq;
        while (k > p && (isalnum((unsigned char)k[-1]) || k[-1] == '_'))
            k--;
        size_t vlen = strcspn(eq + 1, ";&");
        if (eq[1] == '{') { /* ODBC braced value may hold ';', and '}' written as "}}" */
            const char *close = eq + 2;
            while (*close && !(close[0] == '}' && close[1] != '}'))
                close += close[0] == '}' ? 2 : 1;
            if (*close)
                vlen = (size_t)(close - eq);
        }
        put(out, cap, &pos, p, (size_t)(eq + 1 - p));
        if (is_secret_key(k, (size_t)(eq - k)))
            put(out, cap, &pos, "***", 3);
        else
            put(out, cap, &pos, eq + 1, vlen);
        p = eq + 1 + vlen;
    }
}

int dg_target_parse(const char *url, struct dg_target *t, struct dg_err *err)
{
    memset(t, 0, sizeof *t);
    if (!url || !*url)
        return dg_err_set(err, DG_ERR_USER, 0, "empty target");
    if (strlen(url) >= sizeof t->url)
        return dg_err_set(err, DG_ERR_USER, 0, "target is longer than %zu characters",
                          sizeof t->url - 1);
    size_t slen = strcspn(url, ":");
    if (url[slen] != ':' || slen == 0)
        return dg_err_set(err, DG_ERR_USER, 0,
                          "target '%.64s' has no scheme: expected e.g. sqlite:PATH or postgres://...",
                          url);
    for (int i = 0; dg_drivers[i]; i++)
        for (const char *const *s = dg_drivers[i]->schemes; *s; s++)
            if (strlen(*s) == slen && strncasecmp(*s, url, slen) == 0) {
                t->drv = dg_drivers[i];
                snprintf(t->url, sizeof t->url, "%s", url);
                dg_redact_url(url, t->redacted, sizeof t->redacted);
                return 0;
            }
    char known[256] = "";
    size_t pos = 0;
    for (int i = 0; dg_drivers[i]; i++)
        for (const char *const *s = dg_drivers[i]->schemes; *s; s++) {
            if (pos)
                put(known, sizeof known, &pos, ", ", 2);
            put(known, sizeof known, &pos, *s, strlen(*s));
        }
    return dg_err_set(err, DG_ERR_USER, 0,
                      "target scheme '%.*s:' is not supported by this build (known: %s)", (int)slen,
                      url, known);
}

int dg_target_check(const struct dg_target *t, struct dg_err *err)
{
    return t->drv->check_url ? t->drv->check_url(t->url, err) : 0;
}

int dg_unsupported(const struct dg_driver *drv, const char *op, struct dg_err *err)
{
    return dg_err_set(err, DG_ERR_USER, 0, "%s is not supported by driver %s", op, drv->name);
}

int dg_connect(const struct dg_target *t, const struct dg_connect_opts *opts, struct dg_conn_h *h,
               struct dg_err *err)
{
    static const struct dg_connect_opts none = {0};
    h->drv = t->drv;
    h->c = NULL;
    if (!opts)
        opts = &none;
    if (t->drv->connect(t->url, opts, &h->c, err))
        return -1;
    if (opts->memory_bytes && (t->drv->caps & DG_CAP_MEMORY_SESSION) &&
        dg_set_memory(h, opts->memory_bytes, err)) {
        dg_disconnect(h);
        return -1;
    }
    return 0;
}

void dg_disconnect(struct dg_conn_h *h)
{
    if (h->c)
        h->drv->disconnect(h->c);
    h->c = NULL;
}

enum dg_dialect dg_conn_dialect(const struct dg_conn_h *h)
{
    if (h->c && h->drv->conn_dialect)
        return h->drv->conn_dialect(h->c);
    return h->drv->dialect;
}

int dg_query_int(struct dg_conn_h *h, const char *sql, int64_t *out, struct dg_err *err)
{
    struct dg_stmt *s = NULL;
    if (dg_prepare(h, sql, 0, &s, err))
        return -1;
    int rc = -1;
    if (dg_execute(h, s, NULL, err) == 0) {
        int r = dg_next_row(h, s, err);
        if (r == 1) {
            *out = dg_col_is_null(h, s, 0) ? 0 : dg_col_int(h, s, 0);
            rc = 0;
            dg_reset(h, s);
        } else if (r == 0) {
            rc = dg_err_set(err, DG_ERR_FATAL, 0, "query returned no row: %.200s", sql);
        }
    }
    dg_finalize(h, s);
    return rc;
}

int dg_execute_batch(const struct dg_conn_h *h, struct dg_stmt *s, int nparams,
                     const struct dg_value *params, int n, dg_row_fn fn, void *ctx,
                     struct dg_err *err)
{
    const struct dg_driver *drv = h->drv;
    if (drv->execute_batch)
        return drv->execute_batch(s, params, n, fn, ctx, err);
    for (int k = 0; k < n; k++) {
        if (drv->execute(s, params + (size_t)k * (size_t)nparams, err))
            return -1;
        int r;
        while ((r = drv->next_row(s, err)) == 1)
            if (fn && fn(ctx, k, s)) {
                drv->reset(s);
                break;
            }
        if (r < 0)
            return -1;
    }
    return 0;
}

int dg_execute_calls_each(const struct dg_driver *drv, struct dg_call *calls, int n, struct dg_err *err)
{
    for (int i = 0; i < n; i++) {
        struct dg_call *call = &calls[i];
        call->changes = 0;
        for (int k = 0; k < call->nsets; k++) {
            if (drv->execute(call->stmt, call->params + (size_t)k * (size_t)call->nparams, err))
                return -1;
            int r;
            while ((r = drv->next_row(call->stmt, err)) == 1)
                if (call->fn && call->fn(call->ctx, k, call->stmt)) {
                    drv->reset(call->stmt);
                    r = 0;
                    break;
                }
            if (r < 0)
                return -1;
            call->changes += drv->changes(call->stmt);
        }
    }
    return 0;
}

int dg_execute_calls(const struct dg_conn_h *h, struct dg_call *calls, int n, int commit,
                     struct dg_err *err)
{
    if (h->drv->execute_calls) {
        int rc = h->drv->execute_calls(h->c, calls, n, commit, err);
        /* The COMMIT went out with the calls (one pipeline, one text): a connection lost
         * while they ran may have taken the COMMIT's answer with it. */
        if (rc && commit && err && err->cls == DG_ERR_CONN)
            err->in_doubt = 1;
        return rc;
    }
    if (dg_execute_calls_each(h->drv, calls, n, err))
        return -1;
    return commit ? dg_commit(h, err) : 0;
}

int dg_set_streaming(const struct dg_conn_h *h, struct dg_stmt *s, int on, struct dg_err *err)
{
    return h->drv->set_streaming ? h->drv->set_streaming(s, on, err) : 0;
}

int dg_bulk_begin(const struct dg_conn_h *h, const char *table, const char *const *cols, int ncols,
                  struct dg_bulk **out, struct dg_err *err)
{
    if (!h->drv->bulk_begin)
        return dg_unsupported(h->drv, "bulk load", err);
    return h->drv->bulk_begin(h->c, table, cols, ncols, out, err);
}

int dg_load_mode(const struct dg_conn_h *h, int on, struct dg_server_info *chosen, struct dg_err *err)
{
    return h->drv->load_mode ? h->drv->load_mode(h->c, on, chosen, err) : 0;
}

int dg_server_info(const struct dg_conn_h *h, struct dg_server_info *info, struct dg_err *err)
{
    return h->drv->server_info(h->c, info, err);
}

void dg_conn_where(const struct dg_conn_h *h, char *buf, size_t n)
{
    if (n)
        buf[0] = '\0';
    if (h->c && h->drv->conn_where && n)
        h->drv->conn_where(h->c, buf, n);
}

int dg_replication(const struct dg_conn_h *h, struct dg_repl_row *rows, int max, struct dg_err *err)
{
    if (!h->drv->replication)
        return 0;
    return h->drv->replication(h->c, rows, max, err);
}

int dg_cache_stats(const struct dg_conn_h *h, uint64_t *hits, uint64_t *misses, struct dg_err *err)
{
    if (!h->drv->cache_stats)
        return dg_unsupported(h->drv, "cache statistics", err);
    return h->drv->cache_stats(h->c, hits, misses, err);
}

int dg_server_local(const struct dg_conn_h *h, char *data_dir, size_t n, long *pid, struct dg_err *err)
{
    if (!h->drv->server_local) {
        if (n)
            data_dir[0] = '\0';
        *pid = 0;
        return 1;
    }
    return h->drv->server_local(h->c, data_dir, n, pid, err);
}

int dg_set_memory(const struct dg_conn_h *h, uint64_t bytes, struct dg_err *err)
{
    if (!h->drv->set_memory)
        return dg_unsupported(h->drv, "a memory knob", err);
    return h->drv->set_memory(h->c, bytes, err);
}

const struct dg_driver *dg_server_ctl_driver(enum dg_dialect d)
{
    for (int i = 0; dg_drivers[i]; i++)
        if (dg_drivers[i]->dialect == d && dg_drivers[i]->server_restart)
            return dg_drivers[i];
    return NULL;
}

long dg_server_pid(const struct dg_driver *drv, const char *data_dir)
{
    return drv && drv->server_pid ? drv->server_pid(data_dir) : 0;
}

int dg_server_restart(const struct dg_driver *drv, const char *data_dir, const char *ctl, struct dg_err *err)
{
    if (!drv)
        return dg_err_set(err, DG_ERR_USER, 0, "restarting the server: no driver of this build controls it");
    if (!drv->server_restart)
        return dg_unsupported(drv, "restarting the server", err);
    return drv->server_restart(data_dir, ctl, err);
}

void dg_server_info_add(struct dg_server_info *info, const char *name, const char *value)
{
    if (info->nsettings >= DG_MAX_SETTINGS)
        return;
    snprintf(info->settings[info->nsettings].name, sizeof info->settings[0].name, "%s", name);
    snprintf(info->settings[info->nsettings].value, sizeof info->settings[0].value, "%s",
             value ? value : "");
    info->nsettings++;
}

int dg_load_settings_run(enum dg_dialect d, int on, struct dg_conn *c,
                         int (*exec)(struct dg_conn *c, const char *sql, struct dg_err *err),
                         struct dg_server_info *chosen, struct dg_err *err)
{
    const struct dg_setting *set = dg_dialect(d)->load_settings;
    char sql[160];
    for (int i = 0, n; (n = dg_load_setting_sql(d, i, on, sql, sizeof sql)) != 0; i++) {
        if (n < 0)
            return dg_err_set(err, DG_ERR_FATAL, 0, "load setting %s: too long to write", set[i].name);
        if (exec(c, sql, err))
            return -1;
        if (on && chosen)
            dg_server_info_add(chosen, set[i].name, set[i].value);
    }
    return 0;
}
