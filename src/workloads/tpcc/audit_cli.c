/* audit_cli.c — `dbgauge tpcc audit RUN [--target URL]... [--results PATH] [--json]`: reads run
 * RUN through cmd/ (struct dg_wl_act.read_run), connects to its targets (the stored ones, or
 * those given, in the run's order, or one per cluster for a run of --cluster nodes; a node
 * that does not answer is read on a live node of its cluster) and says what
 * tpcc_audit_check found (audit.c). Returns 1
 * (exit 1) when something acknowledged was lost; a DG_ERR_USER error (exit 2) for a bad or
 * unknown run id, a run that is not TPC-C, targets that do not fit the run, a target that
 * cannot be reached. Never opens the store, never exits. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/wlcli.h"
#include "workloads/tpcc/tpcc.h"

static int parse_run_id(const struct dg_wl_act *a, int64_t *id, struct dg_err *err)
{
    if (a->argc != 1)
        return dg_err_set(err, DG_ERR_USER, 0, "expected one run id: dbgauge tpcc audit RUN [--target URL]...");
    const char *s = a->argv[0];
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v <= 0 || s[0] == '+' || s[0] == ' ')
        return dg_err_set(err, DG_ERR_USER, 0, "RUN '%.60s' is not a run id (a number from 1 on: see dbgauge runs)", s);
    *id = v;
    return 0;
}

/* in with every password the store hid ("user:***@", "KEY=***") taken out, so that the
 * engine's own means (PGPASSWORD, ~/.pgpass, MYSQL_PWD, DG_ODBC_PASSWORD) can supply it.
 * Returns 1 when one was taken out. */
static int unhide(const char *in, char *out, size_t n)
{
    size_t o = 0, len;
    int hidden = 0;
    const char *pw = dg_url_password(in, &len);
    for (const char *p = in; *p && o + 1 < n;) {
        if (pw && p == pw - 1 && len == 3 && !strncmp(pw, "***", 3)) { /* ":***" before '@' */
            p += 4, hidden = 1;
            continue;
        }
        if (p[0] == '=' && !strncmp(p + 1, "***", 3) && strchr(";&", p[4] ? p[4] : ';')) {
            while (o > 0 && out[o - 1] != ';' && out[o - 1] != '&' && out[o - 1] != '?')
                o--; /* the key goes too */
            p += 4 + (p[4] != '\0');
            hidden = 1;
            continue;
        }
        out[o++] = *p++;
    }
    out[o] = '\0';
    return hidden;
}

/* The clusters of run r when every target is a node of one (Galera: --cluster), else 0. */
static int clusters_of(const struct dg_stored_run *r)
{
    int nc = 0;
    for (int k = 0; k < r->ntargets; k++) {
        if (!r->cluster || r->cluster[k] <= 0)
            return 0;
        nc = r->cluster[k] > nc ? r->cluster[k] : nc;
    }
    return nc;
}

/* The URL that reaches target j of run r: the j-th --target, the --target of its cluster (one
 * per cluster given), or the run's own (1 when its password is hidden). */
static int url_of(const struct dg_wl_act *a, const struct dg_stored_run *r, int j, char *url, size_t n)
{
    if (a->c->ntargets == r->ntargets)
        snprintf(url, n, "%s", a->c->targets[j]);
    else if (a->c->ntargets)
        snprintf(url, n, "%s", a->c->targets[r->cluster[j] - 1]);
    else
        return unhide(r->targets[j], url, n);
    return 0;
}

/* Connects h to target j of run r; shown: its redacted URL. -2 for a URL that does not parse. */
static int connect_to(const struct dg_wl_act *a, const struct dg_stored_run *r, int j, struct dg_conn_h *h,
                      char *shown, size_t n, struct dg_err *err)
{
    char url[1024];
    int hidden = url_of(a, r, j, url, sizeof url);
    struct dg_target t;
    struct dg_err e;
    if (dg_target_parse(url, &t, &e)) {
        dg_err_set(err, DG_ERR_USER, 0, "%s%s", a->c->ntargets ? "--target: " : "the run's target: ", e.msg);
        return -2;
    }
    snprintf(shown, n, "%s", t.redacted);
    if (dg_connect(&t, NULL, h, err)) {
        if (hidden) { /* the store keeps no password */
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            dg_err_set(err, err->cls, err->code, "%.300s (run %lld's stored target hides its password: give it "
                                                 "with --target URL)", msg, (long long)r->id);
        }
        return -1;
    }
    return 0;
}

/* Connects to target k of run r and adds its audit to res. A node of a cluster that does not
 * answer is read on another node of it that does (one database: any node answers for all). */
static int audit_target(const struct dg_wl_act *a, const struct dg_stored_run *r, int k, struct tpcc_audit *res,
                        char *shown, size_t n, struct dg_err *err)
{
    struct dg_conn_h h;
    int rc = connect_to(a, r, k, &h, shown, n, err);
    for (int i = 1; rc == -1 && clusters_of(r) && i < r->ntargets; i++) {
        int j = (k + i) % r->ntargets;
        char peer[1024];
        struct dg_err e;
        if (r->cluster[j] != r->cluster[k] || connect_to(a, r, j, &h, peer, sizeof peer, &e))
            continue;
        size_t used = strlen(shown);
        snprintf(shown + used, n - used, " (does not answer: %.200s; read on %s, a node of the same cluster)", err->msg,
                 peer);
        rc = 0;
    }
    if (rc)
        return -1;
    rc = tpcc_audit_check(&h, k, r->acks, r->nacks, res, err);
    dg_disconnect(&h);
    return rc;
}

static const char *verdict_text(int v)
{
    switch (v) {
    case 0: return "ok";
    case -1: return "LOST";
    case 1: return "more than dbgauge wrote (another run since?)";
    default: return "no baseline: not judged";
    }
}

/* "target K, " (1-based) when the run had several targets, else "". */
static const char *target_of(char *buf, size_t n, int ntargets, int target)
{
    if (ntargets < 2)
        return "";
    snprintf(buf, n, "target %d, ", target + 1);
    return buf;
}

static void print_text(FILE *out, const struct dg_stored_run *r, const struct tpcc_audit *res, int ntargets)
{
    char tb[24];
    fprintf(out, "  New-Order: %llu acknowledged, %llu found, %llu lost; %llu in doubt, %llu of them found",
            (unsigned long long)res->acknowledged, (unsigned long long)res->found, (unsigned long long)res->lost,
            (unsigned long long)res->in_doubt, (unsigned long long)res->in_doubt_found);
    if (res->in_doubt_no_key)
        fprintf(out, " (and %llu in doubt whose order id never came back)", (unsigned long long)res->in_doubt_no_key);
    fprintf(out, "\n");
    if (res->lost)
        fprintf(out, "  lost: acknowledged from %.3f s to %.3f s of the run (from the measured window's start)\n",
                (double)res->lost_first_ms / 1000.0, (double)res->lost_last_ms / 1000.0);
    for (int i = 0; i < res->nkeys; i++) {
        const struct tpcc_audit_lost *l = &res->keys[i];
        fprintf(out, "    %swarehouse %u district %u order %u: ", target_of(tb, sizeof tb, ntargets, l->target), l->w,
                l->d, l->o_id);
        if (l->lines_found < 0)
            fprintf(out, "no such order");
        else
            fprintf(out, "%d of its %d lines", l->lines_found, l->lines_acked);
        fprintf(out, " (%s at %.3f s)\n", l->in_doubt ? "in doubt, found torn" : "acknowledged", (double)l->t_ms / 1000.0);
    }
    if (res->lost > (uint64_t)res->nkeys)
        fprintf(out, "    ... and %llu more\n", (unsigned long long)(res->lost - (uint64_t)res->nkeys));
    fprintf(out, "  Payment: %llu acknowledged, %llu in doubt\n", (unsigned long long)res->payments,
            (unsigned long long)res->payments_in_doubt);
    for (int i = 0; i < res->nwh; i++) {
        const struct tpcc_audit_wh *w = &res->wh[i];
        int v = tpcc_audit_wh_verdict(w);
        long long found = w->now - w->baseline;
        fprintf(out, "    %swarehouse %u: history %s%lld.%02lld since the run began, %lld.%02lld acknowledged"
                     " (+%lld.%02lld in doubt): %s\n",
                target_of(tb, sizeof tb, ntargets, w->target), w->w, found < 0 ? "-" : "+", llabs(found) / 100,
                llabs(found) % 100, (long long)w->acked / 100, (long long)w->acked % 100,
                (long long)w->in_doubt / 100, (long long)w->in_doubt % 100, verdict_text(v));
    }
    if (!res->acknowledged && !res->in_doubt && !res->in_doubt_no_key && !res->payments && !res->nwh)
        fprintf(out, "  run %lld kept no acknowledged write (stored before acknowledged writes were kept?)\n",
                (long long)r->id);
}

static void add_json(cJSON *j, const struct dg_stored_run *r, const struct tpcc_audit *res)
{
    cJSON_AddNumberToObject(j, "run", (double)r->id);
    cJSON_AddNumberToObject(j, "acknowledged", (double)res->acknowledged);
    cJSON_AddNumberToObject(j, "found", (double)res->found);
    cJSON_AddNumberToObject(j, "lost", (double)res->lost);
    cJSON_AddNumberToObject(j, "in_doubt", (double)res->in_doubt);
    cJSON_AddNumberToObject(j, "in_doubt_found", (double)res->in_doubt_found);
    cJSON_AddNumberToObject(j, "in_doubt_no_key", (double)res->in_doubt_no_key);
    if (res->lost) {
        cJSON_AddNumberToObject(j, "lost_first_ms", (double)res->lost_first_ms);
        cJSON_AddNumberToObject(j, "lost_last_ms", (double)res->lost_last_ms);
    } else {
        cJSON_AddNullToObject(j, "lost_first_ms");
        cJSON_AddNullToObject(j, "lost_last_ms");
    }
    cJSON *keys = cJSON_AddArrayToObject(j, "lost_keys");
    for (int i = 0; i < res->nkeys; i++) {
        const struct tpcc_audit_lost *l = &res->keys[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "target", l->target + 1); /* 1-based, as a run's outages */
        cJSON_AddNumberToObject(o, "w_id", l->w);
        cJSON_AddNumberToObject(o, "d_id", l->d);
        cJSON_AddNumberToObject(o, "o_id", l->o_id);
        cJSON_AddNumberToObject(o, "lines_acknowledged", l->lines_acked);
        cJSON_AddNumberToObject(o, "lines_found", l->lines_found < 0 ? 0 : l->lines_found);
        cJSON_AddBoolToObject(o, "order_found", l->lines_found >= 0);
        cJSON_AddNumberToObject(o, "t_ms", (double)l->t_ms);
        cJSON_AddBoolToObject(o, "in_doubt", l->in_doubt);
        cJSON_AddItemToArray(keys, o);
    }
    cJSON *pay = cJSON_AddObjectToObject(j, "payment");
    cJSON_AddNumberToObject(pay, "acknowledged", (double)res->payments);
    cJSON_AddNumberToObject(pay, "in_doubt", (double)res->payments_in_doubt);
    cJSON *whs = cJSON_AddArrayToObject(pay, "warehouses");
    for (int i = 0; i < res->nwh; i++) {
        const struct tpcc_audit_wh *w = &res->wh[i];
        int v = tpcc_audit_wh_verdict(w);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "target", w->target + 1);
        cJSON_AddNumberToObject(o, "w_id", w->w);
        if (w->has_baseline) {
            cJSON_AddNumberToObject(o, "baseline_cents", (double)w->baseline);
            cJSON_AddNumberToObject(o, "found_cents", (double)(w->now - w->baseline));
        }
        cJSON_AddNumberToObject(o, "acknowledged_cents", (double)w->acked);
        cJSON_AddNumberToObject(o, "in_doubt_cents", (double)w->in_doubt);
        cJSON_AddStringToObject(o, "verdict", v == 0 ? "ok" : v < 0 ? "lost" : v == 1 ? "more_than_written" : "no_baseline");
        cJSON_AddItemToArray(whs, o);
    }
    cJSON_AddBoolToObject(j, "pass", !tpcc_audit_failed(res));
}

/* The run to audit, checked: a TPC-C run whose targets the --target options match. */
static int audit_run(const struct dg_wl_act *a, struct dg_stored_run *r, struct dg_err *err)
{
    int64_t id = 0;
    if (parse_run_id(a, &id, err))
        return -1;
    int got = a->read_run(a, id, r, err);
    if (got < 0)
        return -1;
    if (got > 0)
        return dg_err_set(err, DG_ERR_USER, 0, "no run %lld in %s (see dbgauge runs)", (long long)id, a->c->results);
    if (strcmp(r->workload, "tpcc"))
        return dg_err_set(err, DG_ERR_USER, 0, "run %lld is %s %s run: the audit checks TPC-C runs", (long long)id,
                          strchr("aeiou", r->workload[0]) && r->workload[0] ? "an" : "a", r->workload);
    int nc = clusters_of(r);
    if (a->c->ntargets && a->c->ntargets != r->ntargets && a->c->ntargets != nc)
        return dg_err_set(err, DG_ERR_USER, 0, "run %lld had %d target%s: give as many --target, in its order, %sor none",
                          (long long)id, r->ntargets, r->ntargets == 1 ? "" : "s",
                          nc ? "one per cluster (any live node of it), " : "");
    return 0;
}

int tpcc_act_audit(const struct dg_wl_act *a, struct dg_err *err)
{
    struct dg_stored_run r = {0};
    struct tpcc_audit res = {0};
    int rc = audit_run(a, &r, err);
    if (rc == 0)
        fprintf(a->text, "TPC-C audit of run %lld (%s, %s)\n", (long long)r.id, r.status, r.started_at);
    for (int k = 0; rc == 0 && k < r.ntargets; k++) {
        char shown[1024] = "";
        rc = audit_target(a, &r, k, &res, shown, sizeof shown, err);
        if (rc == 0)
            fprintf(a->text, "  target %s\n", shown);
    }
    if (rc == 0) {
        print_text(a->text, &r, &res, r.ntargets);
        int failed = tpcc_audit_failed(&res);
        fprintf(a->text, "%s\n", failed ? "FAILED: acknowledged writes are missing" : "passed: nothing acknowledged was lost");
        if (a->json)
            add_json(a->json, &r, &res);
        rc = failed;
    }
    tpcc_audit_free(&res);
    dg_stored_run_free(&r);
    return rc;
}

int tpcc_audit_after(struct dg_conn_h *h, int n, const struct dg_ack *acks, size_t nacks,
                     struct dg_audit_summary *out, struct dg_err *err)
{
    struct tpcc_audit res = {0};
    int rc = 0;
    for (int k = 0; k < n && !rc; k++)
        rc = tpcc_audit_check(&h[k], k, acks, nacks, &res, err);
    *out = (struct dg_audit_summary){
        .acknowledged = (int64_t)res.acknowledged, .found = (int64_t)res.found, .lost = (int64_t)res.lost,
        .in_doubt = (int64_t)res.in_doubt, .in_doubt_found = (int64_t)res.in_doubt_found,
        .lost_first_ms = res.lost ? res.lost_first_ms : 0, .lost_last_ms = res.lost ? res.lost_last_ms : 0};
    for (int i = 0; i < res.nwh; i++)
        out->payment_lost += tpcc_audit_wh_verdict(&res.wh[i]) == -1;
    out->pass = !tpcc_audit_failed(&res);
    tpcc_audit_free(&res);
    return rc ? -1 : 0;
}
