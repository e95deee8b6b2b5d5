/* err.c — the error record every layer fills (core/err.h): setting and clearing it, and the
 * names of its classes, retry causes and error causes as they are printed and stored. No
 * engine, no I/O. */
#include <stdio.h>
#include <string.h>

#include "core/err.h"

int dg_err_set(struct dg_err *err, enum dg_err_class cls, int code, const char *fmt, ...)
{
    if (!err)
        return -1;
    err->cls = cls;
    err->cause = DG_RETRY_OTHER;
    err->error_cause = DG_ERROR_OTHER;
    err->in_doubt = 0;
    err->code = code;
    err->sqlstate[0] = '\0';
    char raw[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* Foreign text a caller did not pass through dg_err_text still cannot break the line or
     * send escape sequences to a terminal. */
    size_t o = 0;
    for (const char *p = raw; *p && dg_err_put_byte(err->msg, sizeof err->msg, &o, (unsigned char)*p) == 0; p++)
        ;
    err->msg[o] = '\0';
    return -1;
}

int dg_err_put_byte(char *out, size_t cap, size_t *o, unsigned char ch)
{
    if (ch >= 0x20 && ch != 0x7f) {
        if (*o + 1 >= cap)
            return -1;
        out[(*o)++] = (char)ch;
        return 0;
    }
    if (*o + 4 >= cap)
        return -1;
    snprintf(out + *o, 5, "\\x%02x", ch);
    *o += 4;
    return 0;
}

char *dg_err_text(char *out, size_t cap, const char *s, size_t max)
{
    size_t o = 0, i = 0;
    if (!s)
        s = "";
    /* keep room for "..." so a cut is always marked */
    size_t room = cap > 4 ? cap - 3 : cap;
    for (; s[i] && s[i] != '\n' && s[i] != '\r' && (max == 0 || i < max); i++)
        if (dg_err_put_byte(out, room, &o, (unsigned char)s[i]))
            break;
    /* a line break that only ends the text (libpq's messages end so) is no cut */
    const char *rest = s + i + strspn(s + i, "\r\n\t ");
    if (*rest && cap > 4) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

void dg_err_clear(struct dg_err *err)
{
    if (!err)
        return;
    err->cls = DG_OK;
    err->cause = DG_RETRY_OTHER;
    err->error_cause = DG_ERROR_OTHER;
    err->in_doubt = 0;
    err->code = 0;
    err->sqlstate[0] = '\0';
    err->msg[0] = '\0';
}

const char *dg_retry_cause_name(enum dg_retry_cause c)
{
    static const char *const names[DG_RETRY_NCAUSES] = {"other", "deadlock", "serialization",
                                                         "lock_timeout", "busy", "certification"};
    return c >= 0 && c < DG_RETRY_NCAUSES ? names[c] : "other";
}

enum dg_retry_cause dg_retry_cause_at(int i)
{
    return (enum dg_retry_cause)((i + 1) % DG_RETRY_NCAUSES);
}

enum dg_retry_cause dg_retry_cause_of_sqlstate(const char *st)
{
    if (!st)
        return DG_RETRY_OTHER;
    if (!strcmp(st, "40P01"))
        return DG_RETRY_DEADLOCK;
    if (!strcmp(st, "40001"))
        return DG_RETRY_SERIALIZATION;
    if (!strcmp(st, "55P03"))
        return DG_RETRY_LOCK_TIMEOUT;
    return DG_RETRY_OTHER;
}

const char *dg_error_cause_name(enum dg_error_cause c)
{
    static const char *const names[DG_ERROR_NCAUSES] = {"other", "connection", "timeout", "too_many_connections",
                                                         "closed_by_server", "read_only", "gave_up"};
    return c >= 0 && c < DG_ERROR_NCAUSES ? names[c] : "other";
}

enum dg_error_cause dg_error_cause_at(int i)
{
    return (enum dg_error_cause)((i + 1) % DG_ERROR_NCAUSES);
}

const char *dg_err_class_name(enum dg_err_class cls)
{
    switch (cls) {
    case DG_OK: return "ok";
    case DG_ERR_RETRY: return "retryable";
    case DG_ERR_EXPECTED: return "expected";
    case DG_ERR_CONN: return "connection";
    case DG_ERR_USER: return "user";
    case DG_ERR_FATAL: return "fatal";
    }
    return "?";
}
