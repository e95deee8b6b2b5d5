/* procid.c — a process's identity from /proc: the boot id and the pid's start time in
 * clock ticks since boot (field 22 of /proc/PID/stat). */
#include "core/procid.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int dg_boot_id(char *out, size_t n)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f)
        return -1;
    int ok = fgets(out, (int)n, f) != NULL;
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
    return ok && out[0] && !strchr(out, ':') ? 0 : -1;
}

/* The start time of pid, or 0 when there is no such process (or only its zombie: a process
 * killed whose parent has not reaped it yet has ended all the same). */
static uint64_t start_time(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    /* The command name (field 2) may hold spaces and parentheses: fields count after the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
        return 0;
    for (int field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

void dg_clock_id(char *out, size_t n)
{
    char boot[48], line[128], mono[64] = "monotonic 0 0";
    if (dg_boot_id(boot, sizeof boot)) {
        if (n)
            out[0] = '\0';
        return;
    }
    FILE *f = fopen("/proc/self/timens_offsets", "r"); /* absent: no time namespaces, no offset */
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "monotonic ", 10)) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(mono, sizeof mono, "%s", line);
        }
    if (f)
        fclose(f);
    snprintf(out, n, "%s %s", boot, mono);
}

void dg_procid_self(char *out, size_t n)
{
    char boot[48];
    long pid = (long)getpid();
    uint64_t st = start_time(pid);
    if (dg_boot_id(boot, sizeof boot) || !st) {
        if (n)
            out[0] = '\0';
        return;
    }
    snprintf(out, n, "%s:%ld:%" PRIu64, boot, pid, st);
}

int dg_procid_alive(const char *id)
{
    char boot[48], now[48];
    long pid;
    uint64_t st;
    if (!id || sscanf(id, "%47[^:]:%ld:%" SCNu64, boot, &pid, &st) != 3 || pid <= 0)
        return -1;
    if (dg_boot_id(now, sizeof now))
        return -1;
    if (strcmp(boot, now))
        return 0; /* the machine has rebooted since */
    return start_time(pid) == st;
}
