/* jobfile.c — reads a job file with libinih and expands [global] lists into steps.
 * Checks only the file's shape (sections, lists, lines); what keys mean is the caller's. */
#include "core/jobfile.h"

#include <ctype.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SECTIONS (DG_JOB_MAX_STEPS + 1)

/* One section as written, before expansion. */
struct raw_section {
    char name[64];
    int line, nkv;
    struct dg_job_kv kv[DG_JOB_MAX_KEYS];
};

struct reader {
    FILE *f;
    const char *path;
    dg_job_listable_fn listable;
    int line;
    struct raw_section *secs; /* secs[0] is [global] (line 0 until seen) */
    int nsecs, cur;           /* cur: index of the section being read, -1 before any */
    struct dg_err *err;
    int failed;
};

/* Sets "FILE:LINE: <pre><name><post>" once (the first error is the one reported). */
static int fail_at(struct reader *r, int line, const char *pre, const char *name, const char *post)
{
    if (!r->failed)
        dg_err_set(r->err, DG_ERR_USER, 0, "%s:%d: %s%s%s", DG_TEXT(r->path), line, pre, DG_TEXT(name), post);
    r->failed = 1;
    return 0;
}

static int good_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
            return 0;
    return 1;
}

/* One physical line into str (num bytes: inih's INI_MAX_LINE). A longer line is an error,
 * never split (the rest would read as a line of its own: "label=xxx...vus=64" would set
 * vus), and so is a NUL byte (the rest of its line would vanish): not a text file. */
static int get_line(struct reader *r, char *str, int num)
{
    int c = getc(r->f), n = 0, nul = 0, cut = 0;
    if (c == EOF)
        return -1;
    for (; c != EOF && c != '\n'; c = getc(r->f)) {
        if (n >= num - 2) {
            cut = 1;
            continue;
        }
        nul |= c == '\0';
        str[n++] = (char)c;
    }
    if (c == '\n')
        str[n++] = '\n';
    str[n] = '\0';
    r->line++;
    if (cut) {
        char lim[48];
        snprintf(lim, sizeof lim, "%d characters", num - 2);
        fail_at(r, r->line, "the line is longer than ", lim, ", the most a job file's line may hold");
    } else if (nul) {
        fail_at(r, r->line, "a NUL byte in the line: ", "not a text file", "");
    }
    return 0;
}

/* inih reads lines through here: we count them and see section headers (empty ones too). */
static char *read_line(char *str, int num, void *stream)
{
    struct reader *r = stream;
    if (get_line(r, str, num))
        return NULL;
    const char *p = str;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '[' || r->failed)
        return str;
    const char *end = strchr(p, ']');
    char name[64] = "";
    if (end) {
        size_t n = (size_t)(end - p - 1);
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p + 1);
        /* inih strips the name's edges; so do we */
        char *s = name;
        while (*s == ' ' || *s == '\t')
            s++;
        memmove(name, s, strlen(s) + 1);
        for (size_t k = strlen(name); k && (name[k - 1] == ' ' || name[k - 1] == '\t'); k--)
            name[k - 1] = '\0';
    }
    if (!end || !good_name(name)) {
        fail_at(r, r->line, "section [", name, "]: a section name is letters, digits, '-', '_', '.'");
        return str;
    }
    if (!strcmp(name, "global")) {
        if (r->secs[0].line) {
            fail_at(r, r->line, "section [", "global", "] is given twice");
            return str;
        }
        r->secs[0].line = r->line;
        r->cur = 0;
        return str;
    }
    for (int i = 1; i < r->nsecs; i++)
        if (!strcmp(r->secs[i].name, name)) {
            fail_at(r, r->line, "section [", name, "] is given twice");
            return str;
        }
    if (r->nsecs == MAX_SECTIONS) {
        fail_at(r, r->line, "more than 256 step sections", "", "");
        return str;
    }
    struct raw_section *s = &r->secs[r->nsecs];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->line = r->line;
    s->nkv = 0;
    r->cur = r->nsecs++;
    return str;
}

/* A repeatable key given again: its values joined with '\n'. Returns 1 (go on), or 0 failed. */
static int append_line(struct reader *r, struct dg_job_kv *kv, const char *value)
{
    size_t a = strlen(kv->value), b = strlen(value);
    char *v = realloc(kv->value, a + b + 2);
    if (!v) {
        dg_err_set(r->err, DG_ERR_FATAL, 0, "out of memory");
        r->failed = 1;
        return 0;
    }
    v[a] = '\n';
    memcpy(v + a + 1, value, b + 1);
    kv->value = v;
    return 1;
}

static int on_value(void *user, const char *section, const char *key, const char *value)
{
    struct reader *r = user;
    (void)section; /* the reader saw the header already */
    if (r->failed)
        return 0;
    if (r->cur < 0)
        return fail_at(r, r->line, "key '", key, "' comes before any section (start with [global] or a step section)");
    struct raw_section *s = &r->secs[r->cur];
    if (strlen(key) >= sizeof s->kv[0].key)
        return fail_at(r, r->line, "key '", key, "' is too long");
    char shown[64];
    snprintf(shown, sizeof shown, "%s", key);
    if (r->cur > 0 && strchr(value, ',') && r->listable(key) == 1)
        return fail_at(r, r->line, "key '", shown, "': lists sweep only in [global]; a step section gives one value");
    struct dg_job_kv *kv = NULL;
    int kind = r->listable(key);
    for (int i = 0; i < s->nkv; i++)
        if (!strcmp(s->kv[i].key, key)) {
            if (kind != DG_JOB_REPEATABLE)
                return fail_at(r, r->line, "key '", shown, "' is given twice in this section");
            return append_line(r, &s->kv[i], value);
        }
    if (s->nkv == DG_JOB_MAX_KEYS)
        return fail_at(r, r->line, "key '", shown, "': more than 64 keys in one section");
    kv = &s->kv[s->nkv];
    snprintf(kv->key, sizeof kv->key, "%s", key);
    kv->value = strdup(value);
    kv->line = r->line;
    if (!kv->value) {
        dg_err_set(r->err, DG_ERR_FATAL, 0, "out of memory");
        r->failed = 1;
        return 0;
    }
    s->nkv++;
    if (kind == 1 && strchr(value, ',')) {
        /* every element of a list must be there: "1,,2" and "1," are typos */
        const char *p = value;
        for (;;) {
            const char *c = strchr(p, ',');
            size_t n = c ? (size_t)(c - p) : strlen(p);
            while (n && isspace((unsigned char)*p))
                p++, n--;
            if (n == 0)
                return fail_at(r, r->line, "key '", shown, "': an empty element in the list");
            if (!c)
                break;
            p = c + 1;
        }
    }
    return 1;
}

static void free_section(struct raw_section *s)
{
    for (int i = 0; i < s->nkv; i++)
        free(s->kv[i].value);
    s->nkv = 0;
}

/* Element k of a comma list, trimmed, into a new string. */
static char *list_elem(const char *v, int k)
{
    for (; k > 0; k--)
        v = strchr(v, ',') + 1;
    while (isspace((unsigned char)*v))
        v++;
    const char *c = strchr(v, ',');
    size_t n = c ? (size_t)(c - v) : strlen(v);
    while (n && isspace((unsigned char)v[n - 1]))
        n--;
    char *out = malloc(n + 1);
    if (out) {
        memcpy(out, v, n);
        out[n] = '\0';
    }
    return out;
}

static int list_len(const char *v)
{
    int n = 1;
    for (; *v; v++)
        n += *v == ',';
    return n;
}

static int set_kv(struct dg_job_step *st, const char *key, const char *value, int line)
{
    int i;
    for (i = 0; i < st->nkv && strcmp(st->kv[i].key, key); i++)
        ;
    if (i == DG_JOB_MAX_KEYS)
        return -1;
    if (i == st->nkv) {
        snprintf(st->kv[i].key, sizeof st->kv[i].key, "%s", key);
        st->nkv++;
    } else {
        free(st->kv[i].value);
    }
    st->kv[i].value = strdup(value);
    st->kv[i].line = line;
    return st->kv[i].value ? i : -1;
}

static const struct dg_job_kv *sec_get(const struct raw_section *s, const char *key)
{
    for (int i = 0; i < s->nkv; i++)
        if (!strcmp(s->kv[i].key, key))
            return &s->kv[i];
    return NULL;
}

static int expand(struct reader *r, struct dg_jobfile *jf, struct dg_err *err)
{
    const struct raw_section *g = &r->secs[0];
    int lists[DG_JOB_MAX_LISTS], nlists = 0;
    for (int i = 0; i < g->nkv; i++)
        if (r->listable(g->kv[i].key) == 1 && strchr(g->kv[i].value, ',')) {
            if (nlists == DG_JOB_MAX_LISTS)
                return dg_err_set(err, DG_ERR_USER, 0, "%s:%d: key '%s': at most %d lists in [global]",
                                  r->path, g->kv[i].line, g->kv[i].key, DG_JOB_MAX_LISTS);
            lists[nlists++] = i;
        }
    int first = r->nsecs > 1 ? 1 : 0; /* no step section: [global] alone is the step */
    jf->steps = calloc(DG_JOB_MAX_STEPS, sizeof *jf->steps);
    if (!jf->steps)
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    for (int si = first; si < r->nsecs; si++) {
        const struct raw_section *s = &r->secs[si];
        /* The lists this section sweeps: those it does not set itself. */
        int sweep[DG_JOB_MAX_LISTS], len[DG_JOB_MAX_LISTS], at[DG_JOB_MAX_LISTS], n = 0;
        for (int l = 0; l < nlists; l++)
            if (si == 0 || !sec_get(s, g->kv[lists[l]].key)) {
                sweep[n] = lists[l];
                len[n] = list_len(g->kv[lists[l]].value);
                at[n++] = 0;
            }
        for (;;) {
            if (jf->nsteps == DG_JOB_MAX_STEPS)
                return dg_err_set(err, DG_ERR_USER, 0, "%s: more than %d steps after expanding lists",
                                  r->path, DG_JOB_MAX_STEPS);
            struct dg_job_step *st = &jf->steps[jf->nsteps++];
            snprintf(st->section, sizeof st->section, "%s", si ? s->name : "global");
            st->line = s->line;
            for (int i = 0; i < g->nkv; i++) {
                int l;
                for (l = 0; l < n && sweep[l] != i; l++)
                    ;
                char *v = l < n ? list_elem(g->kv[i].value, at[l]) : strdup(g->kv[i].value);
                int k = v ? set_kv(st, g->kv[i].key, v, g->kv[i].line) : -1;
                free(v);
                if (k < 0)
                    return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
                if (l < n)
                    st->swept[st->nswept++] = k;
            }
            for (int i = 0; si > 0 && i < s->nkv; i++)
                if (set_kv(st, s->kv[i].key, s->kv[i].value, s->kv[i].line) < 0)
                    return dg_err_set(err, DG_ERR_USER, 0, "%s:%d: more than %d keys in a step",
                                      r->path, s->kv[i].line, DG_JOB_MAX_KEYS);
            /* the next combination: the last list varies fastest */
            int l = n - 1;
            while (l >= 0 && ++at[l] == len[l])
                at[l--] = 0;
            if (l < 0)
                break;
        }
    }
    return 0;
}

int dg_jobfile_load(const char *path, dg_job_listable_fn listable, struct dg_jobfile *jf,
                    struct dg_err *err)
{
    memset(jf, 0, sizeof *jf);
    snprintf(jf->path, sizeof jf->path, "%s", path);
    struct reader r = {.path = path, .listable = listable, .cur = -1, .err = err};
    r.f = fopen(path, "r");
    if (!r.f)
        return dg_err_set(err, DG_ERR_USER, 0, "%s: cannot read the job file", path);
    r.secs = calloc(MAX_SECTIONS, sizeof *r.secs);
    if (!r.secs) {
        fclose(r.f);
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    }
    snprintf(r.secs[0].name, sizeof r.secs[0].name, "global");
    r.nsecs = 1;
    int bad = ini_parse_stream(read_line, &r, on_value, &r);
    fclose(r.f);
    int rc = -1;
    if (r.failed)
        goto out;
    if (bad > 0) {
        dg_err_set(err, DG_ERR_USER, 0, "%s:%d: not a 'key=value' line nor a [section]", path, bad);
        goto out;
    }
    if (bad < 0) {
        dg_err_set(err, DG_ERR_FATAL, 0, "%s: out of memory reading the job file", path);
        goto out;
    }
    if (r.nsecs == 1 && r.secs[0].line == 0) {
        dg_err_set(err, DG_ERR_USER, 0, "%s: no section: a job file has [global] and/or step sections", path);
        goto out;
    }
    rc = expand(&r, jf, err);
out:
    for (int i = 0; i < r.nsecs; i++)
        free_section(&r.secs[i]);
    free(r.secs);
    return rc;
}

void dg_jobfile_free(struct dg_jobfile *jf)
{
    for (int i = 0; jf->steps && i < jf->nsteps; i++)
        for (int k = 0; k < jf->steps[i].nkv; k++)
            free(jf->steps[i].kv[k].value);
    free(jf->steps);
    jf->steps = NULL;
    jf->nsteps = 0;
}

const char *dg_job_get(const struct dg_job_step *st, const char *key)
{
    for (int i = 0; i < st->nkv; i++)
        if (!strcmp(st->kv[i].key, key))
            return st->kv[i].value;
    return NULL;
}
