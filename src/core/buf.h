/* buf.h — the growable byte buffer the drivers share (parameter text, bulk rows, column
 * buffers): a char * and its capacity, grown by doubling. No database knowledge; allocates
 * only when asked to grow, never shrinks, never frees (the owner frees *buf). */
#ifndef DG_BUF_H
#define DG_BUF_H

#include <stddef.h>

/* Grows *buf (realloc) so it holds at least need bytes: capacity doubles from 256 until it
 * does. Returns 0 (*buf, *cap updated; the old contents kept), or -1 when out of memory
 * (*buf and *cap unchanged). Does nothing when need <= *cap. */
int dg_buf_reserve(char **buf, size_t *cap, size_t need);

#endif
