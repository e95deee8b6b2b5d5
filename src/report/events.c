/* events.c — what a stored run went through, as text and JSON: the faults set off and the
 * targets' outages (one line each, in order of time), the errors left in doubt, and the open
 * loop's schedule (arrivals, late, skipped) with its verdict. Formatting of a record only;
 * never asks which workload it is. */
#include "report/summary.h"

#include <string.h>

/* "target 2: " ("node 2 of cluster 1: ") for a run with several targets (1-based, as the
 * per-target table), else "". */
static const char *target_words(const struct dg_run_record *r, int target, char *buf, size_t n)
{
    buf[0] = '\0';
    if (r->ntargets > 1) {
        dg_target_label(r, target, buf, n > 2 ? n - 2 : n);
        strcat(buf, ": ");
    }
    return buf;
}

/* "after 3.6 s", or "never" for a time that did not come. */
static const char *after(double s, char *buf, size_t n)
{
    if (s < 0)
        snprintf(buf, n, "never");
    else
        snprintf(buf, n, "after %.1f s", s);
    return buf;
}

/* A cluster's stall: no node committed while some were up (core/stall.c). */
static void stall_line(FILE *out, const struct dg_outage *o)
{
    char back[32];
    fprintf(out, "  outage   cluster %d stalled: at %.1f s%s no node committed ", -o->target, o->start_s,
            o->start_s < 0 ? " (warm-up)" : "");
    if (o->duration_s >= 0)
        fprintf(out, "for %.1f s (nodes up, none failing), back to 90%% %s\n", o->duration_s,
                after(o->recovery_s, back, sizeof back));
    else
        fprintf(out, "until the run ended (nodes up, none failing)\n");
}

static void outage_line(FILE *out, const struct dg_run_record *r, const struct dg_outage *o)
{
    if (o->target < 0) {
        stall_line(out, o);
        return;
    }
    char who[48], first[32], back[32], len[48];
    if (o->duration_s >= 0)
        snprintf(len, sizeof len, "for %.1f s", o->duration_s);
    else
        snprintf(len, sizeof len, "not back when the run ended");
    fprintf(out, "  outage   %sat %.1f s%s %s, %llu error%s, %llu reconnect%s; first commit %s, back to 90%% %s",
            target_words(r, o->target, who, sizeof who), o->start_s, o->start_s < 0 ? " (warm-up)" : "", len,
            (unsigned long long)o->errors, o->errors == 1 ? "" : "s", (unsigned long long)o->reconnects,
            o->reconnects == 1 ? "" : "s", after(o->first_commit_s, first, sizeof first),
            after(o->recovery_s, back, sizeof back));
    if (o->back_on[0])
        fprintf(out, ", back on %s", o->back_on);
    fprintf(out, "\n");
}

/* "exit 0", "exit 137: signal 9" */
static const char *exit_words(int status, char *buf, size_t n)
{
    if (status > 128)
        snprintf(buf, n, "exit %d: signal %d", status, status - 128);
    else
        snprintf(buf, n, "exit %d", status);
    return buf;
}

static void fault_line(FILE *out, const struct dg_fault_event *f)
{
    char ex[48];
    if (f->exit_status < 0 && f->start_s < 0) {
        fprintf(out, "  fault    at %.1f s: %s (not run)\n", f->offset_s, f->command);
        return;
    }
    fprintf(out, "  fault    at %.1f s: %s (", f->start_s, f->command);
    if (f->end_s >= 0)
        fprintf(out, "ran %.1f s, ", f->end_s - f->start_s);
    else
        fprintf(out, "still running when the run ended, ");
    fprintf(out, "%s)\n", exit_words(f->exit_status, ex, sizeof ex));
}

/* The failover's RTO, recovery and RPO, and the audit behind the RPO. */
static void failover_text(FILE *out, const struct dg_run_record *r)
{
    struct dg_failover f;
    char who[32], rec[32];
    if (dg_run_failover(r, &f)) {
        fprintf(out, "  failover %sRTO ", target_words(r, f.target, who, sizeof who));
        if (f.rto_s >= 0)
            fprintf(out, "%.1f s", f.rto_s);
        else
            fprintf(out, "not over when the run ended");
        fprintf(out, " (no commit in between), recovery %s", after(f.recovery_s, rec, sizeof rec));
        if (!f.audited)
            fprintf(out, "; RPO not audited\n");
        else if (!f.lost)
            fprintf(out, "; RPO 0: no acknowledged write lost\n");
        else
            fprintf(out, "; RPO %lld acknowledged write%s lost, %.1f s of acknowledged work\n", (long long)f.lost,
                    f.lost == 1 ? "" : "s", f.lost_seconds);
    }
    if (!r->audited) {
        if (r->audit_not_made[0]) /* due, and no pass */
            fprintf(out, "  audit    NOT MADE: %s\n", r->audit_not_made);
        return;
    }
    const struct dg_audit_summary *a = &r->audit;
    fprintf(out, "  audit    %lld acknowledged, %lld found, %lld lost; %lld in doubt, %lld of them found",
            (long long)a->acknowledged, (long long)a->found, (long long)a->lost, (long long)a->in_doubt,
            (long long)a->in_doubt_found);
    if (a->lost)
        fprintf(out, "; the lost acknowledged from %.3f s to %.3f s", (double)a->lost_first_ms / 1e3,
                (double)a->lost_last_ms / 1e3);
    if (a->payment_lost)
        fprintf(out, "; money missing in %d warehouse%s", a->payment_lost, a->payment_lost == 1 ? "" : "s");
    fprintf(out, ": %s\n", a->pass ? "pass" : "FAIL");
}

static double fault_time(const struct dg_fault_event *f) { return f->start_s >= 0 ? f->start_s : f->offset_s; }

void dg_report_events_text(FILE *out, const struct dg_run_record *r)
{
    /* one timeline: both lists are in order of time; at the same moment the fault first (the
     * cause before what it did) */
    int i = 0, j = 0;
    while (i < r->nfaults || j < r->noutages) {
        if (j == r->noutages || (i < r->nfaults && fault_time(&r->faults[i]) <= r->outages[j].start_s))
            fault_line(out, &r->faults[i++]);
        else
            outage_line(out, r, &r->outages[j++]);
    }
    failover_text(out, r);
}

void dg_report_in_doubt_text(FILE *out, const struct dg_run_record *r)
{
    uint64_t n = dg_run_in_doubt(r), errors = 0;
    if (!n)
        return;
    for (int t = 0; t < r->ntypes; t++)
        errors += r->txn[t].errors;
    fprintf(out, "  in doubt %llu of the %llu errors (", (unsigned long long)n, (unsigned long long)errors);
    for (int t = 0, k = 0; t < r->ntypes; t++)
        if (r->txn[t].in_doubt)
            fprintf(out, "%s%s %llu", k++ ? ", " : "", r->txn[t].name, (unsigned long long)r->txn[t].in_doubt);
    fprintf(out, "): the connection was lost with the commit sent; they may have committed\n");
}

void dg_report_schedule_text(FILE *out, const struct dg_run_record *r)
{
    char a[32], b[32], c[32];
    if (strcmp(r->load_model, "rate") || !dg_run_schedule_counted(r))
        return;
    fprintf(out, "  schedule %s arrivals, %s late, %s skipped: %.2f%% late or skipped (at most 1%% keeps up; "
                 "late: started over %.0f ms after its intended time)\n",
            dg_report_thousands((double)r->arrivals, a, sizeof a), dg_report_thousands((double)r->late, b, sizeof b),
            dg_report_thousands((double)r->skipped, c, sizeof c), dg_run_late_pct(r),
            (double)DG_LATE_AFTER_NS / 1e6);
}

/* A time, or null for one that did not come (stored -1). */
static void add_time(cJSON *o, const char *key, double s)
{
    if (s < 0)
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, s);
}

/* "failover": {target, rto_s, recovery_s, lost, lost_seconds} (null where not known) and
 * "audit": what the audit after the run found, when one was made. */
static void failover_json(cJSON *o, const struct dg_run_record *r)
{
    struct dg_failover f;
    if (dg_run_failover(r, &f)) {
        cJSON *j = cJSON_AddObjectToObject(o, "failover");
        cJSON_AddNumberToObject(j, "target", f.target + 1);
        add_time(j, "rto_s", f.rto_s);
        add_time(j, "recovery_s", f.recovery_s);
        if (f.audited)
            cJSON_AddNumberToObject(j, "lost", (double)f.lost);
        else
            cJSON_AddNullToObject(j, "lost");
        add_time(j, "lost_seconds", f.lost_seconds);
    }
    if (!r->audited) {
        if (r->audit_not_made[0]) { /* due, not made: no figures, and no pass */
            cJSON *j = cJSON_AddObjectToObject(o, "audit");
            cJSON_AddBoolToObject(j, "made", 0);
            cJSON_AddStringToObject(j, "why", r->audit_not_made);
            cJSON_AddBoolToObject(j, "pass", 0);
        }
        return;
    }
    const struct dg_audit_summary *a = &r->audit;
    cJSON *j = cJSON_AddObjectToObject(o, "audit");
    cJSON_AddBoolToObject(j, "made", 1);
    cJSON_AddNumberToObject(j, "acknowledged", (double)a->acknowledged);
    cJSON_AddNumberToObject(j, "found", (double)a->found);
    cJSON_AddNumberToObject(j, "lost", (double)a->lost);
    cJSON_AddNumberToObject(j, "in_doubt", (double)a->in_doubt);
    cJSON_AddNumberToObject(j, "in_doubt_found", (double)a->in_doubt_found);
    if (a->lost) {
        cJSON_AddNumberToObject(j, "lost_first_ms", (double)a->lost_first_ms);
        cJSON_AddNumberToObject(j, "lost_last_ms", (double)a->lost_last_ms);
    } else {
        cJSON_AddNullToObject(j, "lost_first_ms");
        cJSON_AddNullToObject(j, "lost_last_ms");
    }
    cJSON_AddNumberToObject(j, "payment_lost", a->payment_lost);
    cJSON_AddBoolToObject(j, "pass", a->pass);
}

void dg_report_events_json(cJSON *o, const struct dg_run_record *r)
{
    cJSON *outages = cJSON_AddArrayToObject(o, "outages");
    for (int k = 0; k < r->noutages; k++) {
        const struct dg_outage *x = &r->outages[k];
        cJSON *j = cJSON_CreateObject();
        if (x->target < 0) { /* a cluster's stall: of no one target */
            cJSON_AddNullToObject(j, "target");
            cJSON_AddNumberToObject(j, "cluster", -x->target);
        } else {
            cJSON_AddNumberToObject(j, "target", x->target + 1); /* 1-based, as "targets" */
        }
        cJSON_AddBoolToObject(j, "stall", x->target < 0);
        if (dg_target_node(r, x->target)) {
            cJSON_AddNumberToObject(j, "cluster", r->targets[x->target].cluster);
            cJSON_AddNumberToObject(j, "node", dg_target_node(r, x->target));
        }
        cJSON_AddNumberToObject(j, "start_s", x->start_s);   /* negative in the warm-up */
        add_time(j, "duration_s", x->duration_s);
        cJSON_AddNumberToObject(j, "errors", (double)x->errors);
        cJSON_AddNumberToObject(j, "reconnects", (double)x->reconnects);
        add_time(j, "first_commit_s", x->first_commit_s);
        add_time(j, "recovery_s", x->recovery_s);
        add_time(j, "last_commit_s", x->last_commit_s);
        add_time(j, "rto_s", dg_outage_rto(x));
        if (x->back_on[0])
            cJSON_AddStringToObject(j, "back_on", x->back_on);
        else /* not known, or never back */
            cJSON_AddNullToObject(j, "back_on");
        cJSON_AddItemToArray(outages, j);
    }
    cJSON *faults = cJSON_AddArrayToObject(o, "faults");
    for (int k = 0; k < r->nfaults; k++) {
        const struct dg_fault_event *f = &r->faults[k];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "offset_s", f->offset_s);
        add_time(j, "start_s", f->start_s);
        add_time(j, "end_s", f->end_s);
        cJSON_AddNumberToObject(j, "exit_status", f->exit_status);
        cJSON_AddStringToObject(j, "command", f->command);
        cJSON_AddItemToArray(faults, j);
    }
    failover_json(o, r);
    if (!strcmp(r->load_model, "rate") && dg_run_schedule_counted(r)) {
        cJSON *s = cJSON_AddObjectToObject(o, "schedule");
        cJSON_AddNumberToObject(s, "arrivals", (double)r->arrivals);
        cJSON_AddNumberToObject(s, "late", (double)r->late);
        cJSON_AddNumberToObject(s, "skipped", (double)r->skipped);
    }
}
