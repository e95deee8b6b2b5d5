/* progress.h — what a run or a load shows of itself while it goes. On a terminal, one status
 * line redrawn in place each tick (phase, elapsed and total with the ETA, the headline figures
 * of the last 10 s, errors, retries, outages), cut to the terminal's width; elsewhere the plain
 * line every 10 s that logs and tests read, free of control characters. Formatting is pure (a
 * struct in, text out) so the unit tests need no terminal; the state is one small struct the
 * run owns and only the reporter (the main thread) touches. */
#ifndef DG_PROGRESS_H
#define DG_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/figures.h"
#include "core/runner.h"

/* --progress: a status line on a terminal and plain lines elsewhere, plain lines always, or
 * nothing. */
enum dg_progress_mode { DG_PROGRESS_AUTO = 0, DG_PROGRESS_LINE, DG_PROGRESS_NONE };
extern const char *const dg_progress_mode_names[]; /* NULL-terminated, in enum order */

/* How progress shows: not at all, plain lines, or the status line redrawn in place. */
enum dg_progress_view { DG_VIEW_NONE = 0, DG_VIEW_PLAIN, DG_VIEW_STATUS };
/* The view of a mode: quiet shows none; auto is the status line when the output is a tty. */
enum dg_progress_view dg_progress_view_of(int mode, int quiet, int tty);
/* The width of terminal fd in columns (TIOCGWINSZ), or 80 when it does not say. */
int dg_progress_width(int fd);

/* How often the plain line comes, and the span the status line's figures cover. */
#define DG_PROGRESS_PLAIN_S 10
#define DG_PROGRESS_RING 10

/* The counts a tick's figures read, of one type. */
struct dg_progress_counts {
    uint64_t committed, rollbacks, retries, errors;
};

struct dg_progress {
    /* Set by the owner before the first tick. */
    enum dg_progress_view view;
    const struct dg_figure_def *figs; /* the run's figures: the first two are shown */
    int nfigs;
    double total_s;      /* timed run: warm-up plus window; 0 for a counted run */
    uint64_t txns_total; /* counted run: the transactions of every virtual user */
    char step[48];       /* "step 3/7" of an experiment or a sweep, else "" */
    /* The reporter's: the last DG_PROGRESS_RING ticks' intervals, and the plain line's. */
    struct dg_progress_counts ring[DG_PROGRESS_RING][DG_MAX_TYPES];
    double ring_s[DG_PROGRESS_RING];
    int ring_at;
    struct dg_progress_counts plain[DG_MAX_TYPES];
    double plain_s;
    int plain_slot; /* the 10 s slot of the clock the last plain line was due in */
    int drawn;      /* a status line is on the screen, not yet ended with a newline */
};

/* Counts t's interval into the last 10 s and the plain line's. */
void dg_progress_take(struct dg_progress *p, const struct dg_tick *t);
/* The status line for t into buf (no control characters), at most width - 1 columns so the
 * terminal never wraps it. Returns its length. */
size_t dg_progress_status(const struct dg_progress *p, const struct dg_tick *t, int width, char *buf, size_t n);
/* The plain line ("[    10s] measure  ...", newline included) into buf when one is due at
 * t (every 10 s of the clock, with seconds to show), and resets its counts. Returns 1 when
 * written, else 0. */
int dg_progress_plain(struct dg_progress *p, const struct dg_tick *t, char *buf, size_t n);
/* A tick as p->view shows it, on out (the status line is redrawn: "\r" and erase to the end). */
void dg_progress_tick(struct dg_progress *p, const struct dg_tick *t, FILE *out);
/* Ends the status line with a newline if one is shown, so what follows does not overwrite it. */
void dg_progress_end(struct dg_progress *p, FILE *out);

/* A load's progress (rows in, bytes, units such as warehouses done of all). */
struct dg_load_tick {
    const char *unit; /* "warehouses" */
    int done, of;
    uint64_t rows, bytes;
    double elapsed_s;
    double eta_s; /* < 0: unknown */
};
/* The load's status line into buf, cut to width - 1 columns. Returns its length. */
size_t dg_progress_load_status(const struct dg_load_tick *l, int width, char *buf, size_t n);
/* "12s", "1m05s", "2h03m": whole seconds, rounded. */
void dg_progress_secs(double s, char *buf, size_t n);
/* Redraws a status line on out: carriage return, text, erase to the end of the line. */
void dg_progress_redraw(FILE *out, const char *line);

#endif
