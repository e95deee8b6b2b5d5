/* sigthread.h — what the core's load threads (pool.c, bulkpipe.c) share about signals and
 * waits; implemented in pool.c. Core only: a workload reaches threads through pool.h and
 * bulkpipe.h, never through this header (it would bring pthread.h with it). */
#ifndef DG_SIGTHREAD_H
#define DG_SIGTHREAD_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

/* For the core's own threads (pool.c, bulkpipe.c): SIGINT and SIGTERM blocked here and in
 * the threads started after (old: the mask to restore); taken one at a time with dg_sig_poll
 * (0 when none came within wait_ms); dg_sig_restore takes any still pending (into *stop, when
 * one came) and restores the mask. */
void dg_sig_block(sigset_t *sigs, sigset_t *old);
int dg_sig_poll(const sigset_t *sigs, long wait_ms);
void dg_sig_restore(const sigset_t *sigs, const sigset_t *old, atomic_int *stop);
/* A condition variable on the monotonic clock, and a wait of at most ms on it. */
void dg_cond_init_mono(pthread_cond_t *c);
void dg_cond_wait_ms(pthread_cond_t *c, pthread_mutex_t *m, long ms);

#endif
