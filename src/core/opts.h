/* opts.h — parsers for option values (durations, counts, sizes) that name the option in
 * their error. Pure functions; no printing, no exit. */
#ifndef DG_OPTS_H
#define DG_OPTS_H

#include <stdint.h>

#include "core/clock.h"
#include "core/err.h"

/* "45s", "2m", "1h30m", "1500ms", or a bare number of seconds. */
int dg_parse_duration(const char *opt, const char *s, dg_ns *out, struct dg_err *err);
/* A whole number in [min, max]. */
int dg_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
                 struct dg_err *err);
int dg_parse_int(const char *opt, const char *s, int min, int max, int *out, struct dg_err *err);
/* A number in (min, max]. */
int dg_parse_double(const char *opt, const char *s, double min, double max, double *out,
                    struct dg_err *err);
/* "512M", "2G", "64k", bare bytes. */
int dg_parse_size(const char *opt, const char *s, uint64_t *out, struct dg_err *err);
/* Formats a duration for people: "1m30s", "45s", "250ms". */
void dg_format_duration(dg_ns ns, char *buf, int n);

#endif
