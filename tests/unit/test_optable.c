/* test_optable.c — unit tests of the option tables (core/optable.h) as every registered
 * workload's command uses them (its table plus the common run block, cmd/runopts.c): each
 * option reaches the help text, the getopt table and its job-file key; bad values fail with a
 * message naming the option; a subcommand refuses what it does not take; the stored options
 * give back the values set. Connects to nothing. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "cmd/cmd.h"
#include "core/optable.h"
#include "core/workload.h"

/* A value an option takes, and what its stored form reads as text ("" : not stored). */
static const char *good_value(const struct dg_opt *o, char *want, size_t n)
{
    static const struct {
        const char *name, *arg, *want;
    } custom[] = {
        {"target", "sqlite:/tmp/x.db", "sqlite:/tmp/x.db"}, {"targets", "sqlite:/tmp/a.db,sqlite:/tmp/b.db", ""},
        {"monitor-device", "none", "none"},                {"db-memory", "3M", "3145728"},
        {"mem-cap", "32M", "33554432"},                     {"restart-cmd", "secret-cmd", "restart_cmd (not recorded)"},
        {"pg-datadir", "/tmp/pgd", "/tmp/pgd"},             {"pg-ctl", "/bin/true", ""},
        {"no-monitor", NULL, "false"},                     {"fault", "2s:true", "2s:true"},
        {"read-target", "postgres://u:pw@h:5/d", "postgres://u:***@h:5/d"},
        {"cluster", "mysql://u:pw@h1:1,h2:2/db", "mysql://u:***@h1:1,h2:2/db"}, /* the password never stored */
    };
    for (size_t i = 0; i < sizeof custom / sizeof *custom; i++)
        if (!strcmp(o->name, custom[i].name)) {
            snprintf(want, n, "%s", custom[i].want);
            return custom[i].arg;
        }
    static char buf[64];
    switch (o->kind) {
    case DG_OPT_FLAG: snprintf(want, n, "true"); return NULL;
    case DG_OPT_INT:
    case DG_OPT_U64: snprintf(buf, sizeof buf, "%.0f", o->min + 2); break;
    case DG_OPT_DOUBLE: snprintf(buf, sizeof buf, "%g", o->min + 0.5); break;
    case DG_OPT_DURATION: snprintf(want, n, "7"); return "7s";
    case DG_OPT_SIZE: snprintf(want, n, "2048"); return "2k";
    case DG_OPT_STRING: snprintf(buf, sizeof buf, "text, with a comma"); break;
    case DG_OPT_ENUM: {
        int k = 0;
        while (o->names[k + 1])
            k++;
        snprintf(buf, sizeof buf, "%s", o->names[k]);
        break;
    }
    case DG_OPT_INT_LIST: snprintf(buf, sizeof buf, "%.0f,%.0f", o->min, o->min + 1); break;
    case DG_OPT_CUSTOM: snprintf(buf, sizeof buf, "x"); break;
    }
    snprintf(want, n, "%s", buf);
    return buf;
}

/* The stored value of key as text. */
static void json_text(const cJSON *j, const char *key, char *out, size_t n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    out[0] = '\0';
    if (cJSON_IsString(v))
        snprintf(out, n, "%s", v->valuestring);
    else if (cJSON_IsBool(v))
        snprintf(out, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsNumber(v))
        snprintf(out, n, "%.15g", v->valuedouble);
    else if (cJSON_IsArray(v)) { /* a list option: its numbers (or texts) joined by ',' as given */
        const cJSON *e;
        cJSON_ArrayForEach(e, v)
            if (cJSON_IsString(e))
                snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? "," : "", e->valuestring);
            else
                snprintf(out + strlen(out), n - strlen(out), "%s%.15g", out[0] ? "," : "", e->valuedouble);
    } else if (v)
        snprintf(out, n, "?");
}

/* Options that need another one given (with *arg) for theirs to be stored. */
static const char *needs(const char *name, const char **arg)
{
    *arg = NULL;
    if (!strcmp(name, "terminals-per-warehouse") || !strcmp(name, "think-time-scale"))
        return "think-time";
    if (!strcmp(name, "vus-per-target"))
        return *arg = "sqlite:/tmp/a.db,sqlite:/tmp/b.db", "targets";
    if (!strcmp(name, "warmup"))
        return *arg = "9s", "duration";
    if (!strcmp(name, "latency-limit"))
        return *arg = "50", "rate";
    return NULL;
}

static void check_reach(struct dg_test *t, const struct dg_wl_cmdline *p, const char *help)
{
    struct option lo[160];
    int nlo = dg_optset_longopts(&p->set, lo, 160);
    int bad_help = 0, bad_getopt = 0, bad_key = 0;
    char what[512] = "";
    for (int tb = 0; tb < p->set.n; tb++)
        for (int i = 0; i < p->set.ntab[tb]; i++) {
            const struct dg_opt *o = &p->set.tab[tb][i];
            struct dg_opt_ref r = {tb, i, o};
            char flag[80], flag_nl[80], key[64];
            snprintf(flag, sizeof flag, "  --%s ", o->name);
            snprintf(flag_nl, sizeof flag_nl, "  --%s\n", o->name);
            if (dg_wl_takes(p, r) && !strstr(help, flag) && !strstr(help, flag_nl))
                bad_help++, snprintf(what + strlen(what), sizeof what - strlen(what), " help:%s", o->name);
            int found = 0;
            for (int k = 0; k < nlo - 1; k++)
                found |= !strcmp(lo[k].name, o->name) && lo[k].val == DG_OPTVAL(tb, i) &&
                         (lo[k].has_arg == no_argument) == (o->kind == DG_OPT_FLAG);
            if (!found)
                bad_getopt++, snprintf(what + strlen(what), sizeof what - strlen(what), " getopt:%s", o->name);
            struct dg_opt_ref back = dg_optset_find_key(&p->set, dg_opt_key(o, key, sizeof key));
            if (back.o != o)
                bad_key++, snprintf(what + strlen(what), sizeof what - strlen(what), " key:%s", key);
        }
    char name[128];
    snprintf(name, sizeof name, "%s: every option is in the help, the getopt table and the job-file keys", p->cmd);
    CHECK(t, !bad_help && !bad_getopt && !bad_key && nlo > 2, name, "%s", what);
}

static void check_bad_values(struct dg_test *t, struct dg_wl_cmdline *p)
{
    int bad = 0, tried = 0;
    char what[512] = "";
    for (int tb = 0; tb < p->set.n; tb++)
        for (int i = 0; i < p->set.ntab[tb]; i++) {
            const struct dg_opt *o = &p->set.tab[tb][i];
            if (o->kind == DG_OPT_FLAG || o->kind == DG_OPT_STRING ||
                (o->kind == DG_OPT_CUSTOM && strcmp(o->name, "db-memory") && strcmp(o->name, "mem-cap") &&
                 strcmp(o->name, "monitor-device")))
                continue;
            struct dg_err err = {0};
            char flag[80];
            snprintf(flag, sizeof flag, "--%s", o->name);
            tried++;
            if (dg_optset_apply(&p->set, (struct dg_opt_ref){tb, i, o}, "bogus!", &err) == 0 ||
                err.cls != DG_ERR_USER || !strstr(err.msg, flag) || !strstr(err.msg, "bogus!"))
                bad++, snprintf(what + strlen(what), sizeof what - strlen(what), " %s: '%s'", o->name, err.msg);
        }
    char name[128];
    snprintf(name, sizeof name, "%s: a bad value fails with a message naming the option and the value", p->cmd);
    CHECK(t, bad == 0 && tried > 0, name, "%d of %d:%s", bad, tried, what);
}

/* Whether word is one of list's space-separated words. */
static int in_list(const char *list, const char *word)
{
    struct dg_opt probe = {.subs = list};
    return list && dg_opt_takes(&probe, word);
}

/* An option whose subcommands do not include this one is refused. */
static void check_refused(struct dg_test *t, const struct dg_wl_cmdline *p)
{
    int bad = 0, refused = 0;
    char what[256] = "";
    for (int tb = 0; tb < p->set.n; tb++)
        for (int i = 0; i < p->set.ntab[tb]; i++) {
            const struct dg_opt *o = &p->set.tab[tb][i];
            struct dg_opt_ref r = {tb, i, o};
            int want = dg_opt_takes(o, p->sub->kind == DG_SUB_RUN && tb == 0 ? "run" : p->sub->name);
            if (tb == 0 && p->sub->kind != DG_SUB_RUN && o->subs)
                want = in_list(p->sub->common, o->name);
            if (tb == 0 && in_list(p->wl->cli->common_refused, o->name))
                want = 0;
            refused += !want;
            if (dg_wl_takes(p, r) != want)
                bad++, snprintf(what + strlen(what), sizeof what - strlen(what), " %s", o->name);
        }
    char name[128];
    snprintf(name, sizeof name, "%s: takes the options its subcommand names, refuses the others (%d)", p->cmd, refused);
    CHECK(t, bad == 0, name, "wrong:%s", what);
}

/* Each stored option, set alone (with what it needs), reads back as given. */
static void check_json(struct dg_test *t, const struct dg_workload *wl, const struct dg_wl_sub *sub)
{
    int bad = 0, stored = 0;
    char what[512] = "";
    struct dg_wl_cmdline probe;
    if (dg_wl_cmdline_init(&probe, wl, sub, 1))
        return;
    for (int tb = 0; tb < probe.set.n; tb++)
        for (int i = 0; i < probe.set.ntab[tb]; i++) {
            const struct dg_opt *o = &probe.set.tab[tb][i];
            if (!o->json || !dg_wl_takes(&probe, (struct dg_opt_ref){tb, i, o}))
                continue;
            struct dg_wl_cmdline p;
            struct dg_err err = {0};
            char want[128], got[128];
            dg_wl_cmdline_init(&p, wl, sub, 1);
            const char *arg = good_value(o, want, sizeof want);
            const char *need_arg, *need = needs(o->name, &need_arg);
            if (need)
                dg_optset_apply(&p.set, dg_optset_find(&p.set, need), need_arg, &err);
            int rc = dg_optset_apply(&p.set, dg_optset_find(&p.set, o->name), arg, &err) ||
                     dg_wl_finish(&p, &err);
            cJSON *j = cJSON_CreateObject();
            dg_optset_json(&p.set, NULL, j);
            json_text(j, o->json, got, sizeof got);
            stored++;
            if (rc || strcmp(got, want))
                bad++, snprintf(what + strlen(what), sizeof what - strlen(what), " %s: '%s' not '%s' (%s)", o->json,
                                got, want, rc ? err.msg : "");
            cJSON_Delete(j);
            dg_wl_cmdline_free(&p);
        }
    dg_wl_cmdline_free(&probe);
    char name[128];
    snprintf(name, sizeof name, "%s %s: the stored options give back the %d values set", wl->command, sub->name, stored);
    CHECK(t, bad == 0 && stored > 0, name, "%s", what);
}

/* --cluster: one target per node, single-host URLs with the same user, path and query, the
 * nodes numbered by cluster among --target options; a job file's cluster= lines the same. */
static void check_cluster(struct dg_test *t, const struct dg_workload *wl)
{
    struct dg_wl_cmdline p;
    struct dg_err err = {0};
    dg_wl_cmdline_init(&p, wl, dg_wl_run_sub(wl->cli), 1);
    struct dg_opt_ref cl = dg_optset_find(&p.set, "cluster"), tg = dg_optset_find(&p.set, "target");
    int rc = dg_optset_apply(&p.set, cl, "mysql://u:pw@h1:1,h2:2,[::1]:3/db?load=insert", &err) ||
             dg_optset_apply(&p.set, tg, "sqlite:/tmp/x.db", &err) ||
             dg_optset_apply(&p.set, cl, "mariadb://v@a:7,b:8/e\nmysql://w@c:9,d:10/f", &err) ||
             dg_optset_apply(&p.set, dg_optset_find(&p.set, "vus"), "7", &err) || dg_wl_finish(&p, &err);
    static const char *const want[] = {"mysql://u:pw@h1:1/db?load=insert", "mysql://u:pw@h2:2/db?load=insert",
                                       "mysql://u:pw@[::1]:3/db?load=insert", "sqlite:/tmp/x.db", "mariadb://v@a:7/e",
                                       "mariadb://v@b:8/e", "mysql://w@c:9/f", "mysql://w@d:10/f"};
    static const int want_cl[] = {1, 1, 1, 0, 2, 2, 3, 3};
    int good = rc == 0 && p.c.ntargets == 8 && p.c.nclusters == 3;
    for (int k = 0; good && k < 8; k++)
        good = !strcmp(p.c.targets[k], want[k]) && p.c.target_cluster[k] == want_cl[k];
    CHECK(t, good, "--cluster: a target per node (same user, path, query), clusters numbered, job-file lines too",
          "rc=%d n=%d clusters=%d %s | %s", rc, p.c.ntargets, p.c.nclusters, p.c.ntargets > 2 ? p.c.targets[2] : "",
          err.msg);
    CHECK(t, p.c.sync_wait_ns == 120 * DG_NS_PER_S, "--sync-wait is 120 s unless given", "%llu",
          (unsigned long long)p.c.sync_wait_ns);
    dg_wl_cmdline_free(&p);
}

int main(void)
{
    struct dg_test t = {0};
    int n = 0;
    for (int w = 0; dg_workloads[w]; w++) {
        const struct dg_workload *wl = dg_workloads[w];
        CHECK(&t, wl->cli != NULL, wl->name, "%s has no command line", wl->name);
        if (!wl->cli)
            continue;
        for (int s = 0; s < wl->cli->nsubs; s++) {
            const struct dg_wl_sub *sub = &wl->cli->subs[s];
            if (sub->raw)
                continue;
            struct dg_wl_cmdline p;
            if (dg_wl_cmdline_init(&p, wl, sub, 1))
                return 1;
            char *help = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&help, &len);
            for (int tb = 0; tb < p.set.n; tb++) /* the help lists what the subcommand takes */
                for (int i = 0; i < p.set.ntab[tb]; i++)
                    if (dg_wl_takes(&p, (struct dg_opt_ref){tb, i, &p.set.tab[tb][i]}))
                        dg_opt_usage(f, &p.set.tab[tb][i], "");
            fclose(f);
            check_reach(&t, &p, help);
            check_refused(&t, &p);
            check_bad_values(&t, &p);
            if (sub->kind == DG_SUB_RUN)
                check_json(&t, wl, sub);
            free(help);
            dg_wl_cmdline_free(&p);
            n++;
        }
    }
    CHECK(&t, n >= 4, "every workload's subcommands were checked", "%d", n);

    /* The whole-set rules stay: one message each. */
    const struct dg_workload *wl = dg_workloads[0];
    struct dg_wl_cmdline p;
    struct dg_err err = {0};
    dg_wl_cmdline_init(&p, wl, dg_wl_run_sub(wl->cli), 1);
    dg_optset_apply(&p.set, dg_optset_find(&p.set, "txns-per-vu"), "5", &err);
    dg_optset_apply(&p.set, dg_optset_find(&p.set, "duration"), "10s", &err);
    CHECK(&t, dg_wl_finish(&p, &err) && strstr(err.msg, "--txns-per-vu") && strstr(err.msg, "--duration"),
          "--txns-per-vu does not go with --duration", "%s", err.msg);
    dg_wl_cmdline_free(&p);
    check_cluster(&t, wl);
    return dg_test_done(&t);
}
