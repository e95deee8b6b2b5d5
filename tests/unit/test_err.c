/* test_err.c — unit tests of the error record's text rules: foreign text quoted with
 * dg_err_text (escaped, cut at its first line break and at a length, cuts marked), the net in
 * dg_err_set (no raw control byte ever in a message), and the same escape in dg_secret_scrub
 * and dg_redact_url. */
#include <string.h>

#include "core/driver.h"
#include "core/err.h"
#include "core/secret.h"
#include "check.h"

/* 1 when s has no byte below 0x20 and no DEL. */
static int printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

int main(void)
{
    struct dg_test t = {0};
    char buf[64];
    const char *r;

    r = dg_err_text(buf, sizeof buf, "plain text", 0);
    CHECK(&t, !strcmp(r, "plain text"), "text: plain text is copied as is", "'%s'", r);
    r = dg_err_text(buf, sizeof buf, "a\x1b[31mb\x7f\tc", 0);
    CHECK(&t, !strcmp(r, "a\\x1b[31mb\\x7f\\x09c"), "text: control bytes, DEL and tab as \\xNN", "'%s'", r);
    r = dg_err_text(buf, sizeof buf, "first line\nsecond line", 0);
    CHECK(&t, !strcmp(r, "first line..."), "text: cut at the first newline, marked", "'%s'", r);
    r = dg_err_text(buf, sizeof buf, "one\r\ntwo", 0);
    CHECK(&t, !strcmp(r, "one..."), "text: a CR LF line end cuts too", "'%s'", r);
    r = dg_err_text(buf, sizeof buf, "ends with a newline\n", 0);
    CHECK(&t, !strcmp(r, "ends with a newline"), "text: a trailing line break is no cut", "'%s'", r);
    r = dg_err_text(buf, sizeof buf, "0123456789", 4);
    CHECK(&t, !strcmp(r, "0123..."), "text: cut at max bytes, marked", "'%s'", r);
    r = dg_err_text(buf, 12, "0123456789abcdef", 0);
    CHECK(&t, !strcmp(r, "01234567...") && strlen(r) == 11, "text: cut to the buffer, marked, NUL kept", "'%s'", r);
    r = dg_err_text(buf, 12, "\x01\x02\x03", 0);
    CHECK(&t, !strcmp(r, "\\x01\\x02..."), "text: an escape is never split by the cut", "'%s'", r);
    r = dg_err_text(buf, sizeof buf, NULL, 0);
    CHECK(&t, !strcmp(r, ""), "text: NULL is empty", "'%s'", r);
    r = DG_TEXT("--vus\n5");
    CHECK(&t, !strcmp(r, "--vus..."), "DG_TEXT: the macro's buffer holds the text", "'%s'", r);

    struct dg_err e;
    dg_err_set(&e, DG_ERR_USER, 0, "key '%s': bad", "x\ny\x1b");
    CHECK(&t, !strcmp(e.msg, "key 'x\\x0ay\\x1b': bad") && printable(e.msg),
          "dg_err_set: foreign control bytes of a message escaped, one line", "'%s'", e.msg);
    char big[1000];
    memset(big, '\x01', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    dg_err_set(&e, DG_ERR_USER, 0, "%s", big);
    CHECK(&t, printable(e.msg) && strlen(e.msg) < sizeof e.msg && strlen(e.msg) % 4 == 0,
          "dg_err_set: an escaped message is cut at a whole escape", "len %zu", strlen(e.msg));
    dg_err_set(&e, DG_ERR_USER, 0, "%s", "a\\x01b");
    CHECK(&t, !strcmp(e.msg, "a\\x01b"), "dg_err_set: escaping twice changes nothing", "'%s'", e.msg);

    struct dg_secrets s = {0};
    dg_secret_add(&s, "pw\x01x", 4);
    char out[64];
    dg_secret_scrub(&s, out, sizeof out, "login pw\x01x failed \x1b[0m\n", DG_SCRUB_MAP);
    CHECK(&t, !strcmp(out, "login *** failed \\x1b[0m "), "scrub: a secret with a control byte is still found, the rest escaped",
          "'%s'", out);
    dg_secrets_free(&s);

    char red[128];
    dg_redact_url("postgres://u:secret@h\x1b:5432/db\n", red, sizeof red);
    CHECK(&t, !strcmp(red, "postgres://u:***@h\\x1b:5432/db\\x0a"), "redact: the shown URL carries no control byte",
          "'%s'", red);
    return dg_test_done(&t);
}
