/* memctl.c — memory cgroups (v2 or v1, found from /proc/self/cgroup and the mounts under
 * /sys/fs/cgroup) and dropping the page cache. Knows no database; prints nothing. */
#include "core/memctl.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CG_ROOT "/sys/fs/cgroup"

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int ok = fputs(text, f) >= 0;
    ok &= fclose(f) == 0;
    return ok ? 0 : -1;
}

/* The cgroup of pid in the memory hierarchy: v2 ("0::/x") or v1 ("N:...memory...:/x"). */
static int cgroup_of(pid_t pid, int *v2, char *path, size_t n)
{
    char file[64], line[1024];
    snprintf(file, sizeof file, "/proc/%d/cgroup", (int)pid);
    FILE *f = fopen(file, "r");
    if (!f)
        return -1;
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        const char *ctrl = c1 + 1, *p = c2 + 1;
        if (strstr(ctrl, "memory") && access(CG_ROOT "/memory", F_OK) == 0) {
            *v2 = 0;
            snprintf(path, n, "%s", p);
            found = 1;
            break;
        }
        if (!*ctrl && access(CG_ROOT "/cgroup.controllers", F_OK) == 0) {
            *v2 = 1;
            snprintf(path, n, "%s", p);
            found = 1; /* keep looking: a v1 memory line wins on a hybrid host */
        }
    }
    fclose(f);
    return found ? 0 : -1;
}

int dg_memcg_enter(struct dg_memcg *cg, uint64_t bytes, const pid_t *pids, int npids,
                   struct dg_err *err)
{
    memset(cg, 0, sizeof *cg);
    int v2;
    char own[400];
    if (npids < 1 || npids > DG_MEMCG_MAX_PIDS)
        return dg_err_set(err, DG_ERR_USER, 0, "mem_cap: %d processes to cap", npids);
    if (kill(pids[0], 0) && errno == ESRCH)
        return dg_err_set(err, DG_ERR_USER, ESRCH, "mem_cap: process %d is gone: nothing to cap", (int)pids[0]);
    if (cgroup_of(pids[0], &v2, own, sizeof own))
        return dg_err_set(err, DG_ERR_USER, 0, "mem_cap: this host has no memory cgroup (neither "
                          "cgroup v2 with the memory controller nor v1 " CG_ROOT "/memory)");
    if (!strcmp(own, "/"))
        own[0] = '\0';
    const char *limit_file;
    if (v2) {
        /* A v2 group with processes may not have children with controllers: make ours under the root. */
        snprintf(cg->path, sizeof cg->path, CG_ROOT "/dbgauge-%d", (int)getpid());
        snprintf(cg->home, sizeof cg->home, CG_ROOT "%s/cgroup.procs", own);
        write_file(CG_ROOT "/cgroup.subtree_control", "+memory");
        limit_file = "memory.max";
    } else {
        snprintf(cg->path, sizeof cg->path, CG_ROOT "/memory%s/dbgauge-%d", own, (int)getpid());
        snprintf(cg->home, sizeof cg->home, CG_ROOT "/memory%s/cgroup.procs", own);
        limit_file = "memory.limit_in_bytes";
    }
    if (mkdir(cg->path, 0755) && errno != EEXIST) {
        int e = errno;
        dg_err_set(err, e == EACCES || e == EPERM || e == EROFS ? DG_ERR_USER : DG_ERR_FATAL, e,
                   "mem_cap: cannot make the cgroup %s: %s", cg->path, strerror(e));
        cg->path[0] = '\0';
        return -1;
    }
    char file[600], val[32];
    snprintf(file, sizeof file, "%s/%s", cg->path, limit_file);
    snprintf(val, sizeof val, "%llu", (unsigned long long)bytes);
    if (write_file(file, val)) {
        int e = errno;
        dg_memcg_leave(cg);
        return dg_err_set(err, DG_ERR_USER, e, "mem_cap: cannot write %s: %s", file, strerror(e));
    }
    snprintf(file, sizeof file, "%s/cgroup.procs", cg->path);
    for (int i = 0; i < npids; i++) {
        snprintf(val, sizeof val, "%d", (int)pids[i]);
        if (write_file(file, val)) {
            int e = errno;
            /* A child that ended since it was listed (a backend's disconnect, a worker's
             * exit) has no memory left to cap; the first process is the one that matters. */
            if (e == ESRCH && i > 0)
                continue;
            char group[sizeof cg->path];
            snprintf(group, sizeof group, "%s", cg->path);
            dg_memcg_leave(cg);
            return dg_err_set(err, DG_ERR_USER, e, "mem_cap: cannot move process %d into %s: %s",
                              (int)pids[i], group, strerror(e));
        }
        cg->pids[cg->npids++] = pids[i];
    }
    return 0;
}

void dg_memcg_leave(struct dg_memcg *cg)
{
    if (!cg->path[0])
        return;
    /* Everyone inside goes home, the children born there too, then the empty group goes. */
    char file[600], line[32];
    snprintf(file, sizeof file, "%s/cgroup.procs", cg->path);
    for (int round = 0; round < 3; round++) {
        FILE *f = fopen(file, "r");
        if (!f)
            break;
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            write_file(cg->home, line);
        }
        fclose(f);
        if (rmdir(cg->path) == 0 || errno == ENOENT)
            break;
        usleep(100000);
    }
    cg->path[0] = '\0';
    cg->npids = 0;
}

int dg_drop_caches(struct dg_err *err)
{
    if (geteuid() != 0)
        return dg_err_set(err, DG_ERR_USER, 0, "drop_caches: needs root; the page cache was left as it is");
    sync();
    if (write_file("/proc/sys/vm/drop_caches", "3")) {
        int e = errno;
        return dg_err_set(err, DG_ERR_USER, e, "drop_caches: cannot write /proc/sys/vm/drop_caches: %s",
                          strerror(e));
    }
    return 0;
}

int dg_child_pids(pid_t pid, pid_t *out, int max)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        char file[300], buf[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(file, sizeof file, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(file, "r");
        if (!f)
            continue;
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[got] = '\0';
        /* pid (comm) state ppid ...: comm may hold spaces, so read after the last ')' */
        const char *p = strrchr(buf, ')');
        char state;
        int ppid;
        if (p && sscanf(p + 1, " %c %d", &state, &ppid) == 2 && ppid == (int)pid)
            out[n++] = (pid_t)atoi(e->d_name);
    }
    closedir(d);
    return n;
}
