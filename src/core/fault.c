/* fault.c — a run's fault schedule (core/fault.h). */
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"

int dg_fault_parse(const char *spec, dg_ns window_ns, struct dg_fault_spec *out, struct dg_err *err)
{
    (void)spec;
    (void)window_ns;
    (void)out;
    return dg_err_set(err, DG_ERR_USER, 0, "--fault: not built yet");
}

struct dg_fault_run *dg_faults_start(const struct dg_fault_spec *specs, int n, dg_ns window_start_ns,
                                     struct dg_err *err)
{
    (void)specs;
    (void)n;
    (void)window_start_ns;
    dg_err_set(err, DG_ERR_USER, 0, "--fault: not built yet");
    return NULL;
}

int dg_faults_finish(struct dg_fault_run *fr, struct dg_fault_event *out, int n)
{
    (void)fr;
    (void)out;
    (void)n;
    return 0;
}
