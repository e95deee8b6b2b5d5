/* memory.h — the memory knob of `tpcc run`, `stress` and job files: --db-memory (the
 * engine's cache through the driver's set_memory, with a server restart where it needs one),
 * --mem-cap (a memory cgroup), --drop-caches. What could not be applied is said and recorded,
 * never ignored. Exits nothing; prints notes on stderr. */
#ifndef DG_CMD_MEMORY_H
#define DG_CMD_MEMORY_H

#include <getopt.h>
#include <stdint.h>

#include "core/driver.h"
#include "core/memctl.h"
#include "core/wlcli.h" /* struct dg_memory_opts */

enum { DG_MEM_DB_MEMORY = 0, DG_MEM_RESTART_CMD, DG_MEM_PG_DATADIR, DG_MEM_PG_CTL, DG_MEM_MEM_CAP,
       DG_MEM_DROP_CACHES, DG_MEM_NOPTS };

/* The entries of a command's getopt table, with values base + DG_MEM_*. */
#define DG_MEMORY_LONG_OPTS(base)                                                                  \
    {"db-memory", required_argument, NULL, (base) + DG_MEM_DB_MEMORY},                            \
    {"restart-cmd", required_argument, NULL, (base) + DG_MEM_RESTART_CMD},                        \
    {"pg-datadir", required_argument, NULL, (base) + DG_MEM_PG_DATADIR},                          \
    {"pg-ctl", required_argument, NULL, (base) + DG_MEM_PG_CTL},                                  \
    {"mem-cap", required_argument, NULL, (base) + DG_MEM_MEM_CAP},                                \
    {"drop-caches", no_argument, NULL, (base) + DG_MEM_DROP_CACHES}

#define DG_MEMORY_USAGE                                                                            \
    "  --db-memory SIZE    the engine's cache before the run: SQLite cache_size on every\n"       \
    "                      connection; PostgreSQL shared_buffers (ALTER SYSTEM, then a restart\n" \
    "                      through --restart-cmd or --pg-datadir); MariaDB/MySQL\n"              \
    "                      innodb_buffer_pool_size (SET GLOBAL, at once; needs SUPER)\n"        \
    "  --restart-cmd CMD   restarts the server (/bin/sh -c; never logged nor stored)\n"          \
    "  --pg-datadir DIR    a local PostgreSQL dbgauge restarts itself (pg_ctl restart -w -D DIR,\n" \
    "                      as the directory's owner when root)\n"                                 \
    "  --pg-ctl PATH       pg_ctl to use (default /usr/lib/postgresql/15/bin/pg_ctl)\n"           \
    "  --mem-cap SIZE      a memory cgroup limit for dbgauge (SQLite) or the local server\n"     \
    "  --drop-caches       empty the kernel's page cache before the run (root only)\n"

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
/* The options as JSON keys of a run's options ("db_memory_bytes", ...; never restart_cmd). */
struct cJSON;
void dg_memory_options_json(const struct dg_memory_opts *m, struct cJSON *j);

#endif
