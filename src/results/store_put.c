/* store_put.c — a finished run into the results database, in three transactions, the most
 * needed first, so that a results file that cannot grow (a full disk, a quota) keeps what it
 * can and says exactly what it did not:
 *   1. the run, its counts, histograms and figures, targets, faults and outages, audit, ranks;
 *   2. its per-second series, monitor points and replication series;
 *   3. the writes it acknowledged (run_ack: the biggest part, read only by a later audit).
 * When the first fails nothing is kept and the run has no id (the text then never names one).
 * Each one also writes, in the same transaction, the run's stored error as its own followed by
 * "not kept: " and the parts still to come, so the stored run says what it lacks whichever
 * fails; rec->unkept names what could not be kept, and why, for the caller's message. */
#include <stdio.h>
#include <string.h>

#include "results/store_internal.h"

static int begin(struct dg_store *s, struct dg_err *err) { return dg_store_exec(s, "BEGIN IMMEDIATE", err); }

static int commit_or_undo(struct dg_store *s, int failed, struct dg_err *err)
{
    if (!failed && dg_store_exec(s, "COMMIT", err) == 0)
        return 0;
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* The parts after the first, and what each is called when it could not be kept. */
enum { PART_SERIES, PART_ACKS, NPARTS };

static int has_part(const struct dg_run_record *r, int part)
{
    return part == PART_SERIES ? r->nseries || r->nmonitor || r->nrepl : r->nacks > 0;
}

static size_t part_name(const struct dg_run_record *r, int part, char *buf, size_t n)
{
    return (size_t)(part == PART_SERIES ? snprintf(buf, n, "its per-second series and monitor points")
                                        : snprintf(buf, n, "its %zu acknowledged writes: no audit of it can be made",
                                                   r->nacks));
}

/* Sets the stored error of run r to its own, then "not kept: " and the parts from `from` on:
 * each transaction ends with this, so the stored run says what it lacks whatever fails next. */
static int note_missing(struct dg_store *s, const struct dg_run_record *r, int from, struct dg_err *err)
{
    char note[sizeof r->error + sizeof r->unkept];
    size_t o = (size_t)snprintf(note, sizeof note, "%s", r->error);
    for (int p = from, first = 1; p < NPARTS && o < sizeof note; p++) {
        if (!has_part(r, p))
            continue;
        o += (size_t)snprintf(note + o, sizeof note - o, "%s", first ? (o ? "; " DG_NOT_KEPT : DG_NOT_KEPT) : "; ");
        if (o < sizeof note)
            o += part_name(r, p, note + o, sizeof note - o);
        first = 0;
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "UPDATE run SET error = ?2 WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        return dg_store_fail(err, s->db, "prepare");
    sqlite3_bind_int64(st, 1, r->id);
    dg_store_bind_text(st, 2, note);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : dg_store_fail(err, s->db, "update run");
    sqlite3_finalize(st);
    return rc;
}

/* Part 1: what the run is. A run kept by checkpoints as it went has its rows replaced by the
 * whole run's, same id. */
static int put_run(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    if (begin(s, err))
        return -1;
    int64_t id = r->id;
    int failed = (r->id > 0 && dg_store_delete_run(s, r->id, err)) || dg_store_run_row(s, r, err) ||
                 dg_store_put_txns(s, r, err) || dg_store_put_figures(s, r, err) ||
                 (r->ntargets && dg_store_put_targets(s, r, err)) || dg_store_put_faults(s, r, err) ||
                 dg_store_put_audit(s, r, err) || dg_store_put_ranks(s, r, err) || note_missing(s, r, 0, err);
    if (commit_or_undo(s, failed, err)) {
        r->id = id; /* the id an insert took was undone with it: never shown, never kept */
        return -1;
    }
    return 0;
}

/* Part `part` (its rows, and the stored note of what is still missing after it). */
static int put_part(struct dg_store *s, const struct dg_run_record *r, int part, struct dg_err *err)
{
    if (!has_part(r, part))
        return 0;
    if (begin(s, err))
        return -1;
    int failed = part == PART_SERIES
                     ? dg_store_put_series(s, r, 0, err) || dg_store_put_monitor(s, r, err) || dg_store_put_repl(s, r, err)
                     : dg_store_put_acks(s, r, err) != 0;
    return commit_or_undo(s, failed || note_missing(s, r, part + 1, err), err);
}

int dg_store_put(struct dg_store *s, struct dg_run_record *r, struct dg_err *err)
{
    r->unkept[0] = '\0';
    if (put_run(s, r, err))
        return -1;
    size_t o = 0;
    for (int p = 0; p < NPARTS && o < sizeof r->unkept; p++) {
        struct dg_err e;
        if (put_part(s, r, p, &e) == 0)
            continue;
        o += (size_t)snprintf(r->unkept + o, sizeof r->unkept - o, "%s", o ? "; " : "");
        if (o < sizeof r->unkept)
            o += part_name(r, p, r->unkept + o, sizeof r->unkept - o);
        if (o < sizeof r->unkept)
            o += (size_t)snprintf(r->unkept + o, sizeof r->unkept - o, " (%.200s)", e.msg);
    }
    return 0;
}
