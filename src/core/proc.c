/* proc.c — runs a program and waits for it, as a directory's owner when root (core/proc.h).
 * Knows no database; no printing, no exit in the parent. */
#include "core/proc.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int dg_run_wait(const char *const *argv, const char *as_owner_of, const char *what, struct dg_err *err)
{
    struct stat sb;
    if (as_owner_of && stat(as_owner_of, &sb))
        return dg_err_set(err, DG_ERR_USER, errno, "%s: cannot read '%s': %s", what, as_owner_of,
                          strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        return dg_err_set(err, DG_ERR_FATAL, errno, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(2, 1);
        if (as_owner_of && geteuid() == 0 && sb.st_uid != 0) {
            struct passwd *pw = getpwuid(sb.st_uid);
            if ((pw && initgroups(pw->pw_name, sb.st_gid)) || setgid(sb.st_gid) || setuid(sb.st_uid))
                _exit(126);
            if (pw)
                setenv("HOME", pw->pw_dir, 1);
        }
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return dg_err_set(err, DG_ERR_FATAL, errno, "waitpid: %s", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        return dg_err_set(err, DG_ERR_CONN, 0, "%s exited with status %d", what,
                          WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 0;
}
