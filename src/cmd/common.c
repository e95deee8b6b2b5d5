/* common.c — helpers every subcommand uses: error reporting with the right exit status,
 * redacted command lines, JSON printing. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/driver.h"

int dg_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "dbgauge %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    return DG_EXIT_USAGE;
}

int dg_report_err(const char *cmd, const struct dg_err *err)
{
    fprintf(stderr, "dbgauge %s: %s\n", cmd, err->msg);
    return err->cls == DG_ERR_USER ? DG_EXIT_USAGE : DG_EXIT_FAILED;
}

char *dg_redacted_command_line(int argc, char **argv)
{
    size_t cap = 1;
    for (int i = 0; i < argc; i++)
        cap += strlen(argv[i]) * 2 + 8;
    char *out = malloc(cap), tmp[1024];
    if (!out)
        return NULL;
    out[0] = '\0';
    for (int i = 0; i < argc; i++) {
        dg_redact_url(argv[i], tmp, sizeof tmp);
        if (i)
            strcat(out, " ");
        strcat(out, tmp);
    }
    return out;
}

void dg_print_json(cJSON *doc)
{
    char *s = cJSON_Print(doc);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        free(s);
    }
    cJSON_Delete(doc);
}

int dg_bad_option(const char *cmd, int argc, char **argv, int opt_char)
{
    extern int optind, optopt;
    const char *arg = optind - 1 < argc && optind > 0 ? argv[optind - 1] : "?";
    if (opt_char == ':')
        return dg_usage_error(cmd, "option '%s' needs a value (see dbgauge %s --help)", arg, cmd);
    if (optopt && optopt != '?')
        return dg_usage_error(cmd, "unknown option '-%c' (see dbgauge %s --help)", optopt, cmd);
    return dg_usage_error(cmd, "unknown option '%s' (see dbgauge %s --help)", arg, cmd);
}
