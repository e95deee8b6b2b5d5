/* page.h — the live page's HTML (served at "/"): the report's frame and a script that swaps in
 * the run's section from /section each second and draws its charts again. */
#ifndef DG_LIVE_PAGE_H
#define DG_LIVE_PAGE_H

#include <stddef.h>

/* The page (malloc'd; its length in *len), or NULL out of memory. */
char *dg_live_page(const char *title, const char *subtitle, size_t *len);

#endif
