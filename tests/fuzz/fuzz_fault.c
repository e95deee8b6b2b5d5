/* fuzz_fault.c — fuzz target "fault": a fault spec (--fault OFFSET:COMMAND, a job file's
 * fault= line) as dg_fault_parse reads it, without a window and within one given by the first
 * line of the input ("WINDOW\nSPEC": a duration, dg_parse_duration), and its command as it is
 * stored (dg_redact_command). Checks: errors are DG_ERR_USER with a one-line message; an
 * accepted offset lies inside the window; the command is the spec's text after the offset;
 * the stored form has no password assignment left and fits its buffer. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "core/opts.h"
#include "harness.h"

static void check_spec(const char *spec, dg_ns window_ns)
{
    struct dg_fault_spec f;
    struct dg_err err;
    if (dg_fault_parse(spec, window_ns, &f, &err)) {
        dg_fuzz_check_user_err("dg_fault_parse", &err);
        return;
    }
    if (window_ns && f.offset_ns >= window_ns)
        dg_fuzz_fail("offset %llu ns accepted past a window of %llu ns", (unsigned long long)f.offset_ns,
                     (unsigned long long)window_ns);
    const char *cmd = strchr(spec, ':') + 1;
    while (isspace((unsigned char)*cmd))
        cmd++;
    if (strcmp(f.command, cmd))
        dg_fuzz_fail("command '%.200s' is not the spec's '%.200s'", f.command, cmd);
    char red[sizeof f.command + 64];
    dg_redact_command(f.command, red, sizeof red);
    if (strlen(red) >= sizeof red)
        dg_fuzz_fail("redacted command overflows");
    /* a word PGPASSWORD=secret keeps only its name */
    for (const char *p = red; (p = strstr(p, "PGPASSWORD=")); p++) {
        const char *v = p + 11;
        size_t n = strcspn(v, " \t\n");
        /* "***", or the start of it where the buffer cut it */
        if ((p == red || isspace((unsigned char)p[-1])) && !(n <= 3 && !strncmp(v, "***", n)))
            dg_fuzz_fail("the password after PGPASSWORD= is stored at %d: '%.60s' of '%.300s'", (int)(p - red), p - (p - red > 20 ? 20 : p - red), red);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dg_fuzz_broken("fault", data, size);
    char *in = dg_fuzz_str(data, size);
    char *nl = strchr(in, '\n');
    check_spec(in, 0);
    if (nl) {
        *nl = '\0';
        dg_ns window = 0;
        struct dg_err err;
        if (dg_parse_duration("--duration", in, &window, &err))
            dg_fuzz_check_user_err("dg_parse_duration", &err);
        else
            check_spec(nl + 1, window);
        char shown[64];
        dg_format_duration(window, shown, sizeof shown);
    }
    free(in);
    return 0;
}
