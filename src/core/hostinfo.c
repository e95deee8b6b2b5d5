/* hostinfo.c — CPU model, cores, memory and kernel of this host, from /proc and uname. */
#include "core/hostinfo.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

void dg_hostinfo_read(struct dg_hostinfo *h)
{
    memset(h, 0, sizeof *h);
    gethostname(h->hostname, sizeof h->hostname - 1);
    h->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(h->kernel, sizeof h->kernel, "%s %s %s", u.sysname, u.release, u.machine);
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c) {
                    c += 1 + (c[1] == ' ');
                    c[strcspn(c, "\n")] = '\0';
                    snprintf(h->cpu_model, sizeof h->cpu_model, "%s", c);
                }
                break;
            }
        fclose(f);
    }
    f = fopen("/proc/meminfo", "r");
    if (f) {
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) {
                h->mem_bytes = kb * 1024;
                break;
            }
        fclose(f);
    }
}
