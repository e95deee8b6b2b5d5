/* server.h — `--live [ADDR:]PORT`: a small HTTP server inside dbgauge (libmicrohttpd, its own
 * thread) that serves documents the run's reporter publishes once a second:
 *   /          the live page (the report's charts of the run so far, redrawn each second)
 *   /section   the page's run section alone (what the page fetches each second)
 *   /metrics   OpenMetrics text (Prometheus)
 *   /api/run   the run so far as the report's JSON
 * A request copies the current document under a mutex the reporter holds only to swap a
 * pointer; no worker ever touches any of it. Knows nothing of runs: documents are bytes. */
#ifndef DG_LIVE_SERVER_H
#define DG_LIVE_SERVER_H

#include <stddef.h>

#include "core/err.h"

enum dg_live_doc {
    DG_LIVE_PAGE = 0, /* "/" */
    DG_LIVE_SECTION,  /* "/section" */
    DG_LIVE_METRICS,  /* "/metrics" */
    DG_LIVE_RUN,      /* "/api/run" */
    DG_LIVE_NDOCS
};

/* "[ADDR:]PORT" as --live takes it: ADDR an IPv4 address (default 127.0.0.1: another one
 * exposes the run, so it must be said), PORT 1..65535 (0: any free one, for tests). Returns 0
 * with the address filled, or -1 with err (DG_ERR_USER) naming the part that is wrong. */
struct dg_live_addr {
    char host[16];
    int port;
};
int dg_live_parse_addr(const char *spec, struct dg_live_addr *out, struct dg_err *err);

struct dg_live;

/* Binds and starts serving (every document "not yet" until set). Returns 0 with *out (the
 * caller's until dg_live_stop), or -1 with err: the port taken, no such address. */
int dg_live_start(const struct dg_live_addr *addr, struct dg_live **out, struct dg_err *err);
/* The port it listens on (the one the kernel chose for port 0). */
int dg_live_port(const struct dg_live *lv);
/* Replaces document d with text (len bytes, malloc'd: the server owns it from here, even on
 * failure). type is its Content-Type (a string literal). */
void dg_live_set(struct dg_live *lv, enum dg_live_doc d, char *text, size_t len, const char *type);
/* Whether a reader asked for the page, its section or /api/run in the last 5 s: the reporter
 * builds those (the run's record, its charts) only then. /metrics is always kept fresh. */
int dg_live_watched(struct dg_live *lv);
/* Requests served so far, of every document. */
unsigned long dg_live_requests(struct dg_live *lv);
/* Stops the thread, closes the port, frees everything. NULL is fine. */
void dg_live_stop(struct dg_live *lv);

#endif
