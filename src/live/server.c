/* server.c — the live HTTP server: libmicrohttpd on a socket bound here (so a taken port or a
 * foreign address is said precisely), one internal polling thread, documents swapped in by
 * the reporter. */
#include "live/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "core/clock.h"

struct doc {
    char *text; /* owned; NULL: not published yet */
    size_t len;
    const char *type;
    dg_ns at;   /* when it was published */
};

struct dg_live {
    struct MHD_Daemon *d;
    int port;
    pthread_mutex_t mu; /* guards docs: held to swap a pointer or copy a document, never longer */
    pthread_cond_t published; /* a document was set (a reader of a stale one waits for it) */
    struct doc docs[DG_LIVE_NDOCS];
    _Atomic dg_ns watched_at;     /* the last read of the page, its section or /api/run */
    _Atomic unsigned long served;
};

int dg_live_parse_addr(const char *spec, struct dg_live_addr *out, struct dg_err *err)
{
    memset(out, 0, sizeof *out);
    const char *colon = strrchr(spec, ':'), *port = colon ? colon + 1 : spec;
    size_t hlen = colon ? (size_t)(colon - spec) : 0;
    if (!colon) {
        snprintf(out->host, sizeof out->host, "127.0.0.1");
    } else {
        struct in_addr a;
        char host[64];
        if (hlen == 0 || hlen >= sizeof host)
            return dg_err_set(err, DG_ERR_USER, 0, "address '%.*s' is not an IPv4 address (ADDR:PORT, e.g. 127.0.0.1:9090)",
                              (int)(hlen < 64 ? hlen : 64), spec);
        memcpy(host, spec, hlen);
        host[hlen] = '\0';
        if (inet_pton(AF_INET, host, &a) != 1)
            return dg_err_set(err, DG_ERR_USER, 0, "address '%s' is not an IPv4 address (ADDR:PORT, e.g. 127.0.0.1:9090)", host);
        snprintf(out->host, sizeof out->host, "%s", host);
    }
    char *end;
    errno = 0;
    long p = strtol(port, &end, 10);
    if (!*port || *end || errno || p < 0 || p > 65535)
        return dg_err_set(err, DG_ERR_USER, 0, "port '%s' is not a number from 0 to 65535", port);
    out->port = (int)p;
    return 0;
}

/* The listening socket, bound here so that its failure has a reason to tell. */
static int listen_on(const struct dg_live_addr *addr, int *port, struct dg_err *err)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)addr->port)};
    inet_pton(AF_INET, addr->host, &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return dg_err_set(err, DG_ERR_FATAL, 0, "--live: cannot make a socket: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one); /* a port just closed (TIME_WAIT) may serve again */
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 32)) {
        int e = errno;
        close(fd);
        return dg_err_set(err, DG_ERR_USER, 0, "--live %s:%d: cannot listen there: %s%s", addr->host, addr->port,
                          strerror(e), e == EADDRINUSE ? " (another program has that port; pick another)" : "");
    }
    socklen_t len = sizeof sa;
    getsockname(fd, (struct sockaddr *)&sa, &len);
    *port = ntohs(sa.sin_port);
    return fd;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *text, size_t len,
                             const char *type)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static int doc_of(const char *url)
{
    static const char *const paths[DG_LIVE_NDOCS] = {"/", "/section", "/metrics", "/api/run"};
    for (int d = 0; d < DG_LIVE_NDOCS; d++)
        if (!strcmp(url, paths[d]))
            return d;
    return -1;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version, (void)upload, (void)upload_size, (void)con_cls;
    struct dg_live *lv = cls;
    static const char plain[] = "text/plain; charset=utf-8";
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n", 9, plain);
    int d = doc_of(url);
    if (d < 0)
        return reply(c, MHD_HTTP_NOT_FOUND, "not found: /, /metrics, /api/run\n", 34, plain);
    atomic_fetch_add_explicit(&lv->served, 1, memory_order_relaxed);
    dg_ns now = dg_now_ns();
    pthread_mutex_lock(&lv->mu);
    if (d != DG_LIVE_METRICS && d != DG_LIVE_PAGE) {
        /* Made only while someone reads them: the first read (or one after a pause) waits, on
         * this connection's own thread, up to 2 s for the reporter's next second. */
        atomic_store_explicit(&lv->watched_at, now, memory_order_relaxed);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += 2;
        while ((!lv->docs[d].text || now - lv->docs[d].at > 2 * DG_NS_PER_S) &&
               pthread_cond_timedwait(&lv->published, &lv->mu, &until) == 0)
            ;
    }
    enum MHD_Result ok = lv->docs[d].text
                             ? reply(c, MHD_HTTP_OK, lv->docs[d].text, lv->docs[d].len, lv->docs[d].type)
                             : reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "not yet: the run is starting\n", 29, plain);
    pthread_mutex_unlock(&lv->mu);
    return ok;
}

int dg_live_start(const struct dg_live_addr *addr, struct dg_live **out, struct dg_err *err)
{
    struct dg_live *lv = calloc(1, sizeof *lv);
    if (!lv)
        return dg_err_set(err, DG_ERR_FATAL, 0, "--live: out of memory");
    int fd = listen_on(addr, &lv->port, err);
    if (fd < 0) {
        free(lv);
        return -1;
    }
    pthread_mutex_init(&lv->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* dg_now_ns's clock */
    pthread_cond_init(&lv->published, &ca);
    pthread_condattr_destroy(&ca);
    /* A thread per connection (64 at most): a reader waiting for the next second holds up no other. */
    lv->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL, 0,
                             NULL, NULL, handle, lv,
                             MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
                             MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_END);
    if (!lv->d) {
        close(fd);
        pthread_cond_destroy(&lv->published);
        pthread_mutex_destroy(&lv->mu);
        free(lv);
        return dg_err_set(err, DG_ERR_FATAL, 0, "--live: the HTTP server (libmicrohttpd) did not start");
    }
    *out = lv;
    return 0;
}

int dg_live_port(const struct dg_live *lv)
{
    return lv->port;
}

void dg_live_set(struct dg_live *lv, enum dg_live_doc d, char *text, size_t len, const char *type)
{
    pthread_mutex_lock(&lv->mu);
    char *old = lv->docs[d].text;
    lv->docs[d] = (struct doc){.text = text, .len = len, .type = type, .at = dg_now_ns()};
    pthread_cond_broadcast(&lv->published);
    pthread_mutex_unlock(&lv->mu);
    free(old); /* outside the lock: a reader never waits on free */
}

int dg_live_watched(struct dg_live *lv)
{
    dg_ns at = atomic_load_explicit(&lv->watched_at, memory_order_relaxed);
    return at && dg_now_ns() - at < 5 * DG_NS_PER_S;
}

unsigned long dg_live_requests(struct dg_live *lv)
{
    return atomic_load_explicit(&lv->served, memory_order_relaxed);
}

void dg_live_stop(struct dg_live *lv)
{
    if (!lv)
        return;
    MHD_stop_daemon(lv->d); /* joins its thread and closes the listening socket */
    for (int d = 0; d < DG_LIVE_NDOCS; d++)
        free(lv->docs[d].text);
    pthread_cond_destroy(&lv->published);
    pthread_mutex_destroy(&lv->mu);
    free(lv);
}
