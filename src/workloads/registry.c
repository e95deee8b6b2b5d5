/* registry.c — the workloads built into this binary: one line each. Adding a workload is
 * its folder, one line here and its files in meson.build; nothing else names it. */
#include <stddef.h>
#include <string.h>

#include "core/workload.h"

extern const struct dg_workload tpcc_workload, stress_workload, oltp_workload;

const struct dg_workload *const dg_workloads[] = {
    &tpcc_workload,
    &stress_workload,
    &oltp_workload,
    NULL,
};

const struct dg_workload *dg_workload_find(const char *name)
{
    for (int i = 0; dg_workloads[i]; i++)
        if (!strcmp(dg_workloads[i]->name, name))
            return dg_workloads[i];
    return NULL;
}
