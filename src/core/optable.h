/* optable.h — a command's options as one table (fio's options.c idea): each entry says its
 * name, value kind, help, which subcommands take it, its job-file key, whether an experiment
 * may sweep it, its key in a run's stored options and where its value lands. The help text,
 * the getopt_long table, job-file keys, parsing and the stored options all derive from it.
 * Pure: no database header, no exit; prints only to the FILE it is given. */
#ifndef DG_OPTABLE_H
#define DG_OPTABLE_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "core/err.h"

struct cJSON;

enum dg_opt_kind {
    DG_OPT_CUSTOM = 0, /* parse does it all (and json_fn, if stored) */
    DG_OPT_FLAG,       /* no value: int = 1 */
    DG_OPT_INT,        /* int in [min, max] */
    DG_OPT_U64,        /* uint64_t in [min, max] */
    DG_OPT_DOUBLE,     /* double in (min, max] */
    DG_OPT_DURATION,   /* dg_ns; stored as seconds */
    DG_OPT_SIZE,       /* uint64_t bytes: 512M, 2G */
    DG_OPT_STRING,     /* const char * (points into argv or the job file) */
    DG_OPT_ENUM,       /* int = enum_first + index of the name in names */
    DG_OPT_INT_LIST,   /* struct dg_int_list: comma list, each in [min, max] */
};

/* Flags. */
#define DG_OF_SWEEP (1u << 0)    /* an experiment may give it a list (one step per value) */
#define DG_OF_IF_SET (1u << 1)   /* stored only when given (or non-zero) */
#define DG_OF_CLI_ONLY (1u << 2) /* a command-line option only, never a job-file key */
#define DG_OF_HAS_SET (1u << 3)  /* set_off is valid: an int set to 1 when given */
#define DG_OF_REPEAT (1u << 4)   /* may be given again; a job file joins its lines with '\n' */

#define DG_INT_LIST_MAX 64
struct dg_int_list {
    int n;
    int v[DG_INT_LIST_MAX];
};

struct dg_opt {
    const char *name;    /* long option without "--": "txns-per-vu" */
    enum dg_opt_kind kind;
    const char *metavar; /* "N", "T", "URL"; NULL for a flag */
    const char *help;    /* '\n' starts a continuation line */
    const char *subs;    /* subcommands that take it, space-separated ("load run"); NULL: every one */
    const char *key;     /* job-file key; NULL: name with '-' as '_' */
    const char *json;    /* key in a run's stored options; NULL: not stored */
    unsigned flags;
    size_t off;          /* offsetof the value in the options struct */
    size_t set_off;      /* with DG_OF_HAS_SET: offsetof an int set to 1 when given */
    double min, max;
    const char *const *names; /* DG_OPT_ENUM: NULL-terminated */
    int enum_first;
    int tag; /* free for parse */
    /* DG_OPT_CUSTOM: parses arg into base; errors name the option. */
    int (*parse)(void *base, const struct dg_opt *o, const char *arg, struct dg_err *err);
    /* Optional: writes the stored form itself (instead of the kind's). */
    void (*json_fn)(const void *base, const struct dg_opt *o, struct cJSON *obj);
};

/* Several tables over several structs: a command's options are its workload's table plus the
 * common run block. */
#define DG_OPTSET_MAX 4
struct dg_optset {
    int n;
    const struct dg_opt *tab[DG_OPTSET_MAX];
    int ntab[DG_OPTSET_MAX];
    void *base[DG_OPTSET_MAX];
};

/* An entry found in a set: table t, index i. */
struct dg_opt_ref {
    int t, i;
    const struct dg_opt *o;
};

/* Adds a table of n entries over base. */
void dg_optset_add(struct dg_optset *s, const struct dg_opt *tab, int n, void *base);
/* Whether o is taken by subcommand sub (its subs list). */
int dg_opt_takes(const struct dg_opt *o, const char *sub);
/* o's job-file key into buf. */
const char *dg_opt_key(const struct dg_opt *o, char *buf, size_t n);
/* The entry called name ("--" stripped) or with job-file key key; o NULL if none. */
struct dg_opt_ref dg_optset_find(const struct dg_optset *s, const char *name);
struct dg_opt_ref dg_optset_find_key(const struct dg_optset *s, const char *key);
/* The getopt_long table: entry (t, i) has val DG_OPTVAL(t, i); "help" is added with val
 * DG_OPTVAL_HELP. Returns the number of entries written (terminator included), -1 if out
 * is too small. */
#define DG_OPTVAL(t, i) (1000 + (t) * 256 + (i))
#define DG_OPTVAL_HELP 999
int dg_optset_longopts(const struct dg_optset *s, struct option *out, int cap);
/* The entry of a getopt value. */
struct dg_opt_ref dg_optset_from_val(const struct dg_optset *s, int val);
/* Parses arg (NULL for a flag) into the entry's field; errors name the option ("--vus: ..."). */
int dg_optset_apply(const struct dg_optset *s, struct dg_opt_ref r, const char *arg, struct dg_err *err);
/* Help lines of every entry sub takes (sub NULL: all), with the subcommands named where an
 * entry is not everyone's; skip(ctx, o) hides an entry. */
void dg_optset_usage(const struct dg_optset *s, FILE *out, const char *sub,
                     int (*skip)(void *ctx, const struct dg_opt *o), void *ctx);
/* One entry's help: "  --name METAVAR   WHERE help", continuation lines indented. */
void dg_opt_usage(FILE *out, const struct dg_opt *o, const char *where);
/* Adds each entry's stored form to obj (entries sub takes, sub NULL: all). */
void dg_optset_json(const struct dg_optset *s, const char *sub, struct cJSON *obj);

#endif
