/* jobfile.h — fio-style job files (INI, read with libinih): a [global] section and one section
 * per step, lists in [global] expanded into steps. Knows no option and no database: the
 * caller checks every key and value (cmd/experiment.c routes them through the commands' own
 * option parsers). No printing, no exit. */
#ifndef DG_JOBFILE_H
#define DG_JOBFILE_H

#include <stddef.h>

#include "core/err.h"

#define DG_JOB_MAX_KEYS 64
#define DG_JOB_MAX_STEPS 256
#define DG_JOB_MAX_LISTS 8

struct dg_job_kv {
    char key[48];
    char *value; /* owned by the job file */
    int line;    /* where the value was given (a list element: the list's line) */
};

struct dg_job_step {
    char section[64]; /* "global" when the file has no step section */
    int line;         /* the section header's line (0 for an implicit step) */
    int nkv;
    struct dg_job_kv kv[DG_JOB_MAX_KEYS]; /* [global]'s keys first, then the section's, in file order */
    int nswept;
    int swept[DG_JOB_MAX_LISTS]; /* indexes into kv of the values this step takes from lists */
};

struct dg_jobfile {
    char path[512];
    int nsteps;
    struct dg_job_step *steps; /* owned */
};

/* Whether a key's value may be a comma-separated list (1; a query's commas are not a list: 0),
 * or the key may be given on several lines of a section (DG_JOB_REPEATABLE: its values are
 * joined with '\n', which no INI value holds, never split at commas). */
typedef int (*dg_job_listable_fn)(const char *key);
#define DG_JOB_REPEATABLE 2

/* Reads path and expands it. Every step is [global] then its own section's keys (a section's
 * key replaces [global]'s). A list in [global] gives one step per value; several lists give
 * their cross product, the first list in the file varying slowest; a section that sets a
 * listed key takes its own value instead of sweeping it. Errors (DG_ERR_USER) name
 * "FILE:LINE" and the key or section: a line inih cannot read, a line longer than inih reads
 * (198 characters) or holding a NUL byte, a key before any section, a
 * section name other than letters, digits, '-', '_', '.', a section given twice, a list in a
 * step section, an empty list element. Free with dg_jobfile_free, also after an error. */
int dg_jobfile_load(const char *path, dg_job_listable_fn listable, struct dg_jobfile *jf,
                    struct dg_err *err);
void dg_jobfile_free(struct dg_jobfile *jf);
/* The value of key in step (NULL if not set). */
const char *dg_job_get(const struct dg_job_step *st, const char *key);

#endif
