/* storedrun.c (cmd) — a stored run as a workload's action reads it (struct dg_wl_act.read_run):
 * its summary columns, its targets in the run's order (redacted, as stored) and its
 * acknowledged writes, from the results file of --results. The workload never opens the store;
 * this never creates a results file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"

/* The run's targets into out: one per stored target, or the run's one target. */
static int copy_targets(const struct dg_run_record *rec, struct dg_stored_run *out, struct dg_err *err)
{
    int n = rec->ntargets > 0 ? rec->ntargets : 1;
    if (!(out->targets = calloc((size_t)n, sizeof *out->targets)) || !(out->cluster = calloc((size_t)n, sizeof *out->cluster)))
        return dg_err_set(err, DG_ERR_FATAL, 0, "out of memory");
    for (int k = 0; k < n; k++) {
        snprintf(out->targets[k], sizeof out->targets[k], "%s", rec->ntargets > 0 ? rec->targets[k].target : rec->target);
        out->cluster[k] = rec->ntargets > 0 ? rec->targets[k].cluster : 0;
    }
    out->ntargets = n;
    return 0;
}

int dg_cmd_read_run(const struct dg_wl_act *a, int64_t id, struct dg_stored_run *out, struct dg_err *err)
{
    const char *path = a->c->results;
    memset(out, 0, sizeof *out);
    if (access(path, R_OK) != 0)
        return dg_err_set(err, DG_ERR_USER, 0, "--results: no results database '%s' (%s)", path, strerror(errno));
    struct dg_store *s = NULL;
    struct dg_run_record rec = {0};
    if (dg_store_open(path, &s, err))
        return -1;
    int rc = dg_store_get(s, id, 0, &rec, err);
    if (rc == 0) {
        out->id = rec.id;
        snprintf(out->workload, sizeof out->workload, "%s", rec.workload);
        snprintf(out->status, sizeof out->status, "%s", rec.status);
        snprintf(out->started_at, sizeof out->started_at, "%s", rec.started_at);
        rc = copy_targets(&rec, out, err);
        dg_run_record_free(&rec);
    }
    if (rc == 0 && dg_store_get_acks(s, id, &out->acks, &out->nacks, err) < 0)
        rc = -1;
    dg_store_close(s);
    if (rc < 0)
        dg_stored_run_free(out);
    return rc;
}
