/* procid.h — who a process is on this host, in a form that outlives it: the boot, the pid
 * and the pid's start time, so a pid reused after the process ended (or after a reboot)
 * is not taken for it. A run that keeps its figures as it goes stores its own; a reader
 * asks whether that process still lives to tell a running run from a lost one. */
#ifndef DG_PROCID_H
#define DG_PROCID_H

#include <stddef.h>

#define DG_PROCID_LEN 64
#define DG_CLOCK_ID_LEN 128 /* dg_clock_id's text, its end included */

/* This boot's id (/proc/sys/kernel/random/boot_id) into out; 0, or -1 when /proc cannot tell. */
int dg_boot_id(char *out, size_t n);
/* Which monotonic clock this process reads: the boot id and its time namespace's offset. Two
 * processes with the same one read the same CLOCK_MONOTONIC; "" when /proc cannot tell. */
void dg_clock_id(char *out, size_t n);
/* This process's identity ("BOOT-ID:PID:START"), or "" when /proc cannot tell. */
void dg_procid_self(char *out, size_t n);
/* 1: the process is alive on this host; 0: it is not (ended, or another boot); -1: the
 * identity is not one of this form (cannot tell). */
int dg_procid_alive(const char *id);

#endif
