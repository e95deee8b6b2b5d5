/* repl.c (report) — renderings of a stored run's replication rows: per target and peer the
 * replay lag (mean, max), the most bytes behind, the states seen and, for Galera nodes, the
 * cluster size, flow control, receive queue and certification failures; the per-second rows
 * as JSON. Formatting only; reads nothing but the record. */
#include "report/repl.h"

#include <string.h>

#include "report/summary.h"

int dg_repl_peer_index(const struct dg_repl_peer *peers, int n, const struct dg_repl_point *p)
{
    for (int i = 0; i < n; i++)
        if (peers[i].target == p->target && !strcmp(peers[i].name, p->row.name))
            return i;
    return -1;
}

/* Adds word to a ", "-separated list when it is not there yet (and fits). */
static void add_word(char *list, size_t n, const char *word)
{
    if (!word[0])
        return;
    size_t len = strlen(word);
    for (const char *s = list; (s = strstr(s, word)) != NULL; s += len)
        if ((s == list || s[-1] == ' ') && (s[len] == ',' || !s[len]))
            return;
    size_t used = strlen(list);
    if (used + len + 3 < n)
        snprintf(list + used, n - used, "%s%s", used ? ", " : "", word);
}

static double max_of(double a, double b) { return b > a ? b : a; }

static void peer_add(struct dg_repl_peer *x, const struct dg_repl_row *w, double *replay_sum,
                     size_t *replay_n, double *cert_first)
{
    x->n++;
    if (w->replay_lag_s >= 0) {
        *replay_sum += w->replay_lag_s;
        ++*replay_n;
        x->replay_max_s = max_of(x->replay_max_s, w->replay_lag_s);
    }
    x->lag_bytes_max = max_of(x->lag_bytes_max, w->lag_bytes);
    add_word(x->states, sizeof x->states, w->state);
    add_word(x->syncs, sizeof x->syncs, w->sync);
    x->behind_s += w->behind != 0;
    if (w->cluster_size >= 0) {
        x->cluster_min = x->cluster_min < 0 || w->cluster_size < x->cluster_min ? w->cluster_size : x->cluster_min;
        x->cluster_max = max_of(x->cluster_max, w->cluster_size);
    }
    x->flow_paused_max = max_of(x->flow_paused_max, w->flow_paused);
    x->recv_queue_max = max_of(x->recv_queue_max, w->recv_queue);
    if (w->cert_failures >= 0) {
        if (*cert_first < 0)
            *cert_first = w->cert_failures;
        x->cert_failures_delta = w->cert_failures - *cert_first;
    }
}

int dg_repl_peers(const struct dg_run_record *r, struct dg_repl_peer *out, int max)
{
    double sum[DG_REPL_MAX_PEERS] = {0}, cert_first[DG_REPL_MAX_PEERS];
    size_t nsum[DG_REPL_MAX_PEERS] = {0};
    int n = 0;
    if (max > DG_REPL_MAX_PEERS)
        max = DG_REPL_MAX_PEERS;
    for (size_t k = 0; k < r->nrepl; k++) {
        const struct dg_repl_point *p = &r->repl[k];
        int i = dg_repl_peer_index(out, n, p);
        if (i < 0) {
            if (n == max)
                continue;
            i = n++;
            out[i] = (struct dg_repl_peer){.target = p->target, .replay_mean_s = -1, .replay_max_s = -1,
                                           .lag_bytes_max = -1, .cluster_min = -1, .cluster_max = -1,
                                           .flow_paused_max = -1, .recv_queue_max = -1,
                                           .cert_failures_delta = -1};
            snprintf(out[i].name, sizeof out[i].name, "%s", p->row.name);
            cert_first[i] = -1;
        }
        peer_add(&out[i], &p->row, &sum[i], &nsum[i], &cert_first[i]);
    }
    for (int i = 0; i < n; i++)
        if (nsum[i])
            out[i].replay_mean_s = sum[i] / (double)nsum[i];
    return n;
}

void dg_report_repl_text(FILE *out, const struct dg_run_record *r)
{
    struct dg_repl_peer peers[DG_REPL_MAX_PEERS];
    int n = dg_repl_peers(r, peers, DG_REPL_MAX_PEERS);
    if (!n)
        return;
    fprintf(out, "\nReplication, per target and peer over %zu rows (\"self\": the server about itself; "
                 "- : not available)\n", r->nrepl);
    fprintf(out, "%6s  %-20s %7s  %9s %9s  %12s %7s  %s\n", "target", "peer", "seconds", "replay s",
            "max s", "max bytes", "behind", "state (sync)");
    for (int i = 0; i < n; i++) {
        const struct dg_repl_peer *x = &peers[i];
        char a[24], b[24], c[24];
        fprintf(out, "%6d  %-20s %7zu  %9s %9s  %12s %7d  %s%s%s%s\n", x->target + 1, x->name, x->n,
                dg_report_fig(x->replay_mean_s, "%.3f", a, sizeof a),
                dg_report_fig(x->replay_max_s, "%.3f", b, sizeof b), dg_report_fig(x->lag_bytes_max, "%.0f", c, sizeof c),
                x->behind_s, x->states[0] ? x->states : "-",
                x->syncs[0] ? " (" : "", x->syncs, x->syncs[0] ? ")" : "");
        if (x->cluster_max >= 0) {
            char d[24], e[24], f[24], g[24];
            fprintf(out, "%6s  %-20s Galera: cluster size %s..%s, flow control paused max %s, recv queue max %s, "
                         "cert failures +%s\n", "", "", dg_report_fig(x->cluster_min, "%.0f", d, sizeof d),
                    dg_report_fig(x->cluster_max, "%.0f", e, sizeof e),
                    dg_report_fig(x->flow_paused_max, "%.3f", f, sizeof f),
                    dg_report_fig(x->recv_queue_max, "%.0f", g, sizeof g),
                    dg_report_fig(x->cert_failures_delta, "%.0f", c, sizeof c));
        }
    }
}

static void text(cJSON *o, const char *name, const char *v)
{
    if (v[0])
        cJSON_AddStringToObject(o, name, v);
    else
        cJSON_AddNullToObject(o, name);
}

cJSON *dg_report_repl_json(const struct dg_run_record *r)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; k < r->nrepl; k++) {
        const struct dg_repl_point *p = &r->repl[k];
        const struct dg_repl_row *w = &p->row;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "second", (double)p->second);
        cJSON_AddNumberToObject(o, "target", p->target + 1);
        text(o, "name", w->name);
        text(o, "state", w->state);
        text(o, "sync_state", w->sync);
        dg_report_json_num(o, "write_lag_s", w->write_lag_s);
        dg_report_json_num(o, "flush_lag_s", w->flush_lag_s);
        dg_report_json_num(o, "replay_lag_s", w->replay_lag_s);
        dg_report_json_num(o, "lag_bytes", w->lag_bytes);
        dg_report_json_num(o, "cluster_size", w->cluster_size);
        dg_report_json_num(o, "flow_paused", w->flow_paused);
        dg_report_json_num(o, "recv_queue", w->recv_queue);
        dg_report_json_num(o, "send_queue", w->send_queue);
        dg_report_json_num(o, "cert_failures", w->cert_failures);
        cJSON_AddBoolToObject(o, "behind", w->behind != 0);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

cJSON *dg_report_repl_summary_json(const struct dg_run_record *r)
{
    struct dg_repl_peer peers[DG_REPL_MAX_PEERS];
    int n = dg_repl_peers(r, peers, DG_REPL_MAX_PEERS);
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        const struct dg_repl_peer *x = &peers[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "target", x->target + 1);
        cJSON_AddStringToObject(o, "name", x->name);
        cJSON_AddNumberToObject(o, "seconds", (double)x->n);
        dg_report_json_num(o, "replay_lag_mean_s", x->replay_mean_s);
        dg_report_json_num(o, "replay_lag_max_s", x->replay_max_s);
        dg_report_json_num(o, "lag_bytes_max", x->lag_bytes_max);
        cJSON_AddStringToObject(o, "states", x->states);
        cJSON_AddStringToObject(o, "sync_states", x->syncs);
        cJSON_AddNumberToObject(o, "behind_seconds", x->behind_s);
        dg_report_json_num(o, "cluster_size_min", x->cluster_min);
        dg_report_json_num(o, "cluster_size_max", x->cluster_max);
        dg_report_json_num(o, "flow_paused_max", x->flow_paused_max);
        dg_report_json_num(o, "recv_queue_max", x->recv_queue_max);
        dg_report_json_num(o, "cert_failures_delta", x->cert_failures_delta);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}
