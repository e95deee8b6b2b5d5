/* test_jobfile.c — job files: [global] inheritance, list expansion (cross product, order),
 * step overrides, and each kind of typo reported with FILE:LINE and the key. Table-driven;
 * writes its job files to a scratch directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/jobfile.h"

static int listable(const char *key) { return strcmp(key, "query") != 0; }

static char dir[64];

static const char *write_job(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* A step rendered as "section:k=v,k=v|swept" to compare with one string. */
static void render(const struct dg_job_step *st, char *out, size_t n)
{
    size_t len = (size_t)snprintf(out, n, "%s:", st->section);
    for (int i = 0; i < st->nkv && len < n; i++)
        len += (size_t)snprintf(out + len, n - len, "%s%s=%s", i ? "," : "", st->kv[i].key, st->kv[i].value);
    len += (size_t)snprintf(out + len, n - len, "|");
    for (int k = 0; k < st->nswept && len < n; k++)
        len += (size_t)snprintf(out + len, n - len, "%s%s", k ? "," : "", st->kv[st->swept[k]].key);
}

struct good_case {
    const char *name, *text;
    int nsteps;
    const char *steps[8];
};

static const struct good_case good[] = {
    {"global alone is one step", "[global]\nvus=2\nduration=3s\n", 1, {"global:vus=2,duration=3s|"}},
    {"a list expands in order", "[global]\nvus=1, 2,4\n", 3, {"global:vus=1|vus", "global:vus=2|vus", "global:vus=4|vus"}},
    {"two lists: cross product, first varies slowest", "[global]\nvus=1,2\nduration=5s\ndb_memory=8M,2M\n", 4,
     {"global:vus=1,duration=5s,db_memory=8M|vus,db_memory", "global:vus=1,duration=5s,db_memory=2M|vus,db_memory",
      "global:vus=2,duration=5s,db_memory=8M|vus,db_memory", "global:vus=2,duration=5s,db_memory=2M|vus,db_memory"}},
    {"step sections inherit [global] and override it",
     "[global]\nvus=2\nduration=3s\n\n[small]\nvus=1\n[big]\nwarmup=1s\n", 2,
     {"small:vus=1,duration=3s|", "big:vus=2,duration=3s,warmup=1s|"}},
    {"a list sweeps every step section; a section that sets the key does not sweep it",
     "[global]\nvus=1,2\n[a]\n[b]\nvus=8\n", 3, {"a:vus=1|vus", "a:vus=2|vus", "b:vus=8|"}},
    {"a query's commas are no list; comments are skipped", "# c\n[global]\n; c\nquery=select a, b from t\n", 1,
     {"global:query=select a, b from t|"}},
};

struct bad_case {
    const char *name, *text, *want; /* want: the text after "FILE:" */
};

static const struct bad_case bad[] = {
    {"key before any section", "vus=1\n[global]\n", ":1: key 'vus' comes before any section"},
    {"bad section name", "[global]\nvus=1\n[my step]\n", ":3: section [my step]: a section name is"},
    {"section given twice", "[global]\n[a]\nvus=1\n[a]\n", ":4: section [a] is given twice"},
    {"[global] given twice", "[global]\n[global]\n", ":2: section [global] is given twice"},
    {"list in a step section", "[global]\nvus=1\n[s]\n\nvus=1,2\n", ":5: key 'vus': lists sweep only in [global]"},
    {"empty list element", "[global]\nvus=1,,2\n", ":2: key 'vus': an empty element"},
    {"key twice in a section", "[global]\nvus=1\nvus=2\n", ":3: key 'vus' is given twice"},
    {"line without =", "[global]\nvus=1\njunk\n", ":3: not a 'key=value' line"},
};

/* data[0..n) as the job file; its load's rc, err filled. */
static int load_bytes(const char *data, size_t n, struct dg_err *err, const char **path)
{
    *path = write_job("bytes.ini", "");
    FILE *f = fopen(*path, "w");
    fwrite(data, 1, n, f);
    fclose(f);
    struct dg_jobfile jf;
    int rc = dg_jobfile_load(*path, listable, &jf, err);
    dg_jobfile_free(&jf);
    return rc;
}

/* Lines longer than inih reads are refused, never split into two (the fuzz target jobfile's
 * finding: "label=xxx...vus=64" set vus); a NUL byte or control bytes: refused, shown escaped. */
static void long_and_binary(struct dg_test *t)
{
    char text[512], want[256];
    struct dg_err err = {0};
    const char *path;
    snprintf(text, sizeof text, "[global]\nworkload=tpcc\nlabel=%0193dvus=64\n", 0);
    int rc = load_bytes(text, strlen(text), &err, &path);
    snprintf(want, sizeof want, "%s:3: the line is longer than 198 characters", path);
    CHECK(t, rc != 0 && err.cls == DG_ERR_USER && !strncmp(err.msg, want, strlen(want)),
          "a line longer than 198 characters is refused, naming its line, never split", "rc %d: %s", rc, err.msg);
    snprintf(text, sizeof text, "[global]\nlabel=%0192d\nvus=2\n", 0);
    rc = load_bytes(text, strlen(text), &err, &path);
    CHECK(t, rc == 0, "a line of 198 characters loads", "%s", err.msg);
    rc = load_bytes("[global]\nvus=1\0x\n", 17, &err, &path);
    snprintf(want, sizeof want, "%s:2: a NUL byte in the line", path);
    CHECK(t, rc != 0 && err.cls == DG_ERR_USER && !strncmp(err.msg, want, strlen(want)),
          "a NUL byte is refused, naming its line", "rc %d: %s", rc, err.msg);
    rc = load_bytes("[global]\n[\x1b[2J]\n", 16, &err, &path);
    int clean = 1;
    for (const char *p = err.msg; *p; p++)
        clean &= (unsigned char)*p >= 0x20 && *p != 0x7f;
    CHECK(t, rc != 0 && clean && strstr(err.msg, "\\x1b[2J") && strstr(err.msg, ":2:"),
          "control bytes of a section name are shown as \\xNN on one line", "rc %d: %s", rc, err.msg);
}

int main(void)
{
    struct dg_test t = {0};
    snprintf(dir, sizeof dir, "/tmp/dg-jobfile.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    char name[256], got[1024];
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        const struct good_case *c = &good[i];
        struct dg_jobfile jf;
        struct dg_err err = {0};
        int rc = dg_jobfile_load(write_job("good.ini", c->text), listable, &jf, &err);
        snprintf(name, sizeof name, "%s: loads", c->name);
        CHECK(&t, rc == 0, name, "%s", err.msg);
        snprintf(name, sizeof name, "%s: %d steps", c->name, c->nsteps);
        CHECK(&t, rc == 0 && jf.nsteps == c->nsteps, name, "%d steps", jf.nsteps);
        for (int s = 0; rc == 0 && s < c->nsteps && s < jf.nsteps; s++) {
            render(&jf.steps[s], got, sizeof got);
            snprintf(name, sizeof name, "%s: step %d is %s", c->name, s + 1, c->steps[s]);
            CHECK(&t, !strcmp(got, c->steps[s]), name, "got %s", got);
        }
        dg_jobfile_free(&jf);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const struct bad_case *c = &bad[i];
        struct dg_jobfile jf;
        struct dg_err err = {0};
        const char *path = write_job("bad.ini", c->text);
        int rc = dg_jobfile_load(path, listable, &jf, &err);
        char want[512];
        snprintf(want, sizeof want, "%s%s", path, c->want);
        snprintf(name, sizeof name, "%s: fails as a user error naming FILE:LINE and the key", c->name);
        CHECK(&t, rc != 0 && err.cls == DG_ERR_USER && !strncmp(err.msg, want, strlen(want)), name,
              "rc %d, message '%s', wanted it to start with '%s'", rc, err.msg, want);
        dg_jobfile_free(&jf);
    }
    long_and_binary(&t);
    struct dg_jobfile jf;
    struct dg_err err = {0};
    snprintf(got, sizeof got, "%s/none.ini", dir);
    CHECK(&t, dg_jobfile_load(got, listable, &jf, &err) && err.cls == DG_ERR_USER && strstr(err.msg, "none.ini"),
          "a missing job file is a user error naming it", "%s", err.msg);
    dg_jobfile_free(&jf);
    snprintf(got, sizeof got, "rm -rf '%s'", dir);
    if (system(got))
        fprintf(stderr, "could not remove %s\n", dir);
    return dg_test_done(&t);
}
