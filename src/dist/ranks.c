/* ranks.c — one run from several client processes over MPI (see ranks.h). */
#include "dist/ranks.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/procid.h"
#include "core/runmerge.h"
#include "dg_config.h"

enum { RC_FAILED = 1, RC_USAGE = 2 }; /* the exit statuses of cmd/cmd.h */

#if DG_HAVE_MPI
#include <mpi.h>

enum { TAG_BEAT = 11, TAG_RESULT, TAG_STOP, TAG_DONE, TAG_SYNC };

/* Under mpirun the launcher sets these before the process starts. */
static int under_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL;
}

int dg_ranks_init(int *argc, char ***argv)
{
    if (!under_mpirun())
        return 0;
    /* The threads MPI starts (Open MPI's event and PMIx threads) inherit a mask with SIGINT and
     * SIGTERM blocked. Otherwise the kernel hands those signals to one of them whenever the
     * runner's thread, which blocks them to take them with sigtimedwait, is not inside that
     * call: and there they take their default action, ending the rank with nothing stored (seen:
     * Ctrl-C on rank 0 under ASan beside a CPU hog, exit 130, 1 run of 5). */
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, &old);
    int provided = 0, started = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!started) {
        fprintf(stderr, "dbgauge: MPI would not start\n");
        return -1;
    }
    /* A rank that dies must not take this one down with an error handler's abort. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return 0;
}

static int mpi_on(void)
{
    int on = 0, off = 0;
    MPI_Initialized(&on);
    if (on)
        MPI_Finalized(&off);
    return on && !off;
}

void dg_ranks_finalize(int abandon, int status)
{
    if (!mpi_on())
        return;
    if (abandon) { /* MPI_Finalize would wait for a rank that is gone */
        fflush(stdout);
        fflush(stderr);
        _exit(status);
    }
    /* What this rank printed goes out before the others may leave: once one rank exits with
     * a failure, Open MPI sends SIGTERM to the rest, which is harmless after this point. */
    fflush(stdout);
    fflush(stderr);
    signal(SIGTERM, SIG_IGN);
    MPI_Finalize();
}

int dg_ranks_size(void)
{
    int n = 1;
    if (mpi_on())
        MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

int dg_ranks_rank(void)
{
    int r = 0;
    if (mpi_on())
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

const char *dg_ranks_library(void)
{
#define DG_STR_(x) #x
#define DG_STR(x) DG_STR_(x)
    return "Open MPI " DG_STR(OMPI_MAJOR_VERSION) "." DG_STR(OMPI_MINOR_VERSION) "." DG_STR(OMPI_RELEASE_VERSION);
}
#else
int dg_ranks_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (getenv("OMPI_COMM_WORLD_SIZE") && atoi(getenv("OMPI_COMM_WORLD_SIZE")) > 1)
        fprintf(stderr, "dbgauge: started by mpirun, but built without Open MPI: each process runs alone\n");
    return 0;
}
void dg_ranks_finalize(int abandon, int status)
{
    (void)abandon;
    (void)status;
}
int dg_ranks_size(void)
{
    return 1;
}
int dg_ranks_rank(void)
{
    return 0;
}
const char *dg_ranks_library(void)
{
    return NULL;
}
#endif

/* The host a rank runs on: DG_HOST_NAME when the launcher names it (test hosts made of
 * network namespaces share the machine's name), else the machine's. */
static void host_name(char *out, size_t n)
{
    const char *h = getenv("DG_HOST_NAME");
    if (h && *h)
        snprintf(out, n, "%s", h);
    else if (gethostname(out, n))
        snprintf(out, n, "?");
    out[n - 1] = '\0';
}

int dg_rank_run_init(struct dg_rank_run *rr, int ntypes)
{
    memset(rr, 0, sizeof *rr);
    rr->size = dg_ranks_size();
    rr->rank = dg_ranks_rank();
    rr->ntypes = ntypes;
    const char *rec = getenv("OMPI_MCA_orte_enable_recovery");
    rr->recovery = rec && (!strcmp(rec, "1") || !strcmp(rec, "true"));
    if (!(rr->peers = calloc((size_t)rr->size, sizeof *rr->peers)))
        return -1;
    host_name(rr->peers[rr->rank].host, sizeof rr->peers[0].host);
    return 0;
}

void dg_rank_run_free(struct dg_rank_run *rr)
{
    for (int k = 0; rr->peers && k < rr->size; k++) {
        dg_run_result_free(&rr->peers[k].res);
        free(rr->peers[k].mon);
    }
    free(rr->peers);
    rr->peers = NULL;
}

/* Totals per type over the series so far (what a beat carries). */
static void series_totals(const struct dg_series *se, int ntypes, struct dg_sec_counts *out)
{
    memset(out, 0, sizeof(struct dg_sec_counts) * DG_MAX_TYPES);
    for (size_t i = 0; se && i < se->n; i++)
        for (int t = 0; t < ntypes; t++) {
            out[t].committed += se->pts[i].t[t].c.committed;
            out[t].rollbacks += se->pts[i].t[t].c.rollbacks;
            out[t].retries += se->pts[i].t[t].c.retries;
            out[t].errors += se->pts[i].t[t].c.errors;
        }
}

void dg_rank_tick(struct dg_rank_run *rr, struct dg_tick *t)
{
    for (int k = 1; rr->rank == 0 && k < rr->size; k++) {
        struct dg_rank_peer *p = &rr->peers[k];
        for (int ty = 0; ty < t->ntypes; ty++) {
            const struct dg_sec_counts *b = &p->beat[ty], *a = &p->at_tick[ty];
            t->interval[ty].committed += b->committed - a->committed;
            t->interval[ty].rollbacks += b->rollbacks - a->rollbacks;
            t->interval[ty].retries += b->retries - a->retries;
            t->interval[ty].errors += b->errors - a->errors;
            t->total[ty].committed += b->committed;
            t->total[ty].rollbacks += b->rollbacks;
            t->total[ty].retries += b->retries;
            t->total[ty].errors += b->errors;
        }
        memcpy(p->at_tick, p->beat, sizeof p->beat);
    }
}

#if DG_HAVE_MPI
/* What each rank says at an agreement. */
struct agree_msg {
    int32_t rc;
    char host[64];
    char msg[400];
};

int dg_rank_agree(struct dg_rank_run *rr, int rc, const char *msg, char *why, size_t whylen)
{
    if (rr->size <= 1)
        return rc;
    struct agree_msg mine = {.rc = rc};
    snprintf(mine.host, sizeof mine.host, "%s", rr->peers[rr->rank].host);
    snprintf(mine.msg, sizeof mine.msg, "%s", msg ? msg : "");
    struct agree_msg *all = calloc((size_t)rr->size, sizeof *all);
    if (!all)
        return -1;
    rr->stage++;
    int bad = MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS;
    int first = -1;
    for (int k = 0; !bad && k < rr->size; k++) {
        memcpy(rr->peers[k].host, all[k].host, sizeof all[k].host);
        rr->peers[k].host[sizeof all[k].host - 1] = '\0';
        if (all[k].rc && first < 0)
            first = k;
    }
    int out = bad ? RC_FAILED : first < 0 ? 0 : all[first].rc;
    rr->peer_failed = out && !rc;
    if (out) /* every rank saw it fail: none will come to another agreement */
        rr->stage = DG_RANK_STAGES;
    if (why && whylen)
        snprintf(why, whylen, bad ? "the ranks could not agree (MPI_Allgather failed)" : "rank %d on %s: %s", first,
                 first >= 0 ? all[first].host : "", first >= 0 ? all[first].msg : "");
    free(all);
    return out;
}

int dg_rank_sum(struct dg_rank_run *rr, uint64_t *v, int n)
{
    if (rr->size <= 1)
        return 0;
    return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

void dg_rank_fail_early(struct dg_rank_run *rr, int rc, const char *msg)
{
    if (rr->size > 1 && rr->stage < DG_RANK_STAGES)
        dg_rank_agree(rr, rc ? rc : RC_FAILED, msg, NULL, 0);
    rr->stage = DG_RANK_STAGES; /* the others stopped at that agreement too */
}

/* Rank 0: the offset of rank k's clock from its own, by the exchange with the shortest round
 * trip of eight (the answer's time is taken halfway through it); 0 when rank k says it reads
 * the same clock (dg_clock_id: the same boot and time namespace, any network namespace). */
static dg_ns measure_offset(int k, dg_ns *rtt_out)
{
    dg_ns best_rtt = UINT64_MAX, offset = 0;
    char mine[DG_CLOCK_ID_LEN], theirs[DG_CLOCK_ID_LEN];
    dg_clock_id(mine, sizeof mine);
    MPI_Recv(theirs, sizeof theirs, MPI_CHAR, k, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    theirs[sizeof theirs - 1] = '\0';
    for (int i = 0; i < 8; i++) {
        uint64_t t0 = dg_now_ns(), tk = 0;
        MPI_Send(&t0, 1, MPI_UINT64_T, k, TAG_SYNC, MPI_COMM_WORLD);
        MPI_Recv(&tk, 1, MPI_UINT64_T, k, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        uint64_t t1 = dg_now_ns();
        if (t1 - t0 < best_rtt) {
            best_rtt = t1 - t0;
            offset = tk - (t0 + (t1 - t0) / 2); /* unsigned: wraps back to the signed difference */
        }
    }
    *rtt_out = best_rtt;
    /* The same clock: the offset is 0 exactly, where a measured one errs by up to half the
     * best round trip (which a busy host stretches to milliseconds) */
    return mine[0] && !strcmp(mine, theirs) ? 0 : offset;
}

/* Makes the calling thread real-time (SCHED_FIFO) where the system allows it; returns 1 if it
 * did, for normal_priority to undo. Every rank holds it from the moment the start line is
 * chosen (rank 0) or awaited (the others) until it is crossed. A rank that waits in an
 * ordinary sleep, or even yields, can wait milliseconds for a core once the ranks that reached
 * the line first release their workers (seen: 1.4 ms with 2 ranks on 2 cores, 2.2 ms with 3);
 * and a rank 0 preempted between choosing the line and sending it made every other rank hear of
 * it after it had passed (seen under ASan beside two busy test lanes: 3.8 ms late). Ordinary
 * threads preempt neither. */
static int realtime(void)
{
    struct sched_param rt = {.sched_priority = 1};
    return !pthread_setschedparam(pthread_self(), SCHED_FIFO, &rt);
}

/* A rank other than 0: takes the start line, polling every 50 us instead of blocking in
 * MPI_Recv, whose busy wait would keep a real-time thread on its core and starve whatever else
 * runs there (rank 0 itself, on a host with fewer cores than ranks). A real-time thread's
 * timer wakes it within microseconds, so it hears the line as soon as it is sent. */
static void await_start(uint64_t *start)
{
    int flag = 0;
    MPI_Status st;
    struct timespec beat = {0, 50 * 1000};
    while (MPI_Iprobe(0, TAG_SYNC, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && !flag)
        nanosleep(&beat, NULL);
    MPI_Recv(start, 1, MPI_UINT64_T, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Sleeps until 2 ms before t, then yields until t: among the ranks' spinning real-time threads
 * sched_yield takes turns within microseconds. 2 ms of spinning per run is the price. */
static void sleep_until(dg_ns t)
{
    dg_ns early = t - 2 * DG_NS_PER_MS;
    struct timespec ts = {(time_t)(early / DG_NS_PER_S), (long)(early % DG_NS_PER_S)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
        ;
    while (dg_now_ns() < t)
        sched_yield();
}

static void normal_priority(int raised)
{
    struct sched_param normal = {.sched_priority = 0};
    if (raised)
        pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
}

dg_ns dg_rank_start(struct dg_rank_run *rr, int ok, struct dg_err *err)
{
    char why[512];
    int rc = dg_rank_agree(rr, ok ? 0 : err->cls == DG_ERR_USER ? RC_USAGE : RC_FAILED, ok ? "" : err->msg, why,
                           sizeof why);
    if (rc) {
        if (ok)
            dg_err_set(err, rc == RC_USAGE ? DG_ERR_USER : DG_ERR_FATAL, 0, "%s", why);
        return 0;
    }
    uint64_t start = 0;
    int raised = 0;
    if (rr->rank == 0) {
        dg_ns worst = 0;
        for (int k = 1; k < rr->size; k++) {
            dg_ns rtt;
            rr->peers[k].offset_ns = measure_offset(k, &rtt);
            worst = rtt > worst ? rtt : worst;
        }
        /* Far enough ahead that every rank hears of it before it comes. */
        raised = realtime();
        start = dg_now_ns() + 20 * DG_NS_PER_MS + 4 * worst;
        for (int k = 1; k < rr->size; k++) {
            uint64_t theirs = start + rr->peers[k].offset_ns;
            MPI_Send(&theirs, 1, MPI_UINT64_T, k, TAG_SYNC, MPI_COMM_WORLD);
        }
    } else {
        char clock[DG_CLOCK_ID_LEN];
        dg_clock_id(clock, sizeof clock);
        MPI_Send(clock, sizeof clock, MPI_CHAR, 0, TAG_SYNC, MPI_COMM_WORLD);
        for (int i = 0; i < 8; i++) {
            uint64_t t0, mine;
            MPI_Recv(&t0, 1, MPI_UINT64_T, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            mine = dg_now_ns();
            MPI_Send(&mine, 1, MPI_UINT64_T, 0, TAG_SYNC, MPI_COMM_WORLD);
        }
        raised = realtime();
        await_start(&start);
        dg_ns heard = dg_now_ns();
        if (heard > start) /* the alignment is lost: say where, for whoever reads its figures */
            fprintf(stderr, "dbgauge: rank %d heard of the start line %.3f ms after it\n", rr->rank,
                    (double)(heard - start) / (double)DG_NS_PER_MS);
    }
    sleep_until(start);
    /* When this rank really began, in rank 0's clock (sent with the result). */
    rr->peers[rr->rank].start_ns = dg_now_ns() - rr->peers[rr->rank].offset_ns;
    normal_priority(raised);
    rr->start_local = start;
    rr->next_beat = start + DG_RANK_BEAT_NS;
    for (int k = 0; k < rr->size; k++)
        rr->peers[k].last_heard = dg_now_ns();
    return start;
}

/* A rank's result on the wire: when it started (rank 0's clock), its offset, then the packed result. */
struct result_head {
    uint64_t start_ns, offset_ns;
    uint64_t nmon; /* monitor points after the packed result (struct dg_monitor_point each) */
};

/* Rank 0: takes one message that is waiting from rank `from` (tag says which). */
static int take_message(struct dg_rank_run *rr, MPI_Status *st)
{
    struct dg_rank_peer *p = &rr->peers[st->MPI_SOURCE];
    int n = 0;
    MPI_Get_count(st, MPI_BYTE, &n);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf)
        return -1;
    MPI_Recv(buf, n, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    p->last_heard = dg_now_ns();
    if (st->MPI_TAG == TAG_BEAT && (size_t)n == sizeof p->beat && p->state == DG_RANK_RUNNING)
        memcpy(p->beat, buf, sizeof p->beat);
    if (st->MPI_TAG == TAG_RESULT && p->state == DG_RANK_RUNNING && (size_t)n >= sizeof(struct result_head)) {
        struct result_head h;
        memcpy(&h, buf, sizeof h);
        size_t body = (size_t)n - sizeof h, mlen = h.nmon * sizeof *p->mon;
        int ok = h.nmon <= body / sizeof *p->mon &&
                 !dg_result_unpack(buf + sizeof h, body - mlen, &p->res);
        if (ok && mlen && (p->mon = malloc(mlen))) {
            memcpy(p->mon, buf + sizeof h + body - mlen, mlen);
            p->nmon = h.nmon;
        }
        if (ok) {
            p->start_ns = h.start_ns;
            p->state = DG_RANK_REPORTED;
        } else {
            snprintf(rr->why, sizeof rr->why, "rank %d on %s sent a result this build cannot read",
                     st->MPI_SOURCE, p->host);
            p->state = DG_RANK_DEAD;
            rr->ndead++;
        }
    }
    free(buf);
    return 0;
}

/* Rank 0: every message waiting, then anyone silent too long is dead. Returns -1 out of memory. */
static int drain(struct dg_rank_run *rr, dg_ns now, dg_ns silent_after)
{
    for (;;) {
        int any = 0;
        MPI_Status st;
        if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &any, &st) != MPI_SUCCESS || !any)
            break;
        if (take_message(rr, &st))
            return -1;
    }
    for (int k = 1; k < rr->size; k++) {
        struct dg_rank_peer *p = &rr->peers[k];
        if (p->state != DG_RANK_RUNNING || now < p->last_heard + silent_after)
            continue;
        p->state = DG_RANK_DEAD;
        if (!rr->ndead++)
            snprintf(rr->why, sizeof rr->why, "rank %d on %s was lost: not heard from for %.1f s", k, p->host,
                     (double)(now - p->last_heard) / 1e9);
    }
    return 0;
}

/* Rank 0: STOP to every rank still running (once). */
static void send_stop(struct dg_rank_run *rr)
{
    if (rr->stop_sent)
        return;
    rr->stop_sent = 1;
    for (int k = 1; k < rr->size; k++)
        if (rr->peers[k].state == DG_RANK_RUNNING) {
            MPI_Request q;
            int one = 1;
            if (MPI_Isend(&one, 1, MPI_INT, k, TAG_STOP, MPI_COMM_WORLD, &q) == MPI_SUCCESS)
                MPI_Request_free(&q); /* a small message: sent eagerly, or lost with its rank */
        }
}

int dg_rank_poll(struct dg_rank_run *rr, dg_ns now, const struct dg_series *se)
{
    if (rr->size <= 1)
        return 0;
    if (rr->rank == 0) {
        int dead = rr->ndead;
        drain(rr, now, DG_RANK_DEAD_AFTER_NS);
        if (rr->ndead > dead) {
            send_stop(rr);
            return 1;
        }
        return 0;
    }
    int stop = 0;
    MPI_Iprobe(0, TAG_STOP, MPI_COMM_WORLD, &stop, MPI_STATUS_IGNORE);
    if (now >= rr->next_beat || stop) { /* on STOP too: rank 0 then counts from this beat */
        struct dg_sec_counts totals[DG_MAX_TYPES];
        series_totals(se, rr->ntypes, totals);
        MPI_Send(totals, sizeof totals, MPI_BYTE, 0, TAG_BEAT, MPI_COMM_WORLD);
        rr->next_beat = now + DG_RANK_BEAT_NS;
    }
    return stop;
}

/* Another rank: its result to rank 0. */
static int send_result(struct dg_rank_run *rr, const struct dg_run_result *mine)
{
    unsigned char *packed = NULL;
    size_t len = 0;
    if (dg_result_pack(mine, &packed, &len))
        return -1;
    struct result_head h = {.start_ns = rr->peers[rr->rank].start_ns, .nmon = rr->my_nmon};
    size_t mlen = rr->my_nmon * sizeof *rr->my_mon, total = sizeof h + len + mlen;
    unsigned char *msg = malloc(total);
    if (!msg || total > (size_t)INT32_MAX) {
        free(packed);
        free(msg);
        return -1;
    }
    memcpy(msg, &h, sizeof h);
    memcpy(msg + sizeof h, packed, len);
    if (mlen)
        memcpy(msg + sizeof h + len, rr->my_mon, mlen);
    free(packed);
    /* Rank 0 takes results as soon as its own workers are joined. If it does not within
     * 30 s it has counted this rank lost and ended: waiting longer would hang this process
     * (under --enable-recovery nobody would end it). */
    MPI_Request q;
    int done = 0;
    dg_ns give_up = dg_now_ns() + 30 * DG_NS_PER_S;
    if (MPI_Isend(msg, (int)total, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD, &q) == MPI_SUCCESS)
        while (MPI_Test(&q, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done && dg_now_ns() < give_up) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    if (!done) { /* msg stays with MPI: this process leaves without finalizing */
        rr->peers[0].state = DG_RANK_DEAD;
        rr->ndead++;
        return -2;
    }
    free(msg);
    return 0;
}

int dg_rank_gather(struct dg_rank_run *rr, const struct dg_run_result *mine, int interrupted)
{
    if (rr->size <= 1)
        return 0;
    if (rr->rank != 0)
        return send_result(rr, mine);
    if (interrupted)
        send_stop(rr);
    /* After the window a rank says nothing while it stops its workers: give it longer. But
     * when the run was stopped (Ctrl-C, a lost rank, mpirun's SIGTERM after a rank died, with
     * SIGKILL a second behind it) the living ranks answer at once, and one that missed three
     * beats is gone — at once if it was silent four beats already (mpirun's SIGTERM comes a
     * second after the death: that second is better spent storing). */
    dg_ns began = dg_now_ns();
    for (;;) {
        dg_ns now = dg_now_ns();
        /* Under --enable-recovery no SIGKILL follows: a living rank slow to stop (a busy
         * machine, a statement finishing) gets 3 s before it counts as lost. */
        dg_ns silent_after = !interrupted ? 2 * DG_RANK_DEAD_AFTER_NS
                             : rr->recovery ? 3 * DG_NS_PER_S
                             : now < began + 3 * DG_NS_PER_S / 10 ? 4 * DG_RANK_BEAT_NS : 3 * DG_RANK_BEAT_NS;
        if (drain(rr, now, silent_after))
            return -1;
        int waiting = 0;
        for (int k = 1; k < rr->size; k++)
            waiting += rr->peers[k].state == DG_RANK_RUNNING;
        if (!waiting)
            return 0;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
}

int dg_rank_done(struct dg_rank_run *rr, int rc, int64_t *run_id, int *interrupted)
{
    if (rr->size <= 1)
        return rc;
    /* The run's status, its id in the store, whether it was interrupted, and how many ranks
     * were lost: a rank that knows of a loss must not wait for the lost one in MPI_Finalize. */
    int64_t v[4] = {rc, *run_id, *interrupted, rr->ndead};
    if (rr->rank == 0) {
        /* Once the others leave with a failure Open MPI may kill this rank at once: what it
         * printed must be out first (it is already stored). */
        fflush(stdout);
        fflush(stderr);
        for (int k = 1; k < rr->size; k++)
            if (rr->peers[k].state != DG_RANK_DEAD) {
                MPI_Request q;
                if (MPI_Isend(v, 4, MPI_INT64_T, k, TAG_DONE, MPI_COMM_WORLD, &q) == MPI_SUCCESS)
                    MPI_Wait(&q, MPI_STATUS_IGNORE);
            }
        return rc;
    }
    if (rr->peers[0].state == DG_RANK_DEAD) /* rank 0 never took this rank's result */
        return rc;
    /* A STOP that crossed the end of the window may still be waiting: take it first. */
    for (;;) {
        MPI_Status st;
        if (MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st) != MPI_SUCCESS)
            return RC_FAILED;
        if (st.MPI_TAG == TAG_DONE) {
            MPI_Recv(v, 4, MPI_INT64_T, 0, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            *run_id = v[1];
            *interrupted = (int)v[2];
            if (v[3] > rr->ndead)
                rr->ndead = (int)v[3];
            return (int)v[0];
        }
        int junk[64];
        MPI_Recv(junk, (int)sizeof junk, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}
#else
int dg_rank_agree(struct dg_rank_run *rr, int rc, const char *msg, char *why, size_t whylen)
{
    (void)rr;
    if (why && whylen)
        snprintf(why, whylen, "%s", msg ? msg : "");
    return rc;
}
int dg_rank_sum(struct dg_rank_run *rr, uint64_t *v, int n)
{
    (void)rr;
    (void)v;
    (void)n;
    return 0;
}
void dg_rank_fail_early(struct dg_rank_run *rr, int rc, const char *msg)
{
    (void)rr;
    (void)rc;
    (void)msg;
}
dg_ns dg_rank_start(struct dg_rank_run *rr, int ok, struct dg_err *err)
{
    (void)rr;
    (void)err;
    return ok ? dg_now_ns() : 0;
}
int dg_rank_poll(struct dg_rank_run *rr, dg_ns now, const struct dg_series *se)
{
    (void)rr;
    (void)now;
    (void)se;
    return 0;
}
int dg_rank_gather(struct dg_rank_run *rr, const struct dg_run_result *mine, int interrupted)
{
    (void)rr;
    (void)mine;
    (void)interrupted;
    return 0;
}
int dg_rank_done(struct dg_rank_run *rr, int rc, int64_t *run_id, int *interrupted)
{
    (void)rr;
    (void)run_id;
    (void)interrupted;
    return rc;
}
#endif
