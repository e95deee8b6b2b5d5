/* fault.h — a run's fault schedule (--fault OFFSET:COMMAND, fault= in job files): shell
 * commands set off at given offsets into the measured window, each on its own thread so a
 * slow one never holds up the next, with when each started and ended and how it exited. The
 * command text is kept with any password redacted; it is run as given. */
#ifndef DG_FAULT_H
#define DG_FAULT_H

#include <stddef.h>

#include "core/clock.h"
#include "core/err.h"

#define DG_MAX_FAULTS 16

/* One fault as asked. */
struct dg_fault_spec {
    dg_ns offset_ns;     /* into the measured window */
    char command[1024];  /* run by /bin/sh -c */
};

/* One fault as it happened (stored in table run_fault). Times are seconds from the measured
 * window's start. */
struct dg_fault_event {
    double offset_s;       /* as asked */
    double start_s, end_s; /* when the command started and ended; end_s < 0: still running
                            * when the run ended (it is then waited for, not killed) */
    int exit_status;       /* the shell's: 0 success, 128 + N killed by signal N, -1 not run */
    char command[512];     /* as given, any password in it redacted */
};

/* Parses "OFFSET:COMMAND" (OFFSET a duration: "8s", "1500ms", "2m"; COMMAND not empty)
 * into *out. window_ns > 0: the offset must fall inside the window. Returns 0, or -1 with a
 * DG_ERR_USER error that names what was wrong. */
int dg_fault_parse(const char *spec, dg_ns window_ns, struct dg_fault_spec *out, struct dg_err *err);

/* Copies cmd into out with the passwords it may hold replaced by ***: URL passwords and
 * password=/pwd= parts (dg_redact_url), NAME=value where NAME holds PASSWORD or PWD
 * (PGPASSWORD=, MYSQL_PWD=, --password=), mysql's -pSECRET, and the word after -p,
 * --password, --passwd or --pass (sshpass -p SECRET). */
void dg_redact_command(const char *cmd, char *out, size_t cap);

/* The schedule of one run. Owned by the caller; dg_faults_start begins its threads, and
 * dg_faults_finish waits for every one and fills the events. */
struct dg_fault_run;
/* Starts n faults (specs copied) whose offsets count from window_start_ns (monotonic clock).
 * NULL when n is 0 or out of memory (the run then goes on without them, err says). */
struct dg_fault_run *dg_faults_start(const struct dg_fault_spec *specs, int n, dg_ns window_start_ns,
                                     struct dg_err *err);
/* Tells faults not yet due not to start (their start_s, end_s and exit_status are -1), waits
 * for those running (killing, with its process group, one that runs on 60 s after this call),
 * fills out[0..n) in the order given and frees fr. NULL fr: 0. Returns how many were filled. */
int dg_faults_finish(struct dg_fault_run *fr, struct dg_fault_event *out, int n);

#endif
