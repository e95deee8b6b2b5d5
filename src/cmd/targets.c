/* targets.c — several targets at once for a run command: the split of virtual users over the
 * targets, and a run record's joined target, engine and per-target summaries. Measures
 * nothing (the runner splits the workers) and renders nothing (report/ does). */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/figures.h"

int dg_targets_split(const char *cmd, int n, int vus, int per_target, const int *cluster, int *out)
{
    if (per_target > 0) {
        for (int k = 0; k < n; k++)
            out[k] = per_target;
        return 0;
    }
    for (int k = 0; k < n; k++) {
        out[k] = vus / n + (k < vus % n);
        /* a node of a cluster may go without: its database has users on the other nodes */
        if (!out[k] && !cluster[k])
            return dg_usage_error(cmd, "--vus %d is fewer than the %d targets: each needs one "
                                       "(or give --vus-per-target N)", vus, n);
    }
    return 0;
}

/* Appends piece to out (n bytes) after sep unless an earlier target's (earlier[0..k)) is the
 * same text: a version may hold the separator ("10.11.19-MariaDB-0+deb12u1"). */
static void add_distinct(char *out, size_t n, const char *sep, const char *piece, const char *const *earlier, int k)
{
    for (int i = 0; i < k; i++)
        if (!strcmp(earlier[i], piece))
            return;
    size_t used = strlen(out);
    snprintf(out + used, n - used, "%s%s", used ? sep : "", piece);
}

static void join_targets(char *out, size_t n, const struct dg_target_src *src, int count)
{
    out[0] = '\0';
    for (int k = 0; k < count; k++) {
        size_t used = strlen(out), need = strlen(src[k].target->redacted) + 2;
        if (used + need + 24 >= n) { /* keep room for the tail */
            snprintf(out + used, n - used, " and %d more", count - k);
            return;
        }
        snprintf(out + used, n - used, "%s%s", k ? ", " : "", src[k].target->redacted);
    }
}

int dg_record_fill_targets(struct dg_run_record *rec, const struct dg_target_src *src, int n,
                           struct dg_run_result *res, const char *const *type_names,
                           const struct dg_figure_def *figs, int nfigs, const struct dg_fig_run *fr)
{
    join_targets(rec->target, sizeof rec->target, src, n);
    rec->engine[0] = rec->engine_version[0] = '\0';
    rec->warehouses = 0;
    const char *engines[DG_MAX_TARGETS], *versions[DG_MAX_TARGETS];
    for (int k = 0; k < n && k < DG_MAX_TARGETS; k++) {
        engines[k] = src[k].server->engine;
        versions[k] = src[k].server->version;
        add_distinct(rec->engine, sizeof rec->engine, "+", engines[k], engines, k);
        add_distinct(rec->engine_version, sizeof rec->engine_version, "+", versions[k], versions, k);
        /* The nodes of one cluster (next to each other) hold one database: counted once. */
        int cl = src[k].target->cluster;
        if (!cl || k == 0 || src[k - 1].target->cluster != cl)
            rec->warehouses += src[k].warehouses;
    }
    if (n < 1 || !(rec->targets = calloc((size_t)n, sizeof *rec->targets)))
        return -1;
    rec->ntargets = n;
    for (int k = 0; k < n && k < res->ntargets; k++) {
        struct dg_target_summary *t = &rec->targets[k];
        struct dg_target_result *tr = &res->targets[k];
        t->idx = k;
        snprintf(t->target, sizeof t->target, "%s", src[k].target->redacted);
        snprintf(t->engine, sizeof t->engine, "%s", src[k].server->engine);
        snprintf(t->engine_version, sizeof t->engine_version, "%s", src[k].server->version);
        t->settings_json = dg_settings_json(src[k].server);
        t->warehouses = src[k].warehouses;
        snprintf(t->role, sizeof t->role, "%s", src[k].role ? src[k].role : "");
        if ((t->cluster = src[k].target->cluster))
            snprintf(t->role, sizeof t->role, "node");
        t->vus = tr->workers;
        t->workers_failed = tr->workers_failed;
        t->ntypes = res->ntypes;
        dg_txn_summaries_fill(t->txn, res->ntypes, type_names, tr->counts, tr->hist, tr->service);
        t->nfigures = dg_figures_derive(figs, nfigs, tr->counts, res->ntypes, fr, t->figures);
        if (dg_target_summary_from_hists(t))
            return -1;
    }
    return 0;
}
