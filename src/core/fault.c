/* fault.c — a run's fault schedule (core/fault.h): each fault on its own thread, which sleeps
 * until its offset into the measured window, runs the command with /bin/sh -c in its own
 * process group (its output goes to our stderr, so a JSON document on stdout stays whole),
 * and waits for it. At the run's end faults not yet due are not started, and a command still
 * running is given a grace period, then killed with its group. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "core/driver.h"
#include "core/fault.h"
#include "core/opts.h"

extern char **environ;

#define GRACE_NS (60 * DG_NS_PER_S) /* a command still running after the run: its time to end */

int dg_fault_parse(const char *spec, dg_ns window_ns, struct dg_fault_spec *out, struct dg_err *err)
{
    const char *colon = strchr(spec, ':');
    if (!colon || colon == spec)
        return dg_err_set(err, DG_ERR_USER, 0, "--fault '%s': expected OFFSET:COMMAND (e.g. 8s:'pg_ctl stop ...')", DG_TEXT(spec));
    char off[64];
    size_t n = (size_t)(colon - spec);
    if (n >= sizeof off)
        return dg_err_set(err, DG_ERR_USER, 0, "--fault: the offset '%.*s' is not a duration", (int)n, spec);
    memcpy(off, spec, n);
    off[n] = '\0';
    if (off[0] == '-')
        return dg_err_set(err, DG_ERR_USER, 0, "--fault: the offset '%s' is negative; it counts from the "
                                               "start of the measured window", DG_TEXT(off));
    if (dg_parse_duration("--fault", off, &out->offset_ns, err))
        return -1;
    const char *cmd = colon + 1;
    while (isspace((unsigned char)*cmd))
        cmd++;
    if (!*cmd)
        return dg_err_set(err, DG_ERR_USER, 0, "--fault '%s': no command after the offset", DG_TEXT(off));
    if (strlen(cmd) >= sizeof out->command)
        return dg_err_set(err, DG_ERR_USER, 0, "--fault at %s: the command is longer than %zu characters", off,
                          sizeof out->command - 1);
    if (window_ns && out->offset_ns >= window_ns) {
        char w[32];
        dg_format_duration(window_ns, w, sizeof w);
        return dg_err_set(err, DG_ERR_USER, 0, "--fault at %s: past the end of the %s measured window", off, w);
    }
    snprintf(out->command, sizeof out->command, "%s", cmd);
    return 0;
}

/* Does word (n bytes) start "NAME=" where NAME holds PASSWORD or PWD (PGPASSWORD=, MYSQL_PWD=,
 * --password=)? Returns the length up to and with the '=', else 0. */
static size_t secret_assignment(const char *word, size_t n)
{
    const char *eq = memchr(word, '=', n);
    if (!eq)
        return 0;
    char name[64];
    size_t k = (size_t)(eq - word);
    if (k >= sizeof name)
        return 0;
    for (size_t i = 0; i < k; i++)
        name[i] = (char)toupper((unsigned char)word[i]);
    name[k] = '\0';
    return strstr(name, "PASSWORD") || strstr(name, "PWD") || strstr(name, "PASSWD") ? k + 1 : 0;
}

/* A word after which the next one is a password: sshpass -p SECRET, tool --password SECRET.
 * (It may be something else, mysql -p DATABASE or ps -p PID: hiding those costs less than
 * showing a password.) */
static int password_flag(const char *word)
{
    return !strcmp(word, "-p") || !strcmp(word, "--password") || !strcmp(word, "--passwd") ||
           !strcmp(word, "--pass");
}

void dg_redact_command(const char *cmd, char *out, size_t cap)
{
    size_t used = 0;
    int value_next = 0; /* the word before was a password flag */
    out[0] = '\0';
    for (const char *p = cmd; *p && used + 1 < cap;) {
        size_t sp = strspn(p, " \t\n"), n;
        if (sp) {
            n = sp < cap - 1 - used ? sp : cap - 1 - used;
            memcpy(out + used, p, n);
            used += n;
            p += sp;
            continue;
        }
        size_t len = strcspn(p, " \t\n");
        char word[1024], red[1024];
        snprintf(word, sizeof word, "%.*s", (int)len, p);
        size_t keep = secret_assignment(word, strlen(word));
        if (value_next)
            snprintf(red, sizeof red, "***");
        else if (keep)
            snprintf(red, sizeof red, "%.*s***", (int)keep, word);
        else if (word[0] == '-' && word[1] == 'p' && word[2] && word[2] != '=') /* mysql -pSECRET */
            snprintf(red, sizeof red, "-p***");
        else
            dg_redact_url(word, red, sizeof red);
        value_next = password_flag(word);
        n = strlen(red) < cap - 1 - used ? strlen(red) : cap - 1 - used;
        memcpy(out + used, red, n);
        used += n;
        p += len;
    }
    out[used] = '\0';
}

/* One fault's thread and what it saw. */
struct fault_slot {
    struct dg_fault_run *run;
    struct dg_fault_spec spec;
    pthread_t th;
    int started_thread;
    dg_ns start, end;   /* 0: not reached */
    int status;         /* -1 until it ends */
};

struct dg_fault_run {
    dg_ns window_start;
    _Atomic int ending;  /* the run is over: start nothing more */
    _Atomic dg_ns kill_at; /* past it, a command still running is killed */
    int n;
    struct fault_slot slot[DG_MAX_FAULTS];
};

static void nap(dg_ns ns)
{
    struct timespec ts = {(time_t)(ns / DG_NS_PER_S), (long)(ns % DG_NS_PER_S)};
    nanosleep(&ts, NULL);
}

/* Runs the command in a process group of its own and waits for it (killing the group past
 * the run's grace). Returns the shell's status as in core/fault.h. */
static int run_command(struct dg_fault_run *fr, const char *command)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, 2, 1); /* its output to our stderr */
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    char *argv[] = {"sh", "-c", (char *)command, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc)
        return -1;
    int st, killed = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return -1;
        if (!killed && dg_now_ns() > atomic_load(&fr->kill_at)) {
            kill(-pid, SIGKILL);
            killed = 1;
        }
        nap(20 * DG_NS_PER_MS);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

static void *fault_main(void *arg)
{
    struct fault_slot *s = arg;
    struct dg_fault_run *fr = s->run;
    dg_ns due = fr->window_start + s->spec.offset_ns;
    for (dg_ns now; (now = dg_now_ns()) < due;) {
        if (atomic_load(&fr->ending))
            return NULL;
        nap(due - now < 50 * DG_NS_PER_MS ? due - now : 50 * DG_NS_PER_MS);
    }
    if (atomic_load(&fr->ending))
        return NULL;
    s->start = dg_now_ns();
    s->status = run_command(fr, s->spec.command);
    s->end = dg_now_ns();
    return NULL;
}

struct dg_fault_run *dg_faults_start(const struct dg_fault_spec *specs, int n, dg_ns window_start_ns,
                                     struct dg_err *err)
{
    if (n <= 0)
        return NULL;
    struct dg_fault_run *fr = calloc(1, sizeof *fr);
    if (!fr) {
        dg_err_set(err, DG_ERR_FATAL, 0, "out of memory for the fault schedule");
        return NULL;
    }
    fr->window_start = window_start_ns;
    fr->n = n < DG_MAX_FAULTS ? n : DG_MAX_FAULTS;
    atomic_store(&fr->kill_at, UINT64_MAX);
    for (int i = 0; i < fr->n; i++) {
        struct fault_slot *s = &fr->slot[i];
        s->run = fr;
        s->spec = specs[i];
        s->status = -1;
        s->started_thread = pthread_create(&s->th, NULL, fault_main, s) == 0;
        if (!s->started_thread)
            dg_err_set(err, DG_ERR_FATAL, errno, "cannot start the thread of fault %d", i + 1);
    }
    return fr;
}

static double rel_s(dg_ns from, dg_ns t)
{
    return (double)(int64_t)(t - from) / 1e9;
}

int dg_faults_finish(struct dg_fault_run *fr, struct dg_fault_event *out, int n)
{
    if (!fr)
        return 0;
    atomic_store(&fr->ending, 1);
    atomic_store(&fr->kill_at, dg_now_ns() + GRACE_NS);
    int filled = 0;
    for (int i = 0; i < fr->n; i++) {
        struct fault_slot *s = &fr->slot[i];
        if (s->started_thread)
            pthread_join(s->th, NULL);
        if (filled == n)
            continue;
        struct dg_fault_event *e = &out[filled++];
        e->offset_s = (double)s->spec.offset_ns / 1e9;
        e->start_s = s->start ? rel_s(fr->window_start, s->start) : -1;
        e->end_s = s->end ? rel_s(fr->window_start, s->end) : -1;
        e->exit_status = s->start ? s->status : -1;
        dg_redact_command(s->spec.command, e->command, sizeof e->command);
    }
    free(fr);
    return filled;
}
