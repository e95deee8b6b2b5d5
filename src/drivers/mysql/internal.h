/* internal.h — what the MariaDB/MySQL driver's files share: the connection, statement and
 * bulk records and the helpers between files. Not for use outside src/drivers/mysql/. */
#ifndef DG_MYSQL_INTERNAL_H
#define DG_MYSQL_INTERNAL_H

#include <mysql.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/buf.h"
#include "core/driver.h"
#include "core/list.h"
#include "core/numtext.h"
#include "core/secret.h"

#define MY_BULK_FLUSH_BYTES (1024u * 1024u) /* one LOAD DATA or INSERT per this much text */
#define MY_COL_FIRST_BYTES 256              /* a text column's buffer before it grows */

enum my_load { MY_LOAD_INFILE = 0, MY_LOAD_INSERT };

/* One result column: bound as LONGLONG, DOUBLE or STRING (decimals, text, dates). */
struct my_col {
    enum enum_field_types type; /* as bound */
    char *buf;                  /* STRING: grows on truncation; owned by the statement */
    size_t cap;
    unsigned long len;
    my_bool is_null, error;
    int64_t i;
    double d;
    char num[40]; /* text of a number column, made on demand */
};

struct dg_stmt {
    struct dg_conn *c;
    struct dg_link link; /* in c->stmts */
    MYSQL_STMT *st;
    char what[72]; /* start of the SQL, for messages */
    int nparams;
    MYSQL_BIND *pbind;   /* nparams */
    char (*ptext)[DG_DEC_TEXT_MAX]; /* per parameter: decimal text */
    my_bool *pnull;
    int ncols;
    MYSQL_BIND *rbind;   /* ncols */
    struct my_col *cols; /* ncols */
    int64_t changes;
    int streaming;  /* rows read as they come (no store_result) */
    int active;     /* an execute's rows are not finished */
    int late_bind;  /* columns known only after execute (CALL): bound again each execute */
};

struct dg_bulk {
    struct dg_conn *c;
    int ncols;
    enum my_load method;
    char *buf; /* the rows not yet sent (infile: tab-separated text; insert: VALUES tuples) */
    size_t len, cap;
    size_t sent;     /* infile: how much of buf the server has read */
    int64_t pending; /* rows in buf */
    char head[1536]; /* "LOAD DATA ... (cols)" or "INSERT INTO t (cols) VALUES " */
    char table[64];
};

struct dg_conn {
    MYSQL *my;
    struct dg_list stmts;
    struct dg_bulk *bulk;
    enum my_load load;
    struct dg_secrets secrets; /* password texts to scrub from every message */
    char where[280];           /* "host:port" of the URL's host list that took us */
    int wsrep;                 /* the server is a Galera node (wsrep_on), asked at connect */
    long long deadlocks_seen;  /* wsrep: its Innodb_deadlocks when last asked; -1 unknown */
    /* The session's wait_timeout (asked at connect; 0 unknown) and when the server last answered
     * (a coarse clock): a lost connection idle that long was the server's close (idle.c). */
    long wait_timeout_s;
    uint64_t answered_ns;
};

/* The coarse monotonic clock in ns (a few ms of resolution, a few ns to read): when the server
 * last answered, for telling an idle timeout. Once per statement, never a system call. */
static inline uint64_t dg_my_coarse_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static inline void dg_my_answered(struct dg_conn *c) { c->answered_ns = dg_my_coarse_ns(); }

/* idle.c: the session's wait_timeout, asked once at connect; and, for a lost connection
 * (2006, 2013) that had been idle at least that long, the cause closed_by_server with the idle
 * time and the limit added to err's message. */
void dg_my_idle_probe(struct dg_conn *c);
void dg_my_idle_judge(const struct dg_conn *c, unsigned code, struct dg_err *err);

/* conn.c: errors. All return -1. dg_my_err formats a message with secrets scrubbed;
 * dg_my_conn_err / dg_my_stmt_err take code, SQLSTATE and text from the library. */
__attribute__((format(printf, 5, 6))) int dg_my_err(const struct dg_conn *c, struct dg_err *err,
                                                    enum dg_err_class cls, unsigned code,
                                                    const char *fmt, ...);
int dg_my_conn_err(struct dg_conn *c, const char *what, struct dg_err *err);

/* stats.c: the monitor's calls (driver.h: cache_stats, server_local). */
int dg_my_cache_stats(struct dg_conn *c, uint64_t *hits, uint64_t *misses, struct dg_err *err);
int dg_my_server_local(struct dg_conn *c, char *data_dir, size_t n, long *pid, struct dg_err *err);
int dg_my_stmt_err(struct dg_stmt *s, const char *what, struct dg_err *err);
enum dg_err_class dg_my_classify(unsigned code);

/* wsrep.c: Galera. probe sets c->wsrep (0 when the server does not say); cause is the
 * retry cause of a 1213 on a wsrep node (at_commit: it came from COMMIT), after which the
 * connection's last error is gone; replication is the driver's slot. */
void dg_my_wsrep_probe(struct dg_conn *c);
enum dg_retry_cause dg_my_wsrep_cause(struct dg_conn *c, int at_commit);
int dg_my_replication(struct dg_conn *c, struct dg_repl_row *rows, int max, struct dg_err *err);

/* stmt.c */
void dg_my_stmt_free(struct dg_stmt *s);
int dg_my_prepare(struct dg_conn *c, const char *sql, int nparams, struct dg_stmt **out,
                  struct dg_err *err);
void dg_my_finalize(struct dg_stmt *s);
int dg_my_execute(struct dg_stmt *s, const struct dg_value *params, struct dg_err *err);
int dg_my_next_row(struct dg_stmt *s, struct dg_err *err);
void dg_my_reset(struct dg_stmt *s);
int64_t dg_my_changes(struct dg_stmt *s);
int dg_my_ncols(struct dg_stmt *s);
int dg_my_col_is_null(struct dg_stmt *s, int i);
int64_t dg_my_col_int(struct dg_stmt *s, int i);
double dg_my_col_double(struct dg_stmt *s, int i);
const char *dg_my_col_text(struct dg_stmt *s, int i, size_t *len);
int dg_my_set_streaming(struct dg_stmt *s, int on, struct dg_err *err);

/* bulk.c */
void dg_my_bulk_free(struct dg_bulk *b);
int dg_my_bulk_begin(struct dg_conn *c, const char *table, const char *const *cols, int ncols,
                     struct dg_bulk **out, struct dg_err *err);
int dg_my_bulk_row(struct dg_bulk *b, const struct dg_value *vals, struct dg_err *err);
int dg_my_bulk_end(struct dg_bulk *b, struct dg_err *err);
/* The LOCAL INFILE handler: reads come from the connection's open bulk load. */
void dg_my_infile_install(struct dg_conn *c);

#endif
