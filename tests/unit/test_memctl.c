/* test_memctl.c — unit tests of the memory cgroup (core/memctl.c) on this host's real cgroups:
 * a process is moved in and back out, a listed child that ended before its move is skipped
 * (a PostgreSQL backend can exit between dg_child_pids and the move), and a first process that
 * is gone fails saying so, leaving nothing behind. Needs root and a memory cgroup; without them it says so. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/memctl.h"
#include "check.h"

/* A child that sleeps until killed, and the pid of one that already ended and was reaped. */
static pid_t sleeper(void)
{
    pid_t p = fork();
    if (p == 0) {
        pause();
        _exit(0);
    }
    return p;
}

static pid_t gone(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    return p;
}

/* 1 when /proc/PID/cgroup names a group containing "dbgauge-". */
static int in_our_group(pid_t pid)
{
    char file[64], line[512];
    snprintf(file, sizeof file, "/proc/%d/cgroup", (int)pid);
    FILE *f = fopen(file, "r");
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "dbgauge-"))
            found = 1;
    if (f)
        fclose(f);
    return found;
}

int main(void)
{
    struct dg_test t = {0};
    struct dg_memcg cg;
    struct dg_err err = {0};
    if (geteuid() != 0) {
        printf("skip - memctl: needs root to make a cgroup\n");
        CHECK(&t, 1, "memctl: not root, nothing made", " ");
        return dg_test_done(&t);
    }
    pid_t alive = sleeper(), dead = gone();

    pid_t both[2] = {alive, dead};
    int rc = dg_memcg_enter(&cg, 64ull << 20, both, 2, &err);
    CHECK(&t, rc == 0, "enter: a listed child that ended before its move is skipped", "rc %d: %s", rc, err.msg);
    CHECK(&t, rc == 0 && cg.npids == 1 && cg.pids[0] == alive, "enter: the live process alone is kept",
          "npids %d", cg.npids);
    CHECK(&t, rc == 0 && in_our_group(alive), "enter: the live process is in the group", "not moved");
    char path[sizeof cg.path];
    snprintf(path, sizeof path, "%s", cg.path);
    dg_memcg_leave(&cg);
    struct stat st;
    CHECK(&t, !in_our_group(alive), "leave: the process went home", "still inside");
    CHECK(&t, stat(path, &st) != 0 && !cg.path[0], "leave: the group is removed", "%s is still there", path);

    pid_t first_gone[2] = {dead, alive};
    memset(&err, 0, sizeof err);
    rc = dg_memcg_enter(&cg, 64ull << 20, first_gone, 2, &err);
    CHECK(&t, rc != 0 && err.cls == DG_ERR_USER, "enter: the first process gone is an error", "rc %d", rc);
    char want[64];
    snprintf(want, sizeof want, "process %d is gone", (int)dead);
    CHECK(&t, strstr(err.msg, want) != NULL, "enter: its message names the process gone", "'%s'", err.msg);
    CHECK(&t, !cg.path[0] && !in_our_group(alive), "enter: on error nothing is left behind", "'%s'", cg.path);

    kill(alive, SIGKILL);
    waitpid(alive, NULL, 0);
    return dg_test_done(&t);
}
