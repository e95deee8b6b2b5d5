/* common.c — helpers every subcommand uses: error reporting with the right exit status,
 * redacted command lines, JSON printing. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/driver.h"
#include "core/clock.h"
#include "report/chart.h"

/* "dbgauge CMD: msg" on one line of stderr: a control byte of foreign text in msg (an
 * argument quoted without dg_err_text) is shown as \xNN, never sent to the terminal. */
static void say(const char *cmd, const char *msg)
{
    char line[2048];
    size_t o = 0;
    for (const char *p = msg; *p && dg_err_put_byte(line, sizeof line, &o, (unsigned char)*p) == 0; p++)
        ;
    line[o] = '\0';
    fprintf(stderr, "dbgauge %s: %s\n", cmd, line);
}

int dg_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    say(cmd, msg);
    return DG_EXIT_USAGE;
}

int dg_report_err(const char *cmd, const struct dg_err *err)
{
    say(cmd, err->msg);
    return err->cls == DG_ERR_USER ? DG_EXIT_USAGE : DG_EXIT_FAILED;
}

char *dg_redacted_command_line(int argc, char **argv)
{
    /* Redaction shows a control byte as \xNN: 4 bytes for 1 at most. */
    size_t cap = 1, used = 0;
    for (int i = 0; i < argc; i++)
        cap += strlen(argv[i]) * 4 + 8;
    char *out = malloc(cap), tmp[1024];
    if (!out)
        return NULL;
    out[0] = '\0';
    for (int i = 0; i < argc; i++) {
        dg_redact_url(argv[i], tmp, sizeof tmp);
        if (i && (!strcmp(argv[i - 1], "--restart-cmd")))
            snprintf(tmp, sizeof tmp, "***"); /* a restart command may hold a secret */
        else if ((i && !strcmp(argv[i - 1], "--fault")) || !strncmp(argv[i], "--fault=", 8))
            dg_redact_command(argv[i], tmp, sizeof tmp);
        else if (!strncmp(argv[i], "--restart-cmd=", 14))
            snprintf(tmp, sizeof tmp, "--restart-cmd=***");
        used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? " " : "", tmp);
        if (used >= cap) /* cannot happen by the sum above; never past the end all the same */
            break;
    }
    return out;
}

void dg_print_json(cJSON *doc)
{
    char *s = dg_json_exact(doc) ? NULL : cJSON_Print(doc); /* doubles exact */
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
        return dg_usage_error(cmd, "option '%s' needs a value (see dbgauge %s --help)", DG_TEXT(arg), cmd);
    if (optopt && optopt != '?')
        return dg_usage_error(cmd, "unknown option '-%c' (see dbgauge %s --help)", optopt, cmd);
    return dg_usage_error(cmd, "unknown option '%s' (see dbgauge %s --help)", DG_TEXT(arg), cmd);
}

char *dg_settings_json(const struct dg_server_info *si)
{
    cJSON *j = cJSON_CreateObject();
    for (int i = 0; i < si->nsettings; i++)
        cJSON_AddStringToObject(j, si->settings[i].name, si->settings[i].value);
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return s;
}

void dg_txn_summaries_fill(struct dg_txn_summary *txn, int ntypes, const char *const *type_names,
                           const struct dg_type_counts *counts, struct dg_hist **hist, struct dg_hist **service)
{
    for (int k = 0; k < ntypes; k++) {
        struct dg_txn_summary *x = &txn[k];
        snprintf(x->name, sizeof x->name, "%s", type_names[k]);
        x->committed = counts[k].committed;
        x->rollbacks = counts[k].rollbacks;
        x->retries = counts[k].retries;
        memcpy(x->retry_causes, counts[k].retry_causes, sizeof x->retry_causes);
        x->retry_causes_known = 1;
        x->errors = counts[k].errors;
        memcpy(x->error_causes, counts[k].error_causes, sizeof x->error_causes);
        x->error_causes_known = 1;
        x->hist = hist[k];
        x->service_hist = service[k];
        hist[k] = service[k] = NULL; /* the summary owns them now */
    }
}

void dg_record_fill(struct dg_run_record *rec, const struct dg_record_src *src,
                    struct dg_run_result *res, const char *const *type_names)
{
    snprintf(rec->workload, sizeof rec->workload, "%s", src->workload);
    /* A run some of whose virtual users gave up measured less than it was asked to. */
    snprintf(rec->status, sizeof rec->status, "%s",
             res->interrupted || res->workers_failed ? "incomplete" : "complete");
    snprintf(rec->label, sizeof rec->label, "%s", src->label ? src->label : "");
    dg_wall_iso(res->started_wall, rec->started_at, sizeof rec->started_at);
    dg_wall_iso(res->ended_wall, rec->ended_at, sizeof rec->ended_at);
    snprintf(rec->target, sizeof rec->target, "%s", src->target->redacted);
    snprintf(rec->engine, sizeof rec->engine, "%s", src->server->engine);
    snprintf(rec->engine_version, sizeof rec->engine_version, "%s", src->server->version);
    rec->settings_json = dg_settings_json(src->server);
    rec->options_json = src->options_json;
    rec->command_line = dg_redacted_command_line(src->argc, src->argv);
    dg_hostinfo_read(&rec->host);
    snprintf(rec->dbgauge_version, sizeof rec->dbgauge_version, "%s", DG_VERSION);
    rec->vus = src->vus;
    if (src->step) {
        rec->experiment_id = src->step->experiment_id;
        rec->experiment_step = src->step->index;
        rec->swept_json = src->step->swept_json ? strdup(src->step->swept_json) : NULL;
    }
    rec->knobs_json = src->knobs_json ? strdup(src->knobs_json) : NULL;
    rec->warmup_s = res->warmup_s;
    rec->measured_s = res->measured_s;
    rec->client_cpu_s = res->client_cpu_s;
    snprintf(rec->error, sizeof rec->error, "%s", res->first_error);
    snprintf(rec->load_model, sizeof rec->load_model, "%s", dg_load_model_name(src->model));
    if (res->lag && res->lag->total) {
        rec->lag_p50_ms = (double)dg_hist_percentile(res->lag, 50) / 1e6;
        rec->lag_p99_ms = (double)dg_hist_percentile(res->lag, 99) / 1e6;
        rec->lag_max_ms = (double)res->lag->max_ns / 1e6;
    }
    rec->ntypes = res->ntypes;
    dg_txn_summaries_fill(rec->txn, res->ntypes, type_names, res->counts, res->hist, res->service);
    for (int k = 0; k < res->ntypes; k++)
        dg_txn_summary_from_hist(&rec->txn[k]);
    rec->series = res->series.pts; /* and the series */
    rec->nseries = res->series.n;
    res->series.pts = NULL;
    res->series.n = 0;
}

int dg_getopt(const char *cmd, int argc, char **argv, const struct option *opts, int help_val,
              int (*allowed)(const char *sub, int c), const char *sub, int *c)
{
    opterr = 0;
    int v = getopt_long(argc, argv, ":h", opts, NULL);
    if (v == -1)
        return 0;
    if (v == 'h')
        v = help_val;
    if (v == '?' || v == ':')
        return dg_bad_option(cmd, argc, argv, v);
    if (allowed && !allowed(sub, v)) {
        const char *name = "?";
        for (const struct option *lo = opts; lo->name; lo++)
            if (lo->val == v)
                name = lo->name;
        return dg_usage_error(cmd, "option '--%s' does not apply to '%s' (see dbgauge %s --help)", name,
                              cmd, cmd);
    }
    *c = v;
    return 1;
}
