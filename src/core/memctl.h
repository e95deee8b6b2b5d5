/* memctl.h — memory control of processes on this host: a memory cgroup with a limit (cgroup
 * v2 memory.max or v1 memory.limit_in_bytes, whichever the host has) and dropping the page
 * cache. Knows no database. No printing, no exit. */
#ifndef DG_MEMCTL_H
#define DG_MEMCTL_H

#include <stdint.h>
#include <sys/types.h>

#include "core/err.h"

#define DG_MEMCG_MAX_PIDS 256

struct dg_memcg {
    char path[512];    /* the group made; "" when none */
    char home[512];    /* the cgroup.procs file the processes came from */
    pid_t pids[DG_MEMCG_MAX_PIDS];
    int npids;
};

/* Makes a child memory group limited to bytes and moves pids into it (a process's threads
 * move with it; its later children are born inside). On error nothing is left behind. */
int dg_memcg_enter(struct dg_memcg *cg, uint64_t bytes, const pid_t *pids, int npids,
                   struct dg_err *err);
/* Moves the processes back and removes the group; harmless when none was made. */
void dg_memcg_leave(struct dg_memcg *cg);
/* sync(2), then 3 into /proc/sys/vm/drop_caches. DG_ERR_USER when not root. */
int dg_drop_caches(struct dg_err *err);
/* The PIDs of pid's child processes (from /proc), at most max. */
int dg_child_pids(pid_t pid, pid_t *out, int max);

#endif
