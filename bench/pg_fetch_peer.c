/* pg_fetch_peer.c — the physical limit of the client side for bench/stress.sh: T threads,
 * each on its own connection, run one query N times in libpq's single-row mode and do
 * nothing with the rows but count them and their bytes. A benchmark peer, not part of dbgauge.
 *   pg_fetch_peer CONNINFO QUERY THREADS ITERATIONS   (prints: rows bytes seconds) */
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct job {
    const char *conninfo, *query;
    int iterations;
    unsigned long long rows, bytes;
    int failed;
    pthread_barrier_t *ready; /* the clock starts when every thread is connected, as dbgauge's */
    struct timespec *t0;
};

static void *run(void *arg)
{
    struct job *j = arg;
    PGconn *c = PQconnectdb(j->conninfo);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "connect: %s", PQerrorMessage(c));
        j->failed = 1;
    }
    if (pthread_barrier_wait(j->ready) == PTHREAD_BARRIER_SERIAL_THREAD)
        clock_gettime(CLOCK_MONOTONIC, j->t0);
    for (int i = 0; i < j->iterations && !j->failed; i++) {
        if (!PQsendQueryParams(c, j->query, 0, NULL, NULL, NULL, NULL, 0) || !PQsetSingleRowMode(c)) {
            j->failed = 1;
            break;
        }
        PGresult *r;
        while ((r = PQgetResult(c)) != NULL) {
            ExecStatusType st = PQresultStatus(r);
            if (st == PGRES_SINGLE_TUPLE) {
                int nc = PQnfields(r);
                j->rows++;
                for (int k = 0; k < nc; k++)
                    j->bytes += (unsigned long long)PQgetlength(r, 0, k);
            } else if (st != PGRES_TUPLES_OK) {
                fprintf(stderr, "query: %s", PQresultErrorMessage(r));
                j->failed = 1;
            }
            PQclear(r);
        }
    }
    PQfinish(c);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: pg_fetch_peer CONNINFO QUERY THREADS ITERATIONS\n");
        return 2;
    }
    int threads = atoi(argv[3]), iterations = atoi(argv[4]);
    if (threads < 1 || threads > 64 || iterations < 1)
        return 2;
    struct job jobs[64];
    pthread_t th[64];
    struct timespec t0, t1;
    pthread_barrier_t ready;
    pthread_barrier_init(&ready, NULL, (unsigned)threads);
    for (int i = 0; i < threads; i++) {
        jobs[i] = (struct job){argv[1], argv[2], iterations, 0, 0, 0, &ready, &t0};
        pthread_create(&th[i], NULL, run, &jobs[i]);
    }
    unsigned long long rows = 0, bytes = 0;
    int failed = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        rows += jobs[i].rows;
        bytes += jobs[i].bytes;
        failed |= jobs[i].failed;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%llu %llu %.6f\n", rows, bytes, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    return failed;
}
