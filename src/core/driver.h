/* driver.h — the database driver interface: one table of function pointers per engine,
 * filled in src/drivers/, listed in one registry, and the dg_* wrappers through which the
 * core, cmd/ and the workloads call it (they never touch a slot themselves). No engine
 * header is ever included outside a driver.
 *
 * SQL text uses `?` placeholders; a driver rewrites them to its own form ($1 ...).
 * Every call reports failure through a caller-owned struct dg_err whose class the core acts on. */
#ifndef DG_DRIVER_H
#define DG_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "core/dialect.h"
#include "core/err.h"

enum dg_isolation {
    DG_ISO_DEFAULT = 0,
    DG_ISO_READ_COMMITTED,
    DG_ISO_REPEATABLE_READ,
    DG_ISO_SERIALIZABLE,
};

/* What a driver can do. The rule: a slot is the one truth about whether a driver can do
 * something. A required slot is never NULL; an optional slot is NULL where the driver cannot,
 * and its dg_* wrapper then gives the documented fallback or a DG_ERR_USER "not supported by
 * driver X" error (dg_driver_has tells beforehand). Capability bits state only what a slot
 * cannot: how a present slot behaves. */
#define DG_CAP_PIPELINE (1u << 0)       /* execute_batch / execute_calls save round trips */
#define DG_CAP_CACHE_PER_CONN (1u << 1) /* cache_stats counts the asking connection only */
#define DG_CAP_MEMORY_SESSION (1u << 2) /* set_memory sets one connection's cache: every connection needs it */
#define DG_CAP_MEMORY_LIVE (1u << 3)    /* set_memory takes effect at once, server-wide (no restart) */
#define DG_CAP_CLUSTER (1u << 4)        /* a multi-host URL may name the nodes of one multi-primary
                                         * cluster, each taking writes (Galera): --cluster */

enum dg_type {
    DG_T_NULL = 0,
    DG_T_INT,    /* i */
    DG_T_DOUBLE, /* d */
    DG_T_TEXT,   /* s.p, s.n (not necessarily NUL-terminated) */
    DG_T_DEC,    /* exact decimal: dec.v / 10^dec.scale (money in the loader) */
};

struct dg_value {
    enum dg_type type;
    union {
        int64_t i;
        double d;
        struct {
            const char *p;
            size_t n;
        } s;
        struct {
            int64_t v;
            int scale;
        } dec;
    };
};

static inline struct dg_value dg_int(int64_t i) { return (struct dg_value){.type = DG_T_INT, .i = i}; }
static inline struct dg_value dg_dbl(double d) { return (struct dg_value){.type = DG_T_DOUBLE, .d = d}; }
static inline struct dg_value dg_txt(const char *p, size_t n)
{
    return (struct dg_value){.type = DG_T_TEXT, .s = {p, n}};
}
static inline struct dg_value dg_dec(int64_t v, int scale)
{
    return (struct dg_value){.type = DG_T_DEC, .dec = {v, scale}};
}
static inline struct dg_value dg_null(void) { return (struct dg_value){.type = DG_T_NULL}; }

/* Options of a connection that are not part of the URL. */
struct dg_connect_opts {
    int create;              /* SQLite: create the file if missing (load); 0: it must exist */
    const char *application; /* shown to the server where it can (application_name) */
    uint64_t memory_bytes;   /* > 0 with DG_CAP_MEMORY_SESSION: set_memory right after connecting */
    int connect_timeout_s;   /* > 0: give up connecting after this long (where the driver can;
                              * the URL's own setting wins); 0: the driver's default */
};

/* Facts about the server, recorded with every run. Plain value: no pointers. */
#define DG_MAX_SETTINGS 32
struct dg_server_info {
    char engine[32];  /* "sqlite", "postgresql", ... */
    char version[64];
    /* Why this connection can write nothing ("a standby (in recovery)", "read_only=ON"), or ""
     * when it can or the driver cannot tell: a run that writes is refused before its window. */
    char read_only[96];
    int nsettings;
    struct {
        char name[48];
        char value[96];
    } settings[DG_MAX_SETTINGS];
};

/* One replication peer as a server sees it (the optional slot replication). A PostgreSQL
 * primary gives one row per standby (pg_stat_replication); a standby one row about itself
 * (name "self": replay lag from pg_last_xact_replay_timestamp(), bytes received and not yet
 * replayed); a Galera node one row about itself (name "self", its wsrep_* status). A figure
 * the engine does not have is -1, a text it does not have "". Plain value: no pointers. */
#define DG_REPL_MAX 8
struct dg_repl_row {
    char name[48];  /* a standby's application_name (or address), or "self" */
    char state[24]; /* "streaming", "catchup", ...; Galera wsrep_local_state_comment ("Synced") */
    char sync[12];  /* PostgreSQL sync_state: "async", "sync", "potential", "quorum"; else "" */
    double write_lag_s, flush_lag_s, replay_lag_s; /* PostgreSQL; a standby's own: replay lag */
    double lag_bytes;                              /* WAL sent (or received) and not replayed */
    /* Galera: wsrep_cluster_size, wsrep_flow_control_paused, wsrep_local_recv_queue,
     * wsrep_local_send_queue, wsrep_local_cert_failures (cumulative). */
    double cluster_size, flow_paused, recv_queue, send_queue, cert_failures;
    int behind; /* 1: the row's server has changes it has not applied yet. On a "self" row: this
                 * server is catching up (a Galera node not Synced or with a receive queue; a
                 * standby with WAL not replayed whose last replay is over a second old), what
                 * --sync-wait waits for; on a standby's row of a primary: WAL not replayed there */
};

/* Opaque per-driver objects. A driver's struct may carry anything; the core only passes them back. */
struct dg_conn;
struct dg_stmt;
struct dg_bulk;

/* Called once per row of one execution inside execute_batch: k is the index of the
 * parameter set (0..n-1); read columns with dg_col_* and the handle stmt was prepared on
 * (keep it in ctx). Return 0 to go on. */
typedef int (*dg_row_fn)(void *ctx, int k, struct dg_stmt *stmt);

/* One entry of execute_calls: stmt run nsets times with the parameter sets laid end to end
 * in params (nsets x nparams values; nparams as prepared). fn (may be NULL) gets every row,
 * k being the set index; a non-zero return skips the rest of that set's rows. changes is
 * written: the rows changed, summed over the sets. nsets 0 skips the entry. */
struct dg_call {
    struct dg_stmt *stmt;
    int nparams;
    const struct dg_value *params;
    int nsets;
    dg_row_fn fn;
    void *ctx;
    int64_t changes; /* out */
};

struct dg_driver {
    const char *name;
    const char *const *schemes; /* URL schemes, NULL-terminated: "sqlite", ... */
    enum dg_dialect dialect;    /* of every connection, unless conn_dialect says otherwise */
    unsigned caps;              /* DG_CAP_*: how present slots behave */

    /* ---- connection (required) ---- */
    /* url is the whole target ("sqlite:tpcc.db"). On success *out is the caller's until disconnect. */
    int (*connect)(const char *url, const struct dg_connect_opts *opts, struct dg_conn **out,
                   struct dg_err *err);
    void (*disconnect)(struct dg_conn *c);
    /* Runs one or more statements, discarding rows. */
    int (*exec)(struct dg_conn *c, const char *sql, struct dg_err *err);
    /* Optional: the SQL dialect of this connection, for drivers that reach several engines
     * (ODBC: decided from the server's DBMS name at connect). NULL: the static dialect. */
    enum dg_dialect (*conn_dialect)(struct dg_conn *c);

    /* ---- statements (required, except where marked) ---- */
    /* Prepares once; *out is owned by the connection and released by finalize or disconnect. */
    int (*prepare)(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                   struct dg_err *err);
    void (*finalize)(struct dg_stmt *s);
    /* Binds and executes. A statement without rows (INSERT, UPDATE) is complete on return;
     * rows of a query are then read with next_row until it returns 0. */
    int (*execute)(struct dg_stmt *s, const struct dg_value *params, struct dg_err *err);
    /* 1: a row is ready; 0: no more rows (the statement is reset); -1: error. */
    int (*next_row)(struct dg_stmt *s, struct dg_err *err);
    /* Abandons unread rows so the statement can run again. */
    void (*reset)(struct dg_stmt *s);
    /* Number of rows changed by the last execute of s (UPDATE/DELETE/INSERT). */
    int64_t (*changes)(struct dg_stmt *s);
    int (*ncols)(struct dg_stmt *s);
    int (*col_is_null)(struct dg_stmt *s, int i);
    int64_t (*col_int)(struct dg_stmt *s, int i);
    double (*col_double)(struct dg_stmt *s, int i);
    /* Valid until the next next_row/reset on s. *len may be NULL. */
    const char *(*col_text)(struct dg_stmt *s, int i, size_t *len);
    /* Optional: runs s once per parameter set (n sets of nparams values, laid end to end),
     * calling fn for every row; with DG_CAP_PIPELINE all n are sent before reading. NULL: the
     * core loops over execute/next_row. */
    int (*execute_batch)(struct dg_stmt *s, const struct dg_value *params, int n, dg_row_fn fn,
                         void *ctx, struct dg_err *err);
    /* Optional: runs calls[0..n) in order, statements of the connection each with its
     * parameter sets, and with commit also COMMITs, all in one round trip where the engine
     * allows (one pipeline, one sync). On the first error: err is that error (its class as
     * execute would give it), nothing after it runs, and the open transaction is left for the
     * caller's rollback. Rows are valid only inside fn. NULL: the core loops, then commits. */
    int (*execute_calls)(struct dg_conn *c, struct dg_call *calls, int n, int commit,
                         struct dg_err *err);
    /* Optional: asks that s's rows arrive as they come instead of all at once, so reading a
     * large result holds one row at a time. A streamed statement must be read to the end (or
     * reset) before its connection runs anything else. NULL: rows are held as the engine does
     * anyway (SQLite steps row by row already). */
    int (*set_streaming)(struct dg_stmt *s, int on, struct dg_err *err);

    /* ---- transactions (required) ---- */
    /* write: the transaction will write (SQLite takes the write lock up front). */
    int (*begin)(struct dg_conn *c, enum dg_isolation iso, int write, struct dg_err *err);
    int (*commit)(struct dg_conn *c, struct dg_err *err);
    int (*rollback)(struct dg_conn *c, struct dg_err *err);

    /* ---- bulk load (optional: all three or none) ---- */
    /* Into table (columns in order); rows go in with bulk_row, in order; bulk_end finishes
     * (flushes) and frees b whether it succeeds or not. */
    int (*bulk_begin)(struct dg_conn *c, const char *table, const char *const *cols, int ncols,
                      struct dg_bulk **out, struct dg_err *err);
    int (*bulk_row)(struct dg_bulk *b, const struct dg_value *vals, struct dg_err *err);
    int (*bulk_end)(struct dg_bulk *b, struct dg_err *err);
    /* Optional: tuning for a bulk load session (SQLite: its journal, cache and sync mode;
     * PostgreSQL: its commit and maintenance memory), and back to the connection's own.
     * When on and chosen is not NULL, each setting the session now loads with is added to
     * chosen (name, value), so a load can record what it ran with. NULL slot: none. */
    int (*load_mode)(struct dg_conn *c, int on, struct dg_server_info *chosen, struct dg_err *err);

    /* ---- server facts (server_info required, the others optional) ---- */
    int (*server_info)(struct dg_conn *c, struct dg_server_info *info, struct dg_err *err);
    /* The engine's buffer cache counters, cumulative: pages found in the cache and pages it
     * had to read. Where the cache is per connection (SQLite; DG_CAP_CACHE_PER_CONN) they are
     * this connection's; where it is the server's (PostgreSQL) they are the whole database's,
     * whichever session asks. Returns 0, or -1 with err when the engine will not tell. */
    int (*cache_stats)(struct dg_conn *c, uint64_t *hits, uint64_t *misses, struct dg_err *err);
    /* When the engine's data is on this machine: its data directory or file (data_dir) and
     * the server's process id (*pid; our own for an embedded engine; 0 when it cannot be known).
     * Returns 0, 1 when the server is remote or will not say (data_dir "" and *pid 0), -1
     * with err on failure. */
    int (*server_local)(struct dg_conn *c, char *data_dir, size_t n, long *pid, struct dg_err *err);
    /* Which server of the URL this connection reached, as "host:port" (a socket path for a
     * Unix socket, the file for an embedded engine): with several hosts in one target it says
     * where a reconnect landed. Never a password. Optional. */
    void (*conn_where)(struct dg_conn *c, char *buf, size_t n);
    /* The server's replication as it sees it now: up to max rows (struct dg_repl_row);
     * returns how many (0: the server does not replicate), -1 with err. Optional; called by
     * the monitor once a second on a connection of its own, never on the hot path. */
    int (*replication)(struct dg_conn *c, struct dg_repl_row *rows, int max, struct dg_err *err);

    /* ---- server control (optional) ---- */
    /* The engine's memory knob (bytes). DG_CAP_MEMORY_SESSION: it sets this connection's
     * cache; DG_CAP_MEMORY_LIVE: the server's, at once; neither: the server's, at its next
     * start (server_restart, or the user's restart command). */
    int (*set_memory)(struct dg_conn *c, uint64_t bytes, struct dg_err *err);
    /* The process id of the server that runs on data_dir (a data directory on this machine),
     * from the engine's own pid file; 0 when none can be found. No connection needed. */
    long (*server_pid)(const char *data_dir);
    /* Restarts the server of data_dir on this machine with the engine's control program ctl
     * (NULL: the driver's default path) and waits until it is up; as the directory's owner
     * when we are root. Says on stderr what it runs (never a password). */
    int (*server_restart)(const char *data_dir, const char *ctl, struct dg_err *err);

    /* ---- the target's form (optional) ---- */
    /* Checks url (the whole target) as connect reads it, without connecting, opening a file
     * or keeping anything: 0, or -1 with the DG_ERR_USER error connect would give for its form
     * (the fuzz targets of tests/fuzz/ call it on every URL they make). NULL: only connect can
     * tell. */
    int (*check_url)(const char *url, struct dg_err *err);
};

/* A target: which driver, the URL as given (may hold a password: never print it) and the
 * same URL with any password replaced by "***" (safe to show and store). */
struct dg_target {
    const struct dg_driver *drv;
    char url[1024];
    char redacted[1024];
    /* 0: a database of its own. k > 0: a node of cluster k (--cluster: the nodes of one
     * multi-primary database, e.g. Galera), the same data as the other nodes of k. */
    int cluster;
};

/* Registry (src/drivers/registry.c): the drivers built into this binary, NULL-terminated. */
extern const struct dg_driver *const dg_drivers[];

/* Finds the driver for url's scheme and fills t. Returns 0, or -1 with a DG_ERR_USER error
 * that names the scheme when no driver takes it. */
int dg_target_parse(const char *url, struct dg_target *t, struct dg_err *err);
/* t's URL checked by its driver's check_url without connecting (0 when the driver has none).
 * Returns 0, or -1 with a DG_ERR_USER error naming what is wrong. */
int dg_target_check(const struct dg_target *t, struct dg_err *err);
/* Where the password of a URL's user info (scheme://user:PASSWORD@host) starts, and its
 * length; NULL when there is none. Points into url. */
const char *dg_url_password(const char *url, size_t *len);
/* Writes url with the password part (user:PASS@, password=..., pwd=...) replaced by *** and
 * any control byte as \xNN (the form shown and stored is one printable line). */
void dg_redact_url(const char *url, char *out, size_t n);

/* ---- the wrappers: the only way cmd/, the core and the workloads reach a driver ----
 * Connection and statement calls take the connection handle; a statement is the driver's own
 * struct dg_stmt, used with the handle it was prepared on. The wrappers of required slots are
 * static inline single indirect calls (nothing added on the hot path: no lookup, no malloc);
 * the wrappers of optional slots say what happens when the slot is NULL. */
struct dg_conn_h {
    const struct dg_driver *drv;
    struct dg_conn *c;
};

/* The DG_ERR_USER error "OP is not supported by driver NAME"; returns -1. */
int dg_unsupported(const struct dg_driver *drv, const char *op, struct dg_err *err);

/* Whether driver d fills optional slot (a member name of struct dg_driver). */
#define dg_driver_has(d, slot) ((d)->slot != NULL)
static inline const char *dg_driver_name(const struct dg_driver *d) { return d->name; }
static inline unsigned dg_driver_caps(const struct dg_driver *d) { return d->caps; }
/* The driver's static dialect (a connection may know better: dg_conn_dialect). */
static inline enum dg_dialect dg_driver_dialect(const struct dg_driver *d) { return d->dialect; }

/* -- connection -- */
int dg_connect(const struct dg_target *t, const struct dg_connect_opts *opts, struct dg_conn_h *h,
               struct dg_err *err);
void dg_disconnect(struct dg_conn_h *h);
/* The dialect of a connected handle: the driver's conn_dialect, else its static dialect. */
enum dg_dialect dg_conn_dialect(const struct dg_conn_h *h);
static inline int dg_exec(const struct dg_conn_h *h, const char *sql, struct dg_err *err)
{
    return h->drv->exec(h->c, sql, err);
}
/* Runs a query expected to return one integer (first column of the first row). */
int dg_query_int(struct dg_conn_h *h, const char *sql, int64_t *out, struct dg_err *err);

/* -- statements -- */
static inline int dg_prepare(const struct dg_conn_h *h, const char *sql, int nparams, struct dg_stmt **out,
                             struct dg_err *err)
{
    return h->drv->prepare(h->c, sql, nparams, out, err);
}
/* Harmless on NULL. */
static inline void dg_finalize(const struct dg_conn_h *h, struct dg_stmt *s)
{
    if (s)
        h->drv->finalize(s);
}
static inline int dg_execute(const struct dg_conn_h *h, struct dg_stmt *s, const struct dg_value *params,
                             struct dg_err *err)
{
    return h->drv->execute(s, params, err);
}
static inline int dg_next_row(const struct dg_conn_h *h, struct dg_stmt *s, struct dg_err *err)
{
    return h->drv->next_row(s, err);
}
static inline void dg_reset(const struct dg_conn_h *h, struct dg_stmt *s) { h->drv->reset(s); }
static inline int64_t dg_changes(const struct dg_conn_h *h, struct dg_stmt *s) { return h->drv->changes(s); }
static inline int dg_ncols(const struct dg_conn_h *h, struct dg_stmt *s) { return h->drv->ncols(s); }
static inline int dg_col_is_null(const struct dg_conn_h *h, struct dg_stmt *s, int i)
{
    return h->drv->col_is_null(s, i);
}
static inline int64_t dg_col_int(const struct dg_conn_h *h, struct dg_stmt *s, int i)
{
    return h->drv->col_int(s, i);
}
static inline double dg_col_double(const struct dg_conn_h *h, struct dg_stmt *s, int i)
{
    return h->drv->col_double(s, i);
}
/* Valid until the next dg_next_row/dg_reset on s. len may be NULL. */
static inline const char *dg_col_text(const struct dg_conn_h *h, struct dg_stmt *s, int i, size_t *len)
{
    return h->drv->col_text(s, i, len);
}
/* execute_batch, or the plain loop for drivers without it. */
int dg_execute_batch(const struct dg_conn_h *h, struct dg_stmt *s, int nparams,
                     const struct dg_value *params, int n, dg_row_fn fn, void *ctx,
                     struct dg_err *err);
/* execute_calls, or for drivers without it execute/next_row loops in order and then commit.
 * With commit, a DG_ERR_CONN is in doubt (err->in_doubt = 1) when the COMMIT may have left:
 * always with the driver's execute_calls (it sends the calls and the COMMIT together), only
 * from the COMMIT itself in the core's loop. */
int dg_execute_calls(const struct dg_conn_h *h, struct dg_call *calls, int n, int commit,
                     struct dg_err *err);
/* The calls in order, each parameter set one execute + next_row loop (no commit): what
 * dg_execute_calls does for drivers without execute_calls, and what such a driver may fall
 * back on itself (hence the driver, not a handle). */
int dg_execute_calls_each(const struct dg_driver *drv, struct dg_call *calls, int n, struct dg_err *err);
/* set_streaming; without the slot 0 (rows come as the engine gives them). */
int dg_set_streaming(const struct dg_conn_h *h, struct dg_stmt *s, int on, struct dg_err *err);

/* -- transactions -- */
static inline int dg_begin(const struct dg_conn_h *h, enum dg_isolation iso, int write, struct dg_err *err)
{
    return h->drv->begin(h->c, iso, write, err);
}
/* A connection lost once COMMIT was sent leaves the transaction in doubt: it may have
 * committed (the server wrote it, its answer never came). The client cannot tell a COMMIT
 * that never left from one whose answer was lost, so every DG_ERR_CONN of a commit is in
 * doubt: err->in_doubt = 1. (The test is on the error path only: nothing on a success.) */
static inline int dg_commit(const struct dg_conn_h *h, struct dg_err *err)
{
    int rc = h->drv->commit(h->c, err);
    if (rc && err && err->cls == DG_ERR_CONN)
        err->in_doubt = 1;
    return rc;
}
static inline int dg_rollback(const struct dg_conn_h *h, struct dg_err *err)
{
    return h->drv->rollback(h->c, err);
}

/* -- bulk load -- */
/* bulk_begin; without the slot a DG_ERR_USER "not supported" error. */
int dg_bulk_begin(const struct dg_conn_h *h, const char *table, const char *const *cols, int ncols,
                  struct dg_bulk **out, struct dg_err *err);
static inline int dg_bulk_row(const struct dg_conn_h *h, struct dg_bulk *b, const struct dg_value *vals,
                              struct dg_err *err)
{
    return h->drv->bulk_row(b, vals, err);
}
static inline int dg_bulk_end(const struct dg_conn_h *h, struct dg_bulk *b, struct dg_err *err)
{
    return h->drv->bulk_end(b, err);
}
/* load_mode; without the slot 0 (nothing to tune). */
int dg_load_mode(const struct dg_conn_h *h, int on, struct dg_server_info *chosen, struct dg_err *err);

/* -- server facts -- */
int dg_server_info(const struct dg_conn_h *h, struct dg_server_info *info, struct dg_err *err);
/* cache_stats; without the slot -1 with a DG_ERR_USER "not supported" error. */
int dg_cache_stats(const struct dg_conn_h *h, uint64_t *hits, uint64_t *misses, struct dg_err *err);
/* server_local; without the slot 1 (the server will not say: data_dir "", *pid 0). */
int dg_server_local(const struct dg_conn_h *h, char *data_dir, size_t n, long *pid, struct dg_err *err);

/* conn_where; without the slot "" (the driver does not say). */
void dg_conn_where(const struct dg_conn_h *h, char *buf, size_t n);

/* replication; without the slot 0 (nothing replicated, as far as the driver can tell). */
int dg_replication(const struct dg_conn_h *h, struct dg_repl_row *rows, int max, struct dg_err *err);

/* -- server control -- */
/* set_memory; without the slot -1 with a DG_ERR_USER "not supported" error. */
int dg_set_memory(const struct dg_conn_h *h, uint64_t bytes, struct dg_err *err);
/* The built-in driver that controls local servers of engine d (it fills server_restart):
 * a server reached through another driver (ODBC to PostgreSQL) is controlled as its engine's
 * own driver does it. NULL when this build has none. Static: never freed. */
const struct dg_driver *dg_server_ctl_driver(enum dg_dialect d);
/* server_pid of drv (may be NULL); 0 without it or its slot. */
long dg_server_pid(const struct dg_driver *drv, const char *data_dir);
/* server_restart of drv (may be NULL); without it or its slot -1 with a DG_ERR_USER error. */
int dg_server_restart(const struct dg_driver *drv, const char *data_dir, const char *ctl, struct dg_err *err);

const char *dg_isolation_name(enum dg_isolation iso);
void dg_server_info_add(struct dg_server_info *info, const char *name, const char *value);
/* For a driver's load_mode: dialect d's load settings (core/dialect.h) on session c, each
 * statement run by exec; on: each set, then named in chosen (when given); off: the server's
 * values back. 0, or -1 with err (exec's, or a setting too long to write). */
int dg_load_settings_run(enum dg_dialect d, int on, struct dg_conn *c,
                         int (*exec)(struct dg_conn *c, const char *sql, struct dg_err *err),
                         struct dg_server_info *chosen, struct dg_err *err);

#endif
