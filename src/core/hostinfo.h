/* hostinfo.h — facts about the client machine recorded with every run. Reads /proc and
 * uname once; no state. */
#ifndef DG_HOSTINFO_H
#define DG_HOSTINFO_H

#include <stdint.h>

struct dg_hostinfo {
    char hostname[64];
    char cpu_model[128];
    int cores;
    uint64_t mem_bytes;
    char kernel[128];
};

void dg_hostinfo_read(struct dg_hostinfo *h);

#endif
