/* wlcli.c — lookups over a workload's command-line description (core/wlcli.h). Pure: no
 * printing, no database. */
#include "core/wlcli.h"

#include <stdlib.h>
#include <string.h>

const struct dg_wl_sub *dg_wl_sub_find(const struct dg_wl_cli *cli, const char *name)
{
    for (int i = 0; cli && name && i < cli->nsubs; i++)
        if (!strcmp(cli->subs[i].name, name))
            return &cli->subs[i];
    return NULL;
}

void dg_stored_run_free(struct dg_stored_run *r)
{
    free(r->targets);
    free(r->cluster);
    free(r->acks);
    r->targets = NULL;
    r->cluster = NULL;
    r->acks = NULL;
    r->nacks = 0;
    r->ntargets = 0;
}
