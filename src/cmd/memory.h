/* memory.h — the memory knob of every run command and job file: --db-memory (the
 * engine's cache through the driver's set_memory, with a server restart where it needs one),
 * --mem-cap (a memory cgroup), --drop-caches. What could not be applied is said and recorded,
 * never ignored. Exits nothing; prints notes on stderr. */
#ifndef DG_CMD_MEMORY_H
#define DG_CMD_MEMORY_H

#include <stdint.h>

#include "core/driver.h"
#include "core/memctl.h"
#include "core/wlcli.h" /* struct dg_memory_opts */

enum { DG_MEM_DB_MEMORY = 0, DG_MEM_RESTART_CMD, DG_MEM_PG_DATADIR, DG_MEM_PG_CTL, DG_MEM_MEM_CAP,
       DG_MEM_DROP_CACHES, DG_MEM_NOPTS };

/* What was done before a run; lives until dg_memory_release. */
struct dg_memory_state {
    uint64_t session_bytes; /* > 0: every connection of the run sets this (per-connection knob) */
    char *json;             /* owned: {"db_memory_bytes", "applied": [...], "not_applied": [...]} */
    struct dg_memcg cg;
};

/* Applies option opt (DG_MEM_*) with its value. */
int dg_memory_opt(struct dg_memory_opts *m, int opt, const char *arg, struct dg_err *err);
/* Checks the options together (--restart-cmd and --pg-datadir go with --db-memory ...). */
int dg_memory_check(const struct dg_memory_opts *m, struct dg_err *err);
/* Before the run: sets the knob, restarts the server where needed and waits for it, caps
 * memory, drops caches. Returns -1 only when the run must not go on (the knob could not be
 * set: err says why); what could merely not be applied is in st->json and on stderr. */
int dg_memory_apply(const struct dg_target *t, const struct dg_memory_opts *m,
                    struct dg_memory_state *st, struct dg_err *err);
/* After the run: removes the cgroup (processes back where they were), frees st. */
void dg_memory_release(struct dg_memory_state *st);
#endif
