/* pgsql.c — the PostgreSQL driver over libpq: connect by URL, prepared statements with text
 * parameters, pipelined batches, COPY bulk load, SQLSTATE error classes, server facts.
 * Must not leak a password into any message, allocate per execute in the steady state, or
 * keep state outside its connection. */
#include "core/driver.h"

#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SECRETS 4
#define BULK_FLUSH_BYTES (256u * 1024u)
#define BATCH_CHUNK 256 /* parameter sets per pipeline sync: bounds what sits unread */
#define MAX_DEC_SCALE 30

struct dg_stmt {
    struct dg_conn *c;
    struct dg_stmt *prev, *next; /* the connection's list */
    char name[16];
    char what[72]; /* start of the SQL, for messages */
    int nparams;
    PGresult *res;
    int row, nrows;
    int64_t changes;
    const char **values; /* nparams pointers into buf, NULL for SQL NULL */
    size_t *offs;
    char *buf;
    size_t cap;
};

struct dg_bulk {
    struct dg_conn *c;
    int ncols;
    int failed;
    char *buf;
    size_t len, cap;
    char table[64];
};

struct dg_conn {
    PGconn *pg;
    unsigned next_stmt;
    struct dg_stmt *stmts;
    struct dg_bulk *bulk;
    int nsecrets;
    char *secrets[MAX_SECRETS]; /* password texts to scrub from every message */
    /* BEGIN ... not sent yet: it travels with the transaction's first execute, in one round
     * trip; any other call sends it first; COMMIT/ROLLBACK of nothing send nothing. */
    const char *pending_begin;
};

/* ---- messages and errors --------------------------------------------------------------- */

/* Copies src into dst (cap bytes) with every secret replaced by *** and runs of whitespace
 * (libpq's newlines and tabs) folded to one space; trailing space dropped. */
static void scrub_copy(const struct dg_conn *c, char *dst, size_t cap, const char *src)
{
    size_t o = 0;
    int space = 0;
    while (*src && o + 1 < cap) {
        size_t hit = 0;
        for (int i = 0; c && i < c->nsecrets; i++) {
            size_t n = strlen(c->secrets[i]);
            if (n && strncmp(src, c->secrets[i], n) == 0) {
                hit = n;
                break;
            }
        }
        if (hit) {
            for (const char *r = "***"; *r && o + 1 < cap; r++)
                dst[o++] = *r;
            src += hit;
            space = 0;
            continue;
        }
        char ch = *src++;
        if (ch == '\n' || ch == '\t' || ch == '\r' || ch == ' ') {
            if (o > 0 && !space)
                dst[o++] = ' ';
            space = 1;
            continue;
        }
        space = 0;
        dst[o++] = ch;
    }
    while (o > 0 && dst[o - 1] == ' ')
        o--;
    dst[o] = '\0';
}

__attribute__((format(printf, 5, 6))) static int set_err(const struct dg_conn *c, struct dg_err *err,
                                                         enum dg_err_class cls,
                                                         const char *sqlstate, const char *fmt, ...)
{
    if (!err)
        return -1;
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    err->cls = cls;
    err->code = 0;
    err->sqlstate[0] = '\0';
    if (sqlstate && strlen(sqlstate) == 5) {
        memcpy(err->sqlstate, sqlstate, 6);
        /* The native code: the SQLSTATE packed six bits a character, as PostgreSQL does. */
        for (int i = 0; i < 5; i++)
            err->code |= ((sqlstate[i] - '0') & 0x3F) << (6 * i);
    }
    scrub_copy(c, err->msg, sizeof err->msg, tmp);
    return -1;
}

static enum dg_err_class classify(PGconn *pg, const char *st)
{
    if (PQstatus(pg) == CONNECTION_BAD)
        return DG_ERR_CONN;
    if (!st || strlen(st) != 5)
        return DG_ERR_FATAL;
    if (strcmp(st, "40001") == 0 || strcmp(st, "40P01") == 0)
        return DG_ERR_RETRY;
    if (st[0] == '0' && st[1] == '8')
        return DG_ERR_CONN;
    /* admin_shutdown, crash_shutdown, cannot_connect_now: the session is gone */
    if (strcmp(st, "57P01") == 0 || strcmp(st, "57P02") == 0 || strcmp(st, "57P03") == 0)
        return DG_ERR_CONN;
    /* syntax, undefined object, privilege; bad credentials or database */
    if ((st[0] == '4' && st[1] == '2') || (st[0] == '2' && st[1] == '8') ||
        strcmp(st, "3D000") == 0)
        return DG_ERR_USER;
    return DG_ERR_FATAL; /* 23xxx during a run is a workload bug, not the user's target */
}

/* Fills err from a failed result (res may be NULL: then from the connection). */
static int res_err(struct dg_conn *c, PGresult *res, const char *what, struct dg_err *err)
{
    const char *st = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    const char *detail = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL) : NULL;
    if (!primary && res && *PQresultErrorMessage(res))
        primary = PQresultErrorMessage(res);
    if (!primary)
        primary = PQerrorMessage(c->pg);
    if (!primary || !*primary)
        primary = res ? PQresStatus(PQresultStatus(res)) : "no result from server";
    return set_err(c, err, classify(c->pg, st), st, "%s: %s%s%s%s", what, primary,
                   detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
}

/* Runs sql expecting no rows or discarding them. */
static int run_now(struct dg_conn *c, const char *sql, const char *what, struct dg_err *err)
{
    PGresult *res = PQexec(c->pg, sql);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    int rc = 0;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY)
        rc = res_err(c, res, what, err);
    PQclear(res);
    return rc;
}

/* Sends a deferred BEGIN on its own, before anything but an execute. */
static int flush_begin(struct dg_conn *c, struct dg_err *err)
{
    const char *sql = c->pending_begin;
    if (!sql)
        return 0;
    c->pending_begin = NULL;
    return run_now(c, sql, sql, err);
}

static int run(struct dg_conn *c, const char *sql, const char *what, struct dg_err *err)
{
    if (flush_begin(c, err))
        return -1;
    PGresult *res = PQexec(c->pg, sql);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    int rc = 0;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY)
        rc = res_err(c, res, what, err);
    PQclear(res);
    return rc;
}

/* ---- number formatting ----------------------------------------------------------------- */

static const char digits2[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                              "34353637383940414243444546474849505152535455565758596061626364656667"
                              "6869707172737475767778798081828384858687888990919293949596979899";

static size_t fmt_u64(char *out, uint64_t v)
{
    char tmp[24];
    char *p = tmp + sizeof tmp;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        p -= 2;
        memcpy(p, digits2 + 2 * r, 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, digits2 + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    size_t n = (size_t)(tmp + sizeof tmp - p);
    memcpy(out, p, n);
    return n;
}

static size_t fmt_i64(char *out, int64_t v)
{
    if (v < 0) {
        out[0] = '-';
        return 1 + fmt_u64(out + 1, 0 - (uint64_t)v);
    }
    return fmt_u64(out, (uint64_t)v);
}

/* v / 10^scale written exactly; out needs 24 + |scale| bytes. Returns the length, or 0 when
 * scale is out of range. */
static size_t fmt_dec(char *out, int64_t v, int scale)
{
    if (scale < -MAX_DEC_SCALE || scale > MAX_DEC_SCALE)
        return 0;
    if (scale <= 0) {
        size_t n = fmt_i64(out, v);
        if (v != 0)
            for (int i = 0; i < -scale; i++)
                out[n++] = '0';
        return n;
    }
    char d[24];
    size_t nd = fmt_u64(d, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
    size_t o = 0;
    if (v < 0)
        out[o++] = '-';
    size_t sc = (size_t)scale;
    if (nd <= sc) {
        out[o++] = '0';
        out[o++] = '.';
        for (size_t i = nd; i < sc; i++)
            out[o++] = '0';
        memcpy(out + o, d, nd);
        return o + nd;
    }
    memcpy(out + o, d, nd - sc);
    o += nd - sc;
    out[o++] = '.';
    memcpy(out + o, d + nd - sc, sc);
    return o + sc;
}

/* The shortest of %.15g, %.16g, %.17g that reads back as d; out needs 32 bytes. */
static size_t fmt_double(char *out, double d)
{
    if (isnan(d))
        return (size_t)snprintf(out, 32, "NaN");
    if (isinf(d))
        return (size_t)snprintf(out, 32, "%s", d < 0 ? "-Infinity" : "Infinity");
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(out, 32, "%.*g", prec, d);
        if (prec == 17 || strtod(out, NULL) == d)
            break;
    }
    return (size_t)n;
}

static int64_t parse_i64(const char *s)
{
    if (!*s)
        return 0; /* PQcmdTuples of a statement without a count */
    const char *p = s;
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    const char *d = p;
    uint64_t v = 0;
    while ((unsigned)(*p - '0') < 10u)
        v = v * 10 + (uint64_t)(*p++ - '0');
    if (*p == '\0' && p != d && p - d <= 18)
        return neg ? -(int64_t)v : (int64_t)v;
    if (p == d && (*p == 't' || *p == 'f') && p[1] == '\0')
        return *p == 't'; /* boolean */
    if (*p == '\0' && p != d)
        return (int64_t)strtoll(s, NULL, 10); /* 19+ digits: saturates */
    double x = strtod(s, NULL);                /* numeric "12.50", "1e3" */
    if (!(x > -9.2e18))
        return x != x ? 0 : INT64_MIN;
    if (x > 9.2e18)
        return INT64_MAX;
    return (int64_t)x;
}

static int reserve(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    char *p = realloc(*buf, n);
    if (!p)
        return -1;
    *buf = p;
    *cap = n;
    return 0;
}

/* ---- connection ------------------------------------------------------------------------ */

static void quiet_notice(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

static void add_secret(struct dg_conn *c, const char *s, size_t n)
{
    if (n == 0 || c->nsecrets >= MAX_SECRETS)
        return;
    for (int i = 0; i < c->nsecrets; i++)
        if (strlen(c->secrets[i]) == n && memcmp(c->secrets[i], s, n) == 0)
            return;
    char *p = malloc(n + 1);
    if (!p)
        return;
    memcpy(p, s, n);
    p[n] = '\0';
    c->secrets[c->nsecrets++] = p;
    /* longest first, so a secret containing another is scrubbed whole */
    for (int i = c->nsecrets - 1; i > 0 && strlen(c->secrets[i]) > strlen(c->secrets[i - 1]); i--) {
        char *t = c->secrets[i];
        c->secrets[i] = c->secrets[i - 1];
        c->secrets[i - 1] = t;
    }
}

/* Collects every form the password may take: as written in the URL (percent-encoded user
 * info or password= parameter), as libpq decodes it, and PGPASSWORD. */
static void collect_secrets(struct dg_conn *c, const char *url)
{
    const char *auth = strstr(url, "://");
    if (auth) {
        auth += 3;
        const char *end = auth + strcspn(auth, "/?#");
        const char *at = NULL;
        for (const char *q = auth; q < end; q++)
            if (*q == '@')
                at = q;
        if (at) {
            const char *colon = memchr(auth, ':', (size_t)(at - auth));
            if (colon)
                add_secret(c, colon + 1, (size_t)(at - colon - 1));
        }
    }
    for (const char *q = url; (q = strstr(q, "password=")) != NULL;) {
        q += 9;
        add_secret(c, q, strcspn(q, "&; "));
    }
    PQconninfoOption *opts = PQconninfoParse(url, NULL);
    for (PQconninfoOption *o = opts; o && o->keyword; o++)
        if (o->val && strcmp(o->keyword, "password") == 0)
            add_secret(c, o->val, strlen(o->val));
    PQconninfoFree(opts);
    const char *env = getenv("PGPASSWORD");
    if (env)
        add_secret(c, env, strlen(env));
}

static void conn_free(struct dg_conn *c);

static int pg_connect(const char *url, const struct dg_connect_opts *opts, struct dg_conn **out,
                      struct dg_err *err)
{
    *out = NULL;
    struct dg_conn *c = calloc(1, sizeof *c);
    if (!c)
        return set_err(NULL, err, DG_ERR_FATAL, NULL, "out of memory");
    collect_secrets(c, url);
    char shown[1024];
    dg_redact_url(url, shown, sizeof shown);

    char *perr = NULL;
    PQconninfoOption *parsed = PQconninfoParse(url, &perr);
    if (!parsed) {
        set_err(c, err, DG_ERR_USER, NULL, "bad PostgreSQL target %s: %s", shown,
                perr ? perr : "cannot parse");
        PQfreemem(perr);
        goto fail;
    }
    PQconninfoFree(parsed);

    /* Entries before dbname are defaults the URL overrides: a connect timeout (so an address
     * that drops packets does not hang the run) unless PGCONNECT_TIMEOUT says otherwise, and
     * the application name unless the URL carries one. */
    const char *keys[5], *vals[5];
    int k = 0;
    if (!getenv("PGCONNECT_TIMEOUT"))
        keys[k] = "connect_timeout", vals[k++] = "10";
    if (opts && opts->application && *opts->application)
        keys[k] = "application_name", vals[k++] = opts->application;
    keys[k] = "dbname", vals[k++] = url;
    keys[k] = "fallback_application_name", vals[k++] = "dbgauge";
    keys[k] = NULL, vals[k] = NULL;
    c->pg = PQconnectdbParams(keys, vals, 1);
    if (!c->pg) {
        set_err(c, err, DG_ERR_FATAL, NULL, "out of memory connecting to %s", shown);
        goto fail;
    }
    const char *used = PQpass(c->pg); /* also a password found in ~/.pgpass */
    if (used)
        add_secret(c, used, strlen(used));
    if (PQstatus(c->pg) != CONNECTION_OK) {
        const char *m = PQerrorMessage(c->pg);
        /* Bad address, refused, bad password, missing database: the user must fix the target.
         * A server starting up or shutting down is a passing state. */
        enum dg_err_class cls = DG_ERR_USER;
        if (strstr(m, "starting up") || strstr(m, "shutting down") ||
            strstr(m, "not yet accepting connections"))
            cls = DG_ERR_CONN;
        set_err(c, err, cls, NULL, "cannot connect to %s: %s", shown, m);
        goto fail;
    }
    PQsetNoticeProcessor(c->pg, quiet_notice, NULL);
    *out = c;
    return 0;
fail:
    conn_free(c);
    return -1;
}

static void stmt_free(struct dg_stmt *s)
{
    PQclear(s->res);
    free(s->values);
    free(s->offs);
    free(s->buf);
    free(s);
}

static void bulk_free(struct dg_bulk *b)
{
    if (b->c && b->c->bulk == b)
        b->c->bulk = NULL;
    free(b->buf);
    free(b);
}

static void conn_free(struct dg_conn *c)
{
    if (!c)
        return;
    if (c->bulk)
        bulk_free(c->bulk);
    while (c->stmts) {
        struct dg_stmt *s = c->stmts;
        c->stmts = s->next;
        stmt_free(s);
    }
    if (c->pg)
        PQfinish(c->pg);
    for (int i = 0; i < c->nsecrets; i++) {
        memset(c->secrets[i], 0, strlen(c->secrets[i]));
        free(c->secrets[i]);
    }
    free(c);
}

static void pg_disconnect(struct dg_conn *c) { conn_free(c); }

static int pg_exec(struct dg_conn *c, const char *sql, struct dg_err *err)
{
    char what[96];
    snprintf(what, sizeof what, "exec '%.60s'", sql);
    return run(c, sql, what, err);
}

/* ---- prepared statements --------------------------------------------------------------- */

static int ident_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '$' || (unsigned char)ch >= 0x80;
}

/* Rewrites `?` to $1..$n outside strings, quoted identifiers, dollar-quoted bodies and
 * comments. Returns a malloc'd string (the caller's) and the count in *n, or NULL. */
static char *rewrite_placeholders(const char *sql, int *n)
{
    size_t len = strlen(sql), q = 0;
    for (size_t i = 0; i < len; i++)
        q += sql[i] == '?';
    char *out = malloc(len + q * 6 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    int k = 0;
    const char *p = sql;
    while (*p) {
        if (*p == '\'' || *p == '"') {
            char quote = *p;
            int esc = quote == '\'' && p > sql && (p[-1] == 'E' || p[-1] == 'e') &&
                      (p - 1 == sql || !ident_char(p[-2]));
            out[o++] = *p++;
            while (*p) {
                if (esc && *p == '\\' && p[1]) {
                    out[o++] = *p++;
                    out[o++] = *p++;
                } else if (*p == quote) {
                    out[o++] = *p++;
                    if (*p != quote)
                        break;
                    out[o++] = *p++; /* doubled quote */
                } else {
                    out[o++] = *p++;
                }
            }
        } else if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                out[o++] = *p++;
        } else if (p[0] == '/' && p[1] == '*') {
            int depth = 0;
            do {
                if (p[0] == '/' && p[1] == '*') {
                    depth++;
                    out[o++] = *p++;
                } else if (p[0] == '*' && p[1] == '/') {
                    depth--;
                    out[o++] = *p++;
                }
                out[o++] = *p++;
            } while (*p && depth > 0);
        } else if (*p == '$' && (p == sql || !ident_char(p[-1])) && !(p[1] >= '0' && p[1] <= '9')) {
            const char *t = p + 1;
            while (*t && *t != '$' && ident_char(*t))
                t++;
            if (*t != '$') {
                out[o++] = *p++;
                continue;
            }
            size_t tag = (size_t)(t + 1 - p);
            const char *body = t + 1;
            const char *end = body;
            while ((end = strchr(end, '$')) && strncmp(end, p, tag) != 0)
                end++;
            size_t take = end ? (size_t)(end + tag - p) : strlen(p);
            memcpy(out + o, p, take);
            o += take;
            p += take;
        } else if (*p == '?') {
            out[o++] = '$';
            o += fmt_u64(out + o, (uint64_t)++k);
            p++;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
    *n = k;
    return out;
}

static int pg_prepare(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                      struct dg_err *err)
{
    *out = NULL;
    int found = 0, rc = -1;
    PGresult *res = NULL;
    struct dg_stmt *s = NULL;
    char *text = rewrite_placeholders(sql, &found);
    if (!text)
        return set_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
    if (nparams >= 0 && found != nparams) {
        set_err(c, err, DG_ERR_USER, NULL,
                "statement has %d placeholders but %d parameters were declared: %.200s", found,
                nparams, sql);
        goto out;
    }
    s = calloc(1, sizeof *s);
    if (!s) {
        set_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
        goto out;
    }
    s->c = c;
    s->nparams = found;
    snprintf(s->name, sizeof s->name, "dg%u", ++c->next_stmt);
    snprintf(s->what, sizeof s->what, "%.60s", sql);
    if (found) {
        s->values = calloc((size_t)found, sizeof *s->values);
        s->offs = calloc((size_t)found, sizeof *s->offs);
        if (!s->values || !s->offs || reserve(&s->buf, &s->cap, 256)) {
            set_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
            goto out;
        }
    }
    if (flush_begin(c, err))
        goto out;
    res = PQprepare(c->pg, s->name, text, found, NULL);
    if (!res || PQresultStatus(res) != PGRES_COMMAND_OK) {
        char what[112];
        snprintf(what, sizeof what, "prepare '%s'", s->what);
        res_err(c, res, what, err);
        goto out;
    }
    s->next = c->stmts;
    if (c->stmts)
        c->stmts->prev = s;
    c->stmts = s;
    *out = s;
    s = NULL;
    rc = 0;
out:
    PQclear(res);
    if (s)
        stmt_free(s);
    free(text);
    return rc;
}

static void pg_finalize(struct dg_stmt *s)
{
    if (!s)
        return;
    struct dg_conn *c = s->c;
    if (s->prev)
        s->prev->next = s->next;
    else
        c->stmts = s->next;
    if (s->next)
        s->next->prev = s->prev;
    /* DEALLOCATE only when it can run; otherwise the session ends it (names never repeat). */
    struct dg_err ignore;
    if (flush_begin(c, &ignore) == 0 && PQstatus(c->pg) == CONNECTION_OK && !c->bulk && PQpipelineStatus(c->pg) == PQ_PIPELINE_OFF) {
        PGTransactionStatusType ts = PQtransactionStatus(c->pg);
        if (ts == PQTRANS_IDLE || ts == PQTRANS_INTRANS) {
            char sql[32];
            snprintf(sql, sizeof sql, "DEALLOCATE %s", s->name);
            PQclear(PQexec(c->pg, sql));
        }
    }
    stmt_free(s);
}

/* Formats params as text into s->buf and points s->values at them. */
static int bind(struct dg_stmt *s, const struct dg_value *params, struct dg_err *err)
{
    size_t o = 0;
    for (int i = 0; i < s->nparams; i++) {
        const struct dg_value *v = &params[i];
        size_t need = o + (v->type == DG_T_TEXT ? v->s.n + 1 : 64);
        if (reserve(&s->buf, &s->cap, need))
            return set_err(s->c, err, DG_ERR_FATAL, NULL, "out of memory");
        s->offs[i] = o;
        switch (v->type) {
        case DG_T_NULL:
            s->offs[i] = SIZE_MAX;
            continue;
        case DG_T_INT:
            o += fmt_i64(s->buf + o, v->i);
            break;
        case DG_T_DOUBLE:
            o += fmt_double(s->buf + o, v->d);
            break;
        case DG_T_TEXT:
            if (v->s.n)
                memcpy(s->buf + o, v->s.p, v->s.n);
            o += v->s.n;
            break;
        case DG_T_DEC: {
            size_t n = fmt_dec(s->buf + o, v->dec.v, v->dec.scale);
            if (!n)
                return set_err(s->c, err, DG_ERR_USER, NULL, "parameter %d: decimal scale %d out of range",
                               i + 1, v->dec.scale);
            o += n;
            break;
        }
        default:
            return set_err(s->c, err, DG_ERR_USER, NULL, "parameter %d: unknown type %d", i + 1,
                           (int)v->type);
        }
        s->buf[o++] = '\0';
    }
    for (int i = 0; i < s->nparams; i++)
        s->values[i] = s->offs[i] == SIZE_MAX ? NULL : s->buf + s->offs[i];
    return 0;
}

/* Takes res as the statement's current result, or fills err. */
static int take_result(struct dg_stmt *s, PGresult *res, struct dg_err *err)
{
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK || st == PGRES_SINGLE_TUPLE) {
        s->res = res;
        s->row = -1;
        s->nrows = PQntuples(res);
        s->changes = parse_i64(PQcmdTuples(res));
        return 0;
    }
    char what[112];
    snprintf(what, sizeof what, "execute '%s'", s->what);
    res_err(s->c, res, what, err);
    PQclear(res);
    return -1;
}

static void pg_reset(struct dg_stmt *s)
{
    PQclear(s->res);
    s->res = NULL;
    s->nrows = 0;
    s->row = -1;
}

/* The transaction's first statement: BEGIN and it go in one pipeline, one round trip. */
static int execute_with_begin(struct dg_stmt *s, struct dg_err *err)
{
    struct dg_conn *c = s->c;
    const char *begin = c->pending_begin;
    c->pending_begin = NULL;
    if (!PQenterPipelineMode(c->pg))
        return res_err(c, NULL, "enter pipeline mode", err);
    int failed = 0, got = 0;
    if (!PQsendQueryParams(c->pg, begin, 0, NULL, NULL, NULL, NULL, 0) ||
        !PQsendQueryPrepared(c->pg, s->name, s->nparams, s->values, NULL, NULL, 0) ||
        !PQpipelineSync(c->pg)) {
        res_err(c, NULL, "pipeline send", err);
        PQexitPipelineMode(c->pg);
        return -1;
    }
    for (int q = 0; q < 2;) { /* BEGIN's result, then the statement's, each ended by NULL */
        PGresult *res = PQgetResult(c->pg);
        if (!res) {
            if (PQstatus(c->pg) == CONNECTION_BAD) {
                if (!failed)
                    res_err(c, NULL, "pipeline read", err);
                return -1;
            }
            q++;
            continue;
        }
        ExecStatusType st = PQresultStatus(res);
        if (failed || st == PGRES_PIPELINE_ABORTED) {
            PQclear(res);
        } else if (q == 0) {
            if (st != PGRES_COMMAND_OK)
                failed = 1, res_err(c, res, begin, err);
            PQclear(res);
        } else if (take_result(s, res, err)) { /* take_result cleared res */
            failed = 1;
        } else {
            got = 1;
        }
    }
    for (;;) { /* up to the sync */
        PGresult *res = PQgetResult(c->pg);
        if (!res) {
            if (PQstatus(c->pg) == CONNECTION_BAD)
                break;
            continue;
        }
        ExecStatusType st = PQresultStatus(res);
        PQclear(res);
        if (st == PGRES_PIPELINE_SYNC)
            break;
    }
    if (!PQexitPipelineMode(c->pg) && !failed) {
        failed = 1;
        res_err(c, NULL, "exit pipeline mode", err);
    }
    if (failed) {
        pg_reset(s);
        return -1;
    }
    return got ? 0 : set_err(c, err, DG_ERR_FATAL, NULL, "no result for '%s'", s->what);
}

static int pg_execute(struct dg_stmt *s, const struct dg_value *params, struct dg_err *err)
{
    pg_reset(s);
    s->changes = 0;
    if (bind(s, params, err))
        return -1;
    if (s->c->pending_begin)
        return execute_with_begin(s, err);
    PGresult *res = PQexecPrepared(s->c->pg, s->name, s->nparams, s->values, NULL, NULL, 0);
    return take_result(s, res, err);
}

static int pg_next_row(struct dg_stmt *s, struct dg_err *err)
{
    (void)err;
    if (!s->res)
        return 0;
    if (++s->row < s->nrows)
        return 1;
    pg_reset(s);
    return 0;
}

static int64_t pg_changes(struct dg_stmt *s) { return s->changes; }
static int pg_ncols(struct dg_stmt *s) { return s->res ? PQnfields(s->res) : 0; }

static int pg_col_is_null(struct dg_stmt *s, int i)
{
    return !s->res || s->row < 0 || PQgetisnull(s->res, s->row, i);
}

static int64_t pg_col_int(struct dg_stmt *s, int i)
{
    if (pg_col_is_null(s, i))
        return 0;
    return parse_i64(PQgetvalue(s->res, s->row, i));
}

static double pg_col_double(struct dg_stmt *s, int i)
{
    if (pg_col_is_null(s, i))
        return 0;
    return strtod(PQgetvalue(s->res, s->row, i), NULL);
}

static const char *pg_col_text(struct dg_stmt *s, int i, size_t *len)
{
    if (pg_col_is_null(s, i)) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = (size_t)PQgetlength(s->res, s->row, i);
    return PQgetvalue(s->res, s->row, i);
}


/* Sends sets [k0, k0+n) and one sync, then reads every result in order, calling fn for each
 * row. Keeps the first error in err and drains to the sync; adds the rows changed to *total. */
static int batch_chunk(struct dg_stmt *s, const struct dg_value *params, int k0, int n,
                       dg_row_fn fn, void *ctx, int64_t *total, struct dg_err *err)
{
    struct dg_conn *c = s->c;
    int failed = 0, sent = 0;
    for (int k = k0; k < k0 + n; k++) {
        if (bind(s, s->nparams ? params + (size_t)k * (size_t)s->nparams : params, err)) {
            failed = 1;
            break;
        }
        if (!PQsendQueryPrepared(c->pg, s->name, s->nparams, s->values, NULL, NULL, 0)) {
            res_err(c, NULL, "pipeline send", err);
            failed = 1;
            break;
        }
        sent++;
    }
    if (!PQpipelineSync(c->pg)) {
        if (!failed)
            res_err(c, NULL, "pipeline sync", err);
        return -1;
    }
    int k = k0, nulls = 0, skip = 0;
    for (;;) {
        PGresult *res = PQgetResult(c->pg);
        if (!res) { /* the end of one query's results */
            if (PQstatus(c->pg) == CONNECTION_BAD || ++nulls > sent) {
                if (!failed)
                    res_err(c, NULL, "pipeline read", err);
                return -1;
            }
            k++;
            skip = 0;
            continue;
        }
        ExecStatusType st = PQresultStatus(res);
        if (st == PGRES_PIPELINE_SYNC) {
            PQclear(res);
            break;
        }
        if (failed || st == PGRES_PIPELINE_ABORTED) {
            PQclear(res);
            continue;
        }
        if (take_result(s, res, err)) { /* take_result cleared res */
            failed = 1;
            continue;
        }
        *total += s->changes;
        while (!skip && fn && pg_next_row(s, err) == 1)
            if (fn(ctx, k, s))
                skip = 1;
        pg_reset(s);
    }
    return failed ? -1 : 0;
}

static int pg_execute_batch(struct dg_stmt *s, const struct dg_value *params, int n, dg_row_fn fn,
                            void *ctx, struct dg_err *err)
{
    struct dg_conn *c = s->c;
    pg_reset(s);
    s->changes = 0;
    if (n <= 0)
        return 0;
    if (flush_begin(c, err))
        return -1;
    if (!PQenterPipelineMode(c->pg))
        return res_err(c, NULL, "enter pipeline mode", err);
    int64_t total = 0;
    int rc = 0;
    for (int k0 = 0; k0 < n && rc == 0; k0 += BATCH_CHUNK)
        rc = batch_chunk(s, params, k0, n - k0 < BATCH_CHUNK ? n - k0 : BATCH_CHUNK, fn, ctx,
                         &total, err);
    if (!PQexitPipelineMode(c->pg) && rc == 0)
        rc = res_err(c, NULL, "exit pipeline mode", err);
    s->changes = total;
    return rc;
}

/* ---- transactions ---------------------------------------------------------------------- */

static int pg_begin(struct dg_conn *c, enum dg_isolation iso, int write, struct dg_err *err)
{
    /* write needs nothing here: PostgreSQL takes row locks as it goes. */
    (void)write;
    static const char *const sql[] = {
        [DG_ISO_DEFAULT] = "BEGIN",
        [DG_ISO_READ_COMMITTED] = "BEGIN ISOLATION LEVEL READ COMMITTED",
        [DG_ISO_REPEATABLE_READ] = "BEGIN ISOLATION LEVEL REPEATABLE READ",
        [DG_ISO_SERIALIZABLE] = "BEGIN ISOLATION LEVEL SERIALIZABLE",
    };
    if ((unsigned)iso >= sizeof sql / sizeof *sql)
        return set_err(c, err, DG_ERR_USER, NULL, "unknown isolation level %d", (int)iso);
    if (flush_begin(c, err)) /* BEGIN twice: let the server say what it thinks */
        return -1;
    c->pending_begin = sql[iso];
    return 0;
}

static int pg_commit(struct dg_conn *c, struct dg_err *err)
{
    if (c->pending_begin) { /* nothing was run: nothing to commit */
        c->pending_begin = NULL;
        return 0;
    }
    PGresult *res = PQexec(c->pg, "COMMIT");
    int rc = 0;
    if (!res || PQresultStatus(res) != PGRES_COMMAND_OK)
        rc = res_err(c, res, "COMMIT", err);
    else if (strcmp(PQcmdStatus(res), "ROLLBACK") == 0) /* the transaction had failed */
        rc = set_err(c, err, DG_ERR_FATAL, "25P02",
                     "COMMIT: the transaction was aborted by an earlier error and rolled back");
    PQclear(res);
    return rc;
}

/* Nothing to do (and no round trip) when no transaction is open: after a failed statement
 * outside BEGIN, or a failed implicit transaction, the server has already rolled back. */
static int pg_rollback(struct dg_conn *c, struct dg_err *err)
{
    if (c->pending_begin) {
        c->pending_begin = NULL;
        return 0;
    }
    if (PQtransactionStatus(c->pg) == PQTRANS_IDLE)
        return 0;
    return run(c, "ROLLBACK", "ROLLBACK", err);
}

/* ---- bulk load (COPY FROM STDIN, text format) ------------------------------------------ */

static int pg_bulk_begin(struct dg_conn *c, const char *table, const char *const *cols, int ncols,
                         struct dg_bulk **out, struct dg_err *err)
{
    *out = NULL;
    if (c->bulk)
        return set_err(c, err, DG_ERR_USER, NULL, "a bulk load is already open on this connection");
    if (ncols <= 0)
        return set_err(c, err, DG_ERR_USER, NULL, "bulk load into %s: no columns", table);
    int rc = -1;
    char *sql = NULL;
    size_t len = 0, cap = 0;
    PGresult *res = NULL;
    struct dg_bulk *b = calloc(1, sizeof *b);
    if (!b || reserve(&sql, &cap, strlen(table) + 64)) {
        set_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
        goto out;
    }
    len = (size_t)sprintf(sql, "COPY %s (", table);
    for (int i = 0; i < ncols; i++) {
        size_t n = strlen(cols[i]);
        if (reserve(&sql, &cap, len + n + 32)) {
            set_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
            goto out;
        }
        if (i)
            sql[len++] = ',';
        memcpy(sql + len, cols[i], n);
        len += n;
    }
    strcpy(sql + len, ") FROM STDIN");
    if (flush_begin(c, err))
        goto out;
    res = PQexec(c->pg, sql);
    if (!res || PQresultStatus(res) != PGRES_COPY_IN) {
        char what[112];
        snprintf(what, sizeof what, "COPY %.60s", table);
        res_err(c, res, what, err);
        goto out;
    }
    b->c = c;
    b->ncols = ncols;
    snprintf(b->table, sizeof b->table, "%s", table);
    if (reserve(&b->buf, &b->cap, 2 * BULK_FLUSH_BYTES)) {
        PQputCopyEnd(c->pg, "out of memory");
        PQclear(PQgetResult(c->pg));
        set_err(c, err, DG_ERR_FATAL, NULL, "out of memory");
        goto out;
    }
    c->bulk = b;
    *out = b;
    b = NULL;
    rc = 0;
out:
    PQclear(res);
    if (b)
        bulk_free(b);
    free(sql);
    return rc;
}

static int bulk_flush(struct dg_bulk *b, struct dg_err *err)
{
    if (b->len && PQputCopyData(b->c->pg, b->buf, (int)b->len) != 1) {
        b->failed = 1;
        return res_err(b->c, NULL, "COPY data", err);
    }
    b->len = 0;
    return 0;
}

/* 1 when none of the 8 bytes in w needs a COPY escape: none below 14 (tab, LF, CR and the
 * other controls, which the byte loop then sorts out) and none a backslash. */
static inline int word_clean(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t x = w ^ (ones * (unsigned char)'\\');
    return !((((w - ones * 14) & ~w) | ((x - ones) & ~x)) & highs);
}

/* Appends text with COPY's text-format escapes, eight clean bytes at a time. */
static char *put_text(char *o, const char *p, size_t n)
{
    const char *end = p + n;
    while (p < end) {
        uint64_t w;
        while (end - p >= 8) {
            memcpy(&w, p, 8);
            if (!word_clean(w))
                break;
            memcpy(o, &w, 8);
            o += 8;
            p += 8;
        }
        const char *stop = end - p >= 8 ? p + 8 : end;
        while (p < stop) {
            char ch = *p++;
            if (ch == '\\' || ch == '\t' || ch == '\n' || ch == '\r') {
                *o++ = '\\';
                *o++ = ch == '\\' ? '\\' : ch == '\t' ? 't' : ch == '\n' ? 'n' : 'r';
            } else {
                *o++ = ch;
            }
        }
    }
    return o;
}

static int pg_bulk_row(struct dg_bulk *b, const struct dg_value *vals, struct dg_err *err)
{
    if (b->failed)
        return set_err(b->c, err, DG_ERR_FATAL, NULL, "bulk load into %s already failed", b->table);
    for (int i = 0; i < b->ncols; i++) {
        const struct dg_value *v = &vals[i];
        size_t need = b->len + 2 + (v->type == DG_T_TEXT ? 2 * v->s.n : 64);
        if (need > b->cap && reserve(&b->buf, &b->cap, need)) {
            b->failed = 1;
            return set_err(b->c, err, DG_ERR_FATAL, NULL, "out of memory");
        }
        char *o = b->buf + b->len;
        switch (v->type) {
        case DG_T_NULL:
            *o++ = '\\';
            *o++ = 'N';
            break;
        case DG_T_INT:
            o += fmt_i64(o, v->i);
            break;
        case DG_T_DOUBLE:
            o += fmt_double(o, v->d);
            break;
        case DG_T_TEXT:
            o = put_text(o, v->s.p, v->s.n);
            break;
        case DG_T_DEC: {
            size_t n = fmt_dec(o, v->dec.v, v->dec.scale);
            if (!n) {
                b->failed = 1;
                return set_err(b->c, err, DG_ERR_USER, NULL, "bulk load into %s: decimal scale %d out of range",
                               b->table, v->dec.scale);
            }
            o += n;
            break;
        }
        default:
            b->failed = 1;
            return set_err(b->c, err, DG_ERR_USER, NULL, "bulk load into %s: unknown type %d", b->table,
                           (int)v->type);
        }
        *o++ = i + 1 < b->ncols ? '\t' : '\n';
        b->len = (size_t)(o - b->buf);
    }
    if (b->len >= BULK_FLUSH_BYTES)
        return bulk_flush(b, err);
    return 0;
}

static int pg_bulk_end(struct dg_bulk *b, struct dg_err *err)
{
    struct dg_conn *c = b->c;
    int rc = 0, failed = b->failed;
    if (!failed && bulk_flush(b, err))
        failed = 1, rc = -1;
    if (PQputCopyEnd(c->pg, failed ? "aborted by dbgauge after an error" : NULL) != 1 && !failed)
        rc = res_err(c, NULL, "COPY end", err), failed = 1;
    PGresult *res;
    while ((res = PQgetResult(c->pg)) != NULL) {
        if (PQresultStatus(res) != PGRES_COMMAND_OK && !failed) {
            char what[112];
            snprintf(what, sizeof what, "COPY %s", b->table);
            rc = res_err(c, res, what, err);
            failed = 1;
        }
        PQclear(res);
        if (PQstatus(c->pg) == CONNECTION_BAD)
            break;
    }
    if (failed && rc == 0)
        rc = set_err(c, err, DG_ERR_FATAL, NULL, "bulk load into %s aborted after an earlier error",
                     b->table);
    bulk_free(b);
    return rc;
}

/* ---- server facts and knobs ------------------------------------------------------------ */

static int pg_server_info(struct dg_conn *c, struct dg_server_info *info, struct dg_err *err)
{
    memset(info, 0, sizeof *info);
    snprintf(info->engine, sizeof info->engine, "postgresql");
    const char *v = PQparameterStatus(c->pg, "server_version");
    if (v)
        snprintf(info->version, sizeof info->version, "%s", v);
    else
        snprintf(info->version, sizeof info->version, "%d.%d", PQserverVersion(c->pg) / 10000,
                 PQserverVersion(c->pg) % 10000);
    if (flush_begin(c, err))
        return -1;
    PGresult *res = PQexec(c->pg,
                           "SELECT name, current_setting(name) FROM pg_settings WHERE name IN ("
                           "'shared_buffers','synchronous_commit','fsync','max_connections',"
                           "'work_mem','effective_cache_size','wal_level','full_page_writes',"
                           "'checkpoint_timeout','max_wal_size','default_transaction_isolation',"
                           "'server_version_num') ORDER BY name");
    if (!res || PQresultStatus(res) != PGRES_TUPLES_OK) {
        int rc = res_err(c, res, "server settings", err);
        PQclear(res);
        return rc;
    }
    for (int r = 0; r < PQntuples(res); r++)
        dg_server_info_add(info, PQgetvalue(res, r, 0), PQgetvalue(res, r, 1));
    PQclear(res);
    return 0;
}

static int pg_set_memory(struct dg_conn *c, uint64_t bytes, struct dg_err *err)
{
    /* Takes effect at the next server restart, which is the caller's to do. */
    char sql[96];
    uint64_t kb = (bytes + 1023) / 1024;
    snprintf(sql, sizeof sql, "ALTER SYSTEM SET shared_buffers = '%llukB'", (unsigned long long)kb);
    return run(c, sql, sql, err);
}

static int pg_load_mode(struct dg_conn *c, int on, struct dg_err *err)
{
    const char *sql = on ? "SET synchronous_commit = off" : "RESET synchronous_commit";
    return run(c, sql, sql, err);
}

static const char *const pg_schemes[] = {"postgres", "postgresql", NULL};

const struct dg_driver dg_driver_pgsql = {
    .abi = DG_DRIVER_ABI,
    .name = "pgsql",
    .schemes = pg_schemes,
    .dialect = DG_DIALECT_PGSQL,
    .caps = DG_CAP_PREPARE | DG_CAP_BULK | DG_CAP_PIPELINE | DG_CAP_PROCEDURES,
    .connect = pg_connect,
    .disconnect = pg_disconnect,
    .exec = pg_exec,
    .prepare = pg_prepare,
    .finalize = pg_finalize,
    .execute = pg_execute,
    .next_row = pg_next_row,
    .reset = pg_reset,
    .changes = pg_changes,
    .ncols = pg_ncols,
    .col_is_null = pg_col_is_null,
    .col_int = pg_col_int,
    .col_double = pg_col_double,
    .col_text = pg_col_text,
    .execute_batch = pg_execute_batch,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .bulk_begin = pg_bulk_begin,
    .bulk_row = pg_bulk_row,
    .bulk_end = pg_bulk_end,
    .server_info = pg_server_info,
    .set_memory = pg_set_memory,
    .load_mode = pg_load_mode,
};
