/* fuzz_jobfile.c — fuzz target "jobfile": a job file as `dbgauge experiment FILE --dry-run`
 * reads it: inih, the [global] lists expanded into steps, every key checked against the
 * workloads' option tables and parsed by the option's own parser, each step's whole-set checks
 * (nothing runs, nothing is stored). The input is written to a file in /dev/shm. Also
 * dg_jobfile_load alone with every key listable, to reach the expansion's limits. Checks: the
 * command exits 0 or 2 with one clean message line naming the file (harness.c); a loaded
 * file's steps are within their limits and each key is on the line it says (a long line once
 * split in two made its tail a key of its own). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/jobfile.h"
#include "harness.h"

static int all_listable(const char *key)
{
    return strcmp(key, "fault") ? 1 : DG_JOB_REPEATABLE;
}

/* The key kv says it came from is on its line: physical line kv->line of the input starts
 * (after white space) with "key=" or "key:" (inih's two separators, white space allowed
 * before them). */
static void check_line(const uint8_t *data, size_t size, const struct dg_job_kv *kv)
{
    size_t i = 0;
    for (int line = 1; line < kv->line && i < size; i++)
        line += data[i] == '\n';
    while (i < size && data[i] != '\n' && isspace(data[i])) /* inih strips as isspace says */
        i++;
    size_t klen = strlen(kv->key);
    size_t j = i + klen;
    while (j < size && data[j] != '\n' && isspace(data[j]))
        j++;
    if (kv->line < 1 || j >= size || memcmp(data + i, kv->key, klen) || (data[j] != '=' && data[j] != ':'))
        dg_fuzz_fail("key '%s' is not on its line %d", kv->key, kv->line);
}

static void check_loaded(const char *path, const uint8_t *data, size_t size)
{
    struct dg_jobfile jf;
    struct dg_err err;
    if (dg_jobfile_load(path, all_listable, &jf, &err)) {
        if (err.cls != DG_ERR_USER && strcmp(err.msg, "out of memory"))
            dg_fuzz_fail("dg_jobfile_load: class %s: %s", dg_err_class_name(err.cls), err.msg);
        dg_fuzz_check_msg("dg_jobfile_load", err.msg);
        if (!strstr(err.msg, path))
            dg_fuzz_fail("dg_jobfile_load: the message does not name the file: %s", err.msg);
    } else {
        if (jf.nsteps < 1 || jf.nsteps > DG_JOB_MAX_STEPS)
            dg_fuzz_fail("%d steps", jf.nsteps);
        for (int i = 0; i < jf.nsteps; i++) {
            const struct dg_job_step *st = &jf.steps[i];
            if (st->nkv > DG_JOB_MAX_KEYS || st->nswept > DG_JOB_MAX_LISTS)
                dg_fuzz_fail("step %d: %d keys, %d swept", i, st->nkv, st->nswept);
            for (int k = 0; k < st->nkv; k++)
                check_line(data, size, &st->kv[k]);
            for (int k = 0; k < st->nswept; k++)
                if (st->swept[k] < 0 || st->swept[k] >= st->nkv)
                    dg_fuzz_fail("step %d: swept index %d of %d keys", i, st->swept[k], st->nkv);
        }
    }
    dg_jobfile_free(&jf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dg_fuzz_broken("jobfile", data, size);
    char path[600];
    dg_fuzz_write_file("-job.ini", data, size, path, sizeof path);
    char *argv[] = {"experiment", "--dry-run", "--results", "/nonexistent/dg-fuzz.db", "--", path};
    int rc = dg_fuzz_command(dg_cmd_experiment, 6, argv);
    if (rc == 2 && !strstr(dg_fuzz_stderr(), path))
        dg_fuzz_fail("the message does not name the job file: %s", dg_fuzz_stderr());
    check_loaded(path, data, size);
    dg_fuzz_remove_file(path);
    return 0;
}
