/* runmerge.h — one run's result from several processes (MPI ranks): each rank's struct
 * dg_run_result packed into bytes, sent to rank 0, unpacked and merged there exactly:
 * counts summed, histograms merged by adding buckets (never by averaging percentiles), the
 * per-second series merged by second, per-target shares summed, outages of one target seen by
 * several ranks made one, acknowledged writes put together. Knows no transport: dist/ sends
 * the bytes. The ranks run the same binary, so the layout is the native one (checked by a
 * header carrying the sizes of the structs). */
#ifndef DG_RUNMERGE_H
#define DG_RUNMERGE_H

#include <stddef.h>

#include "core/runner.h"

/* Packs res into a malloc'd buffer (*out, *len; the caller frees). Returns 0, or -1 out of memory. */
int dg_result_pack(const struct dg_run_result *res, unsigned char **out, size_t *len);

/* Unpacks a buffer from dg_result_pack into res (zeroed first; free it with
 * dg_run_result_free). Returns 0, or -1 (malformed, or from another build, or out of memory). */
int dg_result_unpack(const unsigned char *buf, size_t len, struct dg_run_result *res);

/* into += from, for the ranks of one run (same workload, targets and load model). The
 * per-second percentiles of a merged second are the worst rank's (an upper bound: the
 * per-second histograms are not kept); the window's percentiles come from the merged
 * histograms and are exact. Returns 0, or -1 out of memory (into is then partly merged). */
int dg_result_merge(struct dg_run_result *into, const struct dg_run_result *from);

#endif
