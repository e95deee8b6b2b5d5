/* workload.c (cmd) — the command of every registered workload: picks the subcommand, parses
 * the options through the workload's table and the common run block, prints the help, maps
 * what an action returns to an exit status, and hands a run to the run life. Names no
 * workload and no option of one. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "report/summary.h" /* DG_JSON_SCHEMA_VERSION */

#define MAX_LONGOPTS 128

const struct dg_wl_sub *dg_wl_run_sub(const struct dg_wl_cli *cli)
{
    for (int i = 0; i < cli->nsubs; i++)
        if (cli->subs[i].kind == DG_SUB_RUN)
            return &cli->subs[i];
    return NULL;
}

int dg_wl_cmdline_init(struct dg_wl_cmdline *p, const struct dg_workload *wl, const struct dg_wl_sub *sub,
                       int named)
{
    memset(p, 0, sizeof *p);
    p->wl = wl;
    p->sub = sub;
    snprintf(p->cmd, sizeof p->cmd, "%s%s%s", wl->command, named ? " " : "", named ? sub->name : "");
    dg_run_opts_init(&p->c);
    if (!(p->o = calloc(1, wl->cli->opts_size ? wl->cli->opts_size : 1)))
        return -1;
    if (wl->cli->init)
        wl->cli->init(p->o);
    dg_optset_add(&p->set, dg_run_optab, dg_run_noptab, &p->c);
    dg_optset_add(&p->set, wl->cli->opts, wl->cli->nopts, p->o);
    return 0;
}

void dg_wl_cmdline_free(struct dg_wl_cmdline *p)
{
    free(p->o);
    p->o = NULL;
}

/* Whether word is one of the space-separated words of list. */
static int in_list(const char *list, const char *word)
{
    struct dg_opt probe = {.subs = list};
    return list && dg_opt_takes(&probe, word);
}

static int takes_sub(const struct dg_wl_cli *cli, const struct dg_wl_sub *sub, struct dg_opt_ref r)
{
    if (r.t == 1)
        return dg_opt_takes(r.o, sub->name);
    if (in_list(cli->common_refused, r.o->name))
        return 0;
    return sub->kind == DG_SUB_RUN ? dg_opt_takes(r.o, "run") : !r.o->subs || in_list(sub->common, r.o->name);
}

int dg_wl_takes(const struct dg_wl_cmdline *p, struct dg_opt_ref r)
{
    return r.o && takes_sub(p->wl->cli, p->sub, r);
}

/* What an action takes is what its synopsis shows: one that begins with an argument
 * ("RUN [--target URL]...") takes arguments after its options (struct dg_wl_act.argv), and
 * one that shows "[--target URL]..." takes several targets. The others refuse both. */
static int takes_args(const struct dg_wl_sub *sub)
{
    return sub->kind == DG_SUB_ACTION && sub->synopsis && sub->synopsis[0] >= 'A' && sub->synopsis[0] <= 'Z';
}

static int takes_targets(const struct dg_wl_sub *sub)
{
    return sub->kind == DG_SUB_ACTION && sub->synopsis && strstr(sub->synopsis, "[--target URL]...");
}

int dg_wl_finish(struct dg_wl_cmdline *p, struct dg_err *err)
{
    const struct dg_wl_cli *cli = p->wl->cli;
    if (cli->finish && cli->finish(p->o, &p->c, p->sub->name, err))
        return -1;
    return dg_run_opts_finish(&p->c, p->cmd, p->sub->kind == DG_SUB_RUN, takes_targets(p->sub), err);
}

/* The subcommands that take r, as "(load, run) " when not all of them do. */
static void where(const struct dg_wl_cli *cli, struct dg_opt_ref r, char *buf, size_t n)
{
    int shown = 0, took = 0;
    buf[0] = '\0';
    for (int i = 0; i < cli->nsubs; i++) {
        if (cli->subs[i].hidden)
            continue;
        shown++;
        if (!takes_sub(cli, &cli->subs[i], r))
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s%s", took++ ? ", " : "(", cli->subs[i].name);
    }
    if (took == shown)
        buf[0] = '\0';
    else if (took)
        snprintf(buf + strlen(buf), n - strlen(buf), ") ");
}

void dg_wl_synopsis(const struct dg_wl_cmdline *p, FILE *out)
{
    const struct dg_wl_cli *cli = p->wl->cli;
    for (int i = 0; i < cli->nsubs; i++) {
        const struct dg_wl_sub *s = &cli->subs[i];
        int dflt = cli->default_sub && !strcmp(cli->default_sub, s->name);
        if (!s->hidden)
            fprintf(out, "  dbgauge %s%s%s %s\n", p->wl->command, dflt ? "" : " ", dflt ? "" : s->name,
                    s->synopsis ? s->synopsis : "");
    }
}

void dg_wl_each_opt(const struct dg_wl_cmdline *p, void (*fn)(void *ctx, const struct dg_opt *o, const char *where),
                    void *ctx)
{
    const struct dg_wl_cli *cli = p->wl->cli;
    for (int t = 0; t < p->set.n; t++)
        for (int i = 0; i < p->set.ntab[t]; i++) {
            struct dg_opt_ref r = {t, i, &p->set.tab[t][i]};
            char w[128];
            int any = 0;
            for (int k = 0; k < cli->nsubs; k++)
                any |= !cli->subs[k].hidden && takes_sub(cli, &cli->subs[k], r);
            if (!any)
                continue;
            where(cli, r, w, sizeof w);
            fn(ctx, r.o, w);
        }
}

static void usage_line(void *out, const struct dg_opt *o, const char *where)
{
    dg_opt_usage(out, o, where);
}

static void usage(const struct dg_wl_cmdline *p, FILE *out)
{
    fprintf(out, "usage:\n");
    dg_wl_synopsis(p, out);
    fprintf(out, "\noptions:\n");
    dg_wl_each_opt(p, usage_line, out);
    if (p->wl->cli->help_note)
        fputs(p->wl->cli->help_note, out);
}

/* Parses argv (argv[0] is the subcommand's or the workload's name) into p. Returns 0, -1 when
 * --help was printed, or an exit status after printing why the options are wrong. */
static int parse(struct dg_wl_cmdline *p, int argc, char **argv)
{
    struct option lo[MAX_LONGOPTS];
    struct dg_err err;
    int c, got;
    if (dg_optset_longopts(&p->set, lo, MAX_LONGOPTS) < 0)
        return dg_usage_error(p->cmd, "too many options");
    optind = 1;
    while ((got = dg_getopt(p->cmd, argc, argv, lo, DG_OPTVAL_HELP, NULL, NULL, &c)) == 1) {
        if (c == DG_OPTVAL_HELP) {
            usage(p, stdout);
            return -1;
        }
        struct dg_opt_ref r = dg_optset_from_val(&p->set, c);
        if (!dg_wl_takes(p, r))
            return dg_usage_error(p->cmd, "option '--%s' does not apply to '%s' (see dbgauge %s --help)",
                                  r.o ? r.o->name : "?", p->cmd, p->cmd);
        if (dg_optset_apply(&p->set, r, optarg, &err))
            return dg_usage_error(p->cmd, "%s", err.msg);
    }
    if (got)
        return got;
    if (optind < argc && !takes_args(p->sub))
        return dg_usage_error(p->cmd, "unexpected argument '%s' (see dbgauge %s --help)", DG_TEXT(argv[optind]),
                              p->wl->command);
    if (dg_wl_finish(p, &err))
        return dg_usage_error(p->cmd, "%s", err.msg);
    return 0;
}

/* The hooks an action gets under mpirun (struct dg_wl_ranks). */
static int ranks_agree(void *ctx, int failed, struct dg_err *err)
{
    char why[600];
    if (!dg_rank_agree(ctx, failed ? (err->cls == DG_ERR_USER ? DG_EXIT_USAGE : DG_EXIT_FAILED) : 0,
                       failed ? err->msg : "", why, sizeof why))
        return 0;
    if (!failed)
        dg_err_set(err, DG_ERR_FATAL, 0, "%s", why);
    return -1;
}

static int ranks_sum(void *ctx, uint64_t *v, int n)
{
    return dg_rank_sum(ctx, v, n);
}

static int run_action(struct dg_wl_cmdline *p, int argc, char **argv, struct dg_rank_run *rr)
{
    struct dg_err err = {0};
    cJSON *doc = p->c.json ? cJSON_CreateObject() : NULL;
    if (doc)
        cJSON_AddNumberToObject(doc, "schema_version", DG_JSON_SCHEMA_VERSION);
    struct dg_wl_act a = {.cmd = p->cmd, .c = &p->c, .o = p->o, .text = p->c.json ? stderr : stdout,
                          .json = doc, .argc = argc, .argv = argv, .read_run = dg_cmd_read_run,
                          .ranks = {.rank = rr ? rr->rank : 0, .size = rr ? rr->size : 1, .agree = ranks_agree,
                                    .sum = ranks_sum, .ctx = rr}};
    /* Its targets have applied what they received before it reads them (tpcc check). */
    int got = dg_sync_wait_targets(p->cmd, &p->c, &err);
    if (got == 0)
        got = p->sub->action(&a, &err);
    if (got < 0) {
        cJSON_Delete(doc);
        if (rr && rr->rank > 0 && rr->peer_failed) /* another rank's failure: rank 0 says it */
            return err.cls == DG_ERR_USER ? DG_EXIT_USAGE : DG_EXIT_FAILED;
        return dg_report_err(p->cmd, &err);
    }
    if (doc && cJSON_GetArraySize(doc) > 1 && a.ranks.rank == 0)
        dg_print_json(doc);
    else
        cJSON_Delete(doc);
    return got ? DG_EXIT_FAILED : DG_EXIT_OK;
}

/* Under mpirun: an action that does not split its work runs on rank 0, and every rank ends
 * with its status. */
static int action_on_rank0(struct dg_wl_cmdline *p, int argc, char **argv, struct dg_rank_run *rr)
{
    int64_t run_id = 0;
    int interrupted = 0, rc = rr->rank == 0 ? run_action(p, argc, argv, NULL) : 0;
    return dg_rank_done(rr, rc, &run_id, &interrupted);
}

/* An action, alone or as one rank of several. */
static int action(struct dg_wl_cmdline *p, int argc, char **argv)
{
    if (dg_ranks_size() <= 1)
        return run_action(p, argc, argv, NULL);
    struct dg_rank_run rr;
    if (dg_rank_run_init(&rr, 1))
        return DG_EXIT_FAILED;
    int rc = p->sub->ranked ? run_action(p, argc, argv, &rr) : action_on_rank0(p, argc, argv, &rr);
    dg_rank_run_free(&rr);
    return rc;
}

static int sub_names(const struct dg_wl_cli *cli, char *buf, size_t n)
{
    int k = 0, shown = 0;
    buf[0] = '\0';
    for (int i = 0; i < cli->nsubs; i++)
        shown += !cli->subs[i].hidden;
    for (int i = 0; i < cli->nsubs; i++) {
        if (cli->subs[i].hidden)
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s%s", k == 0 ? "" : k == shown - 1 ? " or " : ", ", cli->subs[i].name);
        k++;
    }
    return k;
}

int dg_cmd_workload(const struct dg_workload *wl, int argc, char **argv)
{
    const struct dg_wl_cli *cli = wl->cli;
    const struct dg_wl_sub *sub = argc >= 2 ? dg_wl_sub_find(cli, argv[1]) : NULL;
    int named = sub != NULL;
    if (!sub && cli->default_sub && (argc < 2 || argv[1][0] == '-'))
        sub = dg_wl_sub_find(cli, cli->default_sub);
    struct dg_wl_cmdline p;
    if (!sub && (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        if (dg_wl_cmdline_init(&p, wl, &cli->subs[0], 0))
            return DG_EXIT_FAILED;
        usage(&p, argc < 2 ? stderr : stdout);
        dg_wl_cmdline_free(&p);
        return argc < 2 ? DG_EXIT_USAGE : DG_EXIT_OK;
    }
    if (!sub) {
        char names[256];
        sub_names(cli, names, sizeof names);
        return dg_usage_error(wl->command, "unknown subcommand '%s' (%s)", DG_TEXT(argv[1]), names);
    }
    if (dg_wl_cmdline_init(&p, wl, sub, named))
        return DG_EXIT_FAILED;
    int rc;
    if (sub->raw)
        rc = action(&p, argc - 2, argv + 2);
    else if ((rc = parse(&p, argc - named, argv + named)) < 0)
        rc = DG_EXIT_OK; /* --help */
    else if (rc == 0) /* getopt moved the arguments after the options: argv[optind..] */
        rc = sub->kind == DG_SUB_RUN ? dg_cmd_run(&p, NULL, argc + 1, argv - 1)
                                     : action(&p, argc - named - optind, argv + named + optind);
    dg_wl_cmdline_free(&p);
    return rc;
}
