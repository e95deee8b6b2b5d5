/* clock.h — one monotonic nanosecond clock and wall-clock helpers.
 * Nothing here sleeps on a lock or allocates. */
#ifndef DG_CLOCK_H
#define DG_CLOCK_H

#include <stdint.h>
#include <stddef.h>

typedef uint64_t dg_ns; /* nanoseconds on CLOCK_MONOTONIC */

#define DG_NS_PER_US 1000ull
#define DG_NS_PER_MS 1000000ull
#define DG_NS_PER_S 1000000000ull

dg_ns dg_now_ns(void);
/* Seconds since the Unix epoch, as a double (for stored timestamps). */
double dg_wall_s(void);
/* Formats a wall-clock time as ISO 8601 UTC ("2026-12-02T10:27:10Z") into buf. */
void dg_wall_iso(double wall_s, char *buf, size_t n);
/* Thread CPU time and process CPU time in ns (user + system). */
dg_ns dg_thread_cpu_ns(void);
dg_ns dg_process_cpu_ns(void);

#endif
