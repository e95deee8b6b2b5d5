/* progress.c — the status line and the plain progress line of a run or a load (progress.h).
 * Every text here is ASCII, so a byte is a column and cutting to the width is cutting bytes. */
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/progress.h"

const char *const dg_progress_mode_names[] = {"auto", "line", "none", NULL};

enum dg_progress_view dg_progress_view_of(int mode, int quiet, int tty)
{
    if (quiet || mode == DG_PROGRESS_NONE)
        return DG_VIEW_NONE;
    return mode == DG_PROGRESS_AUTO && tty ? DG_VIEW_STATUS : DG_VIEW_PLAIN;
}

int dg_progress_width(int fd)
{
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

void dg_progress_secs(double s, char *buf, size_t n)
{
    long v = s > 0 ? (long)(s + 0.5) : 0;
    if (v < 60)
        snprintf(buf, n, "%lds", v);
    else if (v < 3600)
        snprintf(buf, n, "%ldm%02lds", v / 60, v % 60);
    else
        snprintf(buf, n, "%ldh%02ldm", v / 3600, v % 3600 / 60);
}

/* A line built in pieces; what does not fit is dropped (snprintf's truncation). */
struct line {
    char *buf;
    size_t n, len;
};

static void put(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct line *l, const char *fmt, ...)
{
    if (l->len + 1 >= l->n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(l->buf + l->len, l->n - l->len, fmt, ap);
    va_end(ap);
    if (w > 0)
        l->len = l->len + (size_t)w < l->n ? l->len + (size_t)w : l->n - 1;
}

/* Cuts the line to width - 1 columns: a terminal that gets a character in its last column
 * may wrap (or not, as it likes), and a wrapped line can no longer be redrawn with "\r". */
static size_t cut(struct line *l, int width)
{
    size_t max = width > 1 ? (size_t)width - 1 : 0;
    if (l->len > max) {
        l->len = max;
        l->buf[max] = '\0';
    }
    return l->len;
}

static void add_counts(struct dg_progress_counts *to, const struct dg_type_counts *c)
{
    to->committed += c->committed;
    to->rollbacks += c->rollbacks;
    to->retries += c->retries;
    to->errors += c->errors;
}

void dg_progress_take(struct dg_progress *p, const struct dg_tick *t)
{
    if (t->phase == DG_PHASE_CONNECT)
        return;
    struct dg_progress_counts *slot = p->ring[p->ring_at];
    memset(slot, 0, sizeof p->ring[0]);
    for (int k = 0; k < t->ntypes && k < DG_MAX_TYPES; k++) {
        add_counts(&slot[k], &t->interval[k]);
        add_counts(&p->plain[k], &t->interval[k]);
    }
    p->ring_s[p->ring_at] = t->interval_s;
    p->ring_at = (p->ring_at + 1) % DG_PROGRESS_RING;
    p->plain_s += t->interval_s;
}

/* The first two figures over counts of seconds s, as "LABEL VALUE" pairs: the run's headline
 * (TPM and NOPM, TPS and QPS...). A figure that cannot be had over s shows 0, as ever. */
static void put_figures(struct line *l, const struct dg_progress *p, const struct dg_progress_counts *pc,
                        int ntypes, double s, const char *fmt)
{
    struct dg_type_counts c[DG_MAX_TYPES];
    memset(c, 0, sizeof c);
    for (int k = 0; k < ntypes && k < DG_MAX_TYPES; k++)
        c[k] = (struct dg_type_counts){.committed = pc[k].committed, .rollbacks = pc[k].rollbacks,
                                       .retries = pc[k].retries, .errors = pc[k].errors};
    struct dg_fig_run fr = {.measured_s = s};
    for (int i = 0; i < 2 && i < p->nfigs; i++) {
        double v;
        if (dg_figure_value(&p->figs[i], c, ntypes, &fr, &v))
            v = 0;
        put(l, fmt, p->figs[i].label, p->figs[i].decimals, v);
    }
}

static void total_counts(const struct dg_tick *t, uint64_t *done, uint64_t *retries, uint64_t *errors)
{
    *done = *retries = *errors = 0;
    for (int k = 0; k < t->ntypes; k++) {
        *done += t->total[k].committed + t->total[k].rollbacks + t->total[k].errors;
        *retries += t->total[k].retries;
        *errors += t->total[k].errors;
    }
}

static const char *status_phase(enum dg_phase ph)
{
    return ph == DG_PHASE_DONE ? "stop" : dg_phase_name(ph);
}

/* "42s/1m00s ETA 18s": a timed run's from its window; a counted run's from the share of its
 * transactions done, at the rate they went so far ("?" before the first). */
static void put_times(struct line *l, const struct dg_progress *p, const struct dg_tick *t, uint64_t done)
{
    char el[24], tot[24], eta[24];
    dg_progress_secs(t->clock_s, el, sizeof el);
    if (p->total_s > 0) {
        dg_progress_secs(p->total_s, tot, sizeof tot);
        dg_progress_secs(p->total_s - t->clock_s, eta, sizeof eta);
        put(l, " %s/%s ETA %s", el, tot, t->phase == DG_PHASE_CONNECT ? "?" : eta);
        return;
    }
    double f = p->txns_total ? (double)done / (double)p->txns_total : 0;
    double spent = t->elapsed_s > 0 ? t->elapsed_s : t->clock_s; /* the seconds the counts cover */
    if (!(f > 0) || !(spent > 0)) {
        put(l, " %s/? ETA ?", el);
        return;
    }
    if (f > 1)
        f = 1;
    dg_progress_secs(spent / f, tot, sizeof tot);
    dg_progress_secs(spent * (1 - f) / f, eta, sizeof eta);
    put(l, " %s/%s ETA %s %.0f%%", el, tot, eta, 100 * f);
}

size_t dg_progress_status(const struct dg_progress *p, const struct dg_tick *t, int width, char *buf, size_t n)
{
    struct line l = {.buf = buf, .n = n};
    if (n)
        buf[0] = '\0';
    uint64_t done, retries, errors;
    total_counts(t, &done, &retries, &errors);
    if (p->step[0])
        put(&l, "%s ", p->step);
    put(&l, "%-7s", status_phase(t->phase));
    put_times(&l, p, t, done);
    if (t->phase != DG_PHASE_CONNECT) {
        struct dg_progress_counts sum[DG_MAX_TYPES];
        memset(sum, 0, sizeof sum);
        double s = 0;
        for (int i = 0; i < DG_PROGRESS_RING; i++) {
            s += p->ring_s[i];
            for (int k = 0; k < t->ntypes && k < DG_MAX_TYPES; k++)
                add_counts(&sum[k], &(struct dg_type_counts){.committed = p->ring[i][k].committed,
                                                             .rollbacks = p->ring[i][k].rollbacks,
                                                             .retries = p->ring[i][k].retries,
                                                             .errors = p->ring[i][k].errors});
        }
        put(&l, " |");
        put_figures(&l, p, sum, t->ntypes, s, " %s %.*f");
    }
    put(&l, " | errors %llu retries %llu | outages %d%s", (unsigned long long)errors, (unsigned long long)retries,
        t->outages, t->outage_open ? " (one open)" : "");
    return cut(&l, width);
}

int dg_progress_plain(struct dg_progress *p, const struct dg_tick *t, char *buf, size_t n)
{
    if (t->phase != DG_PHASE_WARMUP && t->phase != DG_PHASE_MEASURE)
        return 0;
    int slot = (int)(t->clock_s / DG_PROGRESS_PLAIN_S);
    if (slot <= p->plain_slot)
        return 0;
    p->plain_slot = slot;
    if (!(p->plain_s > 0)) /* nothing final since the last one: it goes in the next */
        return 0;
    struct line l = {.buf = buf, .n = n};
    uint64_t done, retries, errors;
    total_counts(t, &done, &retries, &errors);
    /* The format logs and tests have always read: keep it. */
    put(&l, "[%6.0fs] %-8s", t->elapsed_s, dg_phase_name(t->phase));
    put_figures(&l, p, p->plain, t->ntypes, p->plain_s, " %s %9.*f ");
    put(&l, " retries %llu  errors %llu\n", (unsigned long long)retries, (unsigned long long)errors);
    memset(p->plain, 0, sizeof p->plain);
    p->plain_s = 0;
    return 1;
}

void dg_progress_redraw(FILE *out, const char *line)
{
    fprintf(out, "\r%s\033[K", line);
    fflush(out);
}

void dg_progress_tick(struct dg_progress *p, const struct dg_tick *t, FILE *out)
{
    char buf[512];
    dg_progress_take(p, t);
    if (p->view == DG_VIEW_PLAIN && dg_progress_plain(p, t, buf, sizeof buf))
        fputs(buf, out);
    if (p->view != DG_VIEW_STATUS)
        return;
    dg_progress_status(p, t, dg_progress_width(fileno(out)), buf, sizeof buf);
    dg_progress_redraw(out, buf);
    p->drawn = 1;
}

void dg_progress_end(struct dg_progress *p, FILE *out)
{
    if (p->drawn)
        fputc('\n', out);
    p->drawn = 0;
}

size_t dg_progress_load_status(const struct dg_load_tick *lt, int width, char *buf, size_t n)
{
    struct line l = {.buf = buf, .n = n};
    if (n)
        buf[0] = '\0';
    char el[24], eta[24] = "?";
    dg_progress_secs(lt->elapsed_s, el, sizeof el);
    if (lt->eta_s >= 0)
        dg_progress_secs(lt->eta_s, eta, sizeof eta);
    double s = lt->elapsed_s > 0 ? lt->elapsed_s : 0;
    put(&l, "load    %s ETA %s | %d/%d %s | %llu rows, %.0f rows/s, %.1f MB/s", el, eta, lt->done, lt->of, lt->unit,
        (unsigned long long)lt->rows, s > 0 ? (double)lt->rows / s : 0, s > 0 ? (double)lt->bytes / 1e6 / s : 0);
    return cut(&l, width);
}
