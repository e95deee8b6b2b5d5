/* fuzz_options.c — fuzz target "options": every option value parser as a command applies it
 * (dg_optset_apply over the common run block of src/cmd/runopts.c and each workload's table):
 * durations, sizes, counts, numbers, enums, comma lists, targets, clusters, faults, memory
 * options. The input is lines "NAME VALUE" (or "NAME" for a flag); a first line
 * "@WORKLOAD SUB" picks the command (default: the first workload's run). Then the whole-set
 * checks (dg_wl_finish) and the stored form (dg_optset_json). Checks: every error is
 * DG_ERR_USER with a one-line message naming the option; a size is the bytes its text says. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd/cmd.h"
#include "core/workload.h"
#include "harness.h"

/* "@WORKLOAD SUB": the command the options go to (NULL sub: its run or first subcommand). */
static void pick(const char *line, const struct dg_workload **wl, const struct dg_wl_sub **sub)
{
    *wl = dg_workloads[0];
    *sub = NULL;
    if (line && line[0] == '@') {
        char name[32] = "", subname[32] = "";
        sscanf(line + 1, "%31s %31s", name, subname);
        for (int i = 0; dg_workloads[i]; i++)
            if (!strcmp(dg_workloads[i]->name, name))
                *wl = dg_workloads[i];
        *sub = dg_wl_sub_find((*wl)->cli, subname);
    }
    if (!*sub)
        *sub = dg_wl_run_sub((*wl)->cli);
    if (!*sub || (*sub)->raw)
        *sub = &(*wl)->cli->subs[0];
}

/* A size option's bytes are what its text says: the number (strtold) times 1024 to the
 * power of its k/m/g/t, less at most a billionth of that unit (the parser reads 9 decimals). */
static void check_size(const struct dg_optset *set, struct dg_opt_ref r, const char *value)
{
    uint64_t got = *(const uint64_t *)((const char *)set->base[r.t] + r.o->off);
    char *end;
    long double want = strtold(value, &end);
    const char *units = "kmgt";
    const char *u = *end ? strchr(units, tolower((unsigned char)*end)) : NULL;
    long double unit = 1;
    for (int k = u ? (int)(u - units) + 1 : 0; k > 0; k--)
        unit *= 1024;
    want *= unit;
    long double diff = want - (long double)got;
    if (diff < -1 || diff > 1 + unit * 1e-9L)
        dg_fuzz_fail("--%s %s: %llu bytes, not %.0Lf", r.o->name, value, (unsigned long long)got, want);
}

/* One "NAME VALUE" line applied as the command line would. */
static void apply(struct dg_wl_cmdline *p, char *line)
{
    char *value = strchr(line, ' ');
    if (value)
        *value++ = '\0';
    struct dg_opt_ref r = dg_optset_find(&p->set, line);
    if (!r.o || !dg_wl_takes(p, r))
        return; /* getopt refuses it before any parser sees it */
    if (r.o->kind == DG_OPT_FLAG)
        value = NULL;
    else if (!value)
        return; /* getopt: "needs a value" */
    struct dg_err err;
    if (dg_optset_apply(&p->set, r, value, &err)) {
        dg_fuzz_check_user_err(r.o->name, &err);
        if (!strstr(err.msg, r.o->name))
            dg_fuzz_fail("--%s: the message does not name the option: %s", r.o->name, err.msg);
    } else if (r.o->kind == DG_OPT_SIZE || !strcmp(r.o->name, "db-memory") || !strcmp(r.o->name, "mem-cap")) {
        check_size(&p->set, r, value);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dg_fuzz_broken("options", data, size);
    char *in = dg_fuzz_str(data, size);
    char *save = NULL, *line = strtok_r(in, "\n", &save);
    const struct dg_workload *wl;
    const struct dg_wl_sub *sub;
    pick(line, &wl, &sub);
    if (line && line[0] == '@')
        line = strtok_r(NULL, "\n", &save);
    struct dg_wl_cmdline p;
    if (dg_wl_cmdline_init(&p, wl, sub, 1))
        dg_fuzz_fail("out of memory");
    for (int n = 0; line && n < 64; line = strtok_r(NULL, "\n", &save), n++)
        apply(&p, line);
    struct dg_err err;
    if (dg_wl_finish(&p, &err))
        dg_fuzz_check_user_err("finish", &err);
    else if (sub->kind == DG_SUB_RUN) {
        cJSON *j = cJSON_CreateObject();
        dg_optset_json(&p.set, "run", j);
        char *text = cJSON_PrintUnformatted(j);
        free(text);
        cJSON_Delete(j);
    }
    dg_wl_cmdline_free(&p);
    free(in);
    return 0;
}
