/* Test subject for the tracer's compute share: 40 iterations (or the second argument's
 * number) of ~5 ms of "computation" between two barriers, done as `spin` (busy on the CPU)
 * or as `sleep` (off the CPU).  The manifest's compute_share must be high for the first
 * and near zero for the second.  `pas2p trace --runs` uses the count to make runs of
 * known, different lengths; a third argument, `sleep` only, sets the milliseconds of each
 * iteration (runs of one event count and different lengths).  `thread`: a worker thread
 * spins while the MPI thread waits for it (StarPU); `idlethread`: the worker spins 5 ms and
 * sleeps 15 ms (RELION's worker: a quarter of a core, the rest blocked). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void spin5ms(void)
{
    static volatile double x = 1;
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 0.005)
        x = x * 1.0000001 + 1e-9;
}

static void *spinner(void *arg)
{
    spin5ms();
    return arg;
}

/* RELION's worker: its computation in a thread a quarter of the time, asleep the rest */
static void *idler(void *arg)
{
    spin5ms();
    struct timespec ts = {0, 15000000};
    nanosleep(&ts, NULL);
    return arg;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int sleep_mode = argc > 1 && !strcmp(argv[1], "sleep"),
        thread_mode = argc > 1 && !strcmp(argv[1], "thread"),
        idle_mode = argc > 1 && !strcmp(argv[1], "idlethread");
    int iters = argc > 2 ? atoi(argv[2]) : 40;
    long ms = argc > 3 ? atol(argv[3]) : 5;
    for (int i = 0; i < iters; i++) {
        if (sleep_mode) {
            struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
            nanosleep(&ts, NULL);
        } else if (thread_mode) { /* a worker computes, the MPI thread waits off the CPU */
            pthread_t t;
            if (pthread_create(&t, NULL, spinner, NULL) == 0)
                pthread_join(t, NULL);
        } else if (idle_mode) { /* a worker computes 1/4 of the time, sleeps the rest */
            pthread_t t;
            if (pthread_create(&t, NULL, idler, NULL) == 0)
                pthread_join(t, NULL);
        } else {
            spin5ms();
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
