/* clock.c — monotonic and wall clocks. No state. */
#include "core/clock.h"

#include <stdio.h>
#include <time.h>

static dg_ns read_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (dg_ns)ts.tv_sec * DG_NS_PER_S + (dg_ns)ts.tv_nsec;
}

dg_ns dg_now_ns(void) { return read_clock(CLOCK_MONOTONIC); }
dg_ns dg_thread_cpu_ns(void) { return read_clock(CLOCK_THREAD_CPUTIME_ID); }
dg_ns dg_process_cpu_ns(void) { return read_clock(CLOCK_PROCESS_CPUTIME_ID); }

double dg_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void dg_wall_iso(double wall_s, char *buf, size_t n)
{
    time_t t = (time_t)wall_s;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
