/* proc.h — runs a program on this host and waits for it (a server's control program, the
 * user's restart command), as the owner of a directory when we are root. Knows no database;
 * prints nothing itself (the program's output goes to our stderr), never exits. */
#ifndef DG_PROC_H
#define DG_PROC_H

#include "core/err.h"

/* Runs argv (argv[0] a path; NULL-terminated) and waits for it. With as_owner_of (a path)
 * and euid 0, the program runs as that path's owner (uid, gid, groups, HOME). Its stdout goes
 * to our stderr, so a server it starts never keeps our stdout. what names the program in
 * errors. Returns 0 when it exits 0; else -1 with DG_ERR_CONN (it ran and failed), DG_ERR_USER
 * (as_owner_of cannot be read) or DG_ERR_FATAL (fork, wait). */
int dg_run_wait(const char *const *argv, const char *as_owner_of, const char *what, struct dg_err *err);

#endif
